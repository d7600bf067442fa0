//! Reuse-distance profile of a launch (Malekeh, Malekeh, §III-A): "The reuse distance is the
//! number of dynamic instructions between a source or destination register and its immediate
//! reuse ... the compiler collects profiling statistics for the reuse of each operand in a
//! kernel regarding how many times its reuse is far and how many times is near. Then, it
//! marks each operand's reuse as the most common one encountered during profiling. Profiling
//! is offline for the first few warps of each kernel."
//!
//! [`WarpReuse`] follows one warp's dynamic instruction stream (the general registers each
//! instruction reads and writes, [`super::functional::InstrInfo::srcs`] / `dsts`) and tallies,
//! in a [`ReuseProfile`], every dynamic instance of every static operand — (function, PC,
//! source register) and (function, PC, destination register) — as near or far. The distance
//! of an access by the warp's `i`-th instruction is `j − i`, `j` the warp's instruction that
//! makes the next *use* (so the next instruction is at distance 1, as in the static estimate
//! `crate::analysis::reuse`); near if it is below `rthld`, far if not or if there is no next
//! use. Two definitions of the next use are tallied side by side ([`NextUse`]):
//!
//! * [`NextUse::Access`]: the next instruction that reads **or writes** the register. An
//!   instruction that reads and writes a register makes one access of it: its source and its
//!   destination both get the distance to the next instruction that accesses it.
//! * [`NextUse::Read`]: the next read of the *value*: a write of the register before any read
//!   ends the value (far). A source that its own instruction overwrites is far; a destination
//!   counts to the first read of the result. This is the dynamic twin of the static estimate.
//!
//! An operand is near when a strict majority of its instances were near (a tie is far).
//!
//! `ExecModel::profile_reuse` (the [`super::functional::FunctionalWarpModel`] method) runs the
//! first warps of a launch through the functional executor on a copy of global memory and
//! feeds their streams here.

use serde::{Deserialize, Serialize};

/// Which later instruction counts as the reuse of an access (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NextUse {
    /// The next read or write of the register.
    #[default]
    Access,
    /// The next read of the value (a write first: no reuse).
    Read,
}

/// Near and far counts of one static operand's dynamic instances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub near: u64,
    pub far: u64,
}

impl Tally {
    /// The majority class: near only if more instances were near than far.
    pub fn near_majority(&self) -> bool {
        self.near > self.far
    }

    fn add(&mut self, near: bool) {
        if near {
            self.near += 1;
        } else {
            self.far += 1;
        }
    }
}

/// The tallies of one static operand under both definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Operand {
    reg: u16,
    /// Indexed by `NextUse as usize`.
    t: [Tally; 2],
}

/// The operands of one static instruction that the profile saw executed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct PcOperands {
    src: Vec<Operand>,
    dst: Vec<Operand>,
}

/// Near/far tallies of every profiled operand of a launch, indexed by function and PC.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReuseProfile {
    rthld: u32,
    /// `[func][pc]`.
    funcs: Vec<Vec<PcOperands>>,
    warps: u32,
    instructions: u64,
    /// Near and far dynamic operand instances, all operands, per definition.
    instances: [Tally; 2],
    truncated: bool,
}

fn find(list: &[Operand], reg: u16, next: NextUse) -> Option<Tally> {
    list.iter()
        .find(|o| o.reg == reg)
        .map(|o| o.t[next as usize])
}

impl ReuseProfile {
    /// An empty profile with threshold `rthld` (near: distance < `rthld`).
    pub fn new(rthld: u32) -> ReuseProfile {
        ReuseProfile {
            rthld,
            ..ReuseProfile::default()
        }
    }

    pub fn rthld(&self) -> u32 {
        self.rthld
    }

    fn at(&self, func: u32, pc: u32) -> Option<&PcOperands> {
        self.funcs.get(func as usize)?.get(pc as usize)
    }

    /// Tally of source register `reg` of instruction (`func`, `pc`) under `next`; `None` if
    /// the profile never executed it.
    pub fn src_tally(&self, func: u32, pc: u32, reg: u16, next: NextUse) -> Option<Tally> {
        find(&self.at(func, pc)?.src, reg, next)
    }

    /// Tally of destination register `reg` of instruction (`func`, `pc`) under `next`.
    pub fn dst_tally(&self, func: u32, pc: u32, reg: u16, next: NextUse) -> Option<Tally> {
        find(&self.at(func, pc)?.dst, reg, next)
    }

    /// The majority class of a source operand: `Some(true)` near, `Some(false)` far, `None`
    /// never executed in the profile.
    pub fn near_src(&self, func: u32, pc: u32, reg: u16, next: NextUse) -> Option<bool> {
        self.src_tally(func, pc, reg, next)
            .map(|t| t.near_majority())
    }

    /// The majority class of a destination operand (as [`Self::near_src`]).
    pub fn near_dst(&self, func: u32, pc: u32, reg: u16, next: NextUse) -> Option<bool> {
        self.dst_tally(func, pc, reg, next)
            .map(|t| t.near_majority())
    }

    /// Warps that ran to completion in the profile.
    pub fn warps(&self) -> u32 {
        self.warps
    }

    /// Dynamic warp instructions profiled.
    pub fn instructions(&self) -> u64 {
        self.instructions
    }

    fn all(&self) -> impl Iterator<Item = &Operand> {
        self.funcs
            .iter()
            .flatten()
            .flat_map(|p| p.src.iter().chain(&p.dst))
    }

    /// Static operands (sources and destinations) with a tally.
    pub fn operands(&self) -> usize {
        self.all().count()
    }

    /// Static operands whose majority is near under `next`.
    pub fn near_operands(&self, next: NextUse) -> usize {
        self.all()
            .filter(|o| o.t[next as usize].near_majority())
            .count()
    }

    /// Near and far dynamic operand instances under `next`, summed over operands.
    pub fn instances(&self, next: NextUse) -> Tally {
        self.instances[next as usize]
    }

    /// The profile stopped early (the executor failed, or the step limit of
    /// `ExecModel::profile_reuse` was reached): it holds the warps completed before.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Marks the profile as stopped early.
    pub fn set_truncated(&mut self) {
        self.truncated = true;
    }

    fn tally(&mut self, next: NextUse, p: &Pending, reg: u16, near: bool) {
        let f = p.func as usize;
        if self.funcs.len() <= f {
            self.funcs.resize_with(f + 1, Vec::new);
        }
        let pcs = &mut self.funcs[f];
        let pc = p.pc as usize;
        if pcs.len() <= pc {
            pcs.resize_with(pc + 1, PcOperands::default);
        }
        let ops = &mut pcs[pc];
        for (on, list) in [(p.src, &mut ops.src), (p.dst, &mut ops.dst)] {
            if !on {
                continue;
            }
            let i = match list.iter().position(|o| o.reg == reg) {
                Some(i) => i,
                None => {
                    list.push(Operand {
                        reg,
                        t: [Tally::default(); 2],
                    });
                    list.len() - 1
                }
            };
            list[i].t[next as usize].add(near);
            self.instances[next as usize].add(near);
        }
    }
}

/// The last use of a register by a warp, waiting for its next use.
#[derive(Clone, Copy, Debug)]
struct Pending {
    /// Warp instruction index (1-based).
    at: u64,
    func: u32,
    pc: u32,
    /// The pending use is this instruction's source, its destination (or both).
    src: bool,
    dst: bool,
}

/// One warp's dynamic register stream, fed instruction by instruction
/// ([`WarpReuse::instruction`]) and closed with [`WarpReuse::finish`].
#[derive(Clone, Debug, Default)]
pub struct WarpReuse {
    /// Instructions so far.
    count: u64,
    /// Per register, per definition (`NextUse as usize`): its last use, not yet resolved.
    pending: [Vec<Option<Pending>>; 2],
}

/// The pending slot of register `r` in `v`, grown on demand.
fn slot(v: &mut Vec<Option<Pending>>, r: u16) -> &mut Option<Pending> {
    let i = usize::from(r);
    if v.len() <= i {
        v.resize(i + 1, None);
    }
    &mut v[i]
}

impl WarpReuse {
    pub fn new() -> WarpReuse {
        WarpReuse::default()
    }

    /// The warp executes instruction (`func`, `pc`), reading `srcs` and writing `dsts`
    /// (general registers): resolves the pending uses of those registers into `profile` and
    /// leaves this instruction's uses pending.
    pub fn instruction(
        &mut self,
        profile: &mut ReuseProfile,
        func: u32,
        pc: u32,
        srcs: &[u16],
        dsts: &[u16],
    ) {
        self.count += 1;
        profile.instructions += 1;
        let at = self.count;
        let rthld = u64::from(profile.rthld);
        let new = |src: bool| Pending {
            at,
            func,
            pc,
            src,
            dst: !src,
        };
        // Access: any read or write of the register resolves its last access
        let pend = &mut self.pending[NextUse::Access as usize];
        for (k, &r) in srcs.iter().chain(dsts).enumerate() {
            let is_src = k < srcs.len();
            let s = slot(pend, r);
            match s {
                // this instruction already accessed the register (read and written, or
                // listed twice): one access
                Some(p) if p.at == at => {
                    p.src |= is_src;
                    p.dst |= !is_src;
                }
                _ => {
                    if let Some(p) = s.replace(new(is_src)) {
                        profile.tally(NextUse::Access, &p, r, at - p.at < rthld);
                    }
                }
            }
        }
        // Read: a read resolves the value's last use; a write ends the value (far)
        let pend = &mut self.pending[NextUse::Read as usize];
        for &r in srcs {
            let s = slot(pend, r);
            if s.is_some_and(|p| p.at == at) {
                continue; // listed twice
            }
            if let Some(p) = s.replace(new(true)) {
                profile.tally(NextUse::Read, &p, r, at - p.at < rthld);
            }
        }
        for &r in dsts {
            let s = slot(pend, r);
            if s.is_some_and(|p| p.at == at && p.dst) {
                continue; // listed twice
            }
            if let Some(p) = s.replace(new(false)) {
                profile.tally(NextUse::Read, &p, r, false);
            }
        }
    }

    /// The warp has exited: every use still pending has no reuse (far).
    pub fn finish(self, profile: &mut ReuseProfile) {
        for (k, next) in [NextUse::Access, NextUse::Read].into_iter().enumerate() {
            for (r, p) in self.pending[k].iter().enumerate() {
                if let Some(p) = p {
                    profile.tally(next, p, r as u16, false);
                }
            }
        }
        profile.warps += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::NextUse::{Access as A, Read as R};
    use super::*;

    /// One instruction of a hand-made stream: (pc, sources, destinations), function 0.
    type Ins<'a> = (u32, &'a [u16], &'a [u16]);

    fn run(profile: &mut ReuseProfile, stream: &[Ins]) {
        let mut w = WarpReuse::new();
        for &(pc, s, d) in stream {
            w.instruction(profile, 0, pc, s, d);
        }
        w.finish(profile);
    }

    fn t(near: u64, far: u64) -> Option<Tally> {
        Some(Tally { near, far })
    }

    /// Straight-line stream, RTHLD 3 (near: distance 1 or 2).
    ///
    /// ```text
    /// k  pc  instruction      accesses
    /// 1  0   R1 = R0          R0 (next access k 4: d 3), R1 (read k 2: d 1)
    /// 2  1   R2 = R1 + R1     R1 (next access: the write at k 6, d 4), R2 (read k 3: d 1)
    /// 3  2   R2 = R2 + 1      R2 read and written (next access, a read, k 5: d 2)
    /// 4  3   R3 = R0          R0 (never again), R3 (never)
    /// 5  4   [R2] = ...       R2 read (never again)
    /// 6  5   R1 = 0           R1 written (never again)
    /// ```
    #[test]
    fn profile_hand_computed_distances_straight_line() {
        let mut p = ReuseProfile::new(3);
        run(
            &mut p,
            &[
                (0, &[0], &[1]),
                (1, &[1, 1], &[2]),
                (2, &[2], &[2]),
                (3, &[0], &[3]),
                (4, &[2], &[]),
                (5, &[], &[1]),
            ],
        );
        for next in [A, R] {
            // pc 0: R0 read, next use k 4: distance 3, not < 3: far; R1 written, read at k 2
            assert_eq!(p.src_tally(0, 0, 0, next), t(0, 1));
            assert_eq!(p.dst_tally(0, 0, 1, next), t(1, 0));
            // pc 1: R1 read, next access is the write at k 6 (d 4), next read none: far
            assert_eq!(p.src_tally(0, 1, 1, next), t(0, 1));
            assert_eq!(p.dst_tally(0, 1, 2, next), t(1, 0));
            // pc 2: the result, read at k 5 (d 2): near
            assert_eq!(p.dst_tally(0, 2, 2, next), t(1, 0));
            // pc 3..5: no later use: far
            assert_eq!(p.src_tally(0, 3, 0, next), t(0, 1));
            assert_eq!(p.dst_tally(0, 3, 3, next), t(0, 1));
            assert_eq!(p.src_tally(0, 4, 2, next), t(0, 1));
            assert_eq!(p.dst_tally(0, 5, 1, next), t(0, 1));
            // operands not in the stream
            assert_eq!(p.src_tally(0, 0, 1, next), None);
            assert_eq!(p.near_src(0, 9, 0, next), None);
            assert_eq!(p.near_dst(3, 0, 0, next), None);
            assert_eq!(p.near_dst(0, 0, 1, next), Some(true));
            assert_eq!(p.near_src(0, 0, 0, next), Some(false));
        }
        // pc 2's source R2: one access with the write, next access k 5 (d 2): near; as a
        // value it is overwritten by its own instruction: far
        assert_eq!(p.src_tally(0, 2, 2, A), t(1, 0));
        assert_eq!(p.src_tally(0, 2, 2, R), t(0, 1));
        assert_eq!((p.warps(), p.instructions()), (1, 6));
        // 10 static operands (R1 listed twice at pc 1 is one), 10 instances
        assert_eq!(p.operands(), 10);
        assert_eq!(p.instances(A), Tally { near: 4, far: 6 });
        assert_eq!(p.instances(R), Tally { near: 3, far: 7 });
        assert_eq!(p.near_operands(A), 4);
        assert_eq!(p.near_operands(R), 3);
    }

    /// A loop body executed three times by one warp, then once by a second warp: the
    /// majority decides, and a tie is far.
    ///
    /// ```text
    /// pc 0   R0 = 0
    /// pc 1   loop: R1 = R0 * 4
    /// pc 2         R2 = load [R1]      (R2 never read)
    /// pc 3..10     R9 = R9 + 1         (8 instructions, one pc each)
    /// pc 11        R0 = R0 + 1
    /// pc 12        branch back
    /// ```
    /// RTHLD 12, 12 instructions per iteration. R0 read at pc 1: next use at pc 11, distance
    /// 10: near. R1 written at pc 1: read at pc 2, near. R1 read at pc 2: next access is the
    /// write at pc 1 of the next iteration, distance 11: near as an access, far as a value
    /// (overwritten before any read); in the last iteration none: far. R2 written at pc 2:
    /// next access the same write one iteration later, distance 12: far. R0 at pc 11 (read and
    /// written): next use at pc 1 of the next iteration, distance 2: near; in the last
    /// iteration none: far. As a value, pc 11's source is overwritten by pc 11 itself: far.
    #[test]
    fn profile_loop_majority_and_ties() {
        let body = |trips: u32| {
            let mut s: Vec<Ins> = vec![(0, &[], &[0])];
            for _ in 0..trips {
                s.push((1, &[0], &[1]));
                s.push((2, &[1], &[2]));
                for pc in 3..11 {
                    s.push((pc, &[9], &[9]));
                }
                s.push((11, &[0], &[0]));
                s.push((12, &[], &[]));
            }
            s
        };
        let mut p = ReuseProfile::new(12);
        run(&mut p, &body(3));
        for next in [A, R] {
            assert_eq!(p.dst_tally(0, 0, 0, next), t(1, 0));
            assert_eq!(p.src_tally(0, 1, 0, next), t(3, 0));
            assert_eq!(p.dst_tally(0, 1, 1, next), t(3, 0));
            assert_eq!(p.dst_tally(0, 2, 2, next), t(0, 3));
            assert_eq!(p.dst_tally(0, 11, 0, next), t(2, 1));
            // R9 at pc 10: next use pc 3 of the next iteration, 5 instructions later (11, 12,
            // 1, 2, 3): near twice, then none: far
            assert_eq!(p.dst_tally(0, 10, 9, next), t(2, 1));
        }
        assert_eq!(p.src_tally(0, 2, 1, A), t(2, 1));
        assert_eq!(p.src_tally(0, 2, 1, R), t(0, 3));
        assert_eq!(p.src_tally(0, 11, 0, A), t(2, 1));
        assert_eq!(p.src_tally(0, 11, 0, R), t(0, 3));
        assert_eq!(p.src_tally(0, 10, 9, A), t(2, 1));
        assert_eq!(p.src_tally(0, 10, 9, R), t(0, 3));
        assert_eq!(p.near_src(0, 11, 0, A), Some(true));
        assert_eq!(p.near_dst(0, 11, 0, R), Some(true));
        // a second warp with one trip: pc 11 gets one more far: 2 near, 2 far, a tie: far
        run(&mut p, &body(1));
        assert_eq!(p.src_tally(0, 11, 0, A), t(2, 2));
        assert_eq!(p.dst_tally(0, 11, 0, R), t(2, 2));
        assert_eq!(p.near_src(0, 11, 0, A), Some(false));
        assert_eq!(p.near_dst(0, 11, 0, R), Some(false));
        assert_eq!(p.warps(), 2);
        assert_eq!(p.instructions(), 1 + 3 * 12 + 1 + 12);
    }

    /// Distances are per warp: another warp's accesses of the same register do not count.
    #[test]
    fn profile_distances_are_per_warp() {
        let mut p = ReuseProfile::new(12);
        let mut a = WarpReuse::new();
        let mut b = WarpReuse::new();
        a.instruction(&mut p, 0, 0, &[], &[5]);
        b.instruction(&mut p, 0, 0, &[], &[5]);
        b.instruction(&mut p, 0, 1, &[5], &[]);
        b.finish(&mut p);
        // warp a: 20 unrelated instructions, then reads R5: distance 21, far
        for _ in 0..20 {
            a.instruction(&mut p, 0, 7, &[1], &[1]);
        }
        a.instruction(&mut p, 0, 1, &[5], &[]);
        a.finish(&mut p);
        for next in [A, R] {
            assert_eq!(p.dst_tally(0, 0, 5, next), t(1, 1));
            assert_eq!(p.src_tally(0, 1, 5, next), t(0, 2));
            assert_eq!(p.dst_tally(0, 7, 1, next), t(19, 1));
        }
        assert_eq!(p.src_tally(0, 7, 1, A), t(19, 1));
        assert_eq!(p.src_tally(0, 7, 1, R), t(0, 20));
    }
}
