//! Shared resources of the memory system as reservation tables: ports with a per-cycle
//! capacity ([`Port`]), MSHR tables ([`Mshrs`]) and the head of an SM's request queue
//! ([`RequestFifo`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A port serving `cap` items per cycle; items reserve the first cycle with room left.
///
/// The per-cycle counts live in a ring of slots (power-of-two length, grown on demand)
/// indexed by cycle: slot `c & mask` counts cycle `c` while it is tagged with `c`; a slot
/// tagged with another cycle counts zero for `c`. Only cycles in `base .. base + len` are
/// ever reserved (`base` = the latest `now`), and distinct cycles of that window have
/// distinct slots, so a slot holding another cycle holds a forgotten one: nothing has to be
/// cleared when time advances. A full cycle also records a later cycle up to which every
/// cycle is known to be full, so a burst of requests for one cycle does not step through
/// the cycles the earlier ones filled.
#[derive(Clone, Debug)]
pub(super) struct Port {
    /// The current cycle; reservations before it are forgotten.
    base: u64,
    slots: Vec<PortSlot>,
    cap: u32,
}

/// One cycle's reservations in a [`Port`] ring.
#[derive(Clone, Copy, Debug)]
pub(super) struct PortSlot {
    cycle: u64,
    used: u32,
    /// When the cycle is full: every cycle in `cycle .. skip` is full (cycles only fill up
    /// until they are forgotten, so this stays true).
    skip: u64,
}

impl PortSlot {
    /// A slot tagged `u64::MAX` with no reservation: free for every cycle.
    const FREE: PortSlot = PortSlot {
        cycle: u64::MAX,
        used: 0,
        skip: u64::MAX,
    };
}

impl Port {
    /// Initial ring length (cycles of reservations ahead of `base`); grows as needed.
    const INITIAL_SLOTS: usize = 256;

    pub(super) fn new(cap: u32) -> Port {
        Port {
            base: 0,
            slots: vec![PortSlot::FREE; Self::INITIAL_SLOTS],
            cap: cap.clamp(1, u32::from(u8::MAX)),
        }
    }

    /// Reserves the first cycle `>= t` with capacity left. `now` (≤ `t`) is the current cycle:
    /// reservations before it are forgotten. `inline(always)`: in one file with its callers
    /// the compiler inlined it everywhere; from its own module it stayed out of line in
    /// `send` and `access` (callgrind, vectorAdd gtx480: +0.36 % host instructions).
    #[inline(always)]
    pub(super) fn reserve(&mut self, now: u64, t: u64) -> u64 {
        self.base = self.base.max(now);
        let first = t.max(self.base);
        let mut c = first;
        loop {
            let mask = self.slots.len() - 1;
            if c - self.base > mask as u64 {
                self.grow(c - self.base);
                continue;
            }
            let slot = &mut self.slots[(c as usize) & mask];
            if slot.cycle != c {
                *slot = PortSlot {
                    cycle: c,
                    used: 1,
                    skip: c.saturating_add(1),
                };
                break;
            }
            if slot.used < self.cap {
                slot.used += 1;
                break;
            }
            // full: every cycle up to `skip` is full too
            c = slot.skip;
        }
        // `first .. c` is full: point every full cycle passed on the way at `c` (path
        // compression), so the next request for any of them starts there
        let mask = self.slots.len() - 1;
        let mut x = first;
        while x != c {
            let slot = &mut self.slots[(x as usize) & mask];
            x = std::mem::replace(&mut slot.skip, c);
        }
        c
    }

    /// Enlarges the ring so that offset `off` from `base` fits, keeping every count of a
    /// cycle not yet forgotten.
    #[cold]
    fn grow(&mut self, off: u64) {
        let need = usize::try_from(off)
            .ok()
            .and_then(|o| o.checked_add(1))
            .and_then(usize::checked_next_power_of_two)
            .unwrap_or(usize::MAX);
        let len = need.max(2 * self.slots.len());
        let mut v = vec![PortSlot::FREE; len];
        for s in &self.slots {
            if s.cycle >= self.base && s.cycle != u64::MAX {
                v[(s.cycle as usize) & (len - 1)] = *s;
            }
        }
        self.slots = v;
    }
}

/// An MSHR table: the release cycle of every busy entry (one entry per missed line request).
#[derive(Clone, Debug)]
pub(super) struct Mshrs {
    cap: usize,
    busy: BinaryHeap<Reverse<u64>>,
}

impl Mshrs {
    pub(super) fn new(entries: u32) -> Mshrs {
        Mshrs {
            cap: entries.max(1) as usize,
            busy: BinaryHeap::new(),
        }
    }

    /// Cycle (`>= t`) an entry becomes available to a miss at `t`; the caller then
    /// [`hold`](Self::hold)s it until its fill.
    pub(super) fn alloc(&mut self, t: u64) -> u64 {
        while let Some(&Reverse(r)) = self.busy.peek() {
            if r > t {
                break;
            }
            self.busy.pop();
        }
        if self.busy.len() < self.cap {
            return t;
        }
        self.busy.pop().map_or(t, |Reverse(r)| r.max(t))
    }

    #[inline]
    pub(super) fn hold(&mut self, until: u64) {
        self.busy.push(Reverse(until));
    }
}

/// The head of an SM's request queue (GPGPU-Sim: the L1D miss queue feeding the SM's input
/// buffer of the crossbar, both first-in first-out): requests leave in the order they are
/// sent, at most `cap` a cycle, and one whose crossbar output is taken waits there with the
/// requests behind it (head-of-line blocking, `xbar_router::iSLIP_Advance` moves only the
/// front packet of each input buffer).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RequestFifo {
    /// Cycle the last request left, and how many left in it.
    pub(super) cycle: u64,
    used: u32,
}

impl RequestFifo {
    /// The earliest cycle a request ready at `t` can leave.
    #[inline]
    pub(super) fn next(&self, t: u64, cap: u32) -> u64 {
        if t > self.cycle {
            t
        } else if self.used < cap {
            self.cycle
        } else {
            self.cycle + 1
        }
    }

    /// Records a request leaving at `g` (≥ [`Self::next`]).
    #[inline]
    pub(super) fn take(&mut self, g: u64) {
        if g == self.cycle {
            self.used += 1;
        } else {
            self.cycle = g;
            self.used = 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::memory::tests::Lcg;
    /// The port model of the original implementation (a deque of per-cycle counts popped
    /// one cycle at a time): the reference for [`Port`].
    struct DequePort {
        base: u64,
        used: std::collections::VecDeque<u8>,
        cap: u8,
    }

    impl DequePort {
        fn reserve(&mut self, now: u64, t: u64) -> u64 {
            while self.base < now {
                if self.used.pop_front().is_none() {
                    self.base = now;
                    break;
                }
                self.base += 1;
            }
            let mut i = t.saturating_sub(self.base) as usize;
            loop {
                if i >= self.used.len() {
                    self.used.resize(i + 1, 0);
                }
                if self.used[i] < self.cap {
                    self.used[i] += 1;
                    return self.base + i as u64;
                }
                i += 1;
            }
        }
    }

    /// Drives a [`Port`] and the [`DequePort`] it replaced with the same 50,000 requests:
    /// `next(rng, now)` advances `now` and returns the requested cycle. Both must reserve the
    /// same cycles.
    fn port_matches_deque(cap: u32, seed: u64, mut next: impl FnMut(&mut Lcg, &mut u64) -> u64) {
        let mut p = Port::new(cap);
        let mut r = DequePort {
            base: 0,
            used: Default::default(),
            cap: cap as u8,
        };
        let mut rng = Lcg(seed);
        let mut now = 0u64;
        for step in 0..50_000 {
            let t = next(&mut rng, &mut now);
            assert_eq!(
                p.reserve(now, t),
                r.reserve(now, t),
                "cap {cap} step {step}"
            );
        }
    }

    /// The ring-buffer port reserves the same cycles as the deque it replaced
    /// (bursts beyond the ring, time jumps longer than the ring, `t` before `base`).
    #[test]
    fn ring_port_matches_the_deque() {
        for cap in [1u32, 2, 4] {
            port_matches_deque(cap, u64::from(cap), |rng, now| {
                *now += match rng.next() % 10 {
                    0 => rng.next() % 2000,
                    1..=4 => rng.next() % 4,
                    _ => 0,
                };
                match rng.next() % 8 {
                    0 => now.saturating_sub(3),
                    1 => *now + 300 + rng.next() % 900,
                    _ => *now + rng.next() % 40,
                }
            });
        }
    }

    /// The skip links of full port cycles (bursts of requests for the same few
    /// cycles, the L2 slice and reply ports' common load) reserve the same cycles as the
    /// deque.
    #[test]
    fn port_skip_links_match_the_deque_in_bursts() {
        for cap in [1u32, 2, 3] {
            port_matches_deque(cap, u64::from(cap) + 77, |rng, now| {
                if rng.next().is_multiple_of(16) {
                    *now += rng.next() % 300;
                }
                *now + [0, 1, 2, 5, 200][(rng.next() % 5) as usize]
            });
        }
    }
}
