//! The adaptive issue wait of Malekeh §IV-B3: one STHLD for the whole GPU, set at the end
//! of every interval of `sthld_interval` cycles from the relative change of the GPU's IPC
//! between the last two intervals (small: below `sthld_ipc_threshold`, §IV-B3's 0.02).
//!
//! The seed's Fig. 8 state machine has 6 states, but its deltas and edges are not in the text.
//! This one follows the text's narrative (walk up the flat region, back off from the steep
//! region, hold at the knee, move speculatively up after a large change); the states are
//! numbered like the seed's:
//!
//! | state | meaning | small change | large drop | large rise |
//! |---|---|---|---|---|
//! | 2 | first interval: measure only | → 1 | → 1 | → 1 |
//! | 1 | climb the flat region | +step, stay | −step → 6 | +step, stay |
//! | 6 | hold at the knee | stay | +spec → 3 | +spec → 3 |
//! | 3 | judge the speculative move | +step → 1 | −spec → 4 | +step → 1 |
//! | 4 | after undoing it | → 6 | −step → 5 | → 6 |
//! | 5 | descend the steep region | → 6 | −step, stay | → 6 |
//!
//! STHLD stays within `0..=sthld_max`. `regwatt_designs::malekeh` shares one controller among
//! the SMs of a launch (`Rc<RefCell<Sthld>>`) and hands it on to the run's next launch
//! ([`crate::registry::LaunchCarry`]): the controller is GPU hardware, which a kernel launch
//! does not reset, and a run's kernels are the application phases §IV-B3 adapts to. Its
//! intervals run on the run's clock: each launch counts its cycles from 0, and
//! [`Sthld::end_launch`] moves the controller's origin past the launch that ended, so an
//! interval may span two launches (and the launch latency between them, in which the GPU
//! issues nothing). The simulation steps the SMs one after another in a fixed order, so the
//! controller's inputs, and hence its trace, are deterministic.

use serde::Serialize;

use super::{MalekehParams, SthldMode};

/// One closed interval: its end (in cycles of the run: the launches before it included), the
/// GPU's IPC in it, the state entered and the STHLD set for the next interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SthldInterval {
    pub end_cycle: u64,
    pub ipc: f64,
    pub state: u8,
    pub sthld: u32,
}

/// The GPU's STHLD controller.
#[derive(Clone, Debug)]
pub struct Sthld {
    mode: SthldMode,
    interval: u64,
    threshold: f64,
    step: u32,
    spec: u32,
    max: u32,
    value: u32,
    state: u8,
    next_boundary: u64,
    count: u64,
    last_ipc: Option<f64>,
    /// The intervals closed in the current launch.
    trace: Vec<SthldInterval>,
    /// Cycle of the run at which the current launch's cycle 0 falls.
    origin: u64,
}

impl Sthld {
    /// The controller of `p`, counting from cycle `start` of the run's first launch.
    pub fn new(p: &MalekehParams, start: u64) -> Sthld {
        let value = match p.sthld {
            SthldMode::Adaptive => p.sthld_initial,
            SthldMode::Fixed(n) => n,
        };
        Sthld {
            mode: p.sthld,
            interval: p.sthld_interval.max(1),
            threshold: p.sthld_ipc_threshold,
            step: p.sthld_step,
            spec: p.sthld_speculative_step,
            max: p.sthld_max,
            value,
            state: 2,
            next_boundary: start.saturating_add(p.sthld_interval.max(1)),
            count: 0,
            last_ipc: None,
            trace: Vec::new(),
            origin: 0,
        }
    }

    /// STHLD at cycle `now` of the current launch (closing the intervals that ended before).
    pub fn current(&mut self, now: u64) -> u32 {
        self.advance(self.origin + now);
        self.value
    }

    /// One warp instruction issued at cycle `now` of the current launch somewhere on the GPU.
    pub fn count_instruction(&mut self, now: u64) {
        self.advance(self.origin + now);
        self.count += 1;
    }

    /// The intervals closed in the current launch (each launch's statistics carry its own,
    /// so that a run's merged statistics hold each interval once).
    pub fn trace(&self) -> &[SthldInterval] {
        &self.trace
    }

    /// The current launch ended after `cycles` of its cycles (its `Activity::cycles`): the
    /// next launch's cycle 0 is the cycle after. Intervals that ended within the launch
    /// should have been closed before (`current` at its last cycle), so that they belong to
    /// its trace.
    pub fn end_launch(&mut self, cycles: u64) {
        self.origin += cycles;
        self.trace.clear();
    }

    /// Closes the intervals that ended at or before `at`, a cycle of the run.
    fn advance(&mut self, at: u64) {
        if self.mode != SthldMode::Adaptive {
            return;
        }
        while at >= self.next_boundary {
            let ipc = self.count as f64 / self.interval as f64;
            self.count = 0;
            self.step_fsm(ipc);
            self.trace.push(SthldInterval {
                end_cycle: self.next_boundary,
                ipc,
                state: self.state,
                sthld: self.value,
            });
            self.next_boundary += self.interval;
        }
    }

    /// One transition on an interval's IPC.
    fn step_fsm(&mut self, ipc: f64) {
        #[derive(PartialEq)]
        enum Change {
            Small,
            Drop,
            Rise,
        }
        let change = match self.last_ipc {
            None => Change::Small,
            Some(last) if last <= 0.0 => {
                if ipc > 0.0 {
                    Change::Rise
                } else {
                    Change::Small
                }
            }
            Some(last) => {
                let rel = (ipc - last) / last;
                if rel.abs() < self.threshold {
                    Change::Small
                } else if rel < 0.0 {
                    Change::Drop
                } else {
                    Change::Rise
                }
            }
        };
        self.last_ipc = Some(ipc);
        let up = |v: u32, d: u32, max: u32| v.saturating_add(d).min(max);
        let down = |v: u32, d: u32| v.saturating_sub(d);
        let (state, value) = match (self.state, change) {
            (2, _) => (1, self.value),
            (1, Change::Drop) => (6, down(self.value, self.step)),
            (1, _) => (1, up(self.value, self.step, self.max)),
            (6, Change::Small) => (6, self.value),
            (6, _) => (3, up(self.value, self.spec, self.max)),
            (3, Change::Drop) => (4, down(self.value, self.spec)),
            (3, _) => (1, up(self.value, self.step, self.max)),
            (4, Change::Drop) => (5, down(self.value, self.step)),
            (4, _) => (6, self.value),
            (5, Change::Drop) => (5, down(self.value, self.step)),
            (5, _) => (6, self.value),
            (s, _) => (s, self.value),
        };
        self.state = state;
        self.value = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> MalekehParams {
        crate::malekeh::tests_support::params()
    }

    /// 100-cycle intervals, steps of 1 and 2 (speculative), STHLD in 0..=10 from `initial`.
    fn small_steps(initial: u32) -> MalekehParams {
        let mut p = params();
        p.sthld_interval = 100;
        p.sthld_initial = initial;
        p.sthld_step = 1;
        p.sthld_speculative_step = 2;
        p.sthld_max = 10;
        p
    }

    /// Hand trace: IPC per 100-cycle interval 1.0 (first), 1.0, 1.01 (small: climb), 0.9
    /// (drop: back off, hold), 0.9 (hold), 1.2 (rise: speculative +2), 1.0 (drop: undo),
    /// 0.9 (drop: descend), 0.9 (small: hold).
    #[test]
    fn state_machine_hand_trace() {
        let mut p = small_steps(2);
        let mut s = Sthld::new(&p, 0);
        let ipcs = [1.0, 1.0, 1.01, 0.9, 0.9, 1.2, 1.0, 0.9, 0.9];
        for (k, ipc) in ipcs.iter().enumerate() {
            let n = (ipc * 100.0f64).round() as u64;
            for i in 0..n {
                s.count_instruction(k as u64 * 100 + i % 100);
            }
        }
        s.current(ipcs.len() as u64 * 100);
        let got: Vec<(u8, u32)> = s.trace().iter().map(|t| (t.state, t.sthld)).collect();
        assert_eq!(
            got,
            vec![
                (1, 2),
                (1, 3),
                (1, 4),
                (6, 3),
                (6, 3),
                (3, 5),
                (4, 3),
                (5, 2),
                (6, 2)
            ]
        );
        assert!((s.trace()[2].ipc - 1.01).abs() < 1e-12);
        // fixed STHLD never moves and logs nothing
        p.sthld = SthldMode::Fixed(7);
        let mut f = Sthld::new(&p, 0);
        f.count_instruction(50);
        assert_eq!(f.current(10_000), 7);
        assert!(f.trace().is_empty());
    }

    /// A launch does not reset the controller: its intervals run on the run's clock across
    /// launches (one spans the boundary), and each launch's trace holds only the intervals
    /// closed in it. Launch 1 counts from cycle 10 and lasts 150 cycles, issuing one warp
    /// instruction per cycle from 10; launch 2 does the same from its cycle 10 (run cycle 160).
    /// Intervals: 10..110 IPC 1.0 (first: measure); 110..210 holds 40 + 50 instructions, IPC
    /// 0.9 (drop: hold at 0); 210..310 IPC 1.0 (rise of 11 %: speculative +2).
    #[test]
    fn intervals_run_across_launches() {
        let mut s = Sthld::new(&small_steps(0), 10);
        for c in 10..150 {
            s.count_instruction(c);
        }
        s.current(150);
        let got = |s: &Sthld| -> Vec<(u64, u8, u32)> {
            s.trace()
                .iter()
                .map(|t| (t.end_cycle, t.state, t.sthld))
                .collect()
        };
        assert_eq!(got(&s), vec![(110, 1, 0)]);
        s.end_launch(150);
        assert!(
            s.trace().is_empty(),
            "a new launch starts with an empty trace"
        );
        for c in 10..200 {
            s.count_instruction(c);
        }
        assert_eq!(s.current(200), 2);
        assert_eq!(got(&s), vec![(210, 6, 0), (310, 3, 2)]);
        assert!((s.trace()[0].ipc - 0.9).abs() < 1e-12);
    }
}
