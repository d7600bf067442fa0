//! `kmeans`: one assignment + update step, 4096 points x 4 features, k = 8.
//!
//! Distances use the kernel's explicit order `fma(dx,dx, fma(dy,dy, fma(dz,dz, dw*dw)))`, so
//! membership, counts and `maxdist` (a max, order-free) are exact. `sums` are float atomicAdds in
//! an order the hardware (or simulator) chooses: the reference adds in point order, and the
//! tolerance allows reassociation of ~600 terms in [0, 1] (sums <~ 600, ulp 6e-5):
//! `abs 1e-3 + rel 1e-5`; `new_centroids = sums / count` likewise `abs 1e-5 + rel 1e-5`.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Points.
pub const N: usize = 4096;
/// Clusters.
pub const K: usize = 8;

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

/// Reference for the spec in `kmeans.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("kmeans", inputs);
    let points = i.f32("points", 4 * N)?;
    let centroids = i.f32("centroids", 4 * K)?;
    let mut counts = i.i32("counts", K)?.to_vec();
    let mut sums = i.f32("sums", 4 * K)?.to_vec();
    let mut maxdist = i.f32("maxdist", K)?.to_vec();
    let mut membership = Vec::with_capacity(N);
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
    let new_centroids = (0..4 * K)
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
}
