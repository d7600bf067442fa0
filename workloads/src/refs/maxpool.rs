//! `maxpool`: 2x2 stride-2 max pooling of C maps of H x W with the window argmax (0..3, row
//! major, first maximum wins); C, H and W are the launch's arguments 3, 4, 5 at every size (an
//! odd H or W drops the last row or column, as the kernel's H / 2). Comparisons and copies
//! only: exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{expect_kernels, outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

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

/// Maps, height and width of the spec's launch.
pub fn geometry(spec: &LaunchSpec) -> Result<(usize, usize, usize), WorkloadError> {
    expect_kernels("maxpool", spec, &["maxpool2x2"])?;
    let a = LaunchArgs::new("maxpool", spec);
    Ok((a.int(0, 3, 1)?, a.int(0, 4, 2)?, a.int(0, 5, 2)?))
}

/// Reference for every size of `maxpool`.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let (c, h, w) = geometry(spec)?;
    let i = Inputs::new("maxpool", inputs);
    let (out, arg) = maxpool(i.f32("in", c * h * w)?, c, h, w);
    // the outputs' lengths too: a shorter buffer than the grid writes is a spec error
    i.f32("out", out.len())?;
    i.i32("arg", arg.len())?;
    Ok(outputs([
        ("out", HostData::F32(out)),
        ("arg", HostData::I32(arg)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::ci_spec;
    use regwatt_sim::launch::LaunchArg;

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

    #[test]
    fn sizes_come_from_the_spec() {
        assert_eq!(geometry(&ci_spec("maxpool")).unwrap(), (16, 64, 64));
        // 15 maps: the 16-map input is too long
        let mut spec = ci_spec("maxpool");
        spec.launches[0].args[3] = LaunchArg::Int(15);
        let init = ci_spec("maxpool").initial_buffers();
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::InputLength {
                expected: 61440,
                actual: 65536,
                ..
            })
        ));
        // a 1-wide map has no 2x2 window
        spec.launches[0].args[5] = LaunchArg::Int(1);
        assert!(matches!(
            reference(&init, &spec),
            Err(WorkloadError::LaunchArg { arg: 5, .. })
        ));
    }
}
