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
//! * **Uniform register file**. On a target with one ([`AllocTarget`]: sm_75 /
//!   the `rtx2060` preset, `gpu.sm.uniform_registers = 63`), the warp-uniform values of
//!   [`uniform_candidates`] — computed by the uniform datapath's integer operations from
//!   parameters, constants, `%ntid`/`%nctaid` and other uniform values, outside every
//!   divergent region unless it is their only definition — are coloured in a separate uniform
//!   class `U0..U62` with their own interference (the same Chaitin graph, only uniform
//!   neighbours count), 64-bit values in aligned pairs; a value that finds no free uniform register falls back to the general file
//!   in colouring order. Turing's uniform datapath has its own 64-entry register file with
//!   integer-only instructions (`UMOV`, `UIADD3`, `UIMAD`, `ULDC`, `USHF`, `ULOP3`, `UISETP`,
//!   ...; Jia, Maggioni, Smith & Scarpazza, "Dissecting the NVIDIA Turing T4 GPU via
//!   Microbenchmarking", 2019; NVIDIA "CUDA Binary Utilities", sm_75 instruction set). The
//!   general count ([`Allocation::registers`], what `ptxas -v` prints as "Used N registers")
//!   excludes them; [`Allocation::uniform`] counts them apart (ptxas for sm_75 prints no
//!   uniform-register count). A vector instruction can encode one uniform (or constant-bank)
//!   operand only: the others take general copy registers at that instruction
//!   ([`uniform_operand_copies`]). The executor holds these values in a per-warp uniform file
//!   (`exec::CtaExec`), apart from the register-file designs. Without a uniform file (the
//!   Fermi `gtx480` preset, [`AllocTarget::NO_UNIFORM`]) every value stays in the general file
//!   exactly as before (the scheduling estimate of [`super::schedule`] leaves uniform values
//!   out on every target, as it always did).
use super::liveness::{Liveness, UseDef};
use crate::ir::{Function, Instr, Opcode, Operand, RegClass};

/// An architectural register: `R0..R254`, `P0..` (predicates) or `UR0..` (sm_75's uniform
/// register file, one 32-bit value per warp; [`AllocTarget`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArchReg {
    R(u16),
    P(u16),
    U(u16),
}

impl std::fmt::Display for ArchReg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArchReg::R(r) => write!(f, "R{r}"),
            ArchReg::P(p) => write!(f, "P{p}"),
            ArchReg::U(u) => write!(f, "UR{u}"),
        }
    }
}

/// Uniform registers sm_75 gives a kernel: `UR0..UR62` (`UR63` is `URZ`, the zero register).
/// Jia, Maggioni, Smith & Scarpazza, "Dissecting the NVIDIA Turing T4 GPU via
/// Microbenchmarking" (2019: Turing's uniform datapath and its 64-entry uniform register file,
/// of which 63 are usable);
/// NVIDIA "CUDA Binary Utilities", Turing instruction set (`UR0..UR63`, `URZ`).
pub const SM75_UNIFORM_REGISTERS: u32 = 63;

/// The register files the allocation may use besides the general (`R`) and predicate (`P`)
/// files: the target GPU's uniform register file. The GPU presets carry it
/// (`gpu.sm.uniform_registers`: 63 for the Turing rtx2060, 0 for the Fermi gtx480, which has
/// no uniform datapath).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AllocTarget {
    /// Usable 32-bit uniform registers (0: none; values stay in the general file exactly as
    /// before the uniform file was modelled).
    pub uniform_registers: u32,
}

impl AllocTarget {
    /// No uniform register file (Fermi, sm_20).
    pub const NO_UNIFORM: AllocTarget = AllocTarget {
        uniform_registers: 0,
    };
    /// sm_75 (Turing): [`SM75_UNIFORM_REGISTERS`], what `ptxas -arch=sm_75` allocates for.
    pub const SM75: AllocTarget = AllocTarget {
        uniform_registers: SM75_UNIFORM_REGISTERS,
    };
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
    /// Uniform registers used (`UR0..`): the highest one + 1, 0 without a uniform file
    /// ([`AllocTarget`]). `ptxas -v` for sm_75 does not print this count; it is not part of
    /// [`registers`](Allocation::registers) nor of occupancy.
    pub uniform: u32,
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
    /// The register-file registers (all slots) of virtual register `v`: general and predicate
    /// registers. A value in the uniform file has none (it is held apart from the register
    /// file and its banks, [`Allocation::uniform_regs`]).
    pub fn arch_regs(&self, v: usize) -> impl Iterator<Item = ArchReg> + '_ {
        let base = self.map.get(v).copied().flatten();
        let n = self.slots.get(v).copied().unwrap_or(0);
        let count = match base {
            Some(ArchReg::P(_)) => 1,
            Some(ArchReg::R(_)) => n,
            Some(ArchReg::U(_)) | None => 0,
        };
        (0..count).filter_map(move |k| match base {
            Some(ArchReg::R(r)) => r.checked_add(u16::from(k)).map(ArchReg::R),
            Some(ArchReg::P(p)) => Some(ArchReg::P(p)),
            Some(ArchReg::U(_)) | None => None,
        })
    }

    /// The uniform registers (all slots) of virtual register `v`; none unless it is held in
    /// the uniform file.
    pub fn uniform_regs(&self, v: usize) -> impl Iterator<Item = ArchReg> + '_ {
        let base = match self.map.get(v).copied().flatten() {
            Some(ArchReg::U(u)) => Some(u),
            _ => None,
        };
        let n = if base.is_some() {
            self.slots.get(v).copied().unwrap_or(0)
        } else {
            0
        };
        (0..n).filter_map(move |k| base?.checked_add(u16::from(k)).map(ArchReg::U))
    }

    /// Dense unit index of a register-file register: GPRs `0..registers`, then predicates
    /// (uniform registers are not register-file units; they map past [`Allocation::units`]).
    pub fn unit(&self, a: ArchReg) -> u32 {
        match a {
            ArchReg::R(r) => u32::from(r),
            ArchReg::P(p) => self.registers + u32::from(p),
            ArchReg::U(u) => self.registers + self.predicates + u32::from(u),
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

/// The virtual registers `target`'s uniform file may hold: the warp-uniform values of
/// [`super::uniform::uniform_values`] (every definition unguarded, on the uniform datapath's
/// integer operations, from uniform operands, outside every divergent region unless it is the
/// value's only definition), of 8 to 64 bits, that do not depend on `%ctaid`/`%gridid`.
///
/// * A value whose only definition lies in a divergent region is one: every thread that runs
///   the definition computes the same value. ptxas does it: held-out `hist` reloads its
///   parameter pointer with `ULDC.64 UR4, c[0x0][0x160]` inside the grid-stride loop a
///   `%tid` test guards (`LDG.E.U8.SYS R3, [R2.U32+UR4]`), and `bfs_commit` computes
///   `ULDC`/`UIMAD.WIDE` after a thread-dependent `@P0 EXIT` (`sim/testdata/ptxas_sched.py
///   --sass`). A uniform register is written for the whole warp, though, while threads parked
///   on the region's other paths still hold the values live there, so [`allocate_for`] makes
///   such a value interfere with every candidate live out of the divergent branch, live into
///   a block of the region or defined in it. Outside every divergent region all the warp's live
///   threads are at a definition together, so the threads' liveness is the warp's and the
///   ordinary interference is sound.
/// * `%ctaid` (and `%gridid`) are special registers, read by an `S2R`/`S2UR` instruction, not
///   constant-bank operands like the parameters, `%ntid` and `%nctaid` (`c[0x0][0x0..]`).
///   ptxas 12.9 for sm_75 reads `%ctaid` into a *general* register (`S2R Rk, SR_CTAID.X`) in
///   95 of the 123 suite, test and workload kernels that read it (`S2UR` in 28, 24 of them the
///   nn workloads' two fully-connected kernels), and computes what depends on it on the vector
///   datapath (`reduce_sum`: `S2R R8, SR_CTAID.X; IMAD.SHL.U32 R0, R8, 0x2, RZ`). So values
///   derived from them stay in the general file.
pub fn uniform_candidates(f: &Function, target: AllocTarget) -> Vec<bool> {
    use crate::ir::Sreg;
    if target.uniform_registers == 0 {
        return vec![false; f.regs.len()];
    }
    let uni = super::uniform::uniform_values(f);
    // values that depend on %ctaid / %gridid (fixed point over the uniform definitions)
    let nv = f.regs.len();
    let mut block_id = vec![false; nv];
    loop {
        let mut changed = false;
        for ins in &f.instrs {
            let mut from = ins
                .src
                .iter()
                .any(|o| matches!(o, Operand::Special(Sreg::Ctaid(_) | Sreg::GridId)));
            ins.for_each_read(|r| from |= block_id.get(r.idx()).copied().unwrap_or(false));
            if from {
                ins.for_each_write(|r| {
                    if let Some(x) = block_id.get_mut(r.idx()) {
                        if !*x {
                            *x = true;
                            changed = true;
                        }
                    }
                });
            }
        }
        if !changed {
            break;
        }
    }
    f.regs
        .iter()
        .zip(uni)
        .zip(block_id)
        .map(|((r, u), b)| {
            u && !b && matches!(r.class(), RegClass::B16 | RegClass::B32 | RegClass::B64)
        })
        .collect()
}

/// Allocates `f`'s virtual registers given their liveness for a GPU without a uniform file
/// ([`AllocTarget::NO_UNIFORM`]): [`allocate_for`].
pub fn allocate(f: &Function, ud: &UseDef, live: &Liveness) -> Allocation {
    allocate_for(f, ud, live, AllocTarget::NO_UNIFORM)
}

/// Marks the register slots `r .. r + width` of `busy` taken (growing it as needed).
pub(super) fn mark(busy: &mut Vec<bool>, r: usize, width: usize) {
    let end = r + width;
    if busy.len() < end {
        busy.resize(end, false);
    }
    for s in busy.iter_mut().take(end).skip(r) {
        *s = true;
    }
}

/// First fit of a value `width` slots wide: the first of `preferred` (its copy partners'
/// registers, so the copy coalesces) that is aligned to `width` and free, else the lowest
/// aligned base whose slots are all free.
fn first_fit(busy: &[bool], width: usize, mut preferred: impl Iterator<Item = usize>) -> usize {
    preferred
        .find(|&r| r % width == 0 && first_free(busy, r, width, width) == r)
        .unwrap_or_else(|| first_free(busy, 0, width, width))
}

/// The first of `base`, `base + step`, ... whose `width` slots are all free in `busy`.
pub(super) fn first_free(busy: &[bool], mut base: usize, width: usize, step: usize) -> usize {
    while (base..base + width).any(|s| busy.get(s).copied().unwrap_or(false)) {
        base += step;
    }
    base
}

/// Allocates `f`'s virtual registers given their liveness: every value in the general (`R`),
/// predicate (`P`) or, on a target with one, uniform (`U`) file. This is the mapping the
/// executor runs and its size is the register count reported for the kernel (module docs for
/// the rules).
pub fn allocate_for(f: &Function, ud: &UseDef, live: &Liveness, target: AllocTarget) -> Allocation {
    let nv = f.regs.len();
    let class: Vec<RegClass> = f.regs.iter().map(|r| r.class()).collect();
    let ur_cand = uniform_candidates(f, target);
    let ur_limit = target.uniform_registers as usize;
    // the warp-uniform values outside every divergent region (only with a uniform file): for
    // the uniform-operand copies and the divergent branches below
    let strict = if ur_limit == 0 {
        Vec::new()
    } else {
        super::uniform::uniform_regs(f)
    };
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
    // general registers holding copies of uniform operands (`uniform_operand_copies`):
    // nodes after the expansion scratch (never mapped)
    let ucopies: Vec<(usize, u32)> = if ur_limit == 0 {
        Vec::new()
    } else {
        let narrowed = super::narrow::narrowable(f);
        let width: Vec<u32> = class
            .iter()
            .zip(&narrowed)
            .map(|(c, &n)| if n { 1 } else { c.slots() })
            .collect();
        f.instrs
            .iter()
            .enumerate()
            .map(|(pc, i)| (pc, uniform_operand_copies(i, &strict, &ur_cand, &width)))
            .filter(|&(_, k)| k > 0)
            .collect()
    };
    let n_nodes = nv
        + scratch
            .iter()
            .chain(&ucopies)
            .map(|&(_, k)| k as usize)
            .sum::<usize>();
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
    // `k` extra nodes from `first` (the scratch registers or uniform-operand copies of one
    // instruction): they interfere with each other and with every node of `around`
    let add_group = |first: u32, k: u32, around: &[u32], adj: &mut Vec<Vec<u32>>| {
        for a in first..first + k {
            for b in a + 1..first + k {
                add(a, b, adj);
            }
            for &v in around {
                add(a, v, adj);
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
        // a definition costs O(live) instead of a scan of the whole bit set.
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
        add_group(next, k, &around, &mut adj);
        next += k;
    }
    // a copy of a uniform operand is read by its instruction only: it interferes with the
    // other copies, the values read there and those live across, not with the result (the
    // instruction may write its result over the copy, as `MOV R2, c[..]; IMAD R2, R0, R2, ..`)
    for &(pc, k) in &ucopies {
        let defs = ud.defs.get(pc).cloned().unwrap_or_default();
        let mut around: Vec<u32> = ud.uses.get(pc).cloned().unwrap_or_default();
        if let Some(lo) = live.live_out.get(pc) {
            around.extend(lo.iter().map(|x| x as u32).filter(|x| !defs.contains(x)));
        }
        add_group(next, k, &around, &mut adj);
        next += k;
    }
    // a uniform value defined inside a divergent region is written for the whole warp while
    // the threads parked on the region's other paths still hold what is live there: it
    // interferes with every uniform candidate live out of the divergent branch, live into a
    // block of the region or defined in it ([`uniform_candidates`])
    if ur_limit > 0 {
        let cand = |v: u32| ur_cand.get(v as usize).copied().unwrap_or(false);
        // a region matters only if a candidate is defined in it: unless some block of the
        // regions' union defines one, no region is walked (the regions of a chain of branches
        // to one target have sizes that sum to the square of its length); otherwise one
        // region at a time
        let mut branches = super::uniform::guarded_branches(f);
        branches.retain(|(_, g)| !strict.get(g.idx()).copied().unwrap_or(false));
        let union = f.cfg.region_union(branches.iter().map(|&(b, _)| b as u32));
        // and a branch that reaches none of those blocks has none in its region
        let topo = f.cfg.scc_topo();
        let last_def = f
            .cfg
            .blocks
            .iter()
            .enumerate()
            .filter(|&(x, blk)| {
                union[x]
                    && blk
                        .range()
                        .any(|pc| ud.defs.get(pc).into_iter().flatten().any(|&v| cand(v)))
            })
            .map(|(x, _)| topo[x])
            .max();
        match last_def {
            Some(t) => branches.retain(|&(b, _)| topo[b] <= t),
            None => branches.clear(),
        }
        let (mut scratch, mut region) = (crate::ir::RegionScratch::default(), Vec::new());
        for (b, guard) in branches {
            if strict.get(guard.idx()).copied().unwrap_or(false) {
                continue;
            }
            f.cfg.region_into(b as u32, &mut scratch, &mut region);
            let defined: Vec<u32> = region
                .iter()
                .filter_map(|&x| f.cfg.blocks.get(x as usize))
                .flat_map(|x| x.range())
                .flat_map(|pc| ud.defs.get(pc).into_iter().flatten().copied())
                .filter(|&v| cand(v))
                .collect();
            if defined.is_empty() {
                continue;
            }
            let mut held: Vec<u32> = live
                .block_out
                .get(b)
                .into_iter()
                .chain(region.iter().filter_map(|&x| live.block_in.get(x as usize)))
                .flat_map(|s| s.iter().map(|x| x as u32))
                .filter(|&v| cand(v))
                .collect();
            held.extend(&defined);
            held.sort_unstable();
            held.dedup();
            for &d in &defined {
                for &h in &held {
                    add(d, h, &mut adj);
                }
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
    let (mut top, mut predicates, mut utop) = (0u32, 0u32, 0u32);
    let mut busy: Vec<bool> = Vec::new();
    for v in order {
        // a uniform value first tries the uniform file (its neighbours there, aligned pairs
        // for 64 bits, as in the general file); when all `ur_limit` are taken it falls back
        // to the general file below (ptxas copies uniform values to R registers when the
        // uniform file is exhausted: the uniform datapath's results can always be moved to
        // the vector file, CUDA Binary Utilities, `MOV R, UR`)
        if ur_cand.get(v).copied().unwrap_or(false) {
            busy.clear();
            for &n in &adj[v] {
                if let Some(ArchReg::U(r)) = map[n as usize] {
                    mark(&mut busy, usize::from(r), usize::from(slots[n as usize]));
                }
            }
            let width = usize::from(slots[v]).max(1);
            let base = first_fit(
                &busy,
                width,
                partners
                    .get(v)
                    .into_iter()
                    .flatten()
                    .filter_map(|&p| match map[p as usize] {
                        Some(ArchReg::U(r)) => Some(usize::from(r)),
                        _ => None,
                    }),
            );
            if base + width <= ur_limit {
                if let Ok(b16) = u16::try_from(base) {
                    map[v] = Some(ArchReg::U(b16));
                    utop = utop.max((base + width) as u32);
                    continue;
                }
            }
        }
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
                    mark(&mut busy, usize::from(r), usize::from(slots[n as usize]));
                }
                Some(ArchReg::P(p)) if pred => mark(&mut busy, usize::from(p), 1),
                _ => {}
            }
        }
        let width = if pred {
            1
        } else {
            usize::from(slots[v]).max(1)
        };
        let base = first_fit(
            &busy,
            width,
            partners
                .get(v)
                .into_iter()
                .flatten()
                .filter_map(|&p| match map[p as usize] {
                    Some(ArchReg::R(r)) if !pred => Some(usize::from(r)),
                    _ => None,
                }),
        );
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
        uniform: utop,
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

/// General registers an instruction on the vector datapath needs for copies of its uniform
/// operands. A SASS instruction encodes at most one constant-bank or uniform-register operand
/// (the `c[bank][offset]` / `URk` form of its second or third source; NVIDIA "CUDA Binary
/// Utilities", Turing instruction set, operand forms), so when it reads several uniform values
/// ptxas first copies all but one into general registers: `gauss_fan2`'s
/// `MOV R2, c[0x0][0x178]; IMAD R4, R2, c[0x0][0x17c], R3` and
/// `MOV R2, c[0x0][0x17c]; IMAD.WIDE R2, R13, R2, c[0x0][0x168]` (the 64-bit one stays in the
/// operand slot; `sim/testdata/ptxas_sched.py` prints the SASS). Counted: the slots of every
/// uniform-file operand (`cand`, widths `width`) and uniform special register but the widest.
/// An instruction whose results are all warp-uniform (`uni`) runs on the uniform datapath,
/// whose instructions read uniform registers in every slot: none.
fn uniform_operand_copies(ins: &Instr, uni: &[bool], cand: &[bool], width: &[u32]) -> u32 {
    use crate::ir::Sreg;
    let mut defs = Vec::new();
    ins.for_each_write(|r| defs.push(r.idx()));
    let on_uniform_datapath = ins.guard.is_none()
        && !defs.is_empty()
        && super::uniform::op_is_uniform_capable(ins)
        && defs.iter().all(|&d| uni.get(d).copied().unwrap_or(false));
    if on_uniform_datapath {
        return 0;
    }
    let mut seen: Vec<usize> = Vec::new();
    let mut widths: Vec<u32> = Vec::new();
    ins.for_each_read(|r| {
        let v = r.idx();
        if cand.get(v).copied().unwrap_or(false) && !seen.contains(&v) {
            seen.push(v);
            widths.push(width.get(v).copied().unwrap_or(1));
        }
    });
    for o in &ins.src {
        if let Operand::Special(Sreg::Ctaid(_) | Sreg::Nctaid(_) | Sreg::Ntid(_) | Sreg::GridId) = o
        {
            widths.push(1);
        }
    }
    if widths.len() < 2 {
        return 0;
    }
    widths.sort_unstable_by(|a, b| b.cmp(a));
    widths[1..].iter().sum()
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

    /// A kernel with parameters `p` (u64) and `n` (u32) and the given body.
    fn kernel_p(body: &str) -> Function {
        let src = format!(
            ".version 7.0\n.target sm_75\n.address_size 64\n\
             .entry k(.param .u64 p, .param .u32 n, .param .u32 m)\n{{\n.reg .pred %p<3>;\n\
             .reg .b32 %r<80>;\n.reg .b64 %rd<9>;\n.reg .f32 %f<4>;\n{body}\n}}\n"
        );
        let m = parse_unscheduled("t.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
        m.function("k").unwrap().clone()
    }

    fn reg_of(f: &Function, a: &crate::analysis::Analysis, name: &str) -> Option<ArchReg> {
        let v = f.regs.iter().position(|r| r.name == name)?;
        a.alloc.map[v]
    }

    #[test]
    fn param_address_goes_to_the_uniform_file_on_sm75_only() {
        // %rd1 = p + 4 * n (param-derived, warp-uniform) -> a uniform pair; the per-thread
        // value %r2 stays in the general file, and so does %r3 = %ctaid.x + 1 (`S2R`, see
        // `uniform_candidates`)
        let f = kernel_p(
            "ld.param.u64 %rd0, [p];\nld.param.u32 %r1, [n];\nmul.wide.u32 %rd2, %r1, 4;\n\
             add.s64 %rd1, %rd0, %rd2;\nmov.u32 %r2, %tid.x;\nmov.u32 %r4, %ctaid.x;\n\
             add.u32 %r3, %r4, 1;\nadd.u32 %r2, %r2, %r3;\nst.global.u32 [%rd1], %r2;\nret;",
        );
        let a = crate::analysis::analyze_for(&f, AllocTarget::SM75);
        let Some(ArchReg::U(u)) = reg_of(&f, &a, "%rd1") else {
            panic!("%rd1 not in the uniform file: {:?}", reg_of(&f, &a, "%rd1"));
        };
        assert_eq!(u % 2, 0, "64-bit uniform values take aligned pairs");
        assert!(matches!(reg_of(&f, &a, "%r2"), Some(ArchReg::R(_))));
        assert!(matches!(reg_of(&f, &a, "%r3"), Some(ArchReg::R(_))));
        assert!(matches!(reg_of(&f, &a, "%r1"), Some(ArchReg::U(_))));
        assert!(a.alloc.uniform >= 2);
        // the register-file units (designs, release flags) never name a uniform register
        assert!(a.alloc.arch_regs(1).all(|r| !matches!(r, ArchReg::U(_))));
        // %r2 and %r3/%r4 are general: R0, R2 (R1 = stack pointer) + RESERVED_TOP
        assert_eq!(a.alloc.span, 3 + RESERVED_TOP);
        // without a uniform file (gtx480): today's allocation, nothing uniform
        let b = crate::analysis::analyze_for(&f, AllocTarget::NO_UNIFORM);
        assert_eq!(b, analyze(&f));
        assert_eq!(b.alloc.uniform, 0);
        assert!(b
            .alloc
            .map
            .iter()
            .all(|m| !matches!(m, Some(ArchReg::U(_)))));
        assert!(b.alloc.registers > a.alloc.span);
    }

    #[test]
    fn vector_instruction_copies_all_but_one_uniform_operand() {
        // mad of two uniform parameters and a per-thread value: one uniform operand slot, so
        // one general copy register (gauss_fan2's `MOV R2, c[..]; IMAD R4, R2, c[..], R3`);
        // a uniform-datapath instruction (all results uniform) needs none
        let f = kernel_p(
            "ld.param.u32 %r1, [n];\nld.param.u32 %r2, [m];\nmov.u32 %r3, %tid.x;\n\
             mad.lo.s32 %r4, %r1, %r2, %r3;\nadd.s32 %r5, %r1, %r2;\nret;",
        );
        let uni = crate::analysis::uniform::uniform_regs(&f);
        let cand = uniform_candidates(&f, AllocTarget::SM75);
        let width = vec![1; f.regs.len()];
        let pc = |op: Opcode| f.instrs.iter().position(|i| i.op == op).unwrap();
        assert_eq!(
            uniform_operand_copies(&f.instrs[pc(Opcode::Mad)], &uni, &cand, &width),
            1
        );
        assert_eq!(
            uniform_operand_copies(&f.instrs[pc(Opcode::Add)], &uni, &cand, &width),
            0
        );
    }

    #[test]
    fn value_joined_after_a_thread_dependent_branch_stays_general() {
        // %r3 is defined on both sides of a branch on %tid: not uniform (divergent region)
        let f = kernel_p(
            "ld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\nsetp.lt.u32 %p1, %r2, 7;\n\
             mov.u32 %r3, 1;\n@%p1 bra $L;\nadd.u32 %r3, %r1, 5;\n$L:\n\
             ld.param.u64 %rd0, [p];\nadd.u32 %r4, %r3, %r2;\nst.global.u32 [%rd0], %r4;\nret;",
        );
        let a = crate::analysis::analyze_for(&f, AllocTarget::SM75);
        assert!(matches!(reg_of(&f, &a, "%r3"), Some(ArchReg::R(_))));
        assert!(matches!(reg_of(&f, &a, "%r1"), Some(ArchReg::U(_))));
        assert!(matches!(reg_of(&f, &a, "%rd0"), Some(ArchReg::U(_))));
    }

    #[test]
    fn uniform_value_defined_in_a_divergent_region_keeps_off_the_other_paths_values() {
        // %r4 (n + 3) is defined once, on the `%tid < 7` path: uniform (ptxas's ULDC after a
        // thread-dependent branch). On that path %r1 is dead (only the other path reads it), so
        // the threads' liveness alone would let %r4 take %r1's uniform register; but the warp
        // runs both paths, and the threads on the other path still need %r1
        let f = kernel_p(
            "ld.param.u32 %r1, [m];\nmov.u32 %r2, %tid.x;\nsetp.lt.u32 %p1, %r2, 7;\n\
             ld.param.u64 %rd0, [p];\n@%p1 bra $T;\nadd.u32 %r5, %r1, %r2;\n\
             st.global.u32 [%rd0], %r5;\nbra.uni $J;\n$T:\nld.param.u32 %r3, [n];\n\
             add.u32 %r4, %r3, 3;\nadd.u32 %r6, %r4, %r2;\nst.global.u32 [%rd0], %r6;\n\
             $J:\nret;",
        );
        let a = crate::analysis::analyze_for(&f, AllocTarget::SM75);
        let (Some(ArchReg::U(r1)), Some(ArchReg::U(r4)), Some(ArchReg::U(r3))) = (
            reg_of(&f, &a, "%r1"),
            reg_of(&f, &a, "%r4"),
            reg_of(&f, &a, "%r3"),
        ) else {
            panic!(
                "%r1, %r3, %r4 should all be in the uniform file: {:?}",
                a.alloc.map
            );
        };
        assert_ne!(r4, r1);
        assert_ne!(r3, r1);
    }

    #[test]
    fn float_on_uniform_inputs_stays_general() {
        // the uniform datapath is integer-only: a float result of uniform inputs is general
        let f = kernel_p(
            "ld.param.u32 %r1, [n];\ncvt.rn.f32.u32 %f1, %r1;\nmul.f32 %f2, %f1, 0f40000000;\n\
             ld.param.u64 %rd0, [p];\nst.global.f32 [%rd0], %f2;\nret;",
        );
        let a = crate::analysis::analyze_for(&f, AllocTarget::SM75);
        assert!(matches!(reg_of(&f, &a, "%f2"), Some(ArchReg::R(_))));
        assert!(matches!(reg_of(&f, &a, "%f1"), Some(ArchReg::R(_))));
        assert!(matches!(reg_of(&f, &a, "%r1"), Some(ArchReg::U(_))));
    }

    #[test]
    fn uniform_values_beyond_63_spill_to_the_general_file() {
        // 70 uniform 32-bit values all live together: 63 take UR0..UR62, the other 7 go to
        // the general file in colouring order
        let mut body = String::new();
        for i in 0..70 {
            body.push_str(&format!("mov.u32 %r{i}, {};\n", i + 1));
        }
        body.push_str("mov.u32 %r70, 0;\n");
        for i in 0..70 {
            body.push_str(&format!("add.u32 %r70, %r70, %r{i};\n"));
        }
        body.push_str("ld.param.u64 %rd0, [p];\nst.global.u32 [%rd0], %r70;\nret;");
        let f = kernel_p(&body);
        let a = crate::analysis::analyze_for(&f, AllocTarget::SM75);
        let (mut u, mut r) = (0, 0);
        for i in 0..70 {
            match reg_of(&f, &a, &format!("%r{i}")) {
                Some(ArchReg::U(k)) => {
                    assert!(u32::from(k) < SM75_UNIFORM_REGISTERS);
                    u += 1;
                }
                Some(ArchReg::R(_)) => r += 1,
                other => panic!("%r{i}: {other:?}"),
            }
        }
        assert_eq!((u, r), (63, 7));
        assert_eq!(a.alloc.uniform, SM75_UNIFORM_REGISTERS);
        // the spilled values (and %r70's running sum, which needs a UR too if free) are in
        // R0, R2.. (R1 = stack pointer)
        assert!(a.alloc.span >= 7 + 1 + RESERVED_TOP);
    }

    #[test]
    fn r1_is_reserved_and_two_more_are_counted() {
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
    fn division_reserves_its_scratch_registers() {
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
    fn copy_shares_its_source_register() {
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
