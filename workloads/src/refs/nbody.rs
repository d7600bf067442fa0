//! `nbody`: one softened all-pairs step of 512 bodies stored as float4 (x, y, z, mass).
//!
//! The reference follows the kernel's explicit FMA order (j = 0 .. n-1, r2 = fma(dx,dx,
//! fma(dy,dy, fma(dz,dz, eps2))), s = m * inv * inv * inv), but uses the correctly rounded
//! 1/sqrt where the kernel uses `rsqrtf` (`rsqrt.approx.f32`, ~2 ulp). Those differences enter
//! through 512 accumulated terms scaled by dt = 0.001, so velocities/positions (|.| <~ 1) agree
//! to well within `abs 1e-5 + rel 1e-5`.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Bodies.
pub const N: usize = 512;
/// Time step (spec arg).
pub const DT: f32 = 0.001;
/// Softening squared (spec arg).
pub const EPS2: f32 = 0.01;

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    (
        "pos_out",
        Tolerance::Float {
            abs: 1e-5,
            rel: 1e-5,
        },
    ),
    (
        "vel_out",
        Tolerance::Float {
            abs: 1e-5,
            rel: 1e-5,
        },
    ),
];

/// One step; `pos` and `vel` are n float4 records. Returns (pos_out, vel_out).
pub fn step(pos: &[f32], vel: &[f32], n: usize, dt: f32, eps2: f32) -> (Vec<f32>, Vec<f32>) {
    let mut pos_out = pos.to_vec();
    let mut vel_out = vel.to_vec();
    for i in 0..n {
        let p = &pos[4 * i..4 * i + 4];
        let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
        for j in 0..n {
            let q = &pos[4 * j..4 * j + 4];
            let (dx, dy, dz) = (q[0] - p[0], q[1] - p[1], q[2] - p[2]);
            let r2 = dx.mul_add(dx, dy.mul_add(dy, dz.mul_add(dz, eps2)));
            let inv = (1.0 / (r2 as f64).sqrt()) as f32;
            let s = q[3] * inv * inv * inv;
            ax = dx.mul_add(s, ax);
            ay = dy.mul_add(s, ay);
            az = dz.mul_add(s, az);
        }
        let v = &mut vel_out[4 * i..4 * i + 4];
        v[0] = ax.mul_add(dt, v[0]);
        v[1] = ay.mul_add(dt, v[1]);
        v[2] = az.mul_add(dt, v[2]);
        let (vx, vy, vz) = (v[0], v[1], v[2]);
        let po = &mut pos_out[4 * i..4 * i + 4];
        po[0] = vx.mul_add(dt, po[0]);
        po[1] = vy.mul_add(dt, po[1]);
        po[2] = vz.mul_add(dt, po[2]);
    }
    (pos_out, vel_out)
}

/// Reference for the spec in `nbody.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("nbody", inputs);
    let (p, v) = step(i.f32("pos", 4 * N)?, i.f32("vel", 4 * N)?, N, DT, EPS2);
    Ok(outputs([
        ("pos_out", HostData::F32(p)),
        ("vel_out", HostData::F32(v)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_bodies_attract() {
        // Unit masses 1 apart on x, eps2 ~ 0: a = 1 toward the other; self term is 0.
        let pos = [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0];
        let vel = [0.0; 8];
        let (p, v) = step(&pos, &vel, 2, 0.5, 1e-12);
        assert!((v[0] - 0.5).abs() < 1e-6 && (v[4] + 0.5).abs() < 1e-6);
        assert!((p[0] - 0.25).abs() < 1e-6 && (p[4] - 0.75).abs() < 1e-6);
        assert_eq!((p[3], p[7]), (1.0, 1.0)); // masses carried through
    }
}
