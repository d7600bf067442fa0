//! `nw`: Needleman-Wunsch score matrix for two length-128 sequences (match 5, mismatch -3,
//! gap penalty 2); integer, exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Sequence length.
pub const N: usize = 128;
/// Gap penalty (spec arg).
pub const PENALTY: i32 = 2;
/// Score of equal symbols (spec arg).
pub const MATCH: i32 = 5;
/// Score of different symbols (the spec passes its negation, 3, as `mismatch_cost`).
pub const MISMATCH: i32 = -3;

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

/// Reference for the spec in `nw.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("nw", inputs);
    let h = score_matrix(i.u8("s1", N)?, i.u8("s2", N)?, PENALTY, MATCH, MISMATCH);
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
}
