//! `regwatt exec`: run a launch spec (or a built-in workload) on the functional SIMT executor.
//!
//! * `regwatt exec SPEC.toml [--dump DIR]` runs the launches in order (buffers persist across
//!   launches) and writes every buffer after the last launch as `DIR/<name>.npy`; a spec with
//!   `[check]` tables compares the buffers they name with their expected contents (non-zero
//!   exit on mismatch).
//! * `regwatt exec --workload NAME [--dump DIR]` runs a built-in workload and checks its output
//!   against the workload's Rust reference (non-zero exit on mismatch).
//! * `regwatt exec --list` lists the built-in workloads.
//! * `--json` prints the typed statistics ([`ExecReport`]) instead of text.

use std::path::PathBuf;

use regwatt_sim::exec::{run_spec_watched, LaunchStats, RunOptions};

/// Arguments of `regwatt exec`.
#[derive(clap::Args)]
pub struct Args {
    /// Launch spec (TOML) to run.
    #[arg(conflicts_with_all = ["workload", "list"])]
    pub spec: Option<PathBuf>,
    /// Run a built-in workload instead (see `--list`) and check it against its reference.
    #[arg(long)]
    pub workload: Option<String>,
    /// The built-in workload's input size: ci, default or paper [default: default].
    #[arg(long, value_parser = super::parse_size, requires = "workload")]
    pub size: Option<regwatt_workloads::Size>,
    /// Make the spec's warnings errors: a `__constant__` array the kernels read with neither a
    /// PTX initialiser nor a `[constants.<symbol>]` table (they would read zeros).
    #[arg(long)]
    pub strict: bool,
    /// List the built-in workloads.
    #[arg(long)]
    pub list: bool,
    /// Write every buffer after the last launch as DIR/<name>.npy.
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// Write into a `--dump` folder that holds files regwatt did not write.
    #[arg(long)]
    pub force: bool,
    /// Print JSON statistics instead of text.
    #[arg(long)]
    pub json: bool,
    /// Stop a launch after this many warp instructions (at least 1). The default, 10^8
    /// (10^10 for a built-in workload at `--size paper`), stops a runaway kernel within about
    /// 10 s (docs/configuration.md, "Limits").
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_warp_instructions: Option<u64>,
    /// Refuse a run whose estimated memory exceeds SIZE (e.g. 16GiB; default: half of the
    /// physical memory, at most 80% of `ulimit -v`).
    #[arg(long, value_name = "SIZE")]
    pub memory_budget: Option<String>,
}

/// The `--json` document.
#[derive(serde::Serialize)]
pub struct ExecReport {
    /// Spec file (or `builtin:NAME/NAME.toml`).
    pub spec: String,
    /// Workload name, for `--workload`.
    pub workload: Option<String>,
    /// Per-launch statistics, in launch order.
    pub launches: Vec<LaunchStats>,
    /// Total warp instructions.
    pub warp_instructions: u64,
    /// Total thread instructions.
    pub thread_instructions: u64,
    /// Output check (`--workload`: against the Rust reference; a spec: against its `[check]`
    /// tables; absent without one): `true` = pass.
    pub check_passed: Option<bool>,
    /// First mismatch, if the check failed.
    pub check_error: Option<String>,
    /// Dump directory, if any.
    pub dump: Option<String>,
}

/// Runs `regwatt exec`.
pub fn run(args: Args) -> anyhow::Result<()> {
    run_inner(args).map_err(super::explain_limits)
}

fn run_inner(args: Args) -> anyhow::Result<()> {
    if args.list {
        return super::workload::list();
    }
    // the destination is checked before anything runs
    let dump_dir = args
        .dump
        .as_deref()
        .map(|d| crate::outdir::OutDir::prepare(d, "--dump", args.force))
        .transpose()?;
    if args.spec.is_none() && args.workload.is_none() {
        anyhow::bail!("give a launch spec, --workload NAME or --list");
    }
    let (spec, sized) =
        super::spec_or_workload(args.spec.as_deref(), args.workload.as_deref(), args.size)?;
    super::unset_constants(&spec, args.strict)?;
    let workload = sized.map(|(w, _)| w);
    // the suites' standard inputs run far longer than any runaway guard of the small sizes
    let limit = args.max_warp_instructions.unwrap_or(match sized {
        Some((_, regwatt_workloads::Size::Paper)) => {
            regwatt_designs::exec_model::PAPER_MAX_WARP_INSTRUCTIONS
        }
        _ => RunOptions::default().max_warp_instructions,
    });
    let opts = RunOptions {
        max_warp_instructions: limit,
        ..RunOptions::default()
    };
    regwatt_sim::footprint::functional(&spec)
        .check(&super::budget(args.memory_budget.as_deref())?)?;
    let progress = super::LaunchProgress::new(limit);
    let update = |k: &str, n: u64| progress.update(0, k, n);
    let run = run_spec_watched(&spec, &opts, &update);
    progress.finish();
    let run = run?;
    if let Some(dir) = &dump_dir {
        super::dump_buffers(dir, &run.buffers)?;
    }
    let check = super::run::output_check(&spec, workload, &run.buffers);
    let report = ExecReport {
        spec: spec.file.clone(),
        workload: workload.map(|w| w.name.to_string()),
        warp_instructions: run.launches.iter().map(|l| l.warp_instructions).sum(),
        thread_instructions: run.launches.iter().map(|l| l.thread_instructions).sum(),
        launches: run.launches,
        check_passed: check.as_ref().map(|c| c.is_ok()),
        check_error: check.as_ref().and_then(|c| c.as_ref().err().cloned()),
        dump: args.dump.as_ref().map(|d| d.display().to_string()),
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        outln!(
            "{:<24} {:>14} {:>8} {:>8} {:>14} {:>16} {:>6}",
            "kernel",
            "grid",
            "block",
            "ctas",
            "warp_instrs",
            "thread_instrs",
            "regs"
        );
        for l in &report.launches {
            outln!(
                "{:<24} {:>14} {:>8} {:>8} {:>14} {:>16} {:>6}",
                l.kernel,
                format!("{}x{}x{}", l.grid[0], l.grid[1], l.grid[2]),
                format!("{}x{}x{}", l.block[0], l.block[1], l.block[2]),
                l.ctas,
                l.warp_instructions,
                l.thread_instructions,
                l.registers
            );
        }
        // each kernel once, however many launches run it
        let given: std::collections::BTreeSet<&str> = report
            .launches
            .iter()
            .filter(|l| l.registers_source == regwatt_sim::exec::RegisterSource::Given)
            .map(|l| l.kernel.as_str())
            .collect();
        if !given.is_empty() {
            outln!(
                "regs given by the spec's [registers] table (the others estimated): {}",
                given.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        if let Some(d) = &report.dump {
            outln!("buffers written to {d}");
        }
    }
    let name = report.workload.as_deref().unwrap_or(&report.spec);
    super::run::report_check(&check, name, workload, !args.json)
}
