//! `dct8x8`: forward then inverse orthonormal 2-D DCT-II of the 8x8 blocks of a 256 x 256
//! image (`coef = C x C^T` per block, `recon = C^T coef C`).
//!
//! The kernel's coefficients are compile-time constants (the same decimal literals as
//! [`HALF_COS`] / [`DC_SCALE`]; the PTX immediates are checked in a test), and every 8-tap dot
//! product is written as `acc = v0 * c0` then `fmaf(v_i, c_i, acc)`, i = 1..7, row pass first
//! and column pass second (dct8x8.cu). The reference evaluates exactly that sequence with
//! `f32::mul_add`, so results are bit-identical in practice. Tolerance: `abs 1e-4, rel 1e-6`:
//! values reach |coef| ~ 600 (DC terms, ulp 6e-5) and |recon| <= 128 (ulp 8e-6), so the
//! allowance is a few ulps at the largest magnitudes and ~12 ulps around 1 — far below any
//! wrong coefficient, index or pass order (those change values by O(1) or more).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Image width (spec arg).
pub const WIDTH: usize = 256;
/// Image height (spec grid.y x 8).
pub const HEIGHT: usize = 256;

/// `0.5 cos(m pi / 16)`, m = 0..7: the literals of `dct_coef` in dct8x8.cu.
#[allow(clippy::excessive_precision)]
pub const HALF_COS: [f32; 8] = [
    0.5,
    0.490392640,
    0.461939766,
    0.415734806,
    0.353553391,
    0.277785117,
    0.191341716,
    0.0975451610,
];
/// `1 / sqrt(8)`, the scale of the k = 0 row (literal of dct8x8.cu).
#[allow(clippy::excessive_precision)]
pub const DC_SCALE: f32 = 0.353553391;

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    (
        "coef",
        Tolerance::Float {
            abs: 1e-4,
            rel: 1e-6,
        },
    ),
    (
        "recon",
        Tolerance::Float {
            abs: 1e-4,
            rel: 1e-6,
        },
    ),
];

/// `C[k][x] = s(k) cos((2x + 1) k pi / 16)` as the kernel folds it.
pub fn coef(k: usize, x: usize) -> f32 {
    if k == 0 {
        return DC_SCALE;
    }
    let mut m = ((2 * x + 1) * k) & 31;
    if m > 16 {
        m = 32 - m;
    }
    if m > 8 {
        -HALF_COS[16 - m]
    } else {
        HALF_COS[m]
    }
}

/// The kernel's dot product: `out = sum_i w(i) v[i]` as `v0 w0` then an `fmaf` chain.
fn dot(v: &[f32; 8], w: impl Fn(usize) -> f32) -> f32 {
    let mut acc = v[0] * w(0);
    for (i, x) in v.iter().enumerate().skip(1) {
        acc = x.mul_add(w(i), acc);
    }
    acc
}

/// Output `k` of the 1-D transform of `v` (forward: `sum_x C[k][x] v[x]`, inverse:
/// `sum_x C[x][k] v[x]`).
fn transform(v: &[f32; 8], k: usize, inverse: bool) -> f32 {
    if inverse {
        dot(v, |i| coef(i, k))
    } else {
        dot(v, |i| coef(k, i))
    }
}

/// 2-D transform of every 8x8 block of a `width` x `height` row-major image: rows first
/// (through an intermediate tile), then columns, as the kernel does.
pub fn dct_blocks(img: &[f32], width: usize, height: usize, inverse: bool) -> Vec<f32> {
    let mut out = vec![0.0; width * height];
    for by in (0..height).step_by(8) {
        for bx in (0..width).step_by(8) {
            let mut tile = [[0.0f32; 8]; 8];
            for (r, trow) in tile.iter_mut().enumerate() {
                let s = (by + r) * width + bx;
                let v: [f32; 8] = img[s..s + 8].try_into().expect("8 pixels");
                for (k, t) in trow.iter_mut().enumerate() {
                    *t = transform(&v, k, inverse);
                }
            }
            for c in 0..8 {
                let v: [f32; 8] = std::array::from_fn(|i| tile[i][c]);
                for k in 0..8 {
                    out[(by + k) * width + bx + c] = transform(&v, k, inverse);
                }
            }
        }
    }
    out
}

/// Reference for the spec in `dct8x8.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("dct8x8", inputs);
    let img = i.f32("img", WIDTH * HEIGHT)?;
    let coef = dct_blocks(img, WIDTH, HEIGHT, false);
    let recon = dct_blocks(&coef, WIDTH, HEIGHT, true);
    Ok(outputs([
        ("coef", HostData::F32(coef)),
        ("recon", HostData::F32(recon)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The coefficients are the rounded exact values, and the same f32 bits as the PTX
    /// immediates NVRTC folded from the literals of dct8x8.cu.
    #[test]
    fn coefficients_match_math_and_ptx() {
        for k in 0..8 {
            for x in 0..8 {
                let s = if k == 0 { (0.125f64).sqrt() } else { 0.5 };
                let exact = s * (((2 * x + 1) * k) as f64 * std::f64::consts::PI / 16.0).cos();
                assert_eq!(coef(k, x), exact as f32, "C[{k}][{x}]");
            }
        }
        let ptx = include_str!("../../dct8x8/dct8x8.ptx");
        for &h in &HALF_COS[1..] {
            for v in [h, -h] {
                let imm = format!("0f{:08X}", v.to_bits());
                assert!(ptx.contains(&imm), "{v} ({imm}) not in dct8x8.ptx");
            }
        }
        assert!(ptx.contains(&format!("0f{:08X}", DC_SCALE.to_bits())));
    }

    #[test]
    fn rows_of_c_are_orthonormal() {
        for k in 0..8 {
            for l in 0..8 {
                let d: f64 = (0..8).map(|x| coef(k, x) as f64 * coef(l, x) as f64).sum();
                let want = if k == l { 1.0 } else { 0.0 };
                assert!((d - want).abs() < 1e-6, "row {k} . row {l} = {d}");
            }
        }
    }

    #[test]
    fn constant_block_has_only_a_dc_term_and_round_trips() {
        let img = vec![2.0f32; 16 * 8];
        let c = dct_blocks(&img, 16, 8, false);
        for (i, v) in c.iter().enumerate() {
            let (r, col) = (i / 16, i % 16);
            if r == 0 && col % 8 == 0 {
                assert!((v - 16.0).abs() < 1e-5, "DC {v}"); // 8 * mean
            } else {
                assert!(v.abs() < 1e-5, "AC[{r}][{col}] = {v}");
            }
        }
        let back = dct_blocks(&c, 16, 8, true);
        assert!(back.iter().all(|v| (v - 2.0).abs() < 1e-5));
    }

    #[test]
    fn spec_image_round_trips() {
        let w = crate::find("dct8x8").unwrap();
        let out = w.expected_outputs(crate::Size::Ci).unwrap();
        let init = w.load_spec(crate::Size::Ci).unwrap().initial_buffers();
        let (HostData::F32(img), HostData::F32(recon)) = (&init["img"], &out["recon"]) else {
            panic!("dtypes")
        };
        let worst = img
            .iter()
            .zip(recon)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-3, "round-trip error {worst}");
    }
}
