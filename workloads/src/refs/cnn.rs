//! Shared layer references of the Tango-shaped CNNs `cifarnet` and `alexnet` (Jeon et al. 2019): the
//! kernels of `cifarnet.cu` / `alexnet.cu` evaluated in the same order.
//!
//! Feature maps are `[channel][row][column]`; a map "with a zero border of p" is stored as
//! (H + 2p) x (W + 2p) with the interior at offset (p, p) and zeros around it (the kernels write
//! only the interior of a zero-filled buffer). Conv and fc outputs are one `fmaf` chain each
//! (`f32::mul_add` here, the PTX's `fma.rn.f32`), ReLU is `fmaxf(x, 0)` (`f32::max`), pooling
//! compares only: all of these are bit-identical to the kernels. LRN's `powf` is the only
//! inexact operation (CUDA's `powf` is within a few ulp, not correctly rounded); see
//! [`LRN_TOL`] and [`DOWNSTREAM_TOL`].

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{expect_kernels, shape_error, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Outputs of a layer that uses `powf` (LRN): `x / s^0.75` with s within 1 % of its base, x
/// below ~3, so a few ulp of `powf` are < 1e-6 absolute.
pub const LRN_TOL: Tolerance = Tolerance::Float {
    abs: 1e-6,
    rel: 1e-5,
};

/// Every buffer computed from an LRN output: the reference feeds its own LRN result forward, so
/// the LRN's ulp-level differences propagate through fmaf chains. At `ci` these have up to 384
/// terms with |w| <= 0.3 (< 1e-5 absolute even if every term's error had the same sign); the
/// larger sizes' chains (up to 9216 terms) have weights on +-sqrt(6 / fan_in), so the errors,
/// of random sign, stay about sqrt(6) times one term's (the executor's results use a few % of
/// the tolerance at every size: `simcheck --size S`'s `tol_used`).
pub const DOWNSTREAM_TOL: Tolerance = Tolerance::Float {
    abs: 1e-5,
    rel: 1e-5,
};

/// A convolution layer (square KS x KS windows, no bias-free variant).
#[derive(Clone, Copy, Debug)]
pub struct Conv {
    /// Input channels.
    pub c: usize,
    /// Input height as stored (zero border of the 'same' padding included).
    pub h: usize,
    /// Input width as stored.
    pub w: usize,
    /// Output maps.
    pub k: usize,
    /// Window side.
    pub ks: usize,
    /// Stride.
    pub stride: usize,
    /// Output height (interior).
    pub oh: usize,
    /// Output width (interior).
    pub ow: usize,
    /// Zero border written around each output map (for the next layer's padding).
    pub opad: usize,
}

impl Conv {
    /// Weight elements, `[k][c][ky][kx]`.
    pub fn w_len(&self) -> usize {
        self.k * self.c * self.ks * self.ks
    }
    /// Output elements (border included).
    pub fn out_len(&self) -> usize {
        self.k * (self.oh + 2 * self.opad) * (self.ow + 2 * self.opad)
    }
}

/// A stack of maps as a buffer stores it: channels, rows, columns (a zero border included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Maps {
    /// Channels.
    pub c: usize,
    /// Rows as stored.
    pub h: usize,
    /// Columns as stored.
    pub w: usize,
}

impl Maps {
    /// Elements.
    pub fn len(&self) -> usize {
        self.c * self.h * self.w
    }

    /// The same maps with a zero border of `p` around each.
    pub fn padded(self, p: usize) -> Maps {
        Maps {
            h: self.h + 2 * p,
            w: self.w + 2 * p,
            ..self
        }
    }

    /// Checks that launch `launch`, which reads `input`, reads these maps (what the launch
    /// before it wrote).
    pub fn feed(
        self,
        input: Maps,
        workload: &'static str,
        launch: usize,
    ) -> Result<(), WorkloadError> {
        if input == self {
            return Ok(());
        }
        Err(shape_error(
            workload,
            launch,
            format!(
                "reads {} maps of {}x{}, the launch before writes {} of {}x{}",
                input.c, input.h, input.w, self.c, self.h, self.w
            ),
        ))
    }
}

impl Conv {
    /// The layer of a `conv_relu<ks>` launch: arguments 4..=10 are C, H, W (the input as
    /// stored), S, OH, OW, opad; the output maps K are the grid's z (blockIdx.z). The output must
    /// be the whole valid convolution of the stored input: OH = (H - ks) / S + 1, OW likewise.
    pub fn from_launch(
        workload: &'static str,
        a: &LaunchArgs<'_>,
        launch: usize,
        ks: usize,
    ) -> Result<Conv, WorkloadError> {
        let arg = |k: usize, min: i64| a.int(launch, k, min);
        let (c, h, w, stride) = (arg(4, 1)?, arg(5, 1)?, arg(6, 1)?, arg(7, 1)?);
        let (oh, ow, opad) = (arg(8, 1)?, arg(9, 1)?, arg(10, 0)?);
        let k = a.dims(launch).map_or(0, |(grid, _)| grid[2] as usize);
        let side = |n: usize| (n >= ks).then(|| (n - ks) / stride + 1);
        if side(h) != Some(oh) || side(w) != Some(ow) {
            return Err(shape_error(
                workload,
                launch,
                format!(
                    "a {ks}x{ks} window at stride {stride} over a {h}x{w} input gives {}, the \
                     launch says {oh}x{ow}",
                    match (side(h), side(w)) {
                        (Some(y), Some(x)) => format!("{y}x{x}"),
                        _ => "nothing".to_string(),
                    }
                ),
            ));
        }
        Ok(Conv {
            c,
            h,
            w,
            k,
            ks,
            stride,
            oh,
            ow,
            opad,
        })
    }

    /// The maps the layer reads.
    pub fn input(&self) -> Maps {
        Maps {
            c: self.c,
            h: self.h,
            w: self.w,
        }
    }

    /// The maps the layer writes (border included).
    pub fn output(&self) -> Maps {
        Maps {
            c: self.k,
            h: self.oh,
            w: self.ow,
        }
        .padded(self.opad)
    }
}

/// The maps a `maxpool3x3s2` launch reads (arguments 2..=6: C, H, W, OH, OW; OH must be
/// [`pool_out`] of H, OW of W).
pub fn pool_from_launch(
    workload: &'static str,
    a: &LaunchArgs<'_>,
    launch: usize,
) -> Result<Maps, WorkloadError> {
    let arg = |k: usize| a.int(launch, k, 1);
    let m = Maps {
        c: arg(2)?,
        h: arg(3)?,
        w: arg(4)?,
    };
    let (oh, ow) = (arg(5)?, arg(6)?);
    let side = |n: usize| (n >= 3).then(|| pool_out(n));
    if side(m.h) != Some(oh) || side(m.w) != Some(ow) {
        return Err(shape_error(
            workload,
            launch,
            format!(
                "3x3/2 pooling (ceil mode) of {}x{} maps gives {}x{}, the launch says {oh}x{ow}",
                m.h,
                m.w,
                side(m.h).unwrap_or(0),
                side(m.w).unwrap_or(0)
            ),
        ));
    }
    Ok(m)
}

/// The maps an `lrn` launch reads, its constants and its output border (arguments 2..=9: C,
/// H, W, n, kb, alpha_n, beta, opad; the float arguments rounded to f32 as the loader passes
/// them).
pub fn lrn_from_launch(
    a: &LaunchArgs<'_>,
    launch: usize,
) -> Result<(Maps, Lrn, usize), WorkloadError> {
    let m = Maps {
        c: a.int(launch, 2, 1)?,
        h: a.int(launch, 3, 1)?,
        w: a.int(launch, 4, 1)?,
    };
    let p = Lrn {
        n: a.int(launch, 5, 1)?,
        k: a.float(launch, 6)? as f32,
        alpha_n: a.float(launch, 7)? as f32,
        beta: a.float(launch, 8)? as f32,
    };
    Ok((m, p, a.int(launch, 9, 0)?))
}

/// An `fc` launch: inputs N, outputs M, ReLU (arguments 4..=6).
pub fn fc_from_launch(
    workload: &'static str,
    a: &LaunchArgs<'_>,
    launch: usize,
) -> Result<(usize, usize, bool), WorkloadError> {
    let relu = a.int(launch, 6, 0)?;
    if relu > 1 {
        return Err(shape_error(
            workload,
            launch,
            format!("relu {relu}: the kernel knows 1 (ReLU) and 0 (identity)"),
        ));
    }
    Ok((a.int(launch, 4, 1)?, a.int(launch, 5, 1)?, relu == 1))
}

/// One launch of a CNN forward pass, as [`forward`] runs it.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// `pad2d`: arguments C, H, W, p from 2 on.
    Pad,
    /// A `conv_relu<ks>` kernel ([`Conv::from_launch`]) with its weight and bias buffers.
    Conv {
        /// The kernel's name.
        kernel: &'static str,
        /// Its window side.
        ks: usize,
        /// Weight buffer (`[k][c][ky][kx]`).
        w: &'static str,
        /// Bias buffer.
        b: &'static str,
    },
    /// `maxpool3x3s2` ([`pool_from_launch`]).
    Pool,
    /// `lrn` ([`lrn_from_launch`]).
    Lrn,
    /// `fc` ([`fc_from_launch`]) with its weight (input-major) and bias buffers.
    Fc {
        /// Weight buffer (`[n][m]`).
        w: &'static str,
        /// Bias buffer.
        b: &'static str,
    },
}

impl Op {
    /// The kernel the launch runs.
    pub fn kernel(&self) -> &'static str {
        match self {
            Op::Pad => "pad2d",
            Op::Conv { kernel, .. } => kernel,
            Op::Pool => "maxpool3x3s2",
            Op::Lrn => "lrn",
            Op::Fc { .. } => "fc",
        }
    }
}

/// A CNN forward pass that follows the spec's launches: `layers[l]` is launch `l`, its
/// operation and the buffer it writes. The first launch reads `input` (an input buffer of the
/// size its arguments give); every later one reads what the launch before it wrote, and must
/// say so in its size arguments (an fc layer: as many inputs as the values written before it).
/// Every size of a workload runs the same launches with other arguments (and grids).
pub fn forward(
    workload: &'static str,
    spec: &LaunchSpec,
    inputs: &Buffers,
    input: &str,
    layers: &[(Op, &'static str)],
) -> Result<Buffers, WorkloadError> {
    let kernels: Vec<&str> = layers.iter().map(|(op, _)| op.kernel()).collect();
    expect_kernels(workload, spec, &kernels)?;
    let a = LaunchArgs::new(workload, spec);
    let i = Inputs::new(workload, inputs);
    let mut out = Buffers::new();
    // what the last launch wrote (None before the first)
    let mut prev: Option<(Vec<f32>, Maps)> = None;
    for (l, (op, name)) in layers.iter().enumerate() {
        // the maps launch `l` reads: the input buffer, or checked against what was written
        let source = |m: Maps| -> Result<&[f32], WorkloadError> {
            match &prev {
                None => i.f32(input, m.len()),
                Some((x, written)) => written.feed(m, workload, l).map(|()| x.as_slice()),
            }
        };
        let (y, maps) = match *op {
            Op::Pad => {
                let m = Maps {
                    c: a.int(l, 2, 1)?,
                    h: a.int(l, 3, 1)?,
                    w: a.int(l, 4, 1)?,
                };
                let p = a.int(l, 5, 0)?;
                (pad2d(source(m)?, m.c, m.h, m.w, p), m.padded(p))
            }
            Op::Conv { ks, w, b, .. } => {
                let g = Conv::from_launch(workload, &a, l, ks)?;
                let x = source(g.input())?;
                let y = conv_relu(&g, x, i.f32(w, g.w_len())?, i.f32(b, g.k)?);
                (y, g.output())
            }
            Op::Pool => {
                let m = pool_from_launch(workload, &a, l)?;
                let y = maxpool3x3s2(source(m)?, m.c, m.h, m.w);
                let o = Maps {
                    h: pool_out(m.h),
                    w: pool_out(m.w),
                    ..m
                };
                (y, o)
            }
            Op::Lrn => {
                let (m, p, opad) = lrn_from_launch(&a, l)?;
                (lrn(source(m)?, m.c, m.h, m.w, &p, opad), m.padded(opad))
            }
            Op::Fc { w, b } => {
                let (n, m, relu) = fc_from_launch(workload, &a, l)?;
                let x = match &prev {
                    Some((x, _)) if x.len() == n => x.as_slice(),
                    Some((x, _)) => {
                        return Err(shape_error(
                            workload,
                            l,
                            format!("reads {n} inputs, the launch before writes {}", x.len()),
                        ))
                    }
                    None => i.f32(input, n)?,
                };
                let y = fc(x, i.f32(w, n * m)?, i.f32(b, m)?, n, m, relu);
                (y, Maps { c: m, h: 1, w: 1 })
            }
        };
        // the output buffer must hold what the launch writes
        i.f32(name, y.len())?;
        out.insert(name.to_string(), HostData::F32(y.clone()));
        prev = Some((y, maps));
    }
    Ok(out)
}

/// `conv_relu<KS>`: out = ReLU(bias[k] + sum over (c, ky, kx) of in * w), one fmaf chain.
pub fn conv_relu(g: &Conv, input: &[f32], w: &[f32], bias: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0f32; g.out_len()];
    let (ph, pw) = (g.oh + 2 * g.opad, g.ow + 2 * g.opad);
    let kk = g.ks * g.ks;
    for k in 0..g.k {
        for oy in 0..g.oh {
            for ox in 0..g.ow {
                let mut acc = bias[k];
                for c in 0..g.c {
                    let base = (c * g.h + oy * g.stride) * g.w + ox * g.stride;
                    let wb = (k * g.c + c) * kk;
                    for ky in 0..g.ks {
                        for kx in 0..g.ks {
                            acc = input[base + ky * g.w + kx].mul_add(w[wb + ky * g.ks + kx], acc);
                        }
                    }
                }
                out[(k * ph + oy + g.opad) * pw + ox + g.opad] = acc.max(0.0);
            }
        }
    }
    out
}

/// Output side of a 3x3 stride-2 max pooling in Caffe's ceil mode: ceil((n - 3) / 2) + 1.
pub fn pool_out(n: usize) -> usize {
    (n - 3).div_ceil(2) + 1
}

/// `maxpool3x3s2`: c dense maps h x w -> c dense maps of [`pool_out`] sides; windows clipped at
/// the bottom/right border; the max starts at -inf and takes `fmaxf` in (ky, kx) order.
pub fn maxpool3x3s2(input: &[f32], c: usize, h: usize, w: usize) -> Vec<f32> {
    let (oh, ow) = (pool_out(h), pool_out(w));
    let mut out = Vec::with_capacity(c * oh * ow);
    for ch in 0..c {
        for oy in 0..oh {
            for ox in 0..ow {
                let mut m = f32::NEG_INFINITY;
                for iy in (2 * oy..2 * oy + 3).filter(|&y| y < h) {
                    for ix in (2 * ox..2 * ox + 3).filter(|&x| x < w) {
                        m = m.max(input[(ch * h + iy) * w + ix]);
                    }
                }
                out.push(m);
            }
        }
    }
    out
}

/// Parameters of a local response normalisation across channels.
#[derive(Clone, Copy, Debug)]
pub struct Lrn {
    /// Window size n (channels c - n/2 ..= c + n/2, clipped).
    pub n: usize,
    /// Additive constant (`kb`).
    pub k: f32,
    /// alpha as applied to the sum of squares (Caffe's alpha / n).
    pub alpha_n: f32,
    /// Exponent.
    pub beta: f32,
}

/// `lrn`: c dense maps h x w -> the same maps with a zero border of `opad`:
/// x / (k + alpha_n * sum x_j^2)^beta, the sum an fmaf chain in j order.
pub fn lrn(input: &[f32], c: usize, h: usize, w: usize, p: &Lrn, opad: usize) -> Vec<f32> {
    let (ph, pw) = (h + 2 * opad, w + 2 * opad);
    let mut out = vec![0.0f32; c * ph * pw];
    for ch in 0..c {
        let lo = ch.saturating_sub(p.n / 2);
        let hi = (ch + p.n / 2).min(c - 1);
        for y in 0..h {
            for x in 0..w {
                let mut s = 0.0f32;
                for j in lo..=hi {
                    let v = input[(j * h + y) * w + x];
                    s = v.mul_add(v, s);
                }
                let v = input[(ch * h + y) * w + x];
                out[(ch * ph + y + opad) * pw + x + opad] =
                    v / p.alpha_n.mul_add(s, p.k).powf(p.beta);
            }
        }
    }
    out
}

/// `fc`: out[o] = act(bias[o] + sum_i in[i] * w[i][o]) (w input-major, n x m), fmaf chain in i
/// order; act ReLU when `relu`, identity otherwise.
pub fn fc(input: &[f32], w: &[f32], bias: &[f32], n: usize, m: usize, relu: bool) -> Vec<f32> {
    (0..m)
        .map(|o| {
            let acc = (0..n).fold(bias[o], |acc, i| input[i].mul_add(w[i * m + o], acc));
            if relu {
                acc.max(0.0)
            } else {
                acc
            }
        })
        .collect()
}

/// `pad2d`: c dense maps h x w -> the same maps with a zero border of p.
pub fn pad2d(input: &[f32], c: usize, h: usize, w: usize, p: usize) -> Vec<f32> {
    let (ph, pw) = (h + 2 * p, w + 2 * p);
    let mut out = vec![0.0f32; c * ph * pw];
    for ch in 0..c {
        for y in 0..h {
            let dst = (ch * ph + y + p) * pw + p;
            out[dst..dst + w].copy_from_slice(&input[(ch * h + y) * w..(ch * h + y + 1) * w]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_conv_on_a_padded_input_and_relu() {
        // 1 channel 3x3 of ones padded by 1 (5x5), 3x3 all-ones window, stride 1: each output
        // counts the in-bounds neighbours; bias -4.5 makes the corners (4) negative -> 0
        let x = pad2d(&[1.0; 9], 1, 3, 3, 1);
        assert_eq!(x.iter().sum::<f32>(), 9.0);
        assert_eq!(x[6], 1.0); // (1, 1)
        let g = Conv {
            c: 1,
            h: 5,
            w: 5,
            k: 1,
            ks: 3,
            stride: 1,
            oh: 3,
            ow: 3,
            opad: 0,
        };
        let out = conv_relu(&g, &x, &[1.0; 9], &[-4.5]);
        assert_eq!(out, vec![0.0, 1.5, 0.0, 1.5, 4.5, 1.5, 0.0, 1.5, 0.0]);
    }

    #[test]
    fn strided_multichannel_conv_writes_into_a_border() {
        // 2 channels 5x5 (value = channel + 1), 3x3 window stride 2 -> 2x2, k0 weights pick
        // (0,0) of c0 (x2) and (2,2) of c1 (x3): 2*1 + 3*2 = 8; output border 1 -> 4x4 map
        let g = Conv {
            c: 2,
            h: 5,
            w: 5,
            k: 1,
            ks: 3,
            stride: 2,
            oh: 2,
            ow: 2,
            opad: 1,
        };
        let x: Vec<f32> = (0..50).map(|i| (i / 25 + 1) as f32).collect();
        let mut w = vec![0.0f32; g.w_len()];
        w[0] = 2.0;
        w[9 + 8] = 3.0;
        let out = conv_relu(&g, &x, &w, &[0.0]);
        assert_eq!(out.len(), 16);
        #[rustfmt::skip]
        let want = vec![0.0, 0.0, 0.0, 0.0,
                        0.0, 8.0, 8.0, 0.0,
                        0.0, 8.0, 8.0, 0.0,
                        0.0, 0.0, 0.0, 0.0];
        assert_eq!(out, want);
    }

    #[test]
    fn overlapping_pool_in_ceil_mode_clips_windows() {
        assert_eq!(
            (
                pool_out(32),
                pool_out(23),
                pool_out(16),
                pool_out(11),
                pool_out(5)
            ),
            (16, 11, 8, 5, 2)
        );
        // 4x4 = 0..15: windows rows/cols {0,1,2} and {2,3}
        let x: Vec<f32> = (0..16).map(|i| i as f32).collect();
        assert_eq!(maxpool3x3s2(&x, 1, 4, 4), vec![10.0, 11.0, 14.0, 15.0]);
        // negative values: -inf start, not 0
        let neg: Vec<f32> = x.iter().map(|v| -v - 1.0).collect();
        assert_eq!(maxpool3x3s2(&neg, 1, 4, 4), vec![-1.0, -3.0, -9.0, -11.0]);
    }

    #[test]
    fn lrn_normalises_over_a_clipped_channel_window() {
        // 3 channels of one pixel (1, 2, 2), n = 3, k = 1, alpha_n = 1, beta = 0.5:
        // c0: 1 / sqrt(1 + 1 + 4) , c1: 2 / sqrt(1 + 9), c2: 2 / sqrt(1 + 8)
        let p = Lrn {
            n: 3,
            k: 1.0,
            alpha_n: 1.0,
            beta: 0.5,
        };
        let out = lrn(&[1.0, 2.0, 2.0], 3, 1, 1, &p, 0);
        let want = [1.0 / 6f32.sqrt(), 2.0 / 10f32.sqrt(), 2.0 / 3.0];
        for (a, b) in out.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{a} {b}");
        }
        // a border of 1 around a 1x1 map: 3x3 per channel, value in the centre
        let padded = lrn(&[1.0, 2.0, 2.0], 3, 1, 1, &p, 1);
        assert_eq!(padded.len(), 27);
        assert_eq!(padded[4], out[0]);
        assert_eq!(padded.iter().filter(|v| **v != 0.0).count(), 3);
    }

    #[test]
    fn fc_is_input_major_with_optional_relu() {
        // n = 2, m = 3: w[i][o]
        let w = [1.0, 0.0, -1.0, 2.0, 1.0, -1.0];
        assert_eq!(
            fc(&[1.0, 2.0], &w, &[0.5, 0.0, 0.0], 2, 3, false),
            vec![5.5, 2.0, -3.0]
        );
        assert_eq!(
            fc(&[1.0, 2.0], &w, &[0.5, 0.0, 0.0], 2, 3, true),
            vec![5.5, 2.0, 0.0]
        );
    }
}
