//! Cycle-level SM timing model and the register-file seam. See `README.md` in this folder.
//!
//! * [`config`]: GPU configuration (serde, every field required) and the RTX 2060-like preset.
//! * [`rf`]: the [`rf::RegisterFileDesign`] trait every RF design implements.
//! * [`baseline`]: the reference banked register file.
//! * [`functional`]: what the timing core needs from the functional executor, and a
//!   value-checking synthetic stand-in.
//! * [`memory`]: the memory-timing seam and a latency/bandwidth stub.
//! * [`core`]: the SM pipeline (schedulers, scoreboard, collectors, arbiter, execution units,
//!   writeback) and the GPU run loop ([`core::run`]).
//! * [`activity`]: the statistics of a run.
//! * `mem`: cycle-level memory components (coalescer, L1D, L2, DRAM), maintained separately.

pub mod mem;

pub mod activity;
pub mod baseline;
pub mod config;
pub mod core;
pub mod exec_adapter;
pub mod functional;
pub mod memory;
pub mod rf;

pub use activity::Activity;
pub use baseline::BaselineRf;
pub use config::GpuConfig;
pub use core::{run, run_with_memory, RunOptions, TimingError};
pub use exec_adapter::{run_spec_timed, ExecModel, TimedSpecRun};
pub use rf::RegisterFileDesign;
