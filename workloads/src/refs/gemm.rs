//! `gemm`: `C = alpha A B + beta C`, A ni x nk, B nk x nj, C ni x nj (row-major; alpha, beta, ni,
//! nj, nk are launch arguments 3 to 7; ci: 96 x 64 x 64), as
//! [`scaled_update`] with `x = A`, `y = B` (one `mul` for `beta`, then `fma(alpha a, b, c)` in k
//! order).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::polybench::{scaled_update, sizes, SCALED};
use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// See [`SCALED`].
pub const TOLERANCES: &[(&str, Tolerance)] = &[("c", SCALED)];

/// Reference for every size: alpha and beta (`float` parameters: rounded to f32) and ni, nj, nk
/// from the launch.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let args = LaunchArgs::new("gemm", spec);
    let (alpha, beta) = (args.float(0, 3)? as f32, args.float(0, 4)? as f32);
    let [ni, nj, nk] = sizes("gemm", spec, [5, 6, 7])?;
    let i = Inputs::new("gemm", inputs);
    let (a, b) = (i.f32("a", ni * nk)?, i.f32("b", nk * nj)?);
    let c = scaled_update(
        i.f32("c", ni * nj)?,
        (alpha, beta),
        (nj, nk),
        |r, k| a[r * nk + k],
        |k, col| b[k * nj + col],
    );
    Ok(outputs([("c", HostData::F32(c))]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_sim::launch::LaunchArg;

    #[test]
    fn shape_and_constants_come_from_the_spec() {
        // C = 2 [1 2] [3; 4] + 10 [1] = [32] (ni = nj = 1, nk = 2)
        let mut spec = crate::refs::ci_spec("gemm");
        let args = &mut spec.launches[0].args;
        (args[3], args[4]) = (LaunchArg::Float(2.0), LaunchArg::Float(10.0));
        (args[5], args[6], args[7]) = (LaunchArg::Int(1), LaunchArg::Int(1), LaunchArg::Int(2));
        let b = crate::refs::buffers([
            ("a", HostData::F32(vec![1.0, 2.0])),
            ("b", HostData::F32(vec![3.0, 4.0])),
            ("c", HostData::F32(vec![1.0])),
        ]);
        assert_eq!(
            reference(&b, &spec).unwrap()["c"],
            HostData::F32(vec![32.0])
        );
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("gemm")),
            Err(WorkloadError::InputLength {
                expected: 6144,
                actual: 2,
                ..
            })
        ));
    }
}
