//! The seeds' evaluations as regwatt runs them (`regwatt reproduce`).
//!
//! Each design folder holds its seed's headline figures: `seed_figures.toml` (figure label,
//! metric, definition, the seed's value and where the seed gives it) and `seed_figures.rs`,
//! which names, per figure, the runs it needs ([`Run`]) and computes the figure's value from
//! their reports ([`Plan`]). This module holds what those share: the figure records, the run
//! keys, the lookups into a finished run ([`Results`]) and the metric helpers. The simulations
//! themselves are made by the binary (`src/cli/reproduce.rs`), which needs the built-in
//! workloads; nothing here runs a simulation or holds a result.

use std::collections::BTreeMap;

use serde::Deserialize;

/// Why a seed's figures cannot be read or computed.
#[derive(Debug, thiserror::Error)]
pub enum ReproduceError {
    #[error("{file}: {message}")]
    Figures { file: String, message: String },
    #[error("unknown seed or design `{given}`; valid: {valid}")]
    UnknownSeed { given: String, valid: String },
    #[error("seed {seed}: unknown figure `{given}`; valid: {valid}")]
    UnknownFigure {
        seed: String,
        given: String,
        valid: String,
    },
    #[error("seed {seed}: figure `{id}` cannot be run by regwatt: {reason}")]
    NotRunnable {
        seed: String,
        id: String,
        reason: String,
    },
    #[error("figure `{id}`: run {run} has no number at `{pointer}`")]
    Missing {
        id: String,
        run: String,
        pointer: String,
    },
    #[error("figure `{id}`: run {run} was not made")]
    NoRun { id: String, run: String },
    #[error("figure `{id}`: {message}")]
    Metric { id: String, message: String },
}

/// Input sizes a seed is reproduced at (the built-in workloads' sizes).
pub const SIZES: [&str; 3] = ["ci", "default", "paper"];

/// One headline figure of a seed, as `seed_figures.toml` records it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    /// Stable name of the row (`regwatt reproduce --figure ID`).
    pub id: String,
    /// The seed's label: `Fig. 9`, `§4.1`, `Table 2`.
    pub figure: String,
    /// What is measured, in a few words.
    pub metric: String,
    /// How regwatt computes it, and whether it is the seed's definition.
    pub definition: String,
    /// The seed's value, in `unit`.
    pub seed_value: f64,
    pub unit: String,
    /// Seed file and section the value is copied from.
    pub source: String,
    /// The value that means "no change" (0 for a change in %, 1 for a ratio or speed-up
    /// factor): `direction_agrees` compares the signs of the two values' distances from it.
    #[serde(default)]
    pub neutral: f64,
    /// Why regwatt's value may differ, without numbers of its own.
    #[serde(default)]
    pub note: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FigureFile {
    figure: Vec<Figure>,
}

/// Parses a design's `seed_figures.toml` (`file` names it in errors).
pub fn parse_figures(file: &str, text: &str) -> Result<Vec<Figure>, ReproduceError> {
    let f: FigureFile = toml::from_str(text).map_err(|e| ReproduceError::Figures {
        file: file.to_string(),
        message: e.to_string(),
    })?;
    let mut seen = std::collections::BTreeSet::new();
    for fig in &f.figure {
        if !seen.insert(fig.id.clone()) {
            return Err(ReproduceError::Figures {
                file: file.to_string(),
                message: format!("figure id `{}` appears twice", fig.id),
            });
        }
        if !fig.seed_value.is_finite() {
            return Err(ReproduceError::Figures {
                file: file.to_string(),
                message: format!("figure `{}`: seed_value is not a finite number", fig.id),
            });
        }
        let has_number = fig.note.split_whitespace().any(|t| {
            t.trim_start_matches(|c: char| !c.is_alphanumeric())
                .starts_with(|c: char| c.is_ascii_digit())
        });
        if has_number {
            // notes explain; the numbers are the rows' own
            return Err(ReproduceError::Figures {
                file: file.to_string(),
                message: format!(
                    "figure `{}`: the note holds a number; numbers belong in the row's values",
                    fig.id
                ),
            });
        }
    }
    Ok(f.figure)
}

/// One simulation and its evaluation: what a figure needs from a run. Configuration values
/// are the `regwatt run` flags' spellings.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Run {
    pub workload: String,
    /// GPU preset name.
    pub gpu: String,
    /// Design name.
    pub design: String,
    /// `--set KEY=VALUE` overrides, in order.
    pub sets: Vec<String>,
    /// Evaluation: `--power-mode`, `--scope`, `--node` (empty: the preset's).
    pub power_mode: String,
    pub scope: String,
    pub node: String,
    /// `--series-window` cycles (0: none).
    pub series_window: u64,
}

impl Run {
    pub fn new(workload: &str, gpu: &str, design: &str) -> Run {
        Run {
            workload: workload.to_string(),
            gpu: gpu.to_string(),
            design: design.to_string(),
            sets: Vec::new(),
            power_mode: String::new(),
            scope: String::new(),
            node: String::new(),
            series_window: 0,
        }
    }
    pub fn set(mut self, kv: &str) -> Run {
        self.sets.push(kv.to_string());
        self
    }
    pub fn mode(mut self, m: &str) -> Run {
        self.power_mode = m.to_string();
        self
    }
    pub fn scope(mut self, s: &str) -> Run {
        self.scope = s.to_string();
        self
    }
    pub fn node(mut self, n: &str) -> Run {
        self.node = n.to_string();
        self
    }
    pub fn window(mut self, cycles: u64) -> Run {
        self.series_window = cycles;
        self
    }
    /// The same run on another design.
    pub fn on(&self, design: &str) -> Run {
        let mut r = self.clone();
        r.design = design.to_string();
        r
    }
    /// The same run on another workload.
    pub fn with_workload(&self, w: &str) -> Run {
        let mut r = self.clone();
        r.workload = w.to_string();
        r
    }
    /// The simulation this run's evaluation needs: the run without its evaluation choices
    /// (power mode, scope, node), which do not change the timing.
    pub fn simulation(&self) -> Run {
        let mut r = self.clone();
        r.power_mode.clear();
        r.scope.clear();
        r.node.clear();
        r
    }
    /// The run as `regwatt run` flags.
    pub fn flags(&self) -> String {
        let mut s = format!(
            "--workload {} --gpu {} --design {}",
            self.workload, self.gpu, self.design
        );
        for kv in &self.sets {
            s.push_str(&format!(" --set {kv}"));
        }
        for (flag, v) in [
            ("--power-mode", &self.power_mode),
            ("--scope", &self.scope),
            ("--node", &self.node),
        ] {
            if !v.is_empty() {
                s.push_str(&format!(" {flag} {v}"));
            }
        }
        if self.series_window > 0 {
            s.push_str(&format!(" --series-window {}", self.series_window));
        }
        s
    }
}

/// One launch of a run, as the per-layer figures need it.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchFigures {
    pub kernel: String,
    /// The launch's cycles without its launch latency.
    pub kernel_cycles: u64,
    /// Its physical registers, summed over SMs (`activity.rf.physical_registers`).
    pub physical_registers: u64,
    /// Σ registers × cycles holding a live value, and allocated, summed over SMs.
    pub live_register_cycles: u64,
    pub allocated_register_cycles: u64,
}

/// A finished run: its report as `regwatt run --json` prints it, and its launches.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub report: serde_json::Value,
    pub launches: Vec<LaunchFigures>,
}

/// The finished runs of one invocation.
pub type Results = BTreeMap<Run, RunResult>;

/// A figure's value, with its per-workload values where it is a mean or an extreme over
/// workloads (`DIR/figures/ID.csv`).
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub value: f64,
    pub per_workload: Vec<(String, f64)>,
}

/// How a figure is computed from finished runs.
pub type Compute = Box<dyn Fn(&Lookup<'_>) -> Result<Value, ReproduceError> + Send + Sync>;

/// What a figure needs: runs and a computation, or the reason regwatt cannot run it.
pub enum Plan {
    Runs {
        runs: Vec<Run>,
        /// The workloads, named as the `workloads` column shows them.
        workloads: Vec<String>,
        compute: Compute,
    },
    NotRun(String),
}

impl Plan {
    /// A plan over `runs`; the workloads column lists their workloads (first appearance).
    pub fn over(runs: Vec<Run>, compute: Compute) -> Plan {
        let mut workloads: Vec<String> = Vec::new();
        for r in &runs {
            if !workloads.contains(&r.workload) {
                workloads.push(r.workload.clone());
            }
        }
        Plan::Runs {
            runs,
            workloads,
            compute,
        }
    }
}

/// Finished runs as one figure reads them (errors name the figure).
pub struct Lookup<'a> {
    pub id: &'a str,
    pub results: &'a Results,
}

impl Lookup<'_> {
    pub fn get(&self, run: &Run) -> Result<&RunResult, ReproduceError> {
        self.results.get(run).ok_or_else(|| ReproduceError::NoRun {
            id: self.id.to_string(),
            run: run.flags(),
        })
    }
    /// The number at JSON pointer `pointer` of `run`'s report.
    pub fn num(&self, run: &Run, pointer: &str) -> Result<f64, ReproduceError> {
        self.get(run)?
            .report
            .pointer(pointer)
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| ReproduceError::Missing {
                id: self.id.to_string(),
                run: run.flags(),
                pointer: pointer.to_string(),
            })
    }
    /// Core cycles without the launch latencies (`cycles − launch_latency.cycles`).
    pub fn kernel_cycles(&self, run: &Run) -> Result<f64, ReproduceError> {
        Ok(self.num(run, "/cycles")? - self.num(run, "/launch_latency/cycles")?)
    }
    /// Warp instructions per kernel cycle (launch latency left out).
    pub fn kernel_ipc(&self, run: &Run) -> Result<f64, ReproduceError> {
        Ok(self.num(run, "/warp_instructions")? / self.kernel_cycles(run)?)
    }
    /// The static energy of one energy component (J).
    pub fn component(&self, run: &Run, name: &str, field: &str) -> Result<f64, ReproduceError> {
        let comps = self
            .get(run)?
            .report
            .pointer("/energy/components")
            .and_then(serde_json::Value::as_array);
        comps
            .and_then(|cs| cs.iter().find(|c| c["name"] == name))
            .and_then(|c| c[field].as_f64())
            .ok_or_else(|| ReproduceError::Missing {
                id: self.id.to_string(),
                run: run.flags(),
                pointer: format!("/energy/components[name={name}]/{field}"),
            })
    }
    /// A ratio that needs a non-zero denominator.
    pub fn ratio(&self, num: f64, den: f64, what: &str) -> Result<f64, ReproduceError> {
        if den == 0.0 || !den.is_finite() || !num.is_finite() {
            return Err(ReproduceError::Metric {
                id: self.id.to_string(),
                message: format!("{what}: {num} over {den}"),
            });
        }
        Ok(num / den)
    }
    /// `100 × (new / old − 1)`.
    pub fn change_pct(&self, new: f64, old: f64, what: &str) -> Result<f64, ReproduceError> {
        Ok(100.0 * (self.ratio(new, old, what)? - 1.0))
    }
}

/// Arithmetic mean of the per-workload values (0 values: an error at the figure).
pub fn mean(id: &str, per: Vec<(String, f64)>) -> Result<Value, ReproduceError> {
    if per.is_empty() {
        return Err(ReproduceError::Metric {
            id: id.to_string(),
            message: "no workload".into(),
        });
    }
    let value = per.iter().map(|p| p.1).sum::<f64>() / per.len() as f64;
    Ok(Value {
        value,
        per_workload: per,
    })
}

/// The largest per-workload value.
pub fn max(id: &str, per: Vec<(String, f64)>) -> Result<Value, ReproduceError> {
    extreme(id, per, f64::NEG_INFINITY, f64::max)
}

/// The smallest per-workload value.
pub fn min(id: &str, per: Vec<(String, f64)>) -> Result<Value, ReproduceError> {
    extreme(id, per, f64::INFINITY, f64::min)
}

/// The per-workload value `pick` keeps, folded from `start`; an error when none is finite.
fn extreme(
    id: &str,
    per: Vec<(String, f64)>,
    start: f64,
    pick: fn(f64, f64) -> f64,
) -> Result<Value, ReproduceError> {
    let value = per.iter().map(|p| p.1).fold(start, pick);
    if !value.is_finite() {
        return Err(ReproduceError::Metric {
            id: id.to_string(),
            message: "no workload".into(),
        });
    }
    Ok(Value {
        value,
        per_workload: per,
    })
}

/// `100 × (geometric mean of the per-workload ratios − 1)`; the per-workload values are the
/// ratios as changes in %.
pub fn geomean_change_pct(id: &str, ratios: Vec<(String, f64)>) -> Result<Value, ReproduceError> {
    if ratios.is_empty() || ratios.iter().any(|r| r.1 <= 0.0 || !r.1.is_finite()) {
        return Err(ReproduceError::Metric {
            id: id.to_string(),
            message: "no workload, or a ratio that is not positive".into(),
        });
    }
    let g = (ratios.iter().map(|r| r.1.ln()).sum::<f64>() / ratios.len() as f64).exp();
    Ok(Value {
        value: 100.0 * (g - 1.0),
        per_workload: ratios
            .into_iter()
            .map(|(w, r)| (w, 100.0 * (r - 1.0)))
            .collect(),
    })
}

/// One value, no per-workload breakdown.
pub fn single(v: f64) -> Value {
    Value {
        value: v,
        per_workload: Vec::new(),
    }
}

/// `f` over every workload of `ws`, collected as per-workload values.
pub fn per_workload(
    ws: &[&str],
    mut f: impl FnMut(&str) -> Result<f64, ReproduceError>,
) -> Result<Vec<(String, f64)>, ReproduceError> {
    ws.iter().map(|w| Ok((w.to_string(), f(w)?))).collect()
}

/// One row of a seed's table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub seed: String,
    pub id: String,
    pub figure: String,
    pub metric: String,
    pub definition: String,
    pub seed_value: f64,
    /// `None`: not run (the note says why).
    pub regwatt_value: Option<f64>,
    pub unit: String,
    pub workloads: String,
    pub size: String,
    pub direction_agrees: Option<bool>,
    pub within_2x: Option<bool>,
    pub note: String,
    pub source: String,
    pub per_workload: Vec<(String, f64)>,
}

/// Whether `ours` lies on the same side of `neutral` as `seed`, and within a factor of two of
/// it (distances from `neutral`).
pub fn agreement(seed: f64, ours: f64, neutral: f64) -> (bool, bool) {
    let (a, b) = (seed - neutral, ours - neutral);
    let direction = (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0) || (a == 0.0 && b == 0.0);
    let within = direction && {
        let r = b.abs() / a.abs().max(f64::MIN_POSITIVE);
        (0.5..=2.0).contains(&r)
    };
    (direction, within)
}

/// A number as the tables print it: 4 significant digits at most (3 decimals at most), no
/// trailing zeros, `-0` printed `0`.
pub fn number(x: f64) -> String {
    let digits = if x.abs() >= 100.0 {
        1
    } else if x.abs() >= 10.0 {
        2
    } else {
        3
    };
    let s = format!("{x:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// A seed, its design and its figures.
pub struct Seed {
    /// `000` … `004`.
    pub number: &'static str,
    pub design: &'static str,
    /// Short citation of the seed.
    pub title: &'static str,
    /// The figure file's path in the repository, and its text (embedded).
    pub file: &'static str,
    pub text: &'static str,
    /// The plan of a figure id at an input size (`None`: the id has no plan).
    pub plan: fn(&str, &str) -> Option<Plan>,
}

impl Seed {
    pub fn figures(&self) -> Result<Vec<Figure>, ReproduceError> {
        parse_figures(self.file, self.text)
    }
}

/// The five seeds, in seed order.
pub fn seeds() -> Vec<Seed> {
    vec![
        crate::sharing::seed_figures::seed(),
        crate::lreg::seed_figures::seed(),
        crate::renaming::seed_figures::seed(),
        crate::malekeh::seed_figures::seed(),
        crate::cerf::seed_figures::seed(),
    ]
}

/// The seed named by its number (`003`, `3`) or its design (`malekeh`).
pub fn find_seed(name: &str) -> Result<Seed, ReproduceError> {
    let all = seeds();
    let valid = all
        .iter()
        .map(|s| format!("{} ({})", s.number, s.design))
        .collect::<Vec<_>>()
        .join(", ");
    let as_number = name.parse::<u32>().ok();
    all.into_iter()
        .find(|s| s.design == name || s.number == name || as_number == s.number.parse::<u32>().ok())
        .ok_or(ReproduceError::UnknownSeed {
            given: name.to_string(),
            valid,
        })
}

/// The rows of `seed` from finished runs: every figure of the file, in file order.
pub fn rows(
    seed: &Seed,
    figures: &[Figure],
    size: &str,
    results: &Results,
) -> Result<Vec<Row>, ReproduceError> {
    let mut out = Vec::new();
    for f in figures {
        let plan = (seed.plan)(&f.id, size).ok_or_else(|| ReproduceError::Figures {
            file: seed.file.to_string(),
            message: format!("figure `{}` has no plan in seed_figures.rs", f.id),
        })?;
        let (value, workloads, note) = match plan {
            Plan::NotRun(reason) => (None, String::new(), format!("not run: {reason}")),
            Plan::Runs {
                compute, workloads, ..
            } => {
                let v = compute(&Lookup { id: &f.id, results })?;
                (Some(v), workloads.join(" "), f.note.clone())
            }
        };
        let agree = value
            .as_ref()
            .map(|v| agreement(f.seed_value, v.value, f.neutral));
        out.push(Row {
            seed: seed.number.to_string(),
            id: f.id.clone(),
            figure: f.figure.clone(),
            metric: f.metric.clone(),
            definition: f.definition.clone(),
            seed_value: f.seed_value,
            regwatt_value: value.as_ref().map(|v| v.value),
            unit: f.unit.clone(),
            workloads,
            size: size.to_string(),
            direction_agrees: agree.map(|a| a.0),
            within_2x: agree.map(|a| a.1),
            note,
            source: f.source.clone(),
            per_workload: value.map(|v| v.per_workload).unwrap_or_default(),
        });
    }
    Ok(out)
}

/// The columns of `seed_table.csv`.
pub const COLUMNS: [&str; 12] = [
    "seed",
    "figure",
    "metric",
    "definition",
    "seed_value",
    "regwatt_value",
    "unit",
    "workloads",
    "size",
    "direction_agrees",
    "within_2x",
    "note",
];

impl Row {
    /// The row's cells in [`COLUMNS`] order (numbers as [`number`] prints them).
    pub fn cells(&self) -> Vec<String> {
        let b = |x: Option<bool>| x.map_or(String::new(), |v| v.to_string());
        vec![
            self.seed.clone(),
            self.figure.clone(),
            self.metric.clone(),
            self.definition.clone(),
            number(self.seed_value),
            self.regwatt_value.map_or(String::new(), number),
            self.unit.clone(),
            self.workloads.clone(),
            self.size.clone(),
            b(self.direction_agrees),
            b(self.within_2x),
            self.note.clone(),
        ]
    }
}

/// The markdown table of `rows` (what the design READMEs hold between their markers).
pub fn markdown(rows: &[Row]) -> String {
    let esc = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut s = String::from(
        "| figure | metric | seed | regwatt | unit | direction agrees | within 2× | workloads | definition | note |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let yn = |x: Option<bool>| match x {
        Some(true) => "yes",
        Some(false) => "no",
        None => "—",
    };
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            esc(&r.figure),
            esc(&r.metric),
            number(r.seed_value),
            r.regwatt_value.map_or("—".into(), number),
            esc(&r.unit),
            yn(r.direction_agrees),
            yn(r.within_2x),
            esc(&r.workloads),
            esc(&r.definition),
            esc(&r.note),
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every figure of every seed's file has a plan at every size, and ids are unique; each
    /// seed has at least six figures regwatt runs.
    #[test]
    fn every_figure_has_a_plan_at_every_size() {
        for s in seeds() {
            let figs = s.figures().unwrap();
            for size in SIZES {
                let runnable = figs
                    .iter()
                    .filter(|f| {
                        let p = (s.plan)(&f.id, size);
                        assert!(p.is_some(), "{}: {} has no plan", s.file, f.id);
                        matches!(p, Some(Plan::Runs { .. }))
                    })
                    .count();
                assert!(runnable >= 6, "{}: {runnable} runnable figures", s.file);
            }
        }
    }

    #[test]
    fn agreement_compares_sides_and_factor() {
        assert_eq!(agreement(-36.0, -26.0, 0.0), (true, true));
        assert_eq!(agreement(-36.0, -10.0, 0.0), (true, false));
        assert_eq!(agreement(-36.0, 3.0, 0.0), (false, false));
        assert_eq!(agreement(2.0, 2.76, 1.0), (true, true));
        assert_eq!(agreement(2.0, 0.97, 1.0), (false, false));
    }

    #[test]
    fn numbers_print_short_and_without_negative_zero() {
        assert_eq!(number(-26.1234), "-26.12");
        assert_eq!(number(0.5), "0.5");
        assert_eq!(number(-0.0001), "0");
        assert_eq!(number(1234.56), "1234.6");
        assert_eq!(number(2.0), "2");
    }

    #[test]
    fn bad_figure_files_are_refused_with_the_file() {
        let e = parse_figures("x.toml", "[[figure]]\nid = 1\n").unwrap_err();
        assert!(e.to_string().starts_with("x.toml:"), "{e}");
        let dup = "[[figure]]\nid='a'\nfigure='F'\nmetric='m'\ndefinition='d'\nseed_value=1.0\nunit='%'\nsource='s'\n";
        let e = parse_figures("y.toml", &format!("{dup}{dup}")).unwrap_err();
        assert!(e.to_string().contains("twice"), "{e}");
        let Err(e) = find_seed("nope") else {
            panic!("an unknown seed was found")
        };
        assert!(e.to_string().contains("malekeh"), "{e}");
        assert!(matches!(find_seed("3"), Ok(s) if s.design == "malekeh"));
    }
}
