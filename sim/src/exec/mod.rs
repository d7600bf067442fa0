//! Functional SIMT executor: runs lowered PTX kernels warp by warp with real memory addresses
//! and values. Register values live only behind the [`RegisterAccess`] seam, in the
//! architectural registers chosen by [`crate::analysis::analyze`]. See `README.md` here.

// `ExecError` carries the full diagnostic (file, line, kernel, thread, address, `MemError`);
// errors are cold and end the run, so their size does not matter on the hot path.
#![allow(clippy::result_large_err)]

pub mod alu;
pub mod cta;
pub mod error;
pub mod fp;
pub mod lower;
pub mod program;
pub mod regs;

pub use cta::{
    BarRedAcc, BarrierEvent, CtaExec, MemAccess, MemKind, MemMeta, Scratch, SimtEntry, StepInfo,
    TimedStep, WarpState,
};
pub use error::{ExecError, ThreadId};
pub use lower::{ExecInstr, FastOp, OpClass, RegList, XBase, XOp, NO_RECONV};
pub use program::{
    run_launch, run_launch_watched, run_launch_with, run_spec, run_spec_watched, Kernel,
    LaunchConfig, LaunchStats, Program, RegisterSource, RunOptions, SpecRun,
    DEFAULT_MAX_WARP_INSTRUCTIONS, PROGRESS_EVERY,
};
pub use regs::{ArchReg, FlatRegisterFile, RegisterAccess, WarpId};

#[cfg(test)]
mod tests;
