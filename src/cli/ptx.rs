//! `regwatt ptx FILE.ptx [--json] [--gpu rtx2060|gtx480] [--block N] [--ptxas-registers
//! [KERNEL=]N]`: parse and analyse a PTX file; per kernel: general registers (what `ptxas -v`
//! reports), uniform registers, predicates, shared/local bytes, instruction and block counts,
//! release-flag statistics. The register allocation targets sm_75 (63 uniform registers, as
//! `ptxas -arch=sm_75`) unless `--gpu` names a preset, whose `sm.uniform_registers` is then
//! used. Then, per kernel and preset, the CTAs per SM the count implies at a block size, beside
//! those a given ptxas count implies.

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
    /// Threads per CTA for the occupancy table (1..=1024). Default: the kernel's `.reqntid`,
    /// else its `.maxntid`, else 256.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub block: Option<u32>,
    /// A kernel's count from `ptxas -v` (`Used N registers`), shown beside regwatt's with the
    /// CTAs per SM it implies: `KERNEL=N` for one kernel, `N` for every kernel; repeatable.
    #[arg(long = "ptxas-registers", value_name = "[KERNEL=]N")]
    pub ptxas_registers: Vec<String>,
}

/// Occupancy of one kernel on one preset ([`regwatt_sim::timing::SmLimits::ctas_per_sm`]).
#[derive(serde::Serialize)]
struct Occupancy {
    kernel: String,
    gpu: String,
    /// Threads per CTA the CTAs per SM are computed for.
    block: u32,
    /// Static shared bytes per CTA (dynamic shared memory is the launch's, not counted).
    shared_bytes: u32,
    /// regwatt's count for the preset's register files, and the CTAs per SM it implies.
    registers: u32,
    ctas_per_sm: u32,
    /// The given ptxas count and its CTAs per SM (absent without `--ptxas-registers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    ptxas_registers: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ptxas_ctas_per_sm: Option<u32>,
}

/// `--ptxas-registers` values: `(kernel or None for all, count)`; counts 1..=255.
fn parse_ptxas_registers(args: &[String]) -> anyhow::Result<Vec<(Option<String>, u32)>> {
    args.iter()
        .map(|a| {
            let (k, n) = match a.split_once('=') {
                Some((k, n)) => (Some(k.trim().to_string()), n.trim()),
                None => (None, a.trim()),
            };
            let n: u32 = n
                .parse()
                .ok()
                .filter(|n| (1..=regwatt_sim::launch::MAX_GIVEN_REGISTERS).contains(n))
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "--ptxas-registers {a}: the count must be 1..={} (what `ptxas -v` reports)",
                        regwatt_sim::launch::MAX_GIVEN_REGISTERS
                    )
                })?;
            Ok((k, n))
        })
        .collect()
}

/// JSON output document.
#[derive(serde::Serialize)]
struct Report {
    kernels: Vec<KernelReport>,
    occupancy: Vec<Occupancy>,
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
    let given = parse_ptxas_registers(&args.ptxas_registers)?;
    let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
    if let Some((Some(k), _)) = given
        .iter()
        .find(|(k, _)| k.as_deref().is_some_and(|k| !names.contains(&k)))
    {
        anyhow::bail!(
            "--ptxas-registers {k}=...: {} has no kernel {k:?} (kernels: {})",
            args.file.display(),
            names.join(", ")
        );
    }
    let mut occupancy = Vec::new();
    for preset in regwatt_designs::config::GpuPreset::ALL {
        let (file, text) = preset.gpu_toml();
        let cfg = regwatt_sim::timing::GpuConfig::from_toml(file, text)?;
        for (f, k) in module.kernels().zip(&kernels) {
            let t = &f.tuning;
            let block = args
                .block
                .or(t.reqntid.or(t.maxntid).map(|d| d.iter().product()))
                .unwrap_or(DEFAULT_BLOCK);
            // the table's own count when the preset allocates for the same target
            let registers = if cfg.alloc_target() == target {
                k.registers
            } else {
                analyze_for(f, cfg.alloc_target()).alloc.registers
            };
            let shared = k.shared_bytes;
            let ptxas = given
                .iter()
                .rev()
                .find(|(g, _)| g.as_deref().is_none_or(|g| g == k.name))
                .map(|&(_, n)| n);
            occupancy.push(Occupancy {
                kernel: k.name.clone(),
                gpu: preset.name().to_string(),
                block,
                shared_bytes: shared,
                registers,
                ctas_per_sm: cfg.sm.limits.ctas_per_sm(block, registers, shared),
                ptxas_registers: ptxas,
                ptxas_ctas_per_sm: ptxas.map(|n| cfg.sm.limits.ctas_per_sm(block, n, shared)),
            });
        }
    }
    // write through a handle so that a closed pipe (`| head`) is an error, not a panic
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&Report { kernels, occupancy })?
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
    writeln!(
        out,
        "\nCTAs per SM (the SM's limits on CTAs, threads, warps, registers and static shared memory):"
    )?;
    writeln!(
        out,
        "{:<28} {:<8} {:>6} {:>7} {:>5} {:>5} {:>6} {:>6}",
        "kernel", "gpu", "block", "shared", "regs", "ctas", "ptxas", "ctas"
    )?;
    for o in &occupancy {
        let opt = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
        writeln!(
            out,
            "{:<28} {:<8} {:>6} {:>7} {:>5} {:>5} {:>6} {:>6}",
            o.kernel,
            o.gpu,
            o.block,
            o.shared_bytes,
            o.registers,
            o.ctas_per_sm,
            opt(o.ptxas_registers),
            opt(o.ptxas_ctas_per_sm)
        )?;
    }
    Ok(())
}

/// Threads per CTA of the occupancy table when neither `--block` nor the kernel's `.reqntid` /
/// `.maxntid` gives one: 256, the block of most of the suite's kernels.
const DEFAULT_BLOCK: u32 = 256;
