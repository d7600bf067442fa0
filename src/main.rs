//! `regwatt` command-line interface: one subcommand per file in `src/cli/`.

mod cli;
mod csvout;
mod outdir;
mod provenance;
mod study;

use clap::{Parser, Subcommand};

/// Register-file energy and area for GPU designs.
#[derive(Parser)]
#[command(name = "regwatt", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// CACTI-style SRAM / cache estimate (or read a CACTI 7 cfg file).
    Sram(cli::sram::Args),
    /// Re-fit the SRAM model's free coefficients against the reference data and print the errors.
    Calibrate(cli::calibrate::Args),
    /// Parse and analyse a PTX file: registers, blocks, release flags.
    Ptx(cli::ptx::Args),
    /// Execute a launch spec (or a built-in workload) functionally.
    Exec(cli::exec::Args),
    /// Time a launch spec (or built-in workload) on a GPU preset with an RF design; energy/area.
    Run(cli::run::Args),
    /// The studies: every design × GPU preset × built-in workload at 40 nm and 12 nm (filters
    /// narrow it): summary, component and kernel tables, charts, index.html.
    Report(cli::report::Args),
    /// A design-space sweep over a grid file's cross product (shardable).
    Sweep(cli::sweep::Args),
    /// Merge sharded sweep directories into what the unsharded sweep writes.
    Merge(cli::sweep::MergeArgs),
    /// A seed's evaluation as the seed ran it: one row per headline figure, the seed's value
    /// beside regwatt's (`reproduce --list` names the seeds and figures).
    Reproduce(cli::reproduce::Args),
    /// Launch-spec tools: `spec new FILE.ptx` writes a commented template for its kernels.
    #[command(subcommand)]
    Spec(cli::spec::Command),
    /// Built-in workloads: `workload export NAME DIR` writes one as a starting point
    /// (spec with [check], PTX, CUDA source, inputs, expected outputs); `workload list`.
    #[command(subcommand)]
    Workload(cli::workload::Command),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Sram(a) => cli::sram::run(a),
        Command::Calibrate(a) => cli::calibrate::run(a),
        Command::Ptx(a) => cli::ptx::run(a),
        Command::Exec(a) => cli::exec::run(a),
        Command::Run(a) => cli::run::run(a),
        Command::Report(a) => cli::report::run(a),
        Command::Sweep(a) => cli::sweep::run(a),
        Command::Merge(a) => cli::sweep::merge(a),
        Command::Reproduce(a) => cli::reproduce::run(a),
        Command::Spec(a) => cli::spec::run(a),
        Command::Workload(a) => cli::workload::run(a),
    }
}
