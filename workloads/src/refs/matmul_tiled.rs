//! `matrixMul_tiled`: C = A * B, n = 128 (see [`super::matmul`] for the arithmetic order).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::matmul::{matmul, N};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// See [`super::matmul::TOLERANCES`].
pub const TOLERANCES: &[(&str, Tolerance)] = super::matmul::TOLERANCES;

/// Reference for the spec in `matrixMul_tiled.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("matrixMul_tiled", inputs);
    let c = matmul(i.f32("A", N * N)?, i.f32("B", N * N)?, N);
    Ok(outputs([("C", HostData::F32(c))]))
}
