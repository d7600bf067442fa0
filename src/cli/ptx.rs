//! `regwatt ptx FILE.ptx [--json]`: parse and analyse a PTX file; per kernel: registers,
//! predicates, shared/local bytes, instruction and block counts, release-flag statistics.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use regwatt_sim::analysis::{analyze, kernel_report, KernelReport};

/// Arguments of `regwatt ptx`.
#[derive(clap::Args)]
pub struct Args {
    /// PTX file to analyse.
    pub file: PathBuf,
    /// Print JSON (`{"kernels":[...]}`) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// JSON output document.
#[derive(serde::Serialize)]
struct Report {
    kernels: Vec<KernelReport>,
}

/// Runs `regwatt ptx`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let src = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let module = regwatt_sim::ptx::parse(&args.file.display().to_string(), &src)?;
    let kernels: Vec<KernelReport> = module
        .kernels()
        .map(|k| kernel_report(&module, k, &analyze(k)))
        .collect();
    // write through a handle so that a closed pipe (`| head`) is an error, not a panic
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&Report { kernels })?
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<28} {:>5} {:>5} {:>7} {:>7} {:>6} {:>5} {:>5} {:>5} {:>5} {:>6}",
        "kernel",
        "regs",
        "preds",
        "shared",
        "local",
        "instrs",
        "bbs",
        "pir",
        "pbr",
        "defer",
        "near"
    )?;
    for k in &kernels {
        writeln!(
            out,
            "{:<28} {:>5} {:>5} {:>7} {:>7} {:>6} {:>5} {:>5} {:>5} {:>5} {:>6}",
            k.name,
            k.registers,
            k.predicates,
            k.shared_bytes,
            k.local_bytes,
            k.instructions,
            k.basic_blocks,
            k.pir_flags,
            k.pbr_entries,
            k.deferred_releases,
            k.near_reuse_operands
        )?;
    }
    Ok(())
}
