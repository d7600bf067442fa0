//! Shared SGEMM reference for `matrixMul_naive` and `matrixMul_tiled`.
//!
//! Both kernels accumulate `acc = fmaf(A[r][k], B[k][c], acc)` for k = 0 .. n-1 from 0, so the
//! reference uses the same fused chain: results should be bit-identical; the tolerance of a few
//! ulps only absorbs nothing-but-rounding differences and still fails if FMA were split.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Matrix side of the `ci` specs (`n = 128`).
#[cfg(test)]
pub const N: usize = 128;

/// Per-buffer tolerances shared by both matrix-multiply workloads.
pub const TOLERANCES: &[(&str, Tolerance)] = &[(
    "C",
    Tolerance::Float {
        abs: 1e-6,
        rel: 1e-6,
    },
)];

/// C = A * B for row-major n x n matrices with a k-ordered FMA chain.
pub fn matmul(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for r in 0..n {
        for col in 0..n {
            let mut acc = 0.0f32;
            for k in 0..n {
                acc = a[r * n + k].mul_add(b[k * n + col], acc);
            }
            c[r * n + col] = acc;
        }
    }
    c
}

/// Reference of both matrix-multiply workloads at every size: `n` is the launch's argument 3,
/// A and B must hold `n * n` elements. `tile` is the kernel's shared tile side (the tiled
/// kernel has no bounds guard, so `n` must be a multiple of it); `None` for the naive kernel.
pub fn reference(
    workload: &'static str,
    tile: Option<usize>,
    inputs: &Buffers,
    spec: &LaunchSpec,
) -> Result<Buffers, WorkloadError> {
    let n = LaunchArgs::new(workload, spec).int(0, 3, 1)?;
    if let Some(t) = tile.filter(|t| n % t != 0) {
        return Err(WorkloadError::LaunchArg {
            workload,
            launch: 0,
            arg: 3,
            reason: format!("n = {n} is not a multiple of the kernel's {t}x{t} tile"),
        });
    }
    let i = Inputs::new(workload, inputs);
    let c = matmul(i.f32("A", n * n)?, i.f32("B", n * n)?, n);
    Ok(outputs([("C", HostData::F32(c))]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_by_two() {
        // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]
        assert_eq!(
            matmul(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0], 2),
            vec![19.0, 22.0, 43.0, 50.0]
        );
    }

    #[test]
    fn identity_is_neutral() {
        let a = [0.5, -1.0, 2.0, 3.0];
        assert_eq!(matmul(&a, &[1.0, 0.0, 0.0, 1.0], 2), a.to_vec());
    }

    /// The ci spec of `name` with `n` (launch 0, argument 3) replaced.
    fn spec_with_n(name: &str, n: i64) -> LaunchSpec {
        let mut spec = crate::refs::ci_spec(name);
        spec.launches[0].args[3] = regwatt_sim::launch::LaunchArg::Int(n);
        spec
    }

    #[test]
    fn size_comes_from_the_spec() {
        // n = 2 read from the spec: [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]
        let b = crate::refs::buffers([
            ("A", HostData::F32(vec![1.0, 2.0, 3.0, 4.0])),
            ("B", HostData::F32(vec![5.0, 6.0, 7.0, 8.0])),
        ]);
        let out = reference(
            "matrixMul_naive",
            None,
            &b,
            &spec_with_n("matrixMul_naive", 2),
        );
        assert_eq!(
            out.unwrap()["C"],
            HostData::F32(vec![19.0, 22.0, 43.0, 50.0])
        );
        // inputs of the ci size (128 x 128) are the wrong length for n = 2
        let ci = crate::refs::buffers([
            ("A", HostData::F32(vec![0.0; N * N])),
            ("B", HostData::F32(vec![0.0; N * N])),
        ]);
        assert!(matches!(
            reference(
                "matrixMul_naive",
                None,
                &ci,
                &spec_with_n("matrixMul_naive", 2)
            ),
            Err(WorkloadError::InputLength {
                expected: 4,
                actual: 16384,
                ..
            })
        ));
    }

    #[test]
    fn tiled_size_must_be_a_multiple_of_the_tile() {
        let b = crate::refs::buffers([
            ("A", HostData::F32(vec![0.0; 24 * 24])),
            ("B", HostData::F32(vec![0.0; 24 * 24])),
        ]);
        let spec = spec_with_n("matrixMul_tiled", 24);
        assert!(matches!(
            reference("matrixMul_tiled", Some(16), &b, &spec),
            Err(WorkloadError::LaunchArg { arg: 3, .. })
        ));
        // the naive kernel is guarded: any n
        assert!(reference("matrixMul_naive", None, &b, &spec).is_ok());
        // n = 0 is refused
        assert!(matches!(
            reference(
                "matrixMul_naive",
                None,
                &b,
                &spec_with_n("matrixMul_naive", 0)
            ),
            Err(WorkloadError::LaunchArg { arg: 3, .. })
        ));
    }
}
