//! `bfs`: level-synchronous BFS from vertex 0 over the CSR graph in `row_ptr`/`col`.
//!
//! The launch sequence is init, then (expand, commit) for levels 0 .. L-1 where L is the length
//! of `changed`. The reference runs the same level loop on plain arrays: expansion stops once a
//! level reached nothing new (`changed[level-1] == 0`). All integer: exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Vertices.
pub const N: usize = 4096;
/// Source vertex (spec arg of `bfs_init`).
pub const SOURCE: usize = 0;

/// Integers: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[];

/// Final (mask, updating, visited, cost, changed) after `levels` level steps.
#[allow(clippy::type_complexity)]
pub fn bfs(
    row_ptr: &[i32],
    col: &[i32],
    source: usize,
    changed_init: &[i32],
) -> (Vec<u8>, Vec<u8>, Vec<u8>, Vec<i32>, Vec<i32>) {
    let n = row_ptr.len() - 1;
    let mut mask = vec![0u8; n];
    let mut updating = vec![0u8; n];
    let mut visited = vec![0u8; n];
    let mut cost = vec![-1i32; n];
    let mut changed = changed_init.to_vec();
    mask[source] = 1;
    visited[source] = 1;
    cost[source] = 0;
    for level in 0..changed.len() {
        if level == 0 || changed[level - 1] != 0 {
            for v in 0..n {
                if mask[v] == 0 {
                    continue;
                }
                mask[v] = 0;
                for &nb in &col[row_ptr[v] as usize..row_ptr[v + 1] as usize] {
                    let nb = nb as usize;
                    if visited[nb] == 0 {
                        cost[nb] = cost[v] + 1;
                        updating[nb] = 1;
                    }
                }
            }
        }
        for v in 0..n {
            if updating[v] != 0 {
                mask[v] = 1;
                visited[v] = 1;
                updating[v] = 0;
                changed[level] = 1;
            }
        }
    }
    (mask, updating, visited, cost, changed)
}

/// Reference for the spec in `bfs.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("bfs", inputs);
    let row_ptr = i.i32("row_ptr", N + 1)?;
    let col = i.i32("col", i.len_of("col")?)?;
    let changed = i.i32("changed", i.len_of("changed")?)?;
    if row_ptr[0] != 0 {
        return Err(i.invalid("row_ptr", 0, "must start at 0"));
    }
    for v in 0..N {
        if row_ptr[v + 1] < row_ptr[v] || row_ptr[v + 1] as usize > col.len() {
            return Err(i.invalid(
                "row_ptr",
                v + 1,
                format!("{} is not a valid edge offset", row_ptr[v + 1]),
            ));
        }
    }
    if let Some(e) = col.iter().position(|&c| c < 0 || c as usize >= N) {
        return Err(i.invalid(
            "col",
            e,
            format!("vertex {} is out of range 0..{N}", col[e]),
        ));
    }
    let (mask, updating, visited, cost, changed) = bfs(row_ptr, col, SOURCE, changed);
    Ok(outputs([
        ("mask", HostData::U8(mask)),
        ("updating", HostData::U8(updating)),
        ("visited", HostData::U8(visited)),
        ("cost", HostData::I32(cost)),
        ("changed", HostData::I32(changed)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    // 0 -> 1 -> 2 -> 3, 0 -> 2, vertex 4 unreachable (edge 4 -> 0 only)
    const ROW: [i32; 6] = [0, 2, 3, 4, 4, 5];
    const COL: [i32; 5] = [1, 2, 2, 3, 0];

    #[test]
    fn levels_costs_and_flags() {
        let (mask, upd, vis, cost, changed) = bfs(&ROW, &COL, 0, &[0; 5]);
        assert_eq!(cost, vec![0, 1, 1, 2, -1]);
        assert_eq!(vis, vec![1, 1, 1, 1, 0]);
        assert_eq!(changed, vec![1, 1, 0, 0, 0]);
        assert_eq!(mask, vec![0; 5]);
        assert_eq!(upd, vec![0; 5]);
    }

    #[test]
    fn too_few_levels_leave_the_frontier() {
        let (mask, _, vis, cost, changed) = bfs(&ROW, &COL, 0, &[0; 1]);
        assert_eq!(cost, vec![0, 1, 1, -1, -1]);
        assert_eq!(mask, vec![0, 1, 1, 0, 0]);
        assert_eq!(vis, vec![1, 1, 1, 0, 0]);
        assert_eq!(changed, vec![1]);
    }
}
