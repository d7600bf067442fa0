//! `gaussian`: forward elimination of an n x n system (`ci`: 32 x 32, diagonal shifted by +32
//! first). n and the diagonal shift are `gauss_prep`'s arguments 1 and 2; then each pivot
//! t = 0 .. n-2 must be one `gauss_fan1` and one `gauss_fan2` launch passing n and t.
//!
//! The compiled kernel computes `a[i][j] - (m * a[t][j])` with a separate multiply and subtract
//! (no FMA; see gaussian.ptx) and `m = a[i][t] / a[t][t]` with a correctly rounded division, in
//! pivot order — the reference does the same, so results should be bit-identical; the tolerance
//! allows a few ulps (|a| <~ 40).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// System size of the `ci` spec.
#[cfg(test)]
const N: usize = 32;

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    (
        "a",
        Tolerance::Float {
            abs: 1e-5,
            rel: 1e-6,
        },
    ),
    (
        "b",
        Tolerance::Float {
            abs: 1e-5,
            rel: 1e-6,
        },
    ),
    (
        "m",
        Tolerance::Float {
            abs: 1e-6,
            rel: 1e-6,
        },
    ),
];

/// Eliminates below the diagonal in place; `m` receives the multipliers (other entries kept).
pub fn eliminate(a: &mut [f32], b: &mut [f32], m: &mut [f32], n: usize) {
    for t in 0..n.saturating_sub(1) {
        for i in t + 1..n {
            m[i * n + t] = a[i * n + t] / a[t * n + t];
        }
        for i in t + 1..n {
            let mi = m[i * n + t];
            for j in t..n {
                a[i * n + j] -= mi * a[t * n + j];
            }
            b[i] -= mi * b[t];
        }
    }
}

/// Reference for every size of `gaussian`: prep, then fan1 + fan2 per pivot.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let args = LaunchArgs::new("gaussian", spec);
    args.expect_kernel(0, "gauss_prep")?;
    let n = args.int(0, 1, 1)?;
    let shift = args.float(0, 2)? as f32;
    if args.launches() != 2 * n - 1 {
        return Err(args.launch_error(
            args.launches().min(2 * n - 1),
            format!(
                "the spec has {} launches; n = {n} takes prep + {} x (fan1, fan2)",
                args.launches(),
                n - 1
            ),
        ));
    }
    for t in 0..n - 1 {
        for (l, kernel, n_arg) in [(1 + 2 * t, "gauss_fan1", 2), (2 + 2 * t, "gauss_fan2", 3)] {
            args.expect_kernel(l, kernel)?;
            if args.int(l, n_arg, 1)? != n || args.int(l, n_arg + 1, 0)? != t {
                return Err(args.launch_error(l, format!("{kernel} must pass n = {n} and t = {t}")));
            }
        }
    }
    let i = Inputs::new("gaussian", inputs);
    let mut a = i.f32("a", n * n)?.to_vec();
    let mut b = i.f32("b", n)?.to_vec();
    let mut m = i.f32("m", n * n)?.to_vec();
    for d in 0..n {
        a[d * n + d] += shift;
    }
    eliminate(&mut a, &mut b, &mut m, n);
    Ok(outputs([
        ("a", HostData::F32(a)),
        ("b", HostData::F32(b)),
        ("m", HostData::F32(m)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_by_two_and_three_by_three() {
        let (mut a, mut b, mut m) = (vec![2.0, 1.0, 4.0, 5.0], vec![3.0, 6.0], vec![0.0; 4]);
        eliminate(&mut a, &mut b, &mut m, 2);
        assert_eq!(
            (a, b, m),
            (
                vec![2.0, 1.0, 0.0, 3.0],
                vec![3.0, 0.0],
                vec![0.0, 0.0, 2.0, 0.0]
            )
        );

        let mut a = vec![1.0, 1.0, 1.0, 2.0, 3.0, 1.0, 1.0, 3.0, 4.0];
        let (mut b, mut m) = (vec![6.0, 11.0, 19.0], vec![0.0; 9]);
        eliminate(&mut a, &mut b, &mut m, 3);
        // rows: [1 1 1 | 6], [0 1 -1 | -1], [0 0 5 | 15]
        assert_eq!(a, vec![1.0, 1.0, 1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 5.0]);
        assert_eq!(b, vec![6.0, -1.0, 15.0]);
        assert_eq!((m[3], m[6], m[7]), (2.0, 1.0, 2.0));
    }

    #[test]
    fn sizes_come_from_the_launches() {
        let spec = crate::refs::ci_spec("gaussian");
        let init = spec.initial_buffers();
        assert_eq!(reference(&init, &spec).unwrap()["m"].len(), N * N);
        let mut bad = init.clone();
        bad.insert("b".into(), HostData::F32(vec![0.0; N + 1]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected: N, .. })
        ));
        // the last pivot missing
        let mut short = spec.clone();
        short.launches.truncate(short.launches.len() - 2);
        assert!(matches!(
            reference(&init, &short),
            Err(WorkloadError::Launch { .. })
        ));
        // two pivots out of order
        let mut swapped = spec.clone();
        swapped.launches.swap(2, 4);
        assert!(matches!(
            reference(&init, &swapped),
            Err(WorkloadError::Launch { launch: 2, .. })
        ));
    }
}
