//! The dispatch stage: execution-unit timing per instruction class, the register adapter
//! that serves collected operands to the functional model ([`Collected`]), and dispatching a
//! ready collector ([`Sm::try_dispatch`]): the functional step, release flags, the memory
//! route of a memory instruction and the result buffer.

use super::ldst::{DesignAccess, DesignAccessSlots, DESIGN_COL};
use super::operands::OpSlot;
use super::writeback::WbEntry;
use super::{release_all, Ring, Shared, Sm, TimingError};
use crate::timing::config::{GpuConfig, OpTiming};
use crate::timing::functional::{
    FunctionalWarpModel, MemOpKind, MemSpaceKind, UnitClass, WarpRegisters,
};
use crate::timing::memory::MemoryTiming;
use crate::timing::rf::{
    BankAccessKind, BankAccesses, GlobalAccess, MemRoute, RegisterFileDesign, ReleaseCause, RfCtx,
    WarpSlot,
};

/// Starts a memory instruction the design serves through its own bank accesses `a`: takes a
/// slot for `access` and queues the accesses at the sub-core's banks (a bank past the
/// sub-core's last folds onto it). `None`: the result waits for the last access's grant;
/// `Some(cycle)`: no access, or every slot taken (no port is modelled then), ready at `cycle`.
fn start_design_access(
    slots: &mut DesignAccessSlots,
    (bank_q, queued): (&mut [Ring], &mut u32),
    a: &BankAccesses,
    access: DesignAccess,
) -> Option<u64> {
    let unqueued = access.ready + u64::from(access.after);
    let Some(k) = (access.pending > 0).then(|| slots.start(access)).flatten() else {
        return Some(unqueued);
    };
    let nb = bank_q.len();
    for (b, &n) in a.per_bank.iter().enumerate() {
        let b = b.min(nb - 1);
        for _ in 0..n {
            bank_q[b].push_back((DESIGN_COL, k));
            *queued += 1;
        }
    }
    None
}

/// Per-class dispatch data: pool index (None = no unit) and timing.
pub(super) fn class_timing(cfg: &GpuConfig, c: UnitClass) -> (Option<usize>, OpTiming) {
    let u = &cfg.sm.units;
    let one = OpTiming {
        latency: 1,
        initiation: 1,
    };
    match c {
        UnitClass::Sp => (Some(0), u.sp.timing),
        UnitClass::Int => (Some(1), u.int.timing),
        UnitClass::Sfu => (Some(2), u.sfu.timing),
        UnitClass::IntDiv => (Some(2), u.int_div),
        UnitClass::FpDiv => (Some(2), u.fp_div),
        UnitClass::Dp => (Some(3), u.dp.timing),
        UnitClass::DpDiv => (Some(3), u.dp_div),
        UnitClass::Tensor => (Some(4), u.tensor.timing),
        UnitClass::Branch => (Some(0), u.branch),
        UnitClass::Mem | UnitClass::Barrier | UnitClass::Exit | UnitClass::Nop => (None, one),
    }
}

/// The register adapter handed to the functional `step`: serves collected operands, buffers
/// writes for writeback, and keeps predicates in the SM's predicate file.
struct Collected<'a, D: RegisterFileDesign> {
    ops: &'a [OpSlot],
    design: &'a D,
    warp: WarpSlot,
    preds: &'a mut [u32],
    writes: &'a mut Vec<(u16, [u32; 32], u32)>,
    uncollected: u64,
}

impl<D: RegisterFileDesign> WarpRegisters for Collected<'_, D> {
    fn read(&mut self, reg: u16) -> [u32; 32] {
        if let Some(w) = self.writes.iter().rev().find(|w| w.0 == reg) {
            // read-after-write inside one instruction: merge over the collected/peeked value
            let mut base = self
                .ops
                .iter()
                .find(|o| o.reg == reg)
                .map(|o| o.values)
                .unwrap_or_else(|| self.design.peek(self.warp, reg));
            for (l, b) in base.iter_mut().enumerate() {
                if w.2 >> l & 1 != 0 {
                    *b = w.1[l];
                }
            }
            return base;
        }
        if let Some(o) = self.ops.iter().find(|o| o.reg == reg) {
            return o.values;
        }
        self.uncollected += 1;
        self.design.peek(self.warp, reg)
    }
    fn read_into(&mut self, reg: u16, out: &mut [u32; 32]) {
        // the common case of `read` (a collected operand not yet written by this instruction)
        // copied straight into `out`; everything else through `read`
        if !self.writes.iter().any(|w| w.0 == reg) {
            if let Some(o) = self.ops.iter().find(|o| o.reg == reg) {
                *out = o.values;
                return;
            }
        }
        *out = self.read(reg);
    }
    fn write(&mut self, reg: u16, values: &[u32; 32], mask: u32) {
        if let Some(w) = self.writes.iter_mut().find(|w| w.0 == reg) {
            for (l, (d, v)) in w.1.iter_mut().zip(values).enumerate() {
                if mask >> l & 1 != 0 {
                    *d = *v;
                }
            }
            w.2 |= mask;
        } else {
            self.writes.push((reg, *values, mask));
        }
    }
    fn read_pred(&mut self, p: u16) -> u32 {
        self.preds.get(usize::from(p)).copied().unwrap_or(0)
    }
    fn write_pred(&mut self, p: u16, bits: u32, mask: u32) {
        if let Some(s) = self.preds.get_mut(usize::from(p)) {
            *s = (*s & !mask) | (bits & mask);
        }
    }
}

impl<D: RegisterFileDesign> Sm<D> {
    pub(super) fn dispatch<F: FunctionalWarpModel, M: MemoryTiming>(
        &mut self,
        sh: &mut Shared,
        model: &mut F,
        mem: &mut M,
        sc: usize,
        now: u64,
    ) -> Result<bool, TimingError> {
        let mut progress = false;
        let mut dispatched = 0;
        let limit = sh.cfg.sm.collectors.dispatch_per_cycle;
        // candidates (operands all present), oldest allocation first; collectors waiting for
        // operands are counted in the same pass
        let mut cands = [0u8; 64];
        let mut n = 0;
        let cols = &self.subs[sc].collectors;
        // the collectors with every operand granted; the other busy ones wait for operands
        let mut granted = self.subs[sc].granted;
        while granted != 0 {
            let i = granted.trailing_zeros() as usize;
            granted &= granted - 1;
            let Some(c) = cols.get(i) else {
                break;
            };
            // written always, kept if a candidate (no data-dependent branch)
            cands[n] = i as u8;
            n += usize::from(c.ready_at <= now);
        }
        self.act.operand_wait_cycles += u64::from(self.subs[sc].busy_collectors) - n as u64;
        // oldest allocation first: insertion by `seq` (unique), the order
        // `sort_unstable_by_key(seq)` gives
        for k in 1..n {
            let x = cands[k];
            let key = cols[usize::from(x)].seq;
            let mut j = k;
            while j > 0 && cols[usize::from(cands[j - 1])].seq > key {
                cands[j] = cands[j - 1];
                j -= 1;
            }
            cands[j] = x;
        }
        for &ci in &cands[..n] {
            if dispatched >= limit {
                break;
            }
            if self.try_dispatch(sh, model, mem, sc, usize::from(ci), now)? {
                dispatched += 1;
                progress = true;
            } else {
                self.act.exec_unit_busy_cycles += 1;
            }
        }
        Ok(progress)
    }

    fn try_dispatch<F: FunctionalWarpModel, M: MemoryTiming>(
        &mut self,
        sh: &mut Shared,
        model: &mut F,
        mem: &mut M,
        sc: usize,
        ci: usize,
        now: u64,
    ) -> Result<bool, TimingError> {
        // split borrows up to the model's step (taken again after it, below)
        let Sm {
            subs,
            warps,
            design,
            ldst_free,
            wb,
            wb_free,
            preds,
            mem_buf,
            id,
            ..
        } = self;
        let id = *id;
        let sub = &mut subs[sc];
        let Some(c) = sub.collectors.get_mut(ci) else {
            return Ok(false);
        };
        let Some(sid) = c.sid else {
            return Ok(false);
        };
        let (class, kind, func, pc) = {
            let i = sh.info(sid);
            (i.class, i.kind, i.func, i.pc)
        };
        let (pool, timing) = class_timing(sh.cfg, class);
        // unit availability
        let unit = match pool {
            Some(p) => match sub.units[p].iter().position(|&f| f <= now) {
                Some(k) => Some((p, k)),
                None => return Ok(false),
            },
            None => None,
        };
        let ldst = if class == UnitClass::Mem {
            match ldst_free.iter().position(|&f| f <= now) {
                Some(k) => Some(k),
                None => return Ok(false),
            }
        } else {
            None
        };
        let slot = c.slot;
        let Some(w) = warps[usize::from(slot)].as_ref() else {
            return Ok(false);
        };
        let key = w.key;
        let cta = w.cta;
        let ws = WarpSlot {
            slot,
            sub_core: sc as u8,
        };
        // functional execution with the collected operands
        let idx = wb_free.pop().unwrap_or_else(|| {
            wb.push(WbEntry::default());
            wb.len() - 1
        });
        let writes = &mut wb[idx].writes;
        writes.clear();
        let pbase = usize::from(slot) * 32;
        let nops = c.nops;
        let (step, uncollected) = {
            let mut ad = Collected {
                ops: &c.ops[..nops],
                design,
                warp: ws,
                preds: &mut preds[pbase..pbase + 32],
                writes,
                uncollected: 0,
            };
            let r = model.step(key, &mut ad, mem_buf);
            let u = ad.uncollected;
            (r, u)
        };
        let step = match step {
            Ok(s) => s,
            Err(source) => return Err(TimingError::Model { warp: key, source }),
        };
        // the borrows taken again from `self` after the model's call: otherwise the
        // compiler keeps every field pointer taken before it alive across the call, on the
        // stack (`black_box` hides that they are the same)
        let Sm {
            subs,
            warps,
            design,
            act,
            rf_act,
            mem_act,
            ldst_free,
            wb,
            mem_buf,
            by_class,
            by_kind,
            events,
            design_slots,
            ..
        } = std::hint::black_box(&mut *self);
        let sub = &mut subs[sc];
        let c = &mut sub.collectors[ci];
        act.uncollected_reads += uncollected;
        let lanes = u64::from(step.active_mask.count_ones());
        act.warp_instructions += 1;
        act.thread_instructions += lanes;
        {
            // the uniform datapath's accesses: activity only, never the designs' banks
            let k = &sh.st(sid).key;
            act.uniform_reads += u64::from(k.uniform_reads);
            act.uniform_writes += u64::from(k.uniform_writes);
        }
        by_class[class as usize] += 1;
        by_kind[kind as usize] += lanes;
        act.collector_reads += nops as u64;
        // pir releases (the list is looked up only for an instruction that has one)
        let pir = if sh.st(sid).has_pir {
            sh.func_tables(func).and_then(|t| t.pir.get(pc as usize))
        } else {
            None
        };
        if let Some(list) = pir {
            act.releases_pir += release_all(design, rf_act, id, now, ws, list, ReleaseCause::Pir);
        }
        // timing
        let mut from_load = false;
        // the result waits for the w-merge slot's reads (their last grant schedules it)
        let mut merging = false;
        let ready = match class {
            UnitClass::Mem => {
                let lk = ldst.unwrap_or(0);
                let acc = &*mem_buf;
                if step.mem {
                    let global = matches!(acc.space, MemSpaceKind::Global | MemSpaceKind::Local);
                    from_load = acc.kind != MemOpKind::Store && global;
                    let g = GlobalAccess {
                        warp: ws,
                        access: acc,
                        info: sh.info(sid),
                        l1_hit: (global && design.probes_l1()).then(|| mem.l1_probe(now, id, acc)),
                        design_reads_free: design_slots.reads_in_flight == 0,
                        memory: model.global_reader(),
                    };
                    let route = if global {
                        let mut ctx = RfCtx {
                            now,
                            sm: id,
                            act: rf_act,
                        };
                        design.global_access(&mut ctx, &g)
                    } else {
                        MemRoute::Hierarchy
                    };
                    match route {
                        MemRoute::Served { latency } => {
                            mem_act.rf_design_served += 1;
                            ldst_free[lk] = now + 1;
                            now + u64::from(latency.max(1))
                        }
                        MemRoute::Banks(a) if a.kind == BankAccessKind::RegisterReads => {
                            // register reads through the SM's collector slot for them: the
                            // LD/ST unit is busy one cycle, the result follows the last read
                            mem_act.rf_design_served += 1;
                            ldst_free[lk] = now + 1;
                            let access = DesignAccess {
                                wb: idx,
                                pending: a.count(),
                                ready: now + u64::from(a.latency),
                                after: a.after,
                                reads: Some((ws, g.info.func, g.info.pc)),
                            };
                            match start_design_access(
                                design_slots,
                                (&mut sub.bank_q, &mut sub.queued_reads),
                                &a,
                                access,
                            ) {
                                Some(ready) => ready,
                                None => {
                                    merging = true;
                                    u64::MAX
                                }
                            }
                        }
                        MemRoute::Banks(a) => {
                            // line accesses of the design's own array
                            while let Some(f) = design.take_writeback() {
                                mem.fetch(now, id, &f, mem_act);
                            }
                            let mut ready = (now + u64::from(a.latency.max(1))).max(a.wait_until);
                            let hits = a.count();
                            // the LD/ST unit takes one line per cycle, hits and misses alike
                            let mut ldst = u64::from(hits);
                            let part = a.miss_lanes & acc.mask;
                            if part != 0 {
                                let mut m = acc.clone();
                                m.mask = part;
                                let t = mem.access(
                                    now + u64::from(a.extra),
                                    id,
                                    &m,
                                    !a.via_l1,
                                    mem_act,
                                );
                                ldst += u64::from(t.ldst_cycles);
                                ready = ready.max(t.ready_at);
                                let mut ctx = RfCtx {
                                    now,
                                    sm: id,
                                    act: rf_act,
                                };
                                design.global_timed(&mut ctx, &g, t.ready_at);
                            } else {
                                mem_act.rf_design_served += 1;
                                match acc.space {
                                    MemSpaceKind::Local => mem_act.local_instructions += 1,
                                    _ => mem_act.global_instructions += 1,
                                }
                            }
                            ldst_free[lk] = now + ldst.max(1);
                            let access = DesignAccess {
                                wb: idx,
                                pending: hits,
                                ready,
                                after: a.after,
                                reads: None,
                            };
                            match start_design_access(
                                design_slots,
                                (&mut sub.bank_q, &mut sub.queued_reads),
                                &a,
                                access,
                            ) {
                                Some(ready) => ready,
                                None => {
                                    merging = true;
                                    u64::MAX
                                }
                            }
                        }
                        MemRoute::Hierarchy | MemRoute::SkipL1 { .. } => {
                            let (skip, extra) = match route {
                                MemRoute::SkipL1 { extra } => {
                                    while let Some(f) = design.take_writeback() {
                                        mem.fetch(now, id, &f, mem_act);
                                    }
                                    (true, u64::from(extra))
                                }
                                _ => (false, 0),
                            };
                            let t = mem.access(now + extra, id, acc, skip, mem_act);
                            ldst_free[lk] = now + u64::from(t.ldst_cycles.max(1));
                            if from_load && global {
                                let mut ctx = RfCtx {
                                    now,
                                    sm: id,
                                    act: rf_act,
                                };
                                design.global_timed(&mut ctx, &g, t.ready_at);
                            }
                            t.ready_at.max(now + 1)
                        }
                    }
                } else {
                    ldst_free[lk] = now + 1;
                    now + 1
                }
            }
            _ => {
                if let Some((p, k)) = unit {
                    sub.units[p][k] = now + u64::from(timing.initiation.max(1));
                }
                now + u64::from(timing.latency.max(1))
            }
        };
        // free the collector
        c.busy = false;
        c.sid = None;
        c.nops = 0;
        sub.busy_collectors -= 1;
        sub.granted &= !(1u64 << ci);
        sub.free_mask |= 1 << ci;
        sub.dirty = true;
        {
            let mut ctx = RfCtx {
                now,
                sm: id,
                act: rf_act,
            };
            design.collector_released(&mut ctx, ws, ci as u16);
        }
        // warp state
        let next = sh.next_sid(model, key);
        let mut arrival = None;
        if let Some(w) = warps[usize::from(slot)].as_mut() {
            w.in_collector = false;
            w.inflight += 1;
            w.next = next;
            w.next_mask = next.map_or([0; 4], |i| sh.st(i).mask);
            w.next_preds = next.map_or(0, |i| sh.info(i).src_preds | sh.info(i).dst_preds);
            w.next_ur = next.map_or(0, |i| sh.info(i).src_uniform | sh.info(i).dst_uniform);
            w.has_next = next.is_some();
            // (`from_load` implies a memory instruction; all-ones or zero, no branch)
            let load = 0u64.wrapping_sub(u64::from(from_load));
            for (p, m) in w.pending_mem.iter_mut().zip(&sh.st(sid).dst_mask) {
                *p |= m & load;
            }
            if class == UnitClass::Branch {
                w.no_issue_until = now + u64::from(timing.latency);
            }
            if let Some(n) = next {
                // the next instruction's fetch: an instruction-cache miss holds the warp
                let f = mem.inst_fetch(now, id, sh.st(n).code, mem_act);
                if f > now {
                    w.no_issue_until = w.no_issue_until.max(f);
                }
            }
            if w.decode_hold > 0 {
                // the design's instructions decoded with this one take the decode slot first
                w.no_issue_until = w.no_issue_until.max(now + u64::from(w.decode_hold));
                w.decode_hold = 0;
            }
            w.exited |= step.exited | next.is_none();
            if let Some(a) = step.barrier.filter(|_| !w.exited) {
                w.at_barrier |= a.wait;
                arrival = Some(a);
            }
        }
        let e = &mut wb[idx];
        for w in e.writes.iter() {
            design.prefetch(ws, w.0);
        }
        e.live = true;
        e.slot = slot;
        e.sub_core = sc as u8;
        e.sid = sid;
        e.collector = ci as u16;
        e.from_load = from_load;
        e.done = 0;
        e.route = None;
        e.complete_at = ready;
        if !merging {
            events.push(ready, idx);
        }
        self.refresh_gate(usize::from(slot));
        if let Some(a) = arrival {
            self.arrive(cta, key, a);
        }
        // (most instructions start no block with a release list: no call)
        if next.is_some_and(|i| sh.st(i).pbr_block.is_some()) {
            self.apply_pbr(sh, slot, now);
        }
        Ok(true)
    }
}
