//! Comparing simulated buffers with reference buffers.
//!
//! Tolerance policy: integer buffers (and floating-point buffers whose kernel arithmetic the
//! reference reproduces operation for operation, e.g. `vectorAdd`) are compared exactly.
//! Other floating-point buffers pass element `i` when `|actual - expected| <= abs + rel *
//! |expected|`; each workload documents why its `abs`/`rel` are what they are (transcendental
//! approximations, atomics in unspecified order, compiler-chosen FMA contraction). Two NaNs
//! compare equal; `+0.0 == -0.0`.

use std::collections::BTreeMap;
use std::fmt;

use regwatt_sim::launch::{DType, HostData, LaunchSpec};

use crate::Workload;

/// How closely one output buffer must match its reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// Equal values (for floats: `==`, or both NaN).
    Exact,
    /// `|actual - expected| <= abs + rel * |expected|` (floats only; integers are always exact).
    Float {
        /// Absolute allowance.
        abs: f64,
        /// Allowance relative to `|expected|`.
        rel: f64,
    },
}

impl Tolerance {
    /// True when `actual` is close enough to `expected`.
    pub fn accepts(&self, expected: f64, actual: f64) -> bool {
        if expected.is_nan() || actual.is_nan() {
            return expected.is_nan() && actual.is_nan();
        }
        if expected == actual {
            return true;
        }
        match *self {
            Tolerance::Exact => false,
            Tolerance::Float { abs, rel } => {
                (actual - expected).abs() <= abs + rel * expected.abs()
            }
        }
    }
}

impl fmt::Display for Tolerance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tolerance::Exact => write!(f, "exact"),
            Tolerance::Float { abs, rel } => write!(f, "abs {abs:e} + rel {rel:e}"),
        }
    }
}

/// The first difference found between expected and actual buffers.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Mismatch {
    /// A buffer with a reference value is absent from the actual results.
    #[error("workload {workload}: buffer {buffer:?} missing from the results")]
    MissingBuffer {
        /// Workload name.
        workload: String,
        /// Buffer name.
        buffer: String,
    },
    /// The actual buffer has another element type.
    #[error("workload {workload}: buffer {buffer:?} has dtype {actual:?}, expected {expected:?}")]
    DType {
        /// Workload name.
        workload: String,
        /// Buffer name.
        buffer: String,
        /// Reference type.
        expected: DType,
        /// Actual type.
        actual: DType,
    },
    /// The actual buffer has another length.
    #[error("workload {workload}: buffer {buffer:?} has {actual} elements, expected {expected}")]
    Length {
        /// Workload name.
        workload: String,
        /// Buffer name.
        buffer: String,
        /// Reference length.
        expected: usize,
        /// Actual length.
        actual: usize,
    },
    /// An element differs by more than the tolerance.
    #[error(
        "workload {workload}: buffer {buffer:?}[{index}] = {actual}, expected {expected} \
         (tolerance {tolerance}; {count} of {len} elements differ)"
    )]
    Value {
        /// Workload name.
        workload: String,
        /// Buffer name.
        buffer: String,
        /// First mismatching element.
        index: usize,
        /// Reference value (printed exactly).
        expected: String,
        /// Simulated value.
        actual: String,
        /// The tolerance applied.
        tolerance: Tolerance,
        /// How many elements of this buffer differ.
        count: usize,
        /// Buffer length.
        len: usize,
    },
}

/// Element `i` as `f64` (exact for every dtype but 64-bit integers above 2^53, which are compared
/// separately).
fn value(d: &HostData, i: usize) -> f64 {
    match d {
        HostData::F32(v) => v[i] as f64,
        HostData::F64(v) => v[i],
        HostData::I8(v) => v[i] as f64,
        HostData::U8(v) => v[i] as f64,
        HostData::I16(v) => v[i] as f64,
        HostData::U16(v) => v[i] as f64,
        HostData::I32(v) => v[i] as f64,
        HostData::U32(v) => v[i] as f64,
        HostData::I64(v) => v[i] as f64,
        HostData::U64(v) => v[i] as f64,
    }
}

/// Element `i` as text (for a mismatch report only: formatting every element made the check
/// cost as much as a small simulation).
fn text(d: &HostData, i: usize) -> String {
    match d {
        HostData::F32(v) => format!("{:?}", v[i]),
        HostData::F64(v) => format!("{:?}", v[i]),
        HostData::I8(v) => v[i].to_string(),
        HostData::U8(v) => v[i].to_string(),
        HostData::I16(v) => v[i].to_string(),
        HostData::U16(v) => v[i].to_string(),
        HostData::I32(v) => v[i].to_string(),
        HostData::U32(v) => v[i].to_string(),
        HostData::I64(v) => v[i].to_string(),
        HostData::U64(v) => v[i].to_string(),
    }
}

/// Integer element equality without going through `f64`.
fn int_equal(e: &HostData, a: &HostData, i: usize) -> Option<bool> {
    match (e, a) {
        (HostData::I64(x), HostData::I64(y)) => Some(x[i] == y[i]),
        (HostData::U64(x), HostData::U64(y)) => Some(x[i] == y[i]),
        _ => None,
    }
}

/// Compares one buffer; `Err` describes the first mismatch.
// A mismatch is the cold end of a test run; its size does not matter.
#[allow(clippy::result_large_err)]
pub fn check_buffer(
    workload: &str,
    buffer: &str,
    tolerance: Tolerance,
    expected: &HostData,
    actual: &HostData,
) -> Result<(), Mismatch> {
    if expected.dtype() != actual.dtype() {
        return Err(Mismatch::DType {
            workload: workload.to_string(),
            buffer: buffer.to_string(),
            expected: expected.dtype(),
            actual: actual.dtype(),
        });
    }
    if expected.len() != actual.len() {
        return Err(Mismatch::Length {
            workload: workload.to_string(),
            buffer: buffer.to_string(),
            expected: expected.len(),
            actual: actual.len(),
        });
    }
    let tol = if expected.dtype().is_float() {
        tolerance
    } else {
        Tolerance::Exact
    };
    let mut first = None;
    let mut count = 0usize;
    for i in 0..expected.len() {
        let ok = match int_equal(expected, actual, i) {
            Some(eq) => eq,
            None => tol.accepts(value(expected, i), value(actual, i)),
        };
        if !ok {
            count += 1;
            first.get_or_insert(i);
        }
    }
    match first {
        None => Ok(()),
        Some(index) => Err(Mismatch::Value {
            workload: workload.to_string(),
            buffer: buffer.to_string(),
            index,
            expected: text(expected, index),
            actual: text(actual, index),
            tolerance: tol,
            count,
            len: expected.len(),
        }),
    }
}

/// Compares every buffer of `expected` with `actual` (e.g. the simulator's final buffers) using
/// the workload's tolerance for that buffer ([`Workload::tolerance`]; exact for buffers it does
/// not list, inputs included). Pass [`Workload::expected_final`], which holds every buffer of
/// the spec, so that a stray store into an input is caught too. Buffers are visited in name
/// order, so the reported mismatch is deterministic.
#[allow(clippy::result_large_err)]
pub fn check(
    workload: &Workload,
    expected: &BTreeMap<String, HostData>,
    actual: &BTreeMap<String, HostData>,
) -> Result<(), Mismatch> {
    for (name, e) in expected {
        let Some(a) = actual.get(name) else {
            return Err(Mismatch::MissingBuffer {
                workload: workload.name.to_string(),
                buffer: name.clone(),
            });
        };
        check_buffer(workload.name, name, workload.tolerance(name), e, a)?;
    }
    Ok(())
}

/// Compares `actual` (e.g. the simulator's final buffers) with the expected contents of the
/// spec's `[check.<buffer>]` tables ([`LaunchSpec::checks`]; nothing to compare when it has
/// none): exact when `abs = rel = 0`, else [`Tolerance::Float`] (integers always exactly).
/// Mismatches name the spec file where a built-in check names the workload. Buffers are
/// visited in name order.
#[allow(clippy::result_large_err)]
pub fn check_spec(spec: &LaunchSpec, actual: &BTreeMap<String, HostData>) -> Result<(), Mismatch> {
    for (name, c) in &spec.checks {
        let Some(a) = actual.get(name) else {
            return Err(Mismatch::MissingBuffer {
                workload: spec.file.clone(),
                buffer: name.clone(),
            });
        };
        let tolerance = if c.is_exact() {
            Tolerance::Exact
        } else {
            Tolerance::Float {
                abs: c.abs,
                rel: c.rel,
            }
        };
        check_buffer(&spec.file, name, tolerance, &c.expected, a)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_tolerance_is_abs_plus_rel() {
        let t = Tolerance::Float {
            abs: 0.1,
            rel: 0.01,
        };
        assert!(t.accepts(10.0, 10.2)); // 0.2 <= 0.1 + 0.1
        assert!(!t.accepts(10.0, 10.21));
        assert!(t.accepts(0.0, -0.1));
        assert!(!t.accepts(0.0, 0.11));
    }

    #[test]
    fn exact_tolerance_and_nan() {
        assert!(Tolerance::Exact.accepts(1.5, 1.5));
        assert!(Tolerance::Exact.accepts(0.0, -0.0));
        assert!(!Tolerance::Exact.accepts(1.5, 1.5000001));
        assert!(Tolerance::Exact.accepts(f64::NAN, f64::NAN));
        assert!(!Tolerance::Float { abs: 1.0, rel: 1.0 }.accepts(1.0, f64::NAN));
    }

    #[test]
    fn check_buffer_reports_first_index_and_count() {
        let e = HostData::I32(vec![1, 2, 3, 4]);
        let a = HostData::I32(vec![1, 9, 3, 8]);
        let tol = Tolerance::Float {
            abs: 100.0,
            rel: 0.0,
        }; // ignored for integers
        match check_buffer("w", "b", tol, &e, &a) {
            Err(Mismatch::Value {
                index,
                expected,
                actual,
                count,
                ..
            }) => {
                assert_eq!(
                    (index, expected.as_str(), actual.as_str(), count),
                    (1, "2", "9", 2)
                );
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn check_buffer_u64_compares_without_rounding() {
        let e = HostData::U64(vec![(1u64 << 60) + 1]);
        let a = HostData::U64(vec![1u64 << 60]);
        assert!(check_buffer("w", "b", Tolerance::Exact, &e, &a).is_err());
    }

    #[test]
    fn check_buffer_shape_errors() {
        let e = HostData::F32(vec![1.0]);
        assert!(matches!(
            check_buffer("w", "b", Tolerance::Exact, &e, &HostData::F64(vec![1.0])),
            Err(Mismatch::DType { .. })
        ));
        assert!(matches!(
            check_buffer(
                "w",
                "b",
                Tolerance::Exact,
                &e,
                &HostData::F32(vec![1.0, 2.0])
            ),
            Err(Mismatch::Length { .. })
        ));
    }

    /// A spec's `[check]` passes equal buffers, names the spec, buffer and index of
    /// a difference beyond the tolerance, accepts it within, and reports a missing buffer.
    #[test]
    fn check_spec_applies_the_spec_tolerance() {
        use regwatt_sim::launch::{write_npy, MemFiles};
        let expected = HostData::F32(vec![1.0, 2.0, 4.0]);
        let files = MemFiles::new("t")
            .with("k.ptx", &b".version 7.0\n"[..])
            .with("c.npy", write_npy(&expected));
        let spec = |tol: &str| {
            let text = format!(
                "ptx = \"k.ptx\"\n[buffers.c]\ndtype = \"f32\"\nlen = 3\n\
                 init = {{ kind = \"fill\", value = 0 }}\n[[launch]]\nkernel = \"k\"\n\
                 grid = [1, 1, 1]\nblock = [1, 1, 1]\nargs = []\n\
                 [check.c]\nnpy = \"c.npy\"\n{tol}"
            );
            LaunchSpec::parse("my.toml", &text, &files).unwrap()
        };
        let mut actual = BTreeMap::from([("c".to_string(), expected.clone())]);
        assert_eq!(check_spec(&spec(""), &actual), Ok(()));
        actual.insert("c".into(), HostData::F32(vec![1.0, 2.0, 4.5]));
        let e = check_spec(&spec(""), &actual).unwrap_err();
        assert!(
            matches!(&e, Mismatch::Value { workload, buffer, index: 2, tolerance: Tolerance::Exact, .. }
                if workload == "my.toml" && buffer == "c"),
            "{e:?}"
        );
        assert!(
            e.to_string().contains("buffer \"c\"[2] = 4.5, expected 4"),
            "{e}"
        );
        assert!(check_spec(&spec("rel = 0.1\n"), &actual).is_err()); // 0.5 > 0.4
        assert_eq!(check_spec(&spec("abs = 0.1\nrel = 0.1\n"), &actual), Ok(()));
        assert!(matches!(
            check_spec(&spec(""), &BTreeMap::new()),
            Err(Mismatch::MissingBuffer { .. })
        ));
    }
}
