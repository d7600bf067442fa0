//! `scan`: per-block prefix sums of 8192 int32 values (inclusive over 256-element blocks,
//! exclusive over 512-element blocks plus block totals). Integer, exact (wrapping like the GPU).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Elements.
pub const N: usize = 8192;
/// Inclusive-scan segment (threads per block).
pub const INC_SEG: usize = 256;
/// Exclusive-scan segment (two elements per thread).
pub const EXC_SEG: usize = 512;

/// Integers: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[];

/// Inclusive prefix sum restarted every `seg` elements.
pub fn inclusive(x: &[i32], seg: usize) -> Vec<i32> {
    let mut out = Vec::with_capacity(x.len());
    for chunk in x.chunks(seg) {
        let mut acc = 0i32;
        for &v in chunk {
            acc = acc.wrapping_add(v);
            out.push(acc);
        }
    }
    out
}

/// Exclusive prefix sum restarted every `seg` elements, and each segment's total.
pub fn exclusive(x: &[i32], seg: usize) -> (Vec<i32>, Vec<i32>) {
    let mut out = Vec::with_capacity(x.len());
    let mut totals = Vec::new();
    for chunk in x.chunks(seg) {
        let mut acc = 0i32;
        for &v in chunk {
            out.push(acc);
            acc = acc.wrapping_add(v);
        }
        totals.push(acc);
    }
    (out, totals)
}

/// Reference for the spec in `scan.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("scan", inputs);
    let x = i.i32("in", N)?;
    let (exc, sums) = exclusive(x, EXC_SEG);
    Ok(outputs([
        ("out_inc", HostData::I32(inclusive(x, INC_SEG))),
        ("out_exc", HostData::I32(exc)),
        ("block_sums", HostData::I32(sums)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inclusive_restarts_per_segment() {
        assert_eq!(inclusive(&[1, 2, 3, 4, 5], 2), vec![1, 3, 3, 7, 5]);
    }

    #[test]
    fn exclusive_and_totals() {
        assert_eq!(
            exclusive(&[1, 2, 3, 4, 5], 3),
            (vec![0, 1, 3, 0, 4], vec![6, 9])
        );
    }
}
