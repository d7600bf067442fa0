//! `regwatt sweep GRID.toml --out DIR`: a design-space sweep over the cross product of a
//! grid file's lists, and `regwatt merge` of sharded sweeps.
//!
//! ```toml
//! workloads = ["vectorAdd", "reduction"]
//! sizes = ["ci"]                                   # optional: ["default"]
//! gpus = ["rtx2060"]
//! designs = ["baseline", "renaming"]
//! nodes = ["12nm", "40nm"]
//! power_modes = ["always-on", "subarray-gating"]   # optional: ["always-on"]
//! [set]                                            # optional: any override key
//! "gpu.sms" = [10, 30]
//! ```
//!
//! A *point* is one (workload, input size, gpu, design, power mode, combination of `[set]`
//! values); each is simulated once and priced at every node (as `report`). Points are numbered
//! in the grid's order (workloads outermost, then sizes, gpus, designs, power modes, then
//! `[set]` keys in key order, last key fastest). `--shard K/N` runs the points whose group (all
//! designs of one workload, size, gpu, power mode and `[set]` combination) has index `g` with
//! `g mod N = K − 1`,
//! so that every design meets its baseline in the same shard.
//!
//! Before any simulation the grid is checked whole: every list entry is known, every design
//! runs on every GPU of the grid, every `[set]` key and value resolves on every GPU and design
//! of the grid, and the point count (computed without expanding the grid) is at most
//! `--max-points`. The memory the results take is estimated and checked against the memory
//! budget, and printed with the point count. Points run group by group, so each group's
//! point files are written as soon as its baseline and designs are done.
//!
//! Outputs:
//!
//! ```text
//! DIR/sweep.csv          one row per (point, node): point, the swept values, the report's summary
//!                        columns (`report`'s names and units), status, error
//! DIR/points/<point>-<node>.json   each row's full RunReport
//! DIR/sweep.meta.json    the sweep's identity and this shard (what `merge` checks)
//! ```
//!
//! **Identity.** `sweep.meta.json` holds the grid's text, the regwatt version and commit, the
//! sweep id (SHA-256 of those), the shard, and a SHA-256 digest of `sweep.csv` and every point
//! file. `merge` accepts only shards with one sweep id and shard count, each shard once, whose
//! files still have the digest they were written with; it expands the grid again and checks
//! every row: its point belongs to that shard, its workload, GPU, design, power mode and `[set]`
//! values are the point's, each point has one row per node, and every value is a finite number
//! in its range (energies, times, counts and area non-negative, total = dynamic + static).
//! Nothing is written unless every check passes.
//!
//! A failed point is a row with `status = error` and the message, never a gap. Overheads are
//! against the `baseline` row of the same point values when the grid has that design (else 0).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{bail, Context};
use regwatt_designs::config::{resolve, GpuPreset, Node, Overrides, PowerMode};
use regwatt_designs::run::{at_node, csv_number, inventory, SummaryRow};
use regwatt_designs::{DesignSpec, RunReport};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::study_workload::StudyWorkload;
use crate::outdir::OutDir;

/// `--max-points` default: a sweep of this size at about 0.2 s per `ci`-size point is half a
/// day on 2 cores; larger grids are meant to be sharded (`--shard`, `--emit-slurm`).
pub const DEFAULT_MAX_POINTS: u64 = 100_000;

/// The largest `--max-points` accepted: the grid's points are held in memory (a few hundred
/// bytes each, [`POINT_BYTES`]) before the shard is chosen.
pub const MAX_POINTS_CAP: u64 = 10_000_000;

/// Bound on a grid file: a grid is lists of names and values; 1 MiB holds tens of thousands of
/// `[set]` values.
const GRID_LIMIT: u64 = 1 << 20;

/// Bound on a shard's `sweep.csv` and on one point file read by `merge` (a row is under 1 KB;
/// a point's RunReport JSON about 17 KB).
const SHARD_FILE_LIMIT: u64 = regwatt_inputs::TEXT_LIMIT * 16;

/// Memory one RunReport takes while its group is pending: 4× the largest report JSON,
/// 21 KB pretty-printed (malekeh on rtx2060, tri-modal, scope `gpu`: the most components and
/// statistics). In memory a report holds the same numbers as 8-byte floats and the same
/// names once, so its JSON, whose key names and decimal digits dominate it, bounds it;
/// checked by `report_bound_covers_real_reports` below.
const REPORT_BYTES: u64 = 128 << 10;

/// Memory of one expanded point, before its `[set]` values (indices, enums, vectors).
const POINT_BYTES: u64 = 160;

/// Memory of one `sweep.csv` row held until the end, before its `[set]` values.
const ROW_BYTES: u64 = 512;

/// The version of `sweep.meta.json`.
const META_FORMAT: u32 = 2;

/// The grid format, in `--help`.
const GRID_HELP: &str = "Grid file (TOML). Every combination of its lists is a point:

  workloads = [\"vectorAdd\", \"my_kernel.toml\"]  # built-in names or launch spec files (relative to the grid)
  sizes = [\"ci\", \"default\"]                   # optional: ci | default | paper [default: [\"default\"]]; built-in workloads only
  gpus = [\"rtx2060\"]                            # gtx480 | rtx2060
  designs = [\"baseline\", \"renaming\"]          # every design of `regwatt run --help`
  nodes = [\"12nm\", \"40nm\"]                    # each point is priced at every node
  power_modes = [\"always-on\", \"drowsy\"]       # optional [default: [\"always-on\"]]
  [set]                                         # optional: override keys, each with a list of values
  \"gpu.sms\" = [10, 30]

Overheads are against the same point's baseline when the grid has that design.";

/// Arguments of `regwatt sweep`.
#[derive(clap::Args)]
pub struct Args {
    /// Grid file (TOML; the format: `regwatt sweep --help`).
    #[arg(long_help = GRID_HELP)]
    pub grid: PathBuf,
    /// Output directory: new, empty, or one regwatt wrote (its previous files are replaced).
    #[arg(long)]
    pub out: PathBuf,
    /// Write into a folder that holds files regwatt did not write.
    #[arg(long)]
    pub force: bool,
    /// Worker threads, at least 1 (default: available parallelism).
    #[arg(long, value_parser = super::jobs_parser())]
    pub jobs: Option<usize>,
    /// Run only the K-th of N slices of the points (K in 1..=N). Without it, a Slurm job
    /// array's SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (or _MIN/_MAX) selects it.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Print an `sbatch` script for an N-task job array running this sweep, and exit.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub emit_slurm: Option<u32>,
    /// Refuse a grid of more points than this (counted before anything runs).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_POINTS,
          value_parser = clap::value_parser!(u64).range(1..=MAX_POINTS_CAP))]
    pub max_points: u64,
    #[command(flatten)]
    pub limits: super::RunLimits,
}

/// Arguments of `regwatt merge`.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// Shard output directories (of one sweep, each shard once).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Merged output directory: new, empty, or one regwatt wrote; not one of the shards.
    #[arg(long)]
    pub out: PathBuf,
    /// Write into a folder that holds files regwatt did not write.
    #[arg(long)]
    pub force: bool,
}

/// A grid file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Grid {
    workloads: Vec<String>,
    #[serde(default)]
    sizes: Option<Vec<String>>,
    gpus: Vec<String>,
    designs: Vec<String>,
    nodes: Vec<String>,
    #[serde(default)]
    power_modes: Option<Vec<String>>,
    #[serde(default)]
    set: toml::Table,
}

/// A grid read and checked: its text, name and parsed lists.
struct CheckedGrid {
    file: String,
    text: String,
    /// The grid's `workloads`: built-in names or spec files (relative to the grid file).
    workloads: Vec<StudyWorkload>,
    sizes: Vec<regwatt_workloads::Size>,
    gpus: Vec<GpuPreset>,
    designs: Vec<DesignSpec>,
    modes: Vec<PowerMode>,
    nodes: Vec<Node>,
    /// `[set]` keys in file order, each with its values as text.
    sets: Vec<(String, Vec<String>)>,
}

/// One simulation point.
#[derive(Clone, Debug)]
struct Point {
    index: usize,
    /// Index of its (workload, size, gpu, power mode, `[set]` values) group: the designs of a
    /// group go to the same shard, so a design's overheads against the group's baseline are
    /// the same sharded or not.
    group: usize,
    workload: String,
    /// Index in the grid's `workloads`.
    wi: usize,
    /// The input size of a built-in workload (`None`: a spec file, with its own inputs).
    size: Option<regwatt_workloads::Size>,
    gpu: GpuPreset,
    design: DesignSpec,
    mode: PowerMode,
    /// (key, value as written) of the `[set]` combination.
    sets: Vec<(String, String)>,
}

/// What a sweep directory says about itself (`sweep.meta.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    /// Version of this file's layout.
    format: u32,
    /// SHA-256 of the regwatt build and the grid text ([`sweep_id`]).
    sweep_id: String,
    /// The regwatt version and commit that ran the sweep.
    regwatt: String,
    /// The grid file's text.
    grid: String,
    /// The text of each spec file the grid names, by workload name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    specs: BTreeMap<String, String>,
    points: usize,
    nodes: usize,
    shard: usize,
    shards: usize,
    header: String,
    /// SHA-256 over `sweep.csv` and the point files ([`content_digest`]).
    content_sha256: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The regwatt build: version and commit.
fn build_id() -> String {
    format!(
        "{} {}",
        env!("CARGO_PKG_VERSION"),
        option_env!("REGWATT_GIT_COMMIT").unwrap_or("(no commit)")
    )
}

/// A sweep's identity: SHA-256 of the regwatt build and the grid's text.
fn sweep_id(build: &str, grid: &str, specs: &BTreeMap<String, String>) -> String {
    let mut h = Sha256::new();
    h.update(b"regwatt sweep\0");
    h.update(build.as_bytes());
    h.update(b"\0");
    h.update(grid.as_bytes());
    // the spec files a grid names are part of what it runs (none: the id of a grid of
    // built-in workloads is what it always was)
    for (name, text) in specs {
        h.update(b"\0spec\0");
        h.update(name.as_bytes());
        h.update(b"\0");
        h.update(text.as_bytes());
    }
    hex(&h.finalize())
}

/// SHA-256 over `sweep.csv`'s digest and each point file's (name, digest), names sorted.
fn content_digest(csv: &[u8], points: &BTreeMap<String, [u8; 32]>) -> String {
    let mut h = Sha256::new();
    h.update(b"sweep.csv\0");
    h.update(Sha256::digest(csv));
    for (name, d) in points {
        h.update(b"points/");
        h.update(name.as_bytes());
        h.update(b"\0");
        h.update(d);
    }
    hex(&h.finalize())
}

fn parse_shard(s: &str) -> anyhow::Result<(usize, usize)> {
    let (k, n) = s
        .split_once('/')
        .with_context(|| format!("--shard `{}`: expected K/N", regwatt_inputs::excerpt(s)))?;
    let (k, n): (usize, usize) = (
        k.trim()
            .parse()
            .with_context(|| format!("--shard `{}`: K", regwatt_inputs::excerpt(s)))?,
        n.trim()
            .parse()
            .with_context(|| format!("--shard `{}`: N", regwatt_inputs::excerpt(s)))?,
    );
    if n == 0 || k == 0 || k > n || n > 100_000 {
        bail!("--shard `{k}/{n}`: need 1 <= K <= N <= 100000");
    }
    Ok((k, n))
}

/// The shard from `--shard`, else a Slurm job array's environment, else the whole grid.
fn shard(arg: Option<&str>) -> anyhow::Result<(usize, usize)> {
    shard_from(arg, |k| std::env::var(k).ok())
}

/// [`shard`] with the environment given (`env(NAME)`).
fn shard_from(
    arg: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> anyhow::Result<(usize, usize)> {
    if let Some(s) = arg {
        return parse_shard(s);
    }
    let var = |k: &str| -> anyhow::Result<Option<usize>> {
        env(k)
            .map(|v| {
                v.trim().parse::<usize>().with_context(|| {
                    format!("{k}={}: not a whole number", regwatt_inputs::excerpt(&v))
                })
            })
            .transpose()
    };
    let Some(id) = var("SLURM_ARRAY_TASK_ID")? else {
        return Ok((1, 1));
    };
    let min = var("SLURM_ARRAY_TASK_MIN")?;
    let count = match (min, var("SLURM_ARRAY_TASK_COUNT")?) {
        (_, Some(c)) => c,
        (Some(min), None) => {
            let max = var("SLURM_ARRAY_TASK_MAX")?.context(
                "SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MAX",
            )?;
            if max < min {
                bail!("SLURM_ARRAY_TASK_MIN={min} is above SLURM_ARRAY_TASK_MAX={max}");
            }
            max - min + 1
        }
        (None, None) => {
            bail!(
                "SLURM_ARRAY_TASK_ID is set without SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MIN"
            )
        }
    };
    let min = min.unwrap_or(0);
    if id < min || id - min >= count {
        bail!(
            "SLURM_ARRAY_TASK_ID={id} lies outside the array (first task {min}, {count} task(s))"
        );
    }
    parse_shard(&format!("{}/{}", id - min + 1, count))
}

fn toml_value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A TOML error of `text` (named `file`) as `FILE:LINE:COL: KEY: message`, quoting nothing
/// of the file.
fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> anyhow::Error {
    let message = regwatt_inputs::excerpt_n(e.message().trim(), 4 * regwatt_inputs::EXCERPT_CHARS);
    let Some(span) = e.span() else {
        return anyhow::anyhow!("{file}: {message}");
    };
    let (l, c) = regwatt_sim::launch::tomlpos::line_col(text, span.start);
    match regwatt_sim::launch::tomlpos::path_at(text, span.start) {
        Some(key) if !(span.start == 0 && span.end == 0) => {
            anyhow::anyhow!(
                "{file}:{l}:{c}: {}: {message}",
                regwatt_inputs::excerpt(&key)
            )
        }
        _ => anyhow::anyhow!("{file}:{l}:{c}: {message}"),
    }
}

/// `FILE:LINE` of the `[set]` key `key` in the grid text (`FILE` if it cannot be found).
fn set_key_place(file: &str, text: &str, key: &str) -> String {
    let line = toml_edit::ImDocument::parse(text).ok().and_then(|doc| {
        let set = doc.get("set")?;
        let (k, _) = set.as_table_like()?.get_key_value(key)?;
        let span = k.span()?;
        Some(regwatt_sim::launch::tomlpos::line_col(text, span.start).0)
    });
    match line {
        Some(l) => format!("{file}:{l}"),
        None => file.to_string(),
    }
}

/// Reads and checks a grid file: its lists, designs against GPUs, `[set]` keys and values,
/// and the point count against `max_points`, all before anything runs.
fn load_grid(path: &Path, max_points: u64) -> anyhow::Result<CheckedGrid> {
    let file = path.display().to_string();
    let text = regwatt_inputs::read_text(path, GRID_LIMIT)?;
    check_grid(&file, text, max_points, true)
}

/// [`load_grid`] of grid text named `file`.
/// With `read_specs` false the spec files the grid names are not read (merging shards needs
/// only their names).
fn check_grid(
    file: &str,
    text: String,
    max_points: u64,
    read_specs: bool,
) -> anyhow::Result<CheckedGrid> {
    let grid: Grid = toml::from_str(&text).map_err(|e| toml_error(file, &text, &e))?;
    fn each<T: std::str::FromStr>(
        file: &str,
        list: &str,
        items: &[String],
    ) -> anyhow::Result<Vec<T>>
    where
        T::Err: std::fmt::Display,
    {
        if items.is_empty() {
            bail!("{file}: `{list}` is empty");
        }
        items
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.parse::<T>().map_err(|e| {
                    anyhow::anyhow!("{file}: {list}[{i}] `{}`: {e}", regwatt_inputs::excerpt(s))
                })
            })
            .collect()
    }
    let gpus: Vec<GpuPreset> = each(file, "gpus", &grid.gpus)?;
    let designs: Vec<DesignSpec> = each(file, "designs", &grid.designs)?;
    let nodes: Vec<Node> = each(file, "nodes", &grid.nodes)?;
    let modes: Vec<PowerMode> = match &grid.power_modes {
        Some(m) => each(file, "power_modes", m)?,
        None => vec![PowerMode::AlwaysOn],
    };
    let sizes: Vec<regwatt_workloads::Size> = match &grid.sizes {
        Some(z) => each(file, "sizes", z)?,
        None => vec![super::DEFAULT_SIZE],
    };
    if grid.workloads.is_empty() {
        bail!("{file}: `workloads` is empty");
    }
    // spec files are named relative to the grid file
    let base = Path::new(file).parent().unwrap_or(Path::new(""));
    let workloads = if read_specs {
        StudyWorkload::parse_all(&grid.workloads, base)
    } else {
        StudyWorkload::names_of(&grid.workloads)
    }
    .map_err(|e| anyhow::anyhow!("{file}: workloads: {e:#}"))?;
    for (i, w) in workloads.iter().enumerate() {
        for &z in &sizes {
            w.check_size(z)
                .map_err(|e| anyhow::anyhow!("{file}: workloads[{i}]: {e:#}"))?;
        }
    }
    for &g in &gpus {
        for &d in &designs {
            if !d.supports(g) {
                bail!(
                    "{file}: design {d} does not run on {g}; put the GPUs it does not support in a grid of their own"
                );
            }
        }
    }
    let mut sets = Vec::new();
    for (key, vals) in &grid.set {
        let place = || set_key_place(file, &text, key);
        let shown = regwatt_inputs::excerpt(key);
        let vals = vals
            .as_array()
            .with_context(|| format!("{}: [set] `{shown}` must be a list of values", place()))?;
        if vals.is_empty() {
            bail!("{}: [set] `{shown}` is empty", place());
        }
        sets.push((
            key.clone(),
            vals.iter().map(toml_value_text).collect::<Vec<_>>(),
        ));
    }
    // the count, from the list lengths: nothing is expanded before it is known to be small
    let count = [
        grid.workloads.len(),
        sizes.len(),
        gpus.len(),
        designs.len(),
        modes.len(),
    ]
    .into_iter()
    .chain(sets.iter().map(|(_, v)| v.len()))
    .try_fold(1u64, |acc, n| acc.checked_mul(n as u64))
    .unwrap_or(u64::MAX);
    if count > max_points {
        let mut terms = vec![
            format!("{} workloads", grid.workloads.len()),
            format!("{} sizes", sizes.len()),
            format!("{} gpus", gpus.len()),
            format!("{} designs", designs.len()),
            format!("{} power modes", modes.len()),
        ];
        terms.extend(
            sets.iter()
                .map(|(k, v)| format!("{} values of `{}`", v.len(), regwatt_inputs::excerpt(k))),
        );
        bail!(
            "{file}: {} = {} points, more than --max-points {max_points}; narrow the grid, or shard it (--shard, --emit-slurm) and raise --max-points",
            terms.join(" x "),
            if count == u64::MAX { "more than 2^64".to_string() } else { count.to_string() }
        );
    }
    // every [set] key and value on every GPU and design of the grid, before anything runs
    for (key, vals) in &sets {
        for v in vals {
            for &g in &gpus {
                for &d in &designs {
                    let ov = Overrides {
                        sets: vec![format!("{key}={v}")],
                        power_mode: Some(modes[0]),
                        design: Some(d),
                        ..Overrides::default()
                    };
                    if let Err(e) = resolve(g, &ov) {
                        bail!(
                            "{}: [set] `{}` = {} (gpu {g}, design {d}): {e}",
                            set_key_place(file, &text, key),
                            regwatt_inputs::excerpt(key),
                            regwatt_inputs::excerpt(v)
                        );
                    }
                }
            }
        }
    }
    Ok(CheckedGrid {
        file: file.to_string(),
        text,
        workloads,
        sizes,
        gpus,
        designs,
        modes,
        nodes,
        sets,
    })
}

impl CheckedGrid {
    /// Every point of the grid, in order (the count was bounded by [`load_grid`]).
    fn points(&self) -> Vec<Point> {
        let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for (key, vals) in &self.sets {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    vals.iter().map(move |v| {
                        let mut c = c.clone();
                        c.push((key.clone(), v.clone()));
                        c
                    })
                })
                .collect();
        }
        let (sizes, gpus, modes) = (&self.sizes, &self.gpus, &self.modes);
        let mut out = Vec::new();
        for (wi, w) in self.workloads.iter().enumerate() {
            for (si, &size) in sizes.iter().enumerate() {
                // a spec file has its own inputs: one set of points, at no size
                if w.builtin().is_none() && si > 0 {
                    continue;
                }
                for (gi, &gpu) in gpus.iter().enumerate() {
                    for &design in &self.designs {
                        for (mi, &mode) in modes.iter().enumerate() {
                            for (ci, c) in combos.iter().enumerate() {
                                let group =
                                    ((wi * sizes.len() + si) * gpus.len() + gi) * modes.len() + mi;
                                out.push(Point {
                                    index: out.len(),
                                    group: group * combos.len() + ci,
                                    workload: w.name().to_string(),
                                    wi,
                                    size: w.size(size),
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
        }
        out
    }

    /// The provenance record of a sweep of this grid: the grid and its workloads' specs.
    fn provenance(&self) -> anyhow::Result<crate::provenance::Provenance> {
        let mut specs = std::collections::BTreeMap::new();
        for &z in &self.sizes {
            for w in &self.workloads {
                // a spec file not read (merging shards): its text is a note of the merge
                if w.builtin().is_none() && w.spec_text().is_none() {
                    continue;
                }
                let key = if self.sizes.len() > 1 && w.builtin().is_some() {
                    format!("{}@{z}", w.name())
                } else {
                    w.name().to_string()
                };
                specs.insert(key, w.spec_entry(z)?);
            }
        }
        Ok(crate::provenance::Provenance::new(Vec::new(), specs).with_note("grid", &self.text))
    }

    /// The text of each spec file the grid names, by workload name.
    fn spec_texts(&self) -> BTreeMap<String, String> {
        self.workloads
            .iter()
            .filter_map(|w| Some((w.name().to_string(), w.spec_text()?.to_string())))
            .collect()
    }

    fn set_keys(&self) -> Vec<String> {
        self.sets.iter().map(|(k, _)| k.clone()).collect()
    }
}

/// The columns of `sweep.csv`: the point, the swept `[set]` values, the report's summary
/// columns, status and error.
fn header(set_keys: &[String]) -> anyhow::Result<String> {
    let mut h = vec!["point".to_string()];
    h.extend(set_keys.iter().cloned());
    h.extend(SummaryRow::COLUMNS.iter().map(|c| c.to_string()));
    h.extend(["status".to_string(), "error".to_string()]);
    crate::csvout::line(&h)
}

/// The `size` cell of a point: the input size, or `-` for a spec file (as `SummaryRow`).
fn size_cell(size: Option<regwatt_workloads::Size>) -> &'static str {
    size.map_or("-", |z| z.name())
}

/// Simulates one point and prices it at every node.
fn run_point(
    p: &Point,
    workloads: &[StudyWorkload],
    nodes: &[Node],
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
    let w = workloads
        .get(p.wi)
        .with_context(|| format!("point {}: no workload {}", p.index, p.wi))?;
    let spec = w.load_spec(p.size.unwrap_or(super::DEFAULT_SIZE))?;
    regwatt_sim::footprint::timed(&cfg.gpu, &spec, 1).check(budget)?;
    let sim = super::run::simulate(
        &spec,
        w.builtin(),
        p.design,
        &cfg,
        &limits.options(p.size),
        limits.watch(p.size, &|_, _, _| {}),
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
        r.input_size = p.size.map(|z| z.name().to_string());
        out.push(r);
    }
    if let Some(Err(e)) = &sim.check {
        bail!("output mismatch: {e}");
    }
    Ok(out)
}

/// A shell word for `bash` that means exactly `s`: bare when it is only safe characters,
/// single-quoted (`'` written `'\''`) when it has no control characters, and ANSI-C quoted
/// (`$'...'`, bash) otherwise, so a newline stays on its line and cannot end a comment.
fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        return s.to_string();
    }
    if !s.chars().any(char::is_control) {
        return format!("'{}'", s.replace('\'', r"'\''"));
    }
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '\'' => out.push_str(r"\'"),
            c if c.is_control() && (c as u32) < 0x80 => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `path` as text for a script, absolute (the job runs wherever Slurm starts it); a path that
/// is not UTF-8 is refused rather than changed.
fn script_path(path: &Path, what: &str) -> anyhow::Result<String> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .context("the current directory")?
            .join(path)
    };
    abs.to_str().map(str::to_string).with_context(|| {
        format!(
            "{what} {}: not UTF-8; the script cannot name it",
            abs.display()
        )
    })
}

/// The `sbatch` script of an `n`-task array: each task runs its shard into
/// `OUT/shard-<task>`; `bash SCRIPT merge` (after the array) merges them into `OUT/merged`.
/// The grid and output paths appear once each, shell-quoted ([`shell_quote`]), in variable
/// assignments; every use is a double-quoted expansion.
fn slurm_script(grid: &str, out: &str, n: u32) -> String {
    let g = shell_quote(grid);
    let o = shell_quote(out);
    format!(
        "#!/bin/bash\n\
         #SBATCH --job-name=regwatt-sweep\n\
         #SBATCH --array=1-{n}\n\
         #SBATCH --cpus-per-task=2\n\
         #SBATCH --output=regwatt-sweep-%A_%a.out\n\
         # Submit: sbatch THIS_SCRIPT. Each array task runs its shard of the grid into\n\
         # OUT/shard-<task> (SLURM_ARRAY_TASK_ID with _MIN and _COUNT select it). After the array\n\
         # (e.g. sbatch --dependency=afterok:<jobid> --array=1 THIS_SCRIPT merge, or bash THIS_SCRIPT merge):\n\
         # the shards merged into OUT/merged. REGWATT names the binary (default: regwatt on PATH).\n\
         set -euo pipefail\n\
         grid={g}\n\
         out={o}\n\
         regwatt=\"${{REGWATT:-regwatt}}\"\n\
         if [ \"${{1:-}}\" = merge ]; then\n\
         \x20 exec \"$regwatt\" merge \"$out\"/shard-* --out \"$out/merged\"\n\
         fi\n\
         exec \"$regwatt\" sweep \"$grid\" --out \"$out/shard-$SLURM_ARRAY_TASK_ID\"\n"
    )
}

/// Memory the results of this shard take while it runs (beyond the simulations, which the
/// per-point footprint check bounds): the expanded grid, the rows kept for `sweep.csv`, and
/// the reports of the groups in flight (one per worker thread and one finishing).
fn results_memory(g: &CheckedGrid, all: u64, mine: u64, threads: u64) -> u64 {
    let set_bytes: u64 = g
        .sets
        .iter()
        .map(|(k, v)| (k.len() + v.iter().map(String::len).max().unwrap_or(0)) as u64 + 48)
        .sum();
    let nodes = g.nodes.len() as u64;
    let designs = g.designs.len() as u64;
    all.saturating_mul(POINT_BYTES + set_bytes)
        .saturating_add(
            mine.saturating_mul(nodes)
                .saturating_mul(ROW_BYTES + set_bytes),
        )
        .saturating_add(
            (threads + 1)
                .saturating_mul(designs)
                .saturating_mul(nodes)
                .saturating_mul(REPORT_BYTES),
        )
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
}

/// The rows of one point (one per node): its reports' summaries with overheads against the
/// group's baseline, or the error.
fn point_rows(p: &Point, nodes: &[Node], outcome: &Outcome) -> anyhow::Result<Vec<String>> {
    let mut lead = vec![p.index.to_string()];
    lead.extend(p.sets.iter().map(|(_, v)| v.clone()));
    let mut rows = Vec::new();
    match outcome {
        Ok(rs) => {
            for r in rs {
                let mut f = lead.clone();
                f.extend(r.summary_row().fields());
                f.extend(["ok".to_string(), String::new()]);
                rows.push(crate::csvout::line(&f)?);
            }
        }
        Err(msg) => {
            for node in nodes {
                let mut f = lead.clone();
                let id = [
                    p.workload.clone(),
                    size_cell(p.size).to_string(),
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
                f.extend(["error".to_string(), msg.replace(['\n', '\r'], " ")]);
                rows.push(crate::csvout::line(&f)?);
            }
        }
    }
    Ok(rows)
}

/// A point's reports at every node, or its error.
type Outcome = Result<Vec<RunReport>, String>;

/// A sweep's progress: finished points of unfinished groups, the rows of finished points,
/// the digests of the point files written.
struct Progress {
    pending: BTreeMap<usize, Vec<(usize, Outcome)>>,
    rows: BTreeMap<usize, Vec<String>>,
    digests: BTreeMap<String, [u8; 32]>,
    failed: usize,
    error: Option<anyhow::Error>,
}

/// Writes a finished group: overheads against its baseline, each point's files and rows.
fn finish_group(
    out: &OutDir,
    pts: &[&Point],
    mut done: Vec<(usize, Outcome)>,
    nodes: &[Node],
    st: &mut Progress,
) -> anyhow::Result<()> {
    done.sort_by_key(|(i, _)| pts[*i].index);
    let baseline: Option<Vec<RunReport>> = done.iter().find_map(|(i, o)| match o {
        Ok(rs) if pts[*i].design == DesignSpec::Baseline => Some(rs.clone()),
        _ => None,
    });
    for (i, mut o) in done {
        let p = pts[i];
        if let Ok(rs) = &mut o {
            for (j, r) in rs.iter_mut().enumerate() {
                if let Some(b) = baseline.as_ref().and_then(|b| b.get(j)) {
                    r.set_baseline(b);
                }
                let name = format!("{:06}-{}.json", p.index, r.node);
                let json = serde_json::to_string_pretty(&*r)? + "\n";
                st.digests
                    .insert(name.clone(), Sha256::digest(json.as_bytes()).into());
                out.write(Path::new("points").join(&name), json)?;
            }
        } else {
            st.failed += 1;
        }
        st.rows.insert(p.index, point_rows(p, nodes, &o)?);
    }
    Ok(())
}

/// Runs `regwatt sweep`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let g = load_grid(&args.grid, args.max_points)?;
    if let Some(n) = args.emit_slurm {
        if std::fs::metadata(&args.out).is_ok_and(|m| !m.is_dir()) {
            bail!(
                "--out {}: exists and is not a directory",
                args.out.display()
            );
        }
        let grid = script_path(&args.grid, "the grid")?;
        let out = script_path(&args.out, "--out")?;
        out!("{}", slurm_script(&grid, &out, n));
        return Ok(());
    }
    let (k, n) = shard(args.shard.as_deref())?;
    // the destination is checked before anything is simulated
    let out = OutDir::prepare(&args.out, "--out", args.force)?;
    let all = g.points();
    let mut mine: Vec<&Point> = all.iter().filter(|p| p.group % n == k - 1).collect();
    // group by group (points keep their numbers): a group's files are written when it is done
    mine.sort_by_key(|p| (p.group, p.index));
    let threads = super::worker_threads(args.jobs, mine.len());
    let mut budget = args.limits.budget()?;
    let need = results_memory(&g, all.len() as u64, mine.len() as u64, threads as u64);
    if need > budget.bytes {
        bail!(
            "{}: the sweep's results need about {} in memory ({} points, {} nodes), more than the memory budget of {} ({}); shard it (--shard K/N) or raise --memory-budget",
            g.file,
            mib(need),
            mine.len(),
            g.nodes.len(),
            mib(budget.bytes),
            budget.source
        );
    }
    eprintln!(
        "sweep: {} points in the grid, {} in shard {k}/{n}, each priced at {} node(s): {} rows; results about {} in memory; {threads} worker thread(s)",
        all.len(),
        mine.len(),
        g.nodes.len(),
        mine.len() * g.nodes.len(),
        mib(need)
    );
    // points run side by side: each gets its share of the memory budget
    budget.bytes = budget.bytes.saturating_sub(need);
    if threads > 1 {
        budget.bytes /= threads as u64;
        budget.source = format!("{}, shared by {threads} worker threads", budget.source);
    }
    let mut group_size: BTreeMap<usize, usize> = BTreeMap::new();
    for p in &mine {
        *group_size.entry(p.group).or_default() += 1;
    }
    let state = Mutex::new(Progress {
        pending: BTreeMap::new(),
        rows: BTreeMap::new(),
        digests: BTreeMap::new(),
        failed: 0,
        error: None,
    });
    super::parallel_each(
        &mine,
        Some(threads),
        |p| {
            format!(
                "{} {} {} {}",
                p.workload,
                size_cell(p.size),
                p.gpu,
                p.design
            )
        },
        |p| {
            run_point(p, &g.workloads, &g.nodes, &args.limits, &budget)
                .map_err(|e| format!("{:#}", super::explain_limits(e)))
        },
        |i, o| {
            let Ok(mut st) = state.lock() else { return };
            let group = mine[i].group;
            let list = st.pending.entry(group).or_default();
            list.push((i, o));
            if list.len() == group_size[&group] {
                let done = st.pending.remove(&group).unwrap_or_default();
                if let Err(e) = finish_group(&out, &mine, done, &g.nodes, &mut st) {
                    st.error.get_or_insert(e);
                }
            }
        },
    );
    let st = state
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a worker thread panicked"))?;
    if let Some(e) = st.error {
        return Err(e);
    }
    if st.rows.len() != mine.len() {
        bail!(
            "a worker thread panicked: {} of {} points finished",
            st.rows.len(),
            mine.len()
        );
    }
    let mut csv = header(&g.set_keys())?;
    csv.push('\n');
    for rows in st.rows.values() {
        for r in rows {
            csv.push_str(r);
            csv.push('\n');
        }
    }
    out.write("sweep.csv", &csv)?;
    g.provenance()?
        .with_note(
            "configurations",
            "each point's resolved configuration is the `config` of its points/<point>-<node>.json",
        )
        .write(&out)?;
    let build = build_id();
    let meta = Meta {
        format: META_FORMAT,
        sweep_id: sweep_id(&build, &g.text, &g.spec_texts()),
        regwatt: build,
        grid: g.text.clone(),
        specs: g.spec_texts(),
        points: all.len(),
        nodes: g.nodes.len(),
        shard: k,
        shards: n,
        header: header(&g.set_keys())?,
        content_sha256: content_digest(csv.as_bytes(), &st.digests),
    };
    out.write(
        "sweep.meta.json",
        serde_json::to_string_pretty(&meta)? + "\n",
    )?;
    out.finish()?;
    eprintln!(
        "{} of {} points (shard {k}/{n}), {} failed; sweep in {}",
        mine.len(),
        all.len(),
        st.failed,
        args.out.display()
    );
    if st.failed > 0 {
        bail!(
            "{} point(s) failed (rows with status `error` in sweep.csv)",
            st.failed
        );
    }
    Ok(())
}

/// One shard read and checked by `merge`.
struct Shard {
    dir: PathBuf,
    meta: Meta,
    /// Rows by (point, node column), as written.
    rows: Vec<(usize, String, String)>,
    /// Point files: name → bytes.
    files: BTreeMap<String, Vec<u8>>,
}

/// Summary columns that are not numbers (the run's names and the output check).
const TEXT_COLUMNS: &[&str] = &[
    "workload",
    "size",
    "gpu",
    "design",
    "node",
    "power_mode",
    "scope",
    "output_check",
];

/// Checks one `sweep.csv` record of point `p` (`fields` as read, `cols` the header).
fn check_row(
    p: &Point,
    cols: &[String],
    fields: &csv::StringRecord,
    keys: usize,
) -> Result<String, String> {
    let get = |name: &str| -> Result<&str, String> {
        let i = cols
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| format!("no column `{name}`"))?;
        Ok(fields.get(i).unwrap_or(""))
    };
    for (j, (k, v)) in p.sets.iter().enumerate() {
        let got = fields.get(1 + j).unwrap_or("");
        if got != v && got != crate::csvout::safe_cell(v) {
            return Err(format!(
                "[set] `{}` is `{}`, the grid's point {} has `{}`",
                regwatt_inputs::excerpt(k),
                regwatt_inputs::excerpt(got),
                p.index,
                regwatt_inputs::excerpt(v)
            ));
        }
    }
    let _ = keys;
    for (col, want) in [
        ("workload", p.workload.as_str()),
        ("size", size_cell(p.size)),
        ("gpu", p.gpu.name()),
        ("design", p.design.name()),
        ("power_mode", p.mode.name()),
    ] {
        let got = get(col)?;
        if got != want {
            return Err(format!(
                "{col} is `{}`, the grid's point {} has `{want}`",
                regwatt_inputs::excerpt(got),
                p.index
            ));
        }
    }
    let node = get("node")?.to_string();
    let status = get("status")?;
    match status {
        "error" => {
            if get("error")?.is_empty() {
                return Err("status `error` without a message".into());
            }
        }
        "ok" => {
            let num = |c: &str| -> Result<f64, String> {
                let t = get(c)?;
                let v: f64 = t
                    .parse()
                    .map_err(|_| format!("{c} `{}` is not a number", regwatt_inputs::excerpt(t)))?;
                if !v.is_finite() {
                    return Err(format!("{c} is {v}"));
                }
                Ok(v)
            };
            // every number finite; overheads (a share of the reference) at least -1, since a
            // design cannot save more than all; everything else (energies, times, counts,
            // area) non-negative
            for c in SummaryRow::COLUMNS
                .iter()
                .filter(|c| !TEXT_COLUMNS.contains(c))
            {
                let v = num(c)?;
                if c.ends_with("_overhead_frac") {
                    if v < -1.0 {
                        return Err(format!("{c} is {v}, below -1"));
                    }
                } else if v < 0.0 {
                    return Err(format!("{c} is negative ({v})"));
                }
            }
            if num("static_share_frac")? > 1.0 {
                return Err("static_share_frac is above 1".into());
            }
            let (d, s, t) = (num("dynamic_j")?, num("static_j")?, num("total_j")?);
            if (d + s - t).abs() > 1e-9 * t.abs().max(1e-30) {
                return Err(format!(
                    "total_j {t:e} is not dynamic_j + static_j ({:e})",
                    d + s
                ));
            }
            let check = get("output_check")?;
            if !matches!(check, "ok" | "MISMATCH" | "-") {
                return Err(format!(
                    "output_check `{}` is not ok, MISMATCH or -",
                    regwatt_inputs::excerpt(check)
                ));
            }
            if !get("error")?.is_empty() {
                return Err("status `ok` with an error message".into());
            }
        }
        other => {
            return Err(format!(
                "status `{}` is neither ok nor error",
                regwatt_inputs::excerpt(other)
            ))
        }
    }
    Ok(node)
}

/// Reads one shard directory and checks it on its own: its meta, its digest, its rows.
fn read_shard(dir: &Path) -> anyhow::Result<Shard> {
    let shown = dir.display();
    let meta_path = dir.join("sweep.meta.json");
    let text = regwatt_inputs::read_text(&meta_path, GRID_LIMIT * 4)
        .with_context(|| format!("{shown}: not a sweep directory"))?;
    let meta: Meta = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}:{}:{}: not a sweep.meta.json of this regwatt ({}); re-run the sweep with this version",
            meta_path.display(),
            e.line(),
            e.column(),
            regwatt_inputs::excerpt(&e.to_string())
        )
    })?;
    if meta.format != META_FORMAT {
        bail!(
            "{}: format {} (this regwatt reads {META_FORMAT})",
            meta_path.display(),
            meta.format
        );
    }
    if sweep_id(&meta.regwatt, &meta.grid, &meta.specs) != meta.sweep_id {
        bail!(
            "{}: the sweep id does not match its grid and regwatt build: the file was edited",
            meta_path.display()
        );
    }
    if meta.shard == 0 || meta.shard > meta.shards {
        bail!(
            "{}: shard {}/{} is not a shard",
            meta_path.display(),
            meta.shard,
            meta.shards
        );
    }
    let csv_path = dir.join("sweep.csv");
    let csv = regwatt_inputs::read(&csv_path, SHARD_FILE_LIMIT)?;
    // the point files: regular files only, never through a link
    let mut files = BTreeMap::new();
    let points = dir.join("points");
    match std::fs::symlink_metadata(&points) {
        Ok(m) if m.is_dir() => {
            let mut names = Vec::new();
            for e in std::fs::read_dir(&points)
                .with_context(|| format!("reading {}", points.display()))?
            {
                let e = e.with_context(|| format!("reading {}", points.display()))?;
                let name = e.file_name().to_string_lossy().to_string();
                if !e.file_type().is_ok_and(|t| t.is_file()) {
                    bail!(
                        "{}: `{}` is not a regular file",
                        points.display(),
                        regwatt_inputs::excerpt(&name)
                    );
                }
                names.push(name);
            }
            names.sort();
            for name in names {
                let bytes = regwatt_inputs::read(&points.join(&name), SHARD_FILE_LIMIT)?;
                files.insert(name, bytes);
            }
        }
        Ok(_) => bail!("{}: not a folder", points.display()),
        Err(_) => {}
    }
    let digests: BTreeMap<String, [u8; 32]> = files
        .iter()
        .map(|(n, b)| (n.clone(), Sha256::digest(b).into()))
        .collect();
    if content_digest(&csv, &digests) != meta.content_sha256 {
        bail!(
            "{shown}: sweep.csv or points/ differ from what the sweep wrote (content digest); re-run this shard"
        );
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(&csv[..]);
    let mut records = reader.records();
    let head = records
        .next()
        .with_context(|| format!("{}: empty", csv_path.display()))?
        .with_context(|| format!("{}: line 1", csv_path.display()))?;
    let head_line = crate::csvout::line(&head.iter().collect::<Vec<_>>())?;
    if head_line != meta.header {
        bail!(
            "{}: line 1: the header is not the sweep's",
            csv_path.display()
        );
    }
    let mut rows = Vec::new();
    for (i, r) in records.enumerate() {
        let line = i + 2;
        let r = r.with_context(|| format!("{}: line {line}", csv_path.display()))?;
        if r.len() != head.len() {
            bail!(
                "{}: line {line}: {} fields, the header has {}",
                csv_path.display(),
                r.len(),
                head.len()
            );
        }
        let point: usize = r
            .get(0)
            .and_then(|s| s.parse().ok())
            .filter(|&p| p < meta.points)
            .with_context(|| {
                format!(
                    "{}: line {line}: `point` is not a point of the grid (0..{})",
                    csv_path.display(),
                    meta.points
                )
            })?;
        let text = crate::csvout::line(&r.iter().collect::<Vec<_>>())?;
        rows.push((point, text, format!("{}:{line}", csv_path.display())));
    }
    Ok(Shard {
        dir: dir.to_path_buf(),
        meta,
        rows,
        files,
    })
}

/// True when `a` and `b` are the same folder or one lies inside the other.
fn overlaps(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a.starts_with(&b) || b.starts_with(&a),
        _ => a == b,
    }
}

/// Runs `regwatt merge`: the shards' rows in point order, exactly as the unsharded sweep
/// writes them, after every check of the module docs; nothing is written if one fails.
pub fn merge(args: MergeArgs) -> anyhow::Result<()> {
    for d in &args.dirs {
        if overlaps(d, &args.out) {
            bail!(
                "--out {}: is (or holds, or lies in) the shard {}; merge into a folder of its own",
                args.out.display(),
                d.display()
            );
        }
    }
    let out = OutDir::prepare(&args.out, "--out", args.force)?;
    let mut shards: Vec<Shard> = Vec::new();
    for d in &args.dirs {
        let s = read_shard(d)?;
        if let Some(first) = shards.first() {
            let (a, b) = (&first.meta, &s.meta);
            if a.sweep_id != b.sweep_id {
                bail!(
                    "{}: a shard of another sweep than {} (the grid or the regwatt build differ: sweep id {} against {})",
                    d.display(),
                    first.dir.display(),
                    &b.sweep_id[..12],
                    &a.sweep_id[..12]
                );
            }
            if (a.shards, a.points, a.nodes, &a.header) != (b.shards, b.points, b.nodes, &b.header)
            {
                bail!(
                    "{}: shard count or layout differs from {}",
                    d.display(),
                    first.dir.display()
                );
            }
        }
        if let Some(same) = shards.iter().find(|x| x.meta.shard == s.meta.shard) {
            bail!(
                "{}: shard {}/{} is given twice (also {})",
                d.display(),
                s.meta.shard,
                s.meta.shards,
                same.dir.display()
            );
        }
        shards.push(s);
    }
    let meta = shards
        .first()
        .map(|s| s.meta.clone())
        .context("no shard directories")?;
    // the grid again: which points each shard must hold, and what each row must say
    let g = check_grid("the shards' grid", meta.grid.clone(), MAX_POINTS_CAP, false)?;
    let all = g.points();
    if all.len() != meta.points || g.nodes.len() != meta.nodes {
        bail!(
            "the shards' grid expands to {} points, their meta says {}",
            all.len(),
            meta.points
        );
    }
    let cols: Vec<String> = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(meta.header.as_bytes())
        .records()
        .next()
        .and_then(Result::ok)
        .map(|r| r.iter().map(str::to_string).collect())
        .unwrap_or_default();
    let mut rows: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut seen: BTreeSet<(usize, String)> = BTreeSet::new();
    for s in &shards {
        for (point, text, place) in &s.rows {
            let p = &all[*point];
            if p.group % meta.shards != s.meta.shard - 1 {
                bail!(
                    "{place}: point {point} belongs to shard {}/{}, not {}/{}",
                    p.group % meta.shards + 1,
                    meta.shards,
                    s.meta.shard,
                    meta.shards
                );
            }
            let rec = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(text.as_bytes())
                .records()
                .next()
                .and_then(Result::ok)
                .unwrap_or_default();
            let node = check_row(p, &cols, &rec, g.sets.len())
                .map_err(|e| anyhow::anyhow!("{place}: {e}"))?;
            if !seen.insert((*point, node.clone())) {
                bail!(
                    "{place}: point {point} at {} appears twice",
                    regwatt_inputs::excerpt(&node)
                );
            }
            rows.entry(*point).or_default().push(text.clone());
        }
    }
    if let Some((p, r)) = rows.iter().find(|(_, r)| r.len() != meta.nodes) {
        bail!(
            "point {p} has {} rows, the sweep prices each point at {} nodes",
            r.len(),
            meta.nodes
        );
    }
    let missing: Vec<usize> = (0..meta.points).filter(|i| !rows.contains_key(i)).collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(20).map(|i| i.to_string()).collect();
        let have: Vec<String> = shards.iter().map(|s| s.meta.shard.to_string()).collect();
        bail!(
            "{} of {} points missing (points {}{}); shards given: {} of {}",
            missing.len(),
            meta.points,
            shown.join(", "),
            if missing.len() > 20 { ", ..." } else { "" },
            have.join(", "),
            meta.shards
        );
    }
    // every check passed: write
    let mut csv = meta.header.clone();
    csv.push('\n');
    for lines in rows.values() {
        for l in lines {
            csv.push_str(l);
            csv.push('\n');
        }
    }
    let mut digests = BTreeMap::new();
    for s in &shards {
        for (name, bytes) in &s.files {
            digests.insert(name.clone(), Sha256::digest(bytes).into());
            out.write(Path::new("points").join(name), bytes)?;
        }
    }
    out.write("sweep.csv", &csv)?;
    let shard_list: Vec<String> = args.dirs.iter().map(|d| d.display().to_string()).collect();
    let mut provenance = g.provenance()?;
    for (name, text) in &meta.specs {
        provenance = provenance.with_note(&format!("spec file {name}"), text);
    }
    provenance
        .with_note(
            "merged",
            &format!(
                "the shards {}; each point's resolved configuration is the `config` of its points/<point>-<node>.json",
                shard_list.join(", ")
            ),
        )
        .write(&out)?;
    let merged = Meta {
        shard: 1,
        shards: 1,
        content_sha256: content_digest(csv.as_bytes(), &digests),
        ..meta
    };
    out.write(
        "sweep.meta.json",
        serde_json::to_string_pretty(&merged)? + "\n",
    )?;
    out.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_mean_exactly_their_text() {
        assert_eq!(shell_quote("/a/b-c_d.toml"), "/a/b-c_d.toml");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(
            shell_quote("x'$(touch P)'.toml"),
            r"'x'\''$(touch P)'\''.toml'"
        );
        assert_eq!(shell_quote("`id`"), "'`id`'");
        assert_eq!(shell_quote("a\nb'c"), r"$'a\x0ab\'c'");
        assert_eq!(shell_quote(""), "''");
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn slurm_array_environment_selects_the_shard_or_is_refused() {
        assert_eq!(shard_from(None, env(&[])).expect("none"), (1, 1));
        let ok = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
        ];
        assert_eq!(shard_from(None, env(&ok)).expect("3 of 4"), (3, 4));
        let zero = [
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "2"),
        ];
        assert_eq!(shard_from(None, env(&zero)).expect("0-based"), (1, 2));
        let inverted = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_MAX", "2"),
        ];
        let e = shard_from(None, env(&inverted)).expect_err("min > max");
        assert!(e.to_string().contains("above SLURM_ARRAY_TASK_MAX"), "{e}");
        let outside = [
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert!(shard_from(None, env(&outside)).is_err());
        let junk = [("SLURM_ARRAY_TASK_ID", "x")];
        assert!(shard_from(None, env(&junk)).is_err());
        assert!(parse_shard("0/3").is_err() && parse_shard("4/3").is_err());
    }

    #[test]
    fn huge_grids_are_refused_from_their_lengths_alone() {
        let vals: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let list = vals.join(", ");
        let text = format!(
            "workloads=[\"vectorAdd\"]\ngpus=[\"gtx480\"]\ndesigns=[\"baseline\"]\nnodes=[\"40nm\"]\n[set]\n\"gpu.sms\"=[{list}]\n\"rf.banks\"=[{list}]\n\"gpu.clock_mhz\"=[{list}]\n\"gpu.sm.limits.max_ctas\"=[{list}]\n"
        );
        let t = std::time::Instant::now();
        let e = check_grid("g.toml", text, DEFAULT_MAX_POINTS, true)
            .err()
            .expect("refused");
        assert!(e.to_string().contains("100000000 points"), "{e}");
        // refused from the counts: no expansion, no resolve
        assert!(t.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn set_values_are_checked_before_the_run_with_their_line() {
        let text = "workloads=[\"vectorAdd\"]\ngpus=[\"gtx480\"]\ndesigns=[\"baseline\"]\nnodes=[\"40nm\"]\n[set]\n\"gpu.sms\"=[4, 0]\n".to_string();
        let e = check_grid("g.toml", text, 100, true)
            .err()
            .expect("gpu.sms = 0");
        let m = format!("{e:#}");
        assert!(
            m.contains("g.toml:6") && m.contains("gpu.sms") && m.contains("= 0"),
            "{m}"
        );
    }

    #[test]
    fn report_bound_covers_real_reports() {
        // the largest inventory and configuration: a design with its own structures, on the
        // larger preset, at a scope with every component
        let spec = regwatt_workloads::get("vectorAdd")
            .and_then(|w| w.load_spec(regwatt_workloads::Size::Ci))
            .expect("vectorAdd");
        for (gpu, design) in [
            (GpuPreset::Rtx2060, DesignSpec::Malekeh),
            (GpuPreset::Gtx480, DesignSpec::Cerf),
        ] {
            let ov = Overrides {
                design: Some(design),
                power_mode: Some(PowerMode::TriModal),
                scope: Some(regwatt_designs::config::Scope::Gpu),
                ..Overrides::default()
            };
            let cfg = resolve(gpu, &ov).expect("config");
            let sim = regwatt_designs::exec_model::simulate_spec(
                &spec,
                design,
                &cfg,
                &regwatt_sim::timing::RunOptions::default(),
            )
            .expect("simulate");
            let inv = inventory(design, &cfg).expect("inventory");
            let r = RunReport::new(
                "vectorAdd",
                design,
                &cfg,
                &inv,
                &sim.activity,
                sim.launch_cycles,
            )
            .expect("report");
            let json = serde_json::to_string_pretty(&r).expect("json").len() as u64;
            assert!(
                4 * json <= REPORT_BYTES,
                "{gpu} {design}: {json} bytes of JSON"
            );
        }
    }
}
