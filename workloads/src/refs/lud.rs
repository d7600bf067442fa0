//! `lud`: blocked LU decomposition without pivoting of an n x n matrix (`ci`: 128 x 128, uniform
//! in [-1, 1], diagonal shifted by +128 first, so diagonally dominant), 16 x 16 blocks, in place:
//! L (unit lower, below the diagonal) and U (upper, diagonal included) in `a`.
//!
//! n and the shift are `lud_prep`'s arguments 1 and 2; then for each diagonal block s the spec
//! launches `lud_diagonal`, and, but after the last, `lud_perimeter` and `lud_internal`, each
//! passing n and s.
//!
//! The reference runs the same blocked algorithm as lud.cu, step by step: diagonal block
//! factorisation (right-looking, `l = a[i][k] / a[k][k]` then `fmaf(-l, a[k][j], a[i][j])`),
//! perimeter solves (`fmaf(-L[i][k], U[k][c], v)` in k order; `v / U[j][j]` last for the
//! L blocks) and the trailing update (`p = l0 u0` then `fmaf(l_k, u_k, p)`, `a - p`), with the
//! same operands in the same order, `f32::mul_add` for `fmaf` and correctly rounded division
//! (the PTX has `fma.rn`, `div.rn`, one `mul` and one `sub`: no further contraction). Results are
//! therefore bit-identical in practice; the tolerance `abs 2e-6, rel 1e-6` allows a few ulps
//! where it matters (U's diagonal ~128: 9 ulps; U off the diagonal ~1: ~25 ulps; L ~0.01), far
//! below the effect of a missed or repeated update (>= ~1e-4 relative).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Matrix side of the `ci` spec.
#[cfg(test)]
const N: usize = 128;
/// Diagonal shift of the `ci` spec.
#[cfg(test)]
const SHIFT: f32 = 128.0;
/// Block side (`LB` in lud.cu).
pub const BS: usize = 16;

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[(
    "a",
    Tolerance::Float {
        abs: 2e-6,
        rel: 1e-6,
    },
)];

/// Element (i, j) of block (bi, bj) of the row-major n x n matrix.
fn at(n: usize, bi: usize, bj: usize, i: usize, j: usize) -> usize {
    (bi * BS + i) * n + bj * BS + j
}

/// `lud_diagonal`: factors block (s, s) in place (right-looking Doolittle).
fn diagonal(a: &mut [f32], n: usize, s: usize) {
    let ix = |i, j| at(n, s, s, i, j);
    for k in 0..BS - 1 {
        for r in k + 1..BS {
            let l = a[ix(r, k)] / a[ix(k, k)];
            a[ix(r, k)] = l;
            for j in k + 1..BS {
                a[ix(r, j)] = (-l).mul_add(a[ix(k, j)], a[ix(r, j)]);
            }
        }
    }
}

/// `lud_perimeter`: U blocks (s, b) and L blocks (b, s) for every b > s.
fn perimeter(a: &mut [f32], n: usize, s: usize) {
    let nb = n / BS;
    let dg = |a: &[f32], i, j| a[at(n, s, s, i, j)];
    for b in s + 1..nb {
        // U_sb: forward substitution with the unit lower triangle, one column at a time
        for c in 0..BS {
            for i in 1..BS {
                let mut v = a[at(n, s, b, i, c)];
                for k in 0..i {
                    v = (-dg(a, i, k)).mul_add(a[at(n, s, b, k, c)], v);
                }
                a[at(n, s, b, i, c)] = v;
            }
        }
        // L_bs: x U_ss = a, one row at a time
        for r in 0..BS {
            for j in 0..BS {
                let mut v = a[at(n, b, s, r, j)];
                for k in 0..j {
                    v = (-a[at(n, b, s, r, k)]).mul_add(dg(a, k, j), v);
                }
                a[at(n, b, s, r, j)] = v / dg(a, j, j);
            }
        }
    }
}

/// `lud_internal`: A_ij -= L_is U_sj for every trailing block (i, j), i, j > s.
fn internal(a: &mut [f32], n: usize, s: usize) {
    let nb = n / BS;
    for bi in s + 1..nb {
        for bj in s + 1..nb {
            for y in 0..BS {
                for x in 0..BS {
                    let mut p = a[at(n, bi, s, y, 0)] * a[at(n, s, bj, 0, x)];
                    for k in 1..BS {
                        p = a[at(n, bi, s, y, k)].mul_add(a[at(n, s, bj, k, x)], p);
                    }
                    a[at(n, bi, bj, y, x)] -= p;
                }
            }
        }
    }
}

/// Blocked LU of the n x n matrix `a` (n a multiple of 16) in place, in the kernels' order.
pub fn lu_blocked(a: &mut [f32], n: usize) {
    let nb = n / BS;
    for s in 0..nb {
        diagonal(a, n, s);
        if s + 1 < nb {
            perimeter(a, n, s);
            internal(a, n, s);
        }
    }
}

/// Reference for every size of `lud`: prep, then the blocked steps as launched.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let args = LaunchArgs::new("lud", spec);
    args.expect_kernel(0, "lud_prep")?;
    let n = args.int(0, 1, 1)?;
    let shift = args.float(0, 2)? as f32;
    if n % BS != 0 {
        return Err(args.launch_error(0, format!("n = {n} is not a multiple of {BS}")));
    }
    let nb = n / BS;
    let mut l = 1;
    for s in 0..nb {
        let kernels: &[&str] = if s + 1 < nb {
            &["lud_diagonal", "lud_perimeter", "lud_internal"]
        } else {
            &["lud_diagonal"]
        };
        for kernel in kernels {
            args.expect_kernel(l, kernel)?;
            if args.int(l, 1, 1)? != n || args.int(l, 2, 0)? != s {
                return Err(args.launch_error(l, format!("{kernel} must pass n = {n} and s = {s}")));
            }
            l += 1;
        }
    }
    if args.launches() != l {
        return Err(args.launch_error(
            l,
            format!(
                "the spec has {} launches; n = {n} takes {l}",
                args.launches()
            ),
        ));
    }
    let i = Inputs::new("lud", inputs);
    let mut a = i.f32("a", n * n)?.to_vec();
    for d in 0..n {
        a[d * n + d] += shift;
    }
    lu_blocked(&mut a, n);
    Ok(outputs([("a", HostData::F32(a))]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// L * U in f64 from the packed in-place result.
    fn multiply_back(lu: &[f32], n: usize) -> Vec<f64> {
        let mut out = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                let mut s = 0.0;
                for k in 0..=i.min(j) {
                    let l = if k == i { 1.0 } else { lu[i * n + k] as f64 };
                    s += l * lu[k * n + j] as f64;
                }
                out[i * n + j] = s;
            }
        }
        out
    }

    #[test]
    fn blocked_lu_reproduces_the_matrix() {
        // 48 x 48 (three block steps), small integers + a dominant diagonal
        let n = 48;
        let mut a: Vec<f32> = (0..n * n)
            .map(|k| ((k * 7919 % 13) as f32 - 6.0) / 4.0)
            .collect();
        for d in 0..n {
            a[d * n + d] += 48.0;
        }
        let orig = a.clone();
        lu_blocked(&mut a, n);
        let back = multiply_back(&a, n);
        for (k, (x, y)) in orig.iter().zip(&back).enumerate() {
            assert!(
                (*x as f64 - y).abs() < 1e-4,
                "[{}][{}]: {x} vs {y}",
                k / n,
                k % n
            );
        }
    }

    #[test]
    fn one_block_matches_hand_factorisation() {
        // 16 x 16 identity + a rank-one corner: a[0][0] = 2, a[i][0] = 4 (i > 0), a[0][j] = 6
        let n = 16;
        let mut a = vec![0.0f32; n * n];
        for d in 0..n {
            a[d * n + d] = 1.0;
        }
        a[0] = 2.0;
        for i in 1..n {
            a[i * n] = 4.0;
            a[i] = 6.0;
        }
        // first step: L[i][0] = 4 / 2, U[0][j] = 6, and the trailing entries become
        // delta_ij - 2 * 6, so U[1][1] = -11
        let orig = a.clone();
        lu_blocked(&mut a, n);
        assert_eq!(a[n], 2.0); // l_10 = 4 / 2
        assert_eq!(a[n + 1], 1.0 - 2.0 * 6.0); // u_11
        let back = multiply_back(&a, n);
        for (x, y) in orig.iter().zip(&back) {
            assert!((*x as f64 - y).abs() < 1e-5);
        }
    }

    #[test]
    fn spec_matrix_factorises_accurately() {
        let w = crate::find("lud").unwrap();
        let init = w.load_spec(crate::Size::Ci).unwrap().initial_buffers();
        let HostData::F32(a0) = &init["a"] else {
            panic!("dtype")
        };
        let out = w.reference(&init, &crate::refs::ci_spec("lud")).unwrap();
        let HostData::F32(lu) = &out["a"] else {
            panic!("dtype")
        };
        let back = multiply_back(lu, N);
        for i in 0..N {
            for j in 0..N {
                let want = a0[i * N + j] as f64 + if i == j { SHIFT as f64 } else { 0.0 };
                assert!((back[i * N + j] - want).abs() < 1e-4, "[{i}][{j}]");
            }
        }
    }

    #[test]
    fn sizes_come_from_the_launches() {
        let spec = crate::refs::ci_spec("lud");
        let init = spec.initial_buffers();
        let mut bad = init.clone();
        bad.insert("a".into(), HostData::F32(vec![0.0; N * N / 2]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected, .. }) if expected == N * N
        ));
        // the last step missing, or one step's internal update skipped
        let mut short = spec.clone();
        short.launches.pop();
        assert!(matches!(
            reference(&init, &short),
            Err(WorkloadError::Launch { .. })
        ));
        let mut skipped = spec.clone();
        skipped.launches.remove(3);
        assert!(matches!(
            reference(&init, &skipped),
            Err(WorkloadError::Launch { launch: 3, .. })
        ));
    }
}
