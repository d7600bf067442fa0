//! The tables and studies `regwatt report` writes: `summary.csv`,
//! `components.csv`, `kernels.csv`, and the studies users come for, each a CSV and SVG
//! charts under `studies/`:
//!
//! * **per-design energy** (`energy.csv`, `energy_<gpu>_<node>[_<mode>].svg`): every
//!   component's dynamic and static energy per workload, normalised to the reference run's
//!   total; the geometric mean over the workloads of each design's normalised total, split
//!   by component in the mean shares of its workloads; beside it the dynamic energy alone
//!   against the reference's dynamic energy (`energy_dynamic_<gpu>_<node>[_<mode>].svg`);
//! * **energy versus area** (`energy_area.csv`, `energy_area[_<mode>].svg`): each design's
//!   geometric-mean energy and its area, both against the reference, a point per GPU and node;
//! * **node scaling** (`node_scaling.csv`, `node_scaling_<gpu>[_<mode>].svg`): the same
//!   activity priced at every node: energy (absolute, and against the reference at the same
//!   node), static (leakage) share and area;
//! * **area-overhead budget** (`area_budget.csv`, `area_budget_<gpu>[_<mode>].svg`): each
//!   design's area per component against the reference's, as a share of the reference's total,
//!   with the seed's published overhead beside it (the `area` figure of each design's
//!   `seed_figures.toml`, the file `regwatt reproduce` reads).
//!
//! CSV files are written with the `csv` crate; numbers are plain (`run::csv_number`), the unit
//! in the column name.

pub mod charts;
pub mod html;

use std::collections::BTreeMap;

use crate::outdir::OutDir;
use anyhow::Context;
use regwatt_designs::config::{Node, PowerMode, Scope};
use regwatt_designs::exec_model::LaunchRecord;
use regwatt_designs::run::{csv_number, ComponentRow, SummaryRow};
use regwatt_designs::{DesignSpec, RunReport};

/// Every pricing of one simulation: (workload, GPU, design, power mode) at each node.
#[derive(Clone, Debug)]
pub struct RunSet {
    pub gpu: String,
    pub design: DesignSpec,
    pub mode: PowerMode,
    pub workload: String,
    /// One report per node of [`Studies::all_nodes`], in that order.
    pub reports: Vec<RunReport>,
}

/// The columns that name a run in `components.csv` and `kernels.csv`: the summary's first
/// (workload, size, gpu, design, node, node_nm, power_mode, scope).
const RUN_COLUMNS: &[&str] = SummaryRow::COLUMNS.split_at(8).0;

fn run_fields(r: &RunReport) -> Vec<String> {
    let mut f = r.summary_row().fields();
    f.truncate(RUN_COLUMNS.len());
    f
}

fn csv_text(
    header: &[&str],
    rows: impl IntoIterator<Item = Vec<String>>,
) -> anyhow::Result<String> {
    crate::csvout::text(header, rows)
}

/// `summary.csv`: one row per run.
pub fn summary_csv(rows: &[SummaryRow]) -> anyhow::Result<String> {
    csv_text(&SummaryRow::COLUMNS, rows.iter().map(SummaryRow::fields))
}

/// `components.csv` (and `regwatt run --out`'s `energy.csv`): run × component × event /
/// power state / area ([`ComponentRow`]).
pub fn components_csv<'a>(reports: impl Iterator<Item = &'a RunReport>) -> anyhow::Result<String> {
    let header: Vec<&str> = RUN_COLUMNS
        .iter()
        .chain(ComponentRow::COLUMNS.iter())
        .copied()
        .collect();
    let rows = reports.flat_map(|r| {
        let id = run_fields(r);
        r.component_rows().into_iter().map(move |c| {
            let mut f = id.clone();
            f.extend(c.fields());
            f
        })
    });
    csv_text(&header, rows)
}

/// One row of `kernels.csv`: one kernel launch of a run, priced on its own.
#[derive(Clone, Debug)]
pub struct KernelRow {
    run: Vec<String>,
    launch: usize,
    kernel: String,
    grid: [u32; 3],
    block: [u32; 3],
    cycles: u64,
    launch_latency_cycles: u64,
    warp_instructions: u64,
    thread_instructions: u64,
    ipc: f64,
    dynamic_j: f64,
    static_j: f64,
    total_j: f64,
}

impl KernelRow {
    const COLUMNS: [&'static str; 17] = [
        "launch",
        "kernel",
        "grid_x",
        "grid_y",
        "grid_z",
        "block_x",
        "block_y",
        "block_z",
        "cycles",
        "kernel_cycles",
        "launch_latency_cycles",
        "warp_instructions",
        "thread_instructions",
        "ipc",
        "dynamic_j",
        "static_j",
        "total_j",
    ];

    /// Launch `index` of the run `run`, `priced` on its own activity.
    pub fn new(run: &RunReport, index: usize, l: &LaunchRecord, priced: &RunReport) -> KernelRow {
        KernelRow {
            run: run_fields(run),
            launch: index,
            kernel: l.kernel.clone(),
            grid: l.grid,
            block: l.block,
            cycles: priced.cycles,
            launch_latency_cycles: priced.launch_latency.cycles,
            warp_instructions: priced.warp_instructions,
            thread_instructions: priced.thread_instructions,
            ipc: priced.ipc,
            dynamic_j: priced.energy.dynamic.j(),
            static_j: priced.energy.static_energy.j(),
            total_j: priced.energy.total.j(),
        }
    }

    fn fields(&self) -> Vec<String> {
        let mut f = self.run.clone();
        f.extend([self.launch.to_string(), self.kernel.clone()]);
        f.extend(self.grid.iter().chain(&self.block).map(u32::to_string));
        f.extend([
            self.cycles.to_string(),
            (self.cycles - self.launch_latency_cycles.min(self.cycles)).to_string(),
            self.launch_latency_cycles.to_string(),
            self.warp_instructions.to_string(),
            self.thread_instructions.to_string(),
            csv_number(self.ipc),
            csv_number(self.dynamic_j),
            csv_number(self.static_j),
            csv_number(self.total_j),
        ]);
        f
    }
}

/// `kernels.csv`: one row per kernel launch of every run.
pub fn kernels_csv(rows: &[KernelRow]) -> anyhow::Result<String> {
    let header: Vec<&str> = RUN_COLUMNS
        .iter()
        .chain(KernelRow::COLUMNS.iter())
        .copied()
        .collect();
    csv_text(&header, rows.iter().map(KernelRow::fields))
}

/// `summary.md`: the headline table (markdown) and the per-run table `regwatt report`
/// prints.
pub fn summary_markdown(w: &Written, table: &str, reference: &str) -> String {
    let published = published().unwrap_or_default();
    let mut s = format!(
        "Each design against the reference ({reference}): geometric mean over the workloads of energy / reference energy (1.000 = the same), static share of the energy, area overhead, and the seed's published area overhead.\n\n\
         | gpu | node | power mode | design | workloads | energy × | dynamic × | static × | static share | area overhead | published |\n\
         |---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for l in &w.headline {
        s.push_str(&format!("| {} |\n", l.cells(&published).join(" | ")));
    }
    s.push_str("\nEvery run (energy over the kernels' own cycles, RF area per GPU):\n\n```\n");
    s.push_str(table);
    s.push_str("```\n");
    s
}

/// The headline table as aligned text, what `regwatt report` prints last: one line per GPU,
/// node, power mode and design, the same cells as `summary.md`'s headline table.
pub fn headline_text(w: &Written, reference: &str) -> String {
    let published = published().unwrap_or_default();
    let head: Vec<String> = [
        "gpu",
        "node",
        "power mode",
        "design",
        "workloads",
        "energy x",
        "dynamic x",
        "static x",
        "static share",
        "area overhead",
        "published",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let rows: Vec<Vec<String>> = std::iter::once(head)
        .chain(w.headline.iter().map(|l| l.cells(&published)))
        .collect();
    let cols = rows.first().map_or(0, Vec::len);
    let width: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |x| x.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = format!(
        "Each design against the reference ({reference}): geometric mean over the workloads of energy, dynamic and static energy / the reference's (1.000 = the same), static share, area overhead, and the paper's published area overhead.\n"
    );
    for r in &rows {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(c, x)| {
                let pad = width[c].saturating_sub(x.chars().count());
                // names left-aligned, numbers right-aligned
                if c < 4 {
                    format!("{x}{}", " ".repeat(pad))
                } else {
                    format!("{}{x}", " ".repeat(pad))
                }
            })
            .collect();
        s.push_str(cells.join("  ").trim_end());
        s.push('\n');
    }
    s
}

/// A seed's published area (storage) overhead: the figure `area` of the design's
/// `seed_figures.toml`, the file `regwatt reproduce` reads (one source for both).
#[derive(Clone, Debug)]
pub struct Published {
    /// The overhead the paper states, as a fraction (absent: the seed states storage only,
    /// the figure's unit is not `%`).
    pub overhead_frac: Option<f64>,
    /// What the figure counts.
    pub basis: String,
    /// Seed file and section it is copied from.
    pub source: String,
}

/// The published overheads, by design name (each seed's `area` figure).
pub fn published() -> anyhow::Result<BTreeMap<String, Published>> {
    let mut out = BTreeMap::new();
    for seed in regwatt_designs::reproduce::seeds() {
        seed.design
            .parse::<DesignSpec>()
            .with_context(|| format!("{}: design `{}`", seed.file, seed.design))?;
        let Some(f) = seed.figures()?.into_iter().find(|f| f.id == "area") else {
            continue;
        };
        // the percentage as a fraction, decimal digits kept (0.78 % is 0.0078, not 0.78 / 100)
        let overhead_frac = match f.unit.as_str() {
            "%" => Some(
                format!("{}e-2", f.seed_value)
                    .parse::<f64>()
                    .with_context(|| format!("{}: figure `area`", seed.file))?,
            ),
            _ => None,
        };
        let basis = match overhead_frac {
            Some(_) => f.metric.clone(),
            None => format!(
                "{}: {} {} (storage only, no fraction stated)",
                f.metric,
                regwatt_designs::reproduce::number(f.seed_value),
                f.unit
            ),
        };
        out.insert(
            seed.design.to_string(),
            Published {
                overhead_frac,
                basis,
                source: format!("seed {}, {}", seed.number, f.source),
            },
        );
    }
    Ok(out)
}

/// A file the report wrote, for `index.html`.
#[derive(Clone, Debug)]
pub struct WrittenFile {
    /// Path relative to the report directory.
    pub path: String,
    /// What it holds.
    pub what: String,
}

/// A chart the report wrote.
#[derive(Clone, Debug)]
pub struct Chart {
    /// Which study (`energy`, `node_scaling`, `area_budget`).
    pub study: &'static str,
    /// Path relative to the report directory.
    pub path: String,
    pub title: String,
    /// The SVG text (embedded in `index.html`).
    pub svg: String,
    /// The SVG's width in pixels (its `width` attribute).
    pub width: u32,
}

/// The `width` attribute of an SVG's root element (0 if it has none).
pub fn svg_width(svg: &str) -> u32 {
    svg.find("<svg")
        .and_then(|i| {
            let tag = &svg[i..i + svg[i..].find('>')?];
            let w = tag.split(" width=\"").nth(1)?;
            w[..w.find('"')?].parse().ok()
        })
        .unwrap_or(0)
}

/// What [`Studies::write`] wrote.
#[derive(Clone, Debug, Default)]
pub struct Written {
    pub csv: Vec<WrittenFile>,
    pub charts: Vec<Chart>,
    /// Headline numbers per (gpu, node, mode, design): geometric-mean normalised energy and
    /// area overhead (for the summary table of `index.html`).
    pub headline: Vec<Headline>,
}

/// One line of the headline table.
#[derive(Clone, Debug)]
pub struct Headline {
    pub gpu: String,
    pub node: Node,
    pub mode: PowerMode,
    pub design: DesignSpec,
    /// Workloads in the mean.
    pub workloads: usize,
    /// Geometric mean over workloads of total energy / reference total energy.
    pub energy_geomean: f64,
    /// Same for dynamic and static energy (each against the reference's own).
    pub dynamic_geomean: f64,
    pub static_geomean: f64,
    /// Area overhead against the reference.
    pub area_overhead_frac: f64,
    /// Static share of the design's energy, summed over workloads.
    pub static_share_frac: f64,
}

impl Headline {
    /// The line's cells as the headline tables show them: gpu, node, power mode, design,
    /// workloads, energy, dynamic and static energy (geometric means, ×), static share, area
    /// overhead, the published area overhead.
    pub fn cells(&self, published: &BTreeMap<String, Published>) -> Vec<String> {
        let pct = |f: f64| format!("{:+.2} %", 100.0 * f);
        vec![
            self.gpu.clone(),
            self.node.name(),
            self.mode.name().to_string(),
            self.design.name().to_string(),
            self.workloads.to_string(),
            format!("{:.3}", self.energy_geomean),
            format!("{:.3}", self.dynamic_geomean),
            format!("{:.3}", self.static_geomean),
            format!("{:.1} %", 100.0 * self.static_share_frac),
            pct(self.area_overhead_frac),
            published
                .get(self.design.name())
                .and_then(|p| p.overhead_frac)
                .map_or_else(|| "—".to_string(), pct),
        ]
    }
}

/// What the runs of one GPU at one node are priced with, read from the runs (their resolved
/// configurations and `energy.node_source`) and from the technology layer they name.
#[derive(Clone, Debug)]
pub struct Assumption {
    pub gpu: String,
    pub node: Node,
    /// What kind of technology data the node is (`energy.node_source` of its runs).
    pub node_source: String,
    /// Where the node's numbers come from: its technology file, or the files and weights it
    /// is interpolated from (`regwatt_tech::Technology::provenance`).
    pub tech_files: String,
    /// The register banks' SRAM (the baseline's bank, `SramSpec`): the cells' device flavour
    /// and the transistors it means at this node, their supply, the 6T cell's area, and the
    /// periphery's device flavour.
    pub cell_flavor: String,
    pub cell_transistors: String,
    pub cell_vdd_v: f64,
    pub cell_area_um2: f64,
    pub periphery_flavor: String,
    /// Junction temperatures of the runs (`power.temperature`), kelvin.
    pub temperatures_k: Vec<f64>,
    /// Power modes of the runs with their parameters.
    pub modes: Vec<String>,
    /// What the totals include (`beyond_rf.scope`).
    pub scope: String,
}

/// A power mode with the parameters of `power` it uses.
fn mode_description(p: &regwatt_designs::config::PowerPoint) -> String {
    let mut params = Vec::new();
    if matches!(p.mode, PowerMode::Drowsy | PowerMode::TriModal) {
        params.push(format!("drowsy_timeout {} cycles", p.drowsy_timeout));
    }
    if matches!(
        p.mode,
        PowerMode::SubarrayGating | PowerMode::RegisterGating | PowerMode::TriModal
    ) {
        params.push(format!("gating_perf_loss {}", p.gating_perf_loss));
    }
    if p.mode != PowerMode::AlwaysOn {
        params.push(format!(
            "wake-up {} cycle(s), {}",
            p.wakeup_cycles,
            if p.wakeup_exposed {
                "exposed"
            } else {
                "hidden"
            }
        ));
    }
    if params.is_empty() {
        p.mode.name().to_string()
    } else {
        format!("{} ({})", p.mode.name(), params.join(", "))
    }
}

/// The inputs of the studies.
pub struct Studies<'a> {
    /// Reported runs (every node of `all_nodes`).
    pub sets: &'a [RunSet],
    /// The reference runs overheads are taken against, one per (gpu, mode, workload).
    pub references: &'a [&'a RunSet],
    /// The report's nodes.
    pub report_nodes: &'a [Node],
    /// Every node the runs are priced at (`report_nodes` among them), largest first.
    pub all_nodes: &'a [Node],
    /// What overheads are against, in words.
    pub reference: &'a str,
}

/// Geometric mean of positive values (`None` if any is not positive or there are none).
pub fn geomean(xs: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (mut s, mut n) = (0.0, 0usize);
    for x in xs {
        if !(x > 0.0 && x.is_finite()) {
            return None;
        }
        s += x.ln();
        n += 1;
    }
    (n > 0).then(|| (s / n as f64).exp())
}

/// Groups of runs that share a chart: (gpu, mode) in first-seen order.
fn groups(sets: &[RunSet]) -> Vec<(String, PowerMode)> {
    let mut g: Vec<(String, PowerMode)> = Vec::new();
    for s in sets {
        let k = (s.gpu.clone(), s.mode);
        if !g.contains(&k) {
            g.push(k);
        }
    }
    g
}

fn designs_of(sets: &[RunSet]) -> Vec<DesignSpec> {
    let mut d: Vec<DesignSpec> = sets.iter().map(|s| s.design).collect();
    d.sort();
    d.dedup();
    d
}

/// File-name suffix of a power mode (none for always-on).
fn mode_suffix(mode: PowerMode) -> String {
    if mode == PowerMode::AlwaysOn {
        String::new()
    } else {
        format!("_{}", mode.name().replace('-', "_"))
    }
}

/// A chart title's mention of a power mode (none for always-on).
fn mode_text(mode: PowerMode) -> String {
    if mode == PowerMode::AlwaysOn {
        String::new()
    } else {
        format!(", {mode}")
    }
}

impl Written {
    /// Writes `dir/name` and lists it.
    fn csv(
        &mut self,
        out: &OutDir,
        name: &str,
        header: &[&str],
        rows: Vec<Vec<String>>,
        what: &str,
    ) -> anyhow::Result<()> {
        out.write(format!("studies/{name}"), csv_text(header, rows)?)?;
        self.csv.push(WrittenFile {
            path: format!("studies/{name}"),
            what: what.to_string(),
        });
        Ok(())
    }

    /// Lists a chart to be written as `studies/<stem>[_<mode>].svg`.
    fn chart(
        &mut self,
        study: &'static str,
        stem: String,
        mode: PowerMode,
        title: String,
        svg: String,
    ) {
        self.charts.push(Chart {
            study,
            path: format!("studies/{stem}{}.svg", mode_suffix(mode)),
            title,
            width: svg_width(&svg),
            svg,
        });
    }
}

impl Studies<'_> {
    fn node_index(&self, n: Node) -> Option<usize> {
        self.all_nodes.iter().position(|&x| x == n)
    }

    fn reference_of(&self, s: &RunSet) -> Option<&RunSet> {
        self.references
            .iter()
            .copied()
            .find(|r| r.gpu == s.gpu && r.mode == s.mode && r.workload == s.workload)
    }

    /// The assumptions of every (GPU, report node), in the order the GPUs are reported.
    pub fn assumptions(&self) -> anyhow::Result<Vec<Assumption>> {
        let mut gpus: Vec<&str> = Vec::new();
        for s in self.sets {
            if !gpus.contains(&s.gpu.as_str()) {
                gpus.push(&s.gpu);
            }
        }
        let mut out = Vec::new();
        for gpu in gpus {
            for &node in self.report_nodes {
                let Some(ni) = self.node_index(node) else {
                    continue;
                };
                let runs: Vec<&RunReport> = self
                    .sets
                    .iter()
                    .filter(|s| s.gpu == gpu)
                    .map(|s| &s.reports[ni])
                    .collect();
                let Some(first) = runs.first() else {
                    continue;
                };
                let mut sources: Vec<String> = Vec::new();
                let mut temperatures: Vec<f64> = Vec::new();
                let mut modes: Vec<String> = Vec::new();
                for r in &runs {
                    let src = r.energy.node_source.clone();
                    if !sources.contains(&src) {
                        sources.push(src);
                    }
                    let t = r.config.power.temperature.k();
                    if !temperatures.contains(&t) {
                        temperatures.push(t);
                    }
                    let m = mode_description(&r.config.power);
                    if !modes.contains(&m) {
                        modes.push(m);
                    }
                }
                let cfg = &first.config;
                let tech = regwatt_tech::Technology::for_node(node.nm(), cfg.power.temperature)
                    .with_context(|| format!("technology of {node}"))?;
                let bank = regwatt_designs::baseline::hardware::bank_spec(cfg);
                let device = tech
                    .cell_device(bank.cell_flavor)
                    .with_context(|| format!("SRAM cell device of {node}"))?;
                let transistors = if tech.sram_cell_device.is_some() {
                    "the node's own SRAM bitcell transistors ([sram_cell_device])".to_string()
                } else {
                    format!(
                        "the {} logic transistors (CACTI's g_tp.sram_cell)",
                        bank.cell_flavor
                    )
                };
                out.push(Assumption {
                    gpu: gpu.to_string(),
                    node,
                    node_source: sources.join("; "),
                    tech_files: tech.provenance.clone(),
                    cell_flavor: bank.cell_flavor.to_string(),
                    cell_transistors: transistors,
                    cell_vdd_v: device.vdd.v(),
                    cell_area_um2: tech.sram_cell.area.um2(),
                    periphery_flavor: bank.peri_flavor.to_string(),
                    temperatures_k: temperatures,
                    modes,
                    scope: cfg.scope().name().to_string(),
                });
            }
        }
        Ok(out)
    }

    /// The components in chart order: each design's, in design order, first seen first.
    fn components(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for d in designs_of(self.sets) {
            for s in self.sets.iter().filter(|s| s.design == d) {
                for c in s
                    .reports
                    .first()
                    .map_or(&[][..], |r| &r.energy.components[..])
                {
                    if !out.contains(&c.name) {
                        out.push(c.name.clone());
                    }
                }
            }
        }
        out
    }

    /// Writes the three studies under `out/studies/`.
    pub fn write(&self, out: &OutDir) -> anyhow::Result<Written> {
        let mut w = Written::default();
        let dir = out;
        let components = self.components();
        self.energy(dir, &components, &mut w)?;
        self.energy_area(dir, &mut w)?;
        self.node_scaling(dir, &mut w)?;
        self.area_budget(dir, &components, &mut w)?;
        for c in &w.charts {
            out.write(&c.path, &c.svg)?;
        }
        Ok(w)
    }

    /// Per-design energy: CSV rows and two charts per (gpu, node, mode): the total energy
    /// against the reference's total, and the dynamic energy against the reference's dynamic.
    fn energy(&self, dir: &OutDir, components: &[String], w: &mut Written) -> anyhow::Result<()> {
        let header = [
            "gpu",
            "node",
            "node_nm",
            "power_mode",
            "scope",
            "workload",
            "design",
            "component",
            "dynamic_j",
            "static_j",
            "total_j",
            "reference_total_j",
            "dynamic_norm",
            "static_norm",
            "total_norm",
            "reference_dynamic_j",
            "dynamic_norm_dynamic",
        ];
        let mut rows: Vec<Vec<String>> = Vec::new();
        let designs = designs_of(self.sets);
        for (gpu, mode) in groups(self.sets) {
            for &node in self.report_nodes {
                let Some(ni) = self.node_index(node) else {
                    continue;
                };
                let mut workloads: Vec<String> = Vec::new();
                for s in self.sets.iter().filter(|s| s.gpu == gpu && s.mode == mode) {
                    if !workloads.contains(&s.workload) {
                        workloads.push(s.workload.clone());
                    }
                }
                let mut panels = Vec::new();
                let mut dyn_panels = Vec::new();
                // designs without a run here get no empty panel; the caption says why
                let mut absent: Vec<String> = Vec::new();
                for &d in &designs {
                    if !self
                        .sets
                        .iter()
                        .any(|s| s.gpu == gpu && s.mode == mode && s.design == d)
                    {
                        let unsupported = gpu
                            .parse::<regwatt_designs::GpuPreset>()
                            .is_ok_and(|p| !d.supports(p));
                        absent.push(if unsupported {
                            format!("{d} (it does not run on {gpu})")
                        } else {
                            format!("{d} (no run)")
                        });
                        continue;
                    }
                    let mut bars = Vec::new();
                    let mut dyn_bars = Vec::new();
                    // per workload: (normalised total, per-component (dyn, static) shares)
                    let mut norms = Vec::new();
                    let mut dyn_norms = Vec::new();
                    let mut st_norms = Vec::new();
                    let mut shares: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
                    // per component: its share of the design's dynamic energy, summed
                    let mut dyn_shares: BTreeMap<&str, f64> = BTreeMap::new();
                    let mut static_sum = 0.0;
                    let mut total_sum = 0.0;
                    let mut area_overhead = 0.0;
                    for wl in &workloads {
                        let Some(s) = self.sets.iter().find(|s| {
                            s.gpu == gpu && s.mode == mode && s.design == d && &s.workload == wl
                        }) else {
                            bars.push(None);
                            dyn_bars.push(None);
                            continue;
                        };
                        let r = &s.reports[ni];
                        let Some(base) = self.reference_of(s).map(|b| &b.reports[ni]) else {
                            bars.push(None);
                            dyn_bars.push(None);
                            continue;
                        };
                        let bt = base.energy.total.j();
                        let bd = base.energy.dynamic.j();
                        let scope = r.config.scope();
                        let mut segs = Vec::new();
                        let mut dyn_segs = Vec::new();
                        // (component, dynamic, static): a row with its normalised parts
                        let mut row = |name: &str, dynamic: f64, stat: f64| {
                            let mut f = prefix(&gpu, node, mode, scope);
                            f.extend([wl.clone(), d.name().into(), name.to_string()]);
                            f.extend(
                                [dynamic, stat, dynamic + stat, bt, dynamic / bt, stat / bt]
                                    .map(csv_number),
                            );
                            f.push(csv_number((dynamic + stat) / bt));
                            f.extend([bd, dynamic / bd].map(csv_number));
                            rows.push(f);
                        };
                        for c in &r.energy.components {
                            if !in_scope(r, &c.name) {
                                continue;
                            }
                            let (dn, sn) = (c.dynamic.j() / bt, c.static_energy.j() / bt);
                            row(&c.name, c.dynamic.j(), c.static_energy.j());
                            segs.push((c.name.clone(), dn, sn));
                            dyn_segs.push((c.name.clone(), c.dynamic.j() / bd, 0.0));
                            let t = r.energy.total.j();
                            let key = components_key(components, &c.name);
                            let e = shares.entry(key).or_default();
                            e.0 += c.dynamic.j() / t;
                            e.1 += c.static_energy.j() / t;
                            *dyn_shares.entry(key).or_default() +=
                                c.dynamic.j() / r.energy.dynamic.j();
                        }
                        let total_norm = r.energy.total.j() / bt;
                        row("total", r.energy.dynamic.j(), r.energy.static_energy.j());
                        norms.push(total_norm);
                        dyn_norms.push(r.energy.dynamic.j() / bd);
                        st_norms.push(r.energy.static_energy.j() / base.energy.static_energy.j());
                        static_sum += r.energy.static_energy.j();
                        total_sum += r.energy.total.j();
                        area_overhead = r.area.overhead_vs_baseline;
                        bars.push(Some(segs));
                        dyn_bars.push(Some(dyn_segs));
                    }
                    let n = norms.len();
                    let g = geomean(norms.iter().copied());
                    let gd = geomean(dyn_norms.iter().copied());
                    if let Some(g) = g {
                        // the mean composition of the design's workloads, scaled to the mean
                        let mut segs = Vec::new();
                        let mut dyn_segs = Vec::new();
                        for c in components {
                            if let Some(&(dsh, ssh)) = shares.get(c.as_str()) {
                                let (dn, sn) = (g * dsh / n as f64, g * ssh / n as f64);
                                segs.push((c.clone(), dn, sn));
                                let ddn = gd.map(|gd| {
                                    gd * dyn_shares.get(c.as_str()).copied().unwrap_or(0.0)
                                        / n as f64
                                });
                                if let Some(ddn) = ddn {
                                    dyn_segs.push((c.clone(), ddn, 0.0));
                                }
                                let scope = self
                                    .sets
                                    .first()
                                    .map_or(Scope::Rf, |s| s.reports[ni].config.scope());
                                let mut f = prefix(&gpu, node, mode, scope);
                                f.extend(["geomean".into(), d.name().into(), c.clone()]);
                                f.extend([
                                    String::new(),
                                    String::new(),
                                    String::new(),
                                    String::new(),
                                ]);
                                f.extend([dn, sn, dn + sn].map(csv_number));
                                f.push(String::new());
                                f.push(ddn.map_or_else(String::new, csv_number));
                                rows.push(f);
                            }
                        }
                        bars.push(Some(segs));
                        dyn_bars.push(gd.map(|_| dyn_segs));
                        w.headline.push(Headline {
                            gpu: gpu.clone(),
                            node,
                            mode,
                            design: d,
                            workloads: n,
                            energy_geomean: g,
                            dynamic_geomean: gd.unwrap_or(f64::NAN),
                            static_geomean: geomean(st_norms).unwrap_or(f64::NAN),
                            area_overhead_frac: area_overhead,
                            static_share_frac: if total_sum > 0.0 {
                                static_sum / total_sum
                            } else {
                                0.0
                            },
                        });
                    } else {
                        bars.push(None);
                        dyn_bars.push(None);
                    }
                    panels.push(charts::EnergyPanel {
                        title: d.name().to_string(),
                        bars,
                    });
                    dyn_panels.push(charts::EnergyPanel {
                        title: d.name().to_string(),
                        bars: dyn_bars,
                    });
                }
                let mut labels = workloads.clone();
                labels.push("geomean".into());
                let mode_text = mode_text(mode);
                let not_shown = if absent.is_empty() {
                    String::new()
                } else {
                    format!("; not shown: {}", absent.join(", "))
                };
                let title = format!(
                    "Energy per design, {gpu} at {node}{mode_text}: components, dynamic (solid) and static (light), normalised to the reference's total{not_shown}"
                );
                let svg = charts::energy_chart(
                    &format!("Energy per design, {gpu} at {node}{mode_text}"),
                    charts::EnergyView::Total,
                    &labels,
                    &panels,
                    components,
                )?;
                w.chart("energy", format!("energy_{gpu}_{node}"), mode, title, svg);
                let title = format!(
                    "Dynamic energy per design, {gpu} at {node}{mode_text}: each component's dynamic energy, normalised to the reference's dynamic energy{not_shown}"
                );
                let svg = charts::energy_chart(
                    &format!("Dynamic energy per design, {gpu} at {node}{mode_text}"),
                    charts::EnergyView::Dynamic,
                    &labels,
                    &dyn_panels,
                    components,
                )?;
                w.chart(
                    "energy",
                    format!("energy_dynamic_{gpu}_{node}"),
                    mode,
                    title,
                    svg,
                );
            }
        }
        w.csv(dir, "energy.csv", &header, rows, "per-design energy: each component's dynamic and static energy per workload and its share of the reference's total (`_norm`) and of the reference's dynamic energy (`dynamic_norm_dynamic`); `geomean` rows: the geometric means of the normalised totals and of the normalised dynamic energies, split by the workloads' mean component shares")
    }

    /// Energy versus area: per (gpu, node, mode, design) the geometric mean of the energy
    /// against the reference's (the headline's) and the area against the reference's; a CSV
    /// and one chart per power mode, a panel per GPU.
    fn energy_area(&self, dir: &OutDir, w: &mut Written) -> anyhow::Result<()> {
        let header = [
            "gpu",
            "node",
            "node_nm",
            "power_mode",
            "design",
            "workloads",
            "energy_vs_reference",
            "area_vs_reference",
        ];
        let rows: Vec<Vec<String>> = w
            .headline
            .iter()
            .map(|l| {
                vec![
                    l.gpu.clone(),
                    l.node.name(),
                    csv_number(l.node.nm()),
                    l.mode.name().into(),
                    l.design.name().into(),
                    l.workloads.to_string(),
                    csv_number(l.energy_geomean),
                    csv_number(1.0 + l.area_overhead_frac),
                ]
            })
            .collect();
        let nodes: Vec<String> = self.report_nodes.iter().map(|n| n.name()).collect();
        let mut modes: Vec<PowerMode> = Vec::new();
        for (_, m) in groups(self.sets) {
            if !modes.contains(&m) {
                modes.push(m);
            }
        }
        for mode in modes {
            let panels: Vec<charts::ScatterPanel> = groups(self.sets)
                .into_iter()
                .filter(|(_, m)| *m == mode)
                .map(|(gpu, _)| charts::ScatterPanel {
                    title: gpu.clone(),
                    points: w
                        .headline
                        .iter()
                        .filter(|l| l.gpu == gpu && l.mode == mode)
                        .filter_map(|l| {
                            Some(charts::ScatterPoint {
                                design: l.design,
                                node: self.report_nodes.iter().position(|n| *n == l.node)?,
                                x: 1.0 + l.area_overhead_frac,
                                y: l.energy_geomean,
                            })
                        })
                        .collect(),
                })
                .filter(|p| !p.points.is_empty())
                .collect();
            if panels.is_empty() {
                continue;
            }
            let mode_text = mode_text(mode);
            let title = format!(
                "Energy versus area{mode_text}: each design at each node, both against the reference (the point 1, 1)"
            );
            let svg = charts::energy_area_chart(
                &title,
                "area / reference area",
                "energy / reference energy (geomean)",
                &nodes,
                &panels,
            )?;
            w.chart("energy_area", "energy_area".into(), mode, title, svg);
        }
        w.csv(dir, "energy_area.csv", &header, rows, "energy versus area: per GPU, node, power mode and design, the geometric mean over the workloads of energy / reference energy (`energy_vs_reference`, the headline's) and area / reference area (`area_vs_reference`)")
    }

    /// Node scaling: CSV rows per (run, node) and one chart per (gpu, mode).
    fn node_scaling(&self, dir: &OutDir, w: &mut Written) -> anyhow::Result<()> {
        let header = [
            "gpu",
            "power_mode",
            "scope",
            "design",
            "workload",
            "node",
            "node_nm",
            "dynamic_j",
            "static_j",
            "total_j",
            "static_share_frac",
            "area_mm2",
            "energy_overhead_frac",
            "area_overhead_frac",
        ];
        let mut rows = Vec::new();
        for s in self.sets {
            for r in &s.reports {
                let row = r.summary_row();
                rows.push(vec![
                    s.gpu.clone(),
                    s.mode.name().into(),
                    row.scope.clone(),
                    s.design.name().into(),
                    s.workload.clone(),
                    row.node.clone(),
                    csv_number(row.node_nm),
                    csv_number(row.dynamic_j),
                    csv_number(row.static_j),
                    csv_number(row.total_j),
                    csv_number(row.static_share_frac),
                    csv_number(row.area_mm2),
                    csv_number(row.energy_overhead_frac),
                    csv_number(row.area_overhead_frac),
                ]);
            }
        }
        w.csv(dir, "node_scaling.csv", &header, rows, "node scaling: every run's activity priced at every node (energy, static share, area, overheads)")?;
        let designs = designs_of(self.sets);
        for (gpu, mode) in groups(self.sets) {
            let mut energy = Vec::new();
            let mut relative = Vec::new();
            let mut share = Vec::new();
            let mut area = Vec::new();
            for &d in &designs {
                let mine: Vec<&RunSet> = self
                    .sets
                    .iter()
                    .filter(|s| s.gpu == gpu && s.mode == mode && s.design == d)
                    .collect();
                if mine.is_empty() {
                    continue;
                }
                let per_node = |f: &dyn Fn(usize) -> Option<f64>| -> Vec<Option<f64>> {
                    (0..self.all_nodes.len()).map(f).collect()
                };
                energy.push((
                    d,
                    per_node(&|i| {
                        geomean(mine.iter().map(|s| s.reports[i].energy.total.j() * 1e6))
                    }),
                ));
                relative.push((
                    d,
                    per_node(&|i| {
                        geomean(mine.iter().map(|s| {
                            self.reference_of(s).map_or(f64::NAN, |b| {
                                s.reports[i].energy.total.j() / b.reports[i].energy.total.j()
                            })
                        }))
                    }),
                ));
                share.push((
                    d,
                    per_node(&|i| {
                        let st: f64 = mine
                            .iter()
                            .map(|s| s.reports[i].energy.static_energy.j())
                            .sum();
                        let t: f64 = mine.iter().map(|s| s.reports[i].energy.total.j()).sum();
                        (t > 0.0).then(|| 100.0 * st / t)
                    }),
                ));
                area.push((d, per_node(&|i| Some(mine[0].reports[i].area.total.mm2()))));
            }
            let workloads = self
                .sets
                .iter()
                .filter(|s| s.gpu == gpu && s.mode == mode && s.design == designs[0])
                .count();
            let title = format!(
                "Node scaling, {gpu}{}: the same activity ({workloads} workloads) priced at every node",
                mode_text(mode)
            );
            let panels = [
                charts::LinePanel {
                    title: "energy (geometric mean over the workloads)".into(),
                    y_desc: "energy [µJ]".into(),
                    series: energy,
                    from_zero: true,
                    reference: None,
                    ceiling: None,
                },
                charts::LinePanel {
                    title: "energy against the reference at the same node (geometric mean over the workloads)".into(),
                    y_desc: "energy / reference energy".into(),
                    series: relative,
                    from_zero: false,
                    reference: Some(1.0),
                    ceiling: None,
                },
                charts::LinePanel {
                    title: "static (leakage) share of the energy".into(),
                    y_desc: "static share [%]".into(),
                    series: share,
                    from_zero: true,
                    reference: None,
                    ceiling: Some(100.0),
                },
                charts::LinePanel {
                    title: "area".into(),
                    y_desc: "area [mm²]".into(),
                    series: area,
                    from_zero: true,
                    reference: None,
                    ceiling: None,
                },
            ];
            let svg = charts::node_chart(&title, self.all_nodes, &panels)?;
            w.chart(
                "node_scaling",
                format!("node_scaling_{gpu}"),
                mode,
                title,
                svg,
            );
        }
        Ok(())
    }

    /// Area budget: CSV rows per (gpu, node, mode, design, component) and one chart per
    /// (gpu, mode).
    fn area_budget(
        &self,
        dir: &OutDir,
        components: &[String],
        w: &mut Written,
    ) -> anyhow::Result<()> {
        let header = [
            "gpu",
            "node",
            "node_nm",
            "power_mode",
            "scope",
            "design",
            "component",
            "area_mm2",
            "reference_area_mm2",
            "delta_mm2",
            "overhead_frac",
            "published_overhead_frac",
            "published_basis",
            "published_source",
        ];
        let published = published()?;
        let mut rows = Vec::new();
        let designs = designs_of(self.sets);
        for (gpu, mode) in groups(self.sets) {
            let mut panels = Vec::new();
            for &node in self.report_nodes {
                let Some(ni) = self.node_index(node) else {
                    continue;
                };
                let mut bars = Vec::new();
                for &d in &designs {
                    // area does not depend on the workload: the first run's
                    let Some(s) = self
                        .sets
                        .iter()
                        .find(|s| s.gpu == gpu && s.mode == mode && s.design == d)
                    else {
                        continue;
                    };
                    let Some(base) = self.reference_of(s).map(|b| &b.reports[ni]) else {
                        continue;
                    };
                    let r = &s.reports[ni];
                    let bt = base.area.total.mm2();
                    let scope = r.config.scope();
                    let mut names: Vec<&String> = r.area.components.keys().collect();
                    for k in base.area.components.keys() {
                        if !names.contains(&k) {
                            names.push(k);
                        }
                    }
                    names.sort_by_key(|n| components.iter().position(|c| c == *n));
                    let mut segs = Vec::new();
                    for n in names {
                        let a = r
                            .area
                            .components
                            .get(n)
                            .filter(|_| in_scope(r, n))
                            .map_or(0.0, |a| a.mm2());
                        let b = base
                            .area
                            .components
                            .get(n)
                            .filter(|_| in_scope(base, n))
                            .map_or(0.0, |a| a.mm2());
                        let frac = if bt > 0.0 { (a - b) / bt } else { 0.0 };
                        let mut f = prefix(&gpu, node, mode, scope);
                        f.extend([d.name().into(), n.clone()]);
                        f.extend([a, b, a - b, frac].map(csv_number));
                        f.extend([String::new(), String::new(), String::new()]);
                        rows.push(f);
                        if a != b {
                            segs.push((n.clone(), 100.0 * frac));
                        }
                    }
                    let p = published.get(d.name());
                    let total = r.area.total.mm2();
                    let mut f = prefix(&gpu, node, mode, scope);
                    f.extend([d.name().into(), "total".into()]);
                    f.extend([total, bt, total - bt, r.area.overhead_vs_baseline].map(csv_number));
                    f.extend([
                        p.and_then(|p| p.overhead_frac)
                            .map_or_else(String::new, csv_number),
                        p.map_or_else(String::new, |p| p.basis.clone()),
                        p.map_or_else(String::new, |p| p.source.clone()),
                    ]);
                    rows.push(f);
                    bars.push(charts::AreaBar {
                        design: d.name().to_string(),
                        segments: segs,
                        total_pct: 100.0 * r.area.overhead_vs_baseline,
                        published_pct: p.and_then(|p| p.overhead_frac).map(|f| 100.0 * f),
                    });
                }
                panels.push(charts::AreaPanel {
                    title: format!("{node}"),
                    bars,
                });
            }
            let title = format!(
                "Area-overhead budget, {gpu}{}: each component's area change as a share of the reference's total, the seed's published overhead beside it",
                mode_text(mode)
            );
            let svg = charts::area_chart(&title, &panels, components)?;
            w.chart(
                "area_budget",
                format!("area_budget_{gpu}"),
                mode,
                title,
                svg,
            );
        }
        w.csv(dir, "area_budget.csv", &header, rows, "area-overhead budget: each design's area per component against the reference's, as a share of the reference's total (`overhead_frac`), with the seed's published overhead on the `total` rows")
    }
}

/// `v` to `digits` significant digits, without trailing zeros.
pub fn format_sig(v: f64, digits: i32) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = (digits - 1 - v.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The first columns of the studies' rows: gpu, node, node_nm, power_mode, scope.
fn prefix(gpu: &str, node: Node, mode: PowerMode, scope: Scope) -> Vec<String> {
    vec![
        gpu.to_string(),
        node.name(),
        csv_number(node.nm()),
        mode.name().into(),
        scope.name().into(),
    ]
}

/// Whether the totals of `r` include the component `name` (its level is within the scope).
fn in_scope(r: &RunReport, name: &str) -> bool {
    r.energy
        .scope
        .as_ref()
        .and_then(|sc| sc.component_levels.get(name).copied())
        .unwrap_or(Scope::Rf)
        <= r.config.scope()
}

/// `name` as the key of the shares map (its entry in the component list).
fn components_key<'a>(components: &'a [String], name: &str) -> &'a str {
    components
        .iter()
        .find(|c| c.as_str() == name)
        .map_or("", String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geomean_by_hand() {
        assert_eq!(geomean([]), None);
        assert!((geomean([2.0, 8.0]).unwrap_or(0.0) - 4.0).abs() < 1e-12);
        assert_eq!(geomean([1.0, 0.0]), None);
    }

    #[test]
    fn significant_digits_and_svg_width_by_hand() {
        assert_eq!(format_sig(0.961_538_461_5, 4), "0.9615");
        assert_eq!(format_sig(0.07, 4), "0.07");
        assert_eq!(format_sig(1234.56, 4), "1235");
        assert_eq!(format_sig(0.0, 4), "0");
        let svg =
            "<?xml version=\"1.0\"?>\n<svg width=\"640\" height=\"480\" viewBox=\"0 0 640 480\">";
        assert_eq!(svg_width(svg), 640);
        assert_eq!(svg_width("<p>no chart</p>"), 0);
    }

    #[test]
    fn published_overheads_name_designs() {
        let p = published().expect("embedded file parses");
        // renaming: the 1 KB table regwatt models (seed 002 §1), not the 3.8 KB one
        assert_eq!(p["renaming"].overhead_frac, Some(0.01));
        assert_eq!(p["malekeh"].overhead_frac, Some(0.0078));
        assert_eq!(p["cerf"].overhead_frac, Some(-0.0965));
        assert!(p["sharing"].overhead_frac.is_none());
        assert!(p["sharing"].basis.contains("KB"), "{:?}", p["sharing"]);
    }
}
