//! `vectorAdd`: c = a + b. One IEEE addition per element, so the result is exact.

use regwatt_sim::launch::HostData;

use super::{outputs, Inputs};
use crate::{Buffers, Tolerance, WorkloadError};

/// Elements (spec: `n = 16384`).
pub const N: usize = 16384;

/// A single correctly rounded f32 add per element: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[("c", Tolerance::Exact)];

/// Element-wise sum.
pub fn add(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

/// Reference for the spec in `vectorAdd.toml`.
pub fn reference(inputs: &Buffers) -> Result<Buffers, WorkloadError> {
    let i = Inputs::new("vectorAdd", inputs);
    let c = add(i.f32("a", N)?, i.f32("b", N)?);
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
            reference(&b),
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
            reference(&b),
            Err(WorkloadError::MissingInput { .. })
        ));
        let b = buffers([
            ("a", HostData::I32(vec![0; N])),
            ("b", HostData::F32(vec![0.0; N])),
        ]);
        assert!(matches!(
            reference(&b),
            Err(WorkloadError::InputType { .. })
        ));
    }
}
