//! Memory instructions a register-file design serves itself: the w-merge collector slot
//! ([`MergeSlot`], seed 000), the design's tagged array ([`ArraySlots`], seed 004), and the
//! timing of a design's memory fetches ([`delay_cycles`], [`memory_fetch`]).

use crate::timing::activity::MemActivity;
use crate::timing::memory::MemoryTiming;
use crate::timing::rf::{Delay, MemFetch, WarpSlot};

/// Queue tag of a read of the w-merge collector slot (a `bank_q` entry's collector).
pub(super) const MERGE_COL: u16 = u16::MAX;

/// The w-merge collector slot of an SM (seed 000 §3: "one dedicated operand collector
/// slot"): one load at a time whose result the design builds from registers it reads through
/// the bank arbitration of the load's sub-core ([`MemRoute::Merge`]).
///
/// [`MemRoute::Merge`]: crate::timing::rf::MemRoute::Merge
#[derive(Clone, Copy, Debug)]
pub(super) struct MergeSlot {
    pub(super) busy: bool,
    pub(super) warp: WarpSlot,
    pub(super) func: u32,
    pub(super) pc: u32,
    /// The load's result buffer, scheduled once the reads are done.
    pub(super) wb: usize,
    /// Reads not granted yet.
    pub(super) pending: u8,
    /// When the last granted read's value is present.
    pub(super) ready_at: u64,
    /// Shift/OR cycles after the reads.
    pub(super) latency: u32,
}

impl MergeSlot {
    pub(super) const IDLE: MergeSlot = MergeSlot {
        busy: false,
        warp: WarpSlot {
            slot: 0,
            sub_core: 0,
        },
        func: 0,
        pc: 0,
        wb: 0,
        pending: 0,
        ready_at: 0,
        latency: 0,
    };
}

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

/// Queue tag of a bank access of an instruction served by the design's tagged array
/// ([`MemRoute::Array`]); the entry's second field is its [`ArraySlots`] index.
///
/// [`MemRoute::Array`]: crate::timing::rf::MemRoute::Array
pub(super) const ARRAY_COL: u16 = u16::MAX - 1;

/// Memory instructions served by a design's tagged array (seed 004) whose line accesses
/// wait in the bank queues: each completes one cycle after its last access is granted (at
/// the earliest at the ready cycle it started with).
#[derive(Clone, Debug, Default)]
pub(super) struct ArraySlots {
    /// (result buffer, accesses not granted yet, ready cycle) per slot.
    slots: Vec<(usize, u16, u64)>,
    free: Vec<u8>,
}

impl ArraySlots {
    /// Most instructions in flight at once (the queue tag holds the index in a byte).
    const CAP: usize = 256;

    /// A slot for result buffer `wb` with `accesses` line accesses, ready at `ready` at the
    /// earliest; `None` when every slot is taken.
    pub(super) fn start(&mut self, wb: usize, accesses: u16, ready: u64) -> Option<u8> {
        let k = match self.free.pop() {
            Some(k) => k,
            None if self.slots.len() < Self::CAP => {
                self.slots.push((0, 0, 0));
                (self.slots.len() - 1) as u8
            }
            None => return None,
        };
        self.slots[usize::from(k)] = (wb, accesses, ready);
        Some(k)
    }

    /// Access of slot `k` granted at `now`: the (result buffer, completion cycle) when it
    /// was the last one.
    pub(super) fn grant(&mut self, k: u8, now: u64) -> Option<(usize, u64)> {
        let s = self.slots.get_mut(usize::from(k))?;
        s.1 = s.1.saturating_sub(1);
        s.2 = s.2.max(now + 1);
        if s.1 > 0 {
            return None;
        }
        self.free.push(k);
        Some((s.0, s.2))
    }
}
