//! `regwatt ptx FILE.ptx [--json] [--gpu rtx2060|gtx480]`: parse and analyse a PTX file; per
//! kernel: general registers (what `ptxas -v` reports), uniform registers, predicates,
//! shared/local bytes, instruction and block counts, release-flag statistics. The register
//! allocation targets sm_75 (63 uniform registers, as `ptxas -arch=sm_75`) unless `--gpu`
//! names a preset, whose `sm.uniform_registers` is then used.

use std::io::Write;
use std::path::PathBuf;

use regwatt_sim::analysis::{analyze_for, kernel_report, AllocTarget, KernelReport};

/// Arguments of `regwatt ptx`.
#[derive(clap::Args)]
pub struct Args {
    /// PTX file to analyse.
    pub file: PathBuf,
    /// Print JSON (`{"kernels":[...]}`) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Allocate for this GPU preset's register files (gtx480: no uniform file; rtx2060: 63
    /// uniform registers). Default: sm_75, what `ptxas -v -arch=sm_75` is compared with.
    #[arg(long)]
    pub gpu: Option<String>,
}

/// JSON output document.
#[derive(serde::Serialize)]
struct Report {
    kernels: Vec<KernelReport>,
}

/// Runs `regwatt ptx`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let src = regwatt_inputs::read_text(&args.file, regwatt_inputs::TEXT_LIMIT)?;
    let target = match &args.gpu {
        None => AllocTarget::SM75,
        Some(g) => {
            let preset: regwatt_designs::config::GpuPreset = g.parse()?;
            let (file, text) = preset.gpu_toml();
            regwatt_sim::timing::GpuConfig::from_toml(file, text)?.alloc_target()
        }
    };
    let module = regwatt_sim::ptx::parse(&args.file.display().to_string(), &src)?;
    let kernels: Vec<KernelReport> = module
        .kernels()
        .map(|k| kernel_report(&module, k, &analyze_for(k, target)))
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
        "{:<28} {:>5} {:>5} {:>5} {:>7} {:>7} {:>6} {:>5} {:>5} {:>5} {:>5} {:>6}",
        "kernel",
        "regs",
        "uregs",
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
            "{:<28} {:>5} {:>5} {:>5} {:>7} {:>7} {:>6} {:>5} {:>5} {:>5} {:>5} {:>6}",
            k.name,
            k.registers,
            k.uniform_registers,
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
