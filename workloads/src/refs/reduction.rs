//! `reduction`: sum of n floats by a chain of `reduce_sum` launches, each reducing its input
//! buffer to one partial per block in its output buffer (ci: 32768 -> 64 -> 1).
//!
//! The reference adds in the kernel's order: per block of B threads, pair sums
//! `x[t] + x[t+B]`, a halving tree while more than 64 values remain, `v[t] + v[t+32]`, then the
//! shuffle-down butterfly (offsets 16..1). The result is therefore bit-identical; the tolerance
//! only allows a few ulps of the partial sums (|partial| < 512 at ci).

use std::collections::BTreeMap;

use regwatt_sim::launch::{HostData, LaunchArg, LaunchSpec};

use super::Inputs;
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Same-order summation: a few ulps at most.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    (
        "partial",
        Tolerance::Float {
            abs: 1e-5,
            rel: 1e-6,
        },
    ),
    (
        "total",
        Tolerance::Float {
            abs: 1e-5,
            rel: 1e-6,
        },
    ),
];

/// Sum of `x[base .. base + 2*block]` (missing elements skipped) in the kernel's order.
fn block_sum(x: &[f32], base: usize, block: usize) -> f32 {
    let get = |i: usize| x.get(i).copied();
    let mut v: Vec<f32> = (0..block)
        .map(|t| {
            let mut s = get(base + t).unwrap_or(0.0);
            if let Some(y) = get(base + t + block) {
                s += y;
            }
            s
        })
        .collect();
    let mut s = block / 2;
    while s > 32 {
        for t in 0..s {
            v[t] += v[t + s];
        }
        s /= 2;
    }
    let mut w: Vec<f32> = (0..32.min(block))
        .map(|t| if block >= 64 { v[t] + v[t + 32] } else { v[t] })
        .collect();
    w.resize(32, 0.0);
    let mut off = 16;
    while off > 0 {
        let prev = w.clone();
        for t in 0..32 {
            let other = if t + off < 32 { prev[t + off] } else { prev[t] };
            w[t] = prev[t] + other;
        }
        off /= 2;
    }
    w[0]
}

/// One launch: partial sums of consecutive chunks of `2 * block` elements.
pub fn reduce_launch(x: &[f32], block: usize) -> Vec<f32> {
    let chunk = 2 * block;
    (0..x.len().div_ceil(chunk))
        .map(|b| block_sum(x, b * chunk, block))
        .collect()
}

/// Name of the buffer passed as launch `launch`'s argument `arg`.
fn buffer_arg(spec: &LaunchSpec, launch: usize, arg: usize) -> Result<&str, WorkloadError> {
    let err = |reason: String| WorkloadError::LaunchArg {
        workload: "reduction",
        launch,
        arg,
        reason,
    };
    let l = spec
        .launches
        .get(launch)
        .ok_or_else(|| err(format!("the spec has {} launches", spec.launches.len())))?;
    match l.args.get(arg) {
        Some(LaunchArg::Buffer(name)) => Ok(name),
        Some(_) => Err(err("not a buffer".into())),
        None => Err(err(format!("launch has {} arguments", l.args.len()))),
    }
}

/// Reference for every size: each launch `(in, out, n)` reduces the first `n` elements of `in`
/// (an input buffer, or the output of an earlier launch) with `blockDim.x` threads per block
/// into `out`, which must hold exactly one partial per block; every launch's `out` is an output.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let args = LaunchArgs::new("reduction", spec);
    let i = Inputs::new("reduction", inputs);
    let mut written: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    for l in 0..args.launches() {
        let n = args.int(l, 2, 1)?;
        let bad = |reason: String| WorkloadError::LaunchArg {
            workload: "reduction",
            launch: l,
            arg: 2,
            reason,
        };
        let ([grid, gy, gz], [block, by, bz]) =
            args.dims(l).ok_or_else(|| bad("no launch".into()))?;
        let block = block as usize;
        // sdata[512], a halving tree and a full-warp shuffle stage: 32..=512, a power of two
        if !(32..=512).contains(&block) || !block.is_power_of_two() || by * bz != 1 {
            return Err(bad(format!(
                "reduce_sum needs blocks of 32 to 512 threads (a power of two) in x, the launch has {block}x{by}x{bz}"
            )));
        }
        let blocks = n.div_ceil(2 * block);
        if grid as usize != blocks || gy * gz != 1 {
            return Err(bad(format!(
                "n = {n} in blocks of {block} threads needs {blocks} blocks, the launch has {grid}x{gy}x{gz}"
            )));
        }
        let (src, dst) = (buffer_arg(spec, l, 0)?, buffer_arg(spec, l, 1)?);
        let x = match written.get(src) {
            Some(v) if v.len() == n => v.as_slice(),
            Some(v) => {
                return Err(bad(format!(
                    "{src} holds the {} partials of an earlier launch, not {n}",
                    v.len()
                )))
            }
            None => i.f32(src, n)?,
        };
        let partial = reduce_launch(x, block);
        // every element of `out` is written (checked against the buffer as the spec sizes it)
        i.f32(dst, blocks)?;
        written.insert(dst.to_string(), partial);
    }
    Ok(written
        .into_iter()
        .map(|(k, v)| (k, HostData::F32(v)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_small_integers_exactly() {
        let x: Vec<f32> = (1..=64).map(|v| v as f32).collect();
        assert_eq!(reduce_launch(&x, 32), vec![2080.0]); // 64*65/2
        let x: Vec<f32> = (0..1024).map(|v| (v % 7) as f32).collect();
        let p = reduce_launch(&x, 256);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0] + p[1], x.iter().sum::<f32>());
    }

    #[test]
    fn ragged_tail_is_skipped() {
        assert_eq!(reduce_launch(&[1.0, 2.0, 3.0], 32), vec![6.0]);
    }

    /// A chain of launches `(in, out, n, grid, block)` on the ci spec's kernel.
    fn chain(launches: &[(&str, &str, i64, u32, u32)]) -> LaunchSpec {
        let mut spec = crate::refs::ci_spec("reduction");
        let proto = spec.launches[0].clone();
        spec.launches = launches
            .iter()
            .map(|&(src, dst, n, grid, block)| {
                let mut l = proto.clone();
                l.args = vec![
                    LaunchArg::Buffer(src.into()),
                    LaunchArg::Buffer(dst.into()),
                    LaunchArg::Int(n),
                ];
                (l.grid, l.block) = ([grid, 1, 1], [block, 1, 1]);
                l
            })
            .collect();
        spec
    }

    #[test]
    fn chains_of_any_length_follow_the_spec() {
        // 2048 ones -> 4 blocks of 256 -> 1 block of 32: partials of 512, total 2048
        let b = crate::refs::buffers([
            ("x", HostData::F32(vec![1.0; 2048])),
            ("p1", HostData::F32(vec![0.0; 4])),
            ("p2", HostData::F32(vec![7.0; 1])),
        ]);
        let spec = chain(&[("x", "p1", 2048, 4, 256), ("p1", "p2", 4, 1, 32)]);
        let out = reference(&b, &spec).unwrap();
        assert_eq!(out["p1"], HostData::F32(vec![512.0; 4]));
        assert_eq!(out["p2"], HostData::F32(vec![2048.0]));
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn launch_shapes_and_lengths_are_checked() {
        let b = crate::refs::buffers([
            ("x", HostData::F32(vec![1.0; 2048])),
            ("p1", HostData::F32(vec![0.0; 4])),
            ("p2", HostData::F32(vec![0.0; 1])),
        ]);
        let arg_err = |spec: &LaunchSpec, launch: usize| {
            matches!(
                reference(&b, spec),
                Err(WorkloadError::LaunchArg { launch: l, arg: 2, .. }) if l == launch
            )
        };
        // a grid that does not match n / (2 * block)
        assert!(arg_err(&chain(&[("x", "p1", 2048, 8, 256)]), 0));
        // 48 threads: not a power of two; 16: below a warp; 1024: over sdata[512]
        for block in [48, 16, 1024] {
            assert!(arg_err(
                &chain(&[("x", "p1", 2048, 2048u32.div_ceil(2 * block), block)]),
                0
            ));
        }
        // the second launch reads 8 partials where the first wrote 4
        assert!(arg_err(
            &chain(&[("x", "p1", 2048, 4, 256), ("p1", "p2", 8, 1, 32)]),
            1
        ));
        // x holds 2048 elements, not 4096; p1 holds 4 partials, not 2
        assert!(matches!(
            reference(&b, &chain(&[("x", "p1", 4096, 8, 256)])),
            Err(WorkloadError::InputLength {
                expected: 4096,
                actual: 2048,
                ..
            })
        ));
        let mut b = b;
        b.insert("x".into(), HostData::F32(vec![1.0; 1024]));
        assert!(matches!(
            reference(&b, &chain(&[("x", "p1", 1024, 2, 256)])),
            Err(WorkloadError::InputLength {
                expected: 2,
                actual: 4,
                ..
            })
        ));
    }
}
