//! Register allocation: PTX virtual registers → architectural 32-bit registers, the way ptxas
//! lays them out.
//!
//! * 32-bit values take one register; 8/16-bit values take a whole 32-bit register (SASS has
//!   no sub-word registers); 64-bit values take an aligned even/odd pair `R2k:R2k+1`; 128-bit
//!   values an aligned quad (NVIDIA, "CUDA Binary Utilities", SASS instruction set reference:
//!   64-bit operands name the even register of a pair), except 64-bit shared-window address
//!   arithmetic, which takes one register as ptxas narrows it to 32 bits ([`super::narrow`]).
//! * Predicates live in a separate predicate file (`P0..P6` on sm_70+) and are coloured
//!   separately.
//! * Two values interfere when one is defined while the other is live (Chaitin et al.,
//!   "Register allocation via coloring", 1981), except a copy `mov d, s` and its source
//!   (Chaitin's coalescing rule: both hold the same value; any later redefinition of either
//!   while the other is live adds the edge). Colouring is greedy, visiting values in order of
//!   definition along the reverse post-order of the CFG (within a block in program order), which for programs in (near) SSA form is a perfect elimination order of the
//!   chordal interference graph (Hack, Grund & Goos, "Register allocation for programs in SSA
//!   form", CC 2006). A copy's destination first tries its source's register (biased colouring,
//!   Briggs, Cooper & Torczon, TOPLAS 1994), so that the copy becomes `mov Rk, Rk` — ptxas's
//!   copy propagation and coalescing leave no `MOV` for it either.
//! * ptxas also schedules long-latency loads early and unrolls small loops, which raises its
//!   register count (`matrixMul_naive`, `fc`, `bp_delta`). The mapping here stays in program
//!   order (the executor runs it); [`super::schedule`] estimates the registers ptxas's
//!   scheduler keeps busy, within a budget, and [`super::analyze`] reports the larger of the two
//!   as [`Allocation::registers`] ([`Allocation::span`] is the mapping's own size).
//! * `R1` is never allocated ([`STACK_POINTER`]) and the count includes [`RESERVED_TOP`]: the
//!   register count is the highest register used + 1 + 2, exactly how `ptxas -v` counts
//!   (measured on every suite kernel by `sim/testdata/ptxas_sass_regs.py`). These registers
//!   are part of the per-thread allocation the executor and the occupancy model use.
//! * Kernel parameters, special registers and immediates are not held from the kernel's top:
//!   the parser's [`super::sink`] pass moves their definitions to their uses first.
//! * Warp-uniform values (see [`super::uniform`]) stay in the general file: sm_75's uniform
//!   register file is not modelled by the executor, so the mapping cannot place values there
//!   (the main remaining source of over-counts, see `sim/src/ir/README.md`; the scheduling
//!   estimate of [`super::schedule`] does leave them out).
use super::liveness::{Liveness, UseDef};
use crate::ir::{Function, Instr, Opcode, Operand, RegClass};

/// An architectural register: `R0..R254` or `P0..` (predicates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArchReg {
    R(u16),
    P(u16),
}

impl std::fmt::Display for ArchReg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArchReg::R(r) => write!(f, "R{r}"),
            ArchReg::P(p) => write!(f, "P{p}"),
        }
    }
}

/// Result of register allocation for one function.
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    /// Base architectural register of each virtual register (`None` if never used).
    /// A 64-bit value at `R(2k)` also occupies `R(2k+1)`.
    pub map: Vec<Option<ArchReg>>,
    /// Number of 32-bit registers slots per virtual register (0 for predicates).
    pub slots: Vec<u8>,
    /// General registers per thread, as `ptxas -v` reports them: the larger of [`span`] and
    /// the registers ptxas's scheduler keeps busy ([`super::schedule`], set by
    /// [`super::analyze`]). Occupancy and register-file sizing use this count; every register
    /// the mapping uses is below it.
    ///
    /// [`span`]: Allocation::span
    pub registers: u32,
    /// Registers the mapping itself needs: the highest register it uses + 1 (gaps and the
    /// reserved stack pointer [`STACK_POINTER`] included), plus [`RESERVED_TOP`].
    pub span: u32,
    /// Predicate registers used.
    pub predicates: u32,
    /// 64-bit virtual registers held in ONE 32-bit register: shared-window address arithmetic
    /// ([`super::narrow`]), which ptxas keeps in 32 bits; their `slots` entry is 1 and the
    /// lowering runs their definitions as 32-bit operations.
    pub narrowed: Vec<bool>,
}

/// `R1` holds the stack pointer in every sm_75 kernel ptxas emits (first SASS instruction
/// `IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]`, i.e. the local-memory stack top from the driver's
/// constant bank), so no value is ever placed there. Observed on all 49 suite and test kernels
/// by `sim/testdata/ptxas_sass_regs.py` (CSV column `r1_is_sp`).
pub const STACK_POINTER: u16 = 1;

/// Registers `ptxas -v -arch=sm_75` counts beyond the highest register the SASS names:
/// "Used N registers" = max `Rk` index + 1 + 2 on every one of the 49 suite and test kernels
/// (`sim/testdata/ptxas_sass_regs.py`, column `reported_minus_span`; NVIDIA does not document
/// what the two are for). They are part of the per-thread allocation (and of occupancy), so the
/// allocation includes them; no value is mapped there.
pub const RESERVED_TOP: u32 = 2;

impl Allocation {
    /// The architectural registers (all slots) of virtual register `v`.
    pub fn arch_regs(&self, v: usize) -> impl Iterator<Item = ArchReg> + '_ {
        let base = self.map.get(v).copied().flatten();
        let n = self.slots.get(v).copied().unwrap_or(0);
        let count = match base {
            Some(ArchReg::P(_)) => 1,
            Some(ArchReg::R(_)) => n,
            None => 0,
        };
        (0..count).filter_map(move |k| match base {
            Some(ArchReg::R(r)) => r.checked_add(u16::from(k)).map(ArchReg::R),
            Some(ArchReg::P(p)) => Some(ArchReg::P(p)),
            None => None,
        })
    }

    /// Dense unit index of an architectural register: GPRs `0..registers`, then predicates.
    pub fn unit(&self, a: ArchReg) -> u32 {
        match a {
            ArchReg::R(r) => u32::from(r),
            ArchReg::P(p) => self.registers + u32::from(p),
        }
    }

    /// Inverse of [`Allocation::unit`].
    pub fn arch_of_unit(&self, u: u32) -> ArchReg {
        if u < self.registers {
            ArchReg::R(u as u16)
        } else {
            ArchReg::P((u - self.registers) as u16)
        }
    }

    /// Number of units (`registers + predicates`).
    pub fn units(&self) -> usize {
        (self.registers + self.predicates) as usize
    }
}

/// The virtual register `mov` copies, when `ins` is an unguarded register-to-register `mov`
/// of one class (a copy in the sense of Chaitin's coalescing rule).
fn copy_source(f: &Function, ins: &Instr) -> Option<(u32, u32)> {
    if ins.op != Opcode::Mov || ins.guard.is_some() || ins.vec != 1 {
        return None;
    }
    let (Some(Operand::Reg(d)), Some(Operand::Reg(s)), 1, 1) = (
        ins.dst.first(),
        ins.src.first(),
        ins.dst.len(),
        ins.src.len(),
    ) else {
        return None;
    };
    let (cd, cs) = (f.regs.get(d.idx())?.class(), f.regs.get(s.idx())?.class());
    (cd == cs && cd != RegClass::Pred).then_some((d.0, s.0))
}

/// Allocates `f`'s virtual registers given their liveness: every value in the general (`R`) or
/// predicate (`P`) file. This is the mapping the executor runs and its size is the register
/// count reported for the kernel (module docs for the rules).
pub fn allocate(f: &Function, ud: &UseDef, live: &Liveness) -> Allocation {
    let nv = f.regs.len();
    let class: Vec<RegClass> = f.regs.iter().map(|r| r.class()).collect();
    let is_pred = |v: usize| class.get(v) == Some(&RegClass::Pred);
    let copies: Vec<Option<(u32, u32)>> = f.instrs.iter().map(|i| copy_source(f, i)).collect();
    // scratch registers of expanded instructions: graph nodes nv.. (never mapped)
    let scratch: Vec<(usize, u32)> = f
        .instrs
        .iter()
        .enumerate()
        .map(|(pc, i)| (pc, expansion_scratch(i)))
        .filter(|&(_, k)| k > 0)
        .collect();
    let n_nodes = nv + scratch.iter().map(|&(_, k)| k as usize).sum::<usize>();
    let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n_nodes];
    let add = |a: u32, b: u32, adj: &mut Vec<Vec<u32>>| {
        if a != b && is_pred(a as usize) == is_pred(b as usize) {
            if let Some(x) = adj.get_mut(a as usize) {
                x.push(b);
            }
            if let Some(x) = adj.get_mut(b as usize) {
                x.push(a);
            }
        }
    };
    let covered = f.cfg.block_of.len() == ud.defs.len()
        && live.block_out.len() == f.cfg.blocks.len()
        && ud.uses.len() == ud.defs.len()
        && ud.kills.len() == ud.defs.len()
        && copies.len() == ud.defs.len();
    if covered {
        // Walk each block backwards from its live-out set, keeping the live units in a sparse
        // set: the set after `pc` is exactly `live.live_out[pc]` (same transfer function), but
        // a definition costs O(live) instead of a scan of the whole bit set (issue 3).
        let mut cur = SparseSet::new(nv);
        for (b, blk) in f.cfg.blocks.iter().enumerate() {
            let order: Vec<usize> = blk.range().collect();
            interfere_in_order(&order, ud, &copies, live, b, &mut cur, &mut |a, b| {
                add(a, b, &mut adj)
            });
        }
    } else {
        for pc in 0..ud.defs.len() {
            let defs = &ud.defs[pc];
            if let Some(lo) = live.live_out.get(pc) {
                for &d in defs {
                    for l in lo.iter() {
                        add(d, l as u32, &mut adj);
                    }
                }
            }
            for (i, &a) in defs.iter().enumerate() {
                for &b in &defs[i + 1..] {
                    add(a, b, &mut adj);
                }
            }
        }
    }
    // values live on entry (read before written) are all live together at the entry
    if let Some(entry) = live.block_in.first() {
        let ins: Vec<u32> = entry.iter().map(|x| x as u32).collect();
        for (i, &a) in ins.iter().enumerate() {
            for &b in &ins[i + 1..] {
                add(a, b, &mut adj);
            }
        }
    }
    // each scratch register interferes with the other scratch registers of its instruction and
    // with every value read, written or live across it
    let mut next = nv as u32;
    for &(pc, k) in &scratch {
        let mut around: Vec<u32> = ud.uses.get(pc).cloned().unwrap_or_default();
        around.extend(ud.defs.get(pc).into_iter().flatten());
        if let Some(lo) = live.live_out.get(pc) {
            around.extend(lo.iter().map(|x| x as u32));
        }
        let group: Vec<u32> = (next..next + k).collect();
        next += k;
        for (i, &a) in group.iter().enumerate() {
            for &b in &group[i + 1..] {
                add(a, b, &mut adj);
            }
            for &v in &around {
                add(a, v, &mut adj);
            }
        }
    }
    for a in adj.iter_mut() {
        a.sort_unstable();
        a.dedup();
    }
    // copy partners, for biased colouring (Briggs, Cooper & Torczon, "Improvements to graph
    // coloring register allocation", TOPLAS 1994: try a partner's colour first)
    let mut partners: Vec<Vec<u32>> = vec![Vec::new(); nv];
    for &(d, s) in copies.iter().flatten() {
        if let (Some(pd), Some(ps)) = (partners.get_mut(d as usize), Some(s)) {
            pd.push(ps);
        }
        if let Some(ps) = partners.get_mut(s as usize) {
            ps.push(d);
        }
    }
    // colouring order: first definition along RPO, then values only ever read
    let mut order = Vec::with_capacity(nv);
    let mut placed = vec![false; nv];
    let mut used = vec![false; nv];
    for pc in 0..ud.defs.len() {
        for &u in ud.uses[pc].iter().chain(&ud.defs[pc]) {
            if let Some(x) = used.get_mut(u as usize) {
                *x = true;
            }
        }
    }
    for &b in &f.cfg.rpo {
        if let Some(blk) = f.cfg.blocks.get(b as usize) {
            for pc in blk.range() {
                for &d in &ud.defs[pc] {
                    if !placed[d as usize] {
                        placed[d as usize] = true;
                        order.push(d as usize);
                    }
                }
            }
        }
    }
    for v in 0..nv {
        if used[v] && !placed[v] {
            order.push(v);
        }
    }
    order.extend(nv..n_nodes);
    let narrowed = super::narrow::narrowable(f);
    let mut slots: Vec<u8> = class
        .iter()
        .zip(&narrowed)
        .map(|(c, &n)| if n { 1 } else { c.slots() as u8 })
        .collect();
    slots.resize(n_nodes, 1);
    let mut map: Vec<Option<ArchReg>> = vec![None; n_nodes];
    let (mut top, mut predicates) = (0u32, 0u32);
    let mut busy: Vec<bool> = Vec::new();
    for v in order {
        busy.clear();
        let pred = is_pred(v);
        if !pred {
            let sp = usize::from(STACK_POINTER);
            busy.resize(sp + 1, false);
            busy[sp] = true;
        }
        for &n in &adj[v] {
            match map[n as usize] {
                Some(ArchReg::R(r)) if !pred => {
                    let end = usize::from(r) + usize::from(slots[n as usize]);
                    if busy.len() < end {
                        busy.resize(end, false);
                    }
                    for s in busy.iter_mut().take(end).skip(usize::from(r)) {
                        *s = true;
                    }
                }
                Some(ArchReg::P(p)) if pred => {
                    let p = usize::from(p);
                    if busy.len() <= p {
                        busy.resize(p + 1, false);
                    }
                    busy[p] = true;
                }
                _ => {}
            }
        }
        let width = if pred {
            1
        } else {
            usize::from(slots[v]).max(1)
        };
        let free =
            |base: usize| !(base..base + width).any(|s| busy.get(s).copied().unwrap_or(false));
        let preferred =
            partners
                .get(v)
                .into_iter()
                .flatten()
                .find_map(|&p| match map[p as usize] {
                    Some(ArchReg::R(r))
                        if !pred && usize::from(r) % width == 0 && free(usize::from(r)) =>
                    {
                        Some(usize::from(r))
                    }
                    _ => None,
                });
        let base = match preferred {
            Some(b) => b,
            None => {
                let mut base = 0usize;
                while !free(base) {
                    base += width;
                }
                base
            }
        };
        let Ok(b16) = u16::try_from(base) else {
            continue;
        };
        if pred {
            map[v] = Some(ArchReg::P(b16));
            predicates = predicates.max(base as u32 + 1);
        } else {
            map[v] = Some(ArchReg::R(b16));
            top = top.max((base + width) as u32);
        }
    }
    map.truncate(nv);
    slots.truncate(nv);
    let registers = if top == 0 {
        0
    } else {
        top.max(u32::from(STACK_POINTER) + 1) + RESERVED_TOP
    };
    Allocation {
        map,
        slots,
        registers,
        span: registers,
        predicates,
        narrowed,
    }
}

/// Adds the interferences of the instructions `order` (of block `b`, in the order given) run
/// backwards from the block's live-out set: every definition interferes with every value live
/// after it, except the source of a copy with the copy's destination (Chaitin et al. 1981).
fn interfere_in_order(
    order: &[usize],
    ud: &UseDef,
    copies: &[Option<(u32, u32)>],
    live: &Liveness,
    b: usize,
    cur: &mut SparseSet,
    add: &mut impl FnMut(u32, u32),
) {
    cur.clear();
    for u in live.block_out[b].iter() {
        cur.insert(u);
    }
    for &pc in order.iter().rev() {
        let defs = &ud.defs[pc];
        let copy_src = copies[pc].map(|(_, s)| s);
        for &d in defs {
            for &l in cur.members() {
                if Some(l) != copy_src {
                    add(d, l);
                }
            }
        }
        for (i, &a) in defs.iter().enumerate() {
            for &b in &defs[i + 1..] {
                add(a, b);
            }
        }
        if ud.kills[pc] {
            for &d in defs {
                cur.remove(d as usize);
            }
        }
        for &u in &ud.uses[pc] {
            cur.insert(u as usize);
        }
    }
}

/// Scratch registers ptxas needs for an instruction that sm_75 SASS expands into a sequence:
/// integer division and remainder (no hardware divider: `I2F.RP`/`MUFU.RCP`/`IMAD.HI`
/// Newton–Raphson sequences, or a subroutine for 64-bit), IEEE-rounded `f32`/`f64` division,
/// square root and reciprocal (`MUFU` estimate + refinement + slow path). Measured by
/// `sim/testdata/ptxas_expansions.py` (`ptxas_expansions.csv`: registers of a kernel applying
/// the instruction once minus the same kernel with `add`); `.approx`/`.full` forms map to one
/// `MUFU` and need none.
pub fn expansion_scratch(ins: &Instr) -> u32 {
    use crate::ir::{Mods, Round, Ty};
    let ieee = !ins.mods.has(Mods::APPROX) && !ins.mods.has(Mods::FULL);
    let rounded = matches!(ins.rnd, Round::Rn | Round::Rz | Round::Rm | Round::Rp);
    match (ins.op, ins.ty) {
        (Opcode::Div | Opcode::Rem, Ty::S32) => 6,
        (Opcode::Div | Opcode::Rem, Ty::U32 | Ty::B32) => 4,
        (Opcode::Div, Ty::S64) => 14,
        (Opcode::Rem, Ty::S64) => 12,
        (Opcode::Div | Opcode::Rem, Ty::U64 | Ty::B64) => 10,
        (Opcode::Div, Ty::F32) if ieee && rounded => 7,
        (Opcode::Rcp, Ty::F32) if ieee && rounded => 7,
        (Opcode::Sqrt, Ty::F32) if ieee && rounded => 4,
        (Opcode::Div, Ty::F64) if rounded => 16,
        (Opcode::Sqrt, Ty::F64) if rounded => 10,
        (Opcode::Rcp, Ty::F64) if rounded => 5,
        _ => 0,
    }
}

/// A set of dense indices `0..n` with O(1) insert/remove and iteration over its members only
/// (Briggs & Torczon, "An efficient representation for sparse sets", LOPLAS 1993).
struct SparseSet {
    members: Vec<u32>,
    /// Position of each index in `members`, `u32::MAX` if absent.
    pos: Vec<u32>,
}

impl SparseSet {
    fn new(n: usize) -> SparseSet {
        SparseSet {
            members: Vec::new(),
            pos: vec![u32::MAX; n],
        }
    }

    fn members(&self) -> &[u32] {
        &self.members
    }

    fn clear(&mut self) {
        for &m in &self.members {
            self.pos[m as usize] = u32::MAX;
        }
        self.members.clear();
    }

    /// Inserts `i` (ignored when out of range).
    fn insert(&mut self, i: usize) {
        if let Some(p) = self.pos.get_mut(i) {
            if *p == u32::MAX {
                *p = self.members.len() as u32;
                self.members.push(i as u32);
            }
        }
    }

    fn remove(&mut self, i: usize) {
        let Some(&p) = self.pos.get(i) else {
            return;
        };
        if p == u32::MAX {
            return;
        }
        self.members.swap_remove(p as usize);
        if let Some(&moved) = self.members.get(p as usize) {
            self.pos[moved as usize] = p;
        }
        self.pos[i] = u32::MAX;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use crate::ptx::parser::parse_unscheduled;

    fn kernel(body: &str) -> Function {
        let src = format!(
            ".version 7.0\n.target sm_75\n.address_size 64\n.entry k()\n{{\n.reg .pred %p<3>;\n\
             .reg .b32 %r<9>;\n.reg .b64 %rd<5>;\n{body}\n}}\n"
        );
        let m = parse_unscheduled("t.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
        m.function("k").unwrap().clone()
    }

    #[test]
    fn issue_3_r1_is_reserved_and_two_more_are_counted() {
        // one 32-bit and one 64-bit value live together: R0 and R2:R3 (R1 = stack pointer),
        // highest register R3 -> 4, plus RESERVED_TOP = 6
        let f = kernel("mov.u32 %r1, %tid.x;\nmov.u64 %rd1, 8;\nst.global.u32 [%rd1], %r1;\nret;");
        let a = analyze(&f);
        assert_eq!(a.alloc.registers, 4 + RESERVED_TOP);
        for v in 0..f.regs.len() {
            assert!(a.alloc.arch_regs(v).all(|r| r != ArchReg::R(STACK_POINTER)));
        }
    }

    #[test]
    fn issue_3_division_reserves_its_scratch_registers() {
        // a, b and the store address %rd1 are live at div.s32: R0, R2, R4:R5 (R1 = stack
        // pointer); the 6 scratch registers (ptxas_expansions.csv) take R3 and R6..R10:
        // highest 10 -> 11 + 2
        let f = kernel(
            "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ntid.x;\ndiv.s32 %r3, %r1, %r2;\n\
             st.global.u32 [%rd1], %r3;\nret;",
        );
        let a = analyze(&f);
        assert_eq!(a.alloc.registers, 11 + RESERVED_TOP);
        let g = kernel(
            "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %ntid.x;\ndiv.full.f32 %r3, %r1, %r2;\n\
             st.global.u32 [%rd1], %r3;\nret;",
        );
        assert!(analyze(&g).alloc.registers < a.alloc.registers);
    }

    #[test]
    fn issue_3_copy_shares_its_source_register() {
        // %r2 = %r1 and %r1 dies there: both get R0
        let f = kernel(
            "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %r1;\nadd.u32 %r3, %r2, 1;\n\
             st.global.u32 [%rd1], %r3;\nret;",
        );
        let a = analyze(&f);
        let idx = |n: &str| f.regs.iter().position(|r| r.name == n).unwrap();
        assert_eq!(a.alloc.map[idx("%r1")], a.alloc.map[idx("%r2")]);
    }

    #[test]
    fn copy_whose_source_is_redefined_later_gets_its_own_register() {
        // %r2 = %r1, then %r1 changes while %r2 is still live: they must differ
        let f = kernel(
            "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %r1;\nadd.u32 %r1, %r1, 1;\n\
             add.u32 %r3, %r2, %r1;\nst.global.u32 [%rd1], %r3;\nret;",
        );
        let a = analyze(&f);
        let idx = |n: &str| f.regs.iter().position(|r| r.name == n).unwrap();
        assert_ne!(a.alloc.map[idx("%r1")], a.alloc.map[idx("%r2")]);
    }
}
