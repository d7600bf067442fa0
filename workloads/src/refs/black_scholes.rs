//! `BlackScholes`: European call/put prices of n options; r, the volatility and n are launch
//! arguments 5, 6 and 7 (every size: r = 0.02, volatility 0.30; ci: n = 8192).
//!
//! Tolerance: the kernel uses CUDA `expf`/`logf` (<= 2 ulp), compiler-contracted FMAs in the
//! CND polynomial and the pricing formula; the reference evaluates the same formula with
//! separately rounded f32 operations. Prices lie in [0, 100]; `abs 1e-4 + rel 1e-4` covers these
//! rounding differences with margin, while any formula error is far larger.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Risk-free rate of the specs (launch argument 5).
#[cfg(test)]
const R: f32 = 0.02;
/// Volatility of the specs (launch argument 6).
#[cfg(test)]
const V: f32 = 0.30;

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    (
        "call",
        Tolerance::Float {
            abs: 1e-4,
            rel: 1e-4,
        },
    ),
    (
        "put",
        Tolerance::Float {
            abs: 1e-4,
            rel: 1e-4,
        },
    ),
];

/// Cumulative normal distribution, Abramowitz & Stegun 26.2.17 (5-term polynomial).
pub fn cnd(d: f32) -> f32 {
    const A1: f32 = 0.319_381_53;
    const A2: f32 = -0.356_563_78;
    const A3: f32 = 1.781_477_9;
    const A4: f32 = -1.821_256;
    const A5: f32 = 1.330_274_5;
    const RSQRT2PI: f32 = 0.398_942_3;
    let k = 1.0 / (1.0 + 0.231_641_9 * d.abs());
    let poly = k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5))));
    let c = RSQRT2PI * (-0.5 * d * d).exp() * poly;
    if d > 0.0 {
        1.0 - c
    } else {
        c
    }
}

/// (call, put) for spot `s`, strike `x`, expiry `t` years.
pub fn price(s: f32, x: f32, t: f32, r: f32, v: f32) -> (f32, f32) {
    let sqrt_t = t.sqrt();
    let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * sqrt_t);
    let d2 = d1 - v * sqrt_t;
    let (c1, c2) = (cnd(d1), cnd(d2));
    let disc = x * (-r * t).exp();
    (s * c1 - disc * c2, disc * (1.0 - c2) - s * (1.0 - c1))
}

/// Reference for every size: r, v and n from the launch (arguments 5, 6, 7; r and v are `float`
/// parameters, so rounded to f32 as the kernel receives them); `S`, `X`, `T` hold n values.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let args = LaunchArgs::new("BlackScholes", spec);
    let (r, v) = (args.float(0, 5)? as f32, args.float(0, 6)? as f32);
    let n = args.int(0, 7, 1)?;
    let i = Inputs::new("BlackScholes", inputs);
    let (s, x, t) = (i.f32("S", n)?, i.f32("X", n)?, i.f32("T", n)?);
    // the prices are overwritten, but must be the spec's buffers of n elements
    i.f32("call", n)?;
    i.f32("put", n)?;
    let (call, put): (Vec<f32>, Vec<f32>) = (0..n).map(|k| price(s[k], x[k], t[k], r, v)).unzip();
    Ok(outputs([
        ("call", HostData::F32(call)),
        ("put", HostData::F32(put)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cnd_known_values() {
        assert!((cnd(0.0) - 0.5).abs() < 1e-6);
        assert!((cnd(1.0) - 0.841_344_7).abs() < 1e-6); // Phi(1)
        assert!((cnd(-1.96) - 0.024_997_9).abs() < 1e-6);
    }

    #[test]
    fn textbook_option_and_put_call_parity() {
        // S = 100, K = 100, T = 1, r = 0.05, sigma = 0.2: call 10.4506, put 5.5735 (Hull).
        let (c, p) = price(100.0, 100.0, 1.0, 0.05, 0.2);
        assert!((c - 10.4506).abs() < 2e-3, "{c}");
        assert!((p - 5.5735).abs() < 2e-3, "{p}");
        // parity: C - P = S - K e^{-rT}
        let (c, p) = price(20.0, 35.0, 2.0, R, V);
        assert!(((c - p) - (20.0 - 35.0 * (-R * 2.0f32).exp())).abs() < 1e-4);
    }

    #[test]
    fn rates_and_count_come_from_the_spec() {
        use regwatt_sim::launch::LaunchArg;
        let mut spec = crate::refs::ci_spec("BlackScholes");
        let args = &mut spec.launches[0].args;
        (args[5], args[6], args[7]) = (
            LaunchArg::Float(0.05),
            LaunchArg::Float(0.2),
            LaunchArg::Int(1),
        );
        let one = |v: f32| HostData::F32(vec![v]);
        let b = crate::refs::buffers([
            ("S", one(100.0)),
            ("X", one(100.0)),
            ("T", one(1.0)),
            ("call", one(0.0)),
            ("put", one(0.0)),
        ]);
        let out = reference(&b, &spec).unwrap();
        let (c, p) = price(100.0, 100.0, 1.0, 0.05, 0.2);
        assert_eq!((&out["call"], &out["put"]), (&one(c), &one(p)));
        // the ci spec's n = 8192 does not match one option
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("BlackScholes")),
            Err(WorkloadError::InputLength {
                expected: 8192,
                actual: 1,
                ..
            })
        ));
    }
}
