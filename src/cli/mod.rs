//! Subcommands. Each file owns one subcommand: its `Args` (clap derive) and `run`.

pub mod calibrate;
pub mod exec;
pub mod ptx;
pub mod report;
pub mod run;
pub mod sram;
