//! The baseline banked register file (GPGPU-Sim / Accel-Sim organisation, as in Jeon &
//! Annavaram 2014, Malekeh and Jing et al. 2016), holding every register value in its modelled physical banks.
//!
//! * Each sub-core has `banks` logical banks (one arbiter queue each); register `r` of warp
//!   slot `w` lives in logical bank `(r + w) % banks` (GPGPU-Sim `register_bank()`, warp
//!   shift), or `r % banks` with `bank_mapping = "register_modulo"`, row
//!   `base(w) + r / banks`.
//! * A logical bank is `slices` physical SRAM banks accessed together; slice `s` holds lanes
//!   `s·L .. (s+1)·L` (`L = row_bits / 32`) of every row. GTX 480: 8 slices (the same bank of
//!   the 8 SIMT clusters) of 128-bit rows serving 4 lanes each (Jeon & Annavaram 2014 §2.1); RTX 2060:
//!   1 slice of 1024-bit rows (Malekeh §II).
//! * A warp reserves `ceil(regs × 32 / alloc_unit) × alloc_unit / 32` registers (CUDA
//!   allocation granularity), the same rows in every bank of its sub-core, first fit at CTA
//!   launch, freed when the warp exits.
//! * A read reads the row of every slice; a write writes only the slices whose lanes are in
//!   the write mask (each 128-bit row of Jeon & Annavaram 2014 has its own word line per cluster).
//! * Every access takes one bank port cycle; no extra delay.
//!
//! Host storage (no effect on results): a warp register's row of every slice is kept side by
//! side as one 64-byte-aligned 128-byte `Row`, indexed like the [`RegTracker`]; each warp
//! slot keeps its first row index and row count, so an access is a shift, a mask and an add
//! (the per-access path is a large share of the simulator's run time).

pub mod admission;
mod design;
pub use design::Baseline;
pub mod hardware;

pub use admission::RowAdmission;

use regwatt_sim::timing::activity::RegTracker;
use regwatt_sim::timing::config::BankMapping;
use regwatt_sim::timing::rf::{
    prefetch_element, Delay, OperandRef, ReadOutcome, RegId, RegisterFileDesign, ReleaseCause,
    RfCtx, RfError, RfLayout, RfStats, Route, WarpSlot, WriteOutcome, WriteRef,
};
use serde::Serialize;

use crate::config::ResolvedConfig;

/// Event counts of the baseline design (summed over SMs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BaselineStats {
    /// Warp-register reads (logical bank accesses).
    pub reads: u64,
    /// Warp-register writes.
    pub writes: u64,
    /// Physical bank row reads (`reads × slices`).
    pub slice_reads: u64,
    /// Physical bank row writes (slices with at least one lane in the write mask).
    pub slice_writes: u64,
    /// Accesses to registers the warp does not own (must stay 0).
    pub unallocated_accesses: u64,
}

impl RfStats for BaselineStats {
    fn merge(&mut self, o: &Self) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.slice_reads += o.slice_reads;
        self.slice_writes += o.slice_writes;
        self.unallocated_accesses += o.unallocated_accesses;
    }
}

/// One warp register as the host stores it: the 32 lanes of one row of every slice of a
/// logical bank, side by side (slice `s` holds lanes `s·L .. (s+1)·L`). 64-byte aligned, so a
/// warp register spans exactly two host cache lines.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Row([u32; 32]);

const ZERO_ROW: Row = Row([0; 32]);

/// A warp slot's allocation: the same rows `base .. base + rows` in every bank of its
/// sub-core (`rows == 0`: no warp; a reserving warp always needs at least one row).
#[derive(Clone, Copy, Debug, Default)]
struct WarpAlloc {
    base: usize,
    rows: usize,
}

/// What an access needs of a [`WarpAlloc`], 8 bytes per slot: `t0 = sc·banks·rows + base`
/// (row index of register 0's bank-0 row, sub-core `sc` of the allocation) and the rows
/// reserved per bank (0: no warp). Indices fit: rows are < 2^27 (`registers / 32` of a
/// `u32` register count).
#[derive(Clone, Copy, Debug, Default)]
struct WarpAccess {
    t0: u32,
    rows: u32,
}

/// The baseline register file of one SM.
#[derive(Clone, Debug)]
pub struct BaselineRf {
    sub_cores: usize,
    banks: usize,
    slices: usize,
    lanes_per_slice: usize,
    /// Lanes held by the slices (`slices × lanes_per_slice` low bits; all 32 when `slices`
    /// divides 32, which the configuration check enforces).
    stored_lanes: u32,
    rows: usize,
    ports: u8,
    /// What the bank mapping adds to the register number is `slot & slot_mask`: the slot
    /// for `warp_interleaved` (all ones), 0 for `register_modulo`.
    slot_mask: usize,
    /// `banks` is a power of two: bank and row by mask and shift instead of a division.
    banks_pow2: bool,
    /// `banks - 1` and `log2(banks)` (used when `banks_pow2`).
    bank_mask: usize,
    bank_shift: u32,
    /// Row occupancy per sub-core (a warp takes the same rows in each bank).
    admission: RowAdmission,
    /// Values: warp register `t = (sc·banks + bank)·rows + row` (also its [`RegTracker`]
    /// index, so sub-arrays of `rows_per_subarray` rows stay within one bank).
    cells: Vec<Row>,
    /// Per warp slot: its allocation, and the access path's copy of it.
    warps: Vec<WarpAlloc>,
    access: Vec<WarpAccess>,
    tracker: RegTracker,
    /// Event counts as kept during the run: `slice_reads` stays 0 and `slice_writes` counts
    /// only partial writes' slices; `stats()` completes both (`reads × slices`, and
    /// `slices` per full write).
    stats: BaselineStats,
    /// Writes with lanes missing from the mask (their slices are in `stats.slice_writes`).
    partial_writes: u64,
    /// Exposed wake-ups: the sleep rule and latency a read of a sleeping row waits.
    wake: Option<(regwatt_sim::timing::activity::SleepRule, u32)>,
}

impl BaselineRf {
    /// The baseline RF of one SM of `cfg`.
    pub fn new(cfg: &ResolvedConfig) -> BaselineRf {
        let s = &cfg.gpu.sm;
        let sub_cores = s.sub_cores.max(1) as usize;
        let banks = s.register_file.banks_per_sub_core.max(1) as usize;
        let slices = cfg.rf.slices_per_bank.clamp(1, 32) as usize;
        let lanes_per_slice = 32 / slices;
        let stored = slices * lanes_per_slice;
        let rows = (s.limits.registers / 32) as usize / sub_cores / banks;
        let max_warps = s.limits.max_warps as usize;
        BaselineRf {
            sub_cores,
            banks,
            slices,
            lanes_per_slice,
            stored_lanes: if stored >= 32 {
                u32::MAX
            } else {
                (1u32 << stored) - 1
            },
            rows,
            ports: s.register_file.ports_per_bank.clamp(1, 255) as u8,
            slot_mask: match s.register_file.bank_mapping {
                BankMapping::WarpInterleaved => usize::MAX,
                BankMapping::RegisterModulo => 0,
            },
            banks_pow2: banks.is_power_of_two(),
            bank_mask: banks - 1,
            bank_shift: banks.trailing_zeros(),
            admission: RowAdmission::new(sub_cores, banks, rows, s.limits.register_alloc_unit),
            cells: vec![ZERO_ROW; sub_cores * banks * rows],
            warps: vec![WarpAlloc::default(); max_warps],
            access: vec![WarpAccess::default(); max_warps],
            tracker: crate::power_modes::tracker(
                cfg,
                sub_cores * banks * rows,
                s.register_file.rows_per_subarray,
            ),
            stats: BaselineStats::default(),
            partial_writes: 0,
            wake: crate::power_modes::exposed_wakeup(cfg),
        }
    }

    /// Warp-registers reserved for `regs_per_thread` (allocation granularity applied).
    pub fn reserved_registers(&self, regs_per_thread: u32) -> u32 {
        self.admission.reserved_registers(regs_per_thread)
    }

    /// (logical bank, row offset within the warp's allocation) of register `reg` of warp slot
    /// `slot`: `((reg + slot) mod banks, reg / banks)` (`reg mod banks` with
    /// `register_modulo`).
    #[inline(always)]
    fn bank_row(&self, slot: u16, reg: RegId) -> (usize, usize) {
        let r = usize::from(reg);
        let x = r + (usize::from(slot) & self.slot_mask);
        if self.banks_pow2 {
            (x & self.bank_mask, r >> self.bank_shift)
        } else {
            (x % self.banks, r / self.banks)
        }
    }

    /// Reserves a row (in every bank) of sub-core `sc` outside the warps' allocations, for
    /// registers a design keeps beside them (Elango 2017's L-registers), from the top of the
    /// sub-core down; `None` if every row is taken. Warps are admitted around it.
    pub(crate) fn reserve_side_row(&mut self, sc: usize) -> Option<usize> {
        self.admission.reserve_top(sc)
    }

    /// Frees a row of [`Self::reserve_side_row`].
    pub(crate) fn release_side_row(&mut self, sc: usize, row: usize) {
        self.admission.release(sc, row, 1);
    }

    /// The row index (into the tracker) of `bank`'s row `row` of sub-core `sc`.
    pub(crate) fn side_index(&self, sc: usize, bank: usize, row: usize) -> usize {
        (sc * self.banks + bank) * self.rows + row
    }

    /// A side row `t` is written: allocated from now on if it was not, and accessed, for the
    /// power-state tracker (a design tells it when rows are allocated, accessed and
    /// freed).
    pub(crate) fn side_write(&mut self, ctx: &mut RfCtx, t: usize) {
        self.tracker.allocate(t, ctx.now);
        self.tracker.write(t, ctx.now, ctx.act);
    }

    /// A side row `t` is read; the delay is the exposed wake-up, if any.
    pub(crate) fn side_read(&mut self, ctx: &mut RfCtx, t: usize) -> Delay {
        let delay = crate::power_modes::read_delay(&self.tracker, self.wake, t, ctx.now);
        self.tracker.read(t, ctx.now, ctx.act);
        delay
    }

    /// A side row `t` holds nothing any more.
    pub(crate) fn side_free(&mut self, ctx: &mut RfCtx, t: usize) {
        self.tracker.free(t, ctx.now, ctx.act);
    }

    /// The power-state tracker (tests of designs built on the baseline).
    #[cfg(test)]
    pub(crate) fn tracker(&self) -> &RegTracker {
        &self.tracker
    }

    /// The first row and the row count a warp slot holds.
    #[cfg(test)]
    pub(crate) fn warp_rows(&self, slot: u16) -> (usize, usize) {
        self.warps
            .get(usize::from(slot))
            .map_or((0, 0), |w| (w.base, w.rows))
    }

    /// Rows of sub-core `sc` that neither a warp nor a side row holds.
    #[cfg(test)]
    pub(crate) fn free_rows(&self, sc: usize) -> usize {
        self.admission.free_rows(sc)
    }

    /// Logical bank of register `reg` of warp slot `slot`.
    #[inline]
    pub fn bank_of(&self, slot: u16, reg: RegId) -> usize {
        self.bank_row(slot, reg).0
    }

    /// Row index `t = (sc·banks + bank)·rows + base + row offset = t0 + bank·rows + row
    /// offset` (into `cells` and the tracker) of a register, if the warp owns it. The slot
    /// names the warp: `sc` is the sub-core the warp was allocated in (the core always passes
    /// that one, `slot mod sub_cores`).
    #[inline(always)]
    fn locate(&self, warp: WarpSlot, reg: RegId) -> Option<usize> {
        let w = self.access.get(usize::from(warp.slot))?;
        let (bank, off) = self.bank_row(warp.slot, reg);
        if off >= w.rows as usize {
            return None;
        }
        let t = w.t0 as usize + bank * self.rows + off;
        // always true for an owned register; tested once here, so that indexing `cells`
        // with `t` afterwards needs no further test
        (t < self.cells.len()).then_some(t)
    }

    /// [`Self::locate`] without the ownership test, for prefetch hints: the row the
    /// register would occupy (any row, or past the end, when the warp does not own it).
    #[inline(always)]
    fn locate_hint(&self, warp: WarpSlot, reg: RegId) -> Option<usize> {
        let w = self.access.get(usize::from(warp.slot))?;
        let (bank, off) = self.bank_row(warp.slot, reg);
        Some(w.t0 as usize + bank * self.rows + off)
    }

    /// All 32 lanes of row `t` (lanes no slice holds read 0).
    #[inline(always)]
    fn gather(&self, t: usize) -> [u32; 32] {
        self.cells.get(t).unwrap_or(&ZERO_ROW).0
    }

    /// Physical bank rows a write with lane mask `m` touches: the slices with a lane in `m`.
    fn slices_written(&self, m: u32) -> u64 {
        slices_written(m, self.slices, self.lanes_per_slice)
    }

    /// A write of the lanes in `m` (held lanes only, not all 32) into row `t`: only the slices
    /// with a written lane are written (kept out of line: divergent writes are rare).
    #[cold]
    #[inline(never)]
    fn write_lanes(&mut self, t: usize, values: &[u32; 32], m: u32) -> WriteOutcome {
        self.partial_writes += 1;
        self.stats.slice_writes += self.slices_written(m);
        if let Some(row) = self.cells.get_mut(t) {
            for (i, (d, v)) in row.0.iter_mut().zip(values).enumerate() {
                if m >> i & 1 != 0 {
                    *d = *v;
                }
            }
        }
        WriteOutcome::DONE
    }
}

/// Physical bank rows a write with lane mask `m` touches when a logical bank is `slices`
/// slices of `lanes_per_slice` lanes: the slices with a lane in `m`.
pub(crate) fn slices_written(m: u32, slices: usize, lanes_per_slice: usize) -> u64 {
    let l = lanes_per_slice;
    let slice_mask = if l >= 32 { u32::MAX } else { (1u32 << l) - 1 };
    (0..slices)
        .filter(|s| (m >> (s * l)) & slice_mask != 0)
        .count() as u64
}

impl RegisterFileDesign for BaselineRf {
    type Stats = BaselineStats;

    fn name(&self) -> String {
        "baseline".into()
    }

    fn layout(&self) -> RfLayout {
        RfLayout {
            banks_per_sub_core: self.banks as u16,
            ports_per_bank: self.ports,
        }
    }

    fn can_allocate(&self, warps: &[WarpSlot], regs_per_thread: u32) -> bool {
        self.admission.can_allocate_warps(warps, regs_per_thread)
    }

    fn allocate_warp(
        &mut self,
        ctx: &mut RfCtx,
        warp: WarpSlot,
        regs_per_thread: u32,
    ) -> Result<(), RfError> {
        let sc = usize::from(warp.sub_core);
        let slot = usize::from(warp.slot);
        let (base, n) = self
            .admission
            .reserve_warp(warp, sc, self.warps.len(), regs_per_thread)?;
        self.warps[slot] = WarpAlloc { base, rows: n };
        self.access[slot] = WarpAccess {
            t0: (sc * self.banks * self.rows + base) as u32,
            rows: n as u32,
        };
        for b in 0..self.banks {
            let first = (sc * self.banks + b) * self.rows + base;
            for t in first..first + n {
                self.tracker.allocate(t, ctx.now);
            }
            self.cells[first..first + n].fill(ZERO_ROW);
        }
        Ok(())
    }

    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot) {
        let slot = usize::from(warp.slot);
        let Some(a) = self.warps.get(slot).copied() else {
            return;
        };
        let sc = usize::from(warp.sub_core);
        if a.rows == 0 || sc >= self.sub_cores {
            return;
        }
        for b in 0..self.banks {
            let first = (sc * self.banks + b) * self.rows + a.base;
            for t in first..first + a.rows {
                self.tracker.free(t, ctx.now, ctx.act);
            }
        }
        self.admission.release(sc, a.base, a.rows);
        self.warps[slot] = WarpAlloc::default();
        self.access[slot] = WarpAccess::default();
    }

    #[inline]
    fn route_read(&mut self, _ctx: &mut RfCtx, op: &OperandRef) -> Route {
        Route::Bank(self.bank_of(op.warp.slot, op.reg) as u16)
    }

    #[inline]
    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome {
        // pick the source row first and copy once, straight into the result
        let mut delay = Delay::None;
        let row = match self.locate(op.warp, op.reg) {
            Some(t) => {
                if self.wake.is_some() {
                    delay = crate::power_modes::read_delay(&self.tracker, self.wake, t, ctx.now);
                }
                self.tracker.read(t, ctx.now, ctx.act);
                // `slice_reads = reads × slices`, filled in by `stats()`
                self.stats.reads += 1;
                self.cells.get(t).unwrap_or(&ZERO_ROW)
            }
            None => {
                self.stats.unallocated_accesses += 1;
                &ZERO_ROW
            }
        };
        ReadOutcome {
            values: row.0,
            delay,
        }
    }

    #[inline]
    fn prefetch(&self, warp: WarpSlot, reg: RegId) {
        if let Some(t) = self.locate_hint(warp, reg) {
            self.tracker.prefetch(t);
            prefetch_element(&self.cells, t);
        }
    }

    #[inline]
    fn route_write(&mut self, _ctx: &mut RfCtx, w: &WriteRef) -> Route {
        Route::Bank(self.bank_of(w.warp.slot, w.reg) as u16)
    }

    #[inline]
    fn write(
        &mut self,
        ctx: &mut RfCtx,
        w: &WriteRef,
        values: &[u32; 32],
        mask: u32,
    ) -> WriteOutcome {
        let Some(t) = self.locate(w.warp, w.reg) else {
            self.stats.unallocated_accesses += 1;
            return WriteOutcome::DONE;
        };
        self.tracker.write(t, ctx.now, ctx.act);
        self.stats.writes += 1;
        let m = mask & self.stored_lanes;
        if m != u32::MAX {
            return self.write_lanes(t, values, m);
        }
        // the common full-warp write: every slice (counted by `stats()`), one fixed-size copy
        if let Some(row) = self.cells.get_mut(t) {
            row.0 = *values;
        }
        WriteOutcome::DONE
    }

    #[inline]
    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, _cause: ReleaseCause) {
        if let Some(t) = self.locate(warp, reg) {
            self.tracker.dead(t, ctx.now, ctx.act);
        }
    }

    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32] {
        self.locate(warp, reg)
            .map(|t| self.gather(t))
            .unwrap_or([0; 32])
    }

    fn record_series(&mut self, window: u64) {
        self.tracker.record_series(window);
    }

    fn sm_occupied(&mut self, ctx: &mut RfCtx, occupied: bool) {
        self.tracker.sm_occupied(ctx.now, occupied);
    }

    fn finish(&mut self, ctx: &mut RfCtx) {
        self.tracker.finish(ctx.now, ctx.act);
    }

    fn stats(&self) -> BaselineStats {
        let slices = self.slices as u64;
        BaselineStats {
            slice_reads: self.stats.reads * slices,
            slice_writes: (self.stats.writes - self.partial_writes) * slices
                + self.stats.slice_writes,
            ..self.stats
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{preset, GpuPreset};
    use regwatt_sim::timing::activity::RfActivity;

    /// A context at cycle 0 of SM 0 recording into `act`.
    fn ctx0(act: &mut RfActivity) -> RfCtx<'_> {
        RfCtx { now: 0, sm: 0, act }
    }

    fn wr(warp: WarpSlot, reg: RegId) -> WriteRef {
        WriteRef {
            warp,
            reg,
            collector: 0,
            func: 0,
            pc: 0,
            reuse: None,
            from_load: false,
        }
    }

    #[test]
    fn gtx480_slices_hold_four_lanes_and_partial_writes_touch_only_their_slices() {
        let cfg = preset(GpuPreset::Gtx480).expect("preset");
        let mut rf = BaselineRf::new(&cfg);
        assert_eq!(rf.slices, 8);
        assert_eq!(rf.lanes_per_slice, 4);
        assert_eq!(rf.rows, 256);
        let mut act = RfActivity::default();
        let mut ctx = ctx0(&mut act);
        let w = WarpSlot {
            slot: 5,
            sub_core: 0,
        };
        rf.allocate_warp(&mut ctx, w, 20).expect("fits");
        let v: [u32; 32] = std::array::from_fn(|i| 100 + i as u32);
        // lanes 4..8 (slice 1) and lane 31 (slice 7)
        rf.write(&mut ctx, &wr(w, 7), &v, 0x8000_00f0);
        assert_eq!(rf.stats().slice_writes, 2);
        let got = rf.peek(w, 7);
        assert_eq!(got[4..8], [104, 105, 106, 107]);
        assert_eq!(got[31], 131);
        assert_eq!(got[0], 0);
        assert_eq!(got[8], 0);
        rf.write(&mut ctx, &wr(w, 8), &v, u32::MAX);
        assert_eq!(rf.peek(w, 8), v);
        assert_eq!(rf.peek(w, 7)[5], 105, "neighbour register untouched");
        assert_eq!(rf.stats().slice_writes, 10);
    }

    #[test]
    fn rtx2060_capacity_and_values_survive_other_warps() {
        let cfg = preset(GpuPreset::Rtx2060).expect("preset");
        let mut rf = BaselineRf::new(&cfg);
        let mut act = RfActivity::default();
        let mut ctx = ctx0(&mut act);
        let w = |s: u16| WarpSlot {
            slot: s,
            sub_core: (s % 4) as u8,
        };
        // 512 warp registers per sub-core: 2 warps of 255 regs (256 reserved) fit, not 3
        assert!(rf.can_allocate(&[w(0), w(4)], 255));
        assert!(!rf.can_allocate(&[w(0), w(4), w(8)], 255));
        for s in 0..8 {
            rf.allocate_warp(&mut ctx, w(s), 32).expect("fits");
        }
        for s in 0..8u16 {
            for r in 0..32u16 {
                let v = [u32::from(s) * 1000 + u32::from(r); 32];
                rf.write(&mut ctx, &wr(w(s), r), &v, u32::MAX);
            }
        }
        for s in 0..8u16 {
            for r in 0..32u16 {
                assert_eq!(rf.peek(w(s), r)[17], u32::from(s) * 1000 + u32::from(r));
            }
        }
        // a register beyond the allocation is not owned
        let op = OperandRef {
            warp: w(0),
            reg: 40,
            collector: 0,
            func: 0,
            pc: 0,
            reuse: None,
            last_use: false,
        };
        assert_eq!(rf.read(&mut ctx, &op).values, [0; 32]);
        assert_eq!(rf.stats().unallocated_accesses, 1);
        rf.free_warp(&mut ctx, w(0));
        assert_eq!(rf.peek(w(0), 3), [0; 32]);
    }

    /// The row index as the design defined it before its fast path: bank
    /// `(reg + slot) mod banks` (`reg mod banks` for `register_modulo`), row
    /// `base + reg / banks`, index `(sc·banks + bank)·rows + row`.
    fn reference_index(
        rf: &BaselineRf,
        mapping: BankMapping,
        w: WarpSlot,
        base: usize,
        regs: usize,
        reg: RegId,
    ) -> Option<usize> {
        let r = usize::from(reg);
        let x = match mapping {
            BankMapping::WarpInterleaved => r + usize::from(w.slot),
            BankMapping::RegisterModulo => r,
        };
        let (bank, off) = (x % rf.banks, r / rf.banks);
        (off < regs.div_ceil(rf.banks))
            .then_some((usize::from(w.sub_core) * rf.banks + bank) * rf.rows + base + off)
    }

    #[test]
    fn locate_fast_path_matches_general_mapping() {
        for (gpu, banks, mapping) in [
            (GpuPreset::Rtx2060, None, BankMapping::WarpInterleaved),
            (GpuPreset::Gtx480, None, BankMapping::WarpInterleaved),
            (GpuPreset::Rtx2060, Some(3), BankMapping::WarpInterleaved),
            (GpuPreset::Gtx480, Some(4), BankMapping::RegisterModulo),
            (GpuPreset::Rtx2060, Some(5), BankMapping::RegisterModulo),
        ] {
            let mut cfg = preset(gpu).expect("preset");
            if let Some(b) = banks {
                cfg.gpu.sm.register_file.banks_per_sub_core = b;
            }
            cfg.gpu.sm.register_file.bank_mapping = mapping;
            let mut rf = BaselineRf::new(&cfg);
            let mut act = RfActivity::default();
            let mut ctx = ctx0(&mut act);
            let subs = rf.sub_cores as u16;
            let ws: Vec<WarpSlot> = (0..6u16)
                .map(|s| WarpSlot {
                    slot: s,
                    sub_core: (s % subs) as u8,
                })
                .collect();
            for (i, &w) in ws.iter().enumerate() {
                rf.allocate_warp(&mut ctx, w, 20 + 7 * i as u32)
                    .expect("fits");
            }
            for &w in &ws {
                let a = rf.warps[usize::from(w.slot)];
                let regs = rf.reserved_registers(20 + 7 * u32::from(w.slot)) as usize;
                for reg in 0..300u16 {
                    let want = reference_index(&rf, mapping, w, a.base, regs, reg);
                    assert_eq!(rf.locate(w, reg), want, "{gpu:?} {banks:?} {w:?} R{reg}");
                    if let Some(t) = want {
                        assert_eq!(rf.locate_hint(w, reg), Some(t));
                        assert_eq!(rf.bank_of(w.slot, reg), (t / rf.rows) % rf.banks);
                    }
                }
            }
            // a free slot owns nothing
            rf.free_warp(&mut ctx, ws[2]);
            assert_eq!(rf.locate(ws[2], 0), None);
        }
    }

    #[test]
    fn rows_are_cache_line_aligned() {
        assert_eq!(std::mem::size_of::<Row>(), 128);
        assert_eq!(std::mem::align_of::<Row>(), 64);
        let rf = BaselineRf::new(&preset(GpuPreset::Rtx2060).expect("preset"));
        assert_eq!(rf.cells.as_ptr() as usize % 64, 0);
    }

    #[test]
    fn derived_slice_counts_equal_per_access_counts() {
        // gtx480: 8 slices of 4 lanes
        let cfg = preset(GpuPreset::Gtx480).expect("preset");
        let mut rf = BaselineRf::new(&cfg);
        let mut act = RfActivity::default();
        let mut ctx = ctx0(&mut act);
        let w = WarpSlot {
            slot: 1,
            sub_core: 0,
        };
        rf.allocate_warp(&mut ctx, w, 16).expect("fits");
        let v = [7u32; 32];
        let mut slice_writes = 0;
        for (k, mask) in [u32::MAX, 0x0000_000f, 0x0001_0010, 0, u32::MAX, 0xffff_fffe]
            .into_iter()
            .enumerate()
        {
            ctx.now = k as u64;
            rf.write(&mut ctx, &wr(w, k as u16), &v, mask);
            slice_writes += (0..8).filter(|s| (mask >> (4 * s)) & 0xf != 0).count() as u64;
        }
        let op = |reg| OperandRef {
            warp: w,
            reg,
            collector: 0,
            func: 0,
            pc: 0,
            reuse: None,
            last_use: false,
        };
        for reg in [0, 1, 5, 5] {
            rf.read(&mut ctx, &op(reg));
        }
        let st = rf.stats();
        assert_eq!(st.writes, 6);
        assert_eq!(st.slice_writes, slice_writes);
        // full, lanes 0-3, lanes 4 and 16, none, full, all but lane 0 (every slice)
        assert_eq!(slice_writes, 27);
        assert_eq!(st.reads, 4);
        assert_eq!(st.slice_reads, 32);
        // partial writes keep the other lanes
        assert_eq!(rf.peek(w, 5)[0], 0);
        assert_eq!(rf.peek(w, 5)[1], 7);
        assert_eq!(rf.peek(w, 2)[4], 7);
        assert_eq!(rf.peek(w, 2)[5], 0);
        // stats merge over SMs as before
        let mut sum = BaselineStats::default();
        sum.merge(&st);
        sum.merge(&st);
        assert_eq!(sum.slice_writes, 2 * slice_writes);
    }
}
