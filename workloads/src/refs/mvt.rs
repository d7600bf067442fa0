//! `mvt`: `x1 += A y_1` (`mvt_kernel1`, one thread per row) and `x2 += A^T y_2`
//! (`mvt_kernel2`, one thread per column of A), A 400 x 400, onto the buffers' initial contents
//! with fused steps in loop order ([`super::polybench`]).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::polybench::{col_sums, row_sums, MATVEC};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Side of A (spec arg `n`; PolyBench/C MEDIUM `N`).
pub const N: usize = 400;

/// See [`MATVEC`].
pub const TOLERANCES: &[(&str, Tolerance)] = &[("x1", MATVEC), ("x2", MATVEC)];

/// Reference for the spec in `mvt.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("mvt", inputs);
    let a = i.f32("a", N * N)?;
    let x1 = row_sums(a, i.f32("y_1", N)?, i.f32("x1", N)?, N);
    let x2 = col_sums(a, i.f32("y_2", N)?, i.f32("x2", N)?);
    Ok(outputs([
        ("x1", HostData::F32(x1)),
        ("x2", HostData::F32(x2)),
    ]))
}
