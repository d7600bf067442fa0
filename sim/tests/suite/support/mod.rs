//! Test support shared by the timing tests: [`FlatRf`], the simplest register file that
//! holds real values behind the RF seam. The register-file designs themselves (the baseline
//! banked RF included) live in the `regwatt-designs` crate; this one exists only so that the
//! timing core can be tested without it (`designs` depends on `sim`, not the reverse).

pub mod conv;

use regwatt_sim::timing::activity::RegTracker;
use regwatt_sim::timing::config::GpuConfig;
use regwatt_sim::timing::rf::{
    Delay, NoStats, OperandRef, ReadOutcome, RegId, RegisterFileDesign, ReleaseCause, RfCtx,
    RfError, RfLayout, Route, WarpSlot, WriteOutcome, WriteRef,
};

/// Highest register count per thread the scoreboard supports (R0..R255): tracker indices
/// are `slot * REGS + reg`.
const REGS: usize = 256;

/// Registers of a resident warp.
struct Resident {
    sub_core: usize,
    /// Warp-registers reserved (allocation granularity applied).
    reserved: u32,
    values: Vec<[u32; 32]>,
}

/// A register file without physical placement: each resident warp owns a vector of its
/// registers; register `r` of warp slot `w` is accessed through bank `(r + w) % banks` of its
/// sub-core (GPGPU-Sim `register_bank()`); capacity is a count of warp-registers per
/// sub-core (no fragmentation); every access takes one bank port cycle.
pub struct FlatRf {
    banks: u16,
    ports: u8,
    alloc_unit: u32,
    /// Warp-registers per sub-core, and those reserved by resident warps.
    capacity: u32,
    in_use: Vec<u32>,
    warps: Vec<Option<Resident>>,
    tracker: RegTracker,
}

impl FlatRf {
    /// The register file of one SM of `cfg`.
    pub fn new(cfg: &GpuConfig) -> FlatRf {
        let s = &cfg.sm;
        let sub_cores = s.sub_cores.max(1);
        let max_warps = s.limits.max_warps as usize;
        FlatRf {
            banks: s.register_file.banks_per_sub_core.clamp(1, 64) as u16,
            ports: s.register_file.ports_per_bank.clamp(1, 255) as u8,
            alloc_unit: s.limits.register_alloc_unit.max(1),
            capacity: s.limits.registers / 32 / sub_cores,
            in_use: vec![0; sub_cores as usize],
            warps: (0..max_warps).map(|_| None).collect(),
            tracker: RegTracker::new(max_warps * REGS, s.register_file.rows_per_subarray),
        }
    }

    fn reserve(&self, regs_per_thread: u32) -> u32 {
        (regs_per_thread.max(1) * 32).div_ceil(self.alloc_unit) * self.alloc_unit / 32
    }

    fn bank(&self, w: WarpSlot, r: RegId) -> Route {
        Route::Bank(((usize::from(r) + usize::from(w.slot)) % usize::from(self.banks)) as u16)
    }

    /// Tracker index of a register the warp owns.
    fn owned(&self, w: WarpSlot, r: RegId) -> Option<usize> {
        let res = self.warps.get(usize::from(w.slot))?.as_ref()?;
        (usize::from(r) < res.values.len()).then_some(usize::from(w.slot) * REGS + usize::from(r))
    }
}

impl RegisterFileDesign for FlatRf {
    type Stats = NoStats;

    fn layout(&self) -> RfLayout {
        RfLayout {
            banks_per_sub_core: self.banks,
            ports_per_bank: self.ports,
        }
    }

    fn name(&self) -> String {
        "flat".into()
    }

    fn can_allocate(&self, warps: &[WarpSlot], regs_per_thread: u32) -> bool {
        let need = self.reserve(regs_per_thread);
        let mut after = self.in_use.clone();
        warps
            .iter()
            .all(|w| match after.get_mut(usize::from(w.sub_core)) {
                Some(u) => {
                    *u += need;
                    *u <= self.capacity
                }
                None => false,
            })
    }

    fn allocate_warp(&mut self, c: &mut RfCtx, warp: WarpSlot, regs: u32) -> Result<(), RfError> {
        let reserved = self.reserve(regs);
        let sc = usize::from(warp.sub_core);
        let fits = self
            .in_use
            .get(sc)
            .is_some_and(|u| u + reserved <= self.capacity);
        if !fits || usize::from(warp.slot) >= self.warps.len() || regs as usize > REGS {
            return Err(RfError::Full {
                slot: warp.slot,
                regs,
            });
        }
        self.in_use[sc] += reserved;
        for r in 0..regs as usize {
            self.tracker
                .allocate(usize::from(warp.slot) * REGS + r, c.now);
        }
        self.warps[usize::from(warp.slot)] = Some(Resident {
            sub_core: sc,
            reserved,
            values: vec![[0; 32]; regs as usize],
        });
        Ok(())
    }

    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot) {
        let Some(res) = self
            .warps
            .get_mut(usize::from(warp.slot))
            .and_then(Option::take)
        else {
            return;
        };
        self.in_use[res.sub_core] -= res.reserved;
        for r in 0..res.values.len() {
            self.tracker
                .free(usize::from(warp.slot) * REGS + r, ctx.now, ctx.act);
        }
    }

    fn route_read(&mut self, _ctx: &mut RfCtx, op: &OperandRef) -> Route {
        self.bank(op.warp, op.reg)
    }

    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome {
        if let Some(t) = self.owned(op.warp, op.reg) {
            self.tracker.read(t, ctx.now, ctx.act);
        }
        ReadOutcome {
            values: self.peek(op.warp, op.reg),
            delay: Delay::None,
        }
    }

    fn route_write(&mut self, _ctx: &mut RfCtx, w: &WriteRef) -> Route {
        self.bank(w.warp, w.reg)
    }

    fn write(
        &mut self,
        c: &mut RfCtx,
        w: &WriteRef,
        values: &[u32; 32],
        mask: u32,
    ) -> WriteOutcome {
        let Some(t) = self.owned(w.warp, w.reg) else {
            return WriteOutcome::DONE;
        };
        self.tracker.write(t, c.now, c.act);
        if let Some(Some(res)) = self.warps.get_mut(usize::from(w.warp.slot)) {
            let dst = &mut res.values[usize::from(w.reg)];
            for (l, (d, v)) in dst.iter_mut().zip(values).enumerate() {
                if mask >> l & 1 != 0 {
                    *d = *v;
                }
            }
        }
        WriteOutcome::DONE
    }

    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, _cause: ReleaseCause) {
        if let Some(t) = self.owned(warp, reg) {
            self.tracker.dead(t, ctx.now, ctx.act);
        }
    }

    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32] {
        self.warps
            .get(usize::from(warp.slot))
            .and_then(Option::as_ref)
            .and_then(|res| res.values.get(usize::from(reg)).copied())
            .unwrap_or([0; 32])
    }

    fn finish(&mut self, ctx: &mut RfCtx) {
        self.tracker.finish(ctx.now, ctx.act);
    }

    fn stats(&self) -> NoStats {
        NoStats
    }
}
