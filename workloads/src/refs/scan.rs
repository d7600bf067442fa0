//! `scan`: per-block prefix sums of n int32 values: `scan_inclusive` (launch 0) over segments of
//! `blockDim.x` elements, `scan_exclusive` (launch 1) over segments of `2 * blockDim.x` plus the
//! segments' totals (ci: n = 8192, segments of 256 and 512). Integer, exact (wrapping like the
//! GPU).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

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

/// Segment length and block count of launch `launch` (`per_thread` elements per thread, n at
/// argument `arg`): blocks of at most `max` threads in x, a power of two when `pow2` (the
/// Blelloch tree), and a grid that covers n exactly.
fn segments(
    args: &LaunchArgs,
    launch: usize,
    arg: usize,
    (per_thread, max, pow2): (usize, u32, bool),
) -> Result<(usize, usize, usize), WorkloadError> {
    let n = args.int(launch, arg, 1)?;
    let bad = |reason: String| WorkloadError::LaunchArg {
        workload: "scan",
        launch,
        arg,
        reason,
    };
    let ([grid, gy, gz], [block, by, bz]) =
        args.dims(launch).ok_or_else(|| bad("no launch".into()))?;
    if block == 0 || block > max || (pow2 && !block.is_power_of_two()) || by * bz != 1 {
        return Err(bad(format!(
            "the kernel's shared array takes blocks of at most {max} threads in x{}, the launch has {block}x{by}x{bz}",
            if pow2 { " (a power of two)" } else { "" }
        )));
    }
    let seg = per_thread * block as usize;
    let blocks = n.div_ceil(seg);
    if grid as usize != blocks || gy * gz != 1 {
        return Err(bad(format!(
            "n = {n} in segments of {seg} needs {blocks} blocks, the launch has {grid}x{gy}x{gz}"
        )));
    }
    Ok((n, seg, blocks))
}

/// Reference for every size: n is argument 2 of launch 0 (`scan_inclusive`) and argument 3 of
/// launch 1 (`scan_exclusive`), the same n; `in`, `out_inc` and `out_exc` hold n elements and
/// `block_sums` one total per exclusive-scan block.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let args = LaunchArgs::new("scan", spec);
    let (n, inc_seg, _) = segments(&args, 0, 2, (1, 256, false))?;
    let (n_exc, exc_seg, exc_blocks) = segments(&args, 1, 3, (2, 256, true))?;
    if n_exc != n {
        return Err(WorkloadError::LaunchArg {
            workload: "scan",
            launch: 1,
            arg: 3,
            reason: format!("n = {n_exc}, launch 0 scans n = {n}"),
        });
    }
    let i = Inputs::new("scan", inputs);
    let x = i.i32("in", n)?;
    // the outputs are overwritten, but must be the spec's buffers of these lengths
    i.i32("out_inc", n)?;
    i.i32("out_exc", n)?;
    i.i32("block_sums", exc_blocks)?;
    let (exc, sums) = exclusive(x, exc_seg);
    Ok(outputs([
        ("out_inc", HostData::I32(inclusive(x, inc_seg))),
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

    /// The ci spec with n and the two launches' (grid, block) replaced.
    fn spec(n: i64, inc: (u32, u32), exc: (u32, u32)) -> LaunchSpec {
        use regwatt_sim::launch::LaunchArg;
        let mut spec = crate::refs::ci_spec("scan");
        spec.launches[0].args[2] = LaunchArg::Int(n);
        spec.launches[1].args[3] = LaunchArg::Int(n);
        (spec.launches[0].grid, spec.launches[0].block) = ([inc.0, 1, 1], [inc.1, 1, 1]);
        (spec.launches[1].grid, spec.launches[1].block) = ([exc.0, 1, 1], [exc.1, 1, 1]);
        spec
    }

    fn inputs(n: usize, sums: usize) -> Buffers {
        crate::refs::buffers([
            ("in", HostData::I32((1..=n as i32).collect())),
            ("out_inc", HostData::I32(vec![0; n])),
            ("out_exc", HostData::I32(vec![0; n])),
            ("block_sums", HostData::I32(vec![0; sums])),
        ])
    }

    #[test]
    fn segments_and_length_come_from_the_spec() {
        // n = 6: inclusive in segments of 4 (4 threads), exclusive in segments of 4 (2 threads)
        let out = reference(&inputs(6, 2), &spec(6, (2, 4), (2, 2))).unwrap();
        assert_eq!(out["out_inc"], HostData::I32(vec![1, 3, 6, 10, 5, 11]));
        assert_eq!(out["out_exc"], HostData::I32(vec![0, 1, 3, 6, 0, 5]));
        assert_eq!(out["block_sums"], HostData::I32(vec![10, 11]));
    }

    #[test]
    fn launch_shapes_and_lengths_are_checked() {
        let arg_err = |s: &LaunchSpec, b: &Buffers| {
            matches!(reference(b, s), Err(WorkloadError::LaunchArg { .. }))
        };
        let b = inputs(6, 2);
        // grids that do not cover n exactly
        assert!(arg_err(&spec(6, (3, 4), (2, 2)), &b));
        assert!(arg_err(&spec(6, (2, 4), (1, 2)), &b));
        // exclusive blocks must be a power of two; both at most 256 threads
        assert!(arg_err(&spec(6, (2, 4), (1, 3)), &b));
        assert!(arg_err(&spec(6, (1, 512), (2, 2)), &b));
        // the two launches scan different n
        let mut s = spec(6, (2, 4), (2, 2));
        s.launches[1].args[3] = regwatt_sim::launch::LaunchArg::Int(8);
        assert!(arg_err(&s, &b));
        // block_sums must hold one total per exclusive block
        assert!(matches!(
            reference(&inputs(6, 3), &spec(6, (2, 4), (2, 2))),
            Err(WorkloadError::InputLength {
                expected: 2,
                actual: 3,
                ..
            })
        ));
    }
}
