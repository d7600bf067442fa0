//! `transpose`: out = in^T for a 256 x 192 (rows x cols) matrix; data movement only, exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Rows of `in`.
pub const ROWS: usize = 256;
/// Columns of `in`.
pub const COLS: usize = 192;

/// Pure copies: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[("out", Tolerance::Exact)];

/// Row-major transpose of a rows x cols matrix.
pub fn transpose(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = x[r * cols + c];
        }
    }
    out
}

/// Reference for the spec in `transpose.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("transpose", inputs);
    Ok(outputs([(
        "out",
        HostData::F32(transpose(i.f32("in", ROWS * COLS)?, ROWS, COLS)),
    )]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_by_three() {
        assert_eq!(
            transpose(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3),
            vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );
    }
}
