//! CTA launch and retirement: occupancy checks and warp set-up ([`Sm::try_launch`]), the
//! CTA's barriers (arrivals and releases), and freeing a warp and its CTA once it drained.

use super::warp::Warp;
use super::{Shared, Sm, TimingError};
use crate::barrier::{Arrival, CtaBarriers};
use crate::timing::functional::{FunctionalWarpModel, WarpKey};
use crate::timing::memory::MemoryTiming;
use crate::timing::rf::{RegisterFileDesign, RfCtx, WarpSlot};

#[derive(Clone, Debug)]
pub(super) struct CtaState {
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

impl<D: RegisterFileDesign> Sm<D> {
    /// Starts CTA `cta` if it fits. Returns whether it was launched.
    pub(super) fn try_launch<F: FunctionalWarpModel, M: MemoryTiming>(
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
        if self.used_ctas == 0 {
            // before the CTA's registers are allocated
            let mut ctx = RfCtx {
                now,
                sm: self.id,
                act: &mut self.rf_act,
            };
            self.design.sm_occupied(&mut ctx, true);
        }
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
                decode_hold: 0,
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

    /// Frees a warp (and its CTA) once it has exited and drained.
    #[inline]
    pub(super) fn maybe_retire<F: FunctionalWarpModel>(
        &mut self,
        model: &mut F,
        slot: u16,
        now: u64,
    ) {
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
                    let mut ctx = RfCtx {
                        now,
                        sm: self.id,
                        act: &mut self.rf_act,
                    };
                    self.design.sm_occupied(&mut ctx, false);
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

    /// Warp `key` of CTA slot `cta` arrives at a barrier; releases the barrier's warps if
    /// that completes it.
    #[cold]
    #[inline(never)]
    pub(super) fn arrive(&mut self, cta: usize, key: WarpKey, a: Arrival) {
        let Some(c) = self.ctas[cta].as_mut() else {
            return;
        };
        // warp keys are `cta id × warps per CTA + index`
        let local = key.wrapping_sub(c.id.wrapping_mul(c.warps.len() as u32)) as usize;
        if let Some(m) = c.barriers.arrive(local, a) {
            self.release_barrier(cta, m);
        }
    }
}
