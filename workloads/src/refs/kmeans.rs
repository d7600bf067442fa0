//! `kmeans`: one assignment + update step, n points x 4 features, k clusters (`ci`: 4096
//! points, k = 8; n and k are `kmeans_assign`'s arguments 6 and 7, k at most 32, the kernel's
//! shared centroid table).
//!
//! Distances use the kernel's explicit order `fma(dx,dx, fma(dy,dy, fma(dz,dz, dw*dw)))`, so
//! membership, counts and `maxdist` (a max, order-free) are exact. `sums` are float atomicAdds in
//! an order the hardware (or simulator) chooses: the reference adds in point order, and the
//! tolerance allows reassociation of ~600 terms in [0, 1] (`ci`: sums <~ 600, ulp 6e-5):
//! `abs 1e-3 + rel 1e-5`; `new_centroids = sums / count` likewise `abs 1e-5 + rel 1e-5`. With
//! ~10^5 points per cluster (`paper`) the relative bound still holds while the order departs
//! from point order only locally (the simulators take warps and CTAs roughly in index order);
//! a random order of m terms would differ by ~sqrt(m) ulps of the sum, ~2e-5 relative at 10^5.
//! Counts are exact, so a lost or repeated point fails the check whatever the sums' slack.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Points of the `ci` spec.
#[cfg(test)]
const N: usize = 4096;
/// Clusters of the `ci` spec.
#[cfg(test)]
const K: usize = 8;
/// Most clusters the kernel holds (`__shared__ float4 c[32]`).
pub const MAX_K: usize = 32;

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[
    ("maxdist", Tolerance::Exact),
    (
        "sums",
        Tolerance::Float {
            abs: 1e-3,
            rel: 1e-5,
        },
    ),
    (
        "new_centroids",
        Tolerance::Float {
            abs: 1e-5,
            rel: 1e-5,
        },
    ),
];

/// Squared distance in the kernel's FMA order.
pub fn dist2(p: &[f32], c: &[f32]) -> f32 {
    let (dx, dy, dz, dw) = (p[0] - c[0], p[1] - c[1], p[2] - c[2], p[3] - c[3]);
    dx.mul_add(dx, dy.mul_add(dy, dz.mul_add(dz, dw * dw)))
}

/// Nearest centroid (lowest index on ties) and its squared distance.
pub fn nearest(p: &[f32], centroids: &[f32]) -> (usize, f32) {
    let mut best = (0, f32::MAX);
    for (j, c) in centroids.chunks_exact(4).enumerate() {
        let d = dist2(p, c);
        if d < best.1 {
            best = (j, d);
        }
    }
    best
}

/// Reference for every size of `kmeans`: n and k from `kmeans_assign`, k again from
/// `kmeans_update`.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let a = LaunchArgs::new("kmeans", spec);
    if a.launches() != 2 {
        return Err(a.launch_error(
            a.launches().min(2),
            format!(
                "{} launches, expected kmeans_assign, kmeans_update",
                a.launches()
            ),
        ));
    }
    a.expect_kernel(0, "kmeans_assign")?;
    a.expect_kernel(1, "kmeans_update")?;
    let (n, k) = (a.int(0, 6, 1)?, a.int(0, 7, 1)?);
    if k > MAX_K {
        return Err(a.launch_error(
            0,
            format!("k = {k}; the kernel holds at most {MAX_K} centroids"),
        ));
    }
    if a.int(1, 4, 1)? != k {
        return Err(a.launch_error(1, format!("kmeans_update must pass k = {k}")));
    }
    let i = Inputs::new("kmeans", inputs);
    let points = i.f32("points", 4 * n)?;
    let centroids = i.f32("centroids", 4 * k)?;
    i.i32("membership", n)?;
    i.f32("new_centroids", 4 * k)?;
    let mut counts = i.i32("counts", k)?.to_vec();
    let mut sums = i.f32("sums", 4 * k)?.to_vec();
    let mut maxdist = i.f32("maxdist", k)?.to_vec();
    let mut membership = Vec::with_capacity(n);
    for p in points.chunks_exact(4) {
        let (j, d) = nearest(p, centroids);
        membership.push(j as i32);
        counts[j] = counts[j].wrapping_add(1);
        for f in 0..4 {
            sums[4 * j + f] += p[f];
        }
        if maxdist[j] < d {
            maxdist[j] = d;
        }
    }
    let new_centroids = (0..4 * k)
        .map(|t| {
            let cnt = counts[t / 4];
            if cnt > 0 {
                sums[t] / cnt as f32
            } else {
                centroids[t]
            }
        })
        .collect();
    Ok(outputs([
        ("membership", HostData::I32(membership)),
        ("counts", HostData::I32(counts)),
        ("sums", HostData::F32(sums)),
        ("maxdist", HostData::F32(maxdist)),
        ("new_centroids", HostData::F32(new_centroids)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_and_ties() {
        let c = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
        assert_eq!(nearest(&[0.75; 4], &c), (1, 0.25));
        assert_eq!(nearest(&[0.5, 0.5, 0.5, 0.5], &c), (0, 1.0)); // tie -> lower index
        assert_eq!(dist2(&[1.0, 2.0, 3.0, 4.0], &[0.0; 4]), 30.0);
    }

    #[test]
    fn sizes_come_from_the_launches() {
        let spec = crate::refs::ci_spec("kmeans");
        let init = spec.initial_buffers();
        let out = reference(&init, &spec).unwrap();
        assert_eq!((out["membership"].len(), out["counts"].len()), (N, K));
        let mut bad = init.clone();
        bad.insert("points".into(), HostData::F32(vec![0.0; 4 * N - 4]));
        assert!(matches!(
            reference(&bad, &spec),
            Err(WorkloadError::InputLength { expected, .. }) if expected == 4 * N
        ));
        let mut big_k = spec.clone();
        big_k.launches[0].args[7] = regwatt_sim::launch::LaunchArg::Int(33);
        assert!(matches!(
            reference(&init, &big_k),
            Err(WorkloadError::Launch { launch: 0, .. })
        ));
        let mut other_k = spec.clone();
        other_k.launches[1].args[4] = regwatt_sim::launch::LaunchArg::Int(7);
        assert!(matches!(
            reference(&init, &other_k),
            Err(WorkloadError::Launch { launch: 1, .. })
        ));
    }
}
