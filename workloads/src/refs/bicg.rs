//! `bicg`: `s = A^T r` (`bicg_kernel1`, one thread per column) and `q = A p` (`bicg_kernel2`,
//! one thread per row), A 410 x 390. Each kernel zeroes its element first (the spec starts `s`
//! and `q` non-zero), then fused steps in loop order ([`super::polybench`]).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::polybench::{col_sums, row_sums, MATVEC};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Rows of A (spec arg `nx`; PolyBench/C MEDIUM `N`).
pub const NX: usize = 410;
/// Columns of A (spec arg `ny`; PolyBench/C MEDIUM `M`).
pub const NY: usize = 390;

/// See [`MATVEC`].
pub const TOLERANCES: &[(&str, Tolerance)] = &[("s", MATVEC), ("q", MATVEC)];

/// Reference for the spec in `bicg.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("bicg", inputs);
    let a = i.f32("A", NX * NY)?;
    // the old contents are overwritten, but must be there (the spec's buffers)
    i.f32("s", NY)?;
    i.f32("q", NX)?;
    let s = col_sums(a, i.f32("r", NX)?, &[0.0; NY]);
    let q = row_sums(a, i.f32("p", NY)?, &[0.0; NX], NY);
    Ok(outputs([("s", HostData::F32(s)), ("q", HostData::F32(q))]))
}
