//! Collector units and the operand-read stage: operand slots, the per-bank read queues
//! ([`Ring`]), bank-port counting, and the arbitration that grants queued reads
//! ([`Sm::read_operands`]).

use super::ldst::{delay_cycles, DESIGN_COL};
use super::{Shared, Sm, SubCore};
use crate::timing::memory::MemoryTiming;
use crate::timing::rf::{OperandRef, RegId, RegisterFileDesign, RfCtx, WarpSlot, DESIGN_READ};

/// An operand slot of a collector unit.
#[derive(Clone, Copy, Debug)]
pub(super) struct OpSlot {
    pub(super) reg: u16,
    pub(super) granted: bool,
    pub(super) ready_at: u64,
    pub(super) last_use: bool,
    pub(super) reuse: Option<u32>,
    pub(super) values: [u32; 32],
}

impl OpSlot {
    pub(super) const EMPTY: OpSlot = OpSlot {
        reg: 0,
        granted: false,
        ready_at: 0,
        last_use: false,
        reuse: None,
        values: [0; 32],
    };
}

/// A collector unit; 64-byte aligned: the dispatch check reads one cache line per collector.
#[derive(Clone, Debug)]
#[repr(align(64))]
pub(super) struct Collector {
    pub(super) busy: bool,
    pub(super) slot: u16,
    /// The instruction held ([`Shared::intern`] index).
    pub(super) sid: Option<u32>,
    /// Operand slots; the first `nops` belong to the instruction held (the others keep
    /// stale contents, so that allocating a collector writes no value arrays).
    pub(super) ops: Vec<OpSlot>,
    pub(super) nops: usize,
    /// Operands not granted yet.
    pub(super) pending: u32,
    /// All granted operands present at this cycle.
    pub(super) ready_at: u64,
    /// Allocation order (oldest dispatches first).
    pub(super) seq: u64,
}

/// A FIFO of queued operand reads (collector, operand) with a power-of-two capacity: a
/// push and a pop are an index mask, no wrap test (the standard library's `VecDeque`
/// tests for wrap-around and growth on every push). Grows (doubling) if ever full.
#[derive(Clone, Debug)]
pub(super) struct Ring {
    buf: Vec<(u16, u8)>,
    head: usize,
    len: usize,
}

impl Ring {
    pub(super) fn with_capacity(n: usize) -> Ring {
        Ring {
            buf: vec![(0, 0); n.max(2).next_power_of_two()],
            head: 0,
            len: 0,
        }
    }
    #[inline]
    fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    fn front(&self) -> Option<&(u16, u8)> {
        if self.len == 0 {
            None
        } else {
            self.buf.get(self.head)
        }
    }
    #[inline]
    fn pop_front(&mut self) {
        if self.len > 0 {
            self.head = (self.head + 1) & (self.buf.len() - 1);
            self.len -= 1;
        }
    }
    #[inline]
    pub(super) fn push_back(&mut self, x: (u16, u8)) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let m = self.buf.len() - 1;
        self.buf[(self.head + self.len) & m] = x;
        self.len += 1;
    }
    #[cold]
    fn grow(&mut self) {
        let n = self.buf.len();
        let mut b = Vec::with_capacity(2 * n);
        b.extend((0..self.len).map(|k| self.buf[(self.head + k) & (n - 1)]));
        b.resize(2 * n, (0, 0));
        self.buf = b;
        self.head = 0;
    }
}

impl SubCore {
    /// Makes `bank_ports_used` count cycle `now` (cleared if it counted an earlier one).
    #[inline(always)]
    pub(super) fn ports_at(&mut self, now: u64) {
        if self.ports_cycle != now {
            self.ports_cycle = now;
            self.bank_ports_used = [0; 64];
        }
    }
}

impl<D: RegisterFileDesign> Sm<D> {
    pub(super) fn read_operands<M: MemoryTiming>(
        &mut self,
        sh: &Shared,
        mem: &mut M,
        sc: usize,
        now: u64,
    ) -> bool {
        // split borrows: the sub-core's queues and collectors, the design, the counters
        let Sm {
            subs,
            design,
            rf_act,
            act,
            mem_act,
            id,
            ports,
            xbar_width,
            col_ports,
            wb,
            events,
            design_slots,
            ..
        } = self;
        subs[sc].ports_at(now);
        let SubCore {
            bank_q,
            collectors,
            queued_reads,
            granted,
            bank_ports_used,
            ..
        } = &mut subs[sc];
        if *queued_reads == 0 {
            return false;
        }
        let mut progress = false;
        let nb = bank_q.len();
        // read grants each collector received this cycle (collectors ≤ 64: `free_mask`; a
        // collector is granted at most its operands, ≤ 16, per cycle)
        let mut grants = [0u8; 64];
        let mut design_read_grants = 0u32;
        let mut transfers = 0u32;
        for (b, q) in bank_q.iter_mut().enumerate() {
            let mut left = ports.saturating_sub(bank_ports_used[b]);
            while left > 0 && transfers < *xbar_width {
                let Some(&(col, op)) = q.front() else {
                    break;
                };
                if col == DESIGN_COL {
                    let reads = design_slots.get(op).and_then(|x| x.reads);
                    let Some((warp, func, pc)) = reads else {
                        // a line access of the design's own array: takes the port, moves
                        // nothing to a collector
                        q.pop_front();
                        *queued_reads -= 1;
                        left -= 1;
                        mem_act.rf_design_array_accesses += 1;
                        if let Some((e, at)) = design_slots.grant(op, now + 1) {
                            if let Some(x) = wb.get_mut(e) {
                                x.complete_at = at;
                            }
                            events.push(at, e);
                        }
                        progress = true;
                        continue;
                    };
                    // a register read into the SM's collector slot for design reads:
                    // arbitrated and moved like an operand
                    if design_read_grants >= *col_ports {
                        break;
                    }
                    q.pop_front();
                    *queued_reads -= 1;
                    left -= 1;
                    transfers += 1;
                    design_read_grants += 1;
                    let opref = OperandRef {
                        warp,
                        reg: DESIGN_READ + b as RegId,
                        collector: DESIGN_COL,
                        func,
                        pc,
                        reuse: None,
                        last_use: false,
                    };
                    let mut ctx = RfCtx {
                        now,
                        sm: *id,
                        act: rf_act,
                    };
                    let out = design.read(&mut ctx, &opref);
                    let extra = delay_cycles(out.delay, mem, (now, now + 1, *id), mem_act);
                    bank_ports_used[b] += 1;
                    act.bank_reads[sc * nb + b] += 1;
                    act.crossbar_transfers += 1;
                    act.collector_writes += 1;
                    if let Some((e, at)) = design_slots.grant(op, now + 1 + extra) {
                        if let Some(x) = wb.get_mut(e) {
                            x.complete_at = at;
                        }
                        events.push(at, e);
                    }
                    progress = true;
                    continue;
                }
                let (c_i, o_i) = (usize::from(col), usize::from(op));
                let (Some(c), Some(g)) = (collectors.get_mut(c_i), grants.get_mut(c_i)) else {
                    break;
                };
                if u32::from(*g) >= *col_ports {
                    break;
                }
                q.pop_front();
                *queued_reads -= 1;
                left -= 1;
                transfers += 1;
                *g += 1;
                let (Some(info), Some(o)) =
                    (c.sid.map(|i| sh.info(i)), c.ops[..c.nops].get_mut(o_i))
                else {
                    continue;
                };
                let opref = OperandRef {
                    warp: WarpSlot {
                        slot: c.slot,
                        sub_core: sc as u8,
                    },
                    reg: o.reg,
                    collector: col,
                    func: info.func,
                    pc: info.pc,
                    reuse: o.reuse,
                    last_use: o.last_use,
                };
                let mut ctx = RfCtx {
                    now,
                    sm: *id,
                    act: rf_act,
                };
                // `black_box`: without it the compiler hoists the design's fields (the row
                // and tracker tables, the bank geometry) out of this loop and spills them to
                // the stack on every call of the stage, ~65 instructions for the one or two
                // grants a call makes (−1.9 % host instructions per run)
                let out = std::hint::black_box(&mut *design).read(&mut ctx, &opref);
                let extra = delay_cycles(out.delay, mem, (now, now + 1, *id), mem_act);
                o.values = out.values;
                o.granted = true;
                o.ready_at = now + 1 + extra;
                c.pending -= 1;
                *granted |= u64::from(c.pending == 0) << c_i;
                c.ready_at = c.ready_at.max(o.ready_at);
                bank_ports_used[b] += 1;
                act.bank_reads[sc * nb + b] += 1;
                act.crossbar_transfers += 1;
                act.collector_writes += 1;
                progress = true;
            }
            act.bank_conflict_cycles += u64::from(!q.is_empty());
        }
        progress
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;
    use std::collections::VecDeque;
    /// The operand-read ring behaves as a FIFO through wrap-around and growth past its
    /// initial capacity (checked against `VecDeque`).
    #[test]
    fn ring_is_a_fifo_through_wraps_and_growth() {
        let mut r = Ring::with_capacity(3);
        let mut d = VecDeque::new();
        let mut x: u32 = 7;
        for step in 0..3000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            // alternating spells of 100 steps: pushes only (the queue grows well past its
            // first capacity of 4), then mostly pops (it drains and wraps)
            let push = (step / 100).is_multiple_of(2) || x.is_multiple_of(3);
            if push {
                let v = ((x >> 8) as u16, (x >> 24) as u8);
                r.push_back(v);
                d.push_back(v);
            } else {
                assert_eq!(r.front(), d.front());
                r.pop_front();
                d.pop_front();
            }
            assert_eq!(r.is_empty(), d.is_empty());
        }
        while let Some(v) = d.pop_front() {
            assert_eq!(r.front(), Some(&v));
            r.pop_front();
        }
        assert!(r.is_empty());
        assert_eq!(r.front(), None);
        r.pop_front();
        assert!(r.is_empty());
    }
}
