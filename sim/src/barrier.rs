//! The sixteen named barriers of a CTA (PTX ISA 8.x §9.7.13.1, `bar`/`barrier`): which warps
//! wait at which barrier, when a barrier completes, and when the CTA can no longer make
//! progress. One implementation for the functional executor (`exec::CtaExec`) and the timing
//! core (`timing::core`), so that both release the same warps and agree on deadlocks; each
//! feeds it arrivals and exits at its own times.
//!
//! Rules (PTX ISA §9.7.13.1):
//! * "Each CTA instance has sixteen barriers numbered 0..15" ([`BARRIERS`]).
//! * Barriers are executed per warp: an arrival counts the whole warp ("the arrival counter is
//!   incremented by the warp size (not the number of active threads in the warp)"), so an
//!   expected thread count `b` is a number of warps, `b / 32` ("b must be a multiple of the
//!   warp size").
//! * Without `b`, every thread of the CTA takes part; threads that have exited count as arrived
//!   (what `exec::CtaExec` always did, and the timing core with it): such a barrier completes
//!   when every live warp waits at it.
//! * With `b`, the barrier completes when `b / 32` warps have arrived, by `bar.sync`/`bar.red`
//!   (which wait) or `bar.arrive` (which does not); it is then reset for reuse.
//!
//! A CTA is deadlocked when every live warp waits at a barrier and no barrier can complete:
//! nothing can ever run again (a GPU hangs; here the caller raises an error).

/// Barriers per CTA (PTX ISA §9.7.13.1: "sixteen barriers numbered 0..15").
pub const BARRIERS: usize = 16;

/// Warps a [`CtaBarriers`] tracks (64 warps = 2048 threads, above every GPU's 1024-thread CTA
/// limit; warps beyond it are not tracked and never wait).
pub const MAX_WARPS: usize = 64;

/// One warp's arrival at a barrier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    /// Barrier number, `0..16`.
    pub id: u8,
    /// Warps the barrier expects (`b / 32`); 0: every live warp of the CTA (no `b`).
    pub warps: u8,
    /// The warp waits for the barrier to complete (`bar.sync`, `bar.red`), rather than only
    /// counting towards it (`bar.arrive`).
    pub wait: bool,
}

/// One barrier's current phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Phase {
    /// Warp arrivals so far.
    arrived: u32,
    /// Warps waiting (bit `w` = warp `w`).
    waiting: u64,
    /// Warps expected, fixed by the phase's first arrival (0: every live warp).
    expected: u8,
}

/// The barriers of one CTA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtaBarriers {
    /// Warps that have not exited.
    live: u64,
    phases: [Phase; BARRIERS],
}

#[inline]
fn bit(w: usize) -> u64 {
    if w < MAX_WARPS {
        1u64 << w
    } else {
        0
    }
}

impl CtaBarriers {
    /// A CTA of `warps` warps, none waiting.
    pub fn new(warps: usize) -> Self {
        let live = if warps >= MAX_WARPS {
            u64::MAX
        } else {
            (1u64 << warps) - 1
        };
        CtaBarriers {
            live,
            phases: [Phase::default(); BARRIERS],
        }
    }

    /// Warp `w` arrives. Returns the warps the arrival releases (itself included when it
    /// waits) if it completes the barrier, else `None`. An out-of-range barrier number is
    /// ignored (callers check it first, with the instruction at hand for the message).
    pub fn arrive(&mut self, w: usize, a: Arrival) -> Option<u64> {
        let live = self.live;
        let p = self.phases.get_mut(usize::from(a.id))?;
        if p.arrived == 0 {
            p.expected = a.warps;
        }
        p.arrived += 1;
        if a.wait {
            p.waiting |= bit(w);
        }
        Self::complete(p, live)
    }

    /// Warp `w` has exited. Returns the barriers that complete because it no longer counts
    /// (those expecting every live warp), with the warps each releases.
    pub fn exit(&mut self, w: usize) -> Vec<(u8, u64)> {
        self.live &= !bit(w);
        let live = self.live;
        let mut out = Vec::new();
        for (id, p) in self.phases.iter_mut().enumerate() {
            if p.arrived > 0 && p.expected == 0 {
                if let Some(m) = Self::complete(p, live) {
                    out.push((id as u8, m));
                }
            }
        }
        out
    }

    /// Resets `p` and returns its waiting warps if it is complete.
    fn complete(p: &mut Phase, live: u64) -> Option<u64> {
        let done = if p.expected == 0 {
            live & !p.waiting == 0
        } else {
            p.arrived >= u32::from(p.expected)
        };
        if !done {
            return None;
        }
        let m = p.waiting;
        *p = Phase::default();
        Some(m)
    }

    /// Warps waiting at any barrier.
    pub fn waiting(&self) -> u64 {
        self.phases.iter().fold(0, |m, p| m | p.waiting)
    }

    /// Every live warp waits at a barrier (and none can complete: completions are taken when
    /// an arrival or an exit makes them possible).
    pub fn deadlocked(&self) -> bool {
        self.live != 0 && self.live & !self.waiting() == 0
    }

    /// The barrier warp `w` waits at, if any.
    pub fn waiting_at(&self, w: usize) -> Option<u8> {
        let b = bit(w);
        (b != 0)
            .then(|| self.phases.iter().position(|p| p.waiting & b != 0))
            .flatten()
            .map(|i| i as u8)
    }

    /// What each barrier in use waits for, for a deadlock message, with the source line of
    /// the instruction its first waiting warp waits at (`line_of(warp)`; 0: unknown):
    /// `barrier 1 (line 20): warps 0, 1 wait, 2 of the 3 warps (96 threads) it expects
    /// arrived; ...`.
    pub fn describe(&self, line_of: impl Fn(usize) -> u32) -> String {
        let live = self.live.count_ones();
        let mut parts = Vec::new();
        for (id, p) in self.phases.iter().enumerate() {
            if p.arrived == 0 {
                continue;
            }
            let warps: Vec<usize> = (0..MAX_WARPS)
                .filter(|&w| p.waiting & bit(w) != 0)
                .collect();
            let names: Vec<String> = warps.iter().map(usize::to_string).collect();
            let who = match names.len() {
                0 => "no warp waits".to_string(),
                1 => format!("warp {} waits", names[0]),
                _ => format!("warps {} wait", names.join(", ")),
            };
            let at = match warps.first().map(|&w| line_of(w)) {
                Some(l) if l > 0 => format!(" (line {l})"),
                _ => String::new(),
            };
            let need = if p.expected == 0 {
                format!("every live warp ({live}) must arrive")
            } else {
                format!(
                    "{} of the {} warps ({} threads) it expects arrived",
                    p.arrived,
                    p.expected,
                    u32::from(p.expected) * 32
                )
            };
            parts.push(format!("barrier {id}{at}: {who}, {need}"));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sync(id: u8) -> Arrival {
        Arrival {
            id,
            warps: 0,
            wait: true,
        }
    }

    #[test]
    fn a_barrier_for_every_warp_completes_with_the_last_arrival() {
        let mut b = CtaBarriers::new(3);
        assert_eq!(b.arrive(0, sync(0)), None);
        assert_eq!(b.arrive(2, sync(0)), None);
        assert!(!b.deadlocked());
        assert_eq!(b.arrive(1, sync(0)), Some(0b111));
        assert_eq!(b.waiting(), 0);
        // reusable at once
        assert_eq!(b.arrive(1, sync(0)), None);
        assert_eq!(b.waiting_at(1), Some(0));
    }

    #[test]
    fn exited_warps_count_as_arrived() {
        let mut b = CtaBarriers::new(3);
        assert_eq!(b.arrive(0, sync(0)), None);
        assert_eq!(b.exit(2), vec![]);
        assert_eq!(b.exit(1), vec![(0, 0b001)]);
        assert!(!b.deadlocked());
    }

    #[test]
    fn warps_at_different_barriers_deadlock() {
        let mut b = CtaBarriers::new(4);
        assert_eq!(b.arrive(0, sync(0)), None);
        assert_eq!(b.arrive(1, sync(0)), None);
        assert_eq!(b.arrive(2, sync(1)), None);
        assert!(!b.deadlocked());
        assert_eq!(b.arrive(3, sync(1)), None);
        assert!(b.deadlocked());
        assert_eq!(
            b.describe(|w| 10 + w as u32),
            "barrier 0 (line 10): warps 0, 1 wait, every live warp (4) must arrive; \
             barrier 1 (line 12): warps 2, 3 wait, every live warp (4) must arrive"
        );
    }

    #[test]
    fn a_counted_barrier_completes_with_its_count_and_takes_non_waiting_arrivals() {
        // producer/consumer: warps 0, 1 wait at barrier 1 for 4 warps, warps 2, 3 arrive
        let mut b = CtaBarriers::new(4);
        let wait = |id| Arrival {
            id,
            warps: 4,
            wait: true,
        };
        let arrive = Arrival {
            id: 1,
            warps: 4,
            wait: false,
        };
        assert_eq!(b.arrive(0, wait(1)), None);
        assert_eq!(b.arrive(1, wait(1)), None);
        assert_eq!(b.arrive(2, arrive), None);
        assert_eq!(b.arrive(3, arrive), Some(0b0011));
        // two warps of four: only they take part
        let half = Arrival {
            id: 2,
            warps: 2,
            wait: true,
        };
        assert_eq!(b.arrive(2, half), None);
        assert_eq!(b.arrive(3, half), Some(0b1100));
        // an exit does not complete a counted barrier
        assert_eq!(b.arrive(0, wait(3)), None);
        assert_eq!(b.exit(1), vec![]);
        assert_eq!(b.exit(2), vec![]);
        assert_eq!(b.exit(3), vec![]);
        assert!(b.deadlocked());
        assert_eq!(
            b.describe(|_| 0),
            "barrier 3: warp 0 waits, 1 of the 4 warps (128 threads) it expects arrived"
        );
    }

    #[test]
    fn warps_beyond_the_limit_are_not_tracked() {
        let mut b = CtaBarriers::new(80);
        assert_eq!(b.arrive(70, sync(0)), None);
        assert_eq!(b.waiting_at(70), None);
        assert_eq!(b.arrive(0, sync(16)), None);
        assert!(!b.deadlocked());
    }
}
