//! `regwatt report`: the study driver. Every design × every GPU preset it supports
//! × every built-in workload (filters narrow each list), simulated once per power mode and
//! priced at the report's nodes (default 40 and 12 nm) and, for the node-scaling study, at
//! every node of the technology layer.
//!
//! Each (workload, GPU, design, power mode) is simulated once (the timing model knows nothing
//! of the node); its activity is priced at every node. Runs are spread over `--jobs`
//! threads; results are collected in a fixed order, so the report directory is byte-identical
//! for the same inputs whatever the thread count:
//!
//! ```text
//! OUT/index.html                           the studies' charts and tables, links to every file
//! OUT/summary.csv, summary.json            one row per run (workload, gpu, design, power mode, node)
//! OUT/components.csv                       run × component × event / power state / area
//! OUT/kernels.csv                          one row per kernel launch of every run
//! OUT/studies/energy.csv, energy_*.svg     per-design energy by component, normalised to the reference
//!                                          (total, and dynamic alone: energy_dynamic_*.svg)
//! OUT/studies/energy_area.csv, *.svg       each design's energy and area, both against the reference
//! OUT/studies/node_scaling.csv, *.svg      the same activity priced at every node
//! OUT/studies/area_budget.csv, *.svg       area per design and component against the reference
//! OUT/runs/<gpu>/<design>/<workload>-<node>[-<mode>].json   full RunReport
//! OUT/config/<gpu>[-<design>]-<node>[-<mode>].toml          resolved configurations
//! OUT/provenance.json                      version, commit, command line, configurations, launch specs
//! ```
//!
//! Overheads are against the *reference*: the `baseline` design on the same workload, GPU,
//! node, power mode and overrides (`--set`, `--config`), or with `--baseline-config FILE` the
//! baseline resolved with that file's overrides instead. A progress bar goes to stderr on a
//! terminal; the summary table to stdout. Exits non-zero if any run failed or any output did
//! not match its reference (after writing everything).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::study_workload::StudyWorkload;
use anyhow::Context;
use regwatt_designs::beyond_rf::BeyondRfInventory;
use regwatt_designs::config::{
    resolve, GpuPreset, Node, Overrides, PowerMode, ResolvedConfig, Scope,
};
use regwatt_designs::energy::Inventory;
use regwatt_designs::run::{at_node, beyond_rf_inventory, inventory, SummaryRow};
use regwatt_designs::{DesignSpec, RunReport};
use regwatt_sim::timing::RunOptions;

use crate::study::{self, KernelRow, RunSet};

/// Arguments of `regwatt report`.
#[derive(clap::Args)]
pub struct Args {
    /// Report directory: new, empty, or one regwatt wrote (its previous files are replaced).
    #[arg(long, default_value = "regwatt-report")]
    pub out: PathBuf,
    /// Write into a folder that holds files regwatt did not write (they are left alone unless
    /// a report file has the same name).
    #[arg(long)]
    pub force: bool,
    /// Worker threads, at least 1 (default: available parallelism).
    #[arg(long, value_parser = super::jobs_parser())]
    pub jobs: Option<usize>,
    /// Only these designs (comma-separated; default: every design).
    #[arg(
        long,
        value_delimiter = ',',
        long_help = super::design_long_help("Only these designs (comma-separated; default: every design):")
    )]
    pub designs: Vec<String>,
    /// Only these GPU presets (comma-separated; default: every preset a design supports).
    #[arg(long, value_delimiter = ',')]
    pub gpus: Vec<String>,
    /// Nodes of the runs (comma-separated; default 40nm,12nm): any node the technology layer
    /// has (90, 65, 45, 40, 32, 22, 12 nm, or a whole nm between 22 and 90, interpolated).
    /// The node-scaling study prices every run at these and at the seven named nodes.
    #[arg(long, value_delimiter = ',')]
    pub nodes: Vec<String>,
    /// Power modes (comma-separated; default always-on): always-on | subarray-gating |
    /// register-gating | drowsy | tri-modal.
    #[arg(
        long = "power-modes",
        visible_alias = "power-mode",
        value_delimiter = ','
    )]
    pub power_modes: Vec<String>,
    /// Only these workloads (comma-separated; default: every built-in one): built-in names,
    /// or paths of your own launch spec files (`.toml`), which run with their own inputs and
    /// are checked against their own `[check]` tables.
    #[arg(long, value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// The workloads' input size: ci (tests), default (fills both GPUs), paper (the benchmark
    /// suites' standard inputs) [default: default].
    #[arg(long, value_parser = super::parse_size)]
    pub size: Option<regwatt_workloads::Size>,
    /// What the energy/area totals include: rf (register file) | sm (+ L1D, shared memory,
    /// execution units) | gpu (+ L2, interconnect, DRAM).
    #[arg(long, default_value = "rf")]
    pub scope: String,
    #[command(flatten)]
    pub overrides: super::OverrideArgs,
    #[command(flatten)]
    pub limits: super::RunLimits,
}

/// One configuration to simulate every workload on.
struct Variant {
    gpu: GpuPreset,
    design: DesignSpec,
    mode: PowerMode,
    cfg: ResolvedConfig,
    /// Only the reference of other variants' overheads (not reported as runs).
    reference_only: bool,
    /// Hardware at every pricing node.
    hw: Vec<NodeHardware>,
}

/// The hardware of one variant at one node: its configuration, the RF inventory and (at
/// scope `sm`/`gpu`) the hardware beyond the RF.
struct NodeHardware {
    node: Node,
    cfg: ResolvedConfig,
    inv: Inventory,
    beyond: Option<BeyondRfInventory>,
}

struct Job<'a> {
    workload: &'a StudyWorkload,
    size: regwatt_workloads::Size,
    variant: usize,
}

/// What one job returns: a report per pricing node and the kernel rows at the report's nodes.
struct JobOut {
    reports: Vec<RunReport>,
    kernels: Vec<KernelRow>,
}

fn parse_list<T>(items: &[String], all: &[T]) -> anyhow::Result<Vec<T>>
where
    T: std::str::FromStr + Clone + PartialEq,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    if items.is_empty() {
        return Ok(all.to_vec());
    }
    let mut out: Vec<T> = Vec::new();
    for s in items {
        let v: T = s.parse()?;
        if !out.contains(&v) {
            out.push(v);
        }
    }
    Ok(out)
}

fn run_job(
    job: &Job,
    variants: &[Variant],
    report_nodes: &[Node],
    opts: &RunOptions,
    limits: &super::RunLimits,
    budget: &regwatt_sim::footprint::Budget,
) -> Result<JobOut, String> {
    let v = &variants[job.variant];
    let spec = job
        .workload
        .load_spec(job.size)
        .map_err(|e| format!("{e:#}"))?;
    let size = job.workload.size(job.size);
    regwatt_sim::footprint::timed(&v.cfg.gpu, &spec, 1)
        .check(budget)
        .map_err(|e| e.to_string())?;
    let sim = super::run::simulate(
        &spec,
        job.workload.builtin(),
        v.design,
        &v.cfg,
        opts,
        limits.watch(size, &|_, _, _| {}),
    )
    .map_err(|e| format!("{:#}", super::explain_limits(e)))?;
    let mut reports = Vec::new();
    let mut kernels = Vec::new();
    for hw in &v.hw {
        let price = |act, launch_cycles| {
            RunReport::with_beyond_rf(
                job.workload.name(),
                v.design,
                &hw.cfg,
                &hw.inv,
                hw.beyond.as_ref(),
                act,
                launch_cycles,
            )
            .map_err(|e| e.to_string())
        };
        let mut r = price(&sim.activity, sim.launch_cycles)?;
        r.output_check = sim.check.as_ref().map(Result::is_ok);
        r.input_size = size.map(|z| z.name().to_string());
        r.kernel_registers = sim.kernel_registers.clone();
        if !v.reference_only && report_nodes.contains(&hw.node) {
            for (i, l) in sim.launches.iter().enumerate() {
                let k = price(&l.activity, l.launch_cycles)?;
                kernels.push(KernelRow::new(&r, i, l, &k));
            }
        }
        reports.push(r);
    }
    if let Some(Err(e)) = &sim.check {
        eprintln!(
            "{} on {} / {}: output mismatch: {e}",
            job.workload.name(),
            v.cfg.gpu.name,
            v.design
        );
    }
    Ok(JobOut { reports, kernels })
}

/// The file name of a resolved configuration (the baseline's always-on files keep their
/// names from before designs had parameters and power modes).
fn config_file_name(v: &Variant, node: Node) -> String {
    let mut name = v.cfg.gpu.name.clone();
    if v.reference_only {
        name.push_str("-reference");
    } else if v.design != DesignSpec::Baseline {
        name = format!("{name}-{}", v.design);
    }
    name = format!("{name}-{node}");
    if v.mode != PowerMode::AlwaysOn {
        name = format!("{name}-{}", v.mode);
    }
    name + ".toml"
}

/// Runs `regwatt report`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    // the destination is checked before anything is simulated
    let out = &crate::outdir::OutDir::prepare(&args.out, "--out", args.force)?;
    let workloads: Vec<StudyWorkload> = if args.workloads.is_empty() {
        regwatt_workloads::all()
            .iter()
            .map(StudyWorkload::Builtin)
            .collect()
    } else {
        StudyWorkload::parse_all(&args.workloads, Path::new(""))?
    };
    // every workload at the size, before anything runs
    let size = args.size.unwrap_or(super::DEFAULT_SIZE);
    for w in &workloads {
        w.check_size(size)?;
    }
    let designs = parse_list(&args.designs, &DesignSpec::ALL)?;
    let gpus = parse_list(&args.gpus, &GpuPreset::ALL)?;
    let mut report_nodes = parse_list(&args.nodes, &Node::REPORT)?;
    report_nodes.sort();
    let modes = parse_list(&args.power_modes, &[PowerMode::AlwaysOn])?;
    let scope: Scope = args.scope.parse()?;
    let ovr = &args.overrides;
    // the node-scaling study: the named nodes and the report's
    let mut all_nodes: Vec<Node> = Node::ALL.to_vec();
    all_nodes.extend(report_nodes.iter().copied());
    all_nodes.sort();
    all_nodes.dedup();

    let overrides = |design: DesignSpec, mode: PowerMode, files: &[PathBuf], sets: &[String]| {
        let mut ov = Overrides {
            sets: sets.to_vec(),
            scope: Some(scope),
            power_mode: Some(mode),
            design: Some(design),
            ..Overrides::default()
        };
        for f in files {
            ov.add_file(f)?;
        }
        anyhow::Ok(ov)
    };
    let mut variants: Vec<Variant> = Vec::new();
    for &gpu in &gpus {
        for &mode in &modes {
            for &design in designs.iter().filter(|d| d.supports(gpu)) {
                let ov = overrides(design, mode, &ovr.config, &ovr.sets)?;
                let cfg = resolve(gpu, &ov)
                    .with_context(|| format!("design {design} on {gpu}, power mode {mode}"))?;
                variants.push(Variant {
                    gpu,
                    design,
                    mode,
                    cfg,
                    reference_only: false,
                    hw: Vec::new(),
                });
            }
            // the reference: the baseline with `--baseline-config`, or with the runs' own
            // overrides when the baseline is not among the designs
            let reference = match &ovr.baseline_config {
                Some(f) => Some(overrides(
                    DesignSpec::Baseline,
                    mode,
                    std::slice::from_ref(f),
                    &[],
                )?),
                None if !designs.contains(&DesignSpec::Baseline) => Some(overrides(
                    DesignSpec::Baseline,
                    mode,
                    &ovr.config,
                    &ovr.sets,
                )?),
                None => None,
            };
            if let Some(ov) = reference {
                let cfg = resolve(gpu, &ov).with_context(|| {
                    format!("the reference baseline on {gpu}, power mode {mode}")
                })?;
                variants.push(Variant {
                    gpu,
                    design: DesignSpec::Baseline,
                    mode,
                    cfg,
                    reference_only: true,
                    hw: Vec::new(),
                });
            }
        }
    }
    if variants.iter().all(|v| v.reference_only) {
        anyhow::bail!("no design supports the chosen GPU presets");
    }
    // hardware per (variant, node)
    for v in &mut variants {
        for &node in &all_nodes {
            let c = at_node(&v.cfg, node);
            let inv = inventory(v.design, &c)
                .with_context(|| format!("design {} on {} at {node}", v.design, v.gpu))?;
            let beyond = beyond_rf_inventory(v.design, &c)?;
            v.hw.push(NodeHardware {
                node,
                cfg: c,
                inv,
                beyond,
            });
        }
    }
    let mut jobs = Vec::new();
    for (vi, _) in variants.iter().enumerate() {
        for w in &workloads {
            jobs.push(Job {
                workload: w,
                size,
                variant: vi,
            });
        }
    }
    let opts = args.limits.options(Some(size));
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, jobs.len().max(1));
    // jobs run side by side: each gets its share of the memory budget
    let mut budget = args.limits.budget()?;
    budget.bytes /= threads as u64;
    let results = super::parallel_with_progress(
        &jobs,
        args.jobs,
        |job| {
            let v = &variants[job.variant];
            format!("{} {} {} {}", v.gpu, v.design, v.mode, job.workload.name())
        },
        |job| run_job(job, &variants, &report_nodes, &opts, &args.limits, &budget),
    );

    let mut sets: Vec<RunSet> = Vec::new();
    let mut references: Vec<RunSet> = Vec::new();
    let mut kernels: Vec<KernelRow> = Vec::new();
    let mut failures = Vec::new();
    for (job, o) in jobs.iter().zip(results) {
        let v = &variants[job.variant];
        match o {
            Some(Ok(out)) => {
                let set = RunSet {
                    gpu: v.cfg.gpu.name.clone(),
                    design: v.design,
                    mode: v.mode,
                    workload: job.workload.name().to_string(),
                    reports: out.reports,
                };
                kernels.extend(out.kernels);
                if v.reference_only {
                    references.push(set);
                } else {
                    if v.design == DesignSpec::Baseline && ovr.baseline_config.is_none() {
                        references.push(set.clone());
                    }
                    sets.push(set);
                }
            }
            Some(Err(e)) => failures.push(format!(
                "{} on {} / {} ({}): {e}",
                job.workload.source(),
                v.cfg.gpu.name,
                v.design,
                v.mode
            )),
            None => failures.push(format!("{}: not run", job.workload.source())),
        }
    }
    // overheads against the reference on the same workload, gpu, power mode and node
    let key = |s: &RunSet| (s.gpu.clone(), s.mode, s.workload.clone());
    let refs: BTreeMap<_, &RunSet> = references.iter().map(|s| (key(s), s)).collect();
    for s in &mut sets {
        if let Some(r) = refs.get(&key(s)) {
            for (rep, base) in s.reports.iter_mut().zip(&r.reports) {
                rep.set_baseline(base);
            }
        }
    }

    let report_index: Vec<usize> = all_nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| report_nodes.contains(n))
        .map(|(i, _)| i)
        .collect();
    for v in &variants {
        for hw in v.hw.iter().filter(|h| report_nodes.contains(&h.node)) {
            out.write(
                Path::new("config").join(config_file_name(v, hw.node)),
                hw.cfg.to_toml(),
            )?;
        }
    }
    let reported = || {
        sets.iter()
            .flat_map(|s| report_index.iter().map(move |&i| &s.reports[i]))
    };
    let rows: Vec<SummaryRow> = reported().map(RunReport::summary_row).collect();
    out.write("summary.csv", study::summary_csv(&rows)?)?;
    out.write("summary.json", serde_json::to_string_pretty(&rows)? + "\n")?;
    out.write("components.csv", study::components_csv(reported())?)?;
    out.write("kernels.csv", study::kernels_csv(&kernels)?)?;
    for r in reported() {
        let mode = r.config.power.mode;
        let suffix = if mode == PowerMode::AlwaysOn {
            String::new()
        } else {
            format!("-{mode}")
        };
        out.write(
            Path::new("runs")
                .join(&r.gpu)
                .join(r.design.name())
                .join(format!("{}-{}{suffix}.json", r.workload, r.node)),
            serde_json::to_string_pretty(r)? + "\n",
        )?;
    }
    let reference = match &ovr.baseline_config {
        Some(f) => format!(
            "the baseline resolved with --baseline-config {} (same workload, GPU, node and power mode)",
            f.display()
        ),
        None => "the baseline on the same workload, GPU, node, power mode and overrides".into(),
    };
    let mut head = format!(
        "{:<16} {:<8} {:<9} {:<15} {:>9} {:>6} {:>5} {:>5}",
        "workload", "gpu", "design", "power mode", "cycles", "IPC", "busy", "util"
    );
    for n in &report_nodes {
        head.push_str(&format!(" {:>12}", format!("E@{n} [µJ]")));
    }
    for n in &report_nodes {
        head.push_str(&format!(" {:>11}", format!("A@{n} mm2")));
    }
    let mut table = format!(
        "input size {size}; busy: share of the kernels' SM-cycles with a CTA resident; util: warp instructions per issue slot\n{head}  check\n"
    );
    for s in &sets {
        let first = &s.reports[report_index[0]];
        let mut line = format!(
            "{:<16} {:<8} {:<9} {:<15} {:>9} {:>6.2} {:>5.2} {:>5.3}",
            s.workload,
            s.gpu,
            s.design.name(),
            s.mode.name(),
            first.cycles,
            first.ipc,
            first.activity.core.sm_busy_frac.value(),
            first.activity.core.issue_utilisation_frac.value()
        );
        for &i in &report_index {
            line.push_str(&format!(" {:>12.3}", s.reports[i].energy.total.j() * 1e6));
        }
        for &i in &report_index {
            line.push_str(&format!(" {:>11.3}", s.reports[i].area.total.mm2()));
        }
        table.push_str(&format!("{line}  {}\n", first.summary_row().output_check));
    }
    let studies = study::Studies {
        sets: &sets,
        references: &refs.values().copied().collect::<Vec<_>>(),
        report_nodes: &report_nodes,
        all_nodes: &all_nodes,
        reference: &reference,
    };
    let files = studies.write(out)?;
    out.write(
        "summary.md",
        study::summary_markdown(&files, &table, &reference),
    )?;
    let provenance = crate::provenance::Provenance::new(
        variants
            .iter()
            .flat_map(|v| {
                v.hw.iter()
                    .filter(|h| report_nodes.contains(&h.node))
                    .map(|h| (config_file_name(v, h.node), &h.cfg))
            })
            .collect(),
        workloads
            .iter()
            .map(|w| Ok((w.name().to_string(), w.spec_entry(size)?)))
            .collect::<anyhow::Result<_>>()?,
    )
    .with_note("reference", &reference);
    provenance.write(out)?;
    let failed_html: Vec<String> = failures.clone();
    study::html::write_index(out, &studies, &files, &provenance, &failed_html)?;

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
    out!("{table}");
    out!("\n");
    out!("{}", study::headline_text(&files, &reference));
    eprintln!(
        "{} runs ({} simulations on {threads} threads) in {:.1} s; report in {} (open index.html; the tables are in summary.md)",
        rows.len(),
        jobs.len(),
        started.elapsed().as_secs_f64(),
        out.path().display()
    );
    let mismatches = sets
        .iter()
        .filter(|s| s.reports.first().and_then(|r| r.output_check) == Some(false))
        .count();
    for f in &failures {
        eprintln!("FAILED: {f}");
    }
    if !failures.is_empty() || mismatches > 0 {
        anyhow::bail!(
            "{} run(s) failed, {} output mismatch(es)",
            failures.len(),
            mismatches
        );
    }
    Ok(())
}
