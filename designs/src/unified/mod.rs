//! Design `unified` (Gebhart et al., "Unifying Primary Cache, Scratch, and Register File
//! Memories in a Throughput Processor", MICRO 2012, as Jing et al. 2016 §V-A and Fig. 10
//! implement it to compare with their cache-emulated register file): one 128 KB array per SM
//! holding the register file and the L1D, split statically at each kernel launch. See
//! `designs/src/unified/README.md` for the mechanism, the decisions and the seed's figures.
//!
//! * **Split** ([`partition`]): at launch, the registers of the CTAs one SM will hold at once
//!   (the occupancy limits, capped by what the grid gives each SM) are reserved; what is left,
//!   in whole L1D ways, is the launch's L1D. On gtx480 a way is 32 sets × 128 B = 4 KB, eight
//!   rows of the four banks.
//! * **Registers**: the baseline's banks, rows and values ([`BaselineRf`]), admitted around
//!   the cache part's rows, which are reserved from the top of each bank.
//! * **Cache**: the memory hierarchy's L1D with the launch's ways (the Fermi set hash kept);
//!   its data lives in the array's rows, so every line access touches the rows of its set
//!   (for the power-state tracker). A launch with no way left sends its global and local
//!   accesses past the L1D ([`MemRoute::SkipL1`]).

mod design;
pub use design::Unified;
pub mod hardware;

use regwatt_sim::timing::config::CacheConfig;
use regwatt_sim::timing::functional::{GridShape, MemOpKind, MemSpaceKind, WarpMemAccess};
use regwatt_sim::timing::memory::set_of_line;
use regwatt_sim::timing::rf::{
    GlobalAccess, MemRoute, OperandRef, ReadOutcome, RegId, RegisterFileDesign, ReleaseCause,
    RfCtx, RfError, RfLayout, RfStats, Route, WarpSlot, WriteOutcome, WriteRef,
};
use serde::Serialize;

use crate::baseline::{BaselineRf, BaselineStats};
use crate::config::ResolvedConfig;

/// Bytes of a row of one logical bank: one warp register (32 lanes × 4 B).
pub const ROW_BYTES: u64 = 128;

/// How one launch splits an SM's array (Gebhart et al. 2012 §4: the partition is chosen per
/// kernel, before it launches).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Partition {
    /// CTAs one SM holds at once: the occupancy limits (`gpu.sm.limits`), capped at
    /// `ceil(grid CTAs / SMs)`.
    pub ctas: u32,
    /// Rows per bank the registers of those CTAs take.
    pub register_rows: usize,
    /// L1D ways the rest holds (0: no L1D this launch).
    pub ways: u32,
    /// Rows per bank those ways take (`ways × rows_per_way`).
    pub cache_rows: usize,
}

/// Rows per bank one L1D way takes: `sets × line_bytes / (banks × 128 B)` (`None` when a way
/// is not a whole number of rows, or the geometry is degenerate).
pub fn rows_per_way(cfg: &ResolvedConfig) -> Option<usize> {
    let l1 = &cfg.gpu.memory.l1d;
    let banks = u64::from(cfg.gpu.sm.register_file.banks_per_sub_core);
    let way_bytes = u64::from(l1.sets) * u64::from(l1.line_bytes);
    let row = banks * ROW_BYTES;
    (row > 0 && way_bytes > 0 && way_bytes.is_multiple_of(row)).then(|| (way_bytes / row) as usize)
}

/// The split of one SM's array for a launch of shape `grid`.
///
/// Rows per bank: `registers / 32 / banks` in all. A warp takes
/// `ceil(warp_registers(regs) / 32 / banks)` of them (the baseline's admission, allocation
/// unit included), so the registers take `ctas × warps_per_cta` times that; the L1D gets
/// `floor(rest / rows_per_way)` ways. A rest smaller than a way stays unused.
pub fn partition(cfg: &ResolvedConfig, grid: &GridShape) -> Partition {
    let s = &cfg.gpu.sm;
    let banks = s.register_file.banks_per_sub_core.max(1) as usize;
    let rows = (s.limits.registers / 32) as usize / banks;
    let fit = s.limits.ctas_per_sm(
        grid.threads_per_cta,
        grid.regs_per_thread,
        grid.shared_bytes_per_cta,
    );
    let ctas = fit.min(grid.ctas.div_ceil(cfg.gpu.sms.max(1)));
    let warp_rows = (s.limits.warp_registers(grid.regs_per_thread) / 32) as usize;
    let warp_rows = warp_rows.div_ceil(banks);
    let register_rows = ctas as usize * grid.warps_per_cta as usize * warp_rows;
    let per_way = rows_per_way(cfg).unwrap_or(usize::MAX);
    let ways = (rows.saturating_sub(register_rows) / per_way) as u32;
    Partition {
        ctas,
        register_rows,
        ways,
        cache_rows: if ways == 0 {
            0
        } else {
            ways as usize * per_way
        },
    }
}

/// Event counts of the unified design (summed over SMs): the baseline's register accesses,
/// and the launch's L1D size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UnifiedStats {
    /// Register accesses (the L1D's accesses are the memory statistics').
    #[serde(flatten)]
    pub registers: BaselineStats,
    /// L1D ways of the split, largest over SMs and launches.
    pub cache_ways: u32,
    /// Rows per bank the L1D took, largest over SMs and launches.
    pub cache_rows: u64,
    /// Line accesses that touched the cache part's rows (one per distinct line of a global or
    /// local load or store).
    pub line_touches: u64,
}

impl RfStats for UnifiedStats {
    fn merge(&mut self, o: &Self) {
        self.registers.merge(&o.registers);
        self.cache_ways = self.cache_ways.max(o.cache_ways);
        self.cache_rows = self.cache_rows.max(o.cache_rows);
        self.line_touches += o.line_touches;
    }
}

/// The unified array of one SM: the baseline's register file with the launch's L1D ways in
/// rows reserved from the top of each bank.
#[derive(Clone, Debug)]
pub struct UnifiedRf {
    base: BaselineRf,
    /// The L1D of the launch (its ways as split).
    l1: CacheConfig,
    banks: usize,
    /// Cache row `k` (line `way × sets + set` lives in bank `i mod banks`, cache row
    /// `i / banks`): its row index in every bank.
    rows: Vec<usize>,
    line_touches: u64,
}

impl UnifiedRf {
    /// One SM's array for a launch split as `p` ([`partition`] leaves the cache rows within the
    /// bank, so every one of them is set aside).
    pub fn new(cfg: &ResolvedConfig, p: &Partition) -> UnifiedRf {
        let mut base = BaselineRf::new(cfg);
        let rows: Vec<usize> = (0..p.cache_rows)
            .map_while(|_| base.reserve_side_row(0))
            .collect();
        let mut l1 = cfg.gpu.memory.l1d;
        l1.ways = p.ways;
        UnifiedRf {
            base,
            l1,
            banks: cfg.gpu.sm.register_file.banks_per_sub_core.max(1) as usize,
            rows,
            line_touches: 0,
        }
    }

    /// Tracker row of way `way` of `set`: line `i = way × sets + set` lives in bank
    /// `i mod banks`, cache row `i / banks`.
    fn set_row(&self, set: usize, way: usize) -> Option<usize> {
        let i = way * self.l1.sets as usize + set;
        let row = *self.rows.get(i / self.banks)?;
        Some(self.base.side_index(0, i % self.banks, row))
    }

    /// A global or local load or store: each distinct line touches its set's rows.
    fn touch_lines(&mut self, ctx: &mut RfCtx, acc: &WarpMemAccess) {
        let line_bytes = u64::from(self.l1.line_bytes.max(1));
        let mut lines = [0u64; 32];
        let mut n = 0;
        for (lane, a) in acc.addrs.iter().enumerate() {
            if acc.mask >> lane & 1 != 0 {
                lines[n] = a / line_bytes;
                n += 1;
            }
        }
        let lines = &mut lines[..n];
        lines.sort_unstable();
        let mut last = None;
        for &line in lines.iter() {
            if last == Some(line) {
                continue;
            }
            last = Some(line);
            self.line_touches += 1;
            // the design does not see which way the L1D hits or fills, so a line access
            // counts as an access to all of its set's ways (an upper bound on the rows kept
            // awake)
            let set = set_of_line(&self.l1, line);
            for w in 0..self.l1.ways as usize {
                let Some(t) = self.set_row(set, w) else {
                    continue;
                };
                match acc.kind {
                    MemOpKind::Store => self.base.side_write(ctx, t),
                    // hits pay no wake-up: the L1D's hit latency is the array's
                    _ => {
                        self.base.side_read(ctx, t);
                    }
                }
            }
        }
    }

    /// Every cache row, in every bank.
    fn cache_row_indices(&self) -> Vec<usize> {
        self.rows
            .iter()
            .flat_map(|&r| (0..self.banks).map(move |b| (b, r)))
            .map(|(b, r)| self.base.side_index(0, b, r))
            .collect()
    }
}

impl RegisterFileDesign for UnifiedRf {
    type Stats = UnifiedStats;

    fn name(&self) -> String {
        "unified".into()
    }

    fn layout(&self) -> RfLayout {
        self.base.layout()
    }

    fn can_allocate(&self, warps: &[WarpSlot], regs_per_thread: u32) -> bool {
        // the cache rows are reserved in the baseline's admission
        self.base.can_allocate(warps, regs_per_thread)
    }

    fn allocate_warp(
        &mut self,
        ctx: &mut RfCtx,
        warp: WarpSlot,
        regs_per_thread: u32,
    ) -> Result<(), RfError> {
        self.base.allocate_warp(ctx, warp, regs_per_thread)
    }

    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot) {
        self.base.free_warp(ctx, warp)
    }

    fn route_read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> Route {
        self.base.route_read(ctx, op)
    }

    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome {
        self.base.read(ctx, op)
    }

    fn prefetch(&self, warp: WarpSlot, reg: RegId) {
        self.base.prefetch(warp, reg)
    }

    fn route_write(&mut self, ctx: &mut RfCtx, w: &WriteRef) -> Route {
        self.base.route_write(ctx, w)
    }

    fn write(
        &mut self,
        ctx: &mut RfCtx,
        w: &WriteRef,
        values: &[u32; 32],
        mask: u32,
    ) -> WriteOutcome {
        self.base.write(ctx, w, values, mask)
    }

    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, cause: ReleaseCause) {
        self.base.release(ctx, warp, reg, cause)
    }

    fn global_access(&mut self, ctx: &mut RfCtx, g: &GlobalAccess) -> MemRoute {
        let acc = g.access;
        if !matches!(acc.space, MemSpaceKind::Global | MemSpaceKind::Local) {
            return MemRoute::Hierarchy;
        }
        if self.rows.is_empty() {
            // no way left for the L1D this launch
            return MemRoute::SkipL1 { extra: 0 };
        }
        if acc.kind != MemOpKind::Atomic {
            self.touch_lines(ctx, acc);
        }
        MemRoute::Hierarchy
    }

    fn sm_occupied(&mut self, ctx: &mut RfCtx, occupied: bool) {
        let rows = self.cache_row_indices();
        if occupied {
            self.base.sm_occupied(ctx, true);
            // the L1D's rows hold lines from the SM's first CTA on
            for t in rows {
                self.base.side_write(ctx, t);
            }
        } else {
            for t in rows {
                self.base.side_free(ctx, t);
            }
            self.base.sm_occupied(ctx, false);
        }
    }

    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32] {
        self.base.peek(warp, reg)
    }

    fn record_series(&mut self, window: u64) {
        self.base.record_series(window)
    }

    fn finish(&mut self, ctx: &mut RfCtx) {
        self.base.finish(ctx)
    }

    fn stats(&self) -> UnifiedStats {
        UnifiedStats {
            registers: self.base.stats(),
            cache_ways: if self.rows.is_empty() {
                0
            } else {
                self.l1.ways
            },
            cache_rows: self.rows.len() as u64,
            line_touches: self.line_touches,
        }
    }
}

#[cfg(test)]
mod tests;
