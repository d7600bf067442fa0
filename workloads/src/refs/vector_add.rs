//! `vectorAdd`: c = a + b. One IEEE addition per element, so the result is exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Elements of the `ci` spec (`n = 16384`; every size passes its `n` as argument 3).
#[cfg(test)]
const N: usize = 16384;

/// A single correctly rounded f32 add per element: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[("c", Tolerance::Exact)];

/// Element-wise sum.
pub fn add(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

/// Reference for every size of `vectorAdd`: `n` is the launch's argument 3.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let n = crate::LaunchArgs::new("vectorAdd", spec).int(0, 3, 1)?;
    let i = Inputs::new("vectorAdd", inputs);
    let c = add(i.f32("a", n)?, i.f32("b", n)?);
    Ok(outputs([("c", HostData::F32(c))]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refs::buffers;

    #[test]
    fn adds_elementwise() {
        assert_eq!(
            add(&[1.0, 2.5, -3.0], &[0.5, -2.5, 1.0]),
            vec![1.5, 0.0, -2.0]
        );
    }

    #[test]
    fn wrong_length_is_an_error() {
        let b = buffers([
            ("a", HostData::F32(vec![0.0; 3])),
            ("b", HostData::F32(vec![0.0; N])),
        ]);
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("vectorAdd")),
            Err(WorkloadError::InputLength {
                expected: N,
                actual: 3,
                ..
            })
        ));
    }

    #[test]
    fn missing_and_mistyped_inputs_are_errors() {
        let b = buffers([("a", HostData::F32(vec![0.0; N]))]);
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("vectorAdd")),
            Err(WorkloadError::MissingInput { .. })
        ));
        let b = buffers([
            ("a", HostData::I32(vec![0; N])),
            ("b", HostData::F32(vec![0.0; N])),
        ]);
        assert!(matches!(
            reference(&b, &crate::refs::ci_spec("vectorAdd")),
            Err(WorkloadError::InputType { .. })
        ));
    }
}
