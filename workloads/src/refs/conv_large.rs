//! `conv_large`: 5x5 conv on a 73x73 input (see [`super::conv`]): the shared-memory tiled kernel
//! (`conv5x5_shared`, stride 1, arguments C, H, W, K, OH, OW) and the direct one (`conv5x5`,
//! C, H, W, K, stride, OH, OW) on the same input and weights; every size reads its geometry from
//! the launches. The tiled kernel accumulates in the same c, ky, kx order as the direct one.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::conv::{conv5x5, Conv, CONV_TOL};
use super::{expect_kernels, outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// See [`super::conv`].
pub const TOLERANCES: &[(&str, Tolerance)] = &[("out1", CONV_TOL), ("out2", CONV_TOL)];

/// The two layers of a spec: the tiled stride-1 one (launch 0), the direct one (launch 1).
pub fn layers(spec: &LaunchSpec) -> Result<[Conv; 2], WorkloadError> {
    const W: &str = "conv_large";
    expect_kernels(W, spec, &["conv5x5_shared", "conv5x5"])?;
    let a = LaunchArgs::new(W, spec);
    let s1 = Conv::from_launch(W, &a, 0, 4, Some(1))?;
    let s2 = Conv::from_launch(W, &a, 1, 4, None)?;
    s2.same_input(&s1, W, 1)?;
    Ok([s1, s2])
}

/// Reference for every size of `conv_large`.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let [s1, s2] = layers(spec)?;
    let i = Inputs::new("conv_large", inputs);
    let img = i.f32("img", s1.in_len())?;
    let (w, b) = (i.f32("w", s1.w_len())?, i.f32("b", s1.k)?);
    Ok(outputs([
        ("out1", HostData::F32(conv5x5(&s1, img, w, b, true))),
        ("out2", HostData::F32(conv5x5(&s2, img, w, b, true))),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::ci_spec;
    use regwatt_sim::launch::LaunchArg;

    #[test]
    fn ci_geometry() {
        let [s1, s2] = layers(&ci_spec("conv_large")).unwrap();
        let g = |c: &Conv| (c.c, c.h, c.w, c.k, c.stride, c.oh, c.ow);
        assert_eq!(g(&s1), (1, 73, 73, 3, 1, 69, 69));
        assert_eq!(g(&s2), (1, 73, 73, 3, 2, 35, 35));
    }

    #[test]
    fn launches_that_disagree_are_errors() {
        // the direct launch with 4 maps, the tiled one with 3 (the same weights)
        let mut spec = ci_spec("conv_large");
        spec.launches[1].args[7] = LaunchArg::Int(4);
        assert!(matches!(
            layers(&spec),
            Err(WorkloadError::Launch { launch: 1, .. })
        ));
        // the tiled kernel's output is the stride-1 valid convolution
        let mut spec = ci_spec("conv_large");
        spec.launches[0].args[8] = LaunchArg::Int(35);
        assert!(matches!(
            layers(&spec),
            Err(WorkloadError::Launch { launch: 0, .. })
        ));
        // the kernels in the other order
        let mut spec = ci_spec("conv_large");
        spec.launches.swap(0, 1);
        assert!(layers(&spec).is_err());
    }

    #[test]
    fn input_lengths_follow_the_spec() {
        let mut spec = ci_spec("conv_large");
        for l in 0..2 {
            spec.launches[l].args[7] = LaunchArg::Int(5);
        }
        let init = ci_spec("conv_large").initial_buffers();
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::InputLength {
                expected: 125,
                actual: 75,
                ..
            })
        ));
    }
}
