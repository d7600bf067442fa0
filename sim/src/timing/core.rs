//! The cycle-level SM pipeline and the GPU run loop.
//!
//! Per SM and cycle, stages run in reverse pipeline order (as GPGPU-Sim's
//! `shader_core_ctx::cycle()`), so an instruction advances at most one stage per cycle:
//!
//! 1. **design tick**, then **completion**: results whose latency elapsed join their
//!    sub-core's writeback queue.
//! 2. **writeback**: each result register gets a bank port (writes have priority over reads,
//!    GPGPU-Sim `opndcoll_rfu_t::writeback` / seed 003 §II "writes always have priority");
//!    the value is written into the RF design; when all are written the scoreboard is
//!    released.
//! 3. **operand read**: per bank, the oldest queued read is granted if a port is left, the
//!    collector's input port is free and the crossbar has capacity (seed 003 §II: "the oldest
//!    request of each queue is granted access by the arbiter unit only if the port of the OCU
//!    and the bank it needs are available"). The value is read from the design at grant and
//!    lands in the collector the next cycle (plus any design delay).
//! 4. **dispatch**: a collector whose operands are all present dispatches to a free execution
//!    unit; the functional model executes the instruction at this point, reading the
//!    collected values; its results are buffered until writeback. Memory instructions get
//!    their timing from the [`MemoryTiming`] model (or the design's `global_access`).
//! 5. **issue**: each sub-core's scheduler (LRR / GTO / two-level) picks warps whose next
//!    instruction passes the scoreboard (RAW/WAW on registers and predicates), asks the
//!    design for a collector unit and queues the operand reads at the banks the design routes
//!    them to.
//!
//! A warp has at most one instruction between issue and dispatch: its next instruction (and
//! PC) is known only after the functional model executed the previous one. With 2 collector
//! units per sub-core this costs little (each instruction holds a collector for ≥ 2 cycles).
//!
//! CTAs are started one per SM per cycle while the SM's occupancy limits (CTAs, threads,
//! warps, registers at allocation granularity, shared memory) and the design's
//! `can_allocate` allow (GPGPU-Sim `issue_block2core`). When no SM makes progress in a cycle,
//! the loop jumps to the next cycle at which something is scheduled to happen.

use std::cmp::Reverse;
use std::collections::VecDeque;

use super::activity::{
    fold_series, Activity, CoreActivity, MemActivity, Ratio, RfActivity, SeriesCounter,
};
use super::config::{ConfigError, GpuConfig, OpTiming, SchedulerPolicy};
use super::functional::{
    FunctionalWarpModel, InstrInfo, MemOpKind, MemSpaceKind, ModelError, UnitClass, WarpKey,
    WarpMemAccess, WarpRegisters,
};
use super::memory::{MemoryHierarchy, MemoryTiming};
use super::rf::{
    CollectorChoice, Delay, GlobalAccess, MemFetch, MemRoute, OperandRef, RegId,
    RegisterFileDesign, ReleaseCause, RfCtx, RfError, RfStats, Route, WarpSlot, WriteRef,
    MERGE_READ,
};
use crate::analysis::{Analysis, ArchReg};
use crate::barrier::{Arrival, CtaBarriers};

/// Why a timed run failed.
#[derive(Debug, thiserror::Error)]
pub enum TimingError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("functional model, warp {warp}: {source}")]
    Model {
        warp: WarpKey,
        #[source]
        source: ModelError,
    },
    #[error("register file design: {0}")]
    Rf(#[from] RfError),
    #[error("a CTA ({threads} threads, {regs} registers/thread, {shared} B shared) does not fit on an empty SM: {why}")]
    CtaTooLarge {
        threads: u32,
        regs: u32,
        shared: u32,
        why: String,
    },
    #[error("design layout: {0}")]
    Layout(String),
    #[error("instruction at pc {pc} uses register R{reg}; the scoreboard supports R0..R255")]
    RegisterRange { pc: u32, reg: u16 },
    #[error("deadlock at cycle {cycle}: {live_warps} warps resident and nothing scheduled (barrier never completed?)")]
    Deadlock { cycle: u64, live_warps: u32 },
    #[error("cycle limit of {limit} reached")]
    CycleLimit { limit: u64 },
    #[error("cycle limit {limit} is above the largest supported, {max} (2^40)")]
    CycleLimitTooLarge { limit: u64, max: u64 },
}

/// Options of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Abort after this many cycles (runaway kernels); at most [`MAX_CYCLES`].
    pub max_cycles: u64,
    /// Register occupancy per window of this many cycles (`RfActivity::register_series`;
    /// 0: not recorded).
    pub series_window: u64,
}

/// The largest `max_cycles` a run accepts: [`Events`] keeps cycles in 41 bits, so every
/// event a run can reach (and any time up to twice this) keeps its order.
pub const MAX_CYCLES: u64 = 1 << 40;

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            max_cycles: MAX_CYCLES,
            series_window: 0,
        }
    }
}

type RegMask = [u64; 4];

#[inline]
fn mask_set(m: &mut RegMask, r: u16) {
    m[usize::from(r >> 6)] |= 1 << (r & 63);
}

/// Release and reuse tables of one function, copied from its [`Analysis`].
#[derive(Clone, Debug, Default)]
struct FuncTables {
    pir: Vec<Vec<u16>>,
    dead_dst: Vec<Vec<u16>>,
    pbr: Vec<Vec<u16>>,
    uses: Vec<Vec<u32>>,
    defs: Vec<Vec<u32>>,
    reuse_src: Vec<Vec<Option<u32>>>,
    reuse_dst: Vec<Vec<Option<u32>>>,
}

fn gprs(v: &[ArchReg]) -> Vec<u16> {
    v.iter()
        .filter_map(|a| match a {
            ArchReg::R(r) => Some(*r),
            ArchReg::P(_) | ArchReg::U(_) => None,
        })
        .collect()
}

impl FuncTables {
    fn from_analysis(a: &Analysis) -> FuncTables {
        FuncTables {
            pir: a.release.pir.iter().map(|v| gprs(v)).collect(),
            dead_dst: a.release.dead_dst.iter().map(|v| gprs(v)).collect(),
            pbr: a.release.pbr.iter().map(|v| gprs(v)).collect(),
            uses: a.arch_ud.uses.clone(),
            defs: a.arch_ud.defs.clone(),
            reuse_src: a.reuse.src.clone(),
            reuse_dst: a.reuse.dst.clone(),
        }
    }

    fn reuse(units: &[Vec<u32>], dist: &[Vec<Option<u32>>], pc: u32, reg: u16) -> Option<u32> {
        let u = units.get(pc as usize)?;
        let k = u.binary_search(&u32::from(reg)).ok()?;
        dist.get(pc as usize)?.get(k).copied().flatten()
    }
}

/// An operand slot of a collector unit.
#[derive(Clone, Copy, Debug)]
struct OpSlot {
    reg: u16,
    granted: bool,
    ready_at: u64,
    last_use: bool,
    reuse: Option<u32>,
    values: [u32; 32],
}

impl OpSlot {
    const EMPTY: OpSlot = OpSlot {
        reg: 0,
        granted: false,
        ready_at: 0,
        last_use: false,
        reuse: None,
        values: [0; 32],
    };
}

/// A collector unit; 64-byte aligned: the dispatch check reads one cache line per collector.
#[derive(Clone, Debug)]
#[repr(align(64))]
struct Collector {
    busy: bool,
    slot: u16,
    /// The instruction held ([`Shared::intern`] index).
    sid: Option<u32>,
    /// Operand slots; the first `nops` belong to the instruction held (the others keep
    /// stale contents, so that allocating a collector writes no value arrays).
    ops: Vec<OpSlot>,
    nops: usize,
    /// Operands not granted yet.
    pending: u32,
    /// All granted operands present at this cycle.
    ready_at: u64,
    /// Allocation order (oldest dispatches first).
    seq: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum StallKind {
    Issued,
    Idle,
    NoInstruction,
    Scoreboard,
    Memory,
    CollectorFull,
    Barrier,
}

const N_POOLS: usize = 5;

/// A FIFO of queued operand reads (collector, operand) with a power-of-two capacity: a
/// push and a pop are an index mask, no wrap test (the standard library's `VecDeque`
/// tests for wrap-around and growth on every push). Grows (doubling) if ever full.
#[derive(Clone, Debug)]
struct Ring {
    buf: Vec<(u16, u8)>,
    head: usize,
    len: usize,
}

impl Ring {
    fn with_capacity(n: usize) -> Ring {
        Ring {
            buf: vec![(0, 0); n.max(2).next_power_of_two()],
            head: 0,
            len: 0,
        }
    }
    #[inline]
    fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    fn front(&self) -> Option<&(u16, u8)> {
        if self.len == 0 {
            None
        } else {
            self.buf.get(self.head)
        }
    }
    #[inline]
    fn pop_front(&mut self) {
        if self.len > 0 {
            self.head = (self.head + 1) & (self.buf.len() - 1);
            self.len -= 1;
        }
    }
    #[inline]
    fn push_back(&mut self, x: (u16, u8)) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let m = self.buf.len() - 1;
        self.buf[(self.head + self.len) & m] = x;
        self.len += 1;
    }
    #[cold]
    fn grow(&mut self) {
        let n = self.buf.len();
        let mut b = Vec::with_capacity(2 * n);
        b.extend((0..self.len).map(|k| self.buf[(self.head + k) & (n - 1)]));
        b.resize(2 * n, (0, 0));
        self.buf = b;
        self.head = 0;
    }
}

/// One sub-core. The fields the per-cycle stage checks read (`wake_at`, `wb_q`'s length,
/// the counters, `dirty`, `last_stall`) come first in one cache line (`repr(C)`, 64-byte
/// aligned): a cycle of an idle sub-core touches nothing else. What the scheduler reads
/// next (`ready`, `waiting`, `free_mask`, `last_issued`, the collectors) fills the second.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
struct SubCore {
    /// Earliest cycle a blocked warp unblocks by itself (branch redirect).
    wake_at: u64,
    wb_q: VecDeque<usize>,
    /// Operand reads queued in `bank_q` (all banks).
    queued_reads: u32,
    /// Collectors with `busy` set.
    busy_collectors: u32,
    /// Bit `i`: collector `i` is busy with every operand granted (`pending == 0`), a
    /// dispatch candidate once `ready_at` is reached (collectors ≤ 64, checked by the
    /// configuration). With none, the dispatch stage only counts operand waits.
    granted: u64,
    /// Something that can change an issue decision happened since the last evaluation.
    dirty: bool,
    last_stall: StallKind,
    /// Bit `s` set: warp slot `s` (< 64) is resident here and its [`Gate`] verdict is free
    /// to issue (the redirect wait aside). Kept by [`Sm::refresh_gate`]; read by the GTO
    /// scheduler ([`Sm::issue_gto`]) instead of scanning every warp.
    ready: u64,
    /// Bit `s` set: warp slot `s` (< 64) may be in a redirect wait (`no_issue_until` was
    /// set); cleared lazily once the wait is over.
    waiting: u64,
    free_mask: u64,
    last_issued: Option<u16>,
    collectors: Vec<Collector>,
    bank_q: Vec<Ring>,
    /// The cycle `bank_ports_used` counts; a stage that finds an older one clears the
    /// counts first (no per-cycle reset of sub-cores whose banks are idle).
    ports_cycle: u64,
    /// Port uses per bank in cycle `ports_cycle` (banks ≤ 64, checked in [`Sm::new`]).
    bank_ports_used: [u8; 64],
    /// Resident warps of the sub-core, oldest first (ages only grow, so a launch appends).
    by_age: Vec<u16>,
    /// next free cycle per unit, per pool (Sp, Int, Sfu, Dp, Tensor).
    units: [Vec<u64>; N_POOLS],
    warps: Vec<u16>,
    active_set: Vec<u16>,
    order: Vec<u16>,
    /// Scratch: GTO sort keys.
    keys: Vec<(bool, Reverse<u8>, u64, u16)>,
}

/// Queue tag of a read of the w-merge collector slot (a `bank_q` entry's collector).
const MERGE_COL: u16 = u16::MAX;

/// The w-merge collector slot of an SM (seed 000 §3: "one dedicated operand collector
/// slot"): one load at a time whose result the design builds from registers it reads through
/// the bank arbitration of the load's sub-core ([`MemRoute::Merge`]).
#[derive(Clone, Copy, Debug)]
struct MergeSlot {
    busy: bool,
    warp: WarpSlot,
    func: u32,
    pc: u32,
    /// The load's result buffer, scheduled once the reads are done.
    wb: usize,
    /// Reads not granted yet.
    pending: u8,
    /// When the last granted read's value is present.
    ready_at: u64,
    /// Shift/OR cycles after the reads.
    latency: u32,
}

impl MergeSlot {
    const IDLE: MergeSlot = MergeSlot {
        busy: false,
        warp: WarpSlot {
            slot: 0,
            sub_core: 0,
        },
        func: 0,
        pc: 0,
        wb: 0,
        pending: 0,
        ready_at: 0,
        latency: 0,
    };
}

/// The cycles a design's [`Delay`] adds beyond `from` (the cycle the access would be ready
/// without it): none, a fixed count, or until a memory fetch arrives, after its victim's
/// write (timed, not waited for), plus the fetch's extra cycles.
#[inline(always)]
fn delay_cycles<M: MemoryTiming>(
    delay: Delay,
    mem: &mut M,
    (now, from, sm): (u64, u64, u32),
    act: &mut MemActivity,
) -> u64 {
    match delay {
        Delay::None => 0,
        Delay::Cycles(c) => u64::from(c),
        Delay::Memory {
            fetch,
            extra,
            victim,
        } => {
            memory_fetch(mem, now, sm, (&fetch, victim), act).saturating_sub(from)
                + u64::from(extra)
        }
    }
}

/// A design's memory fetch after its victim's write: the cycle the fetched data arrives.
#[cold]
fn memory_fetch<M: MemoryTiming>(
    mem: &mut M,
    now: u64,
    sm: u32,
    (fetch, victim): (&MemFetch, Option<MemFetch>),
    act: &mut MemActivity,
) -> u64 {
    if let Some(v) = victim {
        mem.fetch(now, sm, &v, act);
    }
    mem.fetch(now, sm, fetch, act)
}

/// Queue tag of a bank access of an instruction served by the design's tagged array
/// ([`MemRoute::Array`]); the entry's second field is its [`ArraySlots`] index.
const ARRAY_COL: u16 = u16::MAX - 1;

/// Memory instructions served by a design's tagged array (seed 004) whose line accesses
/// wait in the bank queues: each completes one cycle after its last access is granted (at
/// the earliest at the ready cycle it started with).
#[derive(Clone, Debug, Default)]
struct ArraySlots {
    /// (result buffer, accesses not granted yet, ready cycle) per slot.
    slots: Vec<(usize, u16, u64)>,
    free: Vec<u8>,
}

impl ArraySlots {
    /// Most instructions in flight at once (the queue tag holds the index in a byte).
    const CAP: usize = 256;

    /// A slot for result buffer `wb` with `accesses` line accesses, ready at `ready` at the
    /// earliest; `None` when every slot is taken.
    fn start(&mut self, wb: usize, accesses: u16, ready: u64) -> Option<u8> {
        let k = match self.free.pop() {
            Some(k) => k,
            None if self.slots.len() < Self::CAP => {
                self.slots.push((0, 0, 0));
                (self.slots.len() - 1) as u8
            }
            None => return None,
        };
        self.slots[usize::from(k)] = (wb, accesses, ready);
        Some(k)
    }

    /// Access of slot `k` granted at `now`: the (result buffer, completion cycle) when it
    /// was the last one.
    fn grant(&mut self, k: u8, now: u64) -> Option<(usize, u64)> {
        let s = self.slots.get_mut(usize::from(k))?;
        s.1 = s.1.saturating_sub(1);
        s.2 = s.2.max(now + 1);
        if s.1 > 0 {
            return None;
        }
        self.free.push(k);
        Some((s.0, s.2))
    }
}

impl SubCore {
    /// Makes `bank_ports_used` count cycle `now` (cleared if it counted an earlier one).
    #[inline(always)]
    fn ports_at(&mut self, now: u64) {
        if self.ports_cycle != now {
            self.ports_cycle = now;
            self.bank_ports_used = [0; 64];
        }
    }
}

/// A resident warp. What the scoreboard check ([`Sm::blocked`]) reads comes first, in two
/// cache lines (`repr(C)`, 64-byte aligned).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
struct Warp {
    no_issue_until: u64,
    pending_pred: u32,
    /// Predicates (sources and destinations) of `next`, for the scoreboard check.
    next_preds: u32,
    in_collector: bool,
    at_barrier: bool,
    exited: bool,
    /// `next.is_some()`.
    has_next: bool,
    pending: RegMask,
    /// Registers (sources and destinations) of `next`, for the scoreboard check.
    next_mask: RegMask,
    pending_mem: RegMask,
    key: WarpKey,
    cta: usize,
    age: u64,
    sub_core: u8,
    inflight: u32,
    /// The next instruction ([`Shared::intern`] index), if known.
    next: Option<u32>,
    /// Uniform registers (bit `k` = `UR<k>`) with a write in flight: the scoreboard tracks
    /// the uniform file like the predicates (Turing's uniform datapath has its own register
    /// file, read and written by the warp's instructions in order, Jia et al. 2019). Zero on
    /// a GPU without a uniform file.
    pending_ur: u64,
    /// Uniform registers (sources and destinations) of `next`.
    next_ur: u64,
}

impl Warp {
    /// The issue verdict from the flags and the scoreboard (the branch redirect wait
    /// `no_issue_until` aside): barrier, no instruction (exited, in a collector, none
    /// known), a pending register or predicate the next instruction needs (memory if a
    /// pending load writes it), or free to issue.
    fn gate_of(&self) -> Option<StallKind> {
        if self.at_barrier {
            return Some(StallKind::Barrier);
        }
        if self.exited || self.in_collector || !self.has_next {
            return Some(StallKind::NoInstruction);
        }
        let mut hit = false;
        let mut mem = false;
        for k in 0..4 {
            let h = self.pending[k] & self.next_mask[k];
            hit |= h != 0;
            mem |= h & self.pending_mem[k] != 0;
        }
        if self.next_preds & self.pending_pred != 0 || self.next_ur & self.pending_ur != 0 {
            hit = true;
        }
        if hit {
            return Some(if mem {
                StallKind::Memory
            } else {
                StallKind::Scoreboard
            });
        }
        None
    }
}

/// A warp slot's issue verdict apart from the redirect wait, and the wait's end: what
/// [`Sm::blocked`] reads, kept in a dense per-slot array (one cache line holds four slots)
/// so that the scheduler's scan does not touch the warps themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Gate {
    verdict: Option<StallKind>,
    no_issue_until: u64,
}

impl Gate {
    /// The gate of an empty slot.
    const EMPTY: Gate = Gate {
        verdict: Some(StallKind::Idle),
        no_issue_until: 0,
    };
}

/// Element `k` of `by_age` with the element at `p` (if any) moved to the front.
#[inline]
fn gto_at(by_age: &[u16], p: Option<usize>, k: usize) -> u16 {
    match p {
        Some(p) if k == 0 => by_age[p],
        Some(p) if k <= p => by_age[k - 1],
        _ => by_age[k],
    }
}

/// Scoreboard mask of the registers `regs` below 256.
fn reg_mask<'a>(regs: impl IntoIterator<Item = &'a u16>) -> RegMask {
    let mut m = [0u64; 4];
    for &r in regs {
        if r < 256 {
            mask_set(&mut m, r);
        }
    }
    m
}

#[derive(Clone, Debug)]
struct CtaState {
    id: u32,
    warps: Vec<u16>,
    live: u32,
    /// Which warps (by index in `warps`) wait at which barrier: the rules of the functional
    /// executor ([`crate::barrier`]), fed with arrivals when an instruction executes and exits
    /// when a warp retires (so a barrier for every warp completes here no earlier than in
    /// the executor, which counts an exit when the last lane exits).
    barriers: CtaBarriers,
    regs: u32,
    shared: u32,
    threads: u32,
}

/// Timed events of an SM: (cycle, result-buffer index) pairs, taken earliest cycle first and,
/// within a cycle, lowest index first. One `u64` key per event (cycle in the high bits),
/// kept sorted in descending order: the earliest is the last element, so taking it is a
/// `pop` without the sift-down of a binary heap (whose data-dependent branches mispredict),
/// and an insertion moves the later-sorted keys up by one (an SM holds a few dozen events).
#[derive(Clone, Debug, Default)]
struct Events(Vec<u64>);

impl Events {
    const IDX_BITS: u32 = 23;
    const IDX_MASK: u64 = (1 << Self::IDX_BITS) - 1;
    fn push(&mut self, t: u64, idx: usize) {
        // cycle in the top 41 bits (clamped at twice `MAX_CYCLES`, past which a run never
        // gets: an event clamped here is never taken), result-buffer index in the low 23
        // (buffers ≤ the in-flight instructions of one SM)
        debug_assert!(idx < 1 << Self::IDX_BITS);
        let key = t.min(2 * MAX_CYCLES - 1) << Self::IDX_BITS | (idx as u64 & Self::IDX_MASK);
        // an insertion-sort step from the earliest end: a new event usually lands a few places
        // from it (matrixMul_naive: 16 events pending on average, the new one 6 from the end)
        self.0.push(key);
        let v = &mut self.0[..];
        let mut i = v.len() - 1;
        while i > 0 && v[i - 1] < key {
            v[i] = v[i - 1];
            i -= 1;
        }
        v[i] = key;
    }
    /// Cycle of the earliest event.
    fn next_time(&self) -> Option<u64> {
        self.0.last().map(|k| k >> Self::IDX_BITS)
    }
    /// Removes the earliest event; its index (0 if there is none).
    fn pop(&mut self) -> usize {
        self.0.pop().map_or(0, |k| (k & Self::IDX_MASK) as usize)
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A result buffer: one in-flight instruction from dispatch to completion. Slots are reused
/// in place (`live` marks the used ones), and each keeps its write buffer's allocation.
#[derive(Clone, Debug, Default)]
struct WbEntry {
    live: bool,
    slot: u16,
    /// The warp's sub-core (the completion stage queues the entry there without reading
    /// the warp).
    sub_core: u8,
    /// The instruction ([`Shared::intern`] index).
    sid: u32,
    collector: u16,
    from_load: bool,
    writes: Vec<(u16, [u32; 32], u32)>,
    /// Writes already done.
    done: usize,
    /// Route of the next write (computed once).
    route: Option<Route>,
    /// Earliest cycle the scoreboard may be released (design write delays).
    complete_at: u64,
}

/// One SM. The fields every cycle reads first (`idle_until`, `idle_pending`, `used_ctas`,
/// `events`) share the first cache line (`repr(C)`, 64-byte aligned): a skipped idle cycle
/// touches nothing else.
#[repr(C, align(64))]
struct Sm<D: RegisterFileDesign> {
    /// Cycles before this one are known idle for this SM (see [`Sm::idle_end`]).
    idle_until: u64,
    /// Idle cycles not yet added to the statistics.
    idle_pending: u64,
    used_ctas: u32,
    events: Events,
    id: u32,
    design: D,
    /// Warp registers the architected allocation holds now (resident warps × reserved
    /// registers per warp), and per warp of the launch (`RfActivity::architected_peak`).
    arch_regs_now: u64,
    arch_regs_per_warp: u64,
    /// The architected count over time, when a series is recorded.
    arch_series: Option<SeriesCounter>,
    warps: Vec<Option<Warp>>,
    /// [`Gate`] per warp slot, refreshed by [`Sm::refresh_gate`] wherever an input changes.
    gates: Vec<Gate>,
    preds: Vec<u32>,
    subs: Vec<SubCore>,
    ctas: Vec<Option<CtaState>>,
    used_threads: u32,
    used_warps: u32,
    used_regs: u32,
    used_shared: u32,
    ldst_free: Vec<u64>,
    wb: Vec<WbEntry>,
    wb_free: Vec<usize>,
    /// The memory access of the instruction being dispatched, written by the functional
    /// model in place.
    mem_buf: WarpMemAccess,
    act: CoreActivity,
    rf_act: RfActivity,
    mem_act: MemActivity,
    collector_seq: u64,
    /// Crossbar transfers per sub-core per cycle.
    xbar_width: u32,
    /// Operand reads a collector accepts per cycle.
    col_ports: u32,
    /// Bank ports of the design.
    ports: u8,
    /// Warp instructions per `UnitClass` (index = discriminant).
    by_class: [u64; N_CLASSES],
    /// What one idle cycle adds: the issue stall of each sub-core, dispatch candidates
    /// blocked on a busy unit, collectors waiting for operands.
    idle_stalls: Vec<StallKind>,
    idle_exec_busy: u64,
    idle_operand_wait: u64,
    /// Scheduler cycles per [`StallKind`] (index: the discriminant), folded into
    /// `act.stalls` at the end of the run ([`Sm::fold_stalls`]).
    stalls: [u64; N_STALL_KINDS],
    /// Cycles with at least one CTA resident, up to the last time the SM emptied
    /// (`CoreActivity::sm_busy_frac`), and the cycle the current busy stretch began.
    busy_cycles: u64,
    busy_since: u64,
    /// The w-merge collector slot ([`MemRoute::Merge`]).
    merge: MergeSlot,
    /// Memory instructions served by the design's tagged array waiting for bank ports
    /// ([`MemRoute::Array`]).
    array: ArraySlots,
}

/// Number of [`StallKind`] variants (`Barrier` is the last).
const N_STALL_KINDS: usize = 7;
const _: () = assert!(StallKind::Barrier as usize + 1 == N_STALL_KINDS);

const N_CLASSES: usize = 13;
const CLASSES: [UnitClass; N_CLASSES] = [
    UnitClass::Sp,
    UnitClass::Int,
    UnitClass::Sfu,
    UnitClass::Dp,
    UnitClass::Tensor,
    UnitClass::IntDiv,
    UnitClass::FpDiv,
    UnitClass::DpDiv,
    UnitClass::Mem,
    UnitClass::Branch,
    UnitClass::Barrier,
    UnitClass::Exit,
    UnitClass::Nop,
];

/// Per-class dispatch data: pool index (None = no unit) and timing.
fn class_timing(cfg: &GpuConfig, c: UnitClass) -> (Option<usize>, OpTiming) {
    let u = &cfg.sm.units;
    let one = OpTiming {
        latency: 1,
        initiation: 1,
    };
    match c {
        UnitClass::Sp => (Some(0), u.sp.timing),
        UnitClass::Int => (Some(1), u.int.timing),
        UnitClass::Sfu => (Some(2), u.sfu.timing),
        UnitClass::IntDiv => (Some(2), u.int_div),
        UnitClass::FpDiv => (Some(2), u.fp_div),
        UnitClass::Dp => (Some(3), u.dp.timing),
        UnitClass::DpDiv => (Some(3), u.dp_div),
        UnitClass::Tensor => (Some(4), u.tensor.timing),
        UnitClass::Branch => (Some(0), u.branch),
        UnitClass::Mem | UnitClass::Barrier | UnitClass::Exit | UnitClass::Nop => (None, one),
    }
}

/// The register adapter handed to the functional `step`: serves collected operands, buffers
/// writes for writeback, and keeps predicates in the SM's predicate file.
struct Collected<'a, D: RegisterFileDesign> {
    ops: &'a [OpSlot],
    design: &'a D,
    warp: WarpSlot,
    preds: &'a mut [u32],
    writes: &'a mut Vec<(u16, [u32; 32], u32)>,
    uncollected: u64,
}

impl<D: RegisterFileDesign> WarpRegisters for Collected<'_, D> {
    fn read(&mut self, reg: u16) -> [u32; 32] {
        if let Some(w) = self.writes.iter().rev().find(|w| w.0 == reg) {
            // read-after-write inside one instruction: merge over the collected/peeked value
            let mut base = self
                .ops
                .iter()
                .find(|o| o.reg == reg)
                .map(|o| o.values)
                .unwrap_or_else(|| self.design.peek(self.warp, reg));
            for (l, b) in base.iter_mut().enumerate() {
                if w.2 >> l & 1 != 0 {
                    *b = w.1[l];
                }
            }
            return base;
        }
        if let Some(o) = self.ops.iter().find(|o| o.reg == reg) {
            return o.values;
        }
        self.uncollected += 1;
        self.design.peek(self.warp, reg)
    }
    fn read_into(&mut self, reg: u16, out: &mut [u32; 32]) {
        // the common case of `read` (a collected operand not yet written by this instruction)
        // copied straight into `out`; everything else through `read` (issue 5)
        if !self.writes.iter().any(|w| w.0 == reg) {
            if let Some(o) = self.ops.iter().find(|o| o.reg == reg) {
                *out = o.values;
                return;
            }
        }
        *out = self.read(reg);
    }
    fn write(&mut self, reg: u16, values: &[u32; 32], mask: u32) {
        if let Some(w) = self.writes.iter_mut().find(|w| w.0 == reg) {
            for (l, (d, v)) in w.1.iter_mut().zip(values).enumerate() {
                if mask >> l & 1 != 0 {
                    *d = *v;
                }
            }
            w.2 |= mask;
        } else {
            self.writes.push((reg, *values, mask));
        }
    }
    fn read_pred(&mut self, p: u16) -> u32 {
        self.preds.get(usize::from(p)).copied().unwrap_or(0)
    }
    fn write_pred(&mut self, p: u16, bits: u32, mask: u32) {
        if let Some(s) = self.preds.get_mut(usize::from(p)) {
            *s = (*s & !mask) | (bits & mask);
        }
    }
}

/// What the pipeline derives from one static instruction, computed the first time the
/// instruction issues and reused after (issue, dispatch and writeback would otherwise redo
/// the binary searches and scans for every dynamic instance).
#[derive(Clone, Copy, Debug)]
struct StaticInstr {
    /// The instruction facts this was derived from (`active_mask` zeroed; checked against
    /// every lookup in debug builds).
    key: InstrInfo,
    /// Scoreboard mask of sources and destinations ([`reg_mask`]).
    mask: RegMask,
    /// Mask of the destinations below 256 (what issue marks pending and completion clears).
    dst_mask: RegMask,
    /// The first register (destinations, then sources) beyond the scoreboard's 256: the
    /// instruction cannot issue.
    bad_reg: Option<u16>,
    /// Reuse distance of each source (index = position in `srcs`).
    src_reuse: [Option<u32>; 16],
    /// Bit k: source k is read for the last time here (its PIR release flag).
    src_last: u16,
    /// Reuse distance of each destination (index = position in `dsts`).
    dst_reuse: [Option<u32>; 16],
    /// The basic block this instruction starts, if it starts one whose pbr release list is
    /// not empty ([`Sm::apply_pbr`]: looked up once here, not at every dispatch).
    pbr_block: Option<u32>,
    /// Its PIR release list is not empty (dispatch looks the list up only then).
    has_pir: bool,
    /// Its dead-destination release list is not empty (completion looks it up only then).
    has_dead_dst: bool,
    /// Byte offset in the module's code ([`FunctionalWarpModel::code_offset`]), where an
    /// instruction fetch looks it up.
    code: u64,
}

impl StaticInstr {
    fn new(key: InstrInfo, t: Option<&FuncTables>, block: Option<u32>) -> StaticInstr {
        let pir = t.and_then(|t| t.pir.get(key.pc as usize));
        let mut st = StaticInstr {
            key,
            mask: reg_mask(key.srcs.as_slice().iter().chain(key.dsts.as_slice())),
            dst_mask: reg_mask(key.dsts.as_slice()),
            bad_reg: key
                .dsts
                .as_slice()
                .iter()
                .chain(key.srcs.as_slice())
                .copied()
                .find(|&r| r >= 256),
            src_reuse: [None; 16],
            src_last: 0,
            dst_reuse: [None; 16],
            pbr_block: block.filter(|&b| {
                t.and_then(|t| t.pbr.get(b as usize))
                    .is_some_and(|l| !l.is_empty())
            }),
            has_pir: pir.is_some_and(|l| !l.is_empty()),
            has_dead_dst: t
                .and_then(|t| t.dead_dst.get(key.pc as usize))
                .is_some_and(|l| !l.is_empty()),
            code: 0,
        };
        for (k, &r) in key.srcs.as_slice().iter().enumerate().take(16) {
            st.src_reuse[k] = t.and_then(|t| FuncTables::reuse(&t.uses, &t.reuse_src, key.pc, r));
            if pir.is_some_and(|l| l.contains(&r)) {
                st.src_last |= 1 << k;
            }
        }
        for (k, &r) in key.dsts.as_slice().iter().enumerate().take(16) {
            st.dst_reuse[k] = t.and_then(|t| FuncTables::reuse(&t.defs, &t.reuse_dst, key.pc, r));
        }
        st
    }
}

/// Everything shared by the SMs during a run.
struct Shared<'a> {
    cfg: &'a GpuConfig,
    tables: Vec<Option<FuncTables>>,
    /// The static instructions met so far ([`Shared::intern`]); pipeline state names an
    /// instruction by its index here instead of carrying a copy of its facts.
    statics: Vec<StaticInstr>,
    /// Index + 1 into `statics` per function and PC (0: not met yet).
    sid_of: Vec<Vec<u32>>,
    regs_per_thread: u32,
    reserved_regs_per_warp: u32,
    warps_per_cta: u32,
    shared_per_cta: u32,
    warp_age: u64,
}

impl Shared<'_> {
    /// The index of `info`'s [`StaticInstr`] in `statics` (built on first use).
    #[inline]
    fn intern<F: FunctionalWarpModel>(&mut self, model: &F, info: &InstrInfo) -> u32 {
        let (f, pc) = (info.func as usize, info.pc as usize);
        if self.sid_of.len() <= f {
            self.sid_of.resize_with(f + 1, Vec::new);
        }
        let fs = &mut self.sid_of[f];
        if fs.len() <= pc {
            fs.resize(pc + 1, 0);
        }
        let mut key = *info;
        key.active_mask = 0;
        if fs[pc] == 0 {
            let block = model.block_start(key.func, key.pc);
            let mut st = StaticInstr::new(key, self.func_tables(key.func), block);
            st.code = model.code_offset(key.func, key.pc);
            self.statics.push(st);
            self.sid_of[f][pc] = self.statics.len() as u32;
        }
        let sid = self.sid_of[f][pc] - 1;
        // the facts of one (function, pc) never change (`FunctionalWarpModel::next_instr`)
        debug_assert!(self.statics[sid as usize].key == key);
        sid
    }

    /// The interned index of warp `key`'s next instruction (`None` once it has exited). The
    /// model's full facts are fetched only for a (function, pc) not met before (and, in debug
    /// builds, checked against the interned ones every time).
    #[inline]
    fn next_sid<F: FunctionalWarpModel>(&mut self, model: &F, key: WarpKey) -> Option<u32> {
        let (f, pc) = model.next_pc(key)?;
        let known = self
            .sid_of
            .get(f as usize)
            .and_then(|fs| fs.get(pc as usize))
            .copied()
            .unwrap_or(0);
        if known != 0 && !cfg!(debug_assertions) {
            return Some(known - 1);
        }
        let info = model.next_instr(key)?;
        debug_assert_eq!(
            (info.func, info.pc),
            (f, pc),
            "next_pc disagrees with next_instr"
        );
        Some(self.intern(model, &info))
    }

    /// The release and reuse tables of function `func` (None where it has no analysis).
    #[inline]
    fn func_tables(&self, func: u32) -> Option<&FuncTables> {
        self.tables.get(func as usize).and_then(Option::as_ref)
    }

    /// The static instruction `sid` ([`Shared::intern`]).
    #[inline]
    fn st(&self, sid: u32) -> &StaticInstr {
        &self.statics[sid as usize]
    }

    /// The facts of instruction `sid` (`active_mask` zero: the core never reads it).
    #[inline]
    fn info(&self, sid: u32) -> &InstrInfo {
        &self.statics[sid as usize].key
    }
}

/// Runs a launch on the GPU `cfg` with RF design instances from `make_design` (one per SM)
/// and the stub memory model. Returns the run's activity.
pub fn run<F, D>(
    cfg: &GpuConfig,
    model: &mut F,
    make_design: impl FnMut(u32) -> D,
    opts: &RunOptions,
) -> Result<Activity<D::Stats>, TimingError>
where
    F: FunctionalWarpModel,
    D: RegisterFileDesign,
{
    cfg.validate()?;
    let mut mem = MemoryHierarchy::new(
        &cfg.memory,
        cfg.sms,
        cfg.sm.units.const_latency,
        cfg.core_clock_mhz,
    );
    mem.preload_l2(&model.host_written());
    if let Some(c) = model.carried_caches() {
        mem.restore_front_end(c);
    }
    let a = run_with_memory(cfg, model, make_design, &mut mem, opts)?;
    if let Some(c) = model.carried_caches() {
        mem.save_front_end(c);
    }
    Ok(a)
}

/// [`run`] with a caller-supplied memory model.
pub fn run_with_memory<F, D, M>(
    cfg: &GpuConfig,
    model: &mut F,
    mut make_design: impl FnMut(u32) -> D,
    mem: &mut M,
    opts: &RunOptions,
) -> Result<Activity<D::Stats>, TimingError>
where
    F: FunctionalWarpModel,
    D: RegisterFileDesign,
    M: MemoryTiming,
{
    cfg.validate()?;
    if opts.max_cycles > MAX_CYCLES {
        return Err(TimingError::CycleLimitTooLarge {
            limit: opts.max_cycles,
            max: MAX_CYCLES,
        });
    }
    let grid = model.grid();
    let lim = &cfg.sm.limits;
    let alloc = lim.register_alloc_unit.max(1);
    let reserved = (grid.regs_per_thread.max(1) * 32).div_ceil(alloc) * alloc;
    let shared_unit = lim.shared_alloc_unit.max(1);
    let shared_per_cta = grid.shared_bytes_per_cta.div_ceil(shared_unit) * shared_unit;
    let too_large = |why: &str| TimingError::CtaTooLarge {
        threads: grid.threads_per_cta,
        regs: grid.regs_per_thread,
        shared: grid.shared_bytes_per_cta,
        why: why.to_string(),
    };
    if grid.regs_per_thread > lim.max_registers_per_thread {
        return Err(too_large("registers per thread above the limit"));
    }
    if grid.warps_per_cta > lim.max_warps || grid.warps_per_cta * 32 > lim.max_threads {
        return Err(too_large("too many threads"));
    }
    if reserved * grid.warps_per_cta > lim.registers {
        return Err(too_large("too many registers"));
    }
    if shared_per_cta > lim.shared_bytes {
        return Err(too_large("too much shared memory"));
    }
    let tables = model
        .analyses()
        .iter()
        .map(|a| a.as_ref().map(FuncTables::from_analysis))
        .collect();
    let mut sh = Shared {
        cfg,
        tables,
        statics: Vec::new(),
        sid_of: Vec::new(),
        regs_per_thread: grid.regs_per_thread,
        reserved_regs_per_warp: reserved,
        warps_per_cta: grid.warps_per_cta,
        shared_per_cta,
        warp_age: 0,
    };
    let mut sms: Vec<Sm<D>> = Vec::with_capacity(cfg.sms as usize);
    for i in 0..cfg.sms {
        let mut d = make_design(i);
        if opts.series_window > 0 {
            d.record_series(opts.series_window);
        }
        let mut sm = Sm::new(cfg, i, d)?;
        if opts.series_window > 0 {
            sm.arch_series = Some(SeriesCounter::new(opts.series_window));
        }
        sms.push(sm);
    }
    // kernel launch latency (GPGPU-Sim m_kernel_TB_latency): no CTA starts before it, and
    // its cycles count (idle on every scheduler)
    let mut now: u64 = u64::from(cfg.kernel_launch_latency)
        + u64::from(cfg.cta_launch_latency) * u64::from(grid.ctas);
    let kernel_start = now;
    for s in sms.iter_mut() {
        s.account_skipped(now);
    }
    let mut next_cta: u32 = 0;
    let mut simulated: u64 = 0;
    let mut rr: usize = 0;
    loop {
        simulated += 1;
        let mut progress = false;
        // CTA dispatch
        if next_cta < grid.ctas {
            let n = sms.len();
            for k in 0..n {
                let i = (rr + k) % n;
                for _ in 0..cfg.cta_launches_per_cycle {
                    if next_cta >= grid.ctas {
                        break;
                    }
                    if sms[i].try_launch(&mut sh, model, mem, next_cta, now)? {
                        next_cta += 1;
                        progress = true;
                    } else {
                        break;
                    }
                }
            }
            rr = (rr + 1) % n.max(1);
            if next_cta < grid.ctas && sms.iter().all(|s| s.used_ctas == 0) {
                return Err(too_large("the RF design cannot allocate it"));
            }
        }
        for sm in sms.iter_mut() {
            progress |= sm.cycle(&mut sh, model, mem, now)?;
        }
        let busy = sms.iter().any(|s| s.used_ctas > 0);
        if !busy && next_cta >= grid.ctas {
            break;
        }
        if now >= opts.max_cycles {
            return Err(TimingError::CycleLimit {
                limit: opts.max_cycles,
            });
        }
        if progress {
            now += 1;
            continue;
        }
        let next = sms.iter().filter_map(|s| s.next_event(now)).min();
        match next {
            Some(t) if t > now => {
                let skip = t - now - 1;
                for s in sms.iter_mut() {
                    s.account_skipped(skip);
                }
                now = t;
            }
            Some(_) => now += 1,
            None => {
                if next_cta < grid.ctas {
                    now += 1;
                    continue;
                }
                return Err(TimingError::Deadlock {
                    cycle: now,
                    live_warps: sms.iter().map(|s| s.used_warps).sum(),
                });
            }
        }
    }
    // finish
    let mut core = CoreActivity::default();
    let mut rf = RfActivity::default();
    let mut memact = MemActivity::default();
    let mut stats = D::Stats::default();
    let mut name = String::new();
    // the kernel's own cycles (launch latency apart): what the busy shares are of
    let kernel_cycles = (now + 1).saturating_sub(kernel_start);
    for sm in sms.iter_mut() {
        sm.flush_idle();
        sm.fold_stalls();
        sm.act.sm_busy_frac = Ratio {
            num: sm.busy_cycles,
            den: kernel_cycles,
        };
        sm.act.issue_utilisation_frac = Ratio {
            num: sm.act.warp_instructions,
            den: kernel_cycles * u64::from(cfg.sm.sub_cores),
        };
        for (k, c) in CLASSES.iter().enumerate() {
            if sm.by_class[k] > 0 {
                *sm.act
                    .instructions_by_class
                    .entry(format!("{c:?}"))
                    .or_insert(0) += sm.by_class[k];
            }
        }
        let mut ctx = RfCtx {
            now,
            sm: sm.id,
            act: &mut sm.rf_act,
        };
        sm.design.finish(&mut ctx);
        if let Some(s) = &mut sm.arch_series {
            let w = opts.series_window;
            let sums = s.finish(now + 1);
            fold_series(&mut sm.rf_act.register_series, w, &sums, |x, v| {
                x.architected_register_cycles += v
            });
            // the last window ends with the run
            if let Some(last) = sm.rf_act.register_series.last_mut() {
                last.cycles = (now + 1).saturating_sub(last.start_cycle).min(w);
            }
        }
        core.merge(&sm.act);
        rf.merge(&sm.rf_act);
        memact.merge(&sm.mem_act);
        stats.merge(&sm.design.stats());
        if name.is_empty() {
            name = sm.design.name();
        }
    }
    Ok(Activity {
        gpu: cfg.name.clone(),
        design: name,
        cycles: now + 1,
        simulated_cycles: simulated,
        core,
        rf,
        memory: memact,
        design_stats: stats,
    })
}

/// Releases the registers `list` of warp `ws` in `design` (SM `sm`, cycle `now`; a seed-002
/// release flag: per instruction, per branch or a dead destination); returns how many.
/// A free function so that the dispatch stage, which holds the SM's fields as split borrows,
/// calls it too. `inline(always)`: left to the compiler, the refactor cost +0.6 % host
/// instructions per matrixMul run (callgrind); inlined, +0.2 %.
#[inline(always)]
fn release_all<D: RegisterFileDesign>(
    design: &mut D,
    rf_act: &mut RfActivity,
    sm: u32,
    now: u64,
    ws: WarpSlot,
    list: &[u16],
    cause: ReleaseCause,
) -> u64 {
    let mut ctx = RfCtx {
        now,
        sm,
        act: rf_act,
    };
    for &r in list {
        design.release(&mut ctx, ws, r, cause);
    }
    list.len() as u64
}

impl<D: RegisterFileDesign> Sm<D> {
    fn new(cfg: &GpuConfig, id: u32, design: D) -> Result<Sm<D>, TimingError> {
        let layout = design.layout();
        let banks = usize::from(layout.banks_per_sub_core);
        if banks == 0 || banks > 64 || layout.ports_per_bank == 0 {
            return Err(TimingError::Layout(format!(
                "{} banks x {} ports per sub-core",
                banks, layout.ports_per_bank
            )));
        }
        let s = &cfg.sm;
        let nsub = s.sub_cores as usize;
        let ncol = s.collectors.units_per_sub_core as usize;
        let u = &s.units;
        let subs = (0..nsub)
            .map(|sc| SubCore {
                warps: (0..s.limits.max_warps as u16)
                    .filter(|w| usize::from(*w) % nsub == sc)
                    .collect(),
                collectors: (0..ncol)
                    .map(|_| Collector {
                        busy: false,
                        slot: 0,
                        sid: None,
                        ops: vec![OpSlot::EMPTY; 16],
                        nops: 0,
                        pending: 0,
                        ready_at: 0,
                        seq: 0,
                    })
                    .collect(),
                free_mask: if ncol >= 64 {
                    u64::MAX
                } else {
                    (1u64 << ncol) - 1
                },
                bank_q: vec![Ring::with_capacity(ncol * 16); banks],
                ports_cycle: 0,
                bank_ports_used: [0; 64],
                units: [
                    vec![0; u.sp.per_sub_core as usize],
                    vec![0; u.int.per_sub_core as usize],
                    vec![0; u.sfu.per_sub_core as usize],
                    vec![0; u.dp.per_sub_core as usize],
                    vec![0; u.tensor.per_sub_core as usize],
                ],
                wb_q: VecDeque::new(),
                queued_reads: 0,
                busy_collectors: 0,
                granted: 0,
                last_issued: None,
                active_set: Vec::new(),
                last_stall: StallKind::Idle,
                order: Vec::new(),
                dirty: true,
                wake_at: 0,
                by_age: Vec::new(),
                keys: Vec::new(),
                ready: 0,
                waiting: 0,
            })
            .collect();
        let nb = nsub * banks;
        Ok(Sm {
            id,
            design,
            arch_regs_now: 0,
            arch_regs_per_warp: 0,
            arch_series: None,
            warps: vec![None; s.limits.max_warps as usize],
            gates: vec![Gate::EMPTY; s.limits.max_warps as usize],
            preds: vec![0; s.limits.max_warps as usize * 32],
            subs,
            ctas: vec![None; s.limits.max_ctas as usize],
            used_threads: 0,
            used_warps: 0,
            used_regs: 0,
            used_shared: 0,
            used_ctas: 0,
            ldst_free: vec![0; u.ldst_per_sm as usize],
            events: Events::default(),
            wb: Vec::new(),
            wb_free: Vec::new(),
            mem_buf: WarpMemAccess::default(),
            act: CoreActivity {
                bank_reads: vec![0; nb],
                bank_writes: vec![0; nb],
                ..CoreActivity::default()
            },
            rf_act: RfActivity::default(),
            mem_act: MemActivity::default(),
            collector_seq: 0,
            xbar_width: s.register_file.crossbar_width,
            col_ports: s.collectors.read_ports_per_unit,
            ports: layout.ports_per_bank,
            by_class: [0; N_CLASSES],
            idle_until: 0,
            idle_stalls: Vec::with_capacity(nsub),
            idle_exec_busy: 0,
            idle_operand_wait: 0,
            idle_pending: 0,
            busy_cycles: 0,
            busy_since: 0,
            stalls: [0; N_STALL_KINDS],
            merge: MergeSlot::IDLE,
            array: ArraySlots::default(),
        })
    }

    fn nsub(&self) -> usize {
        self.subs.len()
    }

    /// Starts CTA `cta` if it fits. Returns whether it was launched.
    fn try_launch<F: FunctionalWarpModel, M: MemoryTiming>(
        &mut self,
        sh: &mut Shared,
        model: &mut F,
        mem: &mut M,
        cta: u32,
        now: u64,
    ) -> Result<bool, TimingError> {
        let lim = &sh.cfg.sm.limits;
        let wpc = sh.warps_per_cta;
        let threads = wpc * 32;
        let regs = sh.reserved_regs_per_warp * wpc;
        if self.used_ctas + 1 > lim.max_ctas
            || self.used_threads + threads > lim.max_threads
            || self.used_warps + wpc > lim.max_warps
            || self.used_regs + regs > lim.registers
            || self.used_shared + sh.shared_per_cta > lim.shared_bytes
        {
            return Ok(false);
        }
        let Some(cslot) = self.ctas.iter().position(|c| c.is_none()) else {
            return Ok(false);
        };
        let nsub = self.nsub();
        let slots: Vec<u16> = (0..self.warps.len() as u16)
            .filter(|&w| self.warps[usize::from(w)].is_none())
            .take(wpc as usize)
            .collect();
        if slots.len() < wpc as usize {
            return Ok(false);
        }
        let ws: Vec<WarpSlot> = slots
            .iter()
            .map(|&s| WarpSlot {
                slot: s,
                sub_core: (usize::from(s) % nsub) as u8,
            })
            .collect();
        if !self.design.can_allocate(&ws, sh.regs_per_thread) {
            return Ok(false);
        }
        self.flush_idle();
        self.idle_until = 0;
        model.start_cta(cta).map_err(|source| TimingError::Model {
            warp: cta * wpc,
            source,
        })?;
        for (i, w) in ws.iter().enumerate() {
            let mut ctx = RfCtx {
                now,
                sm: self.id,
                act: &mut self.rf_act,
            };
            self.design
                .allocate_warp(&mut ctx, *w, sh.regs_per_thread)?;
            self.design.warp_started(*w, i as u32);
            self.arch_regs_per_warp = u64::from(sh.reserved_regs_per_warp / 32);
            self.arch_regs_now += self.arch_regs_per_warp;
            if let Some(s) = &mut self.arch_series {
                s.change(now, self.arch_regs_per_warp as i64);
            }
            self.rf_act.architected_peak = self.rf_act.architected_peak.max(self.arch_regs_now);
            let key = cta * wpc + i as u32;
            let next = sh.next_sid(model, key);
            // the first instruction's fetch (an instruction-cache miss holds the warp)
            let fetched = next.map_or(now, |n| {
                mem.inst_fetch(now, self.id, sh.st(n).code, &mut self.mem_act)
            });
            sh.warp_age += 1;
            let base = usize::from(w.slot) * 32;
            self.preds[base..base + 32].fill(0);
            self.subs[usize::from(w.sub_core)].dirty = true;
            self.subs[usize::from(w.sub_core)].by_age.push(w.slot);
            self.warps[usize::from(w.slot)] = Some(Warp {
                key,
                cta: cslot,
                age: sh.warp_age,
                sub_core: w.sub_core,
                next_mask: next.map_or([0; 4], |i| sh.st(i).mask),
                next_preds: next.map_or(0, |i| sh.info(i).src_preds | sh.info(i).dst_preds),
                next_ur: next.map_or(0, |i| sh.info(i).src_uniform | sh.info(i).dst_uniform),
                has_next: next.is_some(),
                next,
                in_collector: false,
                at_barrier: false,
                exited: false,
                no_issue_until: if fetched > now { fetched } else { 0 },
                pending: [0; 4],
                pending_mem: [0; 4],
                pending_pred: 0,
                pending_ur: 0,
                inflight: 0,
            });
            self.refresh_gate(usize::from(w.slot));
        }
        self.ctas[cslot] = Some(CtaState {
            id: cta,
            warps: slots,
            live: wpc,
            barriers: CtaBarriers::new(wpc as usize),
            regs,
            shared: sh.shared_per_cta,
            threads,
        });
        if self.used_ctas == 0 {
            self.busy_since = now;
        }
        self.used_ctas += 1;
        self.used_threads += threads;
        self.used_warps += wpc;
        self.used_regs += regs;
        self.used_shared += sh.shared_per_cta;
        self.act.ctas_launched += 1;
        self.act.warps_launched += u64::from(wpc);
        // pbr of the entry block
        for w in &ws {
            self.apply_pbr(sh, w.slot, now);
        }
        Ok(true)
    }

    /// Releases the pbr list of the block the warp is about to enter.
    fn apply_pbr(&mut self, sh: &Shared, slot: u16, now: u64) {
        let Some(w) = self.warps[usize::from(slot)].as_ref() else {
            return;
        };
        let Some(next) = w.next.map(|i| sh.st(i)) else {
            return;
        };
        let Some(block) = next.pbr_block else {
            return;
        };
        let Some(t) = sh.func_tables(next.key.func) else {
            return;
        };
        let Some(list) = t.pbr.get(block as usize) else {
            return;
        };
        let ws = WarpSlot {
            slot,
            sub_core: w.sub_core,
        };
        self.act.releases_pbr += self.release_all(ws, list, ReleaseCause::Pbr, now);
    }

    /// [`release_all`] on this SM's design.
    fn release_all(&mut self, ws: WarpSlot, list: &[u16], cause: ReleaseCause, now: u64) -> u64 {
        release_all(
            &mut self.design,
            &mut self.rf_act,
            self.id,
            now,
            ws,
            list,
            cause,
        )
    }

    /// One cycle of this SM. Returns whether anything changed.
    fn cycle<F: FunctionalWarpModel, M: MemoryTiming>(
        &mut self,
        sh: &mut Shared,
        model: &mut F,
        mem: &mut M,
        now: u64,
    ) -> Result<bool, TimingError> {
        if self.used_ctas == 0 && self.events.is_empty() {
            for s in self.subs.iter_mut() {
                s.last_stall = StallKind::Idle;
            }
            self.stalls[StallKind::Idle as usize] += self.subs.len() as u64;
            return Ok(false);
        }
        if now < self.idle_until {
            // nothing but per-cycle counters would change: count the cycle, step nothing
            self.idle_pending += 1;
            return Ok(false);
        }
        self.flush_idle();
        let mut progress = false;
        {
            let mut ctx = RfCtx {
                now,
                sm: self.id,
                act: &mut self.rf_act,
            };
            self.design.tick(&mut ctx);
        }
        // completions -> writeback queues
        while let Some(t) = self.events.next_time() {
            if t > now {
                break;
            }
            let idx = self.events.pop();
            progress = true;
            let Some(e) = self.wb.get(idx).filter(|e| e.live) else {
                continue;
            };
            if e.done >= e.writes.len() && e.complete_at <= now {
                self.complete(sh, model, idx, now);
            } else {
                debug_assert_eq!(
                    Some(e.sub_core),
                    self.warps[usize::from(e.slot)].as_ref().map(|w| w.sub_core)
                );
                let sc = usize::from(e.sub_core);
                self.subs[sc].wb_q.push_back(idx);
            }
        }
        for sc in 0..self.nsub() {
            // each stage is skipped when it has nothing to do (what it would do then: nothing)
            if !self.subs[sc].wb_q.is_empty() {
                progress |= self.writeback(sh, model, mem, sc, now);
            }
            if self.subs[sc].queued_reads > 0 {
                progress |= self.read_operands(sh, mem, sc, now);
            }
            if self.subs[sc].granted != 0 {
                progress |= self.dispatch(sh, model, mem, sc, now)?;
            } else {
                // no candidate: every busy collector waits for operands (what `dispatch` counts)
                self.act.operand_wait_cycles += u64::from(self.subs[sc].busy_collectors);
            }
            progress |= self.issue(sh, sc, now)?;
        }
        self.idle_until = self.idle_end(sh, now + 1);
        Ok(progress)
    }

    /// If cycle `t` of this SM would change nothing but per-cycle counters (no completion
    /// due, no writeback or operand read queued, no collector able to dispatch, no scheduler
    /// to re-evaluate), the first cycle after `t` at which that may change; otherwise 0.
    /// Records what each such idle cycle adds to the statistics (exactly what stepping it
    /// would add). Nothing outside the SM changes its state except a CTA launch, which
    /// resets the window.
    fn idle_end(&mut self, sh: &Shared, t: u64) -> u64 {
        if self.used_ctas == 0 && self.events.is_empty() {
            return 0;
        }
        let mut end = u64::MAX;
        if let Some(te) = self.events.next_time() {
            if te <= t {
                return 0;
            }
            end = te;
        }
        let (mut exec_busy, mut operand_wait) = (0u64, 0u64);
        for s in &self.subs {
            if s.dirty || t >= s.wake_at || !s.wb_q.is_empty() || s.queued_reads > 0 {
                return 0;
            }
            end = end.min(s.wake_at);
            if s.busy_collectors == 0 {
                continue;
            }
            for c in s.collectors.iter().filter(|c| c.busy) {
                if c.pending > 0 {
                    return 0;
                }
                if c.ready_at > t {
                    operand_wait += 1;
                    end = end.min(c.ready_at);
                    continue;
                }
                // a dispatch candidate: idle only while every unit it can use is busy
                let Some(info) = c.sid.map(|i| sh.info(i)) else {
                    return 0;
                };
                if self.warps[usize::from(c.slot)].is_none() {
                    return 0;
                }
                let free_at = match class_timing(sh.cfg, info.class).0 {
                    Some(p) => s.units[p].iter().min().copied(),
                    None if info.class == UnitClass::Mem => self.ldst_free.iter().min().copied(),
                    None => return 0,
                };
                if let Some(f) = free_at {
                    if f <= t {
                        return 0;
                    }
                    end = end.min(f);
                }
                exec_busy += 1;
            }
        }
        if end <= t {
            return 0;
        }
        self.idle_stalls.clear();
        self.idle_stalls
            .extend(self.subs.iter().map(|s| s.last_stall));
        self.idle_exec_busy = exec_busy;
        self.idle_operand_wait = operand_wait;
        end
    }

    /// Adds the statistics of the idle cycles counted since the last step.
    fn flush_idle(&mut self) {
        let n = std::mem::take(&mut self.idle_pending);
        if n == 0 {
            return;
        }
        for &k in &self.idle_stalls {
            self.stalls[k as usize] += n;
        }
        self.act.exec_unit_busy_cycles += self.idle_exec_busy * n;
        self.act.operand_wait_cycles += self.idle_operand_wait * n;
    }

    fn writeback<F: FunctionalWarpModel, M: MemoryTiming>(
        &mut self,
        sh: &mut Shared,
        model: &mut F,
        mem: &mut M,
        sc: usize,
        now: u64,
    ) -> bool {
        let mut progress = false;
        let ports = self.ports;
        let nbanks = self.subs[sc].bank_q.len();
        self.subs[sc].ports_at(now);
        let mut i = 0;
        while i < self.subs[sc].wb_q.len() {
            let idx = self.subs[sc].wb_q[i];
            let mut finished = false;
            // split borrows: the entry, the sub-core and the design side by side
            let Sm {
                subs,
                wb,
                design,
                act,
                rf_act,
                mem_act,
                id,
                ..
            } = &mut *self;
            let sub = &mut subs[sc];
            if let Some(e) = wb.get_mut(idx).filter(|e| e.live) {
                let ws = WarpSlot {
                    slot: e.slot,
                    sub_core: sc as u8,
                };
                let st = sh.st(e.sid);
                let info = &st.key;
                while e.done < e.writes.len() {
                    let (reg, mask) = (e.writes[e.done].0, e.writes[e.done].2);
                    let wr = WriteRef {
                        warp: ws,
                        reg,
                        collector: e.collector,
                        func: info.func,
                        pc: info.pc,
                        reuse: match info.dsts.as_slice().iter().position(|&d| d == reg) {
                            Some(k) if k < 16 => st.dst_reuse[k],
                            _ => sh.func_tables(info.func).and_then(|t| {
                                FuncTables::reuse(&t.defs, &t.reuse_dst, info.pc, reg)
                            }),
                        },
                        from_load: e.from_load,
                    };
                    let mut ctx = RfCtx {
                        now,
                        sm: *id,
                        act: rf_act,
                    };
                    let route = match e.route {
                        Some(r) => r,
                        None => {
                            let r = design.route_write(&mut ctx, &wr);
                            e.route = Some(r);
                            r
                        }
                    };
                    if let Route::Bank(b) = route {
                        let b = usize::from(b).min(nbanks - 1);
                        if sub.bank_ports_used[b] >= ports {
                            act.write_port_stalls += 1;
                            break;
                        }
                        sub.bank_ports_used[b] += 1;
                        act.bank_writes[sc * nbanks + b] += 1;
                    }
                    let out = design.write(&mut ctx, &wr, &e.writes[e.done].1, mask);
                    let extra = delay_cycles(out.delay, mem, (now, now, *id), mem_act);
                    if let Some(sp) = out.spill {
                        mem.fetch(now, *id, &sp, mem_act);
                    }
                    e.complete_at = e.complete_at.max(now + extra);
                    e.done += 1;
                    e.route = None;
                    progress = true;
                }
                finished = e.done >= e.writes.len();
            }
            if finished {
                // the entry finished is nearly always the oldest: `pop_front` is a few
                // instructions, `remove(0)` several dozen
                if i == 0 {
                    self.subs[sc].wb_q.pop_front();
                } else {
                    self.subs[sc].wb_q.remove(i);
                }
                let at = self
                    .wb
                    .get(idx)
                    .filter(|e| e.live)
                    .map_or(now, |e| e.complete_at);
                if at > now {
                    self.events.push(at, idx);
                } else {
                    self.complete(sh, model, idx, now);
                }
                progress = true;
            } else {
                i += 1;
            }
        }
        progress
    }

    /// Final step of an instruction: scoreboard release, dead-destination release, warp exit.
    fn complete<F: FunctionalWarpModel>(
        &mut self,
        sh: &mut Shared,
        model: &mut F,
        idx: usize,
        now: u64,
    ) {
        // copy out what is needed instead of moving the whole entry out of its slot
        let Some(e) = self.wb.get_mut(idx).filter(|e| e.live) else {
            return;
        };
        let (eslot, sid) = (e.slot, e.sid);
        let st = sh.st(sid);
        let info = &st.key;
        e.live = false;
        self.wb_free.push(idx);
        let slot = usize::from(eslot);
        let Some(w) = self.warps[slot].as_mut() else {
            return;
        };
        for k in 0..4 {
            w.pending[k] &= !st.dst_mask[k];
            w.pending_mem[k] &= !st.dst_mask[k];
        }
        w.pending_pred &= !info.dst_preds;
        w.pending_ur &= !info.dst_uniform;
        w.inflight = w.inflight.saturating_sub(1);
        self.subs[usize::from(w.sub_core)].dirty = true;
        let ws = WarpSlot {
            slot: eslot,
            sub_core: w.sub_core,
        };
        self.refresh_gate(slot);
        // (the list is looked up only for an instruction that has one)
        let dead = if st.has_dead_dst {
            sh.func_tables(info.func)
                .and_then(|t| t.dead_dst.get(info.pc as usize))
        } else {
            None
        };
        if let Some(list) = dead {
            self.act.releases_dead_dst += self.release_all(ws, list, ReleaseCause::DeadDst, now);
        }
        self.maybe_retire(model, eslot, now);
    }

    /// Frees a warp (and its CTA) once it has exited and drained.
    #[inline]
    fn maybe_retire<F: FunctionalWarpModel>(&mut self, model: &mut F, slot: u16, now: u64) {
        if self.warps[usize::from(slot)]
            .as_ref()
            .is_some_and(|w| w.exited && w.inflight == 0 && !w.in_collector)
        {
            self.retire(model, slot, now);
        }
    }

    /// [`Sm::maybe_retire`]'s work, once per warp: out of line, off the per-instruction path.
    #[cold]
    #[inline(never)]
    fn retire<F: FunctionalWarpModel>(&mut self, model: &mut F, slot: u16, now: u64) {
        let Some(w) = self.warps[usize::from(slot)].as_ref() else {
            return;
        };
        let ws = WarpSlot {
            slot,
            sub_core: w.sub_core,
        };
        let cslot = w.cta;
        let mut ctx = RfCtx {
            now,
            sm: self.id,
            act: &mut self.rf_act,
        };
        self.design.free_warp(&mut ctx, ws);
        self.arch_regs_now = self.arch_regs_now.saturating_sub(self.arch_regs_per_warp);
        if let Some(s) = &mut self.arch_series {
            s.change(now, -(self.arch_regs_per_warp as i64));
        }
        self.warps[usize::from(slot)] = None;
        self.refresh_gate(usize::from(slot));
        let sc = usize::from(ws.sub_core);
        self.subs[sc].dirty = true;
        self.subs[sc].active_set.retain(|&s| s != slot);
        self.subs[sc].by_age.retain(|&s| s != slot);
        if self.subs[sc].last_issued == Some(slot) {
            self.subs[sc].last_issued = None;
        }
        let Some(c) = self.ctas[cslot].as_mut() else {
            return;
        };
        c.live -= 1;
        if c.live == 0 {
            let c = self.ctas[cslot].take();
            if let Some(c) = c {
                self.used_ctas -= 1;
                if self.used_ctas == 0 {
                    // busy from the cycle its first CTA launched to this one, both included
                    self.busy_cycles += now + 1 - self.busy_since;
                }
                self.used_threads -= c.threads;
                self.used_warps -= c.warps.len() as u32;
                self.used_regs -= c.regs;
                self.used_shared -= c.shared;
                model.finish_cta(c.id);
            }
        } else {
            // the warp no longer counts towards the barriers that wait for every live warp
            let local = c
                .warps
                .iter()
                .position(|&s| s == slot)
                .unwrap_or(usize::MAX);
            for (_, m) in c.barriers.exit(local) {
                self.release_barrier(cslot, m);
            }
        }
    }

    /// Releases the warps `m` (bit `i`: the CTA's warp `i`) of a completed barrier.
    #[cold]
    #[inline(never)]
    fn release_barrier(&mut self, cslot: usize, m: u64) {
        let Some(c) = self.ctas[cslot].as_ref() else {
            return;
        };
        let slots = c.warps.clone();
        for (i, s) in slots.into_iter().enumerate() {
            if i >= 64 || m & (1u64 << i) == 0 {
                continue;
            }
            if let Some(w) = self.warps[usize::from(s)].as_mut() {
                w.at_barrier = false;
                let sc = usize::from(w.sub_core);
                self.subs[sc].dirty = true;
                self.refresh_gate(usize::from(s));
            }
        }
    }

    fn read_operands<M: MemoryTiming>(
        &mut self,
        sh: &Shared,
        mem: &mut M,
        sc: usize,
        now: u64,
    ) -> bool {
        // split borrows: the sub-core's queues and collectors, the design, the counters
        let Sm {
            subs,
            design,
            rf_act,
            act,
            mem_act,
            id,
            ports,
            xbar_width,
            col_ports,
            wb,
            events,
            merge,
            array,
            ..
        } = self;
        subs[sc].ports_at(now);
        let SubCore {
            bank_q,
            collectors,
            queued_reads,
            granted,
            bank_ports_used,
            ..
        } = &mut subs[sc];
        if *queued_reads == 0 {
            return false;
        }
        let mut progress = false;
        let nb = bank_q.len();
        // read grants each collector received this cycle (collectors ≤ 64: `free_mask`; a
        // collector is granted at most its operands, ≤ 16, per cycle)
        let mut grants = [0u8; 64];
        let mut merge_grants = 0u32;
        let mut transfers = 0u32;
        for (b, q) in bank_q.iter_mut().enumerate() {
            let mut left = ports.saturating_sub(bank_ports_used[b]);
            while left > 0 && transfers < *xbar_width {
                let Some(&(col, op)) = q.front() else {
                    break;
                };
                if col == ARRAY_COL {
                    // a line access of the design's tagged array (seed 004): takes the port,
                    // moves nothing to a collector
                    q.pop_front();
                    *queued_reads -= 1;
                    left -= 1;
                    mem_act.rf_design_array_accesses += 1;
                    if let Some((e, at)) = array.grant(op, now) {
                        if let Some(x) = wb.get_mut(e) {
                            x.complete_at = at;
                        }
                        events.push(at, e);
                    }
                    progress = true;
                    continue;
                }
                if col == MERGE_COL {
                    // a read of the w-merge slot: arbitrated and moved like an operand
                    if merge_grants >= *col_ports {
                        break;
                    }
                    q.pop_front();
                    *queued_reads -= 1;
                    left -= 1;
                    transfers += 1;
                    merge_grants += 1;
                    let opref = OperandRef {
                        warp: merge.warp,
                        reg: MERGE_READ + RegId::from(op),
                        collector: MERGE_COL,
                        func: merge.func,
                        pc: merge.pc,
                        reuse: None,
                        last_use: false,
                    };
                    let mut ctx = RfCtx {
                        now,
                        sm: *id,
                        act: rf_act,
                    };
                    let out = design.read(&mut ctx, &opref);
                    let extra = delay_cycles(out.delay, mem, (now, now + 1, *id), mem_act);
                    merge.ready_at = merge.ready_at.max(now + 1 + extra);
                    merge.pending = merge.pending.saturating_sub(1);
                    bank_ports_used[b] += 1;
                    act.bank_reads[sc * nb + b] += 1;
                    act.crossbar_transfers += 1;
                    act.collector_writes += 1;
                    if merge.pending == 0 && merge.busy {
                        merge.busy = false;
                        let at = merge.ready_at + u64::from(merge.latency.max(1));
                        if let Some(e) = wb.get_mut(merge.wb) {
                            e.complete_at = at;
                        }
                        events.push(at, merge.wb);
                    }
                    progress = true;
                    continue;
                }
                let (c_i, o_i) = (usize::from(col), usize::from(op));
                let (Some(c), Some(g)) = (collectors.get_mut(c_i), grants.get_mut(c_i)) else {
                    break;
                };
                if u32::from(*g) >= *col_ports {
                    break;
                }
                q.pop_front();
                *queued_reads -= 1;
                left -= 1;
                transfers += 1;
                *g += 1;
                let (Some(info), Some(o)) =
                    (c.sid.map(|i| sh.info(i)), c.ops[..c.nops].get_mut(o_i))
                else {
                    continue;
                };
                let opref = OperandRef {
                    warp: WarpSlot {
                        slot: c.slot,
                        sub_core: sc as u8,
                    },
                    reg: o.reg,
                    collector: col,
                    func: info.func,
                    pc: info.pc,
                    reuse: o.reuse,
                    last_use: o.last_use,
                };
                let mut ctx = RfCtx {
                    now,
                    sm: *id,
                    act: rf_act,
                };
                // `black_box`: without it the compiler hoists the design's fields (the row
                // and tracker tables, the bank geometry) out of this loop and spills them to
                // the stack on every call of the stage, ~65 instructions for the one or two
                // grants a call makes (session 16: −1.9 % host instructions per run)
                let out = std::hint::black_box(&mut *design).read(&mut ctx, &opref);
                let extra = delay_cycles(out.delay, mem, (now, now + 1, *id), mem_act);
                o.values = out.values;
                o.granted = true;
                o.ready_at = now + 1 + extra;
                c.pending -= 1;
                *granted |= u64::from(c.pending == 0) << c_i;
                c.ready_at = c.ready_at.max(o.ready_at);
                bank_ports_used[b] += 1;
                act.bank_reads[sc * nb + b] += 1;
                act.crossbar_transfers += 1;
                act.collector_writes += 1;
                progress = true;
            }
            act.bank_conflict_cycles += u64::from(!q.is_empty());
        }
        progress
    }

    fn dispatch<F: FunctionalWarpModel, M: MemoryTiming>(
        &mut self,
        sh: &mut Shared,
        model: &mut F,
        mem: &mut M,
        sc: usize,
        now: u64,
    ) -> Result<bool, TimingError> {
        let mut progress = false;
        let mut dispatched = 0;
        let limit = sh.cfg.sm.collectors.dispatch_per_cycle;
        // candidates (operands all present), oldest allocation first; collectors waiting for
        // operands are counted in the same pass
        let mut cands = [0u8; 64];
        let mut n = 0;
        let cols = &self.subs[sc].collectors;
        // the collectors with every operand granted; the other busy ones wait for operands
        let mut granted = self.subs[sc].granted;
        while granted != 0 {
            let i = granted.trailing_zeros() as usize;
            granted &= granted - 1;
            let Some(c) = cols.get(i) else {
                break;
            };
            // written always, kept if a candidate (no data-dependent branch)
            cands[n] = i as u8;
            n += usize::from(c.ready_at <= now);
        }
        self.act.operand_wait_cycles += u64::from(self.subs[sc].busy_collectors) - n as u64;
        // oldest allocation first: insertion by `seq` (unique), the order
        // `sort_unstable_by_key(seq)` gives
        for k in 1..n {
            let x = cands[k];
            let key = cols[usize::from(x)].seq;
            let mut j = k;
            while j > 0 && cols[usize::from(cands[j - 1])].seq > key {
                cands[j] = cands[j - 1];
                j -= 1;
            }
            cands[j] = x;
        }
        for &ci in &cands[..n] {
            if dispatched >= limit {
                break;
            }
            if self.try_dispatch(sh, model, mem, sc, usize::from(ci), now)? {
                dispatched += 1;
                progress = true;
            } else {
                self.act.exec_unit_busy_cycles += 1;
            }
        }
        Ok(progress)
    }

    fn try_dispatch<F: FunctionalWarpModel, M: MemoryTiming>(
        &mut self,
        sh: &mut Shared,
        model: &mut F,
        mem: &mut M,
        sc: usize,
        ci: usize,
        now: u64,
    ) -> Result<bool, TimingError> {
        // split borrows up to the model's step (taken again after it, below)
        let Sm {
            subs,
            warps,
            design,
            ldst_free,
            wb,
            wb_free,
            preds,
            mem_buf,
            id,
            ..
        } = self;
        let id = *id;
        let sub = &mut subs[sc];
        let Some(c) = sub.collectors.get_mut(ci) else {
            return Ok(false);
        };
        let Some(sid) = c.sid else {
            return Ok(false);
        };
        let (class, func, pc) = {
            let i = sh.info(sid);
            (i.class, i.func, i.pc)
        };
        let (pool, timing) = class_timing(sh.cfg, class);
        // unit availability
        let unit = match pool {
            Some(p) => match sub.units[p].iter().position(|&f| f <= now) {
                Some(k) => Some((p, k)),
                None => return Ok(false),
            },
            None => None,
        };
        let ldst = if class == UnitClass::Mem {
            match ldst_free.iter().position(|&f| f <= now) {
                Some(k) => Some(k),
                None => return Ok(false),
            }
        } else {
            None
        };
        let slot = c.slot;
        let Some(w) = warps[usize::from(slot)].as_ref() else {
            return Ok(false);
        };
        let key = w.key;
        let cta = w.cta;
        let ws = WarpSlot {
            slot,
            sub_core: sc as u8,
        };
        // functional execution with the collected operands
        let idx = wb_free.pop().unwrap_or_else(|| {
            wb.push(WbEntry::default());
            wb.len() - 1
        });
        let writes = &mut wb[idx].writes;
        writes.clear();
        let pbase = usize::from(slot) * 32;
        let nops = c.nops;
        let (step, uncollected) = {
            let mut ad = Collected {
                ops: &c.ops[..nops],
                design,
                warp: ws,
                preds: &mut preds[pbase..pbase + 32],
                writes,
                uncollected: 0,
            };
            let r = model.step(key, &mut ad, mem_buf);
            let u = ad.uncollected;
            (r, u)
        };
        let step = match step {
            Ok(s) => s,
            Err(source) => return Err(TimingError::Model { warp: key, source }),
        };
        // the borrows taken again from `self` after the model's call: otherwise the
        // compiler keeps every field pointer taken before it alive across the call, on the
        // stack (`black_box` hides that they are the same)
        let Sm {
            subs,
            warps,
            design,
            act,
            rf_act,
            mem_act,
            ldst_free,
            wb,
            mem_buf,
            by_class,
            events,
            merge,
            array,
            ..
        } = std::hint::black_box(&mut *self);
        let sub = &mut subs[sc];
        let c = &mut sub.collectors[ci];
        act.uncollected_reads += uncollected;
        act.warp_instructions += 1;
        act.thread_instructions += u64::from(step.active_mask.count_ones());
        {
            // the uniform datapath's accesses: activity only, never the designs' banks
            let k = &sh.st(sid).key;
            act.uniform_reads += u64::from(k.uniform_reads);
            act.uniform_writes += u64::from(k.uniform_writes);
        }
        by_class[class as usize] += 1;
        act.collector_reads += nops as u64;
        // pir releases (the list is looked up only for an instruction that has one)
        let pir = if sh.st(sid).has_pir {
            sh.func_tables(func).and_then(|t| t.pir.get(pc as usize))
        } else {
            None
        };
        if let Some(list) = pir {
            act.releases_pir += release_all(design, rf_act, id, now, ws, list, ReleaseCause::Pir);
        }
        // timing
        let mut from_load = false;
        // the result waits for the w-merge slot's reads (their last grant schedules it)
        let mut merging = false;
        let ready = match class {
            UnitClass::Mem => {
                let lk = ldst.unwrap_or(0);
                let acc = &*mem_buf;
                if step.mem {
                    let global = matches!(acc.space, MemSpaceKind::Global | MemSpaceKind::Local);
                    from_load = acc.kind != MemOpKind::Store && global;
                    let g = GlobalAccess {
                        warp: ws,
                        access: acc,
                        info: sh.info(sid),
                        l1_hit: (global && design.probes_l1()).then(|| mem.l1_probe(now, id, acc)),
                        merge_slot_free: !merge.busy,
                        memory: model.global_reader(),
                    };
                    let route = if global {
                        let mut ctx = RfCtx {
                            now,
                            sm: id,
                            act: rf_act,
                        };
                        design.global_access(&mut ctx, &g)
                    } else {
                        MemRoute::Hierarchy
                    };
                    match route {
                        MemRoute::Served { latency } => {
                            mem_act.rf_design_served += 1;
                            ldst_free[lk] = now + 1;
                            now + u64::from(latency.max(1))
                        }
                        MemRoute::Merge {
                            banks,
                            reads,
                            latency,
                        } => {
                            mem_act.rf_design_served += 1;
                            ldst_free[lk] = now + 1;
                            let n = usize::from(reads.clamp(1, 2));
                            let nb = sub.bank_q.len();
                            *merge = MergeSlot {
                                busy: true,
                                warp: ws,
                                func: g.info.func,
                                pc: g.info.pc,
                                wb: idx,
                                pending: n as u8,
                                ready_at: now,
                                latency,
                            };
                            for (k, &b) in banks.iter().take(n).enumerate() {
                                let b = usize::from(b).min(nb - 1);
                                sub.bank_q[b].push_back((MERGE_COL, k as u8));
                                sub.queued_reads += 1;
                            }
                            merging = true;
                            u64::MAX
                        }
                        MemRoute::Array {
                            reads,
                            miss_lanes,
                            latency,
                            extra,
                            wait_until,
                            via_l1,
                        } => {
                            while let Some(f) = design.take_writeback() {
                                mem.fetch(now, id, &f, mem_act);
                            }
                            let mut ready = (now + u64::from(latency.max(1))).max(wait_until);
                            let hits: u16 = reads.iter().map(|&r| u16::from(r)).sum();
                            // the LD/ST unit takes one line per cycle, hits and misses alike
                            let mut ldst = u64::from(hits);
                            let part = miss_lanes & acc.mask;
                            if part != 0 {
                                let mut m = acc.clone();
                                m.mask = part;
                                let t =
                                    mem.access(now + u64::from(extra), id, &m, !via_l1, mem_act);
                                ldst += u64::from(t.ldst_cycles);
                                ready = ready.max(t.ready_at);
                                let mut ctx = RfCtx {
                                    now,
                                    sm: id,
                                    act: rf_act,
                                };
                                design.global_timed(&mut ctx, &g, t.ready_at);
                            } else {
                                mem_act.rf_design_served += 1;
                                match acc.space {
                                    MemSpaceKind::Local => mem_act.local_instructions += 1,
                                    _ => mem_act.global_instructions += 1,
                                }
                            }
                            ldst_free[lk] = now + ldst.max(1);
                            match (hits > 0).then(|| array.start(idx, hits, ready)).flatten() {
                                Some(k) => {
                                    let nb = sub.bank_q.len();
                                    for (b, &n) in reads.iter().enumerate() {
                                        let b = b.min(nb - 1);
                                        for _ in 0..n {
                                            sub.bank_q[b].push_back((ARRAY_COL, k));
                                            sub.queued_reads += 1;
                                        }
                                    }
                                    merging = true;
                                    u64::MAX
                                }
                                // no hit, or every slot taken (then no port is modelled)
                                None => ready,
                            }
                        }
                        MemRoute::Hierarchy | MemRoute::SkipL1 { .. } => {
                            let (skip, extra) = match route {
                                MemRoute::SkipL1 { extra } => {
                                    while let Some(f) = design.take_writeback() {
                                        mem.fetch(now, id, &f, mem_act);
                                    }
                                    (true, u64::from(extra))
                                }
                                _ => (false, 0),
                            };
                            let t = mem.access(now + extra, id, acc, skip, mem_act);
                            ldst_free[lk] = now + u64::from(t.ldst_cycles.max(1));
                            if from_load && global {
                                let mut ctx = RfCtx {
                                    now,
                                    sm: id,
                                    act: rf_act,
                                };
                                design.global_timed(&mut ctx, &g, t.ready_at);
                            }
                            t.ready_at.max(now + 1)
                        }
                    }
                } else {
                    ldst_free[lk] = now + 1;
                    now + 1
                }
            }
            _ => {
                if let Some((p, k)) = unit {
                    sub.units[p][k] = now + u64::from(timing.initiation.max(1));
                }
                now + u64::from(timing.latency.max(1))
            }
        };
        // free the collector
        c.busy = false;
        c.sid = None;
        c.nops = 0;
        sub.busy_collectors -= 1;
        sub.granted &= !(1u64 << ci);
        sub.free_mask |= 1 << ci;
        sub.dirty = true;
        {
            let mut ctx = RfCtx {
                now,
                sm: id,
                act: rf_act,
            };
            design.collector_released(&mut ctx, ws, ci as u16);
        }
        // warp state
        let next = sh.next_sid(model, key);
        let mut arrival = None;
        if let Some(w) = warps[usize::from(slot)].as_mut() {
            w.in_collector = false;
            w.inflight += 1;
            w.next = next;
            w.next_mask = next.map_or([0; 4], |i| sh.st(i).mask);
            w.next_preds = next.map_or(0, |i| sh.info(i).src_preds | sh.info(i).dst_preds);
            w.next_ur = next.map_or(0, |i| sh.info(i).src_uniform | sh.info(i).dst_uniform);
            w.has_next = next.is_some();
            // (`from_load` implies a memory instruction; all-ones or zero, no branch)
            let load = 0u64.wrapping_sub(u64::from(from_load));
            for (p, m) in w.pending_mem.iter_mut().zip(&sh.st(sid).dst_mask) {
                *p |= m & load;
            }
            if class == UnitClass::Branch {
                w.no_issue_until = now + u64::from(timing.latency);
            }
            if let Some(n) = next {
                // the next instruction's fetch: an instruction-cache miss holds the warp
                let f = mem.inst_fetch(now, id, sh.st(n).code, mem_act);
                if f > now {
                    w.no_issue_until = w.no_issue_until.max(f);
                }
            }
            w.exited |= step.exited | next.is_none();
            if let Some(a) = step.barrier.filter(|_| !w.exited) {
                w.at_barrier |= a.wait;
                arrival = Some(a);
            }
        }
        let e = &mut wb[idx];
        for w in e.writes.iter() {
            design.prefetch(ws, w.0);
        }
        e.live = true;
        e.slot = slot;
        e.sub_core = sc as u8;
        e.sid = sid;
        e.collector = ci as u16;
        e.from_load = from_load;
        e.done = 0;
        e.route = None;
        e.complete_at = ready;
        if !merging {
            events.push(ready, idx);
        }
        self.refresh_gate(usize::from(slot));
        if let Some(a) = arrival {
            self.arrive(cta, key, a);
        }
        // (most instructions start no block with a release list: no call)
        if next.is_some_and(|i| sh.st(i).pbr_block.is_some()) {
            self.apply_pbr(sh, slot, now);
        }
        Ok(true)
    }

    /// Warp `key` of CTA slot `cta` arrives at a barrier; releases the barrier's warps if
    /// that completes it.
    #[cold]
    #[inline(never)]
    fn arrive(&mut self, cta: usize, key: WarpKey, a: Arrival) {
        let Some(c) = self.ctas[cta].as_mut() else {
            return;
        };
        // warp keys are `cta id × warps per CTA + index`
        let local = key.wrapping_sub(c.id.wrapping_mul(c.warps.len() as u32)) as usize;
        if let Some(m) = c.barriers.arrive(local, a) {
            self.release_barrier(cta, m);
        }
    }

    /// Recomputes the [`Gate`] of warp slot `slot` from the warp.
    #[inline(always)]
    fn refresh_gate(&mut self, slot: usize) {
        // a slot always belongs to sub-core `slot % sub_cores` (see `Sm::new`), which a
        // resident warp records (no division on the common path)
        let (g, sc) = match self.warps[slot].as_ref() {
            Some(w) => (
                Gate {
                    verdict: w.gate_of(),
                    no_issue_until: w.no_issue_until,
                },
                usize::from(w.sub_core),
            ),
            None => (Gate::EMPTY, slot % self.subs.len()),
        };
        self.set_gate(slot, sc, g);
    }

    /// Stores gate `g` of warp slot `slot` (of sub-core `sc`) and its `ready`/`waiting`
    /// bits: [`Sm::refresh_gate`]'s second half, for a caller that knows the verdict.
    #[inline(always)]
    fn set_gate(&mut self, slot: usize, sc: usize, g: Gate) {
        debug_assert_eq!(sc, slot % self.subs.len());
        self.gates[slot] = g;
        if slot < 64 {
            let bit = 1u64 << slot;
            let s = &mut self.subs[sc];
            // set or clear without a data-dependent branch
            let free = 0u64.wrapping_sub(u64::from(g.verdict.is_none()));
            let wait = 0u64.wrapping_sub(u64::from(g.no_issue_until > 0));
            s.ready = (s.ready & !bit) | (bit & free);
            s.waiting = (s.waiting & !bit) | (bit & wait);
        }
    }

    /// Why warp `slot` cannot issue now (None = it can).
    #[inline]
    fn blocked(&self, slot: u16, now: u64) -> Option<StallKind> {
        let g = self.gates[usize::from(slot)];
        debug_assert_eq!(
            g,
            self.warps[usize::from(slot)]
                .as_ref()
                .map_or(Gate::EMPTY, |w| Gate {
                    verdict: w.gate_of(),
                    no_issue_until: w.no_issue_until,
                })
        );
        match g.verdict {
            Some(StallKind::Idle) => Some(StallKind::Idle),
            Some(StallKind::Barrier) => Some(StallKind::Barrier),
            _ if g.no_issue_until > now => Some(StallKind::NoInstruction),
            v => v,
        }
    }

    /// Fills `order` with the scheduler's candidate order, or, for GTO when every design
    /// priority is equal, returns `Some(p)` instead: the order is then `by_age` with the
    /// greedy warp (at position `p`, if `p` is `Some`) moved to the front, read in place by
    /// [`Sm::issue`] ([`gto_at`]).
    #[inline(never)]
    fn build_order(&mut self, sh: &Shared, sc: usize, now: u64) -> Option<Option<usize>> {
        let policy = sh.cfg.sm.scheduler.policy;
        if policy == SchedulerPolicy::Gto {
            let sub = &self.subs[sc];
            if self.same_priority(sc) {
                // the greedy warp, then the others oldest first: what `sort_gto` gives
                // when all design priorities are equal, without sorting or copying
                let last = sub.last_issued;
                return Some(last.and_then(|l| sub.by_age.iter().position(|&s| s == l)));
            }
        }
        let mut order = std::mem::take(&mut self.subs[sc].order);
        order.clear();
        let sub = &self.subs[sc];
        let resident = |s: u16| self.warps[usize::from(s)].is_some();
        match policy {
            SchedulerPolicy::Lrr => {
                let n = sub.warps.len();
                let start = sub
                    .last_issued
                    .and_then(|l| sub.warps.iter().position(|&s| s == l))
                    .map_or(0, |p| p + 1);
                for k in 0..n {
                    let s = sub.warps[(start + k) % n];
                    if resident(s) {
                        order.push(s);
                    }
                }
            }
            SchedulerPolicy::Gto => {
                // unequal design priorities: the full GTO sort
                let last = sub.last_issued;
                order.extend(sub.warps.iter().copied().filter(|&s| resident(s)));
                let mut keys = std::mem::take(&mut self.subs[sc].keys);
                self.sort_gto(&mut order, last, &mut keys);
                self.subs[sc].keys = keys;
            }
            SchedulerPolicy::TwoLevel { active_warps } => {
                // demote warps waiting on memory or done; promote oldest pending non-blocked
                let mut active = std::mem::take(&mut self.subs[sc].active_set);
                active.retain(|&s| {
                    resident(s)
                        && !matches!(
                            self.blocked(s, now),
                            Some(StallKind::Memory) | Some(StallKind::Barrier)
                        )
                        && !self.warps[usize::from(s)]
                            .as_ref()
                            .is_some_and(|w| w.exited)
                });
                let mut pending: Vec<u16> = self.subs[sc]
                    .warps
                    .iter()
                    .copied()
                    .filter(|&s| {
                        resident(s)
                            && !active.contains(&s)
                            && !matches!(
                                self.blocked(s, now),
                                Some(StallKind::Memory) | Some(StallKind::Barrier)
                            )
                            && !self.warps[usize::from(s)]
                                .as_ref()
                                .is_some_and(|w| w.exited)
                    })
                    .collect();
                pending.sort_by_key(|&s| self.warps[usize::from(s)].as_ref().map_or(0, |w| w.age));
                for s in pending {
                    if active.len() >= active_warps as usize {
                        break;
                    }
                    active.push(s);
                }
                order.extend(active.iter().copied());
                let mut keys = std::mem::take(&mut self.subs[sc].keys);
                self.sort_gto(&mut order, self.subs[sc].last_issued, &mut keys);
                self.subs[sc].keys = keys;
                self.subs[sc].active_set = active;
            }
        }
        self.subs[sc].order = order;
        None
    }

    /// Whether the design gives every resident warp of sub-core `sc` the same priority.
    fn same_priority(&self, sc: usize) -> bool {
        self.subs[sc]
            .by_age
            .windows(2)
            .all(|p| self.priority(p[0]) == self.priority(p[1]))
    }

    /// The GTO scheduler when every design priority is equal and warp slots fit a `u64`
    /// mask: the decision [`Sm::issue`]'s scan of the order (greedy warp, then the others
    /// oldest first) makes, found from the sub-core's `ready`/`waiting` masks. The warps
    /// the scan issues are the first `issue_width` free ones in that order: the greedy warp
    /// if free, then the free ones by age. With none issued, the stall reason is the first
    /// warp's in the order, or a full collector if a free warp found none. `wake_at` is the
    /// earliest end of any redirect wait (the scan takes it over the warps before the first
    /// free one: a wake-up at an earlier time re-evaluates to the same decision).
    ///
    /// `pri`: the design's priorities of the sub-core's resident warps (by slot) when they
    /// are not all equal; the order is then the greedy warp, then the others by priority
    /// (highest first) and age, as [`Sm::sort_gto`] sorts them.
    fn issue_gto(
        &mut self,
        sh: &mut Shared,
        sc: usize,
        now: u64,
        pri: Option<&[u8; 64]>,
    ) -> Result<bool, TimingError> {
        let mut cand = self.subs[sc].ready;
        let mut wake = u64::MAX;
        let mut wt = self.subs[sc].waiting;
        while wt != 0 {
            let s = wt.trailing_zeros() as usize;
            wt &= wt - 1;
            let until = self.gates[s].no_issue_until;
            if until > now {
                cand &= !(1u64 << s);
                wake = wake.min(until);
            } else {
                self.subs[sc].waiting &= !(1u64 << s);
            }
        }
        self.subs[sc].wake_at = wake;
        let greedy = self.subs[sc].last_issued;
        let width = sh.cfg.sm.scheduler.issue_width;
        let mut issued = 0;
        let mut reason: Option<StallKind> = None;
        while issued < width && cand != 0 {
            let slot = match greedy {
                Some(g) if g < 64 && cand >> g & 1 != 0 => g,
                _ => self.first_of(cand, pri),
            };
            cand &= !(1u64 << slot);
            if self.subs[sc].free_mask == 0 {
                reason = Some(StallKind::CollectorFull);
                break;
            }
            match self.choose(sc, slot, now) {
                Ok(Some(ci)) => {
                    self.issue_to(sh, sc, ci, slot, now)?;
                    issued += 1;
                }
                Ok(None) => {
                    self.subs[sc].dirty = true;
                    reason = Some(StallKind::CollectorFull);
                }
                Err(()) => {
                    // the design stalls this scheduler for the cycle
                    self.subs[sc].dirty = true;
                    reason = Some(StallKind::CollectorFull);
                    break;
                }
            }
        }
        if issued == 0 && reason.is_none() {
            let first = self.first_in_order(sc, pri);
            reason = first.and_then(|s| self.blocked(s, now));
        }
        let any = self.end_issue(sc, issued, reason);
        if any && cand == 0 && reason.is_none() {
            // every candidate issued: until something marks the sub-core dirty (a dispatch,
            // completion, launch, retirement or barrier: every change of a gate, of
            // `free_mask` or of the warps) or a redirect wait ends (`wake_at`), the next
            // evaluation finds no candidate and stalls on the greedy warp, the last one
            // issued, which waits in its collector
            if let Some(g) = self.subs[sc].last_issued {
                let r = self.blocked(g, now + 1);
                let s = &mut self.subs[sc];
                s.last_stall = r.unwrap_or(StallKind::Idle);
                s.dirty = false;
            }
        }
        Ok(any)
    }

    /// What [`Sm::issue_gto`] would record at `now` without changing anything: the stall
    /// reason, or None if it would issue (or offer a warp to the design). Debug builds check
    /// every evaluation skipped as unchanged (`dirty` clear) against it.
    #[cfg(debug_assertions)]
    fn gto_outcome(&self, sc: usize, now: u64, pri: Option<&[u8; 64]>) -> Option<StallKind> {
        let s = &self.subs[sc];
        let mut cand = s.ready;
        let mut wt = s.waiting;
        while wt != 0 {
            let b = wt.trailing_zeros() as usize;
            wt &= wt - 1;
            if self.gates[b].no_issue_until > now {
                cand &= !(1u64 << b);
            }
        }
        if cand != 0 {
            return (s.free_mask == 0).then_some(StallKind::CollectorFull);
        }
        let first = self.first_in_order(sc, pri);
        Some(
            first
                .and_then(|f| self.blocked(f, now))
                .unwrap_or(StallKind::Idle),
        )
    }

    /// Age of the warp in `slot` (the GTO tie-break).
    fn age(&self, slot: u16) -> u64 {
        self.warps[usize::from(slot)]
            .as_ref()
            .map_or(u64::MAX, |w| w.age)
    }

    /// The design's priority of every resident warp of sub-core `sc`, by slot (< 64).
    fn priorities(&self, sc: usize) -> [u8; 64] {
        let mut p = [0u8; 64];
        for &s in &self.subs[sc].by_age {
            if let Some(x) = p.get_mut(usize::from(s)) {
                *x = self.priority(s);
            }
        }
        p
    }

    /// The first warp of `cand` (a slot mask) in GTO order after the greedy warp: the
    /// oldest, or with `pri` the highest priority, then the oldest.
    #[inline]
    fn first_of(&self, cand: u64, pri: Option<&[u8; 64]>) -> u16 {
        let mut m = cand;
        let mut best = m.trailing_zeros() as u16;
        m &= m - 1;
        while m != 0 {
            let s = m.trailing_zeros() as u16;
            m &= m - 1;
            let better = match pri {
                None => self.age(s) < self.age(best),
                Some(p) => {
                    let (a, b) = (p[usize::from(s)], p[usize::from(best)]);
                    a > b || (a == b && self.age(s) < self.age(best))
                }
            };
            if better {
                best = s;
            }
        }
        best
    }

    /// The first warp of sub-core `sc`'s GTO order: the greedy warp, else the oldest (with
    /// `pri`: the greedy warp if resident, else the highest priority, then the oldest).
    fn first_in_order(&self, sc: usize, pri: Option<&[u8; 64]>) -> Option<u16> {
        let s = &self.subs[sc];
        match pri {
            None => s.last_issued.or_else(|| s.by_age.first().copied()),
            Some(_) => s
                .last_issued
                .filter(|&g| self.warps.get(usize::from(g)).is_some_and(|w| w.is_some()))
                .or_else(|| {
                    let all = s.by_age.iter().fold(0u64, |m, &x| m | 1u64 << x);
                    (all != 0).then(|| self.first_of(all, pri))
                }),
        }
    }

    /// The design's collector choice for warp `slot` among the free collectors of `sc`:
    /// `Ok(Some(c))`, `Ok(None)` if it chose to wait (or named a collector that is not free),
    /// `Err(())` if it stalls the scheduler for this cycle.
    fn choose(&mut self, sc: usize, slot: u16, now: u64) -> Result<Option<usize>, ()> {
        let ws = WarpSlot {
            slot,
            sub_core: sc as u8,
        };
        let mut ctx = RfCtx {
            now,
            sm: self.id,
            act: &mut self.rf_act,
        };
        match self
            .design
            .choose_collector(&mut ctx, ws, self.subs[sc].free_mask)
        {
            CollectorChoice::Use(c)
                if usize::from(c) < self.subs[sc].collectors.len()
                    && self.subs[sc].free_mask >> c & 1 != 0 =>
            {
                Ok(Some(usize::from(c)))
            }
            CollectorChoice::Stall => Err(()),
            _ => Ok(None),
        }
    }

    /// Records the outcome of a scheduler evaluation; returns whether a warp issued.
    fn end_issue(&mut self, sc: usize, issued: u32, reason: Option<StallKind>) -> bool {
        let kind = if issued > 0 {
            StallKind::Issued
        } else {
            reason.unwrap_or(StallKind::Idle)
        };
        self.subs[sc].last_stall = kind;
        if issued > 0 {
            self.subs[sc].dirty = true;
        }
        self.stalls[kind as usize] += 1;
        issued > 0
    }

    /// The design's scheduling priority of a resident warp.
    fn priority(&self, s: u16) -> u8 {
        // `get`, not indexing: with a design whose priority is a constant the whole
        // equal-priority check folds away
        self.warps
            .get(usize::from(s))
            .and_then(|w| w.as_ref())
            .map_or(0, |w| {
                self.design.warp_priority(WarpSlot {
                    slot: s,
                    sub_core: w.sub_core,
                })
            })
    }

    fn sort_gto(
        &self,
        order: &mut [u16],
        last: Option<u16>,
        keys: &mut Vec<(bool, Reverse<u8>, u64, u16)>,
    ) {
        keys.clear();
        for &s in order.iter() {
            let w = self.warps[usize::from(s)].as_ref();
            let age = self.age(s);
            let pri = w.map_or(0, |w| {
                self.design.warp_priority(WarpSlot {
                    slot: s,
                    sub_core: w.sub_core,
                })
            });
            keys.push((Some(s) != last, Reverse(pri), age, s));
        }
        keys.sort_unstable();
        for (o, k) in order.iter_mut().zip(keys.iter()) {
            *o = k.3;
        }
    }

    fn issue(&mut self, sh: &mut Shared, sc: usize, now: u64) -> Result<bool, TimingError> {
        if !self.subs[sc].dirty && now < self.subs[sc].wake_at {
            // nothing changed since the last evaluation: same decision (no issue)
            #[cfg(debug_assertions)]
            if self.warps.len() <= 64 && sh.cfg.sm.scheduler.policy == SchedulerPolicy::Gto {
                let pri = (!self.same_priority(sc)).then(|| self.priorities(sc));
                assert_eq!(
                    self.gto_outcome(sc, now, pri.as_ref()),
                    Some(self.subs[sc].last_stall),
                    "SM {} sub-core {sc}, cycle {now}: a skipped evaluation would differ",
                    self.id
                );
            }
            self.stalls[self.subs[sc].last_stall as usize] += 1;
            return Ok(false);
        }
        self.subs[sc].dirty = false;
        self.subs[sc].wake_at = u64::MAX;
        if self.warps.len() <= 64 && sh.cfg.sm.scheduler.policy == SchedulerPolicy::Gto {
            if self.same_priority(sc) {
                return self.issue_gto(sh, sc, now, None);
            }
            // unequal design priorities (seed 003): the same decision from the masks, with
            // the priorities as the sort would take them, once at the start
            let pri = self.priorities(sc);
            return self.issue_gto(sh, sc, now, Some(&pri));
        }
        self.issue_scan(sh, sc, now)
    }

    /// The scheduler's general path: builds the policy's order ([`Sm::build_order`]) and
    /// issues the first free warps in it (LRR, two-level, GTO with design priorities or more
    /// than 64 warp slots).
    #[inline(never)]
    fn issue_scan(&mut self, sh: &mut Shared, sc: usize, now: u64) -> Result<bool, TimingError> {
        let gto = self.build_order(sh, sc, now);
        let order = match gto {
            Some(_) => Vec::new(),
            None => std::mem::take(&mut self.subs[sc].order),
        };
        let n = match gto {
            Some(_) => self.subs[sc].by_age.len(),
            None => order.len(),
        };
        let width = sh.cfg.sm.scheduler.issue_width;
        let mut issued = 0;
        let mut reason: Option<StallKind> = None;
        for k in 0..n {
            if issued >= width {
                break;
            }
            let slot = match gto {
                Some(p) => gto_at(&self.subs[sc].by_age, p, k),
                None => match order.get(k) {
                    Some(&s) => s,
                    None => break,
                },
            };
            if let Some(r) = self.blocked(slot, now) {
                if reason.is_none() {
                    reason = Some(r);
                }
                let until = self.gates[usize::from(slot)].no_issue_until;
                if until > now {
                    let s = &mut self.subs[sc];
                    s.wake_at = s.wake_at.min(until);
                }
                continue;
            }
            if self.subs[sc].free_mask == 0 {
                // a ready warp found no collector: that is the reason, whatever came before
                reason = Some(StallKind::CollectorFull);
                break;
            }
            let ci = match self.choose(sc, slot, now) {
                Ok(Some(ci)) => ci,
                Ok(None) => {
                    // the design's policy may change its mind next cycle
                    self.subs[sc].dirty = true;
                    reason = Some(StallKind::CollectorFull);
                    continue;
                }
                Err(()) => {
                    // the design stalls this scheduler for the cycle
                    self.subs[sc].dirty = true;
                    reason = Some(StallKind::CollectorFull);
                    break;
                }
            };
            self.issue_to(sh, sc, ci, slot, now)?;
            issued += 1;
        }
        if gto.is_none() {
            self.subs[sc].order = order;
        }
        Ok(self.end_issue(sc, issued, reason))
    }

    /// Adds the scheduler-cycle counts per [`StallKind`] (`stalls`, indexed by the kind:
    /// an add where a `match` on the kind was a data-dependent jump every scheduler cycle)
    /// to the activity record.
    fn fold_stalls(&mut self) {
        let s = &mut self.act.stalls;
        let c = std::mem::take(&mut self.stalls);
        s.issued += c[StallKind::Issued as usize];
        s.idle += c[StallKind::Idle as usize];
        s.no_instruction += c[StallKind::NoInstruction as usize];
        s.scoreboard += c[StallKind::Scoreboard as usize];
        s.memory += c[StallKind::Memory as usize];
        s.collector_full += c[StallKind::CollectorFull as usize];
        s.barrier += c[StallKind::Barrier as usize];
    }

    fn issue_to(
        &mut self,
        sh: &mut Shared,
        sc: usize,
        ci: usize,
        slot: u16,
        now: u64,
    ) -> Result<(), TimingError> {
        let Some(w) = self.warps[usize::from(slot)].as_mut() else {
            return Ok(());
        };
        let Some(sid) = w.next else {
            return Ok(());
        };
        let st = sh.st(sid);
        let info = &st.key;
        if let Some(r) = st.bad_reg {
            return Err(TimingError::RegisterRange {
                pc: info.pc,
                reg: r,
            });
        }
        for k in 0..4 {
            w.pending[k] |= st.dst_mask[k];
        }
        w.pending_pred |= info.dst_preds;
        w.pending_ur |= info.dst_uniform;
        w.in_collector = true;
        // a warp that issues is not at a barrier, so in its collector its verdict is "no
        // instruction" ([`Warp::gate_of`]), without the scoreboard test
        debug_assert_eq!(w.gate_of(), Some(StallKind::NoInstruction));
        let g = Gate {
            verdict: Some(StallKind::NoInstruction),
            no_issue_until: w.no_issue_until,
        };
        self.set_gate(usize::from(slot), sc, g);
        self.subs[sc].last_issued = Some(slot);
        self.subs[sc].free_mask &= !(1u64 << ci);
        self.collector_seq += 1;
        self.act.collector_allocations += 1;
        let ws = WarpSlot {
            slot,
            sub_core: sc as u8,
        };
        {
            let mut ctx = RfCtx {
                now,
                sm: self.id,
                act: &mut self.rf_act,
            };
            self.design.issued(&mut ctx, ws, info.func, info.pc);
        }
        let nb = self.subs[sc].bank_q.len();
        let SubCore {
            collectors,
            bank_q,
            queued_reads,
            busy_collectors,
            granted,
            ..
        } = &mut self.subs[sc];
        let c = &mut collectors[ci];
        c.busy = true;
        *busy_collectors += 1;
        c.slot = slot;
        c.sid = Some(sid);
        c.nops = 0;
        c.pending = 0;
        c.ready_at = now + 1;
        c.seq = self.collector_seq;
        for (k, &r) in info.srcs.as_slice().iter().enumerate() {
            let reuse = st.src_reuse.get(k).copied().flatten();
            let last_use = st.src_last >> k & 1 != 0;
            let op = OperandRef {
                warp: ws,
                reg: r,
                collector: ci as u16,
                func: info.func,
                pc: info.pc,
                reuse,
                last_use,
            };
            let mut ctx = RfCtx {
                now,
                sm: self.id,
                act: &mut self.rf_act,
            };
            let route = self.design.route_read(&mut ctx, &op);
            if c.ops.len() <= k {
                c.ops.push(OpSlot::EMPTY);
            }
            let slot_v = &mut c.ops[k];
            slot_v.reg = r;
            slot_v.granted = false;
            slot_v.ready_at = u64::MAX;
            slot_v.last_use = last_use;
            slot_v.reuse = reuse;
            c.nops = k + 1;
            match route {
                Route::Bank(b) => {
                    let b = usize::from(b).min(nb - 1);
                    self.design.prefetch(ws, r);
                    bank_q[b].push_back((ci as u16, k as u8));
                    *queued_reads += 1;
                    c.pending += 1;
                }
                Route::Bypass => {
                    let out = self.design.read(&mut ctx, &op);
                    let extra = match out.delay {
                        Delay::None => 0,
                        Delay::Cycles(x) => u64::from(x),
                        // a bypass cannot wait for memory; treat as its extra cycles
                        Delay::Memory { extra, .. } => u64::from(extra),
                    };
                    slot_v.values = out.values;
                    slot_v.granted = true;
                    slot_v.ready_at = now + 1 + extra;
                    c.ready_at = c.ready_at.max(slot_v.ready_at);
                    // a value already in the collector (a collector-cache hit) is not
                    // written into it again: `collector_writes` counts bank deliveries
                    self.act.bypassed_reads += 1;
                }
            }
        }
        if c.pending == 0 {
            *granted |= 1u64 << ci;
        }
        Ok(())
    }

    /// Earliest future cycle at which something is scheduled on this SM.
    fn next_event(&self, now: u64) -> Option<u64> {
        let mut t: Option<u64> = None;
        let mut upd = |x: u64| {
            if x > now {
                t = Some(t.map_or(x, |y: u64| y.min(x)));
            }
        };
        if let Some(x) = self.events.next_time() {
            upd(x);
        }
        for s in &self.subs {
            for c in &s.collectors {
                if c.busy && c.pending == 0 {
                    upd(c.ready_at);
                    for u in s.units.iter().flatten() {
                        upd(*u);
                    }
                    for u in &self.ldst_free {
                        upd(*u);
                    }
                }
            }
            if !s.wb_q.is_empty() {
                upd(now + 1);
            }
        }
        for w in self.warps.iter().flatten() {
            upd(w.no_issue_until);
        }
        t
    }

    fn account_skipped(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        for s in &self.subs {
            self.stalls[s.last_stall as usize] += n;
            for c in &s.collectors {
                if c.busy {
                    self.act.operand_wait_cycles += n;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Events, Ring, MAX_CYCLES};
    use std::cmp::Reverse;
    use std::collections::{BinaryHeap, VecDeque};

    /// The sorted event list gives the order of a min-heap of (cycle, index) keys: earliest
    /// cycle first, lowest index first within a cycle, whatever the insertion order.
    #[test]
    fn issue5_events_pop_in_heap_order() {
        let mut ev = Events::default();
        let mut heap = BinaryHeap::new();
        let mut popped = (Vec::new(), Vec::new());
        // a deterministic scramble of cycles (with repeats) and indices, pushes and pops mixed
        let mut x: u64 = 12345;
        for step in 0..2000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = (x >> 33) % 50 + step / 10;
            let idx = ((x >> 20) % 64) as usize;
            ev.push(t, idx);
            heap.push(Reverse((t, idx)));
            if x.is_multiple_of(3) {
                assert_eq!(ev.next_time(), heap.peek().map(|r| r.0 .0));
                popped.0.push(ev.pop());
                popped.1.push(heap.pop().map_or(0, |r| r.0 .1));
            }
        }
        while !ev.is_empty() {
            assert_eq!(ev.next_time(), heap.peek().map(|r| r.0 .0));
            popped.0.push(ev.pop());
            popped.1.push(heap.pop().map_or(0, |r| r.0 .1));
        }
        assert!(heap.is_empty());
        assert_eq!(popped.0, popped.1);
        assert_eq!(ev.next_time(), None);
        assert_eq!(ev.pop(), 0);
    }

    /// Keys keep the full cycle range a run reaches and the full index range: cycles just
    /// below `MAX_CYCLES` and the largest index come back intact, and a time past the
    /// clamp still sorts after every time a run can reach.
    #[test]
    fn issue5_event_keys_keep_cycles_and_indices() {
        let mut ev = Events::default();
        let big = (1usize << Events::IDX_BITS) - 1;
        ev.push(u64::MAX, 3);
        ev.push(MAX_CYCLES - 1, big);
        ev.push(MAX_CYCLES - 1, 0);
        assert_eq!(ev.next_time(), Some(MAX_CYCLES - 1));
        assert_eq!(ev.pop(), 0);
        assert_eq!(ev.pop(), big);
        assert!(ev.next_time() >= Some(MAX_CYCLES));
        assert_eq!(ev.pop(), 3);
    }

    /// The operand-read ring behaves as a FIFO through wrap-around and growth past its
    /// initial capacity (checked against `VecDeque`).
    #[test]
    fn issue5_ring_is_a_fifo_through_wraps_and_growth() {
        let mut r = Ring::with_capacity(3);
        let mut d = VecDeque::new();
        let mut x: u32 = 7;
        for step in 0..3000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            // alternating spells of 100 steps: pushes only (the queue grows well past its
            // first capacity of 4), then mostly pops (it drains and wraps)
            let push = (step / 100).is_multiple_of(2) || x.is_multiple_of(3);
            if push {
                let v = ((x >> 8) as u16, (x >> 24) as u8);
                r.push_back(v);
                d.push_back(v);
            } else {
                assert_eq!(r.front(), d.front());
                r.pop_front();
                d.pop_front();
            }
            assert_eq!(r.is_empty(), d.is_empty());
        }
        while let Some(v) = d.pop_front() {
            assert_eq!(r.front(), Some(&v));
            r.pop_front();
        }
        assert!(r.is_empty());
        assert_eq!(r.front(), None);
        r.pop_front();
        assert!(r.is_empty());
    }
}
