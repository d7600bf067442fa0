//! `syrk`: `C = alpha A A^T + beta C`, A 64 x 128, C 64 x 64 (row-major), as [`scaled_update`]
//! with `x = A`, `y(k, j) = A[j][k]` (one `mul` for `beta`, then `fma(alpha a_ik, a_jk, c)` in k
//! order).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::polybench::{scaled_update, SCALED};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Rows of A, side of C (spec arg `n`).
pub const N: usize = 64;
/// Columns of A (spec arg `m`).
pub const M: usize = 128;
/// PolyBench/GPU's `alpha` (spec arg).
pub const ALPHA: f32 = 12435.0;
/// PolyBench/GPU's `beta` (spec arg).
pub const BETA: f32 = 4546.0;

/// See [`SCALED`].
pub const TOLERANCES: &[(&str, Tolerance)] = &[("c", SCALED)];

/// Reference for the spec in `syrk.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("syrk", inputs);
    let a = i.f32("a", N * M)?;
    let c = scaled_update(
        i.f32("c", N * N)?,
        (ALPHA, BETA),
        (N, M),
        |r, k| a[r * M + k],
        |k, col| a[col * M + k],
    );
    Ok(outputs([("c", HostData::F32(c))]))
}
