//! `alexnet`: an AlexNet-shaped forward pass (Jeon et al. 2019's Tango AlexNet; scaled down at `ci` and
//! `default`, the layer shapes in `workloads/README.md`), layer by layer with [`super::cnn`] in
//! CaffeNet order, one launch a layer: conv1 11x11 stride 4 -> pool1 3x3/2 -> norm1 (LRN,
//! written with a zero border of 2) -> conv2 5x5 -> pool2 -> norm2 (border 1) -> conv3, conv4,
//! conv5 3x3 -> pool5 -> fc6 -> fc7 (ReLU) -> fc8 (logits). Every size reads its shapes from
//! the launches ([`super::cnn::forward`]): `ci` 99x99 image (maps 23 -> 11 -> 5 -> 2), channels
//! 4/12/16/16/12, fc 48->64->64->10, LRN n 5, k 2, alpha/n 2e-5, beta 0.75.
//!
//! Tolerances: `c1` and `p1` precede the first `powf` and are bit-identical: exact. `n1`, `n2`
//! come out of `powf`: [`LRN_TOL`]. Everything after norm1 is computed from the reference's own
//! LRN output: [`DOWNSTREAM_TOL`].

use regwatt_sim::launch::LaunchSpec;

use super::cnn::{forward, Op, DOWNSTREAM_TOL, LRN_TOL};
use crate::{Buffers, Tolerance, WorkloadError};

/// The launches, each with the buffer it writes (the first reads the image, `img`).
pub const LAYERS: [(Op, &str); 13] = [
    (conv("conv11x11_relu", 11, "w1", "b1"), "c1"),
    (Op::Pool, "p1"),
    (Op::Lrn, "n1"),
    (conv("conv5x5_relu", 5, "w2", "b2"), "c2"),
    (Op::Pool, "p2"),
    (Op::Lrn, "n2"),
    (conv("conv3x3_relu", 3, "w3", "b3"), "c3"),
    (conv("conv3x3_relu", 3, "w4", "b4"), "c4"),
    (conv("conv3x3_relu", 3, "w5", "b5"), "c5"),
    (Op::Pool, "p5"),
    (Op::Fc { w: "w6", b: "b6" }, "h6"),
    (Op::Fc { w: "w7", b: "b7" }, "h7"),
    (Op::Fc { w: "w8", b: "b8" }, "logits"),
];

const fn conv(kernel: &'static str, ks: usize, w: &'static str, b: &'static str) -> Op {
    Op::Conv { kernel, ks, w, b }
}

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    ("c1", Tolerance::Exact),
    ("p1", Tolerance::Exact),
    ("n1", LRN_TOL),
    ("c2", DOWNSTREAM_TOL),
    ("p2", DOWNSTREAM_TOL),
    ("n2", LRN_TOL),
    ("c3", DOWNSTREAM_TOL),
    ("c4", DOWNSTREAM_TOL),
    ("c5", DOWNSTREAM_TOL),
    ("p5", DOWNSTREAM_TOL),
    ("h6", DOWNSTREAM_TOL),
    ("h7", DOWNSTREAM_TOL),
    ("logits", DOWNSTREAM_TOL),
];

/// Reference for every size of `alexnet`.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    forward("alexnet", spec, inputs, "img", &LAYERS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::ci_spec;
    use crate::LaunchArgs;
    use regwatt_sim::launch::{HostData, LaunchArg};

    #[test]
    fn spec_activations_stay_in_a_useful_range() {
        let w = crate::find("alexnet").unwrap();
        let out = w.expected_outputs(crate::Size::Ci).unwrap();
        for name in ["c1", "c2", "c3", "c4", "c5", "h6", "h7"] {
            let HostData::F32(v) = &out[name] else {
                panic!("dtype")
            };
            // ReLU neither dead nor saturating: a fair share of positive outputs, all finite
            // (c3, c4 include their zero borders: 25 of 49 per map are interior)
            let pos = v.iter().filter(|x| **x > 0.0).count() as f64 / v.len() as f64;
            assert!(pos >= 0.1, "{name}: {pos} positive");
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
    fn ci_shapes_from_the_launches() {
        let spec = ci_spec("alexnet");
        let a = LaunchArgs::new("alexnet", &spec);
        let g = |l: usize, ks: usize| {
            let c = super::super::cnn::Conv::from_launch("alexnet", &a, l, ks).unwrap();
            (c.c, c.h, c.k, c.stride, c.oh, c.opad)
        };
        assert_eq!(g(0, 11), (3, 99, 4, 4, 23, 0));
        assert_eq!(g(3, 5), (4, 15, 12, 1, 11, 0));
        assert_eq!(g(6, 3), (12, 7, 16, 1, 5, 1));
        assert_eq!(g(8, 3), (16, 7, 12, 1, 5, 0));
        let (_, p, _) = super::super::cnn::lrn_from_launch(&a, 2).unwrap();
        // the loader rounds the TOML's decimal (f64) to f32; the reference reads it alike
        assert_eq!(
            (p.n, p.k, p.alpha_n, p.beta),
            (5, 2.0, 0.00002f64 as f32, 0.75)
        );
    }

    #[test]
    fn a_wrong_window_or_length_is_an_error() {
        // conv1's 23x23 output is not what an 11x11 window at stride 3 gives
        let mut spec = ci_spec("alexnet");
        spec.launches[0].args[7] = LaunchArg::Int(3);
        let init = spec.initial_buffers();
        let e = reference(&init, &spec).unwrap_err();
        assert!(e.to_string().contains("stride 3"), "{e}");
        // a 103x103 image (24x24 out): img holds 3 x 99 x 99
        let mut spec = ci_spec("alexnet");
        for (k, v) in [(5, 103), (6, 103), (8, 24), (9, 24)] {
            spec.launches[0].args[k] = LaunchArg::Int(v);
        }
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::InputLength {
                expected: 31827,
                actual: 29403,
                ..
            })
        ));
    }
}
