//! Shared SGEMM reference for `matrixMul_naive` and `matrixMul_tiled`.
//!
//! Both kernels accumulate `acc = fmaf(A[r][k], B[k][c], acc)` for k = 0 .. n-1 from 0, so the
//! reference uses the same fused chain: results should be bit-identical; the tolerance of a few
//! ulps only absorbs nothing-but-rounding differences and still fails if FMA were split.

use crate::Tolerance;

/// Matrix side (spec: `n = 128`).
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
}
