//! `syrk`: `C = alpha A A^T + beta C`, A n x m, C n x n (row-major; alpha, beta, n, m are launch
//! arguments 2 to 5; ci: n = 64, m = 128), as [`scaled_update`]
//! with `x = A`, `y(k, j) = A[j][k]` (one `mul` for `beta`, then `fma(alpha a_ik, a_jk, c)` in k
//! order).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::polybench::{scaled_update, sizes, SCALED};
use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// See [`SCALED`].
pub const TOLERANCES: &[(&str, Tolerance)] = &[("c", SCALED)];

/// Reference for every size: alpha and beta (`float` parameters: rounded to f32) and n, m from
/// the launch.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let args = LaunchArgs::new("syrk", spec);
    let (alpha, beta) = (args.float(0, 2)? as f32, args.float(0, 3)? as f32);
    let [n, m] = sizes("syrk", spec, [4, 5])?;
    let i = Inputs::new("syrk", inputs);
    let a = i.f32("a", n * m)?;
    let c = scaled_update(
        i.f32("c", n * n)?,
        (alpha, beta),
        (n, m),
        |r, k| a[r * m + k],
        |k, col| a[col * m + k],
    );
    Ok(outputs([("c", HostData::F32(c))]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_sim::launch::LaunchArg;

    #[test]
    fn shape_and_constants_come_from_the_spec() {
        // A = [1 2; 3 4] (n = m = 2): C = 2 A A^T + 10 I = [20 22; 22 60]
        let mut spec = crate::refs::ci_spec("syrk");
        let args = &mut spec.launches[0].args;
        (args[2], args[3]) = (LaunchArg::Float(2.0), LaunchArg::Float(10.0));
        (args[4], args[5]) = (LaunchArg::Int(2), LaunchArg::Int(2));
        let b = crate::refs::buffers([
            ("a", HostData::F32(vec![1.0, 2.0, 3.0, 4.0])),
            ("c", HostData::F32(vec![1.0, 0.0, 0.0, 1.0])),
        ]);
        assert_eq!(
            reference(&b, &spec).unwrap()["c"],
            HostData::F32(vec![20.0, 22.0, 22.0, 60.0])
        );
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("syrk")),
            Err(WorkloadError::InputLength {
                expected: 8192,
                actual: 4,
                ..
            })
        ));
    }
}
