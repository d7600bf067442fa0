//! `nw`: Needleman-Wunsch score matrix for two length-n sequences (`ci`: n = 128, match 5,
//! mismatch -3, gap penalty 2); integer, exact.
//!
//! n and the gap penalty are `nw_init`'s arguments 1 and 2; then one `nw_tile` launch per
//! anti-diagonal of 16 x 16 tiles (2 n / 16 - 1 of them, diagonal d passing d as argument 4),
//! each passing n, the penalty, the match score and the mismatch cost (its negation is the
//! mismatch score) as arguments 3, 5, 6 and 7.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Tile side (`NT` in nw.cu).
pub const NT: usize = 16;

/// Integers: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[];

/// The (n+1) x (n+1) score matrix.
pub fn score_matrix(s1: &[u8], s2: &[u8], penalty: i32, matched: i32, mismatched: i32) -> Vec<i32> {
    let (n1, n2) = (s1.len(), s2.len());
    let w = n2 + 1;
    let mut h = vec![0i32; (n1 + 1) * w];
    for i in 0..=n1 {
        h[i * w] = -(i as i32) * penalty;
    }
    for (j, v) in h.iter_mut().take(n2 + 1).enumerate() {
        *v = -(j as i32) * penalty;
    }
    for i in 1..=n1 {
        for j in 1..=n2 {
            let sim = if s1[i - 1] == s2[j - 1] {
                matched
            } else {
                mismatched
            };
            let diag = h[(i - 1) * w + j - 1] + sim;
            let up = h[(i - 1) * w + j] - penalty;
            let left = h[i * w + j - 1] - penalty;
            h[i * w + j] = diag.max(up).max(left);
        }
    }
    h
}

/// Reference for every size of `nw`: init, then every tile diagonal in order.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let a = LaunchArgs::new("nw", spec);
    a.expect_kernel(0, "nw_init")?;
    let (n, penalty) = (a.int(0, 1, 1)?, a.int(0, 2, 0)?);
    if n % NT != 0 {
        return Err(a.launch_error(0, format!("n = {n} is not a multiple of {NT}")));
    }
    let diagonals = 2 * (n / NT) - 1;
    if a.launches() != 1 + diagonals {
        return Err(a.launch_error(
            a.launches().min(1 + diagonals),
            format!(
                "the spec has {} launches; n = {n} takes init + {diagonals} tile diagonals",
                a.launches()
            ),
        ));
    }
    let (matched, mismatch_cost) = (a.int(1, 6, 0)?, a.int(1, 7, 0)?);
    for d in 0..diagonals {
        let l = 1 + d;
        a.expect_kernel(l, "nw_tile")?;
        let got = [3, 4, 5, 6, 7].map(|arg| a.int(l, arg, 0));
        let want = [n, d, penalty, matched, mismatch_cost];
        for (g, w) in got.into_iter().zip(want) {
            if g? != w {
                return Err(a.launch_error(
                    l,
                    format!(
                        "nw_tile must pass n = {n}, diagonal {d}, penalty {penalty}, match {matched}, mismatch cost {mismatch_cost}"
                    ),
                ));
            }
        }
    }
    let i = Inputs::new("nw", inputs);
    i.i32("score", (n + 1) * (n + 1))?;
    let to_i32 = |v: usize| i32::try_from(v).unwrap_or(i32::MAX);
    let h = score_matrix(
        i.u8("s1", n)?,
        i.u8("s2", n)?,
        to_i32(penalty),
        to_i32(matched),
        -to_i32(mismatch_cost),
    );
    Ok(outputs([("score", HostData::I32(h))]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_alignment() {
        // s1 = AC, s2 = AG with match 1, mismatch -1, gap 1:
        //      -  A  G
        //  -   0 -1 -2
        //  A  -1  1  0
        //  C  -2  0  0
        let h = score_matrix(&[0, 1], &[0, 2], 1, 1, -1);
        assert_eq!(h, vec![0, -1, -2, -1, 1, 0, -2, 0, 0]);
    }

    #[test]
    fn sizes_come_from_the_launches() {
        const N: usize = 128;
        let spec = crate::refs::ci_spec("nw");
        let init = spec.initial_buffers();
        assert_eq!(
            reference(&init, &spec).unwrap()["score"].len(),
            (N + 1) * (N + 1)
        );
        let mut bad = init.clone();
        bad.insert("s2".into(), HostData::U8(vec![0; N / 2]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected: N, .. })
        ));
        let mut short = spec.clone();
        short.launches.pop();
        assert!(matches!(
            reference(&init, &short),
            Err(WorkloadError::Launch { .. })
        ));
        let mut other = spec.clone();
        other.launches[5].args[5] = regwatt_sim::launch::LaunchArg::Int(3);
        assert!(matches!(
            reference(&init, &other),
            Err(WorkloadError::Launch { launch: 5, .. })
        ));
    }
}
