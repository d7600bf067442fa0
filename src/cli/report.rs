//! `regwatt report`: every built-in workload on every design and GPU preset, evaluated at
//! 40 nm and 12 nm.
//!
//! Each (workload, GPU, design) is simulated once (the timing model knows nothing of the
//! node); its activity is evaluated at both nodes. Runs are spread over `--jobs` threads;
//! results are collected in a fixed order, so the report directory is byte-identical for
//! the same inputs whatever the thread count:
//!
//! ```text
//! OUT/summary.csv                          one row per (workload, gpu, design, node)
//! OUT/summary.json                         the same rows, typed
//! OUT/runs/<gpu>/<design>/<workload>-<node>.json   full RunReport (activity, energy, area, config)
//! OUT/config/<gpu>-<node>.toml             resolved configuration of each preset and node
//! ```
//!
//! A progress bar goes to stderr; the summary table to stdout. Exits non-zero if any run
//! failed or any output did not match its reference (after writing everything).
//!
//! `--scope rf|sm|gpu` (default `rf`) chooses what the energy and area totals include (see
//! `regwatt run`); the simulations are the same for every scope. At `rf` the report is what
//! it was before scopes existed; at `sm`/`gpu` the summary gains a `scope` column, every run
//! JSON an `energy.scope` record and every configuration its `[beyond_rf]` table.

use std::path::{Path, PathBuf};

use anyhow::Context;
use regwatt_designs::config::{
    resolve, GpuPreset, Node, Overrides, PowerMode, ResolvedConfig, Scope,
};
use regwatt_designs::energy::Inventory;
use regwatt_designs::gpu_side::BeyondRfInventory;
use regwatt_designs::run::{at_node, beyond_rf_inventory, inventory, SummaryRow};
use regwatt_designs::{DesignSpec, RunReport};
use regwatt_sim::timing::RunOptions;
use regwatt_workloads::Workload;

/// Arguments of `regwatt report`.
#[derive(clap::Args)]
pub struct Args {
    /// Report directory.
    #[arg(long, default_value = "regwatt-report")]
    pub out: PathBuf,
    /// Worker threads (default: available parallelism).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Only these workloads (comma-separated; default: all).
    #[arg(long, value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// What the energy/area totals include: rf (register file) | sm (+ L1D, shared memory,
    /// execution units) | gpu (+ L2, interconnect, DRAM).
    #[arg(long, default_value = "rf")]
    pub scope: String,
    /// Power management of the register rows: always-on | subarray-gating |
    /// register-gating | drowsy | tri-modal.
    #[arg(long, default_value = "always-on")]
    pub power_mode: String,
    #[command(flatten)]
    pub limits: super::RunLimits,
}

struct Job {
    workload: &'static Workload,
    gpu: usize,
    /// Index into [`DesignSpec::ALL`].
    d: usize,
    design: DesignSpec,
}

/// Outcome of one job: one report per node, or an error.
type Outcome = Result<Vec<RunReport>, String>;

/// The hardware of one GPU preset at one node: its configuration, the RF inventory and (at
/// scope `sm`/`gpu`) the hardware beyond the RF.
type NodeHardware = (Node, ResolvedConfig, Inventory, Option<BeyondRfInventory>);

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

fn run_job(
    job: &Job,
    cfgs: &[Vec<ResolvedConfig>],
    invs: &[Vec<Vec<NodeHardware>>],
    opts: &RunOptions,
    limits: &super::RunLimits,
    budget: &regwatt_sim::footprint::Budget,
) -> Outcome {
    let cfg = &cfgs[job.gpu][job.d];
    let spec = job.workload.load_spec().map_err(|e| e.to_string())?;
    regwatt_sim::footprint::timed(&cfg.gpu, &spec, 1)
        .check(budget)
        .map_err(|e| e.to_string())?;
    let sim = super::run::simulate(
        &spec,
        Some(job.workload),
        job.design,
        cfg,
        opts,
        limits.watch(&|_, _, _| {}),
    )
    .map_err(|e| format!("{:#}", super::explain_limits(e)))?;
    let mut out = Vec::new();
    for (_, ncfg, inv, beyond) in &invs[job.gpu][job.d] {
        let mut r = RunReport::with_beyond_rf(
            job.workload.name,
            job.design,
            ncfg,
            inv,
            beyond.as_ref(),
            &sim.activity,
            sim.launch_cycles,
        )
        .map_err(|e| e.to_string())?;
        r.output_check = sim.check.as_ref().map(Result::is_ok);
        out.push(r);
    }
    if let Some(Err(e)) = &sim.check {
        eprintln!(
            "{} on {} / {}: output mismatch: {e}",
            job.workload.name, cfg.gpu.name, job.design
        );
    }
    Ok(out)
}

/// Runs `regwatt report`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let workloads: Vec<&'static Workload> = if args.workloads.is_empty() {
        regwatt_workloads::all().iter().collect()
    } else {
        args.workloads
            .iter()
            .map(|n| regwatt_workloads::get(n))
            .collect::<Result<_, _>>()?
    };
    let scope: Scope = args.scope.parse()?;
    let power_mode = args.power_mode.parse::<PowerMode>()?;
    // configurations per (gpu, design): each design with its own `[design]` defaults
    let cfgs: Vec<Vec<ResolvedConfig>> = GpuPreset::ALL
        .iter()
        .map(|p| {
            DesignSpec::ALL
                .iter()
                .map(|d| {
                    // a design the preset cannot run keeps its place with the baseline's
                    // configuration, and no job (seed 004's cerf: gtx480 only)
                    let ov = Overrides {
                        scope: Some(scope),
                        power_mode: Some(power_mode),
                        design: Some(if d.supports(*p) {
                            *d
                        } else {
                            DesignSpec::Baseline
                        }),
                        ..Overrides::default()
                    };
                    resolve(*p, &ov)
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<_, _>>()?;
    // inventories per (gpu, design, node)
    let mut invs: Vec<Vec<Vec<NodeHardware>>> = Vec::new();
    for (preset, per_design) in GpuPreset::ALL.iter().zip(&cfgs) {
        let mut vd = Vec::new();
        for (d, cfg) in DesignSpec::ALL.iter().zip(per_design) {
            let mut v = Vec::new();
            for node in Node::REPORT.into_iter().filter(|_| d.supports(*preset)) {
                let c = at_node(cfg, node);
                let inv = inventory(*d, &c)?;
                let beyond = beyond_rf_inventory(&c)?;
                v.push((node, c, inv, beyond));
            }
            vd.push(v);
        }
        invs.push(vd);
    }
    let mut jobs = Vec::new();
    for (g, preset) in GpuPreset::ALL.iter().enumerate() {
        for (d, design) in DesignSpec::ALL.iter().enumerate() {
            if !design.supports(*preset) {
                continue;
            }
            for w in &workloads {
                jobs.push(Job {
                    workload: w,
                    gpu: g,
                    d,
                    design: *design,
                });
            }
        }
    }
    let opts = args.limits.options();
    let started = std::time::Instant::now();
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, jobs.len().max(1));
    // jobs run side by side: each gets its share of the memory budget (issue 35)
    let mut budget = args.limits.budget()?;
    budget.bytes /= threads as u64;
    let results = super::parallel_with_progress(
        &jobs,
        args.jobs,
        |job| {
            format!(
                "{} {} {}",
                cfgs[job.gpu][job.d].gpu.name, job.design, job.workload.name
            )
        },
        |job| run_job(job, &cfgs, &invs, &opts, &args.limits, &budget),
    );

    // overheads against the same GPU's baseline at the same node
    let mut reports: Vec<(usize, RunReport)> = Vec::new();
    let mut failures = Vec::new();
    for (job, o) in jobs.iter().zip(results) {
        match o {
            Some(Ok(rs)) => reports.extend(rs.into_iter().map(|r| (job.gpu, r))),
            Some(Err(e)) => failures.push(format!(
                "{} on {} / {}: {e}",
                job.workload.name, cfgs[job.gpu][job.d].gpu.name, job.design
            )),
            None => failures.push(format!("{}: not run", job.workload.name)),
        }
    }
    let baselines: Vec<RunReport> = reports
        .iter()
        .filter(|(_, r)| r.design == DesignSpec::Baseline)
        .map(|(_, r)| r.clone())
        .collect();
    for (_, r) in &mut reports {
        if let Some(b) = baselines
            .iter()
            .find(|b| b.workload == r.workload && b.gpu == r.gpu && b.node == r.node)
        {
            r.set_baseline(b);
        }
    }

    let out = &args.out;
    for per_design in &invs {
        for (design, hw) in DesignSpec::ALL.iter().zip(per_design) {
            for (node, c, _, _) in hw {
                // the baseline's files keep their names from before designs had parameters
                let name = match design {
                    DesignSpec::Baseline => format!("{}-{}.toml", c.gpu.name, node),
                    d => format!("{}-{}-{}.toml", c.gpu.name, d, node),
                };
                write(&out.join("config").join(name), &c.to_toml())?;
            }
        }
    }
    let rows: Vec<SummaryRow> = reports.iter().map(|(_, r)| r.summary_row()).collect();
    let mut csv = SummaryRow::csv_header(scope != Scope::Rf);
    csv.push('\n');
    for r in &rows {
        csv.push_str(&r.csv());
        csv.push('\n');
    }
    write(&out.join("summary.csv"), &csv)?;
    write(
        &out.join("summary.json"),
        &(serde_json::to_string_pretty(&rows)? + "\n"),
    )?;
    for (_, r) in &reports {
        write(
            &out.join("runs")
                .join(&r.gpu)
                .join(r.design.name())
                .join(format!("{}-{}.json", r.workload, r.node)),
            &(serde_json::to_string_pretty(r)? + "\n"),
        )?;
    }

    if scope != Scope::Rf {
        let levels: Vec<&str> = Scope::ALL
            .iter()
            .filter(|l| **l <= scope)
            .map(|l| l.name())
            .collect();
        outln!(
            "scope {scope}: energy and area totals include the levels {}",
            levels.join(" + ")
        );
    }
    outln!(
        "{:<16} {:<8} {:<9} {:>11} {:>6} {:>13} {:>13} {:>10} {:>10} {:>6}",
        "workload",
        "gpu",
        "design",
        "cycles",
        "IPC",
        "E@40nm [nJ]",
        "E@12nm [nJ]",
        "A@40 mm2",
        "A@12 mm2",
        "check"
    );
    for pair in reports.chunks(Node::REPORT.len()) {
        let (Some((_, a)), Some((_, b))) = (pair.first(), pair.get(1)) else {
            continue;
        };
        outln!(
            "{:<16} {:<8} {:<9} {:>11} {:>6.2} {:>13.1} {:>13.1} {:>10.2} {:>10.2} {:>6}",
            a.workload,
            a.gpu,
            a.design.name(),
            a.cycles,
            a.ipc,
            a.energy.total.nj(),
            b.energy.total.nj(),
            a.area.total.mm2(),
            b.area.total.mm2(),
            a.summary_row().output_check
        );
    }
    eprintln!(
        "{} runs ({} simulations on {threads} threads) in {:.1} s; report in {}",
        reports.len(),
        jobs.len(),
        started.elapsed().as_secs_f64(),
        out.display()
    );
    let mismatches = reports
        .iter()
        .filter(|(_, r)| r.output_check == Some(false))
        .count();
    for f in &failures {
        eprintln!("FAILED: {f}");
    }
    if !failures.is_empty() || mismatches > 0 {
        anyhow::bail!(
            "{} run(s) failed, {} output mismatch(es)",
            failures.len(),
            mismatches / Node::REPORT.len()
        );
    }
    Ok(())
}
