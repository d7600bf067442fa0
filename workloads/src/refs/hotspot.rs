//! `hotspot`: 4 explicit steps of the 5-point thermal stencil on 128x128 (edges replicate).
//!
//! The reference evaluates exactly the compiled kernel's sequence (checked in hotspot.ptx):
//! `vert = (N + S) - (t + t)`, `horz = (W + E) - (t + t)`, `sink = amb - t`, then
//! `fma(sink, rz, fma(horz, rx, fma(vert, ry, power)))` and `t' = fma(that, cap_inv, t)`.
//! Temperatures are ~300-340 (ulp 3e-5): tolerance `abs 2e-4`, a few ulps.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Grid side.
pub const SIDE: usize = 128;
/// Steps (launches).
pub const STEPS: usize = 4;

/// Stencil coefficients (spec args).
#[derive(Clone, Copy, Debug)]
pub struct Coeffs {
    /// step / capacitance.
    pub cap_inv: f32,
    /// 1 / R_x.
    pub rx_inv: f32,
    /// 1 / R_y.
    pub ry_inv: f32,
    /// 1 / R_z.
    pub rz_inv: f32,
    /// Ambient temperature.
    pub amb: f32,
}

/// The spec's coefficients.
pub const COEFFS: Coeffs = Coeffs {
    cap_inv: 0.2,
    rx_inv: 1.0,
    ry_inv: 1.0,
    rz_inv: 0.1,
    amb: 300.0,
};

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    (
        "temp_a",
        Tolerance::Float {
            abs: 2e-4,
            rel: 0.0,
        },
    ),
    (
        "temp_b",
        Tolerance::Float {
            abs: 2e-4,
            rel: 0.0,
        },
    ),
];

/// One step on a rows x cols grid.
pub fn step(power: &[f32], t: &[f32], rows: usize, cols: usize, k: &Coeffs) -> Vec<f32> {
    let mut out = vec![0.0f32; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            let tc = t[r * cols + c];
            let n = t[r.saturating_sub(1) * cols + c];
            let s = t[(r + 1).min(rows - 1) * cols + c];
            let w = t[r * cols + c.saturating_sub(1)];
            let e = t[r * cols + (c + 1).min(cols - 1)];
            let two = tc + tc;
            let vert = (n + s) - two;
            let horz = (w + e) - two;
            let sink = k.amb - tc;
            let sum = sink.mul_add(
                k.rz_inv,
                horz.mul_add(k.rx_inv, vert.mul_add(k.ry_inv, power[r * cols + c])),
            );
            out[r * cols + c] = sum.mul_add(k.cap_inv, tc);
        }
    }
    out
}

/// Reference for the spec in `hotspot.toml` (a -> b -> a -> b -> a).
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("hotspot", inputs);
    let power = i.f32("power", SIDE * SIDE)?;
    let mut a = i.f32("temp_a", SIDE * SIDE)?.to_vec();
    let mut b = i.f32("temp_b", SIDE * SIDE)?.to_vec();
    for s in 0..STEPS {
        if s % 2 == 0 {
            b = step(power, &a, SIDE, SIDE, &COEFFS);
        } else {
            a = step(power, &b, SIDE, SIDE, &COEFFS);
        }
    }
    Ok(outputs([
        ("temp_a", HostData::F32(a)),
        ("temp_b", HostData::F32(b)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_field_relaxes_to_ambient() {
        let k = Coeffs {
            cap_inv: 0.5,
            rx_inv: 1.0,
            ry_inv: 1.0,
            rz_inv: 0.5,
            amb: 300.0,
        };
        let out = step(&[0.0; 4], &[310.0; 4], 2, 2, &k);
        assert_eq!(out, vec![307.5; 4]); // 310 + 0.5 * 0.5 * (300 - 310)
    }

    #[test]
    fn hot_cell_spreads_with_replicated_edges() {
        let k = Coeffs {
            cap_inv: 0.1,
            rx_inv: 1.0,
            ry_inv: 1.0,
            rz_inv: 0.0,
            amb: 0.0,
        };
        // 1x3 row: 0 10 0; vertical neighbours replicate (no vertical flux).
        let out = step(&[0.0; 3], &[0.0, 10.0, 0.0], 1, 3, &k);
        assert_eq!(out, vec![1.0, 8.0, 1.0]);
    }
}
