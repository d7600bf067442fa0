//! `cifarnet`: a CifarNet-shaped forward pass (Jeon et al. 2019's Tango CifarNet, scaled down at `ci`;
//! the layer shapes in `workloads/README.md`), layer by layer with [`super::cnn`], one launch a
//! layer: pad 2 -> conv1 5x5 3->K1 -> pool1 3x3/2 -> norm1 (LRN, written with a zero border of
//! 2) -> conv2 5x5 K1->K2 -> norm2 -> pool2 -> fc3 -> fc4 (ReLU) -> fc5 (logits). Every size
//! reads its shapes from the launches ([`super::cnn::forward`]): `ci` 32x32 image, K1 = K2 = 6,
//! fc 384->64->32->10, LRN n 5, k 1, alpha/n 1e-4, beta 0.75.
//!
//! Tolerances: `x0`, `c1` and `p1` precede the first `powf` and are bit-identical (same fmaf
//! chain, `max`, copies): exact. `n1` and `n2` come out of `powf`: [`LRN_TOL`]. Everything
//! after norm1 is computed from the reference's own LRN output: [`DOWNSTREAM_TOL`].

use regwatt_sim::launch::LaunchSpec;

use super::cnn::{forward, Op, DOWNSTREAM_TOL, LRN_TOL};
use crate::{Buffers, Tolerance, WorkloadError};

/// The launches, each with the buffer it writes (the first reads the image, `img`).
pub const LAYERS: [(Op, &str); 10] = [
    (Op::Pad, "x0"),
    (conv5x5("w1", "b1"), "c1"),
    (Op::Pool, "p1"),
    (Op::Lrn, "n1"),
    (conv5x5("w2", "b2"), "c2"),
    (Op::Lrn, "n2"),
    (Op::Pool, "p2"),
    (Op::Fc { w: "w3", b: "b3" }, "h3"),
    (Op::Fc { w: "w4", b: "b4" }, "h4"),
    (Op::Fc { w: "w5", b: "b5" }, "logits"),
];

const fn conv5x5(w: &'static str, b: &'static str) -> Op {
    Op::Conv {
        kernel: "conv5x5_relu",
        ks: 5,
        w,
        b,
    }
}

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    ("x0", Tolerance::Exact),
    ("c1", Tolerance::Exact),
    ("p1", Tolerance::Exact),
    ("n1", LRN_TOL),
    ("c2", DOWNSTREAM_TOL),
    ("n2", LRN_TOL),
    ("p2", DOWNSTREAM_TOL),
    ("h3", DOWNSTREAM_TOL),
    ("h4", DOWNSTREAM_TOL),
    ("logits", DOWNSTREAM_TOL),
];

/// Reference for every size of `cifarnet`.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    forward("cifarnet", spec, inputs, "img", &LAYERS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::ci_spec;
    use crate::LaunchArgs;
    use regwatt_sim::launch::{HostData, LaunchArg};

    #[test]
    fn spec_activations_stay_in_a_useful_range() {
        let w = crate::find("cifarnet").unwrap();
        let out = w.expected_outputs(crate::Size::Ci).unwrap();
        for (name, live) in [("c1", 0.2), ("c2", 0.2), ("h3", 0.1), ("h4", 0.1)] {
            let HostData::F32(v) = &out[name] else {
                panic!("dtype")
            };
            // ReLU neither dead nor saturating: a fair share of positive outputs, all finite
            let pos = v.iter().filter(|x| **x > 0.0).count() as f64 / v.len() as f64;
            assert!(pos >= live, "{name}: {pos} positive");
            assert!(v.iter().all(|x| x.is_finite() && x.abs() < 10.0), "{name}");
        }
        let HostData::F32(l) = &out["logits"] else {
            panic!("dtype")
        };
        let spread =
            l.iter().cloned().fold(f32::MIN, f32::max) - l.iter().cloned().fold(f32::MAX, f32::min);
        assert!(spread > 1e-3, "logits all alike: {l:?}");
    }

    #[test]
    fn lrn_constants_are_the_specs_f32_args() {
        // the loader rounds the TOML's decimal (f64) to f32; the reference reads it alike
        let spec = ci_spec("cifarnet");
        let a = LaunchArgs::new("cifarnet", &spec);
        let (m, p, opad) = super::super::cnn::lrn_from_launch(&a, 3).unwrap();
        assert_eq!((m.c, m.h, m.w, p.n, opad), (6, 16, 16, 5, 2));
        assert_eq!((p.k, p.alpha_n, p.beta), (1.0, 0.0001f64 as f32, 0.75));
    }

    #[test]
    fn launches_that_do_not_chain_are_errors() {
        // conv2 reading 7 channels of norm1's 6
        let mut spec = ci_spec("cifarnet");
        spec.launches[4].args[4] = LaunchArg::Int(7);
        let init = spec.initial_buffers();
        let e = reference(&init, &spec).unwrap_err();
        assert!(matches!(e, WorkloadError::Launch { launch: 4, .. }), "{e}");
        // fc3 reading 383 of pool2's 384 values
        let mut spec = ci_spec("cifarnet");
        spec.launches[7].args[4] = LaunchArg::Int(383);
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::Launch { launch: 7, .. })
        ));
        // a pool whose output side is not the ceil-mode one
        let mut spec = ci_spec("cifarnet");
        spec.launches[2].args[5] = LaunchArg::Int(15);
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::Launch { launch: 2, .. })
        ));
        // the launches out of order
        let mut spec = ci_spec("cifarnet");
        spec.launches.swap(2, 3);
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::Launch { launch: 2, .. })
        ));
    }

    #[test]
    fn input_lengths_follow_the_spec() {
        // conv1 with 7 maps (grid z), and everything after it reading 7: w1 must hold 7 x 75
        let mut spec = ci_spec("cifarnet");
        spec.launches[1].grid[2] = 7;
        let init = spec.initial_buffers();
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::InputLength {
                expected: 525,
                actual: 450,
                ..
            })
        ));
    }
}
