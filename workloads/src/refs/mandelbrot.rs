//! `mandelbrot`: escape counts on a 64x64 grid over [-2, 1) x [-1.5, 1.5), at most 128
//! iterations. The kernel uses only explicitly rounded f32 intrinsics (no FMA contraction), which
//! the reference repeats operation for operation: exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Image side.
pub const SIDE: usize = 64;
/// Left edge (spec arg).
pub const X0: f32 = -2.0;
/// Bottom edge (spec arg).
pub const Y0: f32 = -1.5;
/// Pixel pitch (spec arg).
pub const STEP: f32 = 0.046875;
/// Iteration cap (spec arg).
pub const MAX_ITER: i32 = 128;

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

/// Reference for the spec in `mandelbrot.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("mandelbrot", inputs);
    i.i32("iters", SIDE * SIDE)?;
    Ok(outputs([(
        "iters",
        HostData::I32(image(SIDE, SIDE, X0, Y0, STEP, STEP, MAX_ITER)),
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
}
