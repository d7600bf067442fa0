//! The cycle-level SM pipeline and the GPU run loop.
//!
//! Per SM and cycle, stages run in reverse pipeline order (as GPGPU-Sim's
//! `shader_core_ctx::cycle()`), so an instruction advances at most one stage per cycle:
//!
//! 1. **design tick**, then **completion**: results whose latency elapsed join their
//!    sub-core's writeback queue.
//! 2. **writeback**: each result register gets a bank port (writes have priority over reads,
//!    GPGPU-Sim `opndcoll_rfu_t::writeback` / Malekeh §II "writes always have priority");
//!    the value is written into the RF design; when all are written the scoreboard is
//!    released.
//! 3. **operand read**: per bank, the oldest queued read is granted if a port is left, the
//!    collector's input port is free and the crossbar has capacity (Malekeh §II: "the oldest
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
//!
//! The stages are in one file each, as `impl Sm` blocks beside the types only they use:
//! `launch.rs` (CTA launch, barriers, warp and CTA retirement), `warp.rs` (warp state and
//! the scoreboard gate), `schedule.rs` (the LRR / GTO / two-level schedulers and issue),
//! `operands.rs` (collector units, bank queues and the operand-read stage), `dispatch.rs`
//! (execution units and the functional step), `ldst.rs` (memory instructions a design
//! serves through its own bank accesses, memory fetches of designs), `writeback.rs` (result
//! buffers, timed events, writeback and completion) and `idle.rs` (idle-cycle skipping and
//! stall accounting). This file holds the public API, the GPU run loop, the SM and
//! sub-core structs, what every stage shares (static instruction facts, release tables) and
//! the per-cycle driver, `Sm::cycle`.

use std::cmp::Reverse;
use std::collections::VecDeque;

use super::activity::{
    fold_series, Activity, CoreActivity, MemActivity, Ratio, RfActivity, SeriesCounter,
};
use super::config::{ConfigError, GpuConfig};
use super::functional::{
    FunctionalWarpModel, InstrInfo, ModelError, OpKind, UnitClass, WarpKey, WarpMemAccess,
    N_OP_KINDS, OP_KINDS,
};
use super::memory::{MemoryHierarchy, MemoryTiming};
use super::rf::{RegisterFileDesign, ReleaseCause, RfCtx, RfError, RfStats, WarpSlot};
use crate::analysis::{Analysis, ArchReg};

mod dispatch;
mod idle;
mod launch;
mod ldst;
mod operands;
mod schedule;
mod warp;
mod writeback;

use self::launch::CtaState;
use self::ldst::DesignAccessSlots;
use self::operands::{Collector, OpSlot, Ring};
use self::warp::{Gate, Warp};
use self::writeback::{Events, WbEntry};

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
    /// Thread operations per `OpKind` (index = discriminant): active lanes summed.
    by_kind: [u64; N_OP_KINDS],
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
    /// Memory instructions the design serves through its own bank accesses, waiting for
    /// bank ports ([`MemRoute::Banks`]).
    ///
    /// [`MemRoute::Banks`]: crate::timing::rf::MemRoute::Banks
    design_slots: DesignAccessSlots,
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
    let carried = model
        .carried_caches()
        .is_some_and(|c| mem.restore_front_end(c));
    if !carried {
        mem.preload_l2(&model.host_written());
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
    let reserved = lim.warp_registers(grid.regs_per_thread);
    let shared_per_cta = lim.cta_shared_bytes(grid.shared_bytes_per_cta);
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
            den: kernel_cycles * u64::from(cfg.sm.issue_slots()),
        };
        for (k, c) in CLASSES.iter().enumerate() {
            if sm.by_class[k] > 0 {
                *sm.act
                    .instructions_by_class
                    .entry(format!("{c:?}"))
                    .or_insert(0) += sm.by_class[k];
            }
        }
        for (k, c) in OP_KINDS.iter().enumerate() {
            if sm.by_kind[k] > 0 && *c != OpKind::None {
                *sm.act
                    .thread_ops_by_kind
                    .entry(format!("{c:?}"))
                    .or_insert(0) += sm.by_kind[k];
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
            by_kind: [0; N_OP_KINDS],
            idle_until: 0,
            idle_stalls: Vec::with_capacity(nsub),
            idle_exec_busy: 0,
            idle_operand_wait: 0,
            idle_pending: 0,
            busy_cycles: 0,
            busy_since: 0,
            stalls: [0; N_STALL_KINDS],
            design_slots: DesignAccessSlots::default(),
        })
    }

    fn nsub(&self) -> usize {
        self.subs.len()
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
}
