//! `collatz`: step counts and peaks of the Collatz trajectories of 1..=4096 (64-bit, cap 1000
//! steps), and the longest count folded into `max_steps`; integer, exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Threads.
pub const N: usize = 4096;
/// First start value (spec arg).
pub const START: u64 = 1;
/// Step cap (spec arg).
pub const CAP: u32 = 1000;

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

/// Reference for the spec in `collatz.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("collatz", inputs);
    let mut max_steps = i.u32("max_steps", 1)?[0];
    i.u32("steps", N)?;
    i.u64("peak", N)?;
    let (steps, peak): (Vec<u32>, Vec<u64>) =
        (0..N as u64).map(|k| trajectory(START + k, CAP)).unzip();
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
}
