//! `nbody`: one softened all-pairs step of n bodies stored as float4 (x, y, z, mass); n, dt and
//! eps^2 are launch arguments 4, 5 and 6 (ci: n = 512, dt = 0.001, eps^2 = 0.01).
//!
//! The reference follows the kernel's explicit FMA order (j = 0 .. n-1, r2 = fma(dx,dx,
//! fma(dy,dy, fma(dz,dz, eps2))), s = m * inv * inv * inv), but uses the correctly rounded
//! 1/sqrt where the kernel uses `rsqrtf` (`rsqrt.approx.f32`, ~2 ulp). Those differences enter
//! through n accumulated terms scaled by dt = 0.001, so velocities/positions (|.| <~ 1) agree
//! to within `abs 1e-5 + rel 1e-5`: with margin at ci (n = 512); the specs' larger sizes (1920
//! and 15360 bodies) pass it as well.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

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

/// Reference for every size: n, dt and eps^2 from the launch (arguments 4, 5, 6); the four
/// buffers hold n float4 records. The kernel has no bounds guard and stages `blockDim.x` bodies
/// at a time through a 128-entry shared tile, so the launch must be exactly n threads in blocks
/// of at most 128 that divide n.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let args = LaunchArgs::new("nbody", spec);
    let n = args.int(0, 4, 1)?;
    let (dt, eps2) = (args.float(0, 5)? as f32, args.float(0, 6)? as f32);
    if let Some(([grid, gy, gz], [block, by, bz])) = args.dims(0) {
        let (grid, block) = (grid as usize, block as usize);
        if block > 128 || by * bz * gy * gz != 1 || grid * block != n {
            return Err(WorkloadError::LaunchArg {
                workload: "nbody",
                launch: 0,
                arg: 4,
                reason: format!(
                    "n = {n} needs a 1-D launch of n threads in blocks of at most 128, the launch has {grid}x{gy}x{gz} blocks of {block}x{by}x{bz}"
                ),
            });
        }
    }
    let i = Inputs::new("nbody", inputs);
    // the outputs are overwritten, but must be the spec's buffers of n records
    i.f32("pos_out", 4 * n)?;
    i.f32("vel_out", 4 * n)?;
    let (p, v) = step(i.f32("pos", 4 * n)?, i.f32("vel", 4 * n)?, n, dt, eps2);
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

    #[test]
    fn size_and_constants_come_from_the_spec() {
        use regwatt_sim::launch::LaunchArg;
        let mut spec = crate::refs::ci_spec("nbody");
        let l = &mut spec.launches[0];
        (l.grid, l.block) = ([1, 1, 1], [2, 1, 1]);
        (l.args[4], l.args[5], l.args[6]) = (
            LaunchArg::Int(2),
            LaunchArg::Float(0.5),
            LaunchArg::Float(1e-12),
        );
        let rec = |v: &[f32]| HostData::F32(v.to_vec());
        let b = crate::refs::buffers([
            ("pos", rec(&[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0])),
            ("vel", rec(&[0.0; 8])),
            ("pos_out", rec(&[0.0; 8])),
            ("vel_out", rec(&[0.0; 8])),
        ]);
        let (p, v) = step(
            &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0],
            &[0.0; 8],
            2,
            0.5,
            1e-12,
        );
        let out = reference(&b, &spec).unwrap();
        assert_eq!((&out["pos_out"], &out["vel_out"]), (&rec(&p), &rec(&v)));
        // a launch of more threads than bodies would read past the arrays
        spec.launches[0].grid = [2, 1, 1];
        assert!(matches!(
            reference(&b, &spec),
            Err(WorkloadError::LaunchArg { arg: 4, .. })
        ));
        // the ci spec's 512 bodies do not match two
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("nbody")),
            Err(WorkloadError::InputLength {
                expected: 2048,
                actual: 8,
                ..
            })
        ));
    }
}
