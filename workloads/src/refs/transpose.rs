//! `transpose`: out = in^T for a rows x cols matrix (launch arguments 2 and 3; ci: 256 x 192);
//! data movement only, exact.

use regwatt_sim::launch::{HostData, LaunchSpec};

use super::{outputs, Inputs};
use crate::{Buffers, LaunchArgs, Tolerance, WorkloadError};

/// Pure copies: exact.
pub const TOLERANCES: &[(&str, Tolerance)] = &[("out", Tolerance::Exact)];

/// Row-major transpose of a rows x cols matrix.
pub fn transpose(x: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = x[r * cols + c];
        }
    }
    out
}

/// Reference for every size: `rows` and `cols` are the launch's arguments 2 and 3; `in` and
/// `out` hold `rows * cols` elements.
pub fn reference(inputs: &Buffers, spec: &LaunchSpec) -> Result<Buffers, WorkloadError> {
    let args = LaunchArgs::new("transpose", spec);
    let (rows, cols) = (args.int(0, 2, 1)?, args.int(0, 3, 1)?);
    let i = Inputs::new("transpose", inputs);
    // `out` is overwritten, but must be the spec's buffer of the same shape
    i.f32("out", rows * cols)?;
    Ok(outputs([(
        "out",
        HostData::F32(transpose(i.f32("in", rows * cols)?, rows, cols)),
    )]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_by_three() {
        assert_eq!(
            transpose(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2, 3),
            vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        );
    }

    #[test]
    fn shape_comes_from_the_spec() {
        let mut spec = crate::refs::ci_spec("transpose");
        spec.launches[0].args[2] = regwatt_sim::launch::LaunchArg::Int(2);
        spec.launches[0].args[3] = regwatt_sim::launch::LaunchArg::Int(3);
        let b = crate::refs::buffers([
            ("in", HostData::F32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
            ("out", HostData::F32(vec![0.0; 6])),
        ]);
        assert_eq!(
            reference(&b, &spec).unwrap()["out"],
            HostData::F32(vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0])
        );
        // a 2 x 3 input under the ci shape (256 x 192) is the wrong length
        let ci = crate::refs::ci_spec("transpose");
        assert!(matches!(
            reference(&b, &ci),
            Err(WorkloadError::InputLength {
                expected: 49152,
                actual: 6,
                ..
            })
        ));
    }
}
