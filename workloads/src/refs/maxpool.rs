//! `maxpool`: 2x2 stride-2 max pooling of 16 maps of 64x64 with the window argmax (0..3, row
//! major, first maximum wins). Comparisons and copies only: exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Maps.
pub const C: usize = 16;
/// Map side.
pub const H: usize = 64;

/// Exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[("out", Tolerance::Exact)];

/// (max, argmax) per 2x2 window of `c` maps of h x w.
pub fn maxpool(x: &[f32], c: usize, h: usize, w: usize) -> (Vec<f32>, Vec<i32>) {
    let (oh, ow) = (h / 2, w / 2);
    let mut out = Vec::with_capacity(c * oh * ow);
    let mut arg = Vec::with_capacity(c * oh * ow);
    for ch in 0..c {
        for oy in 0..oh {
            for ox in 0..ow {
                let base = (ch * h + 2 * oy) * w + 2 * ox;
                let v = [x[base], x[base + 1], x[base + w], x[base + w + 1]];
                let (mut best, mut bi) = (v[0], 0);
                for (q, &val) in v.iter().enumerate().skip(1) {
                    if val > best {
                        best = val;
                        bi = q as i32;
                    }
                }
                out.push(best);
                arg.push(bi);
            }
        }
    }
    (out, arg)
}

/// Reference for the spec in `maxpool.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("maxpool", inputs);
    let (out, arg) = maxpool(i.f32("in", C * H * H)?, C, H, H);
    Ok(outputs([
        ("out", HostData::F32(out)),
        ("arg", HostData::I32(arg)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_by_four() {
        #[rustfmt::skip]
        let x = [1.0, 2.0,  5.0, 5.0,
                 3.0, 0.0,  1.0, 1.0,
                -1.0, -2.0, 0.0, 0.0,
                -3.0, -0.5, 0.0, 7.0];
        assert_eq!(
            maxpool(&x, 1, 4, 4),
            (vec![3.0, 5.0, -0.5, 7.0], vec![2, 0, 3, 3])
        );
    }
}
