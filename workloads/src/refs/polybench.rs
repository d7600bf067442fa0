//! Shared arithmetic of the PolyBench/GPU workloads (`atax`, `bicg`, `mvt`, `gemm`, `syrk`).
//!
//! The kernels accumulate in their output element in global memory (`out[i] += x * y`, no
//! local accumulator, as the suite's kernels do). NVRTC contracts each step into one
//! `fma.rn.f32` whose addend is the previous partial sum (it forwards the value it stored instead
//! of re-loading it; checked in the committed PTX), so the references chain `f32::mul_add` in the
//! kernels' loop order from the element's starting value: results are bit-identical in practice.
//! `gemm`/`syrk` first scale the element (`c *= beta`, one `mul.f32`), then each step is
//! `fma(alpha * x, y, c)` with the product `alpha * x` rounded on its own (`mul.f32`).
//!
//! The tolerances of the workloads leave room for the same sums evaluated without contraction
//! (the host cross-check, `hostcheck/run.py`, compiles with `-ffp-contract=off`): a product
//! rounded before the add differs by at most half an ulp of the product per step.

use regwatt_sim::launch::LaunchSpec;

use crate::{LaunchArgs, Tolerance, WorkloadError};

/// Tolerance of the matrix-vector workloads' sums of ~400 products of values in [-1, 1] at `ci`
/// (`atax`'s `tmp`, `bicg`, `mvt`; |sum| up to ~30): the unfused evaluation is within 8e-6. The
/// fused references match the kernels bit for bit at every size; the unfused bound holds at
/// `ci` only (the host cross-check's size).
pub const MATVEC: Tolerance = Tolerance::Float {
    abs: 1e-5,
    rel: 1e-5,
};

/// Tolerance of `gemm` and `syrk`, whose |C| reaches ~6e5 at `ci` with PolyBench/GPU's alpha
/// (~1e4-3e4) and beta (~2e3-5e3): relative, with an absolute floor of a few ulps of that scale
/// for elements that cancel; the unfused evaluation is within 0.13 at `ci`.
pub const SCALED: Tolerance = Tolerance::Float {
    abs: 0.05,
    rel: 1e-5,
};

/// `out[i] = init[i]`, then `out[i] = fma(a[i][j], v[j], out[i])` for j = 0 .. cols-1: one
/// thread per row of the row-major `a` (`atax_kernel1`, `bicg_kernel2`, `mvt_kernel1`).
pub fn row_sums(a: &[f32], v: &[f32], init: &[f32], cols: usize) -> Vec<f32> {
    init.iter()
        .enumerate()
        .map(|(i, &acc)| {
            a[i * cols..(i + 1) * cols]
                .iter()
                .zip(v)
                .fold(acc, |acc, (&x, &y)| x.mul_add(y, acc))
        })
        .collect()
}

/// `out[j] = init[j]`, then `out[j] = fma(a[i][j], v[i], out[j])` for i = 0 .. rows-1: one
/// thread per column of the row-major `a` with `init.len()` columns (`atax_kernel2`,
/// `bicg_kernel1`, `mvt_kernel2`).
pub fn col_sums(a: &[f32], v: &[f32], init: &[f32]) -> Vec<f32> {
    let cols = init.len();
    let mut out = init.to_vec();
    for (row, &vi) in a.chunks_exact(cols).zip(v) {
        for (o, &x) in out.iter_mut().zip(row) {
            *o = x.mul_add(vi, *o);
        }
    }
    out
}

/// `c[i][j] = beta * c[i][j]`, then `c[i][j] = fma(alpha * x(i, k), y(k, j), c[i][j])` for
/// k = 0 .. nk-1, for the row-major `ni x nj` matrix `c` (`gemm`: `x = A`, `y = B`; `syrk`:
/// `x = A`, `y = A^T`).
pub fn scaled_update(
    c: &[f32],
    (alpha, beta): (f32, f32),
    (nj, nk): (usize, usize),
    x: impl Fn(usize, usize) -> f32,
    y: impl Fn(usize, usize) -> f32,
) -> Vec<f32> {
    let mut out = c.to_vec();
    for (e, v) in out.iter_mut().enumerate() {
        let (i, j) = (e / nj, e % nj);
        *v = (0..nk).fold(*v * beta, |acc, k| (alpha * x(i, k)).mul_add(y(k, j), acc));
    }
    out
}

/// The whole-number launch arguments at positions `at` of launch 0, which every other launch
/// must pass with the same values (the two-kernel workloads launch both kernels on one matrix).
pub fn sizes<const K: usize>(
    workload: &'static str,
    spec: &LaunchSpec,
    at: [usize; K],
) -> Result<[usize; K], WorkloadError> {
    let args = LaunchArgs::new(workload, spec);
    let mut out = [0; K];
    for (o, &arg) in out.iter_mut().zip(&at) {
        *o = args.int(0, arg, 1)?;
    }
    for launch in 1..args.launches() {
        for (&want, &arg) in out.iter().zip(&at) {
            let got = args.int(launch, arg, 1)?;
            if got != want {
                return Err(WorkloadError::LaunchArg {
                    workload,
                    launch,
                    arg,
                    reason: format!("{got}, launch 0 passes {want}"),
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_vector_sums_by_hand() {
        // A = [1 2 3; 4 5 6]
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        // A [1 0 -1] + [10 20] = [8 18]
        assert_eq!(
            row_sums(&a, &[1.0, 0.0, -1.0], &[10.0, 20.0], 3),
            vec![8.0, 18.0]
        );
        // A^T [1 -1] + [0 1 2] = [-3 -2 -1]
        assert_eq!(
            col_sums(&a, &[1.0, -1.0], &[0.0, 1.0, 2.0]),
            vec![-3.0, -2.0, -1.0]
        );
    }

    #[test]
    fn sums_are_fused_and_in_loop_order() {
        // fused, (1 + 2^-23)(1 - 2^-24) - 1 = 2^-24 - 2^-47 survives; the product rounded
        // first (to 1) would give 0
        let e = f32::EPSILON / 2.0;
        let got = row_sums(&[1.0 + 2.0 * e], &[1.0 - e], &[-1.0], 1)[0];
        assert_eq!(got, (1.0 + 2.0 * e).mul_add(1.0 - e, -1.0));
        assert!(got != 0.0);
        // order: (1e8 + 1) - 1e8 = 0 in f32, while (1e8 - 1e8) + 1 = 1
        let a = [1.0f32, 1e8, -1e8];
        assert_eq!(row_sums(&a, &[1.0; 3], &[0.0], 3)[0], 0.0);
        assert_eq!(col_sums(&a, &[1.0; 3], &[0.0])[0], 0.0);
    }

    #[test]
    fn scaled_update_by_hand() {
        // C = 2 [1 2; 3 4] [1 0; 0 1] + 3 [1 1; 1 1] = [5 7; 9 11]
        let x = [1.0f32, 2.0, 3.0, 4.0];
        let c = scaled_update(
            &[1.0; 4],
            (2.0, 3.0),
            (2, 2),
            |i, k| x[i * 2 + k],
            |k, j| if k == j { 1.0 } else { 0.0 },
        );
        assert_eq!(c, vec![5.0, 7.0, 9.0, 11.0]);
    }

    #[test]
    fn sizes_read_every_launch() {
        use regwatt_sim::launch::LaunchArg;
        let mut spec = crate::refs::ci_spec("atax");
        assert_eq!(sizes("atax", &spec, [3, 4]).unwrap(), [390, 410]);
        spec.launches[1].args[4] = LaunchArg::Int(400);
        assert!(matches!(
            sizes("atax", &spec, [3, 4]),
            Err(WorkloadError::LaunchArg {
                launch: 1,
                arg: 4,
                ..
            })
        ));
        spec.launches[0].args[3] = LaunchArg::Int(0);
        assert!(matches!(
            sizes("atax", &spec, [3, 4]),
            Err(WorkloadError::LaunchArg {
                launch: 0,
                arg: 3,
                ..
            })
        ));
    }
}
