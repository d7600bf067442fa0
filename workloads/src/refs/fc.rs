//! `fc`: fully-connected 1250 -> 100 (sigmoid) -> 10 (linear) layers, batch 4, one warp per
//! output.
//!
//! The reference reproduces the warp's order: lane l accumulates an FMA chain over
//! i = l, l+32, ...; the 32 lane sums combine in the xor butterfly (16, 8, 4, 2, 1); then
//! `+ bias`. The only inexact step is the sigmoid's `__expf` (ex2.approx based, relative error
//! ~2^-21 plus range reduction): `h` in (0, 1) gets `abs 1e-5`; `y` sums 100 such values with
//! |W2| <= 0.3, so `abs 1e-4`.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Batch size.
pub const BATCH: usize = 4;
/// Layer-1 inputs.
pub const IN1: usize = 1250;
/// Layer-1 outputs = layer-2 inputs.
pub const OUT1: usize = 100;
/// Layer-2 outputs.
pub const OUT2: usize = 10;

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    (
        "h",
        Tolerance::Float {
            abs: 1e-5,
            rel: 1e-5,
        },
    ),
    (
        "y",
        Tolerance::Float {
            abs: 1e-4,
            rel: 1e-5,
        },
    ),
];

/// Dot product of `x` and `w` in warp order (lane-strided FMA chains, xor butterfly).
pub fn warp_dot(x: &[f32], w: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 32];
    for (l, acc) in lanes.iter_mut().enumerate() {
        let mut i = l;
        while i < x.len() {
            *acc = x[i].mul_add(w[i], *acc);
            i += 32;
        }
    }
    let mut off = 16;
    while off > 0 {
        let prev = lanes;
        for (l, v) in lanes.iter_mut().enumerate() {
            *v = prev[l] + prev[l ^ off];
        }
        off /= 2;
    }
    lanes[0]
}

/// y[b][o] = act(bias[o] + x[b] . W[o]).
pub fn layer(
    x: &[f32],
    w: &[f32],
    bias: &[f32],
    in_dim: usize,
    out_dim: usize,
    batch: usize,
    sigmoid: bool,
) -> Vec<f32> {
    let mut y = Vec::with_capacity(batch * out_dim);
    for b in 0..batch {
        for o in 0..out_dim {
            let z = warp_dot(
                &x[b * in_dim..(b + 1) * in_dim],
                &w[o * in_dim..(o + 1) * in_dim],
            ) + bias[o];
            y.push(if sigmoid { 1.0 / (1.0 + (-z).exp()) } else { z });
        }
    }
    y
}

/// Reference for the spec in `fc.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("fc", inputs);
    let h = layer(
        i.f32("x", BATCH * IN1)?,
        i.f32("W1", OUT1 * IN1)?,
        i.f32("b1", OUT1)?,
        IN1,
        OUT1,
        BATCH,
        true,
    );
    let y = layer(
        &h,
        i.f32("W2", OUT2 * OUT1)?,
        i.f32("b2", OUT2)?,
        OUT1,
        OUT2,
        BATCH,
        false,
    );
    Ok(outputs([("h", HostData::F32(h)), ("y", HostData::F32(y))]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warp_dot_of_small_integers() {
        let x: Vec<f32> = (1..=40).map(|v| v as f32).collect();
        assert_eq!(warp_dot(&x, &[1.0; 40]), 820.0);
        assert_eq!(warp_dot(&[2.0, 3.0], &[4.0, -1.0]), 5.0);
    }

    #[test]
    fn layer_bias_and_sigmoid() {
        // two outputs of a 2-input layer, batch 1
        let y = layer(
            &[1.0, 2.0],
            &[1.0, 1.0, 0.0, 0.0],
            &[-3.0, 0.5],
            2,
            2,
            1,
            false,
        );
        assert_eq!(y, vec![0.0, 0.5]);
        let y = layer(
            &[1.0, 2.0],
            &[1.0, 1.0, 0.0, 0.0],
            &[-3.0, 0.0],
            2,
            2,
            1,
            true,
        );
        assert_eq!(y, vec![0.5, 0.5]);
    }
}
