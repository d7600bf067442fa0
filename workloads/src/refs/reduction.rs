//! `reduction`: sum of 32768 floats in two launches of `reduce_sum`.
//!
//! The reference adds in the kernel's order: per block of B threads, pair sums
//! `x[t] + x[t+B]`, a halving tree while more than 64 values remain, `v[t] + v[t+32]`, then the
//! shuffle-down butterfly (offsets 16..1). The result is therefore bit-identical; the tolerance
//! only allows a few ulps of the partial sums (|partial| < 512).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Inputs (spec: n = 32768).
pub const N: usize = 32768;
/// Threads per block of the first launch.
pub const BLOCK1: usize = 256;
/// Threads per block of the second launch.
pub const BLOCK2: usize = 32;

/// Same-order summation: a few ulps at most.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    (
        "partial",
        Tolerance::Float {
            abs: 1e-5,
            rel: 1e-6,
        },
    ),
    (
        "total",
        Tolerance::Float {
            abs: 1e-5,
            rel: 1e-6,
        },
    ),
];

/// Sum of `x[base .. base + 2*block]` (missing elements skipped) in the kernel's order.
fn block_sum(x: &[f32], base: usize, block: usize) -> f32 {
    let get = |i: usize| x.get(i).copied();
    let mut v: Vec<f32> = (0..block)
        .map(|t| {
            let mut s = get(base + t).unwrap_or(0.0);
            if let Some(y) = get(base + t + block) {
                s += y;
            }
            s
        })
        .collect();
    let mut s = block / 2;
    while s > 32 {
        for t in 0..s {
            v[t] += v[t + s];
        }
        s /= 2;
    }
    let mut w: Vec<f32> = (0..32.min(block))
        .map(|t| if block >= 64 { v[t] + v[t + 32] } else { v[t] })
        .collect();
    w.resize(32, 0.0);
    let mut off = 16;
    while off > 0 {
        let prev = w.clone();
        for t in 0..32 {
            let other = if t + off < 32 { prev[t + off] } else { prev[t] };
            w[t] = prev[t] + other;
        }
        off /= 2;
    }
    w[0]
}

/// One launch: partial sums of consecutive chunks of `2 * block` elements.
pub fn reduce_launch(x: &[f32], block: usize) -> Vec<f32> {
    let chunk = 2 * block;
    (0..x.len().div_ceil(chunk))
        .map(|b| block_sum(x, b * chunk, block))
        .collect()
}

/// Reference for the spec in `reduction.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("reduction", inputs);
    let partial = reduce_launch(i.f32("x", N)?, BLOCK1);
    let total = reduce_launch(&partial, BLOCK2);
    Ok(outputs([
        ("partial", HostData::F32(partial)),
        ("total", HostData::F32(total)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_small_integers_exactly() {
        let x: Vec<f32> = (1..=64).map(|v| v as f32).collect();
        assert_eq!(reduce_launch(&x, 32), vec![2080.0]); // 64*65/2
        let x: Vec<f32> = (0..1024).map(|v| (v % 7) as f32).collect();
        let p = reduce_launch(&x, 256);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0] + p[1], x.iter().sum::<f32>());
    }

    #[test]
    fn ragged_tail_is_skipped() {
        assert_eq!(reduce_launch(&[1.0, 2.0, 3.0], 32), vec![6.0]);
    }
}
