//! The issue stage: the schedulers' candidate order (LRR, GTO, two-level), the mask-based
//! GTO fast path ([`Sm::issue_gto`]), the general scan ([`Sm::issue_scan`]), and issuing a
//! warp's instruction to a collector ([`Sm::issue_to`]): scoreboard, collector allocation and
//! operand reads routed to the bank queues.

use std::cmp::Reverse;

use super::operands::OpSlot;
use super::warp::Gate;
use super::{Shared, Sm, StallKind, SubCore, TimingError};
use crate::timing::config::SchedulerPolicy;
use crate::timing::rf::{
    CollectorChoice, Delay, OperandRef, RegisterFileDesign, RfCtx, Route, WarpSlot,
};

/// Element `k` of `by_age` with the element at `p` (if any) moved to the front.
#[inline]
fn gto_at(by_age: &[u16], p: Option<usize>, k: usize) -> u16 {
    match p {
        Some(p) if k == 0 => by_age[p],
        Some(p) if k <= p => by_age[k - 1],
        _ => by_age[k],
    }
}

impl<D: RegisterFileDesign> Sm<D> {
    /// Tells the design which warps of sub-core `sc` left (in `before`, not in `after`) and
    /// entered (in `after` only) the active set.
    #[cold]
    fn active_set_changed(&mut self, sc: usize, now: u64, before: &[u16], after: &[u16]) {
        let mut ctx = RfCtx {
            now,
            sm: self.id,
            act: &mut self.rf_act,
        };
        let warp = |slot: u16| WarpSlot {
            slot,
            sub_core: sc as u8,
        };
        for &s in before.iter().filter(|s| !after.contains(s)) {
            self.design.warp_scheduled(&mut ctx, warp(s), false);
        }
        for &s in after.iter().filter(|s| !before.contains(s)) {
            self.design.warp_scheduled(&mut ctx, warp(s), true);
        }
    }

    /// Fills `order` with the scheduler's candidate order, or, for GTO when every design
    /// priority is equal, returns `Some(p)` instead: the order is then `by_age` with the
    /// greedy warp (at position `p`, if `p` is `Some`) moved to the front, read in place by
    /// [`Sm::issue`] ([`gto_at`]).
    #[inline(never)]
    fn build_order(&mut self, sh: &Shared, sc: usize, now: u64) -> Option<Option<usize>> {
        let policy = sh.cfg.sm.scheduler.policy;
        if policy == SchedulerPolicy::Gto {
            let sub = &self.subs[sc];
            if self.same_priority(sc) {
                // the greedy warp, then the others oldest first: what `sort_gto` gives
                // when all design priorities are equal, without sorting or copying
                let last = sub.last_issued;
                return Some(last.and_then(|l| sub.by_age.iter().position(|&s| s == l)));
            }
        }
        let mut order = std::mem::take(&mut self.subs[sc].order);
        order.clear();
        let sub = &self.subs[sc];
        let resident = |s: u16| self.warps[usize::from(s)].is_some();
        match policy {
            SchedulerPolicy::Lrr => {
                let n = sub.warps.len();
                let start = sub
                    .last_issued
                    .and_then(|l| sub.warps.iter().position(|&s| s == l))
                    .map_or(0, |p| p + 1);
                for k in 0..n {
                    let s = sub.warps[(start + k) % n];
                    if resident(s) {
                        order.push(s);
                    }
                }
            }
            SchedulerPolicy::Gto => {
                // unequal design priorities: the full GTO sort
                let last = sub.last_issued;
                order.extend(sub.warps.iter().copied().filter(|&s| resident(s)));
                let mut keys = std::mem::take(&mut self.subs[sc].keys);
                self.sort_gto(&mut order, last, &mut keys);
                self.subs[sc].keys = keys;
            }
            SchedulerPolicy::TwoLevel { active_warps } => {
                // demote warps waiting on memory or done; promote oldest pending non-blocked
                let mut active = std::mem::take(&mut self.subs[sc].active_set);
                let before = D::SCHEDULER_EVENTS.then(|| active.clone());
                active.retain(|&s| {
                    resident(s)
                        && !matches!(
                            self.blocked(s, now),
                            Some(StallKind::Memory) | Some(StallKind::Barrier)
                        )
                        && !self.warps[usize::from(s)]
                            .as_ref()
                            .is_some_and(|w| w.exited)
                });
                let mut pending: Vec<u16> = self.subs[sc]
                    .warps
                    .iter()
                    .copied()
                    .filter(|&s| {
                        resident(s)
                            && !active.contains(&s)
                            && !matches!(
                                self.blocked(s, now),
                                Some(StallKind::Memory) | Some(StallKind::Barrier)
                            )
                            && !self.warps[usize::from(s)]
                                .as_ref()
                                .is_some_and(|w| w.exited)
                    })
                    .collect();
                pending.sort_by_key(|&s| self.warps[usize::from(s)].as_ref().map_or(0, |w| w.age));
                for s in pending {
                    if active.len() >= active_warps as usize {
                        break;
                    }
                    active.push(s);
                }
                order.extend(active.iter().copied());
                if let Some(before) = before {
                    self.active_set_changed(sc, now, &before, &active);
                }
                let mut keys = std::mem::take(&mut self.subs[sc].keys);
                self.sort_gto(&mut order, self.subs[sc].last_issued, &mut keys);
                self.subs[sc].keys = keys;
                self.subs[sc].active_set = active;
            }
        }
        self.subs[sc].order = order;
        None
    }

    /// Whether the design gives every resident warp of sub-core `sc` the same priority.
    fn same_priority(&self, sc: usize) -> bool {
        self.subs[sc]
            .by_age
            .windows(2)
            .all(|p| self.priority(p[0]) == self.priority(p[1]))
    }

    /// The GTO scheduler when every design priority is equal and warp slots fit a `u64`
    /// mask: the decision [`Sm::issue`]'s scan of the order (greedy warp, then the others
    /// oldest first) makes, found from the sub-core's `ready`/`waiting` masks. The warps
    /// the scan issues are the first `issue_width` free ones in that order: the greedy warp
    /// if free, then the free ones by age. With none issued, the stall reason is the first
    /// warp's in the order, or a full collector if a free warp found none. `wake_at` is the
    /// earliest end of any redirect wait (the scan takes it over the warps before the first
    /// free one: a wake-up at an earlier time re-evaluates to the same decision).
    ///
    /// `pri`: the design's priorities of the sub-core's resident warps (by slot) when they
    /// are not all equal; the order is then the greedy warp, then the others by priority
    /// (highest first) and age, as [`Sm::sort_gto`] sorts them.
    fn issue_gto(
        &mut self,
        sh: &mut Shared,
        sc: usize,
        now: u64,
        pri: Option<&[u8; 64]>,
    ) -> Result<bool, TimingError> {
        let mut cand = self.subs[sc].ready;
        let mut wake = u64::MAX;
        let mut wt = self.subs[sc].waiting;
        while wt != 0 {
            let s = wt.trailing_zeros() as usize;
            wt &= wt - 1;
            let until = self.gates[s].no_issue_until;
            if until > now {
                cand &= !(1u64 << s);
                wake = wake.min(until);
            } else {
                self.subs[sc].waiting &= !(1u64 << s);
            }
        }
        self.subs[sc].wake_at = wake;
        let greedy = self.subs[sc].last_issued;
        let width = sh.cfg.sm.scheduler.issue_width;
        let mut issued = 0;
        let mut reason: Option<StallKind> = None;
        while issued < width && cand != 0 {
            let slot = match greedy {
                Some(g) if g < 64 && cand >> g & 1 != 0 => g,
                _ => self.first_of(cand, pri),
            };
            cand &= !(1u64 << slot);
            if self.subs[sc].free_mask == 0 {
                reason = Some(StallKind::CollectorFull);
                break;
            }
            match self.choose(sc, slot, now) {
                Ok(Some(ci)) => {
                    self.issue_to(sh, sc, ci, slot, now)?;
                    issued += 1;
                }
                Ok(None) => {
                    self.subs[sc].dirty = true;
                    reason = Some(StallKind::CollectorFull);
                }
                Err(()) => {
                    // the design stalls this scheduler for the cycle
                    self.subs[sc].dirty = true;
                    reason = Some(StallKind::CollectorFull);
                    break;
                }
            }
        }
        if issued == 0 && reason.is_none() {
            let first = self.first_in_order(sc, pri);
            reason = first.and_then(|s| self.blocked(s, now));
        }
        let any = self.end_issue(sc, issued, reason);
        if any && cand == 0 && reason.is_none() {
            // every candidate issued: until something marks the sub-core dirty (a dispatch,
            // completion, launch, retirement or barrier: every change of a gate, of
            // `free_mask` or of the warps) or a redirect wait ends (`wake_at`), the next
            // evaluation finds no candidate and stalls on the greedy warp, the last one
            // issued, which waits in its collector
            if let Some(g) = self.subs[sc].last_issued {
                let r = self.blocked(g, now + 1);
                let s = &mut self.subs[sc];
                s.last_stall = r.unwrap_or(StallKind::Idle);
                s.dirty = false;
            }
        }
        Ok(any)
    }

    /// What [`Sm::issue_gto`] would record at `now` without changing anything: the stall
    /// reason, or None if it would issue (or offer a warp to the design). Debug builds check
    /// every evaluation skipped as unchanged (`dirty` clear) against it.
    #[cfg(debug_assertions)]
    fn gto_outcome(&self, sc: usize, now: u64, pri: Option<&[u8; 64]>) -> Option<StallKind> {
        let s = &self.subs[sc];
        let mut cand = s.ready;
        let mut wt = s.waiting;
        while wt != 0 {
            let b = wt.trailing_zeros() as usize;
            wt &= wt - 1;
            if self.gates[b].no_issue_until > now {
                cand &= !(1u64 << b);
            }
        }
        if cand != 0 {
            return (s.free_mask == 0).then_some(StallKind::CollectorFull);
        }
        let first = self.first_in_order(sc, pri);
        Some(
            first
                .and_then(|f| self.blocked(f, now))
                .unwrap_or(StallKind::Idle),
        )
    }

    /// Age of the warp in `slot` (the GTO tie-break).
    fn age(&self, slot: u16) -> u64 {
        self.warps[usize::from(slot)]
            .as_ref()
            .map_or(u64::MAX, |w| w.age)
    }

    /// The design's priority of every resident warp of sub-core `sc`, by slot (< 64).
    fn priorities(&self, sc: usize) -> [u8; 64] {
        let mut p = [0u8; 64];
        for &s in &self.subs[sc].by_age {
            if let Some(x) = p.get_mut(usize::from(s)) {
                *x = self.priority(s);
            }
        }
        p
    }

    /// The first warp of `cand` (a slot mask) in GTO order after the greedy warp: the
    /// oldest, or with `pri` the highest priority, then the oldest.
    #[inline]
    fn first_of(&self, cand: u64, pri: Option<&[u8; 64]>) -> u16 {
        let mut m = cand;
        let mut best = m.trailing_zeros() as u16;
        m &= m - 1;
        while m != 0 {
            let s = m.trailing_zeros() as u16;
            m &= m - 1;
            let better = match pri {
                None => self.age(s) < self.age(best),
                Some(p) => {
                    let (a, b) = (p[usize::from(s)], p[usize::from(best)]);
                    a > b || (a == b && self.age(s) < self.age(best))
                }
            };
            if better {
                best = s;
            }
        }
        best
    }

    /// The first warp of sub-core `sc`'s GTO order: the greedy warp, else the oldest (with
    /// `pri`: the greedy warp if resident, else the highest priority, then the oldest).
    fn first_in_order(&self, sc: usize, pri: Option<&[u8; 64]>) -> Option<u16> {
        let s = &self.subs[sc];
        match pri {
            None => s.last_issued.or_else(|| s.by_age.first().copied()),
            Some(_) => s
                .last_issued
                .filter(|&g| self.warps.get(usize::from(g)).is_some_and(|w| w.is_some()))
                .or_else(|| {
                    let all = s.by_age.iter().fold(0u64, |m, &x| m | 1u64 << x);
                    (all != 0).then(|| self.first_of(all, pri))
                }),
        }
    }

    /// The design's collector choice for warp `slot` among the free collectors of `sc`:
    /// `Ok(Some(c))`, `Ok(None)` if it chose to wait (or named a collector that is not free),
    /// `Err(())` if it stalls the scheduler for this cycle.
    fn choose(&mut self, sc: usize, slot: u16, now: u64) -> Result<Option<usize>, ()> {
        let ws = WarpSlot {
            slot,
            sub_core: sc as u8,
        };
        let mut ctx = RfCtx {
            now,
            sm: self.id,
            act: &mut self.rf_act,
        };
        match self
            .design
            .choose_collector(&mut ctx, ws, self.subs[sc].free_mask)
        {
            CollectorChoice::Use(c)
                if usize::from(c) < self.subs[sc].collectors.len()
                    && self.subs[sc].free_mask >> c & 1 != 0 =>
            {
                Ok(Some(usize::from(c)))
            }
            CollectorChoice::Stall => Err(()),
            _ => Ok(None),
        }
    }

    /// Records the outcome of a scheduler evaluation; returns whether a warp issued.
    fn end_issue(&mut self, sc: usize, issued: u32, reason: Option<StallKind>) -> bool {
        let kind = if issued > 0 {
            StallKind::Issued
        } else {
            reason.unwrap_or(StallKind::Idle)
        };
        self.subs[sc].last_stall = kind;
        if issued > 0 {
            self.subs[sc].dirty = true;
        }
        self.stalls[kind as usize] += 1;
        issued > 0
    }

    /// The design's scheduling priority of a resident warp.
    fn priority(&self, s: u16) -> u8 {
        // `get`, not indexing: with a design whose priority is a constant the whole
        // equal-priority check folds away
        self.warps
            .get(usize::from(s))
            .and_then(|w| w.as_ref())
            .map_or(0, |w| {
                self.design.warp_priority(WarpSlot {
                    slot: s,
                    sub_core: w.sub_core,
                })
            })
    }

    fn sort_gto(
        &self,
        order: &mut [u16],
        last: Option<u16>,
        keys: &mut Vec<(bool, Reverse<u8>, u64, u16)>,
    ) {
        keys.clear();
        for &s in order.iter() {
            let w = self.warps[usize::from(s)].as_ref();
            let age = self.age(s);
            let pri = w.map_or(0, |w| {
                self.design.warp_priority(WarpSlot {
                    slot: s,
                    sub_core: w.sub_core,
                })
            });
            keys.push((Some(s) != last, Reverse(pri), age, s));
        }
        keys.sort_unstable();
        for (o, k) in order.iter_mut().zip(keys.iter()) {
            *o = k.3;
        }
    }

    pub(super) fn issue(
        &mut self,
        sh: &mut Shared,
        sc: usize,
        now: u64,
    ) -> Result<bool, TimingError> {
        if !self.subs[sc].dirty && now < self.subs[sc].wake_at {
            // nothing changed since the last evaluation: same decision (no issue)
            #[cfg(debug_assertions)]
            if self.warps.len() <= 64 && sh.cfg.sm.scheduler.policy == SchedulerPolicy::Gto {
                let pri = (!self.same_priority(sc)).then(|| self.priorities(sc));
                assert_eq!(
                    self.gto_outcome(sc, now, pri.as_ref()),
                    Some(self.subs[sc].last_stall),
                    "SM {} sub-core {sc}, cycle {now}: a skipped evaluation would differ",
                    self.id
                );
            }
            self.stalls[self.subs[sc].last_stall as usize] += 1;
            return Ok(false);
        }
        self.subs[sc].dirty = false;
        self.subs[sc].wake_at = u64::MAX;
        if self.warps.len() <= 64 && sh.cfg.sm.scheduler.policy == SchedulerPolicy::Gto {
            if self.same_priority(sc) {
                return self.issue_gto(sh, sc, now, None);
            }
            // unequal design priorities (Malekeh): the same decision from the masks, with
            // the priorities as the sort would take them, once at the start
            let pri = self.priorities(sc);
            return self.issue_gto(sh, sc, now, Some(&pri));
        }
        self.issue_scan(sh, sc, now)
    }

    /// The scheduler's general path: builds the policy's order ([`Sm::build_order`]) and
    /// issues the first free warps in it (LRR, two-level, GTO with design priorities or more
    /// than 64 warp slots).
    #[inline(never)]
    fn issue_scan(&mut self, sh: &mut Shared, sc: usize, now: u64) -> Result<bool, TimingError> {
        let gto = self.build_order(sh, sc, now);
        let order = match gto {
            Some(_) => Vec::new(),
            None => std::mem::take(&mut self.subs[sc].order),
        };
        let n = match gto {
            Some(_) => self.subs[sc].by_age.len(),
            None => order.len(),
        };
        let width = sh.cfg.sm.scheduler.issue_width;
        let mut issued = 0;
        let mut reason: Option<StallKind> = None;
        for k in 0..n {
            if issued >= width {
                break;
            }
            let slot = match gto {
                Some(p) => gto_at(&self.subs[sc].by_age, p, k),
                None => match order.get(k) {
                    Some(&s) => s,
                    None => break,
                },
            };
            if let Some(r) = self.blocked(slot, now) {
                if reason.is_none() {
                    reason = Some(r);
                }
                let until = self.gates[usize::from(slot)].no_issue_until;
                if until > now {
                    let s = &mut self.subs[sc];
                    s.wake_at = s.wake_at.min(until);
                }
                continue;
            }
            if self.subs[sc].free_mask == 0 {
                // a ready warp found no collector: that is the reason, whatever came before
                reason = Some(StallKind::CollectorFull);
                break;
            }
            let ci = match self.choose(sc, slot, now) {
                Ok(Some(ci)) => ci,
                Ok(None) => {
                    // the design's policy may change its mind next cycle
                    self.subs[sc].dirty = true;
                    reason = Some(StallKind::CollectorFull);
                    continue;
                }
                Err(()) => {
                    // the design stalls this scheduler for the cycle
                    self.subs[sc].dirty = true;
                    reason = Some(StallKind::CollectorFull);
                    break;
                }
            };
            self.issue_to(sh, sc, ci, slot, now)?;
            issued += 1;
        }
        if gto.is_none() {
            self.subs[sc].order = order;
        }
        Ok(self.end_issue(sc, issued, reason))
    }

    fn issue_to(
        &mut self,
        sh: &mut Shared,
        sc: usize,
        ci: usize,
        slot: u16,
        now: u64,
    ) -> Result<(), TimingError> {
        let Some(w) = self.warps[usize::from(slot)].as_mut() else {
            return Ok(());
        };
        let Some(sid) = w.next else {
            return Ok(());
        };
        let st = sh.st(sid);
        let info = &st.key;
        if let Some(r) = st.bad_reg {
            return Err(TimingError::RegisterRange {
                pc: info.pc,
                reg: r,
            });
        }
        for k in 0..4 {
            w.pending[k] |= st.dst_mask[k];
        }
        w.pending_pred |= info.dst_preds;
        w.pending_ur |= info.dst_uniform;
        w.in_collector = true;
        // a warp that issues is not at a barrier, so in its collector its verdict is "no
        // instruction" ([`Warp::gate_of`]), without the scoreboard test
        debug_assert_eq!(w.gate_of(), Some(StallKind::NoInstruction));
        let g = Gate {
            verdict: Some(StallKind::NoInstruction),
            no_issue_until: w.no_issue_until,
        };
        self.set_gate(usize::from(slot), sc, g);
        self.subs[sc].last_issued = Some(slot);
        self.subs[sc].free_mask &= !(1u64 << ci);
        self.collector_seq += 1;
        self.act.collector_allocations += 1;
        let ws = WarpSlot {
            slot,
            sub_core: sc as u8,
        };
        {
            let mut ctx = RfCtx {
                now,
                sm: self.id,
                act: &mut self.rf_act,
            };
            let decoded = self.design.issued(&mut ctx, ws, info.func, info.pc);
            if decoded > 0 {
                if let Some(w) = self.warps[usize::from(slot)].as_mut() {
                    w.decode_hold = decoded;
                }
            }
        }
        let nb = self.subs[sc].bank_q.len();
        let SubCore {
            collectors,
            bank_q,
            queued_reads,
            busy_collectors,
            granted,
            ..
        } = &mut self.subs[sc];
        let c = &mut collectors[ci];
        c.busy = true;
        *busy_collectors += 1;
        c.slot = slot;
        c.sid = Some(sid);
        c.nops = 0;
        c.pending = 0;
        c.ready_at = now + 1;
        c.seq = self.collector_seq;
        for (k, &r) in info.srcs.as_slice().iter().enumerate() {
            let reuse = st.src_reuse.get(k).copied().flatten();
            let last_use = st.src_last >> k & 1 != 0;
            let op = OperandRef {
                warp: ws,
                reg: r,
                collector: ci as u16,
                func: info.func,
                pc: info.pc,
                reuse,
                last_use,
            };
            let mut ctx = RfCtx {
                now,
                sm: self.id,
                act: &mut self.rf_act,
            };
            let route = self.design.route_read(&mut ctx, &op);
            if c.ops.len() <= k {
                c.ops.push(OpSlot::EMPTY);
            }
            let slot_v = &mut c.ops[k];
            slot_v.reg = r;
            slot_v.granted = false;
            slot_v.ready_at = u64::MAX;
            slot_v.last_use = last_use;
            slot_v.reuse = reuse;
            c.nops = k + 1;
            match route {
                Route::Bank(b) => {
                    let b = usize::from(b).min(nb - 1);
                    self.design.prefetch(ws, r);
                    bank_q[b].push_back((ci as u16, k as u8));
                    *queued_reads += 1;
                    c.pending += 1;
                }
                Route::Bypass => {
                    let out = self.design.read(&mut ctx, &op);
                    let extra = match out.delay {
                        Delay::None => 0,
                        Delay::Cycles(x) => u64::from(x),
                        // a bypass cannot wait for memory; treat as its extra cycles
                        Delay::Memory { extra, .. } => u64::from(extra),
                    };
                    slot_v.values = out.values;
                    slot_v.granted = true;
                    slot_v.ready_at = now + 1 + extra;
                    c.ready_at = c.ready_at.max(slot_v.ready_at);
                    // a value already in the collector (a collector-cache hit) is not
                    // written into it again: `collector_writes` counts bank deliveries
                    self.act.bypassed_reads += 1;
                }
            }
        }
        if c.pending == 0 {
            *granted |= 1u64 << ci;
        }
        Ok(())
    }
}
