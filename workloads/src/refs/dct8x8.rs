//! `dct8x8`: forward then inverse orthonormal 2-D DCT-II of the 8x8 blocks of a width x height
//! image (`coef = C x C^T` per block, `recon = C^T coef C`; `ci`: 256 x 256). The width is both
//! launches' argument 2 and 64 x their grid's x; the height is 8 x their grid's y.
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
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Image side of the `ci` spec.
#[cfg(test)]
const SIDE: usize = 256;
/// Pixels per CTA strip (`DCT_STRIP` in dct8x8.cu).
pub const STRIP: usize = 64;

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

/// Reference for every size of `dct8x8`: the image covered by the forward launch's grid.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let a = LaunchArgs::new("dct8x8", spec);
    if a.launches() != 2 {
        return Err(a.launch_error(
            a.launches().min(2),
            format!(
                "{} launches, expected dct8x8_forward, dct8x8_inverse",
                a.launches()
            ),
        ));
    }
    a.expect_kernel(0, "dct8x8_forward")?;
    a.expect_kernel(1, "dct8x8_inverse")?;
    let width = a.int(0, 2, 1)?;
    let Some((grid, _)) = a.dims(0) else {
        return Err(a.launch_error(0, "missing"));
    };
    let height = 8 * grid[1] as usize;
    for l in 0..2 {
        let same_grid = a.dims(l).map(|(g, _)| g) == Some(grid);
        if a.int(l, 2, 1)? != width || grid[0] as usize * STRIP != width || !same_grid {
            return Err(a.launch_error(
                l,
                format!("both launches must pass width {width} = 64 x grid.x over the same grid"),
            ));
        }
    }
    let i = Inputs::new("dct8x8", inputs);
    let img = i.f32("img", width * height)?;
    for name in ["coef", "recon"] {
        i.f32(name, width * height)?;
    }
    let coef = dct_blocks(img, width, height, false);
    let recon = dct_blocks(&coef, width, height, true);
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

    #[test]
    fn sizes_come_from_the_launches() {
        let spec = crate::refs::ci_spec("dct8x8");
        let init = spec.initial_buffers();
        assert_eq!(reference(&init, &spec).unwrap()["coef"].len(), SIDE * SIDE);
        let mut bad = init.clone();
        bad.insert("img".into(), HostData::F32(vec![0.0; SIDE * SIDE - 8]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected, .. }) if expected == SIDE * SIDE
        ));
        // a width the grid does not cover
        let mut wide = spec.clone();
        wide.launches[0].args[2] = regwatt_sim::launch::LaunchArg::Int(320);
        assert!(matches!(
            reference(&init, &wide),
            Err(WorkloadError::Launch { launch: 0, .. })
        ));
        // half the rows: the first half of the image's blocks
        let mut half = spec.clone();
        for l in &mut half.launches {
            l.grid[1] /= 2;
        }
        let mut top = init.clone();
        for name in ["img", "coef", "recon"] {
            let HostData::F32(v) = &init[name] else {
                panic!("dtype")
            };
            top.insert(name.into(), HostData::F32(v[..SIDE * SIDE / 2].to_vec()));
        }
        let HostData::F32(c) = &reference(&top, &half).unwrap()["coef"] else {
            panic!("dtype")
        };
        let HostData::F32(full) = &reference(&init, &spec).unwrap()["coef"] else {
            panic!("dtype")
        };
        assert_eq!(c[..], full[..SIDE * SIDE / 2]);
    }
}
