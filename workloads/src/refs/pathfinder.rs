//! `pathfinder`: min-cost DP over a 65 x 2048 int grid; integer, exact.
//! res_a ends with row 64, res_b with row 48 (the launches ping-pong 16 rows at a time).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Rows of `wall` (row 0 is the start row).
pub const ROWS: usize = 65;
/// Columns.
pub const COLS: usize = 2048;

/// Integers: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[];

/// DP rows 0 ..= last: returns every row's best costs.
pub fn dp(wall: &[i32], rows: usize, cols: usize) -> Vec<Vec<i32>> {
    let mut out = vec![wall[..cols].to_vec()];
    for r in 1..rows {
        let prev = &out[r - 1];
        let row = (0..cols)
            .map(|c| {
                let mut best = prev[c];
                if c > 0 {
                    best = best.min(prev[c - 1]);
                }
                if c + 1 < cols {
                    best = best.min(prev[c + 1]);
                }
                wall[r * cols + c].wrapping_add(best)
            })
            .collect();
        out.push(row);
    }
    out
}

/// Reference for the spec in `pathfinder.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("pathfinder", inputs);
    let rows = dp(i.i32("wall", ROWS * COLS)?, ROWS, COLS);
    Ok(outputs([
        ("res_a", HostData::I32(rows[64].clone())),
        ("res_b", HostData::I32(rows[48].clone())),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_by_three() {
        #[rustfmt::skip]
        let wall = [1, 5, 2,
                    3, 1, 4,
                    2, 2, 9];
        let rows = dp(&wall, 3, 3);
        assert_eq!(rows[1], vec![4, 2, 6]);
        assert_eq!(rows[2], vec![4, 4, 11]);
    }
}
