//! Memory instructions a register-file design serves itself through accesses to its own banks
//! ([`DesignAccessSlots`]), and the timing of a design's memory fetches ([`delay_cycles`],
//! [`memory_fetch`]).

use crate::timing::activity::MemActivity;
use crate::timing::memory::MemoryTiming;
use crate::timing::rf::{Delay, MemFetch, WarpSlot};

/// The cycles a design's [`Delay`] adds beyond `from` (the cycle the access would be ready
/// without it): none, a fixed count, or until a memory fetch arrives, after its victim's
/// write (timed, not waited for), plus the fetch's extra cycles.
#[inline(always)]
pub(super) fn delay_cycles<M: MemoryTiming>(
    delay: Delay,
    mem: &mut M,
    (now, from, sm): (u64, u64, u32),
    act: &mut MemActivity,
) -> u64 {
    match delay {
        Delay::None => 0,
        Delay::Cycles(c) => u64::from(c),
        Delay::Memory {
            fetch,
            extra,
            victim,
        } => {
            memory_fetch(mem, now, sm, (&fetch, victim), act).saturating_sub(from)
                + u64::from(extra)
        }
    }
}

/// A design's memory fetch after its victim's write: the cycle the fetched data arrives.
#[cold]
fn memory_fetch<M: MemoryTiming>(
    mem: &mut M,
    now: u64,
    sm: u32,
    (fetch, victim): (&MemFetch, Option<MemFetch>),
    act: &mut MemActivity,
) -> u64 {
    if let Some(v) = victim {
        mem.fetch(now, sm, &v, act);
    }
    mem.fetch(now, sm, fetch, act)
}

/// Queue tag of a design's own bank access ([`MemRoute::Banks`]); the entry's second field
/// is its [`DesignAccessSlots`] index.
///
/// [`MemRoute::Banks`]: crate::timing::rf::MemRoute::Banks
pub(super) const DESIGN_COL: u16 = u16::MAX;

/// One memory instruction served through a design's own bank accesses.
#[derive(Clone, Copy, Debug)]
pub(super) struct DesignAccess {
    /// The instruction's result buffer.
    pub(super) wb: usize,
    /// Accesses not granted yet.
    pub(super) pending: u16,
    /// When the last granted access is done (at the earliest the instruction's floor).
    pub(super) ready: u64,
    /// Cycles from the last access to the result.
    pub(super) after: u32,
    /// For register reads: the warp, function and pc the reads are made for.
    pub(super) reads: Option<(WarpSlot, u32, u32)>,
}

/// Memory instructions a design serves through its own bank accesses
/// ([`BankAccesses`](crate::timing::rf::BankAccesses)) whose accesses wait in the bank queues.
#[derive(Clone, Debug, Default)]
pub(super) struct DesignAccessSlots {
    slots: Vec<DesignAccess>,
    free: Vec<u8>,
    /// Slots of register reads in flight (the SM's one collector slot for them).
    pub(super) reads_in_flight: u8,
}

impl DesignAccessSlots {
    /// Most instructions in flight at once (the queue tag holds the index in a byte).
    const CAP: usize = 256;

    /// A slot for `access`; `None` when every slot is taken.
    pub(super) fn start(&mut self, access: DesignAccess) -> Option<u8> {
        let k = match self.free.pop() {
            Some(k) => k,
            None if self.slots.len() < Self::CAP => {
                self.slots.push(access);
                (self.slots.len() - 1) as u8
            }
            None => return None,
        };
        self.slots[usize::from(k)] = access;
        if access.reads.is_some() {
            self.reads_in_flight += 1;
        }
        Some(k)
    }

    /// The instruction of slot `k`.
    pub(super) fn get(&self, k: u8) -> Option<&DesignAccess> {
        self.slots.get(usize::from(k))
    }

    /// An access of slot `k` granted, done at `done`: the (result buffer, completion cycle)
    /// when it was the last one.
    pub(super) fn grant(&mut self, k: u8, done: u64) -> Option<(usize, u64)> {
        let s = self.slots.get_mut(usize::from(k))?;
        s.pending = s.pending.saturating_sub(1);
        s.ready = s.ready.max(done);
        if s.pending > 0 {
            return None;
        }
        self.free.push(k);
        if s.reads.is_some() {
            self.reads_in_flight = self.reads_in_flight.saturating_sub(1);
        }
        Some((s.wb, s.ready + u64::from(s.after)))
    }
}
