//! `conv_large`: 5x5 conv on a 73x73 input (see [`super::conv`]); the shared-memory tiled
//! kernel accumulates in the same c, ky, kx order as the direct one.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::conv::{conv5x5, Conv, CONV_TOL};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Stride 1: 1 x 73x73 -> 3 x 69x69 (shared-memory tiled kernel).
pub const S1: Conv = Conv {
    c: 1,
    h: 73,
    w: 73,
    k: 3,
    stride: 1,
    oh: 69,
    ow: 69,
};
/// Stride 2: 1 x 73x73 -> 3 x 35x35 (direct kernel).
pub const S2: Conv = Conv {
    c: 1,
    h: 73,
    w: 73,
    k: 3,
    stride: 2,
    oh: 35,
    ow: 35,
};

/// See [`super::conv`].
pub const TOLERANCES: &[(&str, Tolerance)] = &[("out1", CONV_TOL), ("out2", CONV_TOL)];

/// Reference for the spec in `conv_large.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("conv_large", inputs);
    let img = i.f32("img", S1.in_len())?;
    let (w, b) = (i.f32("w", S1.w_len())?, i.f32("b", S1.k)?);
    Ok(outputs([
        ("out1", HostData::F32(conv5x5(&S1, img, w, b, true))),
        ("out2", HostData::F32(conv5x5(&S2, img, w, b, true))),
    ]))
}
