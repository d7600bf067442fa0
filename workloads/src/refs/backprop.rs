//! `backprop`: one training step of a 1024 -> 16 sigmoid layer.
//!
//! Forward partials follow the kernel's order (products rounded, then the 16-row halving tree
//! per input block): exact. The 64 partials are summed in block order; `expf` (<= 2 ulp) makes
//! `hidden`/`delta` differ by ~1e-7. The weight update
//! `dw = (eta*delta) * in + oldw*momentum` is contracted by the compiler into one FMA, as here.
//! Tolerances: partial exact-ish (`abs 1e-6`), hidden/delta `abs 1e-6 + rel 1e-5`,
//! w/oldw `abs 1e-6 + rel 1e-5` (|dw| <= 0.1).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Inputs.
pub const N_IN: usize = 1024;
/// Hidden units.
pub const N_HID: usize = 16;
/// Inputs per forward block.
pub const BP: usize = 16;
/// Learning rate (spec arg).
pub const ETA: f32 = 0.3;
/// Momentum (spec arg).
pub const MOMENTUM: f32 = 0.3;

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    (
        "partial",
        Tolerance::Float {
            abs: 1e-6,
            rel: 1e-6,
        },
    ),
    (
        "hidden",
        Tolerance::Float {
            abs: 1e-6,
            rel: 1e-5,
        },
    ),
    (
        "delta",
        Tolerance::Float {
            abs: 1e-6,
            rel: 1e-5,
        },
    ),
    (
        "w",
        Tolerance::Float {
            abs: 1e-6,
            rel: 1e-5,
        },
    ),
    (
        "oldw",
        Tolerance::Float {
            abs: 1e-6,
            rel: 1e-5,
        },
    ),
];

/// Forward partial sums: partial[blk][j] = tree sum over the block's 16 inputs of in[i] w[i][j].
pub fn forward_partials(input: &[f32], w: &[f32], n_in: usize, n_hid: usize) -> Vec<f32> {
    let blocks = n_in.div_ceil(BP);
    let mut partial = vec![0.0f32; blocks * n_hid];
    for blk in 0..blocks {
        for j in 0..n_hid {
            let mut p: Vec<f32> = (0..BP)
                .map(|r| {
                    let i = blk * BP + r;
                    if i < n_in {
                        input[i] * w[i * n_hid + j]
                    } else {
                        0.0
                    }
                })
                .collect();
            let mut s = BP / 2;
            while s > 0 {
                for r in 0..s {
                    p[r] += p[r + s];
                }
                s /= 2;
            }
            partial[blk * n_hid + j] = p[0];
        }
    }
    partial
}

/// (hidden, delta) from the partials.
pub fn hidden_delta(partial: &[f32], target: &[f32], n_hid: usize) -> (Vec<f32>, Vec<f32>) {
    let blocks = partial.len() / n_hid;
    let mut hidden = Vec::with_capacity(n_hid);
    let mut delta = Vec::with_capacity(n_hid);
    for j in 0..n_hid {
        let mut sum = 0.0f32;
        for b in 0..blocks {
            sum += partial[b * n_hid + j];
        }
        let h = 1.0 / (1.0 + (-sum).exp());
        hidden.push(h);
        delta.push(h * (1.0 - h) * (target[j] - h));
    }
    (hidden, delta)
}

/// Momentum weight update in place: returns (w, oldw).
pub fn adjust(
    input: &[f32],
    delta: &[f32],
    w: &[f32],
    oldw: &[f32],
    n_hid: usize,
    eta: f32,
    momentum: f32,
) -> (Vec<f32>, Vec<f32>) {
    let mut w = w.to_vec();
    let mut oldw = oldw.to_vec();
    for (i, &x) in input.iter().enumerate() {
        for (j, &d) in delta.iter().enumerate().take(n_hid) {
            let idx = i * n_hid + j;
            let dw = (eta * d).mul_add(x, oldw[idx] * momentum);
            w[idx] += dw;
            oldw[idx] = dw;
        }
    }
    (w, oldw)
}

/// Reference for the spec in `backprop.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("backprop", inputs);
    let input = i.f32("in", N_IN)?;
    let w = i.f32("w", N_IN * N_HID)?;
    let partial = forward_partials(input, w, N_IN, N_HID);
    let (hidden, delta) = hidden_delta(&partial, i.f32("target", N_HID)?, N_HID);
    let (w2, oldw2) = adjust(
        input,
        &delta,
        w,
        i.f32("oldw", N_IN * N_HID)?,
        N_HID,
        ETA,
        MOMENTUM,
    );
    Ok(outputs([
        ("partial", HostData::F32(partial)),
        ("hidden", HostData::F32(hidden)),
        ("delta", HostData::F32(delta)),
        ("w", HostData::F32(w2)),
        ("oldw", HostData::F32(oldw2)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partials_sum_products_per_block() {
        // 32 inputs of 1, 1 hidden unit, weights 0..31 -> block sums 0+..+15 = 120, 16+..+31 = 376
        let w: Vec<f32> = (0..32).map(|v| v as f32).collect();
        assert_eq!(forward_partials(&[1.0; 32], &w, 32, 1), vec![120.0, 376.0]);
    }

    #[test]
    fn zero_sum_gives_half_and_delta() {
        let (h, d) = hidden_delta(&[1.0, -1.0], &[1.0], 1);
        assert_eq!(h, vec![0.5]);
        assert_eq!(d, vec![0.125]); // 0.5 * 0.5 * 0.5
    }

    #[test]
    fn adjust_applies_momentum() {
        let (w, old) = adjust(&[2.0], &[0.5], &[1.0], &[1.0], 1, 0.5, 0.25);
        // dw = 0.5*0.5*2 + 0.25*1 = 0.75
        assert_eq!((w, old), (vec![1.75], vec![0.75]));
    }
}
