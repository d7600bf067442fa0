//! Result buffers and the writeback stage: the SM's timed events ([`Events`]), writing
//! results through the design's bank ports ([`Sm::writeback`]) and completing an instruction
//! ([`Sm::complete`]: scoreboard release, dead-destination release, warp exit).

use super::ldst::delay_cycles;
use super::{FuncTables, Shared, Sm, MAX_CYCLES};
use crate::timing::functional::FunctionalWarpModel;
use crate::timing::memory::MemoryTiming;
use crate::timing::rf::{RegisterFileDesign, ReleaseCause, RfCtx, Route, WarpSlot, WriteRef};

/// Timed events of an SM: (cycle, result-buffer index) pairs, taken earliest cycle first and,
/// within a cycle, lowest index first. One `u64` key per event (cycle in the high bits),
/// kept sorted in descending order: the earliest is the last element, so taking it is a
/// `pop` without the sift-down of a binary heap (whose data-dependent branches mispredict),
/// and an insertion moves the later-sorted keys up by one (an SM holds a few dozen events).
#[derive(Clone, Debug, Default)]
pub(super) struct Events(Vec<u64>);

impl Events {
    const IDX_BITS: u32 = 23;
    const IDX_MASK: u64 = (1 << Self::IDX_BITS) - 1;
    pub(super) fn push(&mut self, t: u64, idx: usize) {
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
    pub(super) fn next_time(&self) -> Option<u64> {
        self.0.last().map(|k| k >> Self::IDX_BITS)
    }
    /// Removes the earliest event; its index (0 if there is none).
    pub(super) fn pop(&mut self) -> usize {
        self.0.pop().map_or(0, |k| (k & Self::IDX_MASK) as usize)
    }
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A result buffer: one in-flight instruction from dispatch to completion. Slots are reused
/// in place (`live` marks the used ones), and each keeps its write buffer's allocation.
#[derive(Clone, Debug, Default)]
pub(super) struct WbEntry {
    pub(super) live: bool,
    pub(super) slot: u16,
    /// The warp's sub-core (the completion stage queues the entry there without reading
    /// the warp).
    pub(super) sub_core: u8,
    /// The instruction ([`Shared::intern`] index).
    pub(super) sid: u32,
    pub(super) collector: u16,
    pub(super) from_load: bool,
    pub(super) writes: Vec<(u16, [u32; 32], u32)>,
    /// Writes already done.
    pub(super) done: usize,
    /// Route of the next write (computed once).
    pub(super) route: Option<Route>,
    /// Earliest cycle the scoreboard may be released (design write delays).
    pub(super) complete_at: u64,
}

impl<D: RegisterFileDesign> Sm<D> {
    pub(super) fn writeback<F: FunctionalWarpModel, M: MemoryTiming>(
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
                    let mut extra = extra;
                    if let Some(b) = out.evict_to_bank {
                        let b = usize::from(b).min(nbanks - 1);
                        act.bank_writes[sc * nbanks + b] += 1;
                        if sub.bank_ports_used[b] < ports {
                            sub.bank_ports_used[b] += 1;
                        } else {
                            act.write_port_stalls += 1;
                            extra = extra.max(1);
                        }
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
    pub(super) fn complete<F: FunctionalWarpModel>(
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
}

#[cfg(test)]
mod tests {
    use super::Events;
    use crate::timing::core::MAX_CYCLES;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    /// The sorted event list gives the order of a min-heap of (cycle, index) keys: earliest
    /// cycle first, lowest index first within a cycle, whatever the insertion order.
    #[test]
    fn events_pop_in_heap_order() {
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
    fn event_keys_keep_cycles_and_indices() {
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
}
