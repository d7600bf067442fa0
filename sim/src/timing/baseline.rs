//! The reference register file: statically allocated, banked, single-value storage — the
//! GPGPU-Sim / Accel-Sim baseline every seed compares against.
//!
//! * Each sub-core has `banks` banks of `rows` warp-registers (32 lanes × 32 bit); register
//!   `r` of warp slot `w` lives in bank `(r + w) % banks` (GPGPU-Sim `register_bank()` with
//!   the warp shift; with [`BankMapping::RegisterModulo`] in bank `r % banks`), row
//!   `base(w) + r / banks`.
//! * A warp reserves `ceil(regs × 32 / alloc_unit) × alloc_unit / 32` registers (CUDA
//!   allocation granularity), i.e. the same number of rows in every bank of its sub-core,
//!   placed first-fit at CTA launch and freed when the warp exits.
//! * Every access takes exactly one bank port cycle; no extra delays.

use super::activity::RegTracker;
use super::config::{BankMapping, GpuConfig};
use super::rf::{
    Delay, NoStats, OperandRef, ReadOutcome, RegId, RegisterFileDesign, ReleaseCause, RfCtx,
    RfError, RfLayout, Route, WarpSlot, WriteOutcome, WriteRef,
};

/// Per-sub-core state.
#[derive(Clone, Debug)]
struct SubCore {
    /// Row occupancy (shared by all banks: a warp takes the same rows in each).
    used: Vec<bool>,
    /// Values, index `bank * rows + row`.
    values: Vec<[u32; 32]>,
}

/// The baseline banked register file of one SM.
#[derive(Clone, Debug)]
pub struct BaselineRf {
    sub_cores: usize,
    banks: usize,
    ports: u8,
    rows: usize,
    alloc_unit: u32,
    mapping: BankMapping,
    subs: Vec<SubCore>,
    /// Per warp slot: (base row, rows per bank, registers allocated) if resident.
    warps: Vec<Option<(usize, usize, u32)>>,
    tracker: RegTracker,
}

impl BaselineRf {
    /// The baseline RF of one SM of `cfg`.
    pub fn new(cfg: &GpuConfig) -> BaselineRf {
        let s = &cfg.sm;
        let sub_cores = s.sub_cores.max(1) as usize;
        let banks = s.register_file.banks_per_sub_core.max(1) as usize;
        let warp_regs = (s.limits.registers / 32) as usize;
        let rows = warp_regs / sub_cores / banks;
        BaselineRf {
            sub_cores,
            banks,
            ports: s.register_file.ports_per_bank.clamp(1, 255) as u8,
            rows,
            alloc_unit: s.limits.register_alloc_unit.max(1),
            mapping: s.register_file.bank_mapping,
            subs: (0..sub_cores)
                .map(|_| SubCore {
                    used: vec![false; rows],
                    values: vec![[0; 32]; rows * banks],
                })
                .collect(),
            warps: vec![None; s.limits.max_warps as usize],
            tracker: RegTracker::new(sub_cores * banks * rows, s.register_file.rows_per_subarray),
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

    /// Bank of register `reg` of warp slot `slot`.
    pub fn bank_of(&self, slot: u16, reg: RegId) -> usize {
        match self.mapping {
            BankMapping::WarpInterleaved => (usize::from(reg) + usize::from(slot)) % self.banks,
            BankMapping::RegisterModulo => usize::from(reg) % self.banks,
        }
    }

    /// (sub-core, index into its values, global tracker index) of a register.
    fn locate(&self, warp: WarpSlot, reg: RegId) -> Option<(usize, usize, usize)> {
        let (base, rows, _) = (*self.warps.get(usize::from(warp.slot))?)?;
        let bank = self.bank_of(warp.slot, reg);
        let row = base + usize::from(reg) / self.banks;
        if row >= base + rows {
            return None;
        }
        let sc = usize::from(warp.sub_core);
        let idx = bank * self.rows + row;
        Some((sc, idx, (sc * self.banks) * self.rows + idx))
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
    type Stats = NoStats;

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
        let mut used: Vec<Vec<bool>> = self.subs.iter().map(|s| s.used.clone()).collect();
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
        let base = Self::first_fit(&self.subs[sc].used, n).ok_or(full)?;
        self.subs[sc].used[base..base + n]
            .iter_mut()
            .for_each(|x| *x = true);
        self.warps[usize::from(warp.slot)] = Some((base, n, regs_per_thread));
        for b in 0..self.banks {
            for row in base..base + n {
                let i = (sc * self.banks + b) * self.rows + row;
                self.tracker.allocate(i, ctx.now);
                self.subs[sc].values[b * self.rows + row] = [0; 32];
            }
        }
        Ok(())
    }

    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot) {
        let Some(Some((base, n, _))) = self.warps.get(usize::from(warp.slot)).copied() else {
            return;
        };
        let sc = usize::from(warp.sub_core);
        for b in 0..self.banks {
            for row in base..base + n {
                let i = (sc * self.banks + b) * self.rows + row;
                self.tracker.free(i, ctx.now, ctx.act);
            }
        }
        if let Some(s) = self.subs.get_mut(sc) {
            s.used[base..base + n].iter_mut().for_each(|x| *x = false);
        }
        self.warps[usize::from(warp.slot)] = None;
    }

    fn route_read(&mut self, _ctx: &mut RfCtx, op: &OperandRef) -> Route {
        Route::Bank(self.bank_of(op.warp.slot, op.reg) as u16)
    }

    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome {
        let values = match self.locate(op.warp, op.reg) {
            Some((sc, idx, t)) => {
                self.tracker.read(t, ctx.now, ctx.act);
                self.subs[sc].values[idx]
            }
            None => [0; 32],
        };
        ReadOutcome {
            values,
            delay: Delay::None,
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
        if let Some((sc, idx, t)) = self.locate(w.warp, w.reg) {
            self.tracker.write(t, ctx.now, ctx.act);
            let slot = &mut self.subs[sc].values[idx];
            if mask == u32::MAX {
                *slot = *values;
            } else {
                for (l, (d, v)) in slot.iter_mut().zip(values).enumerate() {
                    if mask >> l & 1 != 0 {
                        *d = *v;
                    }
                }
            }
        }
        WriteOutcome::DONE
    }

    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, _cause: ReleaseCause) {
        if let Some((_, _, t)) = self.locate(warp, reg) {
            self.tracker.dead(t, ctx.now, ctx.act);
        }
    }

    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32] {
        self.locate(warp, reg)
            .map(|(sc, idx, _)| self.subs[sc].values[idx])
            .unwrap_or([0; 32])
    }

    fn finish(&mut self, ctx: &mut RfCtx) {
        self.tracker.finish(ctx.now, ctx.act);
    }

    fn stats(&self) -> NoStats {
        NoStats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::activity::RfActivity;

    fn rf() -> BaselineRf {
        BaselineRf::new(&GpuConfig::rtx2060_like().expect("preset"))
    }

    #[test]
    fn warp_interleaved_banks_as_gpgpusim() {
        let r = rf();
        assert_eq!(r.bank_of(0, 0), 0);
        assert_eq!(r.bank_of(0, 1), 1);
        assert_eq!(r.bank_of(1, 0), 1);
        assert_eq!(r.bank_of(5, 4), 1);
    }

    #[test]
    fn allocation_granularity_and_capacity() {
        let mut r = rf();
        // 20 regs/thread = 640 thread registers -> 768 -> 24 warp registers
        assert_eq!(r.reserved_registers(20), 24);
        assert_eq!(r.reserved_registers(8), 8);
        // 256 rows x 2 banks = 512 warp registers per sub-core: 2 warps of 255 regs fit? no:
        // 255 -> 256 warp registers each -> exactly 2 per sub-core
        let w = |s: u16| WarpSlot {
            slot: s,
            sub_core: (s % 4) as u8,
        };
        assert!(r.can_allocate(&[w(0), w(4)], 255));
        assert!(!r.can_allocate(&[w(0), w(4), w(8)], 255));
        let mut act = RfActivity::default();
        let mut ctx = RfCtx {
            now: 0,
            sm: 0,
            act: &mut act,
        };
        r.allocate_warp(&mut ctx, w(0), 255).expect("fits");
        r.allocate_warp(&mut ctx, w(4), 255).expect("fits");
        assert!(r.allocate_warp(&mut ctx, w(8), 255).is_err());
        r.free_warp(&mut ctx, w(0));
        r.allocate_warp(&mut ctx, w(8), 255)
            .expect("fits after free");
    }

    #[test]
    fn values_round_trip_with_masks() {
        let mut r = rf();
        let mut act = RfActivity::default();
        let mut ctx = RfCtx {
            now: 5,
            sm: 0,
            act: &mut act,
        };
        let w = WarpSlot {
            slot: 3,
            sub_core: 3,
        };
        r.allocate_warp(&mut ctx, w, 10).expect("fits");
        let v: [u32; 32] = std::array::from_fn(|i| i as u32 * 7);
        let wr = WriteRef {
            warp: w,
            reg: 9,
            collector: 0,
            func: 0,
            pc: 0,
            reuse: None,
            from_load: false,
        };
        r.write(&mut ctx, &wr, &v, 0xffff_0000);
        let got = r.peek(w, 9);
        assert_eq!(got[0], 0);
        assert_eq!(got[31], 31 * 7);
        // other registers untouched
        assert_eq!(r.peek(w, 8), [0; 32]);
        // unallocated warp reads zero, never panics
        assert_eq!(
            r.peek(
                WarpSlot {
                    slot: 7,
                    sub_core: 3
                },
                1
            ),
            [0; 32]
        );
    }
}
