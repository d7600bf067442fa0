//! `pathfinder`: min-cost DP over a rows x cols int grid, a few rows per launch (`ci`: 65 x 2048,
//! 4 launches of 16 rows; res_a ends with row 64, res_b with row 48); integer, exact.
//!
//! `pathfinder_init` copies row 0 into its destination; each `pathfinder_rows` launch advances
//! its source row by `steps` rows (argument 5) from row `first_row` (argument 4) into its
//! destination. A block of 256 threads writes the 256 - 2 steps columns of its ghost-zone
//! pyramid, so a launch writes columns 0 .. min(cols, blocks x (256 - 2 steps)); the reference
//! writes the same columns.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Threads per block (`PB` in pathfinder.cu).
pub const PB: usize = 256;

/// Integers: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[];

/// The DP row after `prev` (row r - 1) given row r of the wall.
fn next_row(prev: &[i32], wall_row: &[i32]) -> Vec<i32> {
    let cols = prev.len();
    (0..cols)
        .map(|c| {
            let mut best = prev[c];
            if c > 0 {
                best = best.min(prev[c - 1]);
            }
            if c + 1 < cols {
                best = best.min(prev[c + 1]);
            }
            wall_row[c].wrapping_add(best)
        })
        .collect()
}

/// DP rows 0 ..= last: returns every row's best costs.
#[cfg(test)]
fn dp(wall: &[i32], rows: usize, cols: usize) -> Vec<Vec<i32>> {
    let mut out = vec![wall[..cols].to_vec()];
    for r in 1..rows {
        let row = next_row(&out[r - 1], &wall[r * cols..(r + 1) * cols]);
        out.push(row);
    }
    out
}

/// Reference for every size of `pathfinder`: the launches replayed on `res_a` / `res_b`.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let a = LaunchArgs::new("pathfinder", spec);
    a.expect_kernel(0, "pathfinder_init")?;
    let cols = a.int(0, 2, 1)?;
    let i = Inputs::new("pathfinder", inputs);
    let wall_len = i.len_of("wall")?;
    if wall_len % cols != 0 {
        return Err(a.launch_error(
            0,
            format!("wall has {wall_len} elements, not whole rows of {cols}"),
        ));
    }
    let rows = wall_len / cols;
    let wall = i.i32("wall", rows * cols)?;
    let mut res = [
        i.i32("res_a", cols)?.to_vec(),
        i.i32("res_b", cols)?.to_vec(),
    ];
    let slot = |l: usize, arg: usize| -> Result<usize, WorkloadError> {
        match a.buffer(l, arg)? {
            "res_a" => Ok(0),
            "res_b" => Ok(1),
            other => Err(a.launch_error(
                l,
                format!("argument {arg} is {other:?}; the rows ping-pong res_a and res_b"),
            )),
        }
    };
    let covered = |l: usize, per_block: usize| -> usize {
        let blocks = a.dims(l).map_or(0, |(g, _)| g[0] as usize);
        cols.min(blocks * per_block)
    };
    let dst = slot(0, 1)?;
    let n = covered(0, PB);
    res[dst][..n].copy_from_slice(&wall[..n]);
    for l in 1..a.launches() {
        a.expect_kernel(l, "pathfinder_rows")?;
        if a.int(l, 3, 1)? != cols {
            return Err(a.launch_error(l, format!("argument 3 must be cols = {cols}")));
        }
        let (src, dst) = (slot(l, 1)?, slot(l, 2)?);
        let (first, steps) = (a.int(l, 4, 1)?, a.int(l, 5, 1)?);
        if src == dst || 2 * steps >= PB || first + steps > rows {
            return Err(a.launch_error(
                l,
                format!(
                    "rows {first}..{} from {} into {} (the wall has {rows} rows; steps < {})",
                    first + steps,
                    a.buffer(l, 1)?,
                    a.buffer(l, 2)?,
                    PB / 2
                ),
            ));
        }
        let mut row = res[src].clone();
        for r in first..first + steps {
            row = next_row(&row, &wall[r * cols..(r + 1) * cols]);
        }
        let n = covered(l, PB - 2 * steps);
        res[dst][..n].copy_from_slice(&row[..n]);
    }
    let [res_a, res_b] = res;
    Ok(outputs([
        ("res_a", HostData::I32(res_a)),
        ("res_b", HostData::I32(res_b)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows x columns of the `ci` spec.
    const ROWS: usize = 65;
    const COLS: usize = 2048;

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

    #[test]
    fn launches_replay_the_dp() {
        let spec = crate::refs::ci_spec("pathfinder");
        let init = spec.initial_buffers();
        let HostData::I32(wall) = &init["wall"] else {
            panic!("dtype")
        };
        let rows = dp(wall, ROWS, COLS);
        let out = reference(&init, &spec).unwrap();
        assert_eq!(out["res_a"], HostData::I32(rows[64].clone()));
        assert_eq!(out["res_b"], HostData::I32(rows[48].clone()));
        // a grid one block short leaves the last columns of the destination untouched
        let mut short = spec.clone();
        short.launches[4].grid[0] -= 1;
        let HostData::I32(a) = &reference(&init, &short).unwrap()["res_a"] else {
            panic!("dtype")
        };
        let written = (short.launches[4].grid[0] as usize) * (PB - 32);
        assert_eq!(a[..written], rows[64][..written]);
        assert_eq!(a[written..], rows[32][written..]); // res_a held row 32 before
    }

    #[test]
    fn wrong_sizes_are_errors() {
        let spec = crate::refs::ci_spec("pathfinder");
        let mut bad = spec.initial_buffers();
        bad.insert("res_b".into(), HostData::I32(vec![0; COLS + 1]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected: COLS, .. })
        ));
        let mut bad = spec.initial_buffers();
        bad.insert("wall".into(), HostData::I32(vec![0; COLS * 3 + 1]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::Launch { launch: 0, .. })
        ));
        // rows beyond the wall
        let mut deep = spec.clone();
        deep.launches[4].args[4] = regwatt_sim::launch::LaunchArg::Int(60);
        assert!(matches!(
            reference(&spec.initial_buffers(), &deep),
            Err(WorkloadError::Launch { launch: 4, .. })
        ));
    }
}
