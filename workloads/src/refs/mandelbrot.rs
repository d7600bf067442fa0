//! `mandelbrot`: escape counts on a width x height grid from (x0, y0) with pitches dx, dy, at
//! most max_iter iterations: the launch's arguments 1..7 (`ci`: 64x64 over [-2, 1) x
//! [-1.5, 1.5), at most 128 iterations). The kernel uses only explicitly rounded f32 intrinsics
//! (no FMA contraction), which the reference repeats operation for operation, on the f32
//! values the launch passes: exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Image side of the `ci` spec.
#[cfg(test)]
const SIDE: usize = 64;

/// Integers: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[];

/// Iterations before |z|^2 > 4 (or `max_iter`) for c = cr + i ci.
pub fn escape(cr: f32, ci: f32, max_iter: i32) -> i32 {
    let (mut zr, mut zi) = (0.0f32, 0.0f32);
    let mut it = 0;
    while it < max_iter {
        let zr2 = zr * zr;
        let zi2 = zi * zi;
        if zr2 + zi2 > 4.0 {
            break;
        }
        let nzi = (2.0 * zr) * zi + ci;
        zr = (zr2 - zi2) + cr;
        zi = nzi;
        it += 1;
    }
    it
}

/// Counts for a width x height grid, row-major.
pub fn image(
    width: usize,
    height: usize,
    x0: f32,
    y0: f32,
    dx: f32,
    dy: f32,
    max_iter: i32,
) -> Vec<i32> {
    let mut out = Vec::with_capacity(width * height);
    for py in 0..height {
        for px in 0..width {
            out.push(escape(x0 + px as f32 * dx, y0 + py as f32 * dy, max_iter));
        }
    }
    out
}

/// Reference for every size of `mandelbrot`.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let a = LaunchArgs::new("mandelbrot", spec);
    if a.launches() != 1 {
        return Err(a.launch_error(a.launches().min(1), "expected one mandelbrot launch"));
    }
    let (width, height) = (a.int(0, 1, 1)?, a.int(0, 2, 1)?);
    let f = |arg| a.float(0, arg).map(|v| v as f32);
    let (x0, y0, dx, dy) = (f(3)?, f(4)?, f(5)?, f(6)?);
    let max_iter = i32::try_from(a.int(0, 7, 0)?)
        .map_err(|_| a.launch_error(0, "max_iter (argument 7) is beyond i32"))?;
    let i = Inputs::new("mandelbrot", inputs);
    i.i32("iters", width * height)?;
    Ok(outputs([(
        "iters",
        HostData::I32(image(width, height, x0, y0, dx, dy, max_iter)),
    )]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_and_outside_points() {
        assert_eq!(escape(0.0, 0.0, 50), 50); // in the set
        assert_eq!(escape(-1.0, 0.0, 50), 50); // period-2 cycle
        assert_eq!(escape(2.0, 0.0, 50), 2); // z: 0, 2, 6 -> |6|^2 > 4 at it = 2
        assert_eq!(escape(1.0, 1.0, 50), 2); // z1 = 1+i (|z|^2 = 2), z2 = 1+3i (10 > 4)
    }

    #[test]
    fn sizes_come_from_the_launch() {
        let spec = crate::refs::ci_spec("mandelbrot");
        let init = spec.initial_buffers();
        let out = reference(&init, &spec).unwrap();
        let HostData::I32(iters) = &out["iters"] else {
            panic!("dtype")
        };
        // pixel (42, 32) is c = -2 + 42 * 3/64 = -0.03125 + 0i, inside the set
        assert_eq!((iters.len(), iters[32 * SIDE + 42]), (SIDE * SIDE, 128));
        let mut bad = init.clone();
        bad.insert("iters".into(), HostData::I32(vec![0; SIDE]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected, .. }) if expected == SIDE * SIDE
        ));
    }
}
