//! `collatz`: step counts and peaks of the Collatz trajectories of start .. start + n - 1
//! (64-bit, at most `cap` steps), and the longest count folded into `max_steps`; integer,
//! exact. start, n and cap are the launch's arguments 0, 4 and 5 (`ci`: 1..=4096, cap 1000).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Threads of the `ci` spec.
#[cfg(test)]
const N: usize = 4096;

/// Integers: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[];

/// (steps, peak) of the trajectory from `x`, at most `cap` steps.
pub fn trajectory(mut x: u64, cap: u32) -> (u32, u64) {
    let mut peak = x;
    let mut steps = 0;
    while x > 1 && steps < cap {
        x = if x & 1 == 1 {
            x.wrapping_mul(3).wrapping_add(1)
        } else {
            x >> 1
        };
        peak = peak.max(x);
        steps += 1;
    }
    (steps, peak)
}

/// Reference for every size of `collatz`.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let a = LaunchArgs::new("collatz", spec);
    if a.launches() != 1 {
        return Err(a.launch_error(a.launches().min(1), "expected one collatz launch"));
    }
    let (start, n) = (a.int(0, 0, 0)? as u64, a.int(0, 4, 1)?);
    let cap = u32::try_from(a.int(0, 5, 0)?)
        .map_err(|_| a.launch_error(0, "the cap (argument 5) is beyond u32"))?;
    let i = Inputs::new("collatz", inputs);
    let mut max_steps = i.u32("max_steps", 1)?[0];
    i.u32("steps", n)?;
    i.u64("peak", n)?;
    let (steps, peak): (Vec<u32>, Vec<u64>) = (0..n as u64)
        .map(|k| trajectory(start.wrapping_add(k), cap))
        .unzip();
    max_steps = steps.iter().copied().fold(max_steps, u32::max);
    Ok(outputs([
        ("steps", HostData::U32(steps)),
        ("peak", HostData::U64(peak)),
        ("max_steps", HostData::U32(vec![max_steps])),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_trajectories() {
        assert_eq!(trajectory(1, 1000), (0, 1));
        assert_eq!(trajectory(6, 1000), (8, 16)); // 6 3 10 5 16 8 4 2 1
        assert_eq!(trajectory(27, 1000), (111, 9232));
        assert_eq!(trajectory(27, 10), (10, 214)); // capped
    }

    #[test]
    fn sizes_come_from_the_launch() {
        let spec = crate::refs::ci_spec("collatz");
        let init = spec.initial_buffers();
        let out = reference(&init, &spec).unwrap();
        let HostData::U32(steps) = &out["steps"] else {
            panic!("dtype")
        };
        assert_eq!((steps.len(), steps[26]), (N, 111)); // start 1: thread 26 follows 27
        let mut bad = init.clone();
        bad.insert("peak".into(), HostData::U64(vec![0; N - 1]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected: N, .. })
        ));
        // start 27 with a cap of 10 steps
        let mut other = spec.clone();
        other.launches[0].args[0] = regwatt_sim::launch::LaunchArg::Int(27);
        other.launches[0].args[5] = regwatt_sim::launch::LaunchArg::Int(10);
        let HostData::U64(peak) = &reference(&init, &other).unwrap()["peak"] else {
            panic!("dtype")
        };
        assert_eq!(peak[0], 214);
    }
}
