//! Register release flags (Jeon & Annavaram 2014, Jeon & Annavaram, §4.3 and §5).
//!
//! * **pir** (per-instruction release, §5.1): a source operand's architectural register is
//!   released right after the instruction reads it, when the value dies there.
//! * **pbr** (per-branch release, §5.2): a list of architectural registers released at the start
//!   of a reconvergence block.
//!
//! Registers are released per *warp*. A release inside a divergent region would destroy the
//! value still needed by the threads that took the other path (§4.3 "Diverged flows") or that
//! keep iterating a loop (§4.3 "Loop"). The rule implemented, for a death of register `u` at a
//! point in block `B`:
//!
//! 1. For every potentially divergent branch `D` (a guarded `bra` without `.uni`) whose
//!    divergent region (blocks reachable from `D` before its immediate post-dominator `P`)
//!    contains `B`: if `u` is live into `P`, threads waiting at `P` still hold a value in `u`,
//!    so this death releases nothing; otherwise, if `u` is live after `D`'s branch, threads on
//!    the other path may still read it, so the release is deferred to `P` (a pbr entry) and the
//!    rule is applied again at `P` (nested divergence, §4.3 Fig. 4c). A loop-exit branch makes
//!    the loop body its region, so loop-carried values are released only outside the loop
//!    (§4.3 Fig. 4d) while values private to an iteration are released at their last use in the
//!    body (Fig. 4e).
//! 2. Undeferred deaths at an instruction become pir flags; undeferred deaths on a CFG edge
//!    (live at the end of a predecessor, dead at the start of `B`) become pbr entries of `B`.
//! 3. Deaths deferred to the virtual exit release nothing (the warp's registers are freed when
//!    it exits).
//!
//! Dead definitions (a value written and never read) are reported separately in
//! [`Release::dead_dst`] and follow the same rule.

use super::bitset::BitSet;
use super::liveness::{Liveness, UseDef};
use super::regalloc::{Allocation, ArchReg};
use crate::ir::Function;

/// Release flags of one function, keyed by architectural register, indexable by PC / block.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Release {
    /// pir: registers released right after instruction `pc` reads them (sorted).
    pub pir: Vec<Vec<ArchReg>>,
    /// Seed-002 3-bit-style mask: bit `k` set if the `k`-th register of `Instr::reads()`
    /// (guard first) is released by this instruction.
    pub pir_mask: Vec<u32>,
    /// Destination registers written but never read afterwards, released after the write.
    pub dead_dst: Vec<Vec<ArchReg>>,
    /// pbr: registers released at the start of each block (sorted). Non-empty mostly at
    /// reconvergence points (immediate post-dominators of divergent branches).
    pub pbr: Vec<Vec<ArchReg>>,
    /// Deaths that were deferred from inside a divergent region (to a pbr or to exit).
    pub deferred: u32,
    /// Deaths dropped because the register is live again at the reconvergence point or the
    /// release would be at exit.
    pub dropped: u32,
}

impl Release {
    /// Registers released at the start of block `b` (pbr).
    pub fn pbr_at(&self, b: u32) -> &[ArchReg] {
        self.pbr
            .get(b as usize)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    /// Registers released after instruction `pc` (pir).
    pub fn pir_at(&self, pc: u32) -> &[ArchReg] {
        self.pir
            .get(pc as usize)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    /// Total pir flags set.
    pub fn pir_count(&self) -> usize {
        self.pir.iter().map(Vec::len).sum()
    }

    /// Total pbr entries.
    pub fn pbr_count(&self) -> usize {
        self.pbr.iter().map(Vec::len).sum()
    }

    /// Number of blocks carrying at least one pbr entry.
    pub fn pbr_blocks(&self) -> usize {
        self.pbr.iter().filter(|v| !v.is_empty()).count()
    }
}

enum Outcome {
    Here,
    Deferred(u32),
    Dropped,
}

/// Computes release flags from architectural-register liveness.
pub fn compute(f: &Function, alloc: &Allocation, ud: &UseDef, live: &Liveness) -> Release {
    let cfg = &f.cfg;
    let nb = cfg.blocks.len();
    // Rule 1 asks, for a death of `u` in block `cur`, for the first divergent branch `d` (in
    // block order) whose region contains `cur` and that keeps `u` (live into `ipdom(d)`, or
    // live after `d`'s branch). Listing every block's enclosing branches costs the sum of the
    // regions' sizes, quadratic for a chain of branches to one target; instead, per unit, the
    // branches that keep it, grouped by their reconvergence block, and a region is walked
    // (once) only to answer whether it contains a block.
    let divergent: Vec<u32> = (0..nb as u32)
        .filter(|&d| {
            let blk = cfg.blocks[d as usize];
            f.instrs
                .get(blk.last() as usize)
                .is_some_and(|last| last.is_branch() && last.may_diverge())
        })
        .collect();
    let mut keeps: Vec<std::collections::BTreeMap<Option<u32>, Vec<u32>>> =
        vec![Default::default(); live.units];
    for &d in &divergent {
        let p = cfg.ipdom[d as usize];
        let br = cfg.blocks[d as usize].last() as usize;
        let mut us: Vec<usize> = live.live_out[br].iter().collect();
        if let Some(p) = p {
            us.extend(live.block_in[p as usize].iter());
        }
        us.sort_unstable();
        us.dedup();
        for u in us {
            if let Some(k) = keeps.get_mut(u) {
                k.entry(p).or_default().push(d);
            }
        }
    }
    // per unit, the groups in order of their first branch, so a search stops at the first
    // group that starts after the best branch found
    let keeps: Vec<Vec<(Option<u32>, Vec<u32>)>> = keeps
        .into_iter()
        .map(|k| {
            let mut v: Vec<(Option<u32>, Vec<u32>)> = k.into_iter().collect();
            v.sort_by_key(|(_, ds)| ds.first().copied());
            v
        })
        .collect();
    let pdom = PostDomTree::new(f);
    // a branch's region holds only blocks the branch reaches
    let topo = cfg.scc_topo();
    let regions = RegionCache::new(nb);
    // the first branch (in block order) whose region contains `cur` and that keeps `u`
    let first_keeper = |cur: u32, u: usize| -> Option<u32> {
        let mut best: Option<u32> = None;
        for (p, ds) in keeps.get(u).into_iter().flatten() {
            if best.is_some_and(|b| ds.first().is_none_or(|&d| d >= b)) {
                break;
            }
            // a block that reaches an exit lies in `d`'s region only if `ipdom(d)` strictly
            // post-dominates it (every path from the block to an exit passes `ipdom(d)`)
            if !pdom.may_enclose(*p, cur) {
                continue;
            }
            for &d in ds {
                if best.is_some_and(|b| d >= b) {
                    break;
                }
                if topo[d as usize] <= topo[cur as usize] && regions.contains(cfg, d, cur) {
                    best = Some(d);
                    break;
                }
            }
        }
        best
    };
    let classify = |start: u32, u: usize| -> Outcome {
        let mut cur = start;
        let mut deferred = false;
        let mut guard = 0;
        loop {
            guard += 1;
            if guard > nb + 2 {
                return Outcome::Dropped;
            }
            let Some(d) = first_keeper(cur, u) else {
                break;
            };
            let p = cfg.ipdom[d as usize];
            if let Some(p) = p {
                if live.block_in[p as usize].contains(u) {
                    return Outcome::Dropped;
                }
            }
            // (otherwise `u` is live after `d`'s branch)
            match p {
                Some(p) => {
                    cur = p;
                    deferred = true;
                }
                None => return Outcome::Dropped,
            }
        }
        if !deferred {
            Outcome::Here
        } else if live.block_in[cur as usize].contains(u) {
            Outcome::Dropped
        } else {
            Outcome::Deferred(cur)
        }
    };
    flags(f, alloc, ud, live, classify)
}

/// The release flags of every death, given `classify`, Rule 1's answer for a death of a unit
/// in a block: released at the instruction (or edge), deferred to a block's start, or dropped.
/// Deaths are the units used or defined at an instruction and not live after it, and the
/// units live out of a predecessor and not live into the block (edge deaths).
fn flags(
    f: &Function,
    alloc: &Allocation,
    ud: &UseDef,
    live: &Liveness,
    classify: impl Fn(u32, usize) -> Outcome,
) -> Release {
    let cfg = &f.cfg;
    let nb = cfg.blocks.len();
    let n = f.instrs.len();
    let mut r = Release {
        pir: vec![Vec::new(); n],
        pir_mask: vec![0; n],
        dead_dst: vec![Vec::new(); n],
        pbr: vec![Vec::new(); nb],
        deferred: 0,
        dropped: 0,
    };
    let mut pbr_sets: Vec<BitSet> = vec![BitSet::new(live.units); nb];
    let note = |o: Outcome, r: &mut Release, pbr_sets: &mut Vec<BitSet>, u: usize| -> bool {
        match o {
            Outcome::Here => true,
            Outcome::Deferred(b) => {
                r.deferred += 1;
                pbr_sets[b as usize].insert(u);
                false
            }
            Outcome::Dropped => {
                r.dropped += 1;
                false
            }
        }
    };
    for pc in 0..n {
        let b = cfg.block_of[pc];
        let lo = &live.live_out[pc];
        for &u in &ud.uses[pc] {
            if lo.contains(u as usize) {
                continue;
            }
            let o = classify(b, u as usize);
            if note(o, &mut r, &mut pbr_sets, u as usize) {
                r.pir[pc].push(alloc.arch_of_unit(u));
            }
        }
        for &u in &ud.defs[pc] {
            if lo.contains(u as usize) || ud.uses[pc].contains(&u) {
                continue;
            }
            let o = classify(b, u as usize);
            if note(o, &mut r, &mut pbr_sets, u as usize) {
                r.dead_dst[pc].push(alloc.arch_of_unit(u));
            }
        }
        r.pir[pc].sort_unstable();
        r.pir[pc].dedup();
        r.dead_dst[pc].sort_unstable();
        r.dead_dst[pc].dedup();
    }
    // edge deaths
    for b in 0..nb {
        for &p in &cfg.preds[b] {
            for u in live.block_out[p as usize].iter() {
                if live.block_in[b].contains(u) {
                    continue;
                }
                let o = classify(b as u32, u);
                if note(o, &mut r, &mut pbr_sets, u) {
                    pbr_sets[b].insert(u);
                }
            }
        }
    }
    for (b, s) in pbr_sets.iter().enumerate() {
        r.pbr[b] = s.iter().map(|u| alloc.arch_of_unit(u as u32)).collect();
    }
    // masks over Instr::reads() positions
    for (pc, ins) in f.instrs.iter().enumerate() {
        let mut mask = 0u32;
        for (k, v) in ins.reads().into_iter().enumerate().take(32) {
            if alloc
                .arch_regs(v.idx())
                .any(|a| r.pir[pc].binary_search(&a).is_ok())
            {
                mask |= 1 << k;
            }
        }
        r.pir_mask[pc] = mask;
    }
    r
}

/// The post-dominator tree of a function's blocks (root: the virtual exit), numbered depth
/// first, and which blocks reach an exit at all.
struct PostDomTree {
    pre: Vec<u32>,
    last: Vec<u32>,
    reaches_exit: Vec<bool>,
}

impl PostDomTree {
    fn new(f: &Function) -> PostDomTree {
        let cfg = &f.cfg;
        let nb = cfg.blocks.len();
        let reaches_exit = cfg.reaches_exit.clone();
        // children of each node (the virtual exit is node `nb`)
        let mut kids: Vec<Vec<u32>> = vec![Vec::new(); nb + 1];
        for (b, (&r, p)) in reaches_exit.iter().zip(&cfg.ipdom).enumerate() {
            if r {
                kids[p.map_or(nb, |p| p as usize)].push(b as u32);
            }
        }
        let mut pre = vec![u32::MAX; nb + 1];
        let mut last = vec![u32::MAX; nb + 1];
        let mut next = 0u32;
        let mut walk: Vec<(u32, usize)> = vec![(nb as u32, 0)];
        pre[nb] = next;
        next += 1;
        while let Some(&mut (x, ref mut k)) = walk.last_mut() {
            if let Some(&c) = kids[x as usize].get(*k) {
                *k += 1;
                pre[c as usize] = next;
                next += 1;
                walk.push((c, 0));
            } else {
                last[x as usize] = next - 1;
                walk.pop();
            }
        }
        PostDomTree {
            pre,
            last,
            reaches_exit,
        }
    }

    /// False when `cur` certainly lies outside the region of a branch whose immediate
    /// post-dominator is `p` (`None`: the virtual exit): `cur` reaches an exit and `p` does
    /// not strictly post-dominate it.
    fn may_enclose(&self, p: Option<u32>, cur: u32) -> bool {
        let c = cur as usize;
        if !self.reaches_exit.get(c).copied().unwrap_or(false) {
            return true;
        }
        let x = p.map_or(self.pre.len() - 1, |p| p as usize);
        if x == c {
            return false;
        }
        match (self.pre.get(x), self.last.get(x), self.pre.get(c)) {
            (Some(&px), Some(&lx), Some(&pc)) => px != u32::MAX && px <= pc && pc <= lx,
            _ => true,
        }
    }
}

/// The regions of divergent branches ([`crate::ir::Cfg::region`]), each walked the first time a
/// membership is asked; a large region is kept as a bit set (a block's bit), a small one as its
/// sorted blocks, so that neither many small nor many large regions take quadratic memory.
struct RegionCache {
    regions: std::cell::RefCell<(Vec<Option<Members>>, crate::ir::RegionScratch, Vec<u32>)>,
}

enum Members {
    Sorted(Box<[u32]>),
    Bits(BitSet),
}

impl RegionCache {
    fn new(nb: usize) -> RegionCache {
        RegionCache {
            regions: std::cell::RefCell::new((
                std::iter::repeat_with(|| None).take(nb).collect(),
                Default::default(),
                Vec::new(),
            )),
        }
    }

    /// Block `x` lies in the region of the branch ending block `d`.
    fn contains(&self, cfg: &crate::ir::Cfg, d: u32, x: u32) -> bool {
        let mut g = self.regions.borrow_mut();
        let (regions, scratch, buf) = &mut *g;
        let Some(slot) = regions.get_mut(d as usize) else {
            return false;
        };
        let m = slot.get_or_insert_with(|| {
            cfg.region_into(d, scratch, buf);
            let nb = cfg.blocks.len();
            if buf.len() * 32 < nb {
                Members::Sorted(buf.as_slice().into())
            } else {
                let mut b = BitSet::new(nb);
                for &y in buf.iter() {
                    b.insert(y as usize);
                }
                Members::Bits(b)
            }
        });
        match m {
            Members::Sorted(v) => v.binary_search(&x).is_ok(),
            Members::Bits(b) => b.contains(x as usize),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{analyze_for, AllocTarget};

    /// [`compute`] as it was written first: every block's enclosing branches listed (the
    /// definition the per-unit keepers must reproduce).
    fn compute_by_listed_regions(
        f: &Function,
        alloc: &Allocation,
        ud: &UseDef,
        live: &Liveness,
    ) -> Release {
        let cfg = &f.cfg;
        let nb = cfg.blocks.len();
        // divergent branches and the blocks of their regions
        let mut enclosing: Vec<Vec<u32>> = vec![Vec::new(); nb];
        let (mut scratch, mut region) = (crate::ir::RegionScratch::default(), Vec::new());
        for (d, blk) in cfg.blocks.iter().enumerate() {
            let Some(last) = f.instrs.get(blk.last() as usize) else {
                continue;
            };
            if !(last.is_branch() && last.may_diverge()) {
                continue;
            }
            cfg.region_into(d as u32, &mut scratch, &mut region);
            for &b in &region {
                enclosing[b as usize].push(d as u32);
            }
        }
        let classify = |start: u32, u: usize| -> Outcome {
            let mut cur = start;
            let mut deferred = false;
            let mut guard = 0;
            'outer: loop {
                guard += 1;
                if guard > nb + 2 {
                    return Outcome::Dropped;
                }
                for &d in &enclosing[cur as usize] {
                    let p = cfg.ipdom[d as usize];
                    if let Some(p) = p {
                        if live.block_in[p as usize].contains(u) {
                            return Outcome::Dropped;
                        }
                    }
                    let br = cfg.blocks[d as usize].last() as usize;
                    if live.live_out[br].contains(u) {
                        match p {
                            Some(p) => {
                                cur = p;
                                deferred = true;
                                continue 'outer;
                            }
                            None => return Outcome::Dropped,
                        }
                    }
                }
                break;
            }
            if !deferred {
                Outcome::Here
            } else if live.block_in[cur as usize].contains(u) {
                Outcome::Dropped
            } else {
                Outcome::Deferred(cur)
            }
        };
        flags(f, alloc, ud, live, classify)
    }

    #[test]
    fn keepers_give_the_release_flags_of_listed_regions() {
        let (mut deferred, mut pbr) = (0, 0);
        for seed in 0..400 {
            let src = crate::analysis::testgen::random_kernel(seed, 12);
            let m = crate::ptx::parse("random.ptx", &src).unwrap_or_else(|e| panic!("{e}\n{src}"));
            let f = m.function("k").unwrap();
            for target in [AllocTarget::SM75, AllocTarget::NO_UNIFORM] {
                let a = analyze_for(f, target);
                let want = compute_by_listed_regions(f, &a.alloc, &a.arch_ud, &a.arch_live);
                assert_eq!(a.release, want, "seed {seed}\n{src}");
                deferred += want.deferred;
                pbr += want.pbr_count();
            }
        }
        // the kernels exercise the deferral to reconvergence points
        assert!(deferred > 100 && pbr > 100, "{deferred} {pbr}");
    }

    #[test]
    fn nested_branches_keep_a_long_lived_value_to_the_outermost_join() {
        // `if (tid >= 0) { if (tid >= 1) { ... r += n ... } r += 0 } ...` 400 deep: `n` dies on
        // every taken branch's edge, inside every enclosing region; each death is deferred
        // to the outermost join, where `n` is dead, once the first enclosing branch is found
        let depth = 400;
        let mut body = String::new();
        for i in 0..depth {
            body +=
                &format!("setp.lt.u32 %p1, %r2, {i};\n@%p1 bra L{i};\nadd.u32 %r3, %r3, %r1;\n");
        }
        for i in (0..depth).rev() {
            body += &format!("L{i}:\nadd.u32 %r3, %r3, {i};\n");
        }
        let src = format!(
            ".version 7.0\n.target sm_75\n.address_size 64\n.entry k(.param .u64 p, .param .u32 n)\n\
             {{\n.reg .pred %p<2>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<3>;\nld.param.u32 %r1, [n];\n\
             mov.u32 %r2, %tid.x;\nmov.u32 %r3, 0;\n{body}ld.param.u64 %rd1, [p];\n\
             st.global.u32 [%rd1], %r3;\nret;\n}}\n"
        );
        let m = crate::ptx::parse("t.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
        let f = m.function("k").unwrap();
        let a = analyze_for(f, AllocTarget::NO_UNIFORM);
        let want = compute_by_listed_regions(f, &a.alloc, &a.arch_ud, &a.arch_live);
        assert_eq!(a.release, want);
        assert!(a.release.deferred >= depth, "{}", a.release.deferred);
    }
}
