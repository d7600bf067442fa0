//! `regwatt reproduce SEED|DESIGN|all`: a seed's evaluation as the seed ran it, one row per
//! headline figure (docs/reproduce.md).
//!
//! The figures, their runs and their metrics live with each design
//! (`designs/src/<design>/seed_figures.{toml,rs}`, [`regwatt_designs::reproduce`]); this
//! command resolves the seeds, makes every simulation they need once (in parallel, `--jobs`;
//! the output does not depend on the number of threads), evaluates each run and writes the
//! tables.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::{bail, Context};
use regwatt_designs::config::{resolve, GpuPreset, Node, Overrides, PowerMode, Scope};
use regwatt_designs::exec_model::simulate_spec_watched;
use regwatt_designs::reproduce::{
    self as rp, Figure, LaunchFigures, Plan, Row, Run, RunResult, Seed,
};
use regwatt_designs::run::inventory;
use regwatt_designs::{DesignSpec, RunReport};
use regwatt_workloads::Size;

use crate::outdir::OutDir;

#[derive(clap::Args)]
pub struct Args {
    /// The seed: its number (000 to 004), its design's name (sharing, lreg, renaming,
    /// malekeh, cerf), or `all` (every seed, the runs they share made once).
    pub seed: Option<String>,
    /// Input size of the built-in workloads: ci | default | paper (default: default).
    #[arg(long, value_parser = super::parse_size)]
    pub size: Option<Size>,
    /// Output folder (new, empty, or one regwatt wrote): seed_table.csv, seed_table.md, each
    /// figure's data as figures/ID.csv and figures/ID.svg. With `all`, one folder per design.
    /// Without it, the markdown table is printed.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write into a folder that holds files regwatt did not write.
    #[arg(long)]
    pub force: bool,
    /// Worker threads, at least 1 (default: available parallelism).
    #[arg(long, value_parser = super::jobs_parser())]
    pub jobs: Option<usize>,
    /// Name the seeds, their designs and figures, and stop.
    #[arg(long)]
    pub list: bool,
    /// Only these figures (ids from --list; comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub figure: Vec<String>,
}

/// One seed with the figures chosen.
struct Chosen {
    seed: Seed,
    figures: Vec<Figure>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let size = args.size.unwrap_or(super::DEFAULT_SIZE);
    let size_name = size.name();
    if args.list {
        return list(args.seed.as_deref(), size_name);
    }
    let Some(name) = args.seed.as_deref() else {
        bail!("name a seed (000 to 004), a design (sharing, lreg, renaming, malekeh, cerf) or `all`; `regwatt reproduce --list` shows them");
    };
    let seeds = if name == "all" {
        rp::seeds()
    } else {
        vec![rp::find_seed(name)?]
    };
    // every figure asked for is one of these seeds', and one regwatt can run
    for id in &args.figure {
        let mut known = false;
        for seed in &seeds {
            if seed.figures()?.iter().any(|f| &f.id == id) {
                known = true;
            }
        }
        if !known {
            let mut valid = Vec::new();
            for seed in &seeds {
                valid.extend(seed.figures()?.into_iter().map(|f| f.id));
            }
            return Err(rp::ReproduceError::UnknownFigure {
                seed: name.to_string(),
                given: id.clone(),
                valid: valid.join(", "),
            }
            .into());
        }
    }
    let mut chosen = Vec::new();
    for seed in seeds {
        let all = seed.figures()?;
        let figures = if args.figure.is_empty() {
            all
        } else {
            pick(&seed, all, &args.figure, size_name)?
        };
        if !figures.is_empty() {
            chosen.push(Chosen { seed, figures });
        }
    }
    // the destination is checked before anything is simulated
    let out = args
        .out
        .as_deref()
        .map(|p| OutDir::prepare(p, "--out", args.force))
        .transpose()?;
    // the runs every figure needs, each simulation made once
    let mut runs: BTreeSet<Run> = BTreeSet::new();
    for c in &chosen {
        for f in &c.figures {
            if let Some(Plan::Runs { runs: r, .. }) = (c.seed.plan)(&f.id, size_name) {
                runs.extend(r);
            }
        }
    }
    let results = make_runs(&runs, size, args.jobs)?;
    let mut tables = Vec::new();
    for c in &chosen {
        let rows = rp::rows(&c.seed, &c.figures, size_name, &results)?;
        tables.push((c.seed.design, rows));
    }
    match &out {
        None => {
            for (design, rows) in &tables {
                if tables.len() > 1 {
                    println!("\n## {design}\n");
                }
                print!("{}", rp::markdown(rows));
            }
        }
        Some(dir) => {
            let single = tables.len() == 1;
            for (design, rows) in &tables {
                let prefix = if single {
                    PathBuf::new()
                } else {
                    PathBuf::from(design)
                };
                write_tables(dir, &prefix, rows)?;
            }
            dir.finish()?;
            eprintln!("reproduce: wrote {}", dir.path().display());
        }
    }
    Ok(())
}

/// The figures `ids` of `seed` (ids of other seeds are skipped when several seeds run); a
/// figure regwatt cannot run is refused.
fn pick(seed: &Seed, all: Vec<Figure>, ids: &[String], size: &str) -> anyhow::Result<Vec<Figure>> {
    let mut out = Vec::new();
    for f in all {
        if ids.contains(&f.id) {
            if let Some(Plan::NotRun(reason)) = (seed.plan)(&f.id, size) {
                return Err(rp::ReproduceError::NotRunnable {
                    seed: seed.number.into(),
                    id: f.id,
                    reason,
                }
                .into());
            }
            out.push(f);
        }
    }
    Ok(out)
}

fn list(seed: Option<&str>, size: &str) -> anyhow::Result<()> {
    let seeds = match seed {
        None | Some("all") => rp::seeds(),
        Some(s) => vec![rp::find_seed(s)?],
    };
    for s in seeds {
        println!("{} {}: {}", s.number, s.design, s.title);
        for f in s.figures()? {
            let runnable = match (s.plan)(&f.id, size) {
                Some(Plan::NotRun(_)) => " (not run: regwatt lacks it)",
                _ => "",
            };
            println!(
                "  {:<36} {:<9} {} (seed {} {}){runnable}",
                f.id,
                f.figure,
                f.metric,
                rp::number(f.seed_value),
                f.unit
            );
        }
    }
    Ok(())
}

/// Makes every run of `runs`: one simulation per [`Run::simulation`], evaluated for each of
/// its runs (power mode, scope, node).
fn make_runs(runs: &BTreeSet<Run>, size: Size, jobs: Option<usize>) -> anyhow::Result<rp::Results> {
    let mut sims: BTreeMap<Run, Vec<Run>> = BTreeMap::new();
    for r in runs {
        sims.entry(r.simulation()).or_default().push(r.clone());
    }
    let items: Vec<(Run, Vec<Run>)> = sims.into_iter().collect();
    eprintln!(
        "reproduce: {} runs from {} simulations at size {}",
        runs.len(),
        items.len(),
        size.name()
    );
    // simulations run side by side: each gets its share of the memory budget
    let threads = super::worker_threads(jobs, items.len());
    let mut budget = super::budget(None)?;
    if threads > 1 {
        budget.bytes /= threads as u64;
        budget.source = format!("{}, shared by {threads} worker threads", budget.source);
    }
    let outcomes = super::parallel_with_progress(
        &items,
        jobs,
        |(s, _)| s.flags(),
        |(s, evals)| simulate_and_evaluate(s, evals, size, &budget).map_err(|e| format!("{e:#}")),
    );
    let mut results = rp::Results::new();
    for ((s, _), o) in items.iter().zip(outcomes) {
        match o {
            Some(Ok(list)) => results.extend(list),
            Some(Err(e)) => bail!("regwatt run --size {} {}: {e}", size.name(), s.flags()),
            None => bail!("regwatt run {}: not finished", s.flags()),
        }
    }
    Ok(results)
}

/// The configuration of a run (`mode`: the power mode the simulation tracks).
fn config(
    r: &Run,
    mode: Option<PowerMode>,
) -> anyhow::Result<(DesignSpec, regwatt_designs::ResolvedConfig)> {
    let design: DesignSpec = r.design.parse()?;
    let preset: GpuPreset = r.gpu.parse()?;
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let ov = Overrides {
        sets: r.sets.clone(),
        node: opt(&r.node).map(|n| n.parse::<Node>()).transpose()?,
        scope: opt(&r.scope).map(|n| n.parse::<Scope>()).transpose()?,
        power_mode: mode,
        design: Some(design),
        ..Overrides::default()
    };
    Ok((design, resolve(preset, &ov)?))
}

fn simulate_and_evaluate(
    sim: &Run,
    evals: &[Run],
    size: Size,
    budget: &regwatt_sim::footprint::Budget,
) -> anyhow::Result<Vec<(Run, RunResult)>> {
    let w = regwatt_workloads::get(&sim.workload)?;
    let spec = w.load_spec(size)?;
    // a power mode other than always-on needs the power states counted: tri-modal counts
    // every mode's states, and the timing is the same in every mode
    let gated = evals
        .iter()
        .any(|e| !e.power_mode.is_empty() && e.power_mode != "always-on");
    let (design, cfg) = config(sim, gated.then_some(PowerMode::TriModal))?;
    let limits = super::RunLimits {
        max_cycles: None,
        max_warp_instructions: None,
        memory_budget: None,
    };
    regwatt_sim::footprint::timed(&cfg.gpu, &spec, 1).check(budget)?;
    let mut opts = limits.options(Some(size));
    opts.series_window = sim.series_window;
    let s = simulate_spec_watched(
        &spec,
        design,
        &cfg,
        &opts,
        limits.watch(Some(size), &|_, _, _| {}),
    )?;
    if let Some(Err(e)) = super::run::output_check(&spec, Some(w), &s.buffers) {
        bail!("output does not match the reference: {e}");
    }
    let launches: Vec<LaunchFigures> = s
        .launches
        .iter()
        .map(|l| LaunchFigures {
            kernel: l.kernel.clone(),
            kernel_cycles: l.activity.cycles - l.launch_cycles,
            physical_registers: l.activity.rf.physical_registers,
            live_register_cycles: l.activity.rf.live_register_cycles,
            allocated_register_cycles: l.activity.rf.allocated_register_cycles,
        })
        .collect();
    let mut out = Vec::new();
    for e in evals {
        let mode = match e.power_mode.as_str() {
            "" => None,
            m => Some(m.parse::<PowerMode>()?),
        };
        let (_, c) = config(e, mode)?;
        let inv = inventory(design, &c)?;
        let mut report =
            RunReport::new(&e.workload, design, &c, &inv, &s.activity, s.launch_cycles)
                .with_context(|| e.flags())?;
        report.output_check = Some(true);
        report.input_size = Some(size.name().to_string());
        out.push((
            e.clone(),
            RunResult {
                report: serde_json::to_value(&report)?,
                launches: launches.clone(),
            },
        ));
    }
    Ok(out)
}

/// `seed_table.csv`, `seed_table.md` and each figure's data under `prefix`.
fn write_tables(dir: &OutDir, prefix: &std::path::Path, rows: &[Row]) -> anyhow::Result<()> {
    dir.write(prefix.join("seed_table.csv"), table_csv(rows)?)?;
    dir.write(prefix.join("seed_table.md"), rp::markdown(rows))?;
    for r in rows {
        let Some(value) = r.regwatt_value else {
            continue;
        };
        let data: Vec<Vec<String>> = if r.per_workload.is_empty() {
            vec![vec![r.workloads.clone(), rp::number(value), r.unit.clone()]]
        } else {
            r.per_workload
                .iter()
                .map(|(w, v)| vec![w.clone(), rp::number(*v), r.unit.clone()])
                .collect()
        };
        let csv = crate::csvout::text(&["workload", "value", "unit"], data)?;
        dir.write(prefix.join("figures").join(format!("{}.csv", r.id)), csv)?;
        if r.figure.starts_with("Fig.") {
            dir.write(
                prefix.join("figures").join(format!("{}.svg", r.id)),
                crate::study::charts::seed_chart(r),
            )?;
        }
    }
    Ok(())
}

/// `seed_table.csv`'s text.
pub fn table_csv(rows: &[Row]) -> anyhow::Result<String> {
    crate::csvout::text(&rp::COLUMNS, rows.iter().map(Row::cells))
}
