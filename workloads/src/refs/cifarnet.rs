//! `cifarnet`: a CifarNet-shaped forward pass (seed 000's Tango CifarNet, scaled down; the
//! layer shapes in `workloads/README.md`), layer by layer with [`super::cnn`]:
//! pad 2 -> conv1 5x5 3->6 (32x32) -> pool1 3x3/2 (16x16) -> norm1 (LRN n 5, k 1, alpha/n 1e-4,
//! beta 0.75, written with a zero border of 2) -> conv2 5x5 6->6 -> norm2 -> pool2 (8x8) ->
//! fc3 384->64 -> fc4 64->32 (ReLU) -> fc5 32->10 (logits).
//!
//! Tolerances: `x0`, `c1` and `p1` precede the first `powf` and are bit-identical (same fmaf
//! chain, `max`, copies): exact. `n1` and `n2` come out of `powf`: [`LRN_TOL`]. Everything
//! after norm1 is computed from the reference's own LRN output: [`DOWNSTREAM_TOL`].

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::cnn::{conv_relu, fc, lrn, maxpool3x3s2, pad2d, Conv, Lrn, DOWNSTREAM_TOL, LRN_TOL};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Image channels and side.
pub const IMG: (usize, usize) = (3, 32);
/// conv1: 5x5 'same' on the image padded by 2 (36x36), 3 -> 6 maps of 32x32.
pub const CONV1: Conv = Conv {
    c: 3,
    h: 36,
    w: 36,
    k: 6,
    ks: 5,
    stride: 1,
    oh: 32,
    ow: 32,
    opad: 0,
};
/// conv2: 5x5 'same' on norm1's output (16x16 with a border of 2), 6 -> 6 maps of 16x16.
pub const CONV2: Conv = Conv {
    c: 6,
    h: 20,
    w: 20,
    k: 6,
    ks: 5,
    stride: 1,
    oh: 16,
    ow: 16,
    opad: 0,
};
/// Both LRN layers (the spec's scalar args).
pub const LRN: Lrn = Lrn {
    n: 5,
    k: 1.0,
    alpha_n: 1e-4,
    beta: 0.75,
};
/// Fully connected layers: (inputs, outputs, ReLU).
pub const FC: [(usize, usize, bool); 3] = [(384, 64, true), (64, 32, true), (32, 10, false)];

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

/// Reference for the spec in `cifarnet.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("cifarnet", inputs);
    let (ic, is) = IMG;
    let img = i.f32("img", ic * is * is)?;
    let x0 = pad2d(img, ic, is, is, 2);
    debug_assert_eq!(x0.len(), CONV1.in_len());
    let c1 = conv_relu(
        &CONV1,
        &x0,
        i.f32("w1", CONV1.w_len())?,
        i.f32("b1", CONV1.k)?,
    );
    let p1 = maxpool3x3s2(&c1, 6, 32, 32);
    let n1 = lrn(&p1, 6, 16, 16, &LRN, 2);
    let c2 = conv_relu(
        &CONV2,
        &n1,
        i.f32("w2", CONV2.w_len())?,
        i.f32("b2", CONV2.k)?,
    );
    let n2 = lrn(&c2, 6, 16, 16, &LRN, 0);
    let p2 = maxpool3x3s2(&n2, 6, 16, 16);
    let mut x = p2.clone();
    let mut fcs = Vec::new();
    for (l, (n, m, relu)) in FC.into_iter().enumerate() {
        let w = i.f32(&format!("w{}", l + 3), n * m)?;
        let b = i.f32(&format!("b{}", l + 3), m)?;
        x = fc(&x, w, b, n, m, relu);
        fcs.push(x.clone());
    }
    let [h3, h4, logits]: [Vec<f32>; 3] = fcs.try_into().expect("three fc layers");
    Ok(outputs([
        ("x0", HostData::F32(x0)),
        ("c1", HostData::F32(c1)),
        ("p1", HostData::F32(p1)),
        ("n1", HostData::F32(n1)),
        ("c2", HostData::F32(c2)),
        ("n2", HostData::F32(n2)),
        ("p2", HostData::F32(p2)),
        ("h3", HostData::F32(h3)),
        ("h4", HostData::F32(h4)),
        ("logits", HostData::F32(logits)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // the loader rounds the TOML's decimal (f64) to f32
        assert_eq!(LRN.alpha_n, 0.0001f64 as f32);
    }
}
