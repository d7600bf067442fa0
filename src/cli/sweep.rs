//! `regwatt sweep GRID.toml --out DIR`: a design-space sweep over the cross product of a
//! grid file's lists, and `regwatt merge` of sharded sweeps (issue 34, part 1 and the shard
//! half of part 2).
//!
//! ```toml
//! workloads = ["vectorAdd", "reduction"]
//! gpus = ["rtx2060"]
//! designs = ["baseline", "renaming"]
//! nodes = ["12nm", "40nm"]
//! power_modes = ["always-on", "subarray-gating"]   # optional: ["always-on"]
//! [set]                                            # optional: any override key
//! "gpu.sms" = [10, 30]
//! ```
//!
//! A *point* is one (workload, gpu, design, power mode, combination of `[set]` values); each
//! is simulated once and priced at every node (as `report`). Points are numbered in the
//! grid's order (workloads outermost, then gpus, designs, power modes, then `[set]` keys in
//! file order, last key fastest). `--shard K/N` runs the points whose group (all designs of
//! one workload, gpu, power mode and `[set]` combination) has index `g` with `g mod N = K − 1`,
//! so that every design meets its baseline in the same shard.
//! Outputs:
//!
//! ```text
//! DIR/sweep.csv          one row per (point, node): point, the swept values, the report's summary
//!                        columns (`report`'s names and units), status, error
//! DIR/points/<point>-<node>.json   each row's full RunReport
//! DIR/sweep.meta.json    the grid's point count and this shard (what `merge` checks)
//! ```
//!
//! A failed point is a row with `status = error` and the message, never a gap. Overheads are
//! against the `baseline` row of the same point values when the grid has that design (else 0).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use regwatt_designs::config::{resolve, GpuPreset, Node, Overrides, PowerMode};
use regwatt_designs::run::{at_node, csv_number, inventory, SummaryRow};
use regwatt_designs::{DesignSpec, RunReport};
use serde::{Deserialize, Serialize};

/// Arguments of `regwatt sweep`.
#[derive(clap::Args)]
pub struct Args {
    /// Grid file (TOML).
    pub grid: PathBuf,
    /// Output directory.
    #[arg(long)]
    pub out: PathBuf,
    /// Worker threads (default: available parallelism).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Run only the K-th of N slices of the points (K in 1..=N). Without it, a Slurm job
    /// array's SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (or _MIN/_MAX) selects it.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Print an `sbatch` script for an N-task job array running this sweep, and exit.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub emit_slurm: Option<u32>,
    #[command(flatten)]
    pub limits: super::RunLimits,
}

/// Arguments of `regwatt merge`.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// Shard output directories.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Merged output directory.
    #[arg(long)]
    pub out: PathBuf,
}

/// A grid file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Grid {
    workloads: Vec<String>,
    gpus: Vec<String>,
    designs: Vec<String>,
    nodes: Vec<String>,
    #[serde(default)]
    power_modes: Option<Vec<String>>,
    #[serde(default)]
    set: toml::Table,
}

/// One simulation point.
#[derive(Clone, Debug)]
struct Point {
    index: usize,
    /// Index of its (workload, gpu, power mode, `[set]` values) group: the designs of a group
    /// go to the same shard, so a design's overheads against the group's baseline are the
    /// same sharded or not.
    group: usize,
    workload: String,
    gpu: GpuPreset,
    design: DesignSpec,
    mode: PowerMode,
    /// (key, value as written) of the `[set]` combination.
    sets: Vec<(String, String)>,
}

/// What a sweep directory says about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Meta {
    points: usize,
    nodes: usize,
    shard: usize,
    shards: usize,
    header: String,
}

fn parse_shard(s: &str) -> anyhow::Result<(usize, usize)> {
    let (k, n) = s
        .split_once('/')
        .with_context(|| format!("--shard `{s}`: expected K/N"))?;
    let (k, n): (usize, usize) = (
        k.trim()
            .parse()
            .with_context(|| format!("--shard `{s}`: K"))?,
        n.trim()
            .parse()
            .with_context(|| format!("--shard `{s}`: N"))?,
    );
    if n == 0 || k == 0 || k > n || n > 100_000 {
        bail!("--shard `{s}`: need 1 <= K <= N <= 100000");
    }
    Ok((k, n))
}

/// The shard from `--shard`, else a Slurm job array's environment, else the whole grid.
fn shard(arg: Option<&str>) -> anyhow::Result<(usize, usize)> {
    if let Some(s) = arg {
        return parse_shard(s);
    }
    let var = |k: &str| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
    };
    if let Some(id) = var("SLURM_ARRAY_TASK_ID") {
        let (min, count) = match (var("SLURM_ARRAY_TASK_MIN"), var("SLURM_ARRAY_TASK_COUNT")) {
            (Some(min), Some(c)) => (min, c),
            (Some(min), None) => {
                let max = var("SLURM_ARRAY_TASK_MAX").context("SLURM_ARRAY_TASK_MAX not set")?;
                (min, max + 1 - min)
            }
            (None, Some(c)) => (0, c),
            (None, None) => bail!("SLURM_ARRAY_TASK_ID without SLURM_ARRAY_TASK_COUNT or _MIN"),
        };
        return parse_shard(&format!("{}/{}", id + 1 - min, count));
    }
    Ok((1, 1))
}

fn toml_value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every point of the grid, in order.
fn points(g: &Grid) -> anyhow::Result<Vec<Point>> {
    let gpus: Vec<GpuPreset> = g.gpus.iter().map(|s| s.parse()).collect::<Result<_, _>>()?;
    let designs: Vec<DesignSpec> = g
        .designs
        .iter()
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let modes: Vec<PowerMode> = match &g.power_modes {
        Some(m) => m.iter().map(|s| s.parse()).collect::<Result<_, _>>()?,
        None => vec![PowerMode::AlwaysOn],
    };
    for w in &g.workloads {
        regwatt_workloads::get(w)?;
    }
    for (name, list) in [
        ("workloads", g.workloads.len()),
        ("gpus", gpus.len()),
        ("designs", designs.len()),
        ("nodes", g.nodes.len()),
        ("power_modes", modes.len()),
    ] {
        if list == 0 {
            bail!("grid: `{name}` is empty");
        }
    }
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for (key, vals) in &g.set {
        let vals = vals
            .as_array()
            .with_context(|| format!("grid: [set] `{key}` must be a list of values"))?;
        if vals.is_empty() {
            bail!("grid: [set] `{key}` is empty");
        }
        combos = combos
            .into_iter()
            .flat_map(|c| {
                vals.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push((key.clone(), toml_value_text(v)));
                    c
                })
            })
            .collect();
    }
    let mut out = Vec::new();
    for (wi, w) in g.workloads.iter().enumerate() {
        for (gi, &gpu) in gpus.iter().enumerate() {
            for &design in &designs {
                for (mi, &mode) in modes.iter().enumerate() {
                    for (ci, c) in combos.iter().enumerate() {
                        out.push(Point {
                            index: out.len(),
                            group: ((wi * gpus.len() + gi) * modes.len() + mi) * combos.len() + ci,
                            workload: w.clone(),
                            gpu,
                            design,
                            mode,
                            sets: c.clone(),
                        });
                    }
                }
            }
        }
    }
    if out.len() > 1_000_000 {
        bail!("grid: {} points (at most 1,000,000)", out.len());
    }
    Ok(out)
}

/// One CSV line (no line end), quoted where needed (the `csv` crate).
fn csv_line(fields: &[String]) -> anyhow::Result<String> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    w.write_record(fields)?;
    let mut s = String::from_utf8(w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?)?;
    s.pop();
    Ok(s)
}

/// The columns of `sweep.csv`: the point, the swept `[set]` values, the report's summary
/// columns, status and error.
fn header(set_keys: &[String]) -> anyhow::Result<String> {
    let mut h = vec!["point".to_string()];
    h.extend(set_keys.iter().cloned());
    h.extend(SummaryRow::COLUMNS.iter().map(|c| c.to_string()));
    h.extend(["status".to_string(), "error".to_string()]);
    csv_line(&h)
}

/// Simulates one point and prices it at every node.
fn run_point(
    p: &Point,
    nodes: &[Node],
    opts: &regwatt_sim::timing::RunOptions,
    limits: &super::RunLimits,
    budget: &regwatt_sim::footprint::Budget,
) -> anyhow::Result<Vec<RunReport>> {
    let ov = Overrides {
        sets: p.sets.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        power_mode: Some(p.mode),
        design: Some(p.design),
        ..Overrides::default()
    };
    let cfg = resolve(p.gpu, &ov)?;
    let w = regwatt_workloads::get(&p.workload)?;
    let spec = w.load_spec()?;
    regwatt_sim::footprint::timed(&cfg.gpu, &spec, 1).check(budget)?;
    let sim = super::run::simulate(
        &spec,
        Some(w),
        p.design,
        &cfg,
        opts,
        limits.watch(&|_, _, _| {}),
    )?;
    let mut out = Vec::new();
    for &n in nodes {
        let c = at_node(&cfg, n);
        let inv = inventory(p.design, &c)?;
        let mut r = RunReport::new(
            &p.workload,
            p.design,
            &c,
            &inv,
            &sim.activity,
            sim.launch_cycles,
        )?;
        r.output_check = sim.check.as_ref().map(Result::is_ok);
        out.push(r);
    }
    if let Some(Err(e)) = &sim.check {
        bail!("output mismatch: {e}");
    }
    Ok(out)
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// The `sbatch` script of an `n`-task array: each task runs its shard into
/// `OUT/shard-<task>`; the last line (run after the array) merges them into `OUT`.
fn slurm_script(grid: &Path, out: &Path, n: u32) -> String {
    let g = grid.display();
    let o = out.display();
    format!(
        "#!/bin/bash\n\
         #SBATCH --job-name=regwatt-sweep\n\
         #SBATCH --array=1-{n}\n\
         #SBATCH --cpus-per-task=2\n\
         #SBATCH --output={o}/slurm-%A_%a.out\n\
         # each task: its shard of the grid (SLURM_ARRAY_TASK_ID and _COUNT select it)\n\
         regwatt sweep '{g}' --out '{o}/shard-'\"$SLURM_ARRAY_TASK_ID\"\n\
         # after the array (e.g. sbatch --dependency=afterok:<jobid>):\n\
         # regwatt merge '{o}'/shard-* --out '{o}'\n"
    )
}

/// Runs `regwatt sweep`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(n) = args.emit_slurm {
        print!("{}", slurm_script(&args.grid, &args.out, n));
        return Ok(());
    }
    let text = std::fs::read_to_string(&args.grid)
        .with_context(|| format!("reading {}", args.grid.display()))?;
    let grid: Grid = toml::from_str(&text)
        .with_context(|| format!("{}: not a grid file", args.grid.display()))?;
    let nodes: Vec<Node> = grid
        .nodes
        .iter()
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let all = points(&grid)?;
    let (k, n) = shard(args.shard.as_deref())?;
    let mine: Vec<&Point> = all.iter().filter(|p| p.group % n == k - 1).collect();
    let set_keys: Vec<String> = grid.set.keys().cloned().collect();
    let opts = args.limits.options();
    // points run side by side: each gets its share of the memory budget (issue 35)
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, mine.len().max(1));
    let mut budget = args.limits.budget()?;
    if threads > 1 {
        budget.bytes /= threads as u64;
        budget.source = format!("{}, shared by {threads} worker threads", budget.source);
    }
    let results = super::parallel_with_progress(
        &mine,
        args.jobs,
        |p| format!("{} {} {}", p.workload, p.gpu, p.design),
        |p| {
            run_point(p, &nodes, &opts, &args.limits, &budget)
                .map_err(|e| format!("{:#}", super::explain_limits(e)))
        },
    );

    // overheads against the baseline of the same point values (this shard's)
    let key = |p: &Point| (p.workload.clone(), p.gpu, p.mode, p.sets.clone());
    let mut baselines: BTreeMap<_, Vec<RunReport>> = BTreeMap::new();
    for (p, o) in mine.iter().zip(&results) {
        if let (DesignSpec::Baseline, Some(Ok(rs))) = (p.design, o) {
            baselines.insert(key(p), rs.clone());
        }
    }
    let out = &args.out;
    let mut csv = header(&set_keys)?;
    csv.push('\n');
    let mut failed = 0;
    for (p, o) in mine.iter().zip(results) {
        let mut lead = vec![p.index.to_string()];
        lead.extend(p.sets.iter().map(|(_, v)| v.clone()));
        match o {
            Some(Ok(mut rs)) => {
                for (j, r) in rs.iter_mut().enumerate() {
                    if let Some(b) = baselines.get(&key(p)).and_then(|b| b.get(j)) {
                        r.set_baseline(b);
                    }
                    let mut f = lead.clone();
                    f.extend(r.summary_row().fields());
                    f.extend(["ok".to_string(), String::new()]);
                    csv.push_str(&csv_line(&f)?);
                    csv.push('\n');
                    write(
                        &out.join("points")
                            .join(format!("{:06}-{}.json", p.index, r.node)),
                        &(serde_json::to_string_pretty(&*r)? + "\n"),
                    )?;
                }
            }
            other => {
                failed += 1;
                let msg = match other {
                    Some(Err(e)) => e,
                    _ => "not run".to_string(),
                };
                for node in &nodes {
                    let mut f = lead.clone();
                    let id = [
                        p.workload.clone(),
                        p.gpu.name().to_string(),
                        p.design.name().to_string(),
                        node.name(),
                        csv_number(node.nm()),
                        p.mode.name().to_string(),
                        "rf".to_string(),
                    ];
                    // the summary's other columns stay empty
                    let blanks = SummaryRow::COLUMNS.len() - id.len();
                    f.extend(id);
                    f.extend(std::iter::repeat_n(String::new(), blanks));
                    f.extend(["error".to_string(), msg.replace('\n', " ")]);
                    csv.push_str(&csv_line(&f)?);
                    csv.push('\n');
                }
            }
        }
    }
    write(&out.join("sweep.csv"), &csv)?;
    let workloads: Vec<&regwatt_workloads::Workload> = grid
        .workloads
        .iter()
        .map(|w| regwatt_workloads::get(w))
        .collect::<Result<_, _>>()?;
    crate::provenance::Provenance::new(Vec::new(), crate::provenance::builtin_specs(&workloads)?)
        .with_note("grid", &text)
        .with_note(
            "configurations",
            "each point's resolved configuration is the `config` of its points/<point>-<node>.json",
        )
        .write(out)?;
    let meta = Meta {
        points: all.len(),
        nodes: nodes.len(),
        shard: k,
        shards: n,
        header: header(&set_keys)?,
    };
    write(
        &out.join("sweep.meta.json"),
        &(serde_json::to_string_pretty(&meta)? + "\n"),
    )?;
    eprintln!(
        "{} of {} points (shard {k}/{n}), {} failed; sweep in {}",
        mine.len(),
        all.len(),
        failed,
        out.display()
    );
    if failed > 0 {
        bail!("{failed} point(s) failed (rows with status `error` in sweep.csv)");
    }
    Ok(())
}

/// Runs `regwatt merge`: the shards' rows in point order, exactly as the unsharded sweep
/// writes them; an error naming the missing points if any shard is absent.
pub fn merge(args: MergeArgs) -> anyhow::Result<()> {
    let mut meta: Option<Meta> = None;
    let mut rows: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for d in &args.dirs {
        let m: Meta = serde_json::from_str(
            &std::fs::read_to_string(d.join("sweep.meta.json"))
                .with_context(|| format!("reading {}", d.join("sweep.meta.json").display()))?,
        )
        .with_context(|| format!("{}: not a sweep directory", d.display()))?;
        if let Some(m0) = &meta {
            if (m0.points, m0.nodes, m0.shards, &m0.header)
                != (m.points, m.nodes, m.shards, &m.header)
            {
                bail!("{}: a shard of another sweep", d.display());
            }
        }
        let csv = std::fs::read_to_string(d.join("sweep.csv"))
            .with_context(|| format!("reading {}", d.join("sweep.csv").display()))?;
        for line in csv.lines().skip(1) {
            let idx: usize = line
                .split(',')
                .next()
                .and_then(|s| s.parse().ok())
                .with_context(|| format!("{}: bad row `{line}`", d.display()))?;
            rows.entry(idx).or_default().push(line.to_string());
        }
        let points = d.join("points");
        if points.is_dir() {
            for e in std::fs::read_dir(&points)? {
                let e = e?;
                let dst = args.out.join("points").join(e.file_name());
                if let Some(p) = dst.parent() {
                    std::fs::create_dir_all(p)?;
                }
                std::fs::copy(e.path(), &dst)
                    .with_context(|| format!("copying {}", e.path().display()))?;
            }
        }
        meta = Some(m);
    }
    let meta = meta.context("no shard directories")?;
    let missing: Vec<usize> = (0..meta.points).filter(|i| !rows.contains_key(i)).collect();
    let mut csv = meta.header.clone();
    csv.push('\n');
    for lines in rows.values() {
        for l in lines {
            csv.push_str(l);
            csv.push('\n');
        }
    }
    write(&args.out.join("sweep.csv"), &csv)?;
    let shards: Vec<String> = args.dirs.iter().map(|d| d.display().to_string()).collect();
    crate::provenance::Provenance::new(Vec::new(), BTreeMap::new())
        .with_note(
            "merged",
            &format!(
                "the shards {}; each shard's provenance.json names its grid, configurations and launch specs",
                shards.join(", ")
            ),
        )
        .write(&args.out)?;
    let merged = Meta {
        shard: 1,
        shards: 1,
        ..meta.clone()
    };
    write(
        &args.out.join("sweep.meta.json"),
        &(serde_json::to_string_pretty(&merged)? + "\n"),
    )?;
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(20).map(|i| i.to_string()).collect();
        bail!(
            "{} of {} points missing (points {}{}); shard(s) of {} not merged",
            missing.len(),
            meta.points,
            shown.join(", "),
            if missing.len() > 20 { ", ..." } else { "" },
            meta.shards
        );
    }
    Ok(())
}
