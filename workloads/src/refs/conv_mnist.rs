//! `conv_mnist`: seed-001 CNN conv layers on a 29x29 input (see [`super::conv`]): layer 1
//! (stride 2), layer 2 on layer 1's output, layer 1 again at stride 1 (same input and weights).
//! Every size reads its geometry from the three `conv5x5` launches' arguments (C, H, W, K,
//! stride, OH, OW). Layer 2 consumes layer 1's output, so the reference feeds its own layer-1
//! result forward; tanh differences (~1e-7) shrink through layer 2's sums of products with
//! weights on +-sqrt(3 / fan_in) or less.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::conv::{conv5x5, Conv, CONV_TOL};
use super::{expect_kernels, outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// See [`super::conv`].
pub const TOLERANCES: &[(&str, Tolerance)] =
    &[("c1s2", CONV_TOL), ("c2", CONV_TOL), ("c1s1", CONV_TOL)];

/// The three layers of a spec (launches 0, 1, 2), checked against each other.
pub fn layers(spec: &LaunchSpec) -> Result<[Conv; 3], WorkloadError> {
    const W: &str = "conv_mnist";
    expect_kernels(W, spec, &["conv5x5"; 3])?;
    let a = LaunchArgs::new(W, spec);
    let [l1, l2, l3] = [0, 1, 2].map(|k| Conv::from_launch(W, &a, k, 4, None));
    let (l1, l2, l3) = (l1?, l2?, l3?);
    l2.reads(&l1, W, 1)?;
    l3.same_input(&l1, W, 2)?;
    Ok([l1, l2, l3])
}

/// Reference for every size of `conv_mnist`.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let [l1, l2, l3] = layers(spec)?;
    let i = Inputs::new("conv_mnist", inputs);
    let img = i.f32("img", l1.in_len())?;
    let (w1, b1) = (i.f32("w1", l1.w_len())?, i.f32("b1", l1.k)?);
    let (w2, b2) = (i.f32("w2", l2.w_len())?, i.f32("b2", l2.k)?);
    let c1s2 = conv5x5(&l1, img, w1, b1, true);
    let c2 = conv5x5(&l2, &c1s2, w2, b2, true);
    let c1s1 = conv5x5(&l3, img, w1, b1, true);
    Ok(outputs([
        ("c1s2", HostData::F32(c1s2)),
        ("c2", HostData::F32(c2)),
        ("c1s1", HostData::F32(c1s1)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::ci_spec;
    use regwatt_sim::launch::LaunchArg;

    #[test]
    fn ci_geometry_is_the_seed_networks() {
        let [l1, l2, l3] = layers(&ci_spec("conv_mnist")).unwrap();
        let g = |c: &Conv| (c.c, c.h, c.w, c.k, c.stride, c.oh, c.ow);
        assert_eq!(g(&l1), (1, 29, 29, 6, 2, 13, 13));
        assert_eq!(g(&l2), (6, 13, 13, 50, 2, 5, 5));
        assert_eq!(g(&l3), (1, 29, 29, 6, 1, 25, 25));
    }

    #[test]
    fn inconsistent_launches_are_errors() {
        // layer 2 reading 7 maps of a 6-map layer 1
        let mut spec = ci_spec("conv_mnist");
        spec.launches[1].args[4] = LaunchArg::Int(7);
        let e = layers(&spec).unwrap_err();
        assert!(matches!(e, WorkloadError::Launch { launch: 1, .. }), "{e}");
        // an output side that is not the valid convolution's
        let mut spec = ci_spec("conv_mnist");
        spec.launches[0].args[9] = LaunchArg::Int(14);
        let e = layers(&spec).unwrap_err();
        assert!(e.to_string().contains("13x13"), "{e}");
        // the stride-1 layer with other weights than layer 1
        let mut spec = ci_spec("conv_mnist");
        spec.launches[2].args[7] = LaunchArg::Int(5);
        assert!(matches!(
            layers(&spec),
            Err(WorkloadError::Launch { launch: 2, .. })
        ));
        // a fourth launch
        let mut spec = ci_spec("conv_mnist");
        spec.launches.push(spec.launches[0].clone());
        assert!(matches!(
            layers(&spec),
            Err(WorkloadError::Launch { launch: 3, .. })
        ));
    }

    #[test]
    fn input_lengths_follow_the_spec() {
        // 8 maps in layer 1: w1 must hold 8 x 25 weights
        let mut spec = ci_spec("conv_mnist");
        for (l, a) in [(0, 7), (2, 7), (1, 4)] {
            spec.launches[l].args[a] = LaunchArg::Int(8);
        }
        let init = ci_spec("conv_mnist").initial_buffers();
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::InputLength {
                expected: 200,
                actual: 150,
                ..
            })
        ));
    }
}
