//! Shared 5x5 convolution layer reference (conv_mnist, conv_large).
//!
//! out[k][oy][ox] = 1.7159 * tanh(0.66666667 * acc), acc = bias[k] then an FMA chain over
//! c, ky, kx, exactly the kernels' order. Only `tanhf` (<= 2 ulp in CUDA) differs from the
//! host's `tanh`; outputs lie in (-1.72, 1.72), so `abs 1e-5 + rel 1e-5` is tight.

use super::shape_error;
use crate::{LaunchArgs, Tolerance, WorkloadError};

/// Tolerance of every conv output buffer.
pub const CONV_TOL: Tolerance = Tolerance::Float {
    abs: 1e-5,
    rel: 1e-5,
};

/// Layer geometry.
#[derive(Clone, Copy, Debug)]
pub struct Conv {
    /// Input channels.
    pub c: usize,
    /// Input height.
    pub h: usize,
    /// Input width.
    pub w: usize,
    /// Output feature maps.
    pub k: usize,
    /// Stride.
    pub stride: usize,
    /// Output height.
    pub oh: usize,
    /// Output width.
    pub ow: usize,
}

impl Conv {
    /// Input elements.
    pub fn in_len(&self) -> usize {
        self.c * self.h * self.w
    }
    /// Weight elements.
    pub fn w_len(&self) -> usize {
        self.k * self.c * 25
    }
    /// Output elements.
    pub fn out_len(&self) -> usize {
        self.k * self.oh * self.ow
    }
}

impl Conv {
    /// The geometry of a conv launch of `workload` read from its arguments: C, H, W, K, then
    /// the stride (unless the kernel has a fixed one, `fixed_stride`), OH, OW, from argument
    /// `first` on. The output must be the whole valid convolution: OH = (H - 5) / stride + 1,
    /// and OW likewise.
    pub fn from_launch(
        workload: &'static str,
        a: &LaunchArgs<'_>,
        launch: usize,
        first: usize,
        fixed_stride: Option<usize>,
    ) -> Result<Conv, WorkloadError> {
        let arg = |k: usize| a.int(launch, first + k, 1);
        let (c, h, w, k) = (arg(0)?, arg(1)?, arg(2)?, arg(3)?);
        let (stride, rest) = match fixed_stride {
            Some(s) => (s, 4),
            None => (arg(4)?, 5),
        };
        let (oh, ow) = (arg(rest)?, arg(rest + 1)?);
        let g = Conv {
            c,
            h,
            w,
            k,
            stride,
            oh,
            ow,
        };
        let side = |n: usize| (n >= 5).then(|| (n - 5) / stride + 1);
        if side(h) != Some(oh) || side(w) != Some(ow) {
            return Err(shape_error(
                workload,
                launch,
                format!(
                    "a {h}x{w} input at stride {stride} has a {} output, the launch says {oh}x{ow}",
                    match (side(h), side(w)) {
                        (Some(y), Some(x)) => format!("{y}x{x}"),
                        _ => "no 5x5".to_string(),
                    }
                ),
            ));
        }
        Ok(g)
    }

    /// Checks that `self` (launch `launch`) reads what `prev` wrote: `prev`'s maps as input.
    pub fn reads(
        &self,
        prev: &Conv,
        workload: &'static str,
        launch: usize,
    ) -> Result<(), WorkloadError> {
        if (self.c, self.h, self.w) == (prev.k, prev.oh, prev.ow) {
            return Ok(());
        }
        Err(shape_error(
            workload,
            launch,
            format!(
                "reads {} maps of {}x{}, the layer before writes {} of {}x{}",
                self.c, self.h, self.w, prev.k, prev.oh, prev.ow
            ),
        ))
    }

    /// Checks that `self` (launch `launch`) reads the same input and weights as `other`.
    pub fn same_input(
        &self,
        other: &Conv,
        workload: &'static str,
        launch: usize,
    ) -> Result<(), WorkloadError> {
        if (self.c, self.h, self.w, self.k) == (other.c, other.h, other.w, other.k) {
            return Ok(());
        }
        Err(shape_error(
            workload,
            launch,
            format!(
                "reads {} maps of {}x{} into {} maps, the layer with the same input and weights {} of {}x{} into {}",
                self.c, self.h, self.w, self.k, other.c, other.h, other.w, other.k
            ),
        ))
    }
}

/// The scaled-tanh activation of the seed-001 CNN.
pub fn act(z: f32) -> f32 {
    1.7159 * (0.666_666_7 * z).tanh()
}

/// Runs one layer (without the activation when `activate` is false, for tests).
pub fn conv5x5(g: &Conv, input: &[f32], w: &[f32], bias: &[f32], activate: bool) -> Vec<f32> {
    let mut out = vec![0.0f32; g.out_len()];
    for k in 0..g.k {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                let mut acc = bias[k];
                for c in 0..g.c {
                    for ky in 0..5 {
                        for kx in 0..5 {
                            let x =
                                input[(c * g.h + oy * g.stride + ky) * g.w + ox * g.stride + kx];
                            acc = x.mul_add(w[(k * g.c + c) * 25 + ky * 5 + kx], acc);
                        }
                    }
                }
                out[(k * g.oh + oy) * g.ow + ox] = if activate { act(acc) } else { acc };
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_filter_sums_windows() {
        // 6x6 input of value = column index, all-ones 5x5 kernel, stride 1 -> 2x2 outputs.
        let g = Conv {
            c: 1,
            h: 6,
            w: 6,
            k: 1,
            stride: 1,
            oh: 2,
            ow: 2,
        };
        let input: Vec<f32> = (0..36).map(|i| (i % 6) as f32).collect();
        let out = conv5x5(&g, &input, &[1.0; 25], &[0.5], false);
        // window at ox: 5 rows * (ox + ox+1 + ... + ox+4) = 5 * (5 ox + 10)
        assert_eq!(out, vec![50.5, 75.5, 50.5, 75.5]);
    }

    #[test]
    fn stride_two_and_channels() {
        let g = Conv {
            c: 2,
            h: 7,
            w: 7,
            k: 2,
            stride: 2,
            oh: 2,
            ow: 2,
        };
        let input = vec![1.0f32; g.in_len()];
        let mut w = vec![0.0f32; g.w_len()];
        w[0] = 2.0; // k0 c0 (0,0)
        w[25 + 24] = 3.0; // k0 c1 (4,4)
        w[50] = -1.0; // k1 c0 (0,0)
        let out = conv5x5(&g, &input, &w, &[0.0, 1.0], false);
        assert_eq!(out, vec![5.0, 5.0, 5.0, 5.0, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn activation_is_odd_and_saturates() {
        assert_eq!(act(0.0), 0.0);
        assert!((act(1.0) + act(-1.0)).abs() < 1e-7);
        assert!((act(100.0) - 1.7159).abs() < 1e-6);
    }
}
