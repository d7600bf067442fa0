//! Scheduling pressure: the registers ptxas's instruction scheduler keeps busy, which the
//! reported register count includes on top of the executor's program-order allocation
//!.
//!
//! ptxas (`-O3`, its default) schedules each basic block for latency: long-latency loads issue
//! as soon as their addresses are known, stores (which nothing waits for) sink to the end, and
//! small innermost loops are unrolled once more before scheduling. The loaded values are then
//! live from the hoisted load to their use, which raises the register count well above what a
//! program-order allocation needs (`matrixMul_naive`: 32 `LDG` in a row, then 16 `FFMA`;
//! `conv5x5`: all 50 loads of the channel loop before its 25 `FFMA`; `f2i`: every conversion
//! before the first `STG`). `sim/testdata/ptxas_sched.py` measures the rules below on
//! synthetic loops and on the SASS (`nvdisasm`) of the suite and held-out kernels:
//!
//! * **Scheduling** ([`list_schedule`]): a critical-path list scheduler over the block's
//!   dependence graph, with latencies from the Accel-Sim RTX 2060 configuration ([`latency`]).
//!   A ready store issues first. Atomics, barriers, fences and calls end a scheduling region (SASS splits the block there:
//!   warp-aggregated atomics, `BAR`, `MEMBAR`).
//! * **If-conversion** ([`if_converted_regions`]): a block of at most [`IF_CONVERT_MAX`]
//!   instructions that a conditional branch skips is predicated and scheduled with the blocks
//!   around it, unless it holds a barrier/atomic/call or a global store and a global load that
//!   may alias it ([`if_convertible`]; `transpose`, `reduce_sum`, synthetic chains).
//! * **Unrolling** ([`unroll_factor`]): an innermost loop that is one basic block, whose exit
//!   test counts a register stepped by an immediate, without barriers, atomics, calls or
//!   `.pragma "nounroll"`, and with at most [`UNROLL_MAX_BODY`] instructions besides its loads,
//!   is unrolled [`UNROLL`] times (the script's synthetic loops: x4 up to 46 such instructions,
//!   x1 from 47; a register step or the pragma: x1). The copies are scheduled together
//!   ([`unrolled`]). If the result exceeds the budget, ptxas unrolls less (4, 2, 1).
//! * **Registers** ([`pressure`]): a first-fit assignment of the scheduled live ranges, pairs
//!   aligned, `R1` reserved, a value only stored through a per-thread 64-bit address in an
//!   odd register ([`odd_registers`]); warp-uniform values take no general register (sm_75's uniform
//!   register file, [`super::uniform::uniform_values`]), nor does a uniform-base + per-thread
//!   offset address sm_75 encodes as `[Rk.64+URm]`, nor an immediate (a constant operand of its
//!   consumers), and a narrow load into a wide register takes its loaded width ([`weights`]);
//!   except the multiplier of a `mul.wide` added to a kernel-parameter pointer, which
//!   `IMAD.WIDE R, R, Rk, c[0x0][...]` reads from a register set at the top of its block
//!   ([`imad_wide_constants`]). An `atom.cas` reads its compare and new values from one
//!   aligned pair, which a 32-bit new value holds for its whole life ([`cas_pairs`]), and a
//!   parameter address from a register pair copied at the `atom.cas` ([`cas_operands`]).
//!   A 32-bit integer `add`/`and`/`or`/`xor`/`min`/`max` at a warp-uniform address whose
//!   result nothing reads becomes a warp-aggregated reduction whose [`AGGREGATE_TEMPS`]
//!   temporaries sit beside the values live at it ([`aggregated_atomics`]), and a vector
//!   store of values a vector load left in other slots (or of one value twice) copies them
//!   into a fresh aligned group ([`vector_store_groups`]).
//!
//! The estimate is the largest block's registers plus [`super::regalloc::RESERVED_TOP`], capped
//! by the budget ([`BUDGET`]): ptxas backs off (schedules less aggressively) rather than exceed
//! it. [`super::analyze`] reports the larger of this and the executor's own allocation.

use super::liveness::{Liveness, UseDef};
use super::regalloc::{first_free, mark, RESERVED_TOP, STACK_POINTER};
use crate::ir::{Function, Instr, Mods, Opcode, Operand, Space};

/// Copies of a single-block innermost loop body ptxas's unroller makes: 4, measured by
/// `sim/testdata/ptxas_sched.py` (synthetic loops; and in `ptxas_sched.csv`, `bp_delta`,
/// `fc_layer` and `matrixMul_naive`'s loops with 4, 8 and 8 loads have SASS loops with 16, 32
/// and 32).
pub const UNROLL: u32 = 4;

/// Largest loop body (PTX instructions other than loads, the closing branch included) ptxas
/// unrolls: a synthetic single-block loop with a constant step is unrolled 4x with 46 such
/// instructions and not at all with 47 (`sim/testdata/ptxas_sched.py`, `unroll threshold`).
pub const UNROLL_MAX_BODY: usize = 46;

/// Register budget of ptxas's scheduling on sm_75: the count that still allows the SM's full
/// occupancy, 65536 registers / 1024 threads = 64 (CUDA C++ Programming Guide, "Technical
/// Specifications per Compute Capability", cc 7.5). No suite or held-out kernel exceeds it
/// (`ptxas_sm75.csv`; the largest, `conv5x5`, uses exactly 64).
pub const SM75_BUDGET: u32 = 64;

/// Per-thread register limit of sm_20 (Fermi): 63 (CUDA C++ Programming Guide, "Technical
/// Specifications per Compute Capability", cc 2.x; the `gtx480` timing preset).
pub const SM20_LIMIT: u32 = 63;

/// The budget the scheduling estimate is capped with: [`SM75_BUDGET`], but never above
/// [`SM20_LIMIT`], so that the one reported count fits every target the simulator has a preset
/// for (the front-end does not know the preset the kernel will run on; ptxas for sm_20 would
/// back off to its limit the same way). Costs `conv5x5` one register against ptxas's sm_75 count.
pub const BUDGET: u32 = if SM75_BUDGET < SM20_LIMIT {
    SM75_BUDGET
} else {
    SM20_LIMIT
};

/// True for a load whose latency ptxas's scheduler covers by issuing it early: `ld`/`ldu` from
/// global, shared, local, const or generic memory (parameter loads are constant-bank operands,
/// see [`super::sink`]).
fn is_hoisted_load(ins: &Instr) -> bool {
    matches!(ins.op, Opcode::Ld | Opcode::Ldu) && ins.space != Space::Param
}

/// True for instructions a load cannot move above: memory writes, atomics, barriers, fences,
/// calls (memory order, PTX ISA §8 memory consistency model).
fn is_memory_barrier(ins: &Instr) -> bool {
    is_region_boundary(ins) || matches!(ins.op, Opcode::St | Opcode::Ret | Opcode::Exit)
}

/// Issue-to-use latency classes (cycles) that order the list scheduler, from the Accel-Sim
/// `SM75_RTX2060` configuration the timing model also uses (`sim/src/timing/rtx2060.toml`):
/// integer/FP32 ALU 4 (`-ptx_opcode_latency_int/fp`), SFU 21 (`-ptx_opcode_latency_sfu`:
/// transcendental functions and float<->integer conversions), FP64 64
/// (`-ptx_opcode_latency_dp`), integer division 21 and FP32 division 39 (5th fields), shared
/// memory 30 (`-gpgpu_smem_latency`), other memory 194 (`-gpgpu_l2_rop_latency`: an L1 miss).
/// Only their order matters: a long-latency result is scheduled before short ones.
fn latency(ins: &Instr) -> u32 {
    use crate::ir::Ty;
    match ins.op {
        Opcode::Ld | Opcode::Ldu | Opcode::Atom if ins.space == Space::Shared => 30,
        Opcode::Ld | Opcode::Ldu | Opcode::Atom if ins.space == Space::Param => 4,
        Opcode::Ld | Opcode::Ldu | Opcode::Atom => 194,
        Opcode::Div | Opcode::Rem if ins.ty.is_float() => 39,
        Opcode::Div | Opcode::Rem => 21,
        _ if matches!(ins.ty, Ty::F64) || matches!(ins.ty2, Ty::F64) => 64,
        Opcode::Rcp
        | Opcode::Sqrt
        | Opcode::Rsqrt
        | Opcode::Sin
        | Opcode::Cos
        | Opcode::Lg2
        | Opcode::Ex2
        | Opcode::Tanh => 21,
        Opcode::Cvt if ins.ty.is_float() != ins.ty2.is_float() => 21,
        _ => 4,
    }
}

/// True for instructions no other instruction of the block is scheduled across: atomics,
/// barriers, fences and calls (SASS for sm_75 splits the block at each: warp-aggregated
/// atomics, `BAR`, `MEMBAR`, `CALL`; `sim/testdata/ptxas_sched.py` prints the SASS).
fn is_region_boundary(ins: &Instr) -> bool {
    matches!(
        ins.op,
        Opcode::Atom
            | Opcode::Red
            | Opcode::Bar
            | Opcode::BarWarp
            | Opcode::Membar
            | Opcode::Fence
            | Opcode::Call
    ) || ins.call.is_some()
}

/// One instruction of a (possibly unrolled) block as the scheduler sees it: registers read
/// and written (virtual-register ids, renamed per unrolled copy) and its scheduling class.
#[derive(Clone, Debug)]
struct VInstr {
    uses: Vec<u32>,
    defs: Vec<u32>,
    /// Unguarded: its definitions end the previous values' lives.
    kills: bool,
    latency: u32,
    load: bool,
    /// Memory write/atomic/barrier/fence/call: loads stay on their side.
    orders_memory: bool,
    volatile: bool,
    /// Nothing is scheduled across it (terminator, atomic, barrier, fence, call).
    boundary: bool,
    /// The immediate multiplier this `mul.wide` reads from a register as the `IMAD.WIDE` of a
    /// constant-bank base ([`imad_wide_constants`]).
    konst: Option<u64>,
    /// For an `atom.cas`, the operands ptxas copies into aligned registers ([`cas_operands`]).
    cas: Option<Cas>,
    /// General registers ptxas's expansion of this instruction holds beside the values live
    /// at it: a warp-aggregated atomic's reduction ([`aggregated_atomics`]).
    temps: usize,
    /// A vector store whose values ptxas copies into a fresh aligned group of this many
    /// registers ([`vector_store_groups`]).
    group: usize,
    /// Index of its PTX basic block within the scheduled region.
    block: usize,
    /// State space of a load or store (what it may alias, [`may_alias`]).
    space: Space,
    /// A read-only load (`ld.global.nc`, `ldu`): no store of the kernel writes what it reads.
    read_only: bool,
}

impl VInstr {
    fn of(ins: &Instr, uses: Vec<u32>, defs: Vec<u32>, kills: bool) -> VInstr {
        VInstr {
            uses,
            defs,
            kills,
            latency: latency(ins),
            load: is_hoisted_load(ins),
            orders_memory: is_memory_barrier(ins),
            volatile: ins.mods.has(Mods::VOLATILE),
            boundary: ins.op.is_terminator() || is_region_boundary(ins),
            konst: None,
            cas: None,
            temps: 0,
            group: 0,
            block: 0,
            space: ins.space,
            read_only: ins.op == Opcode::Ldu || ins.mods.has(Mods::NC),
        }
    }
}

/// Whether `load` may read what the memory-ordering instruction `order` writes: a barrier,
/// fence, call, atomic or return orders everything; a store only loads of its own state space
/// (a generic access any space), and never a read-only load (`.nc`, `ldu`).
fn may_alias(order: &VInstr, load: &VInstr) -> bool {
    order.boundary
        || (!load.read_only
            && (order.space == Space::Generic
                || load.space == Space::Generic
                || order.space == load.space))
}

/// The instructions of block `range` as [`VInstr`]s.
fn block_vinstrs(f: &Function, ud: &UseDef, range: std::ops::Range<usize>) -> Vec<VInstr> {
    range
        .filter_map(|pc| {
            let ins = f.instrs.get(pc)?;
            Some(VInstr::of(
                ins,
                ud.uses.get(pc).cloned().unwrap_or_default(),
                ud.defs.get(pc).cloned().unwrap_or_default(),
                ud.kills.get(pc).copied().unwrap_or(false),
            ))
        })
        .collect()
}

/// The order (indices into `v`) in which ptxas's list scheduler issues the instructions of a
/// block (module docs): a dependence graph (register true/anti/output dependences; memory
/// order between a load and a later store/atomic/barrier/fence/call and the reverse, and
/// between volatile accesses; nothing crosses a scheduling-region boundary) scheduled top-down
/// one instruction per cycle, always issuing, among the instructions whose operands are ready,
/// the one with the longest latency-weighted path to the end of the block (critical-path list
/// scheduling, Gibbons & Muchnick, "Efficient instruction scheduling for a pipelined
/// architecture", SIGPLAN 1986), ties in program order — except that a ready store is issued
/// first. Loads therefore issue as soon as their addresses are known, and a store as soon as
/// its value is ready, freeing it: in the SASS of `sim/testdata/ptxas_sched.py`'s `store data
/// registers` kernels each `STG` follows the `FFMA` of its value by a few instructions,
/// between the remaining `FFMA`, and `k35_simd_int` stores its first results before computing
/// the rest (a store's height, the critical path behind it, is 0, so ordering by height alone
/// would sink every store to the end and hold all the stored values at once).
fn list_schedule(v: &[VInstr]) -> Vec<usize> {
    use std::cmp::Reverse;
    use std::collections::{BTreeMap, BinaryHeap};
    let n = v.len();
    let mut succ: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    let mut last_def: BTreeMap<u32, usize> = BTreeMap::new();
    let mut readers: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut loads_since: Vec<usize> = Vec::new();
    let mut last_volatile: Option<usize> = None;
    let (mut last_region, mut region_start): (Option<usize>, usize) = (None, 0);
    // the in-block readers of each instruction's results; for each load the store whose issue
    // releases its address arithmetic ([`hold_behind_memory_order`]); the memory-ordering
    // instructions so far, in order (the last one orders every later load)
    let mut readers_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut behind: Vec<Option<usize>> = vec![None; n];
    let mut orders: Vec<usize> = Vec::new();
    for (j, ins) in v.iter().enumerate() {
        for &u in &ins.uses {
            if let Some(&i) = last_def.get(&u) {
                succ[i].push((j, v[i].latency));
                readers_of[i].push(j);
            }
        }
        if ins.load {
            // the store (barrier, ...) before the latest one that may write what it reads
            behind[j] = orders
                .iter()
                .rev()
                .filter(|&&o| may_alias(&v[o], ins))
                .nth(1)
                .copied();
        }
        for &d in &ins.defs {
            if let Some(&i) = last_def.get(&d) {
                succ[i].push((j, 1));
            }
            for &i in readers.get(&d).into_iter().flatten() {
                if i != j {
                    succ[i].push((j, 0));
                }
            }
        }
        if ins.load || ins.orders_memory {
            if let Some(&i) = orders.last() {
                succ[i].push((j, 0));
            }
            if ins.volatile {
                if let Some(i) = last_volatile {
                    succ[i].push((j, 0));
                }
                last_volatile = Some(j);
            }
            if ins.orders_memory {
                for &i in &loads_since {
                    succ[i].push((j, 0));
                }
                loads_since.clear();
                orders.push(j);
            } else {
                loads_since.push(j);
            }
        }
        if let Some(i) = last_region {
            succ[i].push((j, 0));
        }
        if ins.boundary {
            for s in succ.iter_mut().take(j).skip(region_start) {
                s.push((j, 0));
            }
            region_start = j + 1;
            last_region = Some(j);
        }
        for &u in &ins.uses {
            readers.entry(u).or_default().push(j);
        }
        for &d in &ins.defs {
            last_def.insert(d, j);
            readers.remove(&d);
        }
    }
    hold_behind_memory_order(v, &readers_of, &behind, &mut succ);
    let mut npred = vec![0u32; n];
    for s in &succ {
        for &(j, _) in s {
            npred[j] += 1;
        }
    }
    // height: longest latency-weighted path to the end of the block, in reverse topological
    // order (a held instruction's edge may point backwards in program order)
    let mut topo = Vec::with_capacity(n);
    let mut left = npred.clone();
    let mut ready: Vec<usize> = (0..n).filter(|&i| left[i] == 0).collect();
    while let Some(i) = ready.pop() {
        topo.push(i);
        for &(j, _) in &succ[i] {
            left[j] -= 1;
            if left[j] == 0 {
                ready.push(j);
            }
        }
    }
    let mut height = vec![0u32; n];
    for &i in topo.iter().rev() {
        let h = succ[i]
            .iter()
            .map(|&(j, l)| l + height[j])
            .max()
            .unwrap_or(0);
        height[i] = h.max(v[i].latency);
    }
    // one instruction per cycle; an instruction is available once its operands are (its
    // predecessors' issue cycles plus edge latencies)
    let mut earliest = vec![0u64; n];
    let mut pending: BinaryHeap<(Reverse<u64>, Reverse<usize>)> = (0..n)
        .filter(|&i| npred[i] == 0)
        .map(|i| (Reverse(0), Reverse(i)))
        .collect();
    let mut avail: BinaryHeap<(bool, u32, Reverse<usize>)> = BinaryHeap::new();
    let mut order = Vec::with_capacity(n);
    let mut now = 0u64;
    loop {
        while let Some(&(Reverse(t), Reverse(i))) = pending.peek() {
            if t > now && !avail.is_empty() {
                break;
            }
            pending.pop();
            now = now.max(t);
            let store = v[i].orders_memory && !v[i].boundary;
            avail.push((store, height[i], Reverse(i)));
        }
        let Some((_, _, Reverse(i))) = avail.pop() else {
            break;
        };
        order.push(i);
        for &(j, l) in &succ[i] {
            earliest[j] = earliest[j].max(now + u64::from(l));
            npred[j] -= 1;
            if npred[j] == 0 {
                pending.push((Reverse(earliest[j]), Reverse(j)));
            }
        }
        now += 1;
    }
    order
}

/// Holds back instructions that compute only operands of loads that must wait for stores:
/// an edge to each from the store it waits for, so [`list_schedule`] issues it after that
/// store. A load that may read what a store writes ([`may_alias`]) stays behind it; the
/// address arithmetic of such a load runs at most one store ahead of it: it waits for the
/// aliasing store before the load's own (`behind`). Without this the scheduler fills the
/// load's wait with every unrolled copy's address arithmetic, whose results then live across
/// the whole block. ptxas does not: in the SASS of `gemm` (PolyBench/GPU's `c[i][j] +=`
/// without `__restrict__`, ptxas 12.9 for sm_75) and of `stream_triad`, each copy's
/// `IMAD.WIDE` of the next address sits just before the current copy's `STG`, never further
/// ahead. Measured against ptxas (`workloads/ptxas_sm75.csv`): `gemm` 60 -> 24 registers (30),
/// `atax`/`bicg`/`mvt` 48 -> 22 (24-26), `syrk` 36 -> 26 (28), `lud_diagonal` 34 -> 28 (24),
/// `stream_triad` 22 -> 18 (26); the suite kernels unchanged (13.7 %), the held-out ones
/// 14.9 % -> 14.7 %.
///
/// An instruction is held when every in-block reader of its results is a load with such a
/// store, or is itself held; it waits for the earliest of those stores, unless that store
/// depends on it (the edge would close a cycle). An instruction with no reader in the block
/// (a value live out of it, such as the next iteration's pointer) waits for nothing and does
/// not keep the instructions it reads from being held.
fn hold_behind_memory_order(
    v: &[VInstr],
    readers_of: &[Vec<usize>],
    behind: &[Option<usize>],
    succ: &mut [Vec<(usize, u32)>],
) {
    let n = v.len();
    let mut gate: Vec<Option<usize>> = behind.to_vec();
    let mut seen = vec![usize::MAX; n];
    let mut stack = Vec::new();
    for i in (0..n).rev() {
        if v[i].load || v[i].orders_memory || v[i].boundary {
            continue;
        }
        let Some(s) = readers_of[i]
            .iter()
            .map(|&r| gate[r])
            .try_fold(usize::MAX, |m, g| g.map(|g| m.min(g)))
        else {
            continue;
        };
        gate[i] = Some(s);
        if s == usize::MAX {
            // no reader in the block: nothing to wait for, and no reason to hurry its inputs
            continue;
        }
        // does `i` reach `s`? (then `s` depends on it)
        stack.clear();
        stack.push(i);
        seen[i] = i;
        let mut reaches = false;
        while let Some(x) = stack.pop() {
            if x == s {
                reaches = true;
                break;
            }
            for &(y, _) in &succ[x] {
                if seen[y] != i {
                    seen[y] = i;
                    stack.push(y);
                }
            }
        }
        if reaches {
            gate[i] = None;
        } else {
            succ[s].push((i, 0));
        }
    }
}

/// The program counters of block `range` in the order ptxas's list scheduler issues them
/// ([`list_schedule`]).
pub fn hoisted_order(f: &Function, ud: &UseDef, range: std::ops::Range<usize>) -> Vec<usize> {
    let start = range.start;
    list_schedule(&block_vinstrs(f, ud, range))
        .into_iter()
        .map(|i| start + i)
        .collect()
}

/// The body of a single-block loop unrolled `u` times, registers renamed per copy: copy `k`'s
/// definition of `v` gets id `v + k * nv` (copy 0 keeps `v`); a use reads the latest
/// definition before it (same copy, else the previous copy's, else the value live into the
/// loop). Only the last copy keeps the closing branch. Returns the instructions and the id
/// of each register at the end of the unrolled body.
fn unrolled(body: &[VInstr], nv: usize, u: u32) -> (Vec<VInstr>, Vec<u32>) {
    let nv32 = nv as u32;
    let mut cur: Vec<u32> = (0..nv32).collect();
    let mut out = Vec::with_capacity(body.len() * u as usize);
    for k in 0..u {
        for (i, ins) in body.iter().enumerate() {
            let last_copy = k + 1 == u;
            if ins.boundary && i + 1 == body.len() && !last_copy {
                continue;
            }
            let uses = ins
                .uses
                .iter()
                .map(|&x| cur.get(x as usize).copied().unwrap_or(x))
                .collect();
            let defs: Vec<u32> = ins.defs.iter().map(|&x| x + k * nv32).collect();
            for (&x, &d) in ins.defs.iter().zip(&defs) {
                if let Some(c) = cur.get_mut(x as usize) {
                    *c = d;
                }
            }
            out.push(VInstr {
                uses,
                defs,
                ..ins.clone()
            });
        }
    }
    (out, cur)
}

/// 32-bit general registers each virtual register occupies in ptxas's code for sm_75:
/// * 0 for predicates and for warp-uniform values, which sm_75 keeps in the uniform register
///   file ([`super::uniform`]);
/// * 0 for a 64-bit `add` of a uniform base and a per-thread 64-bit offset (not a
///   `mul.wide`/`mad.wide` result, which SASS fuses into `IMAD.WIDE` instead) that is only
///   ever used as the address of global/generic memory accesses: sm_75 addresses these as
///   `[Rk.64+URm]` and never materialises the sum (`bfs_init`, `bfs_commit`:
///   `STG.E.U8.SYS [R4.64+UR4]`; `sim/testdata/ptxas_sched.py` prints the SASS);
/// * 0 for a register only ever set by an unguarded `mov` of an immediate (a constant operand
///   of its consumers, see the body);
/// * otherwise the class's slots (a 64-bit value takes a pair).
pub fn weights(f: &Function, uni: &[bool]) -> Vec<u32> {
    use crate::ir::{AddrBase, Mode, Ty};
    let nv = f.regs.len();
    let is_uni = |v: usize| uni.get(v).copied().unwrap_or(false);
    let mut w: Vec<u32> = f
        .regs
        .iter()
        .enumerate()
        .map(|(v, r)| if is_uni(v) { 0 } else { r.class().slots() })
        .collect();
    // uses as a memory address vs any other use; definitions by a fusable add, by others
    let (mut addr_uses, mut other_uses) = (vec![0u32; nv], vec![0u32; nv]);
    let (mut add_defs, mut other_defs) = (vec![0u32; nv], vec![0u32; nv]);
    let mut wide = vec![false; nv];
    for ins in &f.instrs {
        let mem = matches!(ins.op, Opcode::Ld | Opcode::St | Opcode::Atom | Opcode::Red)
            && matches!(ins.space, Space::Global | Space::Generic);
        let mut other = |r: usize| {
            if let Some(x) = other_uses.get_mut(r) {
                *x += 1;
            }
        };
        if let Some(g) = ins.guard {
            other(g.reg.idx());
        }
        for o in &ins.src {
            match o {
                Operand::Addr(a) => {
                    if let AddrBase::Reg(r) = a.base {
                        if mem {
                            if let Some(x) = addr_uses.get_mut(r.idx()) {
                                *x += 1;
                            }
                        } else {
                            other(r.idx());
                        }
                    }
                }
                Operand::Reg(r) => other(r.idx()),
                Operand::Vec(v) => {
                    for e in v {
                        if let Operand::Reg(r) = e {
                            other(r.idx());
                        }
                    }
                }
                _ => {}
            }
        }
        let regs: Vec<usize> = ins
            .src
            .iter()
            .filter_map(|o| match o {
                Operand::Reg(r) => Some(r.idx()),
                _ => None,
            })
            .collect();
        let fusable = ins.op == Opcode::Add
            && ins.guard.is_none()
            && matches!(ins.ty, Ty::S64 | Ty::U64 | Ty::B64)
            && regs.len() == 2
            && regs.iter().filter(|&&r| is_uni(r)).count() == 1;
        let fusable = fusable
            && regs
                .iter()
                .all(|&r| is_uni(r) || !wide.get(r).copied().unwrap_or(true));
        ins.for_each_write(|d| {
            let d = d.idx();
            if fusable {
                if let Some(x) = add_defs.get_mut(d) {
                    *x += 1;
                }
            } else if let Some(x) = other_defs.get_mut(d) {
                *x += 1;
            }
            if let Some(x) = wide.get_mut(d) {
                *x = matches!(ins.op, Opcode::Mul | Opcode::Mad) && ins.mode == Mode::Wide;
            }
        });
    }
    for v in 0..nv {
        if add_defs[v] > 0 && other_defs[v] == 0 && other_uses[v] == 0 && addr_uses[v] > 0 {
            w[v] = 0;
        }
    }
    // a register whose every definition is an unguarded `mov` of an immediate is an operand
    // of the instructions that read it: SASS encodes the constant in the instruction (`FFMA R6,
    // R12, R11, +INF` in `black_scholes`) or reads it from constant bank 2 (55 `c[0x2][...]`
    // operands in `dlibm`'s SASS, `DFMA R8, R4, c[0x2][0x0], R2` for its `mov.f64 %fd, 0d...`
    // polynomial coefficients), so it takes no register while the scheduler holds it
    let mut imm_only: Vec<Option<bool>> = vec![None; nv];
    for ins in &f.instrs {
        let imm = ins.op == Opcode::Mov
            && ins.guard.is_none()
            && matches!(ins.src.as_slice(), [Operand::Imm(_)]);
        ins.for_each_write(|d| {
            if let Some(x) = imm_only.get_mut(d.idx()) {
                *x = Some(x.unwrap_or(true) && imm);
            }
        });
    }
    for v in 0..nv {
        if imm_only[v] == Some(true) {
            w[v] = 0;
        }
    }
    // a value only ever loaded with a narrower type than its register (`ld.global.s32` into a
    // `.b64`) is loaded into one register and widened where used (`LDG.E` then `SHF.R.S32.HI`,
    // `k21_fence_reduce`): it occupies the loaded width while it waits
    let mut narrow: Vec<Option<u32>> = vec![None; nv];
    let mut other_def = vec![false; nv];
    for ins in &f.instrs {
        let loaded = is_hoisted_load(ins) && ins.vec == 1;
        let words = ins.ty.size().div_ceil(4);
        ins.for_each_write(|d| {
            let d = d.idx();
            if loaded {
                if let Some(x) = narrow.get_mut(d) {
                    *x = Some(x.map_or(words, |y| y.max(words)));
                }
            } else if let Some(x) = other_def.get_mut(d) {
                *x = true;
            }
        });
    }
    for v in 0..nv {
        if let (Some(words), false) = (narrow[v], other_def[v]) {
            w[v] = w[v].min(words.max(1));
        }
    }
    w
}

/// Values ptxas places in an odd register: the 32-bit data operand of a global/generic store,
/// reduction or atomic whose address is a per-thread 64-bit register pair (`STG.E [R4], R9`).
/// Measured on synthetic PTX (`sim/testdata/ptxas_sched.py`, `store data registers`): `k`
/// values computed together and then stored through a register address (`st.global.f32
/// [%rd+4i]`, or `red.global.add.f32`) take `R9, R11, R13, ...` and ptxas reports `2k + 8`
/// registers (k = 4, 8: 16, 24), the even registers between them unused; stored through a
/// uniform address (`STG.E [UR4]`) or to shared memory (`STS [R13.X4+UR4]`) they take
/// consecutive registers (uniform address `k + 6`, shared `k + 8`, for k = 4, 8). Only a value whose every read is
/// such a store: `srad_coef` (suite) stores the differences it also computes with from even
/// registers (`STG.E.SYS [R10], R2`). The suite and held-out SASS show the rule for stored-only
/// values too: every `STG` data register of `k26_ftz` (`R5, R9, R11, R13, R15, R17, R19`, the
/// even registers between them unused) is odd.
pub fn odd_registers(f: &Function, uni: &[bool]) -> Vec<bool> {
    use crate::ir::AddrBase;
    let is_uni = |v: usize| uni.get(v).copied().unwrap_or(false);
    let nv = f.regs.len();
    // reads as such store data / any other read
    let (mut data, mut other) = (vec![0u32; nv], vec![0u32; nv]);
    for ins in &f.instrs {
        let wide_addr = matches!(ins.op, Opcode::St | Opcode::Atom | Opcode::Red)
            && matches!(ins.space, Space::Global | Space::Generic)
            && match ins.src.first() {
                Some(Operand::Addr(a)) => match a.base {
                    AddrBase::Reg(b) => {
                        !is_uni(b.idx())
                            && f.regs.get(b.idx()).is_some_and(|r| r.class().slots() == 2)
                    }
                    _ => false,
                },
                _ => false,
            };
        let mut count = |r: usize, is_data: bool| {
            let c = if is_data { &mut data } else { &mut other };
            if let Some(x) = c.get_mut(r) {
                *x += 1;
            }
        };
        if let Some(g) = ins.guard {
            count(g.reg.idx(), false);
        }
        for (k, o) in ins.src.iter().enumerate() {
            match o {
                Operand::Reg(r) => count(r.idx(), wide_addr && k > 0),
                Operand::Addr(a) => {
                    if let AddrBase::Reg(r) = a.base {
                        count(r.idx(), false);
                    }
                }
                Operand::Vec(v) => {
                    for e in v {
                        if let Operand::Reg(r) = e {
                            count(r.idx(), false);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    (0..nv)
        .map(|v| data[v] > 0 && other[v] == 0 && f.regs[v].class().slots() == 1)
        .collect()
}

/// The immediate multipliers ptxas puts in a register, per instruction: a `mul.wide` by an
/// immediate whose product is added to a kernel-parameter pointer (`ld.param`, or its
/// `cvta.to.global`) becomes `IMAD.WIDE Rd, Ra, Rk, c[0x0][...]`, and sm_75's `IMAD` has no
/// form with both an immediate and a constant-bank operand, so the immediate is set by
/// `MOV Rk, imm`. Measured on synthetic PTX (`sim/testdata/ptxas_sched.py`, `IMAD.WIDE
/// constants`): one register per distinct value (`MOV R7, 0x4` and `MOV R5, 0x8` for
/// element sizes 4 and 8), shared by every such `IMAD.WIDE` of the kernel (three pointers
/// indexed by the same or by different indices: one `R7`), set at the top of the basic block
/// (before the `S2R` of the index; in a grid-stride loop at the top of the loop body, every
/// iteration) and live to its last reader. Held-out `k26_ftz` keeps its `MOV R21, 0x4` live
/// across its whole body (three `IMAD.WIDE`, R21 its highest register); suite `bp_forward`
/// sets `R2` at the top of an if-converted block and of its last block. A `mul.wide` added
/// to a per-thread base (`IMAD.WIDE R2, R5, 0x4, R2`) folds the immediate.
fn imad_wide_constants(f: &Function, uni: &[bool]) -> Vec<Option<u64>> {
    use crate::ir::Mode;
    let nv = f.regs.len();
    // registers holding a kernel-parameter pointer: every definition an `ld.param`, a `cvta`
    // or a `mov` of one (program order suffices: PTX from NVVM defines them before use)
    let mut param: Vec<Option<bool>> = vec![None; nv];
    for ins in &f.instrs {
        let is_param = match ins.op {
            Opcode::Ld => ins.space == Space::Param,
            Opcode::Cvta | Opcode::Mov => match ins.src.as_slice() {
                [Operand::Reg(r)] => param.get(r.idx()).copied().flatten() == Some(true),
                _ => false,
            },
            _ => false,
        } && ins.guard.is_none();
        ins.for_each_write(|d| {
            if let Some(x) = param.get_mut(d.idx()) {
                *x = Some(x.unwrap_or(true) && is_param);
            }
        });
    }
    let is_param = |r: usize| {
        param.get(r).copied().flatten() == Some(true) && uni.get(r).copied().unwrap_or(false)
    };
    // products added to a parameter pointer
    let mut to_param = vec![false; nv];
    for ins in &f.instrs {
        if ins.op != Opcode::Add {
            continue;
        }
        if let [Operand::Reg(a), Operand::Reg(b)] = ins.src.as_slice() {
            if is_param(a.idx()) {
                if let Some(x) = to_param.get_mut(b.idx()) {
                    *x = true;
                }
            }
            if is_param(b.idx()) {
                if let Some(x) = to_param.get_mut(a.idx()) {
                    *x = true;
                }
            }
        }
    }
    f.instrs
        .iter()
        .map(|ins| {
            if ins.op != Opcode::Mul || ins.mode != Mode::Wide {
                return None;
            }
            let c = ins.src.iter().find_map(|o| match o {
                Operand::Imm(c) => Some(*c),
                _ => None,
            })?;
            let d = match ins.dst.first() {
                Some(Operand::Reg(d)) => d.idx(),
                _ => return None,
            };
            to_param.get(d).copied().unwrap_or(false).then_some(c)
        })
        .collect()
}

/// The registers an `atom.cas` needs at its issue beyond its operands' own
/// ([`cas_operands`]).
#[derive(Clone, Debug)]
struct Cas {
    /// Virtual registers of the compare and new values.
    data: Vec<u32>,
    /// Registers of the compare + new pair: 2 for `.b32`, 4 for `.b64`.
    width: usize,
    /// The address is warp-uniform (a kernel parameter): copied into a register pair.
    uniform_addr: bool,
}

/// True if the address operand (the first source) of memory instruction `ins` is the same in
/// every lane: a symbol or an absolute address, or a register holding a warp-uniform value.
fn uniform_address(ins: &Instr, uni: &[bool]) -> bool {
    match ins.src.first() {
        Some(Operand::Addr(a)) => match a.base {
            crate::ir::AddrBase::Reg(b) => uni.get(b.idx()).copied().unwrap_or(false),
            _ => true,
        },
        _ => false,
    }
}

/// The `atom.cas` instructions and what ptxas gives them registers for. sm_75's `ATOMG.E.CAS`
/// reads its compare and new values from aligned register pairs and its address from a
/// general register pair only. Measured on synthetic PTX (`sim/testdata/ptxas_sched.py`,
/// `compare-and-swap operands`): `atom.global.cas.b32 [param], a, b` with both values
/// kernel parameters compiles to `ATOMG.E.CAS.STRONG.GPU PT, R5, [R4], R6, R7` after
/// `MOV R4, UR4; MOV R5, UR5` and two `MOV`s of the values (10 registers; `atom.add`,
/// `atom.exch` on the same address read `[UR4]` and the value from one register: 8);
/// on a per-thread address `[R2], R4, R5` (8); `.b64`: `[R8], R4, R6`, the values in
/// R4:R5 and R6:R7 (12; per-thread 10); the result takes one of the freed registers. In a
/// retry loop (`atomicMax` on a float) a value that stays live sits in its slot of the
/// pair for the whole loop (`[R2], R4, R5`, `MOV R4, R3` before the next try), so only
/// the values dying at the `atom.cas` are copied.
fn cas_operands(f: &Function, uni: &[bool]) -> Vec<Option<Cas>> {
    use crate::ir::AtomOp;
    f.instrs
        .iter()
        .map(|ins| {
            if ins.op != Opcode::Atom || ins.atom != AtomOp::Cas {
                return None;
            }
            let uniform_addr =
                uniform_address(ins, uni) && matches!(ins.space, Space::Global | Space::Generic);
            let data = ins
                .src
                .iter()
                .skip(1)
                .filter_map(|o| match o {
                    Operand::Reg(r) => Some(r.idx() as u32),
                    _ => None,
                })
                .collect();
            let w = ins.ty.class().slots().max(1) as usize;
            Some(Cas {
                data,
                width: 2 * w,
                uniform_addr,
            })
        })
        .collect()
}

/// General registers the warp-aggregated reduction of one atomic takes besides the values
/// live at it ([`aggregated_atomics`]): five `SHFL.BFLY` + combine stages, each result in a
/// fresh register (the `VOTE.ANY` mask's register is reused by a later stage), and the
/// `S2R SR_LANEID` that elects the lane issuing the combined atomic. Measured on synthetic PTX
/// (`sim/testdata/ptxas_sched.py`, `warp-aggregated atomics`): `red.shared.add.u32 [s], %r`
/// with a loaded value and a 64-bit address live takes 12 registers (`SHFL.BFLY` into R5, R4,
/// R7, R6, R9, `S2R R8, SR_LANEID`) where `red.shared.inc.u32` takes 8; in held-out
/// `atomics_int` every chain sits above the values live at it (`R5..R10`, `R6..R11`, ...).
const AGGREGATE_TEMPS: usize = 6;

/// The atomics ptxas for sm_75 compiles into a warp-aggregated reduction: when every lane of
/// the warp is active (`VOTE.ANY R, PT, PT` against `-1`), five `SHFL.BFLY` stages combine the
/// lanes' values and one lane issues the atomic; otherwise each lane issues its own. Measured
/// on synthetic PTX (`sim/testdata/ptxas_sched.py`, `warp-aggregated atomics`: every
/// operation, shared and global, uniform and per-thread address, result used or not): ptxas
/// does it for `add`, `and`, `or`, `xor`, `min` and `max` on 32-bit integers at a warp-uniform
/// address (a symbol, or a register holding a warp-uniform value) whose result is never read
/// (`red`, or an `atom` whose destination nothing reads); never for `inc`, `dec`, `exch`,
/// `cas`, 64-bit or floating-point operands, a per-thread address or a used result.
fn aggregated_atomics(f: &Function, uni: &[bool]) -> Vec<usize> {
    use crate::ir::AtomOp;
    let mut read = vec![false; f.regs.len()];
    for ins in &f.instrs {
        ins.for_each_read(|r| {
            if let Some(x) = read.get_mut(r.idx()) {
                *x = true;
            }
        });
    }
    f.instrs
        .iter()
        .map(|ins| {
            let result_unused = match ins.op {
                Opcode::Red => true,
                Opcode::Atom => ins.dst.iter().all(|o| match o {
                    Operand::Reg(r) => !read.get(r.idx()).copied().unwrap_or(false),
                    _ => true,
                }),
                _ => false,
            };
            result_unused
                && uniform_address(ins, uni)
                && matches!(
                    ins.atom,
                    AtomOp::Add
                        | AtomOp::And
                        | AtomOp::Or
                        | AtomOp::Xor
                        | AtomOp::Min
                        | AtomOp::Max
                )
                && !ins.ty.is_float()
                && ins.ty.class().slots() == 1
                && matches!(ins.space, Space::Shared | Space::Global | Space::Generic)
        })
        .map(|a| if a { AGGREGATE_TEMPS } else { 0 })
        .collect()
}

/// Vector stores whose values ptxas copies into a fresh aligned register group: the group's
/// width per instruction (0 for every other instruction). A `.v2`/`.v4` store reads its values
/// from one aligned group (`STG.E.128 [R2], R16` reads `R16..R19`; NVIDIA "CUDA Binary
/// Utilities", vector operands name the group's first register). A value computed for the
/// store is computed into its slot, but one the group cannot hold where it is — loaded by a
/// vector load into another slot, or named twice — is copied, and the copies need a group of
/// their own. Held-out `dyn_align` (`sim/testdata/ptxas_sched.py --sass dyn_align`) stores
/// `{%f4, %f3, %f2, %f10}` of a `ld.shared.v4 {%f1, %f2, %f3, %f4}`: `MOV R16, R7; MOV R17, R6;
/// MOV R18, R5; FADD R19, ...; STG.E.128 [R2], R16` (22 registers); `vecload` stores four
/// computed values `{%f16, %f15, %f14, %f17}` from `R8..R11` with no copy, and `dyn_align`'s
/// `st.shared.v4` of a `ld.global.v4`'s four values in the same order stores the loaded group.
fn vector_store_groups(f: &Function, wt: &[u32]) -> Vec<usize> {
    // the (group width, slot) each vector load puts its values in
    let mut loaded: Vec<Option<(usize, usize)>> = vec![None; f.regs.len()];
    for ins in &f.instrs {
        if let Some(Operand::Vec(v)) = ins.dst.first() {
            for (i, o) in v.iter().enumerate() {
                if let Operand::Reg(r) = o {
                    if let Some(x) = loaded.get_mut(r.idx()) {
                        *x = Some((v.len(), i));
                    }
                }
            }
        }
    }
    f.instrs
        .iter()
        .map(|ins| {
            let Some(Operand::Vec(v)) = ins.src.get(1) else {
                return 0;
            };
            if ins.op != Opcode::St || v.len() < 2 {
                return 0;
            }
            let copied = v.iter().enumerate().any(|(i, o)| match o {
                Operand::Reg(r) => {
                    wt.get(r.idx()).copied().unwrap_or(0) > 0
                        && (v[..i].contains(o)
                            || loaded
                                .get(r.idx())
                                .copied()
                                .flatten()
                                .is_some_and(|g| g != (v.len(), i)))
                }
                _ => false,
            });
            if copied {
                v.len() * ins.ty.class().slots().max(1) as usize
            } else {
                0
            }
        })
        .collect()
}

/// Weights with the new value of every 32-bit `atom.cas` on a whole aligned pair: ptxas keeps
/// the compare value's slot beside it for the new value's whole life ([`cas_operands`]).
/// Measured on synthetic PTX (`sim/testdata/ptxas_sched.py`, `compare-and-swap operands`):
/// in an `atomicMax`-on-float retry loop the new value, loaded before the loop, sits in `R5`
/// (`R7` with a per-thread address) from its load on, and the compare value is moved into
/// `R4` before every try (`ATOMG.E.CAS [R2], R4, R5`). Suite `warp_sum` computes its new value
/// at the top and keeps it in `R11`, `R10` beside it holding the compare value, set early
/// (`ATOMG.E.CAS [R2+0x8], R10, R11`); held-out `atomics_float` loads its new value into `R11`
/// and the compare value into `R10` before its retry loop.
fn cas_pairs(f: &Function, mut wt: Vec<u32>) -> Vec<u32> {
    for ins in &f.instrs {
        if ins.op != Opcode::Atom || ins.atom != crate::ir::AtomOp::Cas {
            continue;
        }
        if let Some(Operand::Reg(r)) = ins.src.get(2) {
            if let Some(x) = wt.get_mut(r.idx()) {
                if *x == 1 {
                    *x = 2;
                }
            }
        }
    }
    wt
}

/// Registers needed to run `v` in `order`: a first-fit assignment along the order (linear
/// scan, Poletto & Sarkar, TOPLAS 1999) of every value's live range, 64-bit values on an
/// aligned even/odd pair and `R1` reserved, as [`super::regalloc`] does for the whole
/// function; values in `live_out` stay to the end, values read before any definition (live
/// into the block) are placed first, widest first. Returns the highest register + 1.
fn pressure(wt: &[u32], odd: &[bool], v: &[VInstr], order: &[usize], live_out: &[u32]) -> u32 {
    use std::collections::{BTreeMap, BTreeSet};
    let nv = wt.len().max(1);
    let w = |x: u32| wt.get(x as usize % nv).copied().unwrap_or(0);
    let is_odd = |x: u32| odd.get(x as usize % nv).copied().unwrap_or(false);
    // last position (in `order`) at which each value is read; usize::MAX = live out
    let mut last_use: BTreeMap<u32, usize> = BTreeMap::new();
    let mut defined: BTreeSet<u32> = BTreeSet::new();
    let mut live_in: Vec<u32> = Vec::new();
    for (pos, &i) in order.iter().enumerate() {
        let Some(ins) = v.get(i) else {
            continue;
        };
        for &u in &ins.uses {
            last_use.insert(u, pos);
            if !defined.contains(&u) && !live_in.contains(&u) {
                live_in.push(u);
            }
        }
        for &d in &ins.defs {
            defined.insert(d);
        }
    }
    for &x in live_out {
        last_use.insert(x, usize::MAX);
        if !defined.contains(&x) && !live_in.contains(&x) {
            live_in.push(x);
        }
    }
    let sp = usize::from(STACK_POINTER);
    let mut busy: Vec<bool> = vec![false; sp + 1];
    busy[sp] = true;
    let mut at: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    let mut top = 0usize;
    let mut place = |x: u32, busy: &mut Vec<bool>, at: &mut BTreeMap<u32, (usize, usize)>| {
        let width = w(x) as usize;
        if width == 0 || at.contains_key(&x) {
            return;
        }
        // odd-register values ([`odd_registers`]) look at R1, R3, ... only
        let base = if width == 1 && is_odd(x) {
            first_free(busy, 1, 1, 2)
        } else {
            first_free(busy, 0, width, width)
        };
        mark(busy, base, width);
        at.insert(x, (base, width));
        top = top.max(base + width);
    };
    live_in.sort_by_key(|&x| std::cmp::Reverse(w(x)));
    for &x in &live_in {
        place(x, &mut busy, &mut at);
    }
    // the `IMAD.WIDE` multipliers ([`imad_wide_constants`]): one register per distinct value,
    // set by a `MOV` at the top of the basic block of its first reader (live from the first
    // instruction of that block in `order`; in a loop, at the top of the body) to its last
    // reader
    let mut konst: BTreeMap<u64, (Option<usize>, usize)> = BTreeMap::new();
    let mut first_block: BTreeMap<u64, usize> = BTreeMap::new();
    for (pos, &i) in order.iter().enumerate() {
        if let Some(ins) = v.get(i) {
            if let Some(c) = ins.konst {
                konst.entry(c).or_insert((None, 0)).1 = pos;
                first_block.entry(c).or_insert(ins.block);
            }
        }
    }
    let mut starts: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
    for (&c, &b) in &first_block {
        if let Some(pos) = order
            .iter()
            .position(|&i| v.get(i).is_some_and(|x| x.block == b))
        {
            starts.entry(pos).or_default().push(c);
        }
    }
    let mut ktop = 0usize;
    let take = |busy: &mut Vec<bool>, ktop: &mut usize| {
        let base = first_free(busy, 0, 1, 1);
        mark(busy, base, 1);
        *ktop = (*ktop).max(base + 1);
        base
    };
    let free = |x: u32, busy: &mut Vec<bool>, at: &mut BTreeMap<u32, (usize, usize)>| {
        if let Some((b, wd)) = at.remove(&x) {
            for r in busy.iter_mut().skip(b).take(wd) {
                *r = false;
            }
        }
    };
    for (pos, &i) in order.iter().enumerate() {
        let Some(ins) = v.get(i) else {
            continue;
        };
        for c in starts.get(&pos).into_iter().flatten() {
            if let Some(slot) = konst.get_mut(c) {
                if slot.0.is_none() {
                    slot.0 = Some(take(&mut busy, &mut ktop));
                }
            }
        }
        // a warp-aggregated atomic ([`aggregated_atomics`]): its reduction's temporaries
        // beside everything live here, its own value included (the first `SHFL` reads it)
        if ins.temps > 0 {
            let mut temps = Vec::new();
            for _ in 0..ins.temps {
                temps.push(take(&mut busy, &mut ktop));
            }
            for r in temps {
                if let Some(b) = busy.get_mut(r) {
                    *b = false;
                }
            }
        }
        // a vector store's fresh group ([`vector_store_groups`]), taken while the store's
        // operands are still held: the copies are made from them (a value computed for the
        // store, which ptxas computes into the group, is then counted twice: at most n - 1
        // registers over)
        if ins.group > 0 {
            let n = ins.group;
            ktop = ktop.max(first_free(&busy, 0, n, n) + n);
        }
        // operands whose last read is here free their registers for this instruction's results
        for &u in &ins.uses {
            if last_use.get(&u) == Some(&pos) && !ins.defs.contains(&u) {
                free(u, &mut busy, &mut at);
            }
        }
        if let Some(&(Some(r), _)) = ins.konst.and_then(|c| konst.get(&c)).filter(|k| k.1 == pos) {
            if let Some(b) = busy.get_mut(r) {
                *b = false;
            }
        }
        // an `atom.cas` ([`cas_operands`]): its uniform address in a register pair and its
        // compare/new values in aligned pairs, copied there after the operands dying
        // here are freed (a value live past it sits in its slot of the pair); the copies
        // are free again for its result
        if let Some(c) = &ins.cas {
            let mut temps: Vec<(usize, usize)> = Vec::new();
            let mut grab = |width: usize, step: usize, busy: &mut Vec<bool>| {
                let base = first_free(busy, 0, width, step);
                mark(busy, base, width);
                temps.push((base, width));
                base + width
            };
            let live_past: usize = c
                .data
                .iter()
                .filter(|&&u| last_use.get(&u).is_some_and(|&p| p > pos) && at.contains_key(&u))
                .map(|&u| w(u) as usize)
                .sum();
            let mut hi = 0;
            if c.uniform_addr {
                hi = hi.max(grab(2, 2, &mut busy));
            }
            if live_past == 0 {
                hi = hi.max(grab(c.width, 2, &mut busy));
            } else if c.width > live_past {
                let rest = c.width - live_past;
                hi = hi.max(grab(rest, rest, &mut busy));
            }
            ktop = ktop.max(hi);
            for (b, wd) in temps {
                for r in busy.iter_mut().skip(b).take(wd) {
                    *r = false;
                }
            }
        }
        for &d in &ins.defs {
            if ins.kills {
                free(d, &mut busy, &mut at);
            }
            place(d, &mut busy, &mut at);
            // a result nothing reads is dead at once
            if !last_use.contains_key(&d) {
                free(d, &mut busy, &mut at);
            }
        }
    }
    top.max(ktop) as u32
}

/// The unroll factor ptxas may apply to block `b` (module docs): [`UNROLL`] if `b` is on its
/// own a whole loop body whose exit test counts an induction variable stepped by an immediate,
/// without barriers, calls, atomics or `.pragma "nounroll"`, and with at most
/// [`UNROLL_MAX_BODY`] instructions besides its loads; 1 otherwise.
fn unroll_factor(f: &Function, ud: &UseDef, b: usize) -> u32 {
    let cfg = &f.cfg;
    // (one loop per header, ordered by header: a search, not a scan of every loop per block)
    let single = cfg
        .loops
        .binary_search_by_key(&b, |l| l.header as usize)
        .ok()
        .and_then(|i| cfg.loops.get(i))
        .is_some_and(|l| l.blocks.len() == 1 && l.latches == [b as u32]);
    let Some(blk) = cfg.blocks.get(b) else {
        return 1;
    };
    let body = f.instrs.get(blk.range()).unwrap_or(&[]);
    let plain = body.iter().all(|i| {
        !matches!(
            i.op,
            Opcode::Bar | Opcode::Atom | Opcode::Red | Opcode::BarWarp
        ) && i.call.is_none()
            && !i.mods.has(Mods::NOUNROLL)
    });
    let non_load = body.iter().filter(|i| !is_hoisted_load(i)).count();
    if !single || !plain || non_load > UNROLL_MAX_BODY {
        return 1;
    }
    // the exit test: the guard of the closing branch, set by a `setp` of the block reading a
    // register that the block steps by an immediate (`add`/`sub r, r, imm`)
    let Some(last) = body.last() else {
        return 1;
    };
    let Some(guard) = last.guard.map(|g| g.reg.0) else {
        return 1;
    };
    let stepped = |v: u32| {
        blk.range().any(|pc| {
            f.instrs.get(pc).is_some_and(|i| {
                matches!(i.op, Opcode::Add | Opcode::Sub)
                    && defs_of(ud, pc).contains(&v)
                    && i.src.iter().any(|o| matches!(o, Operand::Imm(_)))
                    && i.src
                        .iter()
                        .any(|o| matches!(o, Operand::Reg(r) if r.0 == v))
            })
        })
    };
    let counted = blk.range().any(|pc| {
        f.instrs.get(pc).is_some_and(|i| {
            i.op == Opcode::Setp
                && defs_of(ud, pc).contains(&guard)
                && ud
                    .uses
                    .get(pc)
                    .is_some_and(|u| u.iter().any(|&v| stepped(v)))
        })
    });
    if counted {
        UNROLL
    } else {
        1
    }
}

fn defs_of(ud: &UseDef, pc: usize) -> &[u32] {
    ud.defs.get(pc).map(Vec::as_slice).unwrap_or(&[])
}

/// Largest block ptxas if-converts (PTX instructions, not counting the branch around it):
/// `sim/testdata/ptxas_sched.py` (`if-conversion threshold`) skips a chain of 2, 4 or 8
/// blocks of one `ld.global`, N dependent `fma` and one `add` each with `@p bra`; the SASS
/// predicates them all (`@!P0 LDG`, no `BRA`) up to N = 18 (20 instructions) and keeps every
/// branch from N = 19.
pub const IF_CONVERT_MAX: usize = 20;

/// True if ptxas if-converts block `t`, the fall-through side of a conditional branch
/// (module docs, [`if_converted_regions`]): at most [`IF_CONVERT_MAX`] instructions, none of
/// them a terminator, barrier, fence, atomic or call, and not both a global/generic store and
/// a global/generic load that is not `.nc` (a load that may alias the store: the synthetic
/// hammocks of `ptxas_sched.py` with `ld.global` + `st.global` keep their branches, with
/// `ld.global.nc` + `st.global`, `ld.global` + `st.shared` or `ld.shared` + `st.global` they are
/// predicated, as in `transpose`'s SASS: `@!P2 LDG`, `@!P4 STS`, `@!P6 STG`).
fn if_convertible(f: &Function, t: &crate::ir::Block) -> bool {
    let body = f.instrs.get(t.range()).unwrap_or(&[]);
    let aliasing = |i: &Instr| matches!(i.space, Space::Global | Space::Generic);
    let store = body.iter().any(|i| i.op == Opcode::St && aliasing(i));
    let load = body
        .iter()
        .any(|i| is_hoisted_load(i) && aliasing(i) && !i.mods.has(Mods::NC));
    body.len() <= IF_CONVERT_MAX
        && !body.is_empty()
        && !(store && load)
        && body.iter().all(|i| {
            !i.op.is_terminator()
                && !is_region_boundary(i)
                && !matches!(i.op, Opcode::Ret | Opcode::Exit)
        })
}

/// The scheduling regions of `f` after ptxas's if-conversion: runs of blocks `A, T, L, T', L',
/// ...` where `A` ends with a conditional forward branch to `L` around its fall-through block
/// `T` (only entered from `A`, falling through into `L`, [`if_convertible`]) and `L` is
/// entered only from `A` and `T`. ptxas predicates `T` and schedules the run as one block, so
/// the loads of consecutive guarded blocks are in flight together (`transpose`: the four
/// guarded `ld.global` + `st.shared` blocks become `@!P4 LDG ... @!P0 LDG` issued back to back;
/// `reduce_sum`: both guarded loads before the first `FADD`). Every other block is a region
/// of its own. Returns, per region, its blocks in order.
pub fn if_converted_regions(f: &Function) -> Vec<Vec<usize>> {
    let cfg = &f.cfg;
    let nb = cfg.blocks.len();
    let hammock = |a: usize| -> bool {
        let (Some(blk), Some(t), Some(l)) = (
            cfg.blocks.get(a),
            cfg.blocks.get(a + 1),
            cfg.blocks.get(a + 2),
        ) else {
            return false;
        };
        let Some(last) = f.instrs.get(blk.last() as usize) else {
            return false;
        };
        last.is_branch()
            && last.guard.is_some()
            && last.branch_target() == Some(l.start)
            && cfg.preds.get(a + 1).is_some_and(|p| p == &[a as u32])
            && cfg.preds.get(a + 2).is_some_and(|p| {
                let mut p = p.clone();
                p.sort_unstable();
                p == [a as u32, a as u32 + 1]
            })
            && if_convertible(f, t)
    };
    let mut out = Vec::new();
    let mut b = 0;
    while b < nb {
        let mut region = vec![b];
        let mut cur = b;
        while hammock(cur) {
            region.push(cur + 1);
            region.push(cur + 2);
            cur += 2;
        }
        b = cur + 1;
        out.push(region);
    }
    out
}

/// The instructions of an if-converted region (blocks `region`, [`if_converted_regions`]) as
/// one block: the branches around the predicated blocks are dropped, and a predicated
/// instruction reads the branch's predicate and does not end the life of what it writes.
fn region_vinstrs(
    f: &Function,
    ud: &UseDef,
    region: &[usize],
    kc: &[Option<u64>],
    cas: &[Option<Cas>],
    agg: &[usize],
    groups: &[usize],
) -> Vec<VInstr> {
    let cfg = &f.cfg;
    let mut out = Vec::new();
    let mut guard: Option<u32> = None;
    for (k, &b) in region.iter().enumerate() {
        let Some(blk) = cfg.blocks.get(b) else {
            continue;
        };
        let mut v = block_vinstrs(f, ud, blk.range());
        for (ins, pc) in v.iter_mut().zip(blk.range()) {
            ins.konst = kc.get(pc).copied().flatten();
            ins.cas = cas.get(pc).cloned().flatten();
            ins.temps = agg.get(pc).copied().unwrap_or(0);
            ins.group = groups.get(pc).copied().unwrap_or(0);
            ins.block = k;
        }
        let predicated = k % 2 == 1;
        if predicated {
            for ins in &mut v {
                if let Some(g) = guard {
                    if !ins.uses.contains(&g) {
                        ins.uses.push(g);
                    }
                }
                ins.kills = false;
            }
        } else if k + 1 < region.len() {
            // the branch around the next predicated block
            guard = f
                .instrs
                .get(blk.last() as usize)
                .and_then(|i| i.guard)
                .map(|g| g.reg.0);
            v.pop();
        }
        out.extend(v);
    }
    out
}

/// Registers per thread ptxas's scheduler needs for `f` (module docs), within `budget`: an
/// unrolled body whose pressure exceeds the budget is unrolled less (4, then 2, then not), and
/// the result never exceeds the budget (ptxas then schedules less aggressively).
pub fn scheduled_registers(f: &Function, ud: &UseDef, live: &Liveness, budget: u32) -> u32 {
    let overhead = RESERVED_TOP;
    let uni = super::uniform::uniform_values(f);
    let wt = &cas_pairs(f, weights(f, &uni));
    let odd = &odd_registers(f, &uni);
    let kc = &imad_wide_constants(f, &uni);
    let cas = &cas_operands(f, &uni);
    let agg = &aggregated_atomics(f, &uni);
    let groups = &vector_store_groups(f, wt);
    let nv = f.regs.len();
    let mut max = 0u32;
    for region in if_converted_regions(f) {
        let (Some(&b), Some(&end)) = (region.first(), region.last()) else {
            continue;
        };
        let body = region_vinstrs(f, ud, &region, kc, cas, agg, groups);
        let live_out: Vec<u32> = live
            .block_out
            .get(end)
            .map(|s| s.iter().map(|x| x as u32).collect())
            .unwrap_or_default();
        let mut u = if region.len() == 1 {
            unroll_factor(f, ud, b)
        } else {
            1
        };
        let p = loop {
            let (v, last) = if u > 1 {
                unrolled(&body, nv, u)
            } else {
                (body.clone(), (0..nv as u32).collect())
            };
            let out: Vec<u32> = live_out
                .iter()
                .map(|&x| last.get(x as usize).copied().unwrap_or(x))
                .collect();
            let p = pressure(wt, odd, &v, &list_schedule(&v), &out);
            if u <= 1 || p + overhead <= budget {
                break p;
            }
            u /= 2;
        };
        max = max.max(p);
    }
    if max == 0 {
        0
    } else {
        (max + overhead).min(budget)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{analyze, vreg_usedef};
    use crate::ptx::parser::parse_unscheduled;

    fn kernel(body: &str) -> Function {
        let src = format!(
            ".version 7.0\n.target sm_75\n.address_size 64\n.entry k(.param .u64 p, .param .u32 n)\n\
             {{\n.reg .pred %p<3>;\n.reg .b32 %r<9>;\n.reg .f32 %f<40>;\n.reg .b64 %rd<9>;\n\
             {body}\n}}\n"
        );
        let m = parse_unscheduled("t.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
        m.function("k").unwrap().clone()
    }

    fn op_order(f: &Function, b: usize) -> Vec<Opcode> {
        let ud = vreg_usedef(f);
        hoisted_order(f, &ud, f.cfg.blocks[b].range())
            .into_iter()
            .map(|pc| f.instrs[pc].op)
            .collect()
    }

    /// A single-block loop: `loads` loads per iteration summed into %f1, counter %r3 stepped by
    /// `step`; `pragma` puts `.pragma "nounroll"` at its head.
    fn loop_kernel(loads: usize, step: &str, pragma: bool) -> Function {
        let mut body = String::from(
            "ld.param.u64 %rd1, [p];\nld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\n\
             mul.wide.u32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd1, %rd3;\nmov.f32 %f1, 0f00000000;\n\
             mov.u32 %r3, 0;\nL1:\n",
        );
        if pragma {
            body.push_str(".pragma \"nounroll\";\n");
        }
        for j in 0..loads {
            body.push_str(&format!(
                "ld.global.f32 %f{}, [%rd4+{}];\nadd.f32 %f1, %f1, %f{};\n",
                10 + j,
                4 * j,
                10 + j
            ));
        }
        body.push_str(&format!(
            "add.s64 %rd4, %rd4, 1024;\nadd.s32 %r3, %r3, {step};\nsetp.lt.s32 %p1, %r3, %r1;\n\
             @%p1 bra L1;\nst.global.f32 [%rd1], %f1;\nret;"
        ));
        kernel(&body)
    }

    fn loop_block(f: &Function) -> usize {
        f.cfg.loops[0].header as usize
    }

    #[test]
    fn loads_issue_before_the_arithmetic_that_waits_for_them() {
        // program order alternates load / add; ptxas (and the list scheduler) issues all loads
        // of the block first
        let f = loop_kernel(4, "1", false);
        let ops = op_order(&f, loop_block(&f));
        let first_add = ops.iter().position(|&o| o == Opcode::Add).unwrap();
        let last_load = ops.iter().rposition(|&o| o == Opcode::Ld).unwrap();
        assert!(last_load < first_add, "{ops:?}");
        assert_eq!(ops.last(), Some(&Opcode::Bra));
    }

    /// Four copies of `y += a[k]; *out = y` through a pointer chain (`gemm`'s `c[i][j] +=`):
    /// `ld_mod` is the loads' modifier and `st_space` the stores' space. Returns, per copy, the
    /// position in the issue order of its pointer step (`add.s64`) and of its store.
    fn chained_copies(ld_mod: &str, st_space: &str) -> Vec<(usize, usize)> {
        let mut body = String::from(
            "ld.param.u64 %rd1, [p];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 4;
             add.s64 %rd3, %rd1, %rd2;
mov.f32 %f1, 0f00000000;
",
        );
        for k in 0..4 {
            body.push_str(&format!(
                "add.s64 %rd{n}, %rd{c}, 4096;
ld.global{ld_mod}.f32 %f{v}, [%rd{n}];
                 add.f32 %f1, %f1, %f{v};
st.{st_space}.f32 [%rd1], %f1;
",
                n = 4 + k,
                c = 3 + k,
                v = 10 + k
            ));
        }
        body.push_str("ret;");
        let f = kernel(&body);
        let ud = vreg_usedef(&f);
        let order = hoisted_order(&f, &ud, f.cfg.blocks[0].range());
        let pos = |pc: usize| order.iter().position(|&x| x == pc).expect("scheduled");
        let steps: Vec<usize> = (0..f.instrs.len())
            .filter(|&pc| f.instrs[pc].op == Opcode::Add && f.instrs[pc].ty.bits() == 64)
            .skip(1)
            .collect();
        let stores: Vec<usize> = (0..f.instrs.len())
            .filter(|&pc| f.instrs[pc].op == Opcode::St)
            .collect();
        assert_eq!((steps.len(), stores.len()), (4, 4));
        steps
            .iter()
            .zip(&stores)
            .map(|(&a, &s)| (pos(a), pos(s)))
            .collect()
    }

    #[test]
    fn address_arithmetic_runs_one_store_ahead_of_aliasing_loads() {
        // plain global loads behind global stores: copy k's pointer step waits for copy k-2's
        // store (ptxas's SASS of `gemm` and `stream_triad` computes the next copy's address
        // just before the current store, never further ahead)
        let c = chained_copies("", "global");
        for k in 2..4 {
            assert!(c[k].0 > c[k - 2].1, "copy {k}: {c:?}");
        }
        assert!(c[1].0 < c[0].1, "one copy ahead: {c:?}");
        // read-only loads, or stores to shared memory, alias nothing the loads read: every
        // pointer step goes ahead of the first store
        for c in [
            chained_copies(".nc", "global"),
            chained_copies("", "shared"),
        ] {
            assert!(c.iter().all(|&(a, _)| a < c[0].1), "{c:?}");
        }
    }

    #[test]
    fn stores_sink_below_independent_work() {
        let f = kernel(
            "ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\nst.global.u32 [%rd1], %r1;\n\
             cvt.rn.f32.u32 %f1, %r1;\nsqrt.approx.f32 %f2, %f1;\nst.global.f32 [%rd1+4], %f2;\nret;",
        );
        let ops = op_order(&f, 0);
        // when both are ready, the conversion (longer path to the end) goes before the first
        // store, which nothing waits for
        let st = ops.iter().position(|&o| o == Opcode::St).unwrap();
        let cvt = ops.iter().position(|&o| o == Opcode::Cvt).unwrap();
        assert!(cvt < st, "{ops:?}");
    }

    #[test]
    fn constant_step_loop_is_unrolled_4x_register_step_and_pragma_are_not() {
        let f = loop_kernel(2, "1", false);
        assert_eq!(unroll_factor(&f, &vreg_usedef(&f), loop_block(&f)), UNROLL);
        let g = loop_kernel(2, "%r1", false);
        assert_eq!(unroll_factor(&g, &vreg_usedef(&g), loop_block(&g)), 1);
        let h = loop_kernel(2, "1", true);
        assert_eq!(unroll_factor(&h, &vreg_usedef(&h), loop_block(&h)), 1);
    }

    #[test]
    fn unrolled_loads_raise_the_count_and_more_loads_raise_it_more() {
        // 4 copies of the body each keep their loads in flight: the estimate grows with the
        // loads per iteration (monotone) and is well above the program-order allocation
        let mut last = 0;
        for loads in [1, 2, 4, 8] {
            let f = loop_kernel(loads, "1", false);
            let a = analyze(&f);
            assert!(a.alloc.registers >= a.alloc.span);
            assert!(
                a.alloc.registers >= last,
                "{loads} loads: {}",
                a.alloc.registers
            );
            last = a.alloc.registers;
        }
        let f = loop_kernel(8, "1", false);
        let a = analyze(&f);
        // 4 x 8 loaded values are live together
        assert!(
            a.alloc.registers >= 32 + RESERVED_TOP,
            "{}",
            a.alloc.registers
        );
        assert!(a.alloc.span < 32);
    }

    #[test]
    fn estimate_never_exceeds_the_budget() {
        let f = loop_kernel(30, "1", false);
        let ud = vreg_usedef(&f);
        let live = crate::analysis::Liveness::compute(&f.cfg, &ud, f.regs.len());
        for budget in [8, 16, 32, 63] {
            assert!(scheduled_registers(&f, &ud, &live, budget) <= budget);
        }
        let a = analyze(&f);
        assert!(a.alloc.registers <= BUDGET.max(a.alloc.span));
        const { assert!(BUDGET <= SM20_LIMIT && BUDGET <= SM75_BUDGET) };
    }

    #[test]
    fn small_guarded_blocks_are_if_converted_into_one_region() {
        // two guarded loads (reduce_sum's shape): one region, both loads in flight together
        let hammock = |st: &str| {
            kernel(&format!(
                "ld.param.u64 %rd1, [p];\nld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\n\
                 mul.wide.u32 %rd3, %r2, 4;\nadd.s64 %rd4, %rd1, %rd3;\nmov.f32 %f1, 0f00000000;\n\
                 setp.ge.u32 %p1, %r2, %r1;\n@%p1 bra L1;\nld.global.f32 %f2, [%rd4];\n\
                 add.f32 %f1, %f1, %f2;\n{st}L1:\nadd.s32 %r3, %r2, 32;\n\
                 setp.ge.u32 %p2, %r3, %r1;\n@%p2 bra L2;\nld.global.f32 %f3, [%rd4+128];\n\
                 add.f32 %f1, %f1, %f3;\nL2:\nst.global.f32 [%rd1], %f1;\nret;"
            ))
        };
        let f = hammock("");
        assert_eq!(if_converted_regions(&f), vec![vec![0, 1, 2, 3, 4]]);
        // a global store beside a global load that may alias it keeps the first branch
        let g = hammock("st.global.f32 [%rd4+4], %f2;\n");
        assert_eq!(
            if_converted_regions(&g),
            vec![vec![0], vec![1], vec![2, 3, 4]]
        );
    }

    #[test]
    fn immediate_moves_take_no_register() {
        let f = kernel(
            "mov.f32 %f1, 0f3F800000;\nmov.u32 %r1, %tid.x;\ncvt.rn.f32.u32 %f2, %r1;\n\
             add.f32 %f3, %f2, %f1;\nld.param.u64 %rd1, [p];\nst.global.f32 [%rd1], %f3;\nret;",
        );
        let w = weights(&f, &crate::analysis::uniform::uniform_values(&f));
        let idx = |n: &str| f.regs.iter().position(|r| r.name == n).unwrap();
        assert_eq!(w[idx("%f1")], 0);
        assert_eq!(w[idx("%f2")], 1);
    }

    #[test]
    fn imad_wide_multiplier_of_a_parameter_pointer_takes_a_register() {
        // `IMAD.WIDE R, R, Rk, c[0x0][...]`: the 4 is set by `MOV Rk, 0x4` (ptxas_sched.py 1d)
        let f = kernel(
            "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
             mul.wide.s32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
             ld.global.u64 %rd5, [%rd4];\nmul.wide.s32 %rd6, %r1, 4;\nadd.s64 %rd7, %rd5, %rd6;\n\
             st.global.u32 [%rd7], %r1;\nret;",
        );
        let kc = imad_wide_constants(&f, &crate::analysis::uniform::uniform_values(&f));
        let at = |n: &str| {
            f.instrs
                .iter()
                .position(
                    |i| matches!(i.dst.first(), Some(Operand::Reg(r)) if f.regs[r.idx()].name == n),
                )
                .unwrap()
        };
        assert_eq!(kc[at("%rd3")], Some(4));
        // added to a loaded (per-thread) pointer: `IMAD.WIDE R, R, 0x4, R` folds it
        assert_eq!(kc[at("%rd6")], None);
    }

    #[test]
    fn uniform_base_plus_offset_address_takes_no_register() {
        // %rd2 = param + per-thread offset, used only as a store address: [R.64+UR] on sm_75
        let f = kernel(
            "ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\ncvt.s64.s32 %rd3, %r1;\n\
             add.s64 %rd2, %rd1, %rd3;\nst.global.u32 [%rd2], %r1;\nret;",
        );
        let w = weights(&f, &crate::analysis::uniform::uniform_values(&f));
        let idx = |n: &str| f.regs.iter().position(|r| r.name == n).unwrap();
        assert_eq!(w[idx("%rd1")], 0, "uniform parameter");
        assert_eq!(w[idx("%rd2")], 0, "folded address");
        assert_eq!(w[idx("%rd3")], 2, "per-thread offset");
        assert_eq!(w[idx("%r1")], 1);
    }

    #[test]
    fn uniform_address_integer_reductions_are_warp_aggregated() {
        let f = kernel(
            "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
             red.global.add.u32 [%rd2], %r1;\nred.global.inc.u32 [%rd2], %r1;\n\
             mov.b32 %f1, %r1;\nred.global.add.f32 [%rd2], %f1;\n\
             cvt.u64.u32 %rd3, %r1;\nred.global.add.u64 [%rd2], %rd3;\n\
             atom.global.max.s32 %r2, [%rd2], %r1;\natom.global.or.b32 %r3, [%rd2], %r1;\n\
             mul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd5, %rd2, %rd4;\n\
             red.global.add.u32 [%rd5], %r1;\nst.global.u32 [%rd2], %r3;\nret;",
        );
        let agg = aggregated_atomics(&f, &crate::analysis::uniform::uniform_values(&f));
        let got: Vec<usize> = f
            .instrs
            .iter()
            .zip(&agg)
            .filter(|(i, _)| matches!(i.op, Opcode::Red | Opcode::Atom))
            .map(|(_, &a)| a)
            .collect();
        // add.u32 yes; inc, f32, u64 no; max with its result unused yes; or whose result
        // is stored no; per-thread address no
        let k = AGGREGATE_TEMPS;
        assert_eq!(got, vec![k, 0, 0, 0, k, 0, 0]);
    }

    #[test]
    fn warp_aggregated_reduction_holds_its_temporaries_beside_the_live_values() {
        // %r1 in R0 (R1 is the stack pointer): the reduction's six temporaries take R2..R7,
        // so 8 + 2 reserved; `inc` is not aggregated: R0 only, 1 + 2
        let with = |op: &str| {
            let f = kernel(&format!(
                "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, %tid.x;\n\
                 red.global.{op}.u32 [%rd2], %r1;\nret;"
            ));
            let ud = crate::analysis::vreg_usedef(&f);
            let live = Liveness::compute(&f.cfg, &ud, f.regs.len());
            scheduled_registers(&f, &ud, &live, BUDGET)
        };
        assert_eq!(with("add"), 8 + RESERVED_TOP);
        assert_eq!(with("inc"), 1 + RESERVED_TOP);
    }

    #[test]
    fn vector_store_of_values_out_of_their_loaded_slots_needs_a_fresh_group() {
        let groups = |store: &str| {
            let f = kernel(&format!(
                "ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\nmul.wide.u32 %rd2, %r1, 16;\n\
                 add.s64 %rd3, %rd1, %rd2;\nld.global.v4.f32 {{%f1, %f2, %f3, %f4}}, [%rd3];\n\
                 add.f32 %f5, %f1, %f2;\nadd.f32 %f6, %f3, %f4;\n{store}\nret;"
            ));
            let wt = weights(&f, &crate::analysis::uniform::uniform_values(&f));
            let g = vector_store_groups(&f, &wt);
            f.instrs
                .iter()
                .zip(g)
                .filter(|(i, _)| i.op == Opcode::St)
                .map(|(_, g)| g)
                .sum::<usize>()
        };
        // dyn_align's reversed quad: copied into a fresh aligned quad
        assert_eq!(groups("st.global.v4.f32 [%rd3], {%f4, %f3, %f2, %f1};"), 4);
        // the loaded quad in its own order: stored from where it is
        assert_eq!(groups("st.global.v4.f32 [%rd3], {%f1, %f2, %f3, %f4};"), 0);
        // values computed for the store: computed into the group
        assert_eq!(groups("st.global.v2.f32 [%rd3], {%f5, %f6};"), 0);
        // a value named twice
        assert_eq!(groups("st.global.v2.f32 [%rd3], {%f5, %f5};"), 2);
    }
}
