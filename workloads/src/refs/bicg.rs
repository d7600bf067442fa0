//! `bicg`: `s = A^T r` (`bicg_kernel1`, one thread per column) and `q = A p` (`bicg_kernel2`, one
//! thread per row), A nx x ny (launch arguments 3 and 4; ci: 410 x 390). Each kernel zeroes its
//! element first (the spec starts `s` and `q` non-zero), then fused steps in loop order
//! ([`super::polybench`]).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::polybench::{col_sums, row_sums, sizes, MATVEC};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// See [`MATVEC`].
pub const TOLERANCES: &[(&str, Tolerance)] = &[("s", MATVEC), ("q", MATVEC)];

/// Reference for every size: nx and ny are arguments 3 and 4 of both launches.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let [nx, ny] = sizes("bicg", spec, [3, 4])?;
    let i = Inputs::new("bicg", inputs);
    let a = i.f32("A", nx * ny)?;
    // the old contents are overwritten, but must be there (the spec's buffers)
    i.f32("s", ny)?;
    i.f32("q", nx)?;
    let s = col_sums(a, i.f32("r", nx)?, &vec![0.0; ny]);
    let q = row_sums(a, i.f32("p", ny)?, &vec![0.0; nx], ny);
    Ok(outputs([("s", HostData::F32(s)), ("q", HostData::F32(q))]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_sim::launch::LaunchArg;

    #[test]
    fn shape_comes_from_the_spec() {
        // A = [1 2 3; 4 5 6] (nx = 2, ny = 3): s = A^T [1 -1], q = A [1 0 -1]
        let mut spec = crate::refs::ci_spec("bicg");
        for l in &mut spec.launches {
            (l.args[3], l.args[4]) = (LaunchArg::Int(2), LaunchArg::Int(3));
        }
        let b = crate::refs::buffers([
            ("A", HostData::F32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
            ("r", HostData::F32(vec![1.0, -1.0])),
            ("p", HostData::F32(vec![1.0, 0.0, -1.0])),
            ("s", HostData::F32(vec![5.0; 3])),
            ("q", HostData::F32(vec![5.0; 2])),
        ]);
        let out = reference(&b, &spec).unwrap();
        assert_eq!(out["s"], HostData::F32(vec![-3.0, -3.0, -3.0]));
        assert_eq!(out["q"], HostData::F32(vec![-2.0, -2.0]));
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("bicg")),
            Err(WorkloadError::InputLength {
                expected: 159900,
                actual: 6,
                ..
            })
        ));
    }
}
