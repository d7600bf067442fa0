//! `mvt`: `x1 += A y_1` (`mvt_kernel1`, one thread per row) and `x2 += A^T y_2` (`mvt_kernel2`, one
//! thread per column of A), A n x n (launch argument 3; ci: n = 400), onto the buffers' initial
//! contents with fused steps in loop order ([`super::polybench`]).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::polybench::{col_sums, row_sums, sizes, MATVEC};
use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// See [`MATVEC`].
pub const TOLERANCES: &[(&str, Tolerance)] = &[("x1", MATVEC), ("x2", MATVEC)];

/// Reference for every size: n is argument 3 of both launches.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let [n] = sizes("mvt", spec, [3])?;
    let i = Inputs::new("mvt", inputs);
    let a = i.f32("a", n * n)?;
    let x1 = row_sums(a, i.f32("y_1", n)?, i.f32("x1", n)?, n);
    let x2 = col_sums(a, i.f32("y_2", n)?, i.f32("x2", n)?);
    Ok(outputs([
        ("x1", HostData::F32(x1)),
        ("x2", HostData::F32(x2)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_sim::launch::LaunchArg;

    #[test]
    fn side_comes_from_the_spec() {
        // A = [1 2; 3 4]: x1 = [1 1] + A [1 -1], x2 = [0 0] + A^T [1 1]
        let mut spec = crate::refs::ci_spec("mvt");
        for l in &mut spec.launches {
            l.args[3] = LaunchArg::Int(2);
        }
        let v = |x: &[f32]| HostData::F32(x.to_vec());
        let b = crate::refs::buffers([
            ("a", v(&[1.0, 2.0, 3.0, 4.0])),
            ("x1", v(&[1.0, 1.0])),
            ("x2", v(&[0.0, 0.0])),
            ("y_1", v(&[1.0, -1.0])),
            ("y_2", v(&[1.0, 1.0])),
        ]);
        let out = reference(&b, &spec).unwrap();
        assert_eq!((&out["x1"], &out["x2"]), (&v(&[0.0, 0.0]), &v(&[4.0, 6.0])));
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("mvt")),
            Err(WorkloadError::InputLength {
                expected: 160000,
                actual: 4,
                ..
            })
        ));
    }
}
