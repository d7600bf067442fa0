//! `matrixMul_naive`: C = A * B for n x n matrices, n from the spec (see [`super::matmul`] for the
//! arithmetic order).

use regwatt_sim::launch::LaunchSpec;

use crate::{Buffers, Tolerance, WorkloadError};

/// See [`super::matmul::TOLERANCES`].
pub const TOLERANCES: &[(&str, Tolerance)] = super::matmul::TOLERANCES;

/// Reference for every size: see [`super::matmul::reference`].
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    super::matmul::reference("matrixMul_naive", None, inputs, spec)
}
