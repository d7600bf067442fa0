//! The register-file seam: the trait every RF design implements.
//!
//! The timing core owns the *pipeline* (schedulers, scoreboard, collector units, per-bank
//! request queues, the arbiter, the crossbar, execution units, writeback); a design owns the
//! *storage*: where a register lives (bank, row, renaming table, collector cache, tagged
//! array), its value, and what an access costs beyond the bank port. The core calls the design
//! at the pipeline stage where the hardware touches the register file:
//!
//! | stage | call | who decides |
//! |---|---|---|
//! | CTA launch / warp exit | [`RegisterFileDesign::can_allocate`], [`allocate_warp`](RegisterFileDesign::allocate_warp), [`free_warp`](RegisterFileDesign::free_warp) | capacity, placement |
//! | issue | [`choose_collector`](RegisterFileDesign::choose_collector), [`warp_priority`](RegisterFileDesign::warp_priority), [`issued`](RegisterFileDesign::issued), [`warp_scheduled`](RegisterFileDesign::warp_scheduled) (two-level active set) | collector allocation policy (Malekeh §IV-B); release-flag fetch (Jeon & Annavaram 2014 §6.2) |
//! | collector allocation | [`route_read`](RegisterFileDesign::route_read) per source | bank to queue at, or a bypass (collector-cache hit) |
//! | arbiter grant | [`read`](RegisterFileDesign::read) | value + extra delay (wake-up, rename lookup, tag miss → memory) |
//! | dispatch | [`release`](RegisterFileDesign::release) (`Pir`) | Jeon & Annavaram 2014 per-instruction release |
//! | LD/ST | [`global_access`](RegisterFileDesign::global_access) (with the L1D outcome if [`probes_l1`](RegisterFileDesign::probes_l1)), [`global_timed`](RegisterFileDesign::global_timed) | serve a load from registers or from the design's own banks ([`MemRoute::Banks`]: register reads, array lines) |
//! | writeback | [`route_write`](RegisterFileDesign::route_write), [`write`](RegisterFileDesign::write) | physical register chosen at write time (Jeon & Annavaram 2014), collector-cache update (Malekeh) |
//! | block entry | [`release`](RegisterFileDesign::release) (`Pbr`) | Jeon & Annavaram 2014 per-branch release |
//! | every simulated cycle | [`tick`](RegisterFileDesign::tick) | drowsy / gating state (lazy: cycles may be skipped) |
//!
//! One design instance serves one SM (the core builds one per SM through a factory).
//! Designs count their own events in `Self::Stats` (typed, serialisable, summed over SMs) and
//! the common occupancy/interval statistics through [`crate::timing::activity::RegTracker`]
//! into the [`RfCtx::act`] record. Registers here are general 32-bit architectural registers
//! `R<n>` (predicates live in the core's predicate file).

use serde::Serialize;

use super::activity::RfActivity;
use super::functional::{InstrInfo, WarpMemAccess};

/// A hardware warp slot of an SM and the sub-core it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct WarpSlot {
    /// Slot index within the SM, `0..max_warps`.
    pub slot: u16,
    /// Sub-core (`slot % sub_cores`).
    pub sub_core: u8,
}

/// Architectural register number (`R<n>`).
pub type RegId = u16;

/// Where a register access goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Queue at this bank (index within the sub-core, `< RfLayout::banks_per_sub_core`).
    Bank(u16),
    /// No bank port needed: served by another structure (collector cache hit, value already
    /// in the collector, write filtered to a cache only). Not counted as a bank access.
    Bypass,
}

/// Extra time an access takes beyond the bank port cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delay {
    /// Ready in the normal pipeline time.
    None,
    /// Ready after this many extra cycles (wake-up of a drowsy/gated register, renaming-table
    /// bank conflict, merge ALU, ...).
    Cycles(u32),
    /// Ready once this memory access completes (Jing et al. 2016: a register missing from the tagged
    /// array is fetched from the memory hierarchy); `extra` cycles are added after it.
    /// `victim`: a memory write the fill causes (the entry it takes held a register or a
    /// dirty line that must be written back), timed but not waited for.
    Memory {
        fetch: MemFetch,
        extra: u32,
        victim: Option<MemFetch>,
    },
}

/// A memory access a design asks the core to perform (timing only; the design keeps values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemFetch {
    pub addr: u64,
    pub bytes: u32,
    pub write: bool,
}

/// One source operand of an instruction in a collector unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandRef {
    pub warp: WarpSlot,
    pub reg: RegId,
    /// Collector unit (index within the sub-core) holding the instruction.
    pub collector: u16,
    /// Function index and PC of the instruction.
    pub func: u32,
    pub pc: u32,
    /// Static distance (instructions) to the next read of this register, from
    /// `analysis.reuse` (Malekeh near/far bits); `None` = no later read.
    pub reuse: Option<u32>,
    /// The instruction releases this register after reading it (Jeon & Annavaram 2014 pir).
    pub last_use: bool,
}

/// One destination register at writeback.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteRef {
    pub warp: WarpSlot,
    pub reg: RegId,
    /// Collector unit the instruction was collected in (Malekeh writes results back into
    /// the warp's CCU through port D).
    pub collector: u16,
    pub func: u32,
    pub pc: u32,
    /// Static distance to the first read of the written value (`None`: never read).
    pub reuse: Option<u32>,
    /// The instruction was a load from global/local memory.
    pub from_load: bool,
}

/// Result of a granted read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOutcome {
    /// All 32 lanes.
    pub values: [u32; 32],
    pub delay: Delay,
}

/// Result of a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOutcome {
    /// Extra time before the write is complete (the scoreboard is released after it).
    pub delay: Delay,
    /// A memory write the design needs as a side effect (Jing et al. 2016: a victim register or
    /// dirty line spilled to L2), timed but not waited for.
    pub spill: Option<MemFetch>,
    /// A value the design writes into bank `b` as a side effect (a register cache's eviction
    /// written back to the main banks): it takes a write port of that bank in the same cycle,
    /// counted as a bank write; with no port left the eviction waits, and the instruction
    /// completes, a cycle later (counted as a write-port stall).
    pub evict_to_bank: Option<u16>,
}

impl WriteOutcome {
    pub const DONE: WriteOutcome = WriteOutcome {
        delay: Delay::None,
        spill: None,
        evict_to_bank: None,
    };
}

/// Why a register is released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum ReleaseCause {
    /// Per-instruction release flag on a source operand (Jeon & Annavaram 2014 §5.1).
    Pir,
    /// Per-branch release at the start of a (reconvergence) block (Jeon & Annavaram 2014 §5.2).
    Pbr,
    /// A destination written but never read.
    DeadDst,
}

/// The design's choice of collector unit for an issuing warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollectorChoice {
    /// Use this free collector (index within the sub-core).
    Use(u16),
    /// Do not issue this warp now; the scheduler goes on to its next ready warp this cycle
    /// (Malekeh's "same CCU only" rule, Fig. 6 ④).
    Wait,
    /// Do not issue at all this cycle: the scheduler stalls (Malekeh's STHLD wait, Fig. 6
    /// ⑦; counted as a collector-full stall).
    Stall,
}

/// What the LD/ST stage should do with a global/local memory instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemRoute {
    /// Through the normal memory hierarchy (L1D, L2, DRAM).
    Hierarchy,
    /// Through the hierarchy without the L1D (the design replaces it, Jing et al. 2016; its own
    /// lookup took `extra` cycles).
    SkipL1 { extra: u32 },
    /// Served by the design after `latency` cycles without a memory access (Jeon et al. 2019 and Elango 2017:
    /// the data already sits in registers; Jing et al. 2016: hit in the tagged array).
    Served { latency: u32 },
    /// Served by the design through accesses to its own banks ([`BankAccesses`]), and the
    /// lanes it cannot serve through the memory hierarchy.
    Banks(BankAccesses),
}

/// Banks a [`BankAccesses`] names; a design with more banks folds them onto the last.
pub const DESIGN_ACCESS_BANKS: usize = 32;

/// What each access of a [`BankAccesses`] moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BankAccessKind {
    /// A register read moved through the crossbar into the SM's collector slot for design
    /// reads (one group in flight per SM: [`GlobalAccess::design_reads_free`]), like an
    /// operand read: it takes a bank port, a crossbar transfer and a collector port, and the
    /// core calls [`RegisterFileDesign::read`] with `reg = DESIGN_READ + bank` as each is
    /// granted (a bank's accesses are granted in order). The LD/ST unit is busy one cycle.
    /// Used for loads built from registers (Jeon et al. 2019 §3: partial sharing through
    /// the w-merge collector slot).
    RegisterReads,
    /// A line access of the design's own array (read for a load, written for a store): it
    /// takes a bank port only, and the LD/ST unit one cycle per line. Used where the register
    /// file holds memory lines (Jing et al. 2016 Fig. 14) or L-registers are shuffled
    /// (Elango 2017).
    LineAccesses,
}

/// Accesses a design makes to its own banks to serve a global or local memory instruction
/// ([`MemRoute::Banks`]). They queue at the banks with the operand reads and go through the
/// same arbitration. The instruction's result is ready `after` cycles after the last access is
/// done, and no earlier than `latency` cycles after dispatch (at least 1), `wait_until`, and
/// the return of its miss lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankAccesses {
    /// Accesses at each bank (`per_bank[b]`).
    pub per_bank: [u8; DESIGN_ACCESS_BANKS],
    /// What each access moves.
    pub kind: BankAccessKind,
    /// Cycles from dispatch to the result at the earliest (a lookup, a shuffle).
    pub latency: u32,
    /// Cycles from the last access to the result (a shift/OR merge).
    pub after: u32,
    /// The result waits for this cycle too (lines already in flight, MSHR-merged).
    pub wait_until: u64,
    /// Lanes the design does not serve: they go to the memory hierarchy `extra` cycles after
    /// dispatch (the design's lookup), through the L1D when `via_l1` and below it otherwise,
    /// and the design hears when they return ([`RegisterFileDesign::global_timed`]).
    pub miss_lanes: u32,
    pub extra: u32,
    pub via_l1: bool,
}

impl BankAccesses {
    /// No access, of kind `kind`.
    pub const fn none(kind: BankAccessKind) -> BankAccesses {
        BankAccesses {
            per_bank: [0; DESIGN_ACCESS_BANKS],
            kind,
            latency: 0,
            after: 0,
            wait_until: 0,
            miss_lanes: 0,
            extra: 0,
            via_l1: false,
        }
    }

    /// Adds one access at bank `b` (folded onto the last bank from
    /// [`DESIGN_ACCESS_BANKS`] on).
    pub fn add(&mut self, b: usize) {
        let b = b.min(DESIGN_ACCESS_BANKS - 1);
        self.per_bank[b] = self.per_bank[b].saturating_add(1);
    }

    /// Accesses in all.
    pub fn count(&self) -> u16 {
        self.per_bank.iter().map(|&n| u16::from(n)).sum()
    }
}

/// Read access to global memory's current contents, for a design that holds copies of
/// memory lines and checks them (Jing et al. 2016's tagged array).
pub trait GlobalRead: std::fmt::Debug {
    /// Copies the bytes at `addr..addr + out.len()` into `out`; bytes outside every
    /// allocation read 0.
    fn read_global(&self, addr: u64, out: &mut [u8]);
}

/// Register number of a [`BankAccessKind::RegisterReads`] access at bank `b`:
/// `DESIGN_READ + b`. Above any architectural register (`R<n>`, `n` < 256 per PTX's limits).
pub const DESIGN_READ: RegId = 0xFF00;

/// A global/local memory instruction at the LD/ST unit ([`RegisterFileDesign::global_access`]).
#[derive(Clone, Copy, Debug)]
pub struct GlobalAccess<'a> {
    pub warp: WarpSlot,
    /// Lane addresses as executed.
    pub access: &'a WarpMemAccess,
    /// The instruction (destination registers, `coherent`).
    pub info: &'a InstrInfo,
    /// Whether every line of a load is present in the SM's L1D now (probed without a
    /// state change), for a design whose [`RegisterFileDesign::probes_l1`] is true; else
    /// `None`.
    pub l1_hit: Option<bool>,
    /// The SM's collector slot for design register reads is free
    /// ([`BankAccessKind::RegisterReads`] allowed).
    pub design_reads_free: bool,
    /// Global memory as the functional model holds it now (after this instruction's own
    /// store), if the model offers it ([`super::FunctionalWarpModel::global_reader`]).
    pub memory: Option<&'a dyn GlobalRead>,
}

/// Static facts the core needs about a design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RfLayout {
    /// Banks per sub-core (the arbiter keeps one request queue per bank).
    pub banks_per_sub_core: u16,
    /// Accesses per bank per cycle.
    pub ports_per_bank: u8,
}

/// Context of every design call.
pub struct RfCtx<'a> {
    /// Current core cycle.
    pub now: u64,
    /// SM index.
    pub sm: u32,
    /// Common RF statistics of this SM (fill through `RegTracker`).
    pub act: &'a mut RfActivity,
}

/// A design refused an operation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RfError {
    #[error("register file full: cannot allocate {regs} registers for warp slot {slot}")]
    Full { slot: u16, regs: u32 },
    #[error("register R{reg} of warp slot {slot} is not allocated")]
    NotAllocated { slot: u16, reg: u16 },
    #[error("{0}")]
    Other(String),
}

/// A design's own statistics: typed, serialisable, summable over SMs.
pub trait RfStats: Clone + Default + Serialize + std::fmt::Debug {
    fn merge(&mut self, other: &Self);
}

/// No design-specific statistics (serialises as an empty table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoStats;

impl Serialize for NoStats {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        s.serialize_struct("NoStats", 0)?.end()
    }
}

impl RfStats for NoStats {
    fn merge(&mut self, _other: &Self) {}
}

/// A register-file design. See the module documentation for when each method is called.
pub trait RegisterFileDesign {
    type Stats: RfStats;

    /// Name used in reports.
    fn name(&self) -> String;
    /// Banks and ports the core's arbiter models.
    fn layout(&self) -> RfLayout;

    /// Whether the warps of a new CTA (slots already chosen) fit, each needing
    /// `regs_per_thread` registers. Called after the SM-level occupancy limits passed.
    fn can_allocate(&self, warps: &[WarpSlot], regs_per_thread: u32) -> bool;
    /// Reserves storage for a warp (a renaming design may reserve nothing here).
    fn allocate_warp(
        &mut self,
        ctx: &mut RfCtx,
        warp: WarpSlot,
        regs_per_thread: u32,
    ) -> Result<(), RfError>;
    /// The warp has exited: free everything it holds.
    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot);
    /// The warp just allocated in `warp` is warp `cta_warp` of its CTA (its lanes hold the
    /// CTA's threads `32·cta_warp ..`), called right after
    /// [`allocate_warp`](RegisterFileDesign::allocate_warp). A design that relates lanes to
    /// thread coordinates uses it (Elango 2017's neighbour lanes). Default: nothing.
    fn warp_started(&mut self, _warp: WarpSlot, _cta_warp: u32) {}

    /// Picks a collector unit for an issuing warp among the free ones (`free`: bit `c` set if
    /// collector `c` of the sub-core is free, never 0). Default: the lowest free collector.
    fn choose_collector(
        &mut self,
        _ctx: &mut RfCtx,
        _warp: WarpSlot,
        free: u64,
    ) -> CollectorChoice {
        CollectorChoice::Use(free.trailing_zeros() as u16)
    }
    /// Scheduler priority hint, higher first, applied after the policy's greedy choice and
    /// before age (Malekeh §IV-B1: warps with data in CCUs first). Default 0.
    fn warp_priority(&self, _warp: WarpSlot) -> u8 {
        0
    }
    /// `warp` issued the instruction at (`func`, `pc`) into a collector unit (before its
    /// operands are routed). Jeon & Annavaram 2014 §6.2: the Select stage fetches the instruction's
    /// release flags from the release-flag cache here. Returns the instructions of the
    /// design's own the warp fetched and decoded with this one (flag instructions, §6.2 and
    /// Fig. 8): each takes the warp's decode slot for a cycle, so the warp issues its next
    /// instruction that many cycles after this one dispatches at the earliest. Default: none.
    fn issued(&mut self, _ctx: &mut RfCtx, _warp: WarpSlot, _func: u32, _pc: u32) -> u32 {
        0
    }
    /// Whether the design wants [`warp_scheduled`](Self::warp_scheduled) events (the core
    /// tracks active-set changes only then).
    const SCHEDULER_EVENTS: bool = false;
    /// `warp` entered (`active`) or left its scheduler's active set: the two-level scheduler's
    /// set of warps that may issue (a warp leaves it to wait on memory or a barrier, or when
    /// it exits). Under the other policies every resident warp is active from
    /// [`allocate_warp`](Self::allocate_warp) to [`free_warp`](Self::free_warp), and this is
    /// not called. Called only when [`SCHEDULER_EVENTS`](Self::SCHEDULER_EVENTS) is set.
    fn warp_scheduled(&mut self, _ctx: &mut RfCtx, _warp: WarpSlot, _active: bool) {}
    /// A collector unit was freed after dispatching `warp`'s instruction.
    fn collector_released(&mut self, _ctx: &mut RfCtx, _warp: WarpSlot, _collector: u16) {}

    /// Where a source operand read goes; called when the collector unit is allocated.
    fn route_read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> Route;
    /// Performs the read: called when the arbiter grants the bank (or at once for a
    /// `Route::Bypass`). Returns the value the instruction will compute with.
    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome;
    /// Where a destination write goes; called when the result reaches writeback.
    fn route_write(&mut self, ctx: &mut RfCtx, w: &WriteRef) -> Route;
    /// Performs the write (lanes in `mask`), when the bank port is granted.
    fn write(
        &mut self,
        ctx: &mut RfCtx,
        w: &WriteRef,
        values: &[u32; 32],
        mask: u32,
    ) -> WriteOutcome;
    /// The value of `reg` is dead for `warp` (release flags from the compiler analysis).
    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, cause: ReleaseCause);

    /// A global/local memory instruction reached the LD/ST unit (after functional execution:
    /// addresses are real). Default: normal path.
    fn global_access(&mut self, _ctx: &mut RfCtx, _g: &GlobalAccess) -> MemRoute {
        MemRoute::Hierarchy
    }
    /// Whether [`GlobalAccess::l1_hit`] is wanted (the core probes the L1D tags only then).
    /// Default: no.
    fn probes_l1(&self) -> bool {
        false
    }
    /// A global load that [`global_access`](RegisterFileDesign::global_access) sent to the
    /// memory hierarchy was timed: its data arrives at `ready_at` (before writeback).
    /// Default: nothing.
    fn global_timed(&mut self, _ctx: &mut RfCtx, _g: &GlobalAccess, _ready_at: u64) {}

    /// After [`global_access`](RegisterFileDesign::global_access) answered
    /// [`MemRoute::Banks`] or [`MemRoute::SkipL1`]: the memory writes its evictions caused
    /// (Jing et al. 2016: a spilled register, a dirty line written back), one per call until `None`;
    /// the core times them, nothing waits for them. Default: none.
    fn take_writeback(&mut self) -> Option<MemFetch> {
        None
    }

    /// The SM received its first CTA (`occupied`, before that CTA's registers are
    /// allocated) or its last CTA finished (after its registers were freed; the SM is busy
    /// through `ctx.now`): the bounds of `CoreActivity::sm_busy_frac`'s busy stretches. A
    /// design counting idle-SM power states passes it to its tracker
    /// (`RegTracker::sm_occupied`). Default: nothing.
    fn sm_occupied(&mut self, _ctx: &mut RfCtx, _occupied: bool) {}

    /// Called once per simulated cycle before the pipeline stages. Cycles may be skipped when
    /// the SM is idle: keep time-based state lazily from `ctx.now`.
    fn tick(&mut self, _ctx: &mut RfCtx) {}

    /// A hint, no effect on results: `reg` of `warp` will be read or written soon (an
    /// operand read was queued, a result is waiting for writeback). A design may ask the host
    /// CPU to start loading the storage the access will touch ([`prefetch_slice`]), so the
    /// access later finds it in cache. Default: nothing.
    fn prefetch(&self, _warp: WarpSlot, _reg: RegId) {}

    /// The value of `reg` without any timing or statistics side effect (debugging, and a
    /// fallback for executors that read an operand the instruction info did not list).
    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32];

    /// Record register occupancy per window of `window` cycles
    /// (`RegTracker::record_series`), called once before the run when
    /// `RunOptions::series_window` is set. Default: nothing (no allocated/live series).
    fn record_series(&mut self, _window: u64) {}

    /// End of the run at `ctx.now`: close occupancy intervals (`RegTracker::finish`).
    fn finish(&mut self, ctx: &mut RfCtx);
    /// The design's own statistics.
    fn stats(&self) -> Self::Stats;
}

/// Asks the host CPU to start loading the cache lines of `v[i..i + n]` (clamped to `v`):
/// a performance hint with no effect on any value. One prefetch per 64-byte line the range
/// touches. x86-64 only (`prefetcht0`); elsewhere nothing.
#[inline]
pub fn prefetch_slice<T>(v: &[T], i: usize, n: usize) {
    let end = i.saturating_add(n).min(v.len());
    let Some(s) = v.get(i..end) else {
        return;
    };
    let bytes = std::mem::size_of_val(s);
    if bytes == 0 {
        return;
    }
    let p = s.as_ptr().cast::<u8>();
    // the first line starts up to 63 bytes before `p`; lines up to the one holding the
    // last byte
    let head = p as usize & 63;
    let span = head + bytes;
    let mut off = 0;
    while off < span {
        prefetch_line(p.wrapping_sub(head).wrapping_add(off));
        off += 64;
    }
}

/// Asks the host CPU to start loading the cache lines of `v[i]`: [`prefetch_slice`] for one
/// element, with the line count fixed at compile time and no bounds check (a prefetch never
/// faults, so an index past the end only wastes the hint). A type aligned to 64 bytes takes
/// `ceil(size / 64)` prefetches; a type no larger than its alignment (a power of two) lies
/// on one line and takes one; any other one per 64 bytes plus one for its last byte.
#[inline(always)]
pub fn prefetch_element<T>(v: &[T], i: usize) {
    let p = v.as_ptr().wrapping_add(i).cast::<u8>();
    let size = std::mem::size_of::<T>();
    let align = std::mem::align_of::<T>();
    let mut off = 0;
    while off < size {
        prefetch_line(p.wrapping_add(off));
        off += 64;
    }
    // a type aligned to less than a line (so to a divisor of 64) but larger than its
    // alignment may straddle a line boundary
    if align < 64 && size > align {
        prefetch_line(p.wrapping_add(size - 1));
    }
}

/// `prefetcht0` of the line holding `p` (x86-64; elsewhere nothing).
#[inline(always)]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `prefetcht0` is a hint that never faults and reads nothing into the
        // program (any address is allowed, callers pass addresses on lines of live data);
        // SSE, which provides the instruction, is part of the x86-64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = p;
    }
}

#[cfg(test)]
mod prefetch_tests {
    use super::*;

    #[test]
    fn prefetch_helpers_accept_any_range() {
        // hints only: out-of-range, empty and unaligned ranges must neither panic nor fault
        let v: Vec<u32> = (0..100).collect();
        prefetch_slice(&v, 0, 100);
        prefetch_slice(&v, 3, 40);
        prefetch_slice(&v, 99, 10);
        prefetch_slice(&v, 100, 1);
        prefetch_slice(&v, usize::MAX, usize::MAX);
        prefetch_slice::<u32>(&[], 0, 1);
        prefetch_element(&v, 99);
        prefetch_element(&v, 100);
        #[repr(align(64))]
        struct Wide([u8; 128]);
        let w = vec![Wide([1; 128]), Wide([2; 128])];
        prefetch_element(&w, 1);
        prefetch_element(&w, 2);
        prefetch_element::<()>(&[(), ()], 1);
        assert_eq!(v[99], 99);
        assert_eq!(w[1].0[127], 2);
    }
}
