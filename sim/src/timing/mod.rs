//! Cycle-level SM timing model and the register-file seam. See `README.md` in this folder.
//!
//! * [`config`]: GPU configuration (serde, every field required) and the RTX 2060-like preset.
//! * [`rf`]: the [`rf::RegisterFileDesign`] trait every RF design implements (the designs,
//!   the baseline banked RF included, live in the `regwatt-designs` crate).
//! * [`functional`]: what the timing core needs from the functional executor, and a
//!   value-checking synthetic stand-in.
//! * [`memory`]: the memory-timing seam and the memory hierarchy (coalescing, L1D with MSHRs,
//!   crossbar, sliced L2, DRAM banks), a reservation model.
//! * [`core`]: the SM pipeline (schedulers, scoreboard, collectors, arbiter, execution units,
//!   writeback) and the GPU run loop ([`core::run`]).
//! * [`activity`]: the statistics of a run.
//! * [`profile`]: reuse-distance profiles of a launch's first warps (Malekeh §III-A).

pub mod activity;
pub mod config;
pub mod core;
pub mod exec_adapter;
pub mod functional;
pub mod memory;
pub mod profile;
pub mod rf;

pub use activity::Activity;
pub use config::{GpuConfig, SmLimits};
pub use core::{run, run_with_memory, RunOptions, TimingError, MAX_CYCLES};
pub use exec_adapter::{code_bases, run_spec_timed, ExecModel, TimedSpecRun, PROFILE_STEP_LIMIT};
pub use profile::{NextUse, ReuseProfile};
pub use rf::RegisterFileDesign;
