//! `hotspot`: explicit steps of the 5-point thermal stencil (edges replicate), one per launch
//! (`ci`: 4 steps on 128x128).
//!
//! The reference evaluates exactly the compiled kernel's sequence (checked in hotspot.ptx):
//! `vert = (N + S) - (t + t)`, `horz = (W + E) - (t + t)`, `sink = amb - t`, then
//! `fma(sink, rz, fma(horz, rx, fma(vert, ry, power)))` and `t' = fma(that, cap_inv, t)`.
//! Temperatures are ~300-340 (ulp 3e-5): tolerance `abs 2e-4`, a few ulps.
//!
//! Every launch is one step: it reads arguments 1 (source) and 2 (destination, the other
//! temperature buffer), the grid's rows and columns (3, 4) and the coefficients (5..9).

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Grid side of the `ci` spec.
#[cfg(test)]
const SIDE: usize = 128;

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

/// Reference for every size of `hotspot`: each launch one step from its source buffer into its
/// destination (`temp_a` / `temp_b`), with its own coefficients.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let a = LaunchArgs::new("hotspot", spec);
    let (rows, cols) = (a.int(0, 3, 1)?, a.int(0, 4, 1)?);
    let i = Inputs::new("hotspot", inputs);
    let power = i.f32("power", rows * cols)?;
    let mut temp = [
        i.f32("temp_a", rows * cols)?.to_vec(),
        i.f32("temp_b", rows * cols)?.to_vec(),
    ];
    let slot = |l: usize, arg: usize| -> Result<usize, WorkloadError> {
        match a.buffer(l, arg)? {
            "temp_a" => Ok(0),
            "temp_b" => Ok(1),
            other => Err(a.launch_error(
                l,
                format!("argument {arg} is {other:?}; the steps ping-pong temp_a and temp_b"),
            )),
        }
    };
    for l in 0..a.launches() {
        a.expect_kernel(l, "hotspot_step")?;
        if a.buffer(l, 0)? != "power" || (a.int(l, 3, 1)?, a.int(l, 4, 1)?) != (rows, cols) {
            return Err(a.launch_error(
                l,
                format!("every step must read `power` on the {rows} x {cols} grid"),
            ));
        }
        let (src, dst) = (slot(l, 1)?, slot(l, 2)?);
        if src == dst {
            return Err(a.launch_error(l, "source and destination are the same buffer"));
        }
        let f = |arg| a.float(l, arg).map(|v| v as f32);
        let k = Coeffs {
            cap_inv: f(5)?,
            rx_inv: f(6)?,
            ry_inv: f(7)?,
            rz_inv: f(8)?,
            amb: f(9)?,
        };
        temp[dst] = step(power, &temp[src], rows, cols, &k);
    }
    let [a, b] = temp;
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
    fn sizes_and_buffers_come_from_the_launches() {
        let spec = crate::refs::ci_spec("hotspot");
        let init = spec.initial_buffers();
        let out = reference(&init, &spec).unwrap();
        assert_eq!(out["temp_a"].len(), SIDE * SIDE);
        // four steps a -> b -> a -> b -> a: temp_b holds step 3, temp_a step 4; one step fewer
        // leaves the result in temp_b
        let mut three = spec.clone();
        three.launches.pop();
        assert_eq!(reference(&init, &three).unwrap()["temp_b"], out["temp_b"]);
        // a power buffer too short for the 128 x 128 grid
        let mut bad = init.clone();
        bad.insert("power".into(), HostData::F32(vec![0.0; SIDE]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected, .. }) if expected == SIDE * SIDE
        ));
        // a step writing its own source
        let mut same = spec.clone();
        same.launches[1].args[2] = regwatt_sim::launch::LaunchArg::Buffer("temp_b".into());
        assert!(matches!(
            reference(&init, &same),
            Err(WorkloadError::Launch { launch: 1, .. })
        ));
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
