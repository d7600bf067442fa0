//! `backprop`: one training step of an n_in -> n_hid sigmoid layer (`ci`: 1024 -> 16).
//!
//! Forward partials follow the kernel's order (products rounded, then the 16-row halving tree
//! per input block): exact. Each unit's n_in / 16 partials are summed in block order; `expf`
//! (<= 2 ulp) makes `hidden`/`delta` differ by ~1e-7. The weight update
//! `dw = (eta*delta) * in + oldw*momentum` is contracted by the compiler into one FMA, as here.
//! Tolerances: partial exact-ish (`abs 1e-6`), hidden/delta `abs 1e-6 + rel 1e-5`,
//! w/oldw `abs 1e-6 + rel 1e-5` (|dw| <= 0.1).
//!
//! Sizes come from the launches: n_in and n_hid are `bp_forward`'s arguments 3 and 4 (and
//! `bp_delta`'s block count and `bp_adjust`'s arguments must agree), eta and momentum
//! `bp_adjust`'s arguments 6 and 7.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Inputs of the `ci` spec.
#[cfg(test)]
const N_IN: usize = 1024;
/// Hidden units of the `ci` spec.
#[cfg(test)]
const N_HID: usize = 16;
/// Inputs per forward block (`BP` in backprop.cu).
pub const BP: usize = 16;

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

/// Reference for every size of `backprop`: forward, delta, adjust as launched.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let a = LaunchArgs::new("backprop", spec);
    if a.launches() != 3 {
        return Err(a.launch_error(
            a.launches().min(3),
            format!(
                "{} launches, expected bp_forward, bp_delta, bp_adjust",
                a.launches()
            ),
        ));
    }
    for (k, name) in ["bp_forward", "bp_delta", "bp_adjust"]
        .into_iter()
        .enumerate()
    {
        a.expect_kernel(k, name)?;
    }
    let (n_in, n_hid) = (a.int(0, 3, 1)?, a.int(0, 4, 1)?);
    let blocks = n_in.div_ceil(BP);
    for (l, arg, want) in [(1, 4, blocks), (1, 5, n_hid), (2, 4, n_in), (2, 5, n_hid)] {
        let got = a.int(l, arg, 1)?;
        if got != want {
            return Err(a.launch_error(
                l,
                format!(
                    "argument {arg} is {got}, bp_forward's sizes ({n_in} -> {n_hid}) need {want}"
                ),
            ));
        }
    }
    let (eta, momentum) = (a.float(2, 6)? as f32, a.float(2, 7)? as f32);
    let i = Inputs::new("backprop", inputs);
    let input = i.f32("in", n_in)?;
    let w = i.f32("w", n_in * n_hid)?;
    i.f32("partial", blocks * n_hid)?;
    let partial = forward_partials(input, w, n_in, n_hid);
    let (hidden, delta) = hidden_delta(&partial, i.f32("target", n_hid)?, n_hid);
    i.f32("hidden", n_hid)?;
    i.f32("delta", n_hid)?;
    let (w2, oldw2) = adjust(
        input,
        &delta,
        w,
        i.f32("oldw", n_in * n_hid)?,
        n_hid,
        eta,
        momentum,
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
    fn sizes_come_from_the_launches() {
        let spec = crate::refs::ci_spec("backprop");
        let mut init = spec.initial_buffers();
        let out = reference(&init, &spec).unwrap();
        assert_eq!(out["partial"].len(), N_IN / BP * N_HID);
        // a w of the wrong length for n_in x n_hid
        init.insert("w".into(), HostData::F32(vec![0.0; N_IN * N_HID - 1]));
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::InputLength { expected, .. }) if expected == N_IN * N_HID
        ));
        // bp_delta summing a different number of partial blocks than bp_forward writes
        let mut bad = spec.clone();
        bad.launches[1].args[4] = regwatt_sim::launch::LaunchArg::Int(63);
        assert!(matches!(
            reference(&spec.initial_buffers(), &bad),
            Err(WorkloadError::Launch { launch: 1, .. })
        ));
    }

    #[test]
    fn adjust_applies_momentum() {
        let (w, old) = adjust(&[2.0], &[0.5], &[1.0], &[1.0], 1, 0.5, 0.25);
        // dw = 0.5*0.5*2 + 0.25*1 = 0.75
        assert_eq!((w, old), (vec![1.75], vec![0.75]));
    }
}
