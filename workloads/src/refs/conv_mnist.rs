//! `conv_mnist`: seed-001 CNN conv layers on a 29x29 input (see [`super::conv`]).
//! Layer 2 consumes layer 1's output, so the reference feeds its own layer-1 result forward;
//! tanh differences (~1e-7) shrink through the 150-term layer-2 sums with |w| <= 0.1.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::conv::{conv5x5, Conv, CONV_TOL};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Layer 1, stride 2: 1 x 29x29 -> 6 x 13x13.
pub const L1S2: Conv = Conv {
    c: 1,
    h: 29,
    w: 29,
    k: 6,
    stride: 2,
    oh: 13,
    ow: 13,
};
/// Layer 2, stride 2: 6 x 13x13 -> 50 x 5x5.
pub const L2: Conv = Conv {
    c: 6,
    h: 13,
    w: 13,
    k: 50,
    stride: 2,
    oh: 5,
    ow: 5,
};
/// Layer 1, stride 1: 1 x 29x29 -> 6 x 25x25.
pub const L1S1: Conv = Conv {
    c: 1,
    h: 29,
    w: 29,
    k: 6,
    stride: 1,
    oh: 25,
    ow: 25,
};

/// See [`super::conv`].
pub const TOLERANCES: &[(&str, Tolerance)] =
    &[("c1s2", CONV_TOL), ("c2", CONV_TOL), ("c1s1", CONV_TOL)];

/// Reference for the spec in `conv_mnist.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("conv_mnist", inputs);
    let img = i.f32("img", L1S2.in_len())?;
    let (w1, b1) = (i.f32("w1", L1S2.w_len())?, i.f32("b1", L1S2.k)?);
    let (w2, b2) = (i.f32("w2", L2.w_len())?, i.f32("b2", L2.k)?);
    let c1s2 = conv5x5(&L1S2, img, w1, b1, true);
    let c2 = conv5x5(&L2, &c1s2, w2, b2, true);
    let c1s1 = conv5x5(&L1S1, img, w1, b1, true);
    Ok(outputs([
        ("c1s2", HostData::F32(c1s2)),
        ("c2", HostData::F32(c2)),
        ("c1s1", HostData::F32(c1s1)),
    ]))
}
