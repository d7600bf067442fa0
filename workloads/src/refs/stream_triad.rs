//! `stream_triad`: `a[i] = b[i] + s * c[i]` over n elements, s and n launch arguments 3 and 4
//! (every size: s = 3; ci: n = 65536). NVRTC contracts the expression into one
//! `fma.rn.f32(s, c, b)` (checked in the PTX), as here, so the result is bit-identical; the
//! tolerance (~2 ulps at |a| <= 4) leaves room for the unfused host cross-check only.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Elements per array of the `ci` spec (spec arg `n`).
#[cfg(test)]
pub const N: usize = 65536;

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

/// Reference for every size: s (a `float` parameter: rounded to f32) and n from the launch; the
/// three arrays hold n elements. The loop is grid-stride: any grid covers the arrays.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let args = LaunchArgs::new("stream_triad", spec);
    let (s, n) = (args.float(0, 3)? as f32, args.int(0, 4, 1)?);
    let i = Inputs::new("stream_triad", inputs);
    // `a` is only written, but must be there (the spec's buffer)
    i.f32("a", n)?;
    let a = triad(i.f32("b", n)?, i.f32("c", n)?, s);
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

    #[test]
    fn scalar_and_length_come_from_the_spec() {
        use regwatt_sim::launch::LaunchArg;
        let mut spec = crate::refs::ci_spec("stream_triad");
        (spec.launches[0].args[3], spec.launches[0].args[4]) =
            (LaunchArg::Float(-2.0), LaunchArg::Int(2));
        let b = crate::refs::buffers([
            ("a", HostData::F32(vec![9.0; 2])),
            ("b", HostData::F32(vec![1.0, 2.0])),
            ("c", HostData::F32(vec![0.5, -1.0])),
        ]);
        assert_eq!(
            reference(&b, &spec).unwrap()["a"],
            HostData::F32(vec![0.0, 4.0])
        );
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("stream_triad")),
            Err(WorkloadError::InputLength {
                expected: N,
                actual: 2,
                ..
            })
        ));
    }
}
