//! `alexnet`: an AlexNet-shaped forward pass (seed 000's Tango AlexNet, scaled down; the layer
//! shapes in `workloads/README.md`), layer by layer with [`super::cnn`] in CaffeNet order:
//! conv1 11x11 stride 4 3->4 (99x99 -> 23x23) -> pool1 3x3/2 (11x11) -> norm1 (LRN n 5, k 2,
//! alpha/n 2e-5, beta 0.75, written with a zero border of 2) -> conv2 5x5 4->12 (11x11) ->
//! pool2 (5x5) -> norm2 (border 1) -> conv3 3x3 12->16 -> conv4 16->16 -> conv5 16->12 (5x5) ->
//! pool5 (2x2) -> fc6 48->64 -> fc7 64->64 (ReLU) -> fc8 64->10 (logits).
//!
//! Tolerances: `c1` and `p1` precede the first `powf` and are bit-identical: exact. `n1`, `n2`
//! come out of `powf`: [`LRN_TOL`]. Everything after norm1 is computed from the reference's own
//! LRN output: [`DOWNSTREAM_TOL`].

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::cnn::{conv_relu, fc, lrn, maxpool3x3s2, Conv, Lrn, DOWNSTREAM_TOL, LRN_TOL};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// conv1: 11x11 stride 4, no padding, on the 3 x 99 x 99 image: 4 maps of 23x23.
pub const CONV1: Conv = Conv {
    c: 3,
    h: 99,
    w: 99,
    k: 4,
    ks: 11,
    stride: 4,
    oh: 23,
    ow: 23,
    opad: 0,
};
/// conv2: 5x5 'same' on norm1's output (11x11 with a border of 2), 4 -> 12 maps of 11x11.
pub const CONV2: Conv = Conv {
    c: 4,
    h: 15,
    w: 15,
    k: 12,
    ks: 5,
    stride: 1,
    oh: 11,
    ow: 11,
    opad: 0,
};
/// conv3: 3x3 'same' on norm2's output (5x5 with a border of 1), 12 -> 16, border 1 out.
pub const CONV3: Conv = Conv {
    c: 12,
    h: 7,
    w: 7,
    k: 16,
    ks: 3,
    stride: 1,
    oh: 5,
    ow: 5,
    opad: 1,
};
/// conv4: 16 -> 16, border 1 out.
pub const CONV4: Conv = Conv {
    c: 16,
    k: 16,
    ..CONV3
};
/// conv5: 16 -> 12, dense out.
pub const CONV5: Conv = Conv {
    c: 16,
    k: 12,
    opad: 0,
    ..CONV3
};
/// Both LRN layers (the spec's scalar args).
pub const LRN: Lrn = Lrn {
    n: 5,
    k: 2.0,
    alpha_n: 2e-5,
    beta: 0.75,
};
/// Fully connected layers: (inputs, outputs, ReLU).
pub const FC: [(usize, usize, bool); 3] = [(48, 64, true), (64, 64, true), (64, 10, false)];

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

/// Reference for the spec in `alexnet.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("alexnet", inputs);
    let img = i.f32("img", CONV1.in_len())?;
    let conv = |g: &Conv, x: &[f32], l: usize| -> Result<Vec<f32>, WorkloadError> {
        let w = i.f32(&format!("w{l}"), g.w_len())?;
        let b = i.f32(&format!("b{l}"), g.k)?;
        Ok(conv_relu(g, x, w, b))
    };
    let c1 = conv(&CONV1, img, 1)?;
    let p1 = maxpool3x3s2(&c1, 4, 23, 23);
    let n1 = lrn(&p1, 4, 11, 11, &LRN, 2);
    let c2 = conv(&CONV2, &n1, 2)?;
    let p2 = maxpool3x3s2(&c2, 12, 11, 11);
    let n2 = lrn(&p2, 12, 5, 5, &LRN, 1);
    let c3 = conv(&CONV3, &n2, 3)?;
    let c4 = conv(&CONV4, &c3, 4)?;
    let c5 = conv(&CONV5, &c4, 5)?;
    let p5 = maxpool3x3s2(&c5, 12, 5, 5);
    let mut x = p5.clone();
    let mut fcs = Vec::new();
    for (l, (n, m, relu)) in FC.into_iter().enumerate() {
        let w = i.f32(&format!("w{}", l + 6), n * m)?;
        let b = i.f32(&format!("b{}", l + 6), m)?;
        x = fc(&x, w, b, n, m, relu);
        fcs.push(x.clone());
    }
    let [h6, h7, logits]: [Vec<f32>; 3] = fcs.try_into().expect("three fc layers");
    Ok(outputs([
        ("c1", HostData::F32(c1)),
        ("p1", HostData::F32(p1)),
        ("n1", HostData::F32(n1)),
        ("c2", HostData::F32(c2)),
        ("p2", HostData::F32(p2)),
        ("n2", HostData::F32(n2)),
        ("c3", HostData::F32(c3)),
        ("c4", HostData::F32(c4)),
        ("c5", HostData::F32(c5)),
        ("p5", HostData::F32(p5)),
        ("h6", HostData::F32(h6)),
        ("h7", HostData::F32(h7)),
        ("logits", HostData::F32(logits)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn lrn_constants_are_the_specs_f32_args() {
        // the loader rounds the TOML's decimal (f64) to f32
        assert_eq!(LRN.alpha_n, 0.00002f64 as f32);
    }
}
