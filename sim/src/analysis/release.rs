//! Register release flags (seed 002, Jeon & Annavaram, §4.3 and §5).
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
    let n = f.instrs.len();
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
