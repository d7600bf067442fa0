//! `atax`: `tmp = A x` (`atax_kernel1`, one thread per row), then `y = A^T tmp` (`atax_kernel2`,
//! one thread per column), A 390 x 410. Both accumulate onto the buffers' initial contents (the
//! spec zero-fills them) with fused steps in loop order ([`super::polybench`]).
//!
//! `y` sums 390 products with `tmp` (|tmp| up to ~22), so its partial sums reach ~350 (ulp
//! ~3e-5) and it inherits `tmp`'s own rounding differences: the unfused host evaluation is
//! within 1.2e-4 of the fused one, so `y` has an absolute floor of 5e-4 (`tmp`: [`MATVEC`]).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::polybench::{col_sums, row_sums, MATVEC};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Rows of A (spec arg `nx`; PolyBench/C MEDIUM `M`).
pub const NX: usize = 390;
/// Columns of A (spec arg `ny`; PolyBench/C MEDIUM `N`).
pub const NY: usize = 410;

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    ("tmp", MATVEC),
    (
        "y",
        Tolerance::Float {
            abs: 5e-4,
            rel: 1e-5,
        },
    ),
];

/// Reference for the spec in `atax.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("atax", inputs);
    let a = i.f32("A", NX * NY)?;
    let tmp = row_sums(a, i.f32("x", NY)?, i.f32("tmp", NX)?, NY);
    let y = col_sums(a, &tmp, i.f32("y", NY)?);
    Ok(outputs([
        ("tmp", HostData::F32(tmp)),
        ("y", HostData::F32(y)),
    ]))
}
