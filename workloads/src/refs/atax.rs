//! `atax`: `tmp = A x` (`atax_kernel1`, one thread per row), then `y = A^T tmp` (`atax_kernel2`,
//! one thread per column), A nx x ny (launch arguments 3 and 4; ci: 390 x 410). Both accumulate
//! onto the buffers' initial contents (the spec zero-fills them) with fused steps in loop order
//! ([`super::polybench`]).
//!
//! At ci, `y` sums 390 products with `tmp` (|tmp| up to ~22), so its partial sums reach ~350
//! (ulp ~3e-5) and it inherits `tmp`'s own rounding differences: the unfused host evaluation is
//! within 1.2e-4 of the fused one, so `y` has an absolute floor of 5e-4 (`tmp`: [`MATVEC`]).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::polybench::{col_sums, row_sums, sizes, MATVEC};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

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

/// Reference for every size: nx and ny are arguments 3 and 4 of both launches.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let [nx, ny] = sizes("atax", spec, [3, 4])?;
    let i = Inputs::new("atax", inputs);
    let a = i.f32("A", nx * ny)?;
    let tmp = row_sums(a, i.f32("x", ny)?, i.f32("tmp", nx)?, ny);
    let y = col_sums(a, &tmp, i.f32("y", ny)?);
    Ok(outputs([
        ("tmp", HostData::F32(tmp)),
        ("y", HostData::F32(y)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_sim::launch::LaunchArg;

    #[test]
    fn shape_comes_from_the_spec() {
        // A = [1 2 3; 4 5 6] (nx = 2, ny = 3), x = [1 0 -1]: tmp = [-2 -2], y = A^T tmp
        let mut spec = crate::refs::ci_spec("atax");
        for l in &mut spec.launches {
            (l.args[3], l.args[4]) = (LaunchArg::Int(2), LaunchArg::Int(3));
        }
        let b = crate::refs::buffers([
            ("A", HostData::F32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
            ("x", HostData::F32(vec![1.0, 0.0, -1.0])),
            ("tmp", HostData::F32(vec![0.0; 2])),
            ("y", HostData::F32(vec![0.0; 3])),
        ]);
        let out = reference(&b, &spec).unwrap();
        assert_eq!(out["tmp"], HostData::F32(vec![-2.0, -2.0]));
        assert_eq!(out["y"], HostData::F32(vec![-10.0, -14.0, -18.0]));
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("atax")),
            Err(WorkloadError::InputLength {
                expected: 159900,
                actual: 6,
                ..
            })
        ));
    }
}
