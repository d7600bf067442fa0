//! `gaussian`: forward elimination of a 32x32 system (diagonal shifted by +32 first).
//!
//! The compiled kernel computes `a[i][j] - (m * a[t][j])` with a separate multiply and subtract
//! (no FMA; see gaussian.ptx) and `m = a[i][t] / a[t][t]` with a correctly rounded division, in
//! pivot order — the reference does the same, so results should be bit-identical; the tolerance
//! allows a few ulps (|a| <~ 40).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// System size.
pub const N: usize = 32;
/// Diagonal shift of `gauss_prep` (spec arg).
pub const SHIFT: f32 = 32.0;

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

/// Reference for the spec in `gaussian.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("gaussian", inputs);
    let mut a = i.f32("a", N * N)?.to_vec();
    let mut b = i.f32("b", N)?.to_vec();
    let mut m = i.f32("m", N * N)?.to_vec();
    for d in 0..N {
        a[d * N + d] += SHIFT;
    }
    eliminate(&mut a, &mut b, &mut m, N);
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
}
