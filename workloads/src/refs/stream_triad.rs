//! `stream_triad`: `a[i] = b[i] + s * c[i]`, 65536 elements, s = 3. NVRTC contracts the
//! expression into one `fma.rn.f32(s, c, b)` (checked in the PTX), as here, so the result is
//! bit-identical; the tolerance (~2 ulps at |a| <= 4) leaves room for the unfused host
//! cross-check only.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Elements per array (spec arg `n`).
pub const N: usize = 65536;
/// The triad's scalar (spec arg `s`).
pub const S: f32 = 3.0;

/// See module docs.
pub const TOLERANCES: &[(&str, Tolerance)] = &[(
    "a",
    Tolerance::Float {
        abs: 1e-6,
        rel: 1e-6,
    },
)];

/// `b + s c`, fused.
pub fn triad(b: &[f32], c: &[f32], s: f32) -> Vec<f32> {
    b.iter().zip(c).map(|(&b, &c)| s.mul_add(c, b)).collect()
}

/// Reference for the spec in `stream_triad.toml`.
pub fn reference(inputs: &Buffers, _spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("stream_triad", inputs);
    // `a` is only written, but must be there (the spec's buffer)
    i.f32("a", N)?;
    let a = triad(i.f32("b", N)?, i.f32("c", N)?, S);
    Ok(outputs([("a", HostData::F32(a))]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triad_by_hand_and_fused() {
        assert_eq!(triad(&[1.0, -2.0], &[0.5, 1.0], 3.0), vec![2.5, 1.0]);
        // s c = (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46 is not an f32: fused, the 2^-46 survives
        // the add of -(1 + 2^-22); the product rounded first would give 0
        let (e, c) = (f32::EPSILON, 1.0 + f32::EPSILON);
        assert_eq!(triad(&[-1.0 - 2.0 * e], &[c], c)[0], 2f32.powi(-46));
    }
}
