//! `fc`: fully-connected 1250 -> 100 (sigmoid) -> 10 (linear) layers (batch 4 at `ci`), one
//! warp per output; every size reads the layers from the two `fc_layer` launches' arguments
//! (in_dim, out_dim, batch, act).
//!
//! The reference reproduces the warp's order: lane l accumulates an FMA chain over
//! i = l, l+32, ...; the 32 lane sums combine in the xor butterfly (16, 8, 4, 2, 1); then
//! `+ bias`. The only inexact step is the sigmoid's `__expf` (ex2.approx based, relative error
//! ~2^-21 plus range reduction): `h` in (0, 1) gets `abs 1e-5`; `y` sums 100 such values with
//! |W2| <= 0.3, so `abs 1e-4`.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{expect_kernels, outputs, shape_error, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// One `fc_layer` launch: inputs, outputs, batch, and whether the sigmoid applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layer {
    /// Inputs per batch element.
    pub in_dim: usize,
    /// Outputs per batch element.
    pub out_dim: usize,
    /// Batch elements.
    pub batch: usize,
    /// `act` = 1: logistic sigmoid; 0: identity.
    pub sigmoid: bool,
}

impl Layer {
    /// The layer of launch `launch` (arguments 4..=7).
    pub fn from_launch(a: &LaunchArgs<'_>, launch: usize) -> Result<Layer, WorkloadError> {
        let act = a.int(launch, 7, 0)?;
        if act > 1 {
            return Err(shape_error(
                "fc",
                launch,
                format!("act {act}: the kernel knows 1 (sigmoid) and 0 (identity)"),
            ));
        }
        Ok(Layer {
            in_dim: a.int(launch, 4, 1)?,
            out_dim: a.int(launch, 5, 1)?,
            batch: a.int(launch, 6, 1)?,
            sigmoid: act == 1,
        })
    }
}

/// The two layers of a spec: the hidden one (launch 0, writes `h`) and the output one (launch
/// 1, reads `h`), on one batch.
pub fn layers(spec: &LaunchSpec) -> Result<[Layer; 2], WorkloadError> {
    expect_kernels("fc", spec, &["fc_layer"; 2])?;
    let a = LaunchArgs::new("fc", spec);
    let (l1, l2) = (Layer::from_launch(&a, 0)?, Layer::from_launch(&a, 1)?);
    if (l2.in_dim, l2.batch) != (l1.out_dim, l1.batch) {
        return Err(shape_error(
            "fc",
            1,
            format!(
                "reads {} inputs for {} batch elements, the layer before writes {} for {}",
                l2.in_dim, l2.batch, l1.out_dim, l1.batch
            ),
        ));
    }
    Ok([l1, l2])
}

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

/// Reference for every size of `fc`.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let [l1, l2] = layers(spec)?;
    let i = Inputs::new("fc", inputs);
    let run = |l: &Layer, x: &[f32], w: &str, b: &str| -> Result<Vec<f32>, WorkloadError> {
        Ok(layer(
            x,
            i.f32(w, l.out_dim * l.in_dim)?,
            i.f32(b, l.out_dim)?,
            l.in_dim,
            l.out_dim,
            l.batch,
            l.sigmoid,
        ))
    };
    let h = run(&l1, i.f32("x", l1.batch * l1.in_dim)?, "W1", "b1")?;
    let y = run(&l2, &h, "W2", "b2")?;
    Ok(outputs([("h", HostData::F32(h)), ("y", HostData::F32(y))]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::ci_spec;
    use regwatt_sim::launch::LaunchArg;

    #[test]
    fn ci_layers_are_the_seed_networks_fc_on_a_batch_of_four() {
        let l = |i, o, sigmoid| Layer {
            in_dim: i,
            out_dim: o,
            batch: 4,
            sigmoid,
        };
        assert_eq!(
            layers(&ci_spec("fc")).unwrap(),
            [l(1250, 100, true), l(100, 10, false)]
        );
    }

    #[test]
    fn batch_and_layer_mismatches_are_errors() {
        let init = ci_spec("fc").initial_buffers();
        // batch 5 in both launches: x holds 4 x 1250
        let mut spec = ci_spec("fc");
        for l in 0..2 {
            spec.launches[l].args[6] = LaunchArg::Int(5);
        }
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::InputLength {
                expected: 6250,
                actual: 5000,
                ..
            })
        ));
        // batch 5 in the second launch only
        let mut spec = ci_spec("fc");
        spec.launches[1].args[6] = LaunchArg::Int(5);
        assert!(matches!(
            layers(&spec),
            Err(WorkloadError::Launch { launch: 1, .. })
        ));
        // an activation the kernel does not have
        let mut spec = ci_spec("fc");
        spec.launches[0].args[7] = LaunchArg::Int(2);
        assert!(matches!(
            layers(&spec),
            Err(WorkloadError::Launch { launch: 0, .. })
        ));
    }

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
