//! Executor errors. Every error names the PTX file and line; runtime errors also the kernel,
//! the PC and the thread.

use crate::mem::MemError;

/// A thread's coordinates, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadId {
    pub ctaid: [u32; 3],
    pub tid: [u32; 3],
    /// The thread's warp within its CTA.
    pub warp: u32,
}

impl std::fmt::Display for ThreadId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b, c] = self.ctaid;
        let [x, y, z] = self.tid;
        write!(
            f,
            "ctaid ({a}, {b}, {c}) tid ({x}, {y}, {z}) warp {}",
            self.warp
        )
    }
}

/// Why execution failed.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// An instruction, modifier combination or operand the executor does not implement.
    #[error("{file}:{line}: in {function}: unsupported: {what}")]
    Unsupported {
        file: String,
        line: u32,
        function: String,
        what: String,
    },
    /// A memory access failed (out of bounds, unmapped, misaligned, read-only).
    #[error("{file}:{line}: kernel {kernel}, pc {pc}, {thread}: address {addr:#x}: {source}")]
    Memory {
        file: String,
        line: u32,
        kernel: String,
        pc: u32,
        thread: ThreadId,
        addr: u64,
        #[source]
        source: MemError,
    },
    /// Any other runtime failure of one thread (`trap`, a bad operand at run time).
    #[error("{file}:{line}: kernel {kernel}, pc {pc}, {thread}: {message}")]
    Runtime {
        file: String,
        line: u32,
        kernel: String,
        pc: u32,
        thread: ThreadId,
        message: String,
    },
    /// Launch set-up problems (kernel not found, bad dimensions, memory layout).
    #[error("{0}")]
    Setup(String),
    /// The PTX did not parse.
    #[error(transparent)]
    Parse(#[from] crate::ptx::PtxError),
    /// Launch spec / argument problems (the message names the parameter).
    #[error(transparent)]
    Spec(#[from] crate::launch::SpecError),
    /// A memory allocation failed.
    #[error("{0}")]
    Alloc(#[from] MemError),
    /// The run exceeded its instruction budget (an infinite loop, most likely).
    #[error("kernel {kernel}: exceeded the limit of {limit} warp instructions")]
    InstructionLimit { kernel: String, limit: u64 },
    /// Every live warp of a CTA waits at a barrier and none can complete (a GPU hangs). `line`
    /// and `warp` are those of the step that left the CTA so: the last arrival, or an exit.
    #[error(
        "{file}:{line}: kernel {kernel}, ctaid ({}, {}, {}), warp {warp}: barrier deadlock: \
         {message}",
        ctaid[0],
        ctaid[1],
        ctaid[2]
    )]
    Deadlock {
        file: String,
        line: u32,
        kernel: String,
        ctaid: [u32; 3],
        warp: u32,
        message: String,
    },
}
