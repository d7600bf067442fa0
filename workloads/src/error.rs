//! Errors of the workload crate.

use regwatt_sim::launch::DType;

/// Why a workload could not be found, materialised, or its reference computed.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// No workload of that name is built in.
    #[error("unknown workload {name:?} (available: {available})")]
    Unknown {
        /// The name asked for.
        name: String,
        /// Comma-separated list of built-in workloads.
        available: String,
    },
    /// No size of that name.
    #[error("unknown input size `{0}` (sizes: ci, default, paper)")]
    UnknownSize(String),
    /// The workload has no spec at the size asked for.
    #[error("workload {workload} has no `{size}` size (its sizes: {available})")]
    NoSize {
        /// Workload name.
        workload: &'static str,
        /// The size asked for.
        size: &'static str,
        /// Comma-separated sizes it has.
        available: String,
    },
    /// A scalar launch argument the reference reads is missing or not a whole number.
    #[error("workload {workload}: launch {launch} argument {arg}: {reason}")]
    LaunchArg {
        /// Workload name.
        workload: &'static str,
        /// Launch index.
        launch: usize,
        /// Argument index.
        arg: usize,
        /// What is wrong.
        reason: String,
    },
    /// The spec's launch sequence or shape is not the one the reference computes (a kernel
    /// out of place, a step missing, a grid or size arguments that disagree with another
    /// launch or with the kernel's geometry).
    #[error("workload {workload}: launch {launch}: {reason}")]
    Launch {
        /// Workload name.
        workload: &'static str,
        /// Launch index.
        launch: usize,
        /// What is wrong.
        reason: String,
    },
    /// The reference needs a buffer that the inputs lack.
    #[error("workload {workload}: input buffer {buffer:?} is missing")]
    MissingInput {
        /// Workload name.
        workload: &'static str,
        /// Buffer name.
        buffer: String,
    },
    /// An input buffer has the wrong element type.
    #[error(
        "workload {workload}: input buffer {buffer:?} has dtype {actual:?}, expected {expected:?}"
    )]
    InputType {
        /// Workload name.
        workload: &'static str,
        /// Buffer name.
        buffer: String,
        /// Element type the reference needs.
        expected: DType,
        /// Element type supplied.
        actual: DType,
    },
    /// An input buffer has the wrong number of elements.
    #[error(
        "workload {workload}: input buffer {buffer:?} has {actual} elements, expected {expected}"
    )]
    InputLength {
        /// Workload name.
        workload: &'static str,
        /// Buffer name.
        buffer: String,
        /// Element count the reference needs.
        expected: usize,
        /// Element count supplied.
        actual: usize,
    },
    /// An input value the algorithm cannot accept (e.g. a graph edge to a missing vertex).
    #[error("workload {workload}: input buffer {buffer:?}[{index}]: {reason}")]
    InvalidInput {
        /// Workload name.
        workload: &'static str,
        /// Buffer name.
        buffer: String,
        /// Element index.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// Writing a materialised workload to disk failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// File being written.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The embedded launch spec failed to load (a build defect; reported, not panicked on).
    #[error("embedded launch spec of workload {workload}: {source}")]
    Spec {
        /// Workload name.
        workload: &'static str,
        /// The loader's error.
        #[source]
        source: regwatt_sim::launch::SpecError,
    },
}
