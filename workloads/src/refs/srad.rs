//! `srad`: SRAD iterations, `srad_coef` then `srad_update` each (`ci`: 2 iterations on a 64x64
//! image, q0^2 = 0.08, lambda = 0.5). Rows and columns are arguments 6 and 7 of every launch,
//! q0^2 argument 8 of `srad_coef` and lambda argument 8 of `srad_update`; the reference replays
//! the launches in order.
//!
//! The reference follows the source formula with separately rounded operations; the compiler
//! contracts several products into FMAs (srad.ptx) and reorders the squared-gradient sum, so
//! values differ by a few ulps, amplified at most ~100x by the coefficient's rational function
//! (near-clamped pixels). J ~ 1 and differences ~0.5: tolerance `abs 1e-4 + rel 1e-4`.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Image side of the `ci` spec.
#[cfg(test)]
const SIDE: usize = 64;

const TOL: Tolerance = Tolerance::Float {
    abs: 1e-4,
    rel: 1e-4,
};
/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    ("J", TOL),
    ("c", TOL),
    ("dN", TOL),
    ("dS", TOL),
    ("dW", TOL),
    ("dE", TOL),
];

/// Coefficient and directional differences of one iteration: (c, dN, dS, dW, dE).
#[allow(clippy::type_complexity)]
pub fn coefficients(
    j: &[f32],
    rows: usize,
    cols: usize,
    q0sqr: f32,
) -> (Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>, Vec<f32>) {
    let len = rows * cols;
    let (mut c, mut dn, mut ds, mut dw, mut de) = (
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
        vec![0.0; len],
    );
    for y in 0..rows {
        for x in 0..cols {
            let idx = y * cols + x;
            let jc = j[idx];
            let n = j[y.saturating_sub(1) * cols + x] - jc;
            let s = j[(y + 1).min(rows - 1) * cols + x] - jc;
            let w = j[y * cols + x.saturating_sub(1)] - jc;
            let e = j[y * cols + (x + 1).min(cols - 1)] - jc;
            let g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
            let l = (n + s + w + e) / jc;
            let num = 0.5 * g2 - 0.0625 * (l * l);
            let den = 1.0 + 0.25 * l;
            let qsqr = num / (den * den);
            let den = (qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr));
            let cc = 1.0 / (1.0 + den);
            c[idx] = cc.clamp(0.0, 1.0); // NaN stays NaN, as in the kernel
            (dn[idx], ds[idx], dw[idx], de[idx]) = (n, s, w, e);
        }
    }
    (c, dn, ds, dw, de)
}

/// One update of J in place.
#[allow(clippy::too_many_arguments)]
pub fn update(
    j: &mut [f32],
    c: &[f32],
    dn: &[f32],
    ds: &[f32],
    dw: &[f32],
    de: &[f32],
    rows: usize,
    cols: usize,
    lambda: f32,
) {
    for y in 0..rows {
        for x in 0..cols {
            let idx = y * cols + x;
            let cs = c[(y + 1).min(rows - 1) * cols + x];
            let ce = c[y * cols + (x + 1).min(cols - 1)];
            let d = c[idx] * dn[idx] + cs * ds[idx] + c[idx] * dw[idx] + ce * de[idx];
            j[idx] += 0.25 * lambda * d;
        }
    }
}

/// Reference for every size of `srad`: the coefficient and update launches in spec order.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let a = LaunchArgs::new("srad", spec);
    let (rows, cols) = (a.int(0, 6, 1)?, a.int(0, 7, 1)?);
    let i = Inputs::new("srad", inputs);
    let len = rows * cols;
    let mut j = i.f32("J", len)?.to_vec();
    let mut state = (
        i.f32("c", len)?.to_vec(),
        i.f32("dN", len)?.to_vec(),
        i.f32("dS", len)?.to_vec(),
        i.f32("dW", len)?.to_vec(),
        i.f32("dE", len)?.to_vec(),
    );
    for l in 0..a.launches() {
        if (a.int(l, 6, 1)?, a.int(l, 7, 1)?) != (rows, cols) {
            return Err(a.launch_error(l, format!("every launch must pass {rows} x {cols}")));
        }
        let names = ["J", "c", "dN", "dS", "dW", "dE"];
        for (arg, name) in names.into_iter().enumerate() {
            if a.buffer(l, arg)? != name {
                return Err(a.launch_error(
                    l,
                    format!(
                        "argument {arg} must be {name} (the buffers {})",
                        names.join(", ")
                    ),
                ));
            }
        }
        let value = a.float(l, 8)? as f32;
        match spec.launches[l].kernel.as_str() {
            "srad_coef" => state = coefficients(&j, rows, cols, value),
            "srad_update" => {
                let (c, dn, ds, dw, de) = &state;
                update(&mut j, c, dn, ds, dw, de, rows, cols, value);
            }
            other => return Err(a.launch_error(l, format!("unknown kernel {other}"))),
        }
    }
    let (c, dn, ds, dw, de) = state;
    Ok(outputs([
        ("J", HostData::F32(j)),
        ("c", HostData::F32(c)),
        ("dN", HostData::F32(dn)),
        ("dS", HostData::F32(ds)),
        ("dW", HostData::F32(dw)),
        ("dE", HostData::F32(de)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_image_is_a_fixed_point() {
        // No gradients: q = 0, c = 1 / (1 - 1/(1+q0^2)) = (1+q0^2)/q0^2 > 1 -> clamped to 1.
        let j0 = vec![2.0f32; 9];
        let (c, dn, ..) = coefficients(&j0, 3, 3, 0.25);
        assert_eq!(c, vec![1.0; 9]);
        assert_eq!(dn, vec![0.0; 9]);
        let mut j = j0.clone();
        let z = vec![0.0; 9];
        update(&mut j, &c, &z, &z, &z, &z, 3, 3, 0.5);
        assert_eq!(j, j0);
    }

    #[test]
    fn single_bump_diffuses() {
        // 1x3 image 1 2 1 with c forced to 1: centre gets 0.25*lambda*(-1 -1) .
        let mut j = vec![1.0f32, 2.0, 1.0];
        let (_, dn, ds, dw, de) = coefficients(&j, 1, 3, 0.08);
        assert_eq!((dw[1], de[1], dn[1], ds[1]), (-1.0, -1.0, 0.0, 0.0));
        update(&mut j, &[1.0; 3], &dn, &ds, &dw, &de, 1, 3, 1.0);
        assert_eq!(j, vec![1.25, 1.5, 1.25]);
    }

    #[test]
    fn sizes_come_from_the_launches() {
        let spec = crate::refs::ci_spec("srad");
        let init = spec.initial_buffers();
        let out = reference(&init, &spec).unwrap();
        assert_eq!(out["J"].len(), SIDE * SIDE);
        // one iteration fewer: J differs, and the reference follows the launches
        let mut one = spec.clone();
        one.launches.truncate(2);
        assert_ne!(reference(&init, &one).unwrap()["J"], out["J"]);
        let mut bad = init.clone();
        bad.insert("dE".into(), HostData::F32(vec![0.0; SIDE]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected, .. }) if expected == SIDE * SIDE
        ));
        let mut other = spec.clone();
        other.launches[3].args[7] = regwatt_sim::launch::LaunchArg::Int(32);
        assert!(matches!(
            reference(&init, &other),
            Err(WorkloadError::Launch { launch: 3, .. })
        ));
    }
}
