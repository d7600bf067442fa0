//! `gemm`: `C = alpha A B + beta C`, A 96 x 64, B 64 x 64, C 96 x 64 (row-major), as
//! [`scaled_update`] with `x = A`, `y = B` (one `mul` for `beta`, then `fma(alpha a, b, c)` in k
//! order).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::polybench::{scaled_update, SCALED};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Rows of A and C (spec arg `ni`).
pub const NI: usize = 96;
/// Columns of B and C (spec arg `nj`).
pub const NJ: usize = 64;
/// Columns of A, rows of B (spec arg `nk`).
pub const NK: usize = 64;
/// PolyBench/GPU's `ALPHA` (spec arg).
pub const ALPHA: f32 = 32412.0;
/// PolyBench/GPU's `BETA` (spec arg).
pub const BETA: f32 = 2123.0;

/// See [`SCALED`].
pub const TOLERANCES: &[(&str, Tolerance)] = &[("c", SCALED)];

/// Reference for the spec in `gemm.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("gemm", inputs);
    let (a, b) = (i.f32("a", NI * NK)?, i.f32("b", NK * NJ)?);
    let c = scaled_update(
        i.f32("c", NI * NJ)?,
        (ALPHA, BETA),
        (NJ, NK),
        |r, k| a[r * NK + k],
        |k, col| b[k * NJ + col],
    );
    Ok(outputs([("c", HostData::F32(c))]))
}
