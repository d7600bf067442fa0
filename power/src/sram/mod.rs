//! CACTI-style SRAM array model: sub-array / mat / bank / H-tree decomposition, organisation
//! search, ports, ECC, RAM and cache (data + tag) modes.
//!
//! Structure and equations follow CACTI 7 (HewlettPackard/cacti: `parameter.cc`
//! DynamicParameter, `subarray.cc`, `mat.cc`, `decoder.cc`, `htree2.cc`, `wire.cc`,
//! `Ucache.cc`), re-derived in our own closed form so that one organisation is evaluated with
//! a few dozen floating-point operations; a handful of calibration coefficients
//! ([`Coefficients`], fitted by [`crate::calibrate`] against CACTI 7 runs) scale the physical
//! components.
//!
//! Entry point: [`estimate`].

mod model;
pub mod result;
mod search;
pub mod spec;

pub use model::{tag_bits_default, Coefficients};

/// Internals exposed for the calibration fit (raw physical components before coefficients).
#[doc(hidden)]
pub mod fit_support {
    use super::model::ArrayKind;
    pub use super::model::Raw;
    use super::{Organisation, SramError, SramSpec};
    use regwatt_tech::Technology;

    /// Raw data-array components at a given organisation.
    pub fn raw_data_at(
        spec: &SramSpec,
        tech: &Technology,
        org: &Organisation,
    ) -> Result<Raw, SramError> {
        super::search::raw_at(spec, tech, ArrayKind::Data, org)
    }
}
pub use result::{
    AreaBreakdown, ArrayResult, CircuitDetails, DelayBreakdown, EnergyBreakdown, LeakageBreakdown,
    SramResult, SubarrayGeometry,
};
pub use spec::{AccessMode, Deviation, Objective, Optimisation, Organisation, SramSpec, Weights};

use regwatt_tech::Technology;

/// Errors of the SRAM model. CACTI's refusals are reproduced as errors naming the rule.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SramError {
    /// A field of the spec is out of range.
    #[error("invalid SRAM spec, field {field}: {msg}")]
    InvalidSpec {
        /// Field name.
        field: &'static str,
        /// What is wrong.
        msg: String,
    },
    /// Too few rows per bank: CACTI needs Ndbl >= 2 sub-arrays of >= 16 rows.
    #[error("no valid organisation: {rows} rows per bank, but a RAM needs >= 32 rows per bank (Ndwl >= 2, Ndbl >= 2, >= 16 rows per subarray; CACTI: \"no valid data array organizations found\")")]
    TooFewRows {
        /// Rows per bank (sets per bank).
        rows: u64,
    },
    /// No organisation passes CACTI's validity rules (sub-array rows/cols limits, output width
    /// vs mat width, ...).
    #[error("no valid {array} array organisation found for this spec (CACTI's validity rules: 16..=262144 rows and 2..=262144 columns per subarray, output width covered by at most Ndwl/2 mats, mux degrees within the sub-array width)")]
    NoValidOrganisation {
        /// "data" or "tag".
        array: &'static str,
    },
    /// The forced organisation violates a CACTI rule.
    #[error("forced organisation is invalid: {0}")]
    InvalidOrganisation(String),
    /// The technology lacks something the spec needs.
    #[error("technology: {0}")]
    Technology(String),
    /// The model's fitted coefficients could not be read.
    #[error("model coefficients: {0}")]
    Coefficients(String),
    /// The spec's temperature differs from the technology's.
    #[error("spec temperature {spec} K differs from the technology's {tech} K (resolve the technology at the spec's temperature)")]
    TemperatureMismatch {
        /// Spec temperature.
        spec: f64,
        /// Technology temperature.
        tech: f64,
    },
}

/// Runs the organisation search and returns the best array for the spec's objective, with the
/// calibrated coefficients of `calibrations/fitted.toml`.
pub fn estimate(spec: &SramSpec, tech: &Technology) -> Result<SramResult, SramError> {
    estimate_with(spec, tech, Coefficients::fitted()?)
}

/// [`estimate`] with explicit model coefficients (used by the calibration fit).
pub fn estimate_with(
    spec: &SramSpec,
    tech: &Technology,
    coeffs: &Coefficients,
) -> Result<SramResult, SramError> {
    search::run(spec, tech, coeffs)
}

#[cfg(test)]
mod tests;
