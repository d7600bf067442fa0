//! Idle cycles: an SM's idle window (cycles that would change only counters, counted
//! instead of stepped, [`Sm::idle_end`]), the next scheduled event when no SM progresses,
//! and the stall and operand-wait accounting of skipped cycles.

use super::dispatch::class_timing;
use super::{Shared, Sm, StallKind};
use crate::timing::functional::UnitClass;
use crate::timing::rf::RegisterFileDesign;

impl<D: RegisterFileDesign> Sm<D> {
    /// If cycle `t` of this SM would change nothing but per-cycle counters (no completion
    /// due, no writeback or operand read queued, no collector able to dispatch, no scheduler
    /// to re-evaluate), the first cycle after `t` at which that may change; otherwise 0.
    /// Records what each such idle cycle adds to the statistics (exactly what stepping it
    /// would add). Nothing outside the SM changes its state except a CTA launch, which
    /// resets the window.
    pub(super) fn idle_end(&mut self, sh: &Shared, t: u64) -> u64 {
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
    pub(super) fn flush_idle(&mut self) {
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

    /// Adds the scheduler-cycle counts per [`StallKind`] (`stalls`, indexed by the kind:
    /// an add where a `match` on the kind was a data-dependent jump every scheduler cycle)
    /// to the activity record.
    pub(super) fn fold_stalls(&mut self) {
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

    /// Earliest future cycle at which something is scheduled on this SM.
    pub(super) fn next_event(&self, now: u64) -> Option<u64> {
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

    pub(super) fn account_skipped(&mut self, n: u64) {
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
