//! `regwatt run`: time a launch spec (or a built-in workload) on a GPU preset with an RF
//! design, then evaluate energy and area at a technology node.
//!
//! ```text
//! regwatt run (SPEC.toml | --workload NAME) --gpu gtx480|rtx2060 [--design baseline]
//!             [--node 90nm|65nm|45nm|40nm|32nm|22nm|12nm] [--scope rf|sm|gpu]
//!             [--config FILE]... [--set KEY=VALUE]... [--json] [--dump DIR] [--out DIR]
//! ```
//!
//! * Prints cycles, IPC, the activity summary and the per-component energy/area breakdown,
//!   or with `--json` the typed [`regwatt_designs::RunReport`] (resolved config included).
//! * `--dump DIR` writes every buffer after the last launch as `DIR/<name>.npy` (as
//!   `regwatt exec --dump`) and the resolved configuration as `DIR/resolved_config.toml`.
//! * `--out DIR` writes `report.json`, `energy.csv` and `resolved_config.toml`.
//! * Built-in workloads are checked against their Rust reference, launch specs with `[check]`
//!   tables against their expected buffers: non-zero exit on mismatch.
//! * `--node` defaults to the preset's `power.node` (gtx480: 40nm, rtx2060: 12nm); the node
//!   used is in the output and in the resolved configuration.
//! * `--scope` (default `rf`) chooses what the energy and area totals include: `rf` the
//!   register file (the output is what it was before scopes existed), `sm` + L1D, shared
//!   memory and execution units, `gpu` + L2, interconnect and DRAM. At `sm` and `gpu` every
//!   component of all three levels is listed with its level, and the scope is in the
//!   resolved configuration (`[beyond_rf]`) and the JSON (`energy.scope`).

use std::path::PathBuf;

use anyhow::bail;
use regwatt_designs::config::{
    resolve, GpuPreset, Node, Overrides, PowerMode, ResolvedConfig, Scope,
};
use regwatt_designs::energy::ScopeSummary;
use regwatt_designs::exec_model::{simulate_spec_watched, Watch};
use regwatt_designs::exec_model::{KernelRegisters, LaunchRecord};
use regwatt_designs::run::{inventory, DesignActivity};
use regwatt_designs::{DesignSpec, RunReport};
use regwatt_sim::launch::{HostData, LaunchSpec};
use regwatt_sim::timing::RunOptions;
use regwatt_workloads::Workload;

/// Arguments of `regwatt run`.
#[derive(clap::Args)]
pub struct Args {
    /// Launch spec (TOML) to run.
    #[arg(conflicts_with = "workload")]
    pub spec: Option<PathBuf>,
    /// Run a built-in workload instead (`regwatt exec --list`) and check it.
    #[arg(long)]
    pub workload: Option<String>,
    /// The built-in workload's input size: ci (tests), default (fills both GPUs), paper (the
    /// benchmark suites' standard inputs) [default: default].
    #[arg(long, value_parser = super::parse_size, requires = "workload")]
    pub size: Option<regwatt_workloads::Size>,
    /// Make the spec's warnings errors: a `__constant__` array the kernels read with neither a
    /// PTX initialiser nor a `[constants.<symbol>]` table (they would read zeros).
    #[arg(long)]
    pub strict: bool,
    /// GPU preset: gtx480 | rtx2060.
    #[arg(long)]
    pub gpu: String,
    #[arg(
        long,
        default_value = "baseline",
        help = super::design_help(),
        long_help = super::design_long_help(&super::design_help())
    )]
    pub design: String,
    #[arg(long, help = super::node_help())]
    pub node: Option<String>,
    /// What the energy/area totals include: rf (register file) | sm (+ L1D, shared memory,
    /// execution units) | gpu (+ L2, interconnect, DRAM). Default: the configuration's
    /// `beyond_rf.scope` (`rf` in both presets); an override of that key must agree.
    #[arg(long)]
    pub scope: Option<String>,
    /// Power management of the register rows: always-on | subarray-gating |
    /// register-gating | drowsy | tri-modal (`power.drowsy_timeout`, `power.gating_perf_loss`
    /// with `--set`). Default: the configuration's `power.mode` (`always-on` in both presets);
    /// an override of that key must agree.
    #[arg(long)]
    pub power_mode: Option<String>,
    #[command(flatten)]
    pub overrides: super::OverrideArgs,
    /// Print the typed JSON report instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write every buffer as DIR/<name>.npy (and DIR/resolved_config.toml).
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// Write report.json, energy.csv and resolved_config.toml into DIR (and
    /// register_series.csv with `--series-window`, power_states.csv in a power mode).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write into `--out`/`--dump` folders that hold files regwatt did not write (left alone
    /// unless a new file has the same name).
    #[arg(long)]
    pub force: bool,
    /// Record register occupancy per window of this many cycles: architected, allocated and
    /// live registers over time (Jeon & Annavaram 2014 Fig. 2), in the JSON activity
    /// (`rf.register_series`) and, with `--out`, as DIR/register_series.csv.
    #[arg(long, value_name = "CYCLES", value_parser = clap::value_parser!(u64).range(1..=1 << 40))]
    pub series_window: Option<u64>,
    #[command(flatten)]
    pub limits: super::RunLimits,
}

/// The power mode's states and wake-ups as CSV: one row per state (row- or
/// sub-array-cycles in it, the cells' leakage energy in it) and per kind of wake-up (count,
/// energy), then the cells' static energy in the mode and always on.
fn power_states_csv(r: &RunReport) -> anyhow::Result<Option<String>> {
    let Some(pm) = &r.power_management else {
        return Ok(None);
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["mode", "record", "name", "count", "energy_j"])?;
    let mode = pm.mode.name();
    for st in &pm.states {
        w.write_record([
            mode,
            "state_cycles",
            st.state,
            &st.cycles.to_string(),
            &format!("{:e}", st.energy.j()),
        ])?;
    }
    for wk in &pm.wakeups {
        w.write_record([
            mode,
            "wakeups",
            wk.kind,
            &wk.count.to_string(),
            &format!("{:e}", wk.energy.j()),
        ])?;
    }
    w.write_record([mode, "cells", "in_mode", "", &format!("{:e}", pm.cells.j())])?;
    w.write_record([
        mode,
        "cells",
        "always_on",
        "",
        &format!("{:e}", pm.cells_always_on.j()),
    ])?;
    // the state control's flip-flops (added to rf_banks with the cells)
    w.write_record([
        mode,
        "control",
        "flipflops",
        "",
        &format!("{:e}", pm.control.j()),
    ])?;
    // over the kernel-launch latency (in `launch_latency.static_j`, not in the states above)
    w.write_record([
        mode,
        "launch_cells",
        "in_mode",
        "",
        &format!("{:e}", pm.launch_cells.j()),
    ])?;
    w.write_record([
        mode,
        "launch_cells",
        "always_on",
        "",
        &format!("{:e}", pm.launch_cells_always_on.j()),
    ])?;
    Ok(Some(String::from_utf8(w.into_inner()?)?))
}

/// Register occupancy per window as CSV: per-SM means of the architected, allocated and live
/// warp registers, and the utilisation live / architected (Jeon & Annavaram 2014 Fig. 2; empty while no
/// warp is resident).
fn series_csv(r: &RunReport) -> anyhow::Result<String> {
    let sms = f64::from(r.config.gpu.sms.max(1));
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "start_cycle",
        "cycles",
        "architected_registers",
        "allocated_registers",
        "live_registers",
        "utilisation_frac",
    ])?;
    for x in &r.activity.rf.register_series {
        let per = |v: u64| {
            if x.cycles == 0 {
                0.0
            } else {
                v as f64 / x.cycles as f64 / sms
            }
        };
        let arch = per(x.architected_register_cycles);
        let live = per(x.live_register_cycles);
        w.write_record([
            x.start_cycle.to_string(),
            x.cycles.to_string(),
            format!("{arch:.6}"),
            format!("{:.6}", per(x.allocated_register_cycles)),
            format!("{live:.6}"),
            if arch > 0.0 {
                format!("{:.6}", live / arch)
            } else {
                String::new()
            },
        ])?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// Outcome of simulating one workload/spec once.
pub(crate) struct Simulated {
    pub activity: DesignActivity,
    /// Cycles of the launch latencies (`regwatt_designs::exec_model::launch_cycles`).
    pub launch_cycles: u64,
    /// Every launch on its own.
    pub launches: Vec<LaunchRecord>,
    pub buffers: std::collections::BTreeMap<String, HostData>,
    /// Output check ([`output_check`]): `Some(Err(first mismatch))` on failure.
    pub check: Option<Result<(), String>>,
    /// Registers per thread of each launched kernel, estimated or given.
    pub kernel_registers: std::collections::BTreeMap<String, KernelRegisters>,
}

/// Simulates `spec` and checks its output ([`output_check`]).
pub(crate) fn simulate(
    spec: &LaunchSpec,
    workload: Option<&Workload>,
    design: DesignSpec,
    cfg: &ResolvedConfig,
    opts: &RunOptions,
    watch: Watch<'_>,
) -> anyhow::Result<Simulated> {
    let sim = simulate_spec_watched(spec, design, cfg, opts, watch)?;
    let check = output_check(spec, workload, &sim.buffers);
    Ok(Simulated {
        activity: sim.activity,
        launch_cycles: sim.launch_cycles,
        launches: sim.launches,
        buffers: sim.buffers,
        check,
        kernel_registers: sim.kernel_registers,
    })
}

/// The output check of a run (`exec`, `run`, `report`, `sweep`): a built-in workload against
/// its Rust reference, a launch spec against its `[check]` tables; `None` when there
/// is nothing to compare, `Some(Err(first mismatch))` on a failure.
pub(crate) fn output_check(
    spec: &LaunchSpec,
    workload: Option<&Workload>,
    buffers: &std::collections::BTreeMap<String, HostData>,
) -> Option<Result<(), String>> {
    match workload {
        Some(w) => Some(
            w.expected_final(&spec.initial_buffers(), spec)
                .map_err(|e| e.to_string())
                .and_then(|exp| {
                    regwatt_workloads::check(w, &exp, buffers).map_err(|e| e.to_string())
                }),
        ),
        None if !spec.checks.is_empty() => {
            Some(regwatt_workloads::check_spec(spec, buffers).map_err(|e| e.to_string()))
        }
        None => None,
    }
}

/// Prints a run's check (`check: PASS (NAME)` / `check: FAIL: first mismatch`, nothing without
/// one) and returns the error a failed check ends the command with.
pub(crate) fn report_check(
    check: &Option<Result<(), String>>,
    name: &str,
    workload: Option<&Workload>,
    print: bool,
) -> anyhow::Result<()> {
    if print {
        match check {
            Some(Ok(())) => outln!("check: PASS ({name})"),
            Some(Err(e)) => outln!("check: FAIL: {e}"),
            None => {}
        }
    }
    if let Some(Err(e)) = check {
        let against = if workload.is_some() {
            "the reference"
        } else {
            "the spec's [check]"
        };
        bail!("output does not match {against}: {e}");
    }
    Ok(())
}

/// Resolves the configuration from the command-line choices.
pub(crate) fn config(
    design: DesignSpec,
    gpu: &str,
    node: Option<&str>,
    scope: Option<&str>,
    power_mode: Option<&str>,
    files: &[PathBuf],
    sets: &[String],
) -> anyhow::Result<ResolvedConfig> {
    let preset: GpuPreset = gpu.parse()?;
    let mut ov = Overrides {
        sets: sets.to_vec(),
        node: node.map(str::parse::<Node>).transpose()?,
        scope: scope.map(str::parse::<Scope>).transpose()?,
        power_mode: power_mode.map(str::parse::<PowerMode>).transpose()?,
        design: Some(design),
        ..Overrides::default()
    };
    for f in files {
        ov.add_file(f)?;
    }
    Ok(resolve(preset, &ov)?)
}

/// Human-readable summary of a report.
pub(crate) fn print_text(r: &RunReport) -> anyhow::Result<()> {
    let a = &r.activity;
    outln!(
        "workload {}  gpu {}  design {}  node {}  ({} SMs @ {} MHz, {} K)",
        r.workload,
        r.gpu,
        r.design,
        r.node,
        r.config.gpu.sms,
        r.config.gpu.core_clock_mhz,
        r.config.power.temperature.k()
    );
    outln!(
        "cycles {}  warp instructions {}  thread instructions {}  IPC {:.3}",
        r.cycles,
        r.warp_instructions,
        r.thread_instructions,
        r.ipc
    );
    if !r.kernel_registers.is_empty() {
        let per: Vec<String> = r
            .kernel_registers
            .iter()
            .map(|(k, g)| format!("{k} {} ({})", g.registers, g.source.name()))
            .collect();
        outln!("registers per thread: {}", per.join(", "));
    }
    let c = &a.core;
    outln!(
        "activity: bank reads {}  bank writes {}  bank conflict cycles {}  crossbar transfers {}  collector writes {} / reads {}",
        c.bank_reads.iter().sum::<u64>(),
        c.bank_writes.iter().sum::<u64>(),
        c.bank_conflict_cycles,
        c.crossbar_transfers,
        c.collector_writes,
        c.collector_reads
    );
    let s = &c.stalls;
    outln!(
        "issue slots: issued {}  idle {}  no-instruction {}  scoreboard {}  memory {}  collector-full {}  barrier {}",
        s.issued, s.idle, s.no_instruction, s.scoreboard, s.memory, s.collector_full, s.barrier
    );
    let m = &a.memory;
    outln!(
        "memory: global {}  shared {}  L1D sector reads {} (hits {})  L2 sector reads {} (hits {})  DRAM sectors {}",
        m.global_instructions,
        m.shared_instructions,
        m.l1d_sector_reads,
        m.l1d_sector_read_hits,
        m.l2_sector_reads,
        m.l2_sector_read_hits,
        m.dram_sector_reads + m.dram_sector_writes
    );
    outln!("node {}: {}", r.node, r.energy.node_source);
    if let Some(sc) = &r.energy.scope {
        print_scoped(r, sc)?;
        print_power_mode(r)?;
        print_idle_sm_gating(r)?;
        return print_launch_latency(r);
    }
    outln!(
        "{:<20} {:>9} {:>14} {:>14} {:>14} {:>12}",
        "component",
        "instances",
        "dynamic [nJ]",
        "static [nJ]",
        "total [nJ]",
        "area [mm2]"
    );
    for comp in &r.energy.components {
        outln!(
            "{:<20} {:>9} {:>14.3} {:>14.3} {:>14.3} {:>12.4}",
            comp.name,
            comp.instances,
            comp.dynamic.nj(),
            comp.static_energy.nj(),
            comp.total.nj(),
            comp.area.mm2()
        );
    }
    outln!(
        "{:<20} {:>9} {:>14.3} {:>14.3} {:>14.3} {:>12.4}",
        "total",
        "",
        r.energy.dynamic.nj(),
        r.energy.static_energy.nj(),
        r.energy.total.nj(),
        r.area.total.mm2()
    );
    outln!(
        "time {:.3} us  average RF power {:.3} W  overhead vs baseline: energy {:+.2} %  area {:+.2} %",
        r.energy.time.s() * 1e6,
        r.energy.average_power.w(),
        r.energy.overhead_vs_baseline.energy * 100.0,
        r.area.overhead_vs_baseline * 100.0
    );
    print_power_mode(r)?;
    print_idle_sm_gating(r)?;
    print_launch_latency(r)
}

/// The idle-SM gating line (nothing when `power.idle_sm_gating` is off).
fn print_idle_sm_gating(r: &RunReport) -> anyhow::Result<()> {
    if let Some(g) = &r.energy.idle_sm_gating {
        outln!(
            "idle-SM gating: per-SM static energy charged for {:.1} % of the SM-cycles (a CTA resident); saved {:.3} nJ of static energy ({:.3} nJ more over the launch latency)",
            g.sm_busy_frac * 100.0,
            g.static_saved.nj(),
            g.launch_latency_static_saved.nj()
        );
    }
    Ok(())
}

/// The power-mode line (nothing when always on).
fn print_power_mode(r: &RunReport) -> anyhow::Result<()> {
    if let Some(pm) = &r.power_management {
        let states: Vec<String> = pm
            .states
            .iter()
            .map(|s| format!("{} {} ({:.3} nJ)", s.state, s.cycles, s.energy.nj()))
            .collect();
        let wakes: Vec<String> = pm
            .wakeups
            .iter()
            .map(|w| format!("{} {} ({:.3} nJ)", w.kind, w.count, w.energy.nj()))
            .collect();
        outln!(
            "power mode {}: register-row cells {:.3} nJ static (always on: {:.3} nJ); states {}; wake-ups {}; headers {:.4} mm2",
            pm.mode,
            pm.cells.nj(),
            pm.cells_always_on.nj(),
            states.join(", "),
            wakes.join(", "),
            pm.area.mm2()
        );
    }
    Ok(())
}

/// The launch-latency line (nothing when the preset has none).
fn print_launch_latency(r: &RunReport) -> anyhow::Result<()> {
    if r.launch_latency.cycles > 0 {
        outln!(
            "energy over the kernels' {} cycles; the launch latency's {} cycles leak {:.3} nJ more (not in the totals)",
            r.cycles - r.launch_latency.cycles,
            r.launch_latency.cycles,
            r.launch_latency.static_energy.nj()
        );
    }
    Ok(())
}

/// The energy/area breakdown of a report at scope `sm` or `gpu`: every component with its
/// level, the sum of each level, and the total of the scope.
fn print_scoped(r: &RunReport, sc: &ScopeSummary) -> anyhow::Result<()> {
    let names: Vec<&str> = sc.levels_in_total.iter().map(|l| l.name()).collect();
    outln!(
        "scope {}: the totals include the levels {} (components marked * are listed but not in the totals)",
        sc.scope,
        names.join(" + ")
    );
    outln!(
        "{:<20} {:<5} {:>9} {:>14} {:>14} {:>14} {:>12}",
        "component",
        "level",
        "instances",
        "dynamic [nJ]",
        "static [nJ]",
        "total [nJ]",
        "area [mm2]"
    );
    for comp in &r.energy.components {
        let level = sc
            .component_levels
            .get(&comp.name)
            .copied()
            .unwrap_or(Scope::Rf);
        let name = if level <= sc.scope {
            comp.name.clone()
        } else {
            format!("{}*", comp.name)
        };
        outln!(
            "{:<20} {:<5} {:>9} {:>14.3} {:>14.3} {:>14.3} {:>12.4}",
            name,
            level.name(),
            comp.instances,
            comp.dynamic.nj(),
            comp.static_energy.nj(),
            comp.total.nj(),
            comp.area.mm2()
        );
    }
    for (level, t) in [
        (Scope::Rf, &sc.rf),
        (Scope::Sm, &sc.sm),
        (Scope::Gpu, &sc.gpu),
    ] {
        outln!(
            "{:<20} {:<5} {:>9} {:>14.3} {:>14.3} {:>14.3} {:>12.4}",
            format!("level {}", level.name()),
            if level <= sc.scope { "" } else { "*" },
            "",
            t.dynamic.nj(),
            t.static_energy.nj(),
            t.total.nj(),
            t.area.mm2()
        );
    }
    outln!(
        "{:<20} {:<5} {:>9} {:>14.3} {:>14.3} {:>14.3} {:>12.4}",
        format!("total (scope {})", sc.scope),
        "",
        "",
        r.energy.dynamic.nj(),
        r.energy.static_energy.nj(),
        r.energy.total.nj(),
        r.area.total.mm2()
    );
    outln!(
        "time {:.3} us  average power (scope {}) {:.3} W  overhead vs baseline: energy {:+.2} %  area {:+.2} %",
        r.energy.time.s() * 1e6,
        sc.scope,
        r.energy.average_power.w(),
        r.energy.overhead_vs_baseline.energy * 100.0,
        r.area.overhead_vs_baseline * 100.0
    );
    Ok(())
}

/// The provenance record of a run: its configuration and launch spec (the text read again
/// from the file, or the built-in workload's).
fn provenance(
    args: &Args,
    cfg: &ResolvedConfig,
    spec: &LaunchSpec,
) -> anyhow::Result<crate::provenance::Provenance> {
    let text = match (&args.spec, &args.workload) {
        (Some(p), _) => regwatt_inputs::read_text(p, regwatt_inputs::TEXT_LIMIT)?,
        (None, Some(w)) => regwatt_workloads::get(w)?
            .spec_toml(args.size.unwrap_or(super::DEFAULT_SIZE))?
            .to_string(),
        _ => String::new(),
    };
    let name = args.workload.clone().unwrap_or_else(|| spec.file.clone());
    Ok(crate::provenance::Provenance::new(
        vec![("resolved_config.toml".to_string(), cfg)],
        [(name, crate::provenance::SpecEntry::new(spec, &text))].into(),
    ))
}

/// Runs `regwatt run`.
pub fn run(args: Args) -> anyhow::Result<()> {
    run_inner(args).map_err(super::explain_limits)
}

fn run_inner(args: Args) -> anyhow::Result<()> {
    // the destinations are checked before anything is simulated
    let (out_dir, dump_dir) =
        super::out_and_dump(args.out.as_deref(), args.dump.as_deref(), args.force)?;
    let design: DesignSpec = args.design.parse()?;
    let cfg = config(
        design,
        &args.gpu,
        args.node.as_deref(),
        args.scope.as_deref(),
        args.power_mode.as_deref(),
        &args.overrides.config,
        &args.overrides.sets,
    )?;
    let (spec, sized) =
        super::spec_or_workload(args.spec.as_deref(), args.workload.as_deref(), args.size)?;
    super::unset_constants(&spec, args.strict)?;
    let workload = sized.map(|(w, _)| w);
    let size = sized.map(|(_, s)| s);
    // the memory the run needs, checked before anything large is allocated (a
    // design other than the baseline keeps its buffers while the baseline runs after it)
    let copies = if design == DesignSpec::Baseline && args.overrides.baseline_config.is_none() {
        1
    } else {
        2
    };
    let mut need = regwatt_sim::footprint::timed(&cfg.gpu, &spec, copies);
    if let Some(w) = args.series_window {
        // per SM, per window up to the cycle limit: the design's and the core's counters
        let windows = args.limits.max_cycles(size).div_ceil(w);
        need = need.with(
            format!("register series of {windows} windows"),
            u64::from(cfg.gpu.sms)
                .saturating_mul(windows)
                .saturating_mul(128),
        );
    }
    need.check(&args.limits.budget()?)?;
    let mut opts = args.limits.options(size);
    opts.series_window = args.series_window.unwrap_or(0);
    let progress = super::LaunchProgress::new(args.limits.max_warp_instructions(size));
    let update = |i: usize, k: &str, n: u64| progress.update(i, k, n);
    let watch = args.limits.watch(size, &update);
    // the reference of the overheads: the baseline on the same configuration (its own
    // simulation: the designs time differently), or resolved with --baseline-config
    let reference = match &args.overrides.baseline_config {
        Some(f) => Some(config(
            DesignSpec::Baseline,
            &args.gpu,
            Some(&cfg.power.node.name()),
            Some(cfg.scope().name()),
            Some(cfg.power.mode.name()),
            std::slice::from_ref(f),
            &[],
        )?),
        None if design == DesignSpec::Baseline => None,
        None => {
            let mut b = cfg.clone();
            b.design = None;
            Some(b)
        }
    };
    // the reference simulation runs on its own thread beside the design's (the two are
    // independent; the progress display follows the design's)
    let max_warp_instructions = watch.max_warp_instructions;
    let (sim, sim_time, reference_sim) = std::thread::scope(|s| {
        let reference_thread = reference.as_ref().map(|bcfg| {
            let (spec, opts) = (&spec, &opts);
            s.spawn(move || {
                let started = std::time::Instant::now();
                let quiet = |_: usize, _: &str, _: u64| {};
                let w = Watch {
                    max_warp_instructions,
                    progress: &quiet,
                };
                let r = simulate_spec_watched(spec, DesignSpec::Baseline, bcfg, opts, w);
                (r, started.elapsed())
            })
        });
        let started = std::time::Instant::now();
        let sim = simulate(&spec, workload, design, &cfg, &opts, watch);
        let sim_time = started.elapsed();
        let reference_sim = reference_thread.map(|h| {
            h.join()
                .map_err(|_| anyhow::anyhow!("the baseline reference simulation panicked"))
        });
        (sim, sim_time, reference_sim)
    });
    let sim = sim?;
    let inv = inventory(design, &cfg)?;
    let name = workload.map_or_else(|| spec.file.clone(), |w| w.name.to_string());
    let mut report = RunReport::new(&name, design, &cfg, &inv, &sim.activity, sim.launch_cycles)?;
    report.output_check = sim.check.as_ref().map(Result::is_ok);
    report.input_size = sized.map(|(_, s)| s.name().to_string());
    report.kernel_registers = sim.kernel_registers.clone();
    let mut timing_note = format!(
        "simulated {} warp instructions in {:.2} s ({:.2} M/s)",
        sim.activity.core.warp_instructions,
        sim_time.as_secs_f64(),
        sim.activity.core.warp_instructions as f64 / sim_time.as_secs_f64().max(1e-9) / 1e6
    );
    match (reference, reference_sim) {
        (Some(bcfg), Some(done)) => {
            let (bsim, reference_time) = done?;
            let bsim = bsim?;
            timing_note.push_str(&format!(
                "; baseline reference {:.2} s beside it",
                reference_time.as_secs_f64()
            ));
            let binv = inventory(DesignSpec::Baseline, &bcfg)?;
            let base = RunReport::new(
                &name,
                DesignSpec::Baseline,
                &bcfg,
                &binv,
                &bsim.activity,
                bsim.launch_cycles,
            )?;
            report.set_baseline(&base);
        }
        _ => {
            let base = report.clone();
            report.set_baseline(&base);
        }
    }
    progress.finish();
    eprintln!("{timing_note}");
    if let Some(dir) = &dump_dir {
        super::dump_buffers(dir, &sim.buffers)?;
        dir.write("resolved_config.toml", cfg.to_toml())?;
        provenance(&args, &cfg, &spec)?.write(dir)?;
    }
    if let Some(dir) = &out_dir {
        dir.write("report.json", serde_json::to_string_pretty(&report)? + "\n")?;
        dir.write(
            "energy.csv",
            crate::study::components_csv(std::iter::once(&report))?,
        )?;
        if args.series_window.is_some() {
            dir.write("register_series.csv", series_csv(&report)?)?;
        }
        if let Some(csv) = power_states_csv(&report)? {
            dir.write("power_states.csv", csv)?;
        }
        dir.write("resolved_config.toml", cfg.to_toml())?;
        provenance(&args, &cfg, &spec)?.write(dir)?;
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(&report)?;
    }
    report_check(&sim.check, &name, workload, !args.json)
}
