//! `bfs`: level-synchronous BFS from a source vertex over the CSR graph in `row_ptr`/`col`.
//!
//! The launch sequence is init, then (expand, commit) for levels 0 .. L-1 where L is the length
//! of `changed`. The reference runs the same level loop on plain arrays: expansion stops once a
//! level reached nothing new (`changed[level-1] == 0`). All integer: exact.
//!
//! The vertex count and the source are `bfs_init`'s arguments 4 and 5; every expand/commit pair
//! must pass the same count and its level in order.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Vertices of the `ci` spec.
#[cfg(test)]
const N: usize = 4096;

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

/// Reference for every size of `bfs`: n and the source from `bfs_init`, one level per
/// expand/commit pair (as many as `changed` has elements).
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let a = LaunchArgs::new("bfs", spec);
    a.expect_kernel(0, "bfs_init")?;
    let (n, source) = (a.int(0, 4, 1)?, a.int(0, 5, 0)?);
    if source >= n {
        return Err(a.launch_error(0, format!("source {source} is not a vertex of 0..{n}")));
    }
    let i = Inputs::new("bfs", inputs);
    let row_ptr = i.i32("row_ptr", n + 1)?;
    let col = i.i32("col", i.len_of("col")?)?;
    let changed = i.i32("changed", i.len_of("changed")?)?;
    for name in ["mask", "updating", "visited"] {
        i.u8(name, n)?;
    }
    i.i32("cost", n)?;
    let levels = changed.len();
    if a.launches() != 1 + 2 * levels {
        return Err(a.launch_error(
            a.launches().min(1 + 2 * levels),
            format!(
                "the spec has {} launches; `changed` has {levels} levels, which take init + {levels} x (expand, commit)",
                a.launches()
            ),
        ));
    }
    for level in 0..levels {
        for (l, kernel, n_arg, level_arg) in [
            (1 + 2 * level, "bfs_expand", 7, 8),
            (2 + 2 * level, "bfs_commit", 4, 5),
        ] {
            a.expect_kernel(l, kernel)?;
            if a.int(l, n_arg, 1)? != n || a.int(l, level_arg, 0)? != level {
                return Err(
                    a.launch_error(l, format!("{kernel} must pass n = {n} and level {level}"))
                );
            }
        }
    }
    if row_ptr[0] != 0 {
        return Err(i.invalid("row_ptr", 0, "must start at 0"));
    }
    for v in 0..n {
        if row_ptr[v + 1] < row_ptr[v] || row_ptr[v + 1] as usize > col.len() {
            return Err(i.invalid(
                "row_ptr",
                v + 1,
                format!("{} is not a valid edge offset", row_ptr[v + 1]),
            ));
        }
    }
    if let Some(e) = col.iter().position(|&c| c < 0 || c as usize >= n) {
        return Err(i.invalid(
            "col",
            e,
            format!("vertex {} is out of range 0..{n}", col[e]),
        ));
    }
    let (mask, updating, visited, cost, changed) = bfs(row_ptr, col, source, changed);
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
    fn sizes_come_from_the_launches() {
        let spec = crate::refs::ci_spec("bfs");
        let init = spec.initial_buffers();
        assert_eq!(reference(&init, &spec).unwrap()["cost"].len(), N);
        // a cost buffer of the wrong length for bfs_init's n
        let mut bad = init.clone();
        bad.insert("cost".into(), HostData::I32(vec![0; N - 1]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected: N, .. })
        ));
        // one level fewer launched than `changed` has
        let mut short = spec.clone();
        short.launches.truncate(short.launches.len() - 2);
        assert!(matches!(
            reference(&init, &short),
            Err(WorkloadError::Launch { .. })
        ));
        // an expand of the wrong level
        let mut swapped = spec.clone();
        swapped.launches.swap(1, 3);
        assert!(matches!(
            reference(&init, &swapped),
            Err(WorkloadError::Launch { launch: 1, .. })
        ));
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
