//! The baseline banked register file (GPGPU-Sim / Accel-Sim organisation, as in seeds 002,
//! 003, 004), holding every register value in its modelled physical banks.
//!
//! * Each sub-core has `banks` logical banks (one arbiter queue each); register `r` of warp
//!   slot `w` lives in logical bank `(r + w) % banks` (GPGPU-Sim `register_bank()`, warp
//!   shift), or `r % banks` with `bank_mapping = "register_modulo"`, row
//!   `base(w) + r / banks`.
//! * A logical bank is `slices` physical SRAM banks accessed together; slice `s` holds lanes
//!   `s·L .. (s+1)·L` (`L = row_bits / 32`) of every row. GTX 480: 8 slices (the same bank of
//!   the 8 SIMT clusters) of 128-bit rows serving 4 lanes each (seed 002 §2.1); RTX 2060:
//!   1 slice of 1024-bit rows (seed 003 §II).
//! * A warp reserves `ceil(regs × 32 / alloc_unit) × alloc_unit / 32` registers (CUDA
//!   allocation granularity), the same rows in every bank of its sub-core, first fit at CTA
//!   launch, freed when the warp exits.
//! * A read reads the row of every slice; a write writes only the slices whose lanes are in
//!   the write mask (each 128-bit row of seed 002 has its own word line per cluster).
//! * Every access takes one bank port cycle; no extra delay.

pub mod hardware;

use regwatt_sim::timing::activity::RegTracker;
use regwatt_sim::timing::config::BankMapping;
use regwatt_sim::timing::rf::{
    prefetch_slice, Delay, OperandRef, ReadOutcome, RegId, RegisterFileDesign, ReleaseCause, RfCtx,
    RfError, RfLayout, RfStats, Route, WarpSlot, WriteOutcome, WriteRef,
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

#[derive(Clone, Copy, Debug)]
struct WarpAlloc {
    base: usize,
    rows: usize,
}

/// The baseline register file of one SM.
#[derive(Clone, Debug)]
pub struct BaselineRf {
    sub_cores: usize,
    banks: usize,
    slices: usize,
    lanes_per_slice: usize,
    rows: usize,
    ports: u8,
    alloc_unit: u32,
    mapping: BankMapping,
    /// `log2(banks)` when `banks` is a power of two (bank and row by mask and shift instead
    /// of a division on every access).
    bank_shift: Option<u32>,
    /// Row occupancy per sub-core (a warp takes the same rows in each bank).
    used: Vec<Vec<bool>>,
    /// Values, index `((((sc·banks + bank)·slices + slice)·rows + row)·lanes_per_slice + lane`:
    /// the physical banks one after another, each a `rows × lanes_per_slice` array.
    cells: Vec<u32>,
    warps: Vec<Option<WarpAlloc>>,
    tracker: RegTracker,
    stats: BaselineStats,
}

impl BaselineRf {
    /// The baseline RF of one SM of `cfg`.
    pub fn new(cfg: &ResolvedConfig) -> BaselineRf {
        let s = &cfg.gpu.sm;
        let sub_cores = s.sub_cores.max(1) as usize;
        let banks = s.register_file.banks_per_sub_core.max(1) as usize;
        let slices = cfg.rf.slices_per_bank.clamp(1, 32) as usize;
        let lanes_per_slice = 32 / slices;
        let rows = (s.limits.registers / 32) as usize / sub_cores / banks;
        BaselineRf {
            sub_cores,
            banks,
            slices,
            lanes_per_slice,
            rows,
            ports: s.register_file.ports_per_bank.clamp(1, 255) as u8,
            alloc_unit: s.limits.register_alloc_unit.max(1),
            mapping: s.register_file.bank_mapping,
            bank_shift: banks.is_power_of_two().then(|| banks.trailing_zeros()),
            used: vec![vec![false; rows]; sub_cores],
            cells: vec![0; sub_cores * banks * rows * 32],
            warps: vec![None; s.limits.max_warps as usize],
            tracker: RegTracker::new(sub_cores * banks * rows, s.register_file.rows_per_subarray),
            stats: BaselineStats::default(),
        }
    }

    /// Warp-registers reserved for `regs_per_thread` (allocation granularity applied).
    pub fn reserved_registers(&self, regs_per_thread: u32) -> u32 {
        let thread_regs = regs_per_thread.max(1) * 32;
        thread_regs.div_ceil(self.alloc_unit) * self.alloc_unit / 32
    }

    fn rows_needed(&self, regs_per_thread: u32) -> usize {
        (self.reserved_registers(regs_per_thread) as usize).div_ceil(self.banks)
    }

    /// Logical bank of register `reg` of warp slot `slot`.
    #[inline]
    pub fn bank_of(&self, slot: u16, reg: RegId) -> usize {
        let x = match self.mapping {
            BankMapping::WarpInterleaved => usize::from(reg) + usize::from(slot),
            BankMapping::RegisterModulo => usize::from(reg),
        };
        match self.bank_shift {
            Some(_) => x & (self.banks - 1),
            None => x % self.banks,
        }
    }

    /// Row offset of register `reg` within its warp's allocation (`reg / banks`).
    #[inline]
    fn row_of(&self, reg: RegId) -> usize {
        match self.bank_shift {
            Some(k) => usize::from(reg) >> k,
            None => usize::from(reg) / self.banks,
        }
    }

    /// (sub-core, logical bank, row, tracker index) of a register, if the warp owns it.
    #[inline]
    fn locate(&self, warp: WarpSlot, reg: RegId) -> Option<(usize, usize, usize, usize)> {
        let a = (*self.warps.get(usize::from(warp.slot))?)?;
        let sc = usize::from(warp.sub_core);
        if sc >= self.sub_cores {
            return None;
        }
        let bank = self.bank_of(warp.slot, reg);
        let row = a.base + self.row_of(reg);
        if row >= a.base + a.rows {
            return None;
        }
        Some((sc, bank, row, (sc * self.banks + bank) * self.rows + row))
    }

    /// Start of the cells of `slice` of (sub-core, bank) at `row`.
    #[inline]
    fn cell(&self, sc: usize, bank: usize, slice: usize, row: usize) -> usize {
        ((((sc * self.banks + bank) * self.slices + slice) * self.rows) + row)
            * self.lanes_per_slice
    }

    #[inline]
    fn gather(&self, sc: usize, bank: usize, row: usize) -> [u32; 32] {
        let mut out = [0u32; 32];
        if self.slices == 1 {
            // one physical bank holds the whole warp register: a fixed-size copy
            let c = self.cell(sc, bank, 0, row);
            if let Some(v) = self.cells.get(c..c + 32) {
                out.copy_from_slice(v);
            }
            return out;
        }
        let l = self.lanes_per_slice;
        for s in 0..self.slices {
            let c = self.cell(sc, bank, s, row);
            out[s * l..(s + 1) * l].copy_from_slice(&self.cells[c..c + l]);
        }
        out
    }

    fn first_fit(used: &[bool], n: usize) -> Option<usize> {
        let mut run = 0;
        for (i, &u) in used.iter().enumerate() {
            if u {
                run = 0;
            } else {
                run += 1;
                if run == n {
                    return Some(i + 1 - n);
                }
            }
        }
        None
    }
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
        let n = self.rows_needed(regs_per_thread);
        let mut used = self.used.clone();
        for w in warps {
            let Some(u) = used.get_mut(usize::from(w.sub_core)) else {
                return false;
            };
            match Self::first_fit(u, n) {
                Some(b) => u[b..b + n].iter_mut().for_each(|x| *x = true),
                None => return false,
            }
        }
        true
    }

    fn allocate_warp(
        &mut self,
        ctx: &mut RfCtx,
        warp: WarpSlot,
        regs_per_thread: u32,
    ) -> Result<(), RfError> {
        let n = self.rows_needed(regs_per_thread);
        let full = RfError::Full {
            slot: warp.slot,
            regs: regs_per_thread,
        };
        let sc = usize::from(warp.sub_core);
        if sc >= self.sub_cores || usize::from(warp.slot) >= self.warps.len() {
            return Err(full);
        }
        let base = Self::first_fit(&self.used[sc], n).ok_or(full)?;
        self.used[sc][base..base + n]
            .iter_mut()
            .for_each(|x| *x = true);
        self.warps[usize::from(warp.slot)] = Some(WarpAlloc { base, rows: n });
        for b in 0..self.banks {
            for row in base..base + n {
                self.tracker
                    .allocate((sc * self.banks + b) * self.rows + row, ctx.now);
                for s in 0..self.slices {
                    let c = self.cell(sc, b, s, row);
                    self.cells[c..c + self.lanes_per_slice].fill(0);
                }
            }
        }
        Ok(())
    }

    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot) {
        let Some(Some(a)) = self.warps.get(usize::from(warp.slot)).copied() else {
            return;
        };
        let sc = usize::from(warp.sub_core);
        if sc >= self.sub_cores {
            return;
        }
        for b in 0..self.banks {
            for row in a.base..a.base + a.rows {
                self.tracker
                    .free((sc * self.banks + b) * self.rows + row, ctx.now, ctx.act);
            }
        }
        self.used[sc][a.base..a.base + a.rows]
            .iter_mut()
            .for_each(|x| *x = false);
        self.warps[usize::from(warp.slot)] = None;
    }

    fn route_read(&mut self, _ctx: &mut RfCtx, op: &OperandRef) -> Route {
        Route::Bank(self.bank_of(op.warp.slot, op.reg) as u16)
    }

    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome {
        let values = match self.locate(op.warp, op.reg) {
            Some((sc, bank, row, t)) => {
                self.tracker.read(t, ctx.now, ctx.act);
                self.stats.reads += 1;
                self.stats.slice_reads += self.slices as u64;
                self.gather(sc, bank, row)
            }
            None => {
                self.stats.unallocated_accesses += 1;
                [0; 32]
            }
        };
        ReadOutcome {
            values,
            delay: Delay::None,
        }
    }

    fn prefetch(&self, warp: WarpSlot, reg: RegId) {
        if let Some((sc, bank, row, t)) = self.locate(warp, reg) {
            self.tracker.prefetch(t);
            for s in 0..self.slices {
                prefetch_slice(
                    &self.cells,
                    self.cell(sc, bank, s, row),
                    self.lanes_per_slice,
                );
            }
        }
    }

    fn route_write(&mut self, _ctx: &mut RfCtx, w: &WriteRef) -> Route {
        Route::Bank(self.bank_of(w.warp.slot, w.reg) as u16)
    }

    fn write(
        &mut self,
        ctx: &mut RfCtx,
        w: &WriteRef,
        values: &[u32; 32],
        mask: u32,
    ) -> WriteOutcome {
        let Some((sc, bank, row, t)) = self.locate(w.warp, w.reg) else {
            self.stats.unallocated_accesses += 1;
            return WriteOutcome::DONE;
        };
        self.tracker.write(t, ctx.now, ctx.act);
        self.stats.writes += 1;
        if self.slices == 1 && mask == u32::MAX {
            // the common full-warp write to one physical bank: a fixed-size copy
            self.stats.slice_writes += 1;
            let c = self.cell(sc, bank, 0, row);
            if let Some(d) = self.cells.get_mut(c..c + 32) {
                d.copy_from_slice(values);
            }
            return WriteOutcome::DONE;
        }
        let l = self.lanes_per_slice;
        let slice_mask = if l >= 32 { u32::MAX } else { (1u32 << l) - 1 };
        for s in 0..self.slices {
            let m = (mask >> (s * l)) & slice_mask;
            if m == 0 {
                continue;
            }
            self.stats.slice_writes += 1;
            let c = self.cell(sc, bank, s, row);
            let src = &values[s * l..(s + 1) * l];
            let dst = &mut self.cells[c..c + l];
            if m == slice_mask {
                dst.copy_from_slice(src);
            } else {
                for (i, (d, v)) in dst.iter_mut().zip(src).enumerate() {
                    if m >> i & 1 != 0 {
                        *d = *v;
                    }
                }
            }
        }
        WriteOutcome::DONE
    }

    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, _cause: ReleaseCause) {
        if let Some((_, _, _, t)) = self.locate(warp, reg) {
            self.tracker.dead(t, ctx.now, ctx.act);
        }
    }

    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32] {
        self.locate(warp, reg)
            .map(|(sc, bank, row, _)| self.gather(sc, bank, row))
            .unwrap_or([0; 32])
    }

    fn finish(&mut self, ctx: &mut RfCtx) {
        self.tracker.finish(ctx.now, ctx.act);
    }

    fn stats(&self) -> BaselineStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{preset, GpuPreset};
    use regwatt_sim::timing::activity::RfActivity;

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
        let mut ctx = RfCtx {
            now: 0,
            sm: 0,
            act: &mut act,
        };
        let w = WarpSlot {
            slot: 5,
            sub_core: 0,
        };
        rf.allocate_warp(&mut ctx, w, 20).expect("fits");
        let v: [u32; 32] = std::array::from_fn(|i| 100 + i as u32);
        // lanes 4..8 (slice 1) and lane 31 (slice 7)
        rf.write(&mut ctx, &wr(w, 7), &v, 0x8000_00f0);
        assert_eq!(rf.stats.slice_writes, 2);
        let got = rf.peek(w, 7);
        assert_eq!(got[4..8], [104, 105, 106, 107]);
        assert_eq!(got[31], 131);
        assert_eq!(got[0], 0);
        assert_eq!(got[8], 0);
        rf.write(&mut ctx, &wr(w, 8), &v, u32::MAX);
        assert_eq!(rf.peek(w, 8), v);
        assert_eq!(rf.peek(w, 7)[5], 105, "neighbour register untouched");
        assert_eq!(rf.stats.slice_writes, 10);
    }

    #[test]
    fn rtx2060_capacity_and_values_survive_other_warps() {
        let cfg = preset(GpuPreset::Rtx2060).expect("preset");
        let mut rf = BaselineRf::new(&cfg);
        let mut act = RfActivity::default();
        let mut ctx = RfCtx {
            now: 0,
            sm: 0,
            act: &mut act,
        };
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
        assert_eq!(rf.stats.unallocated_accesses, 1);
        rf.free_warp(&mut ctx, w(0));
        assert_eq!(rf.peek(w(0), 3), [0; 32]);
    }
}
