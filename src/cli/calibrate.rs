//! `regwatt calibrate [--json] [--write PATH]`: re-fits the SRAM model's coefficients to the
//! CACTI 7 reference runs (`calibrations/cacti7-train.csv`) and prints the error table
//! (mean and worst |relative error| per metric, overall and per node). `--write` stores the
//! fitted coefficients (the committed copy is `calibrations/fitted.toml`).

use std::fmt::Write as _;

use regwatt_power::calibrate::{
    committed, cross_validate, evaluate, fit, fitted_toml, load_rows, same_coefficients,
    CalibrationReport, CrossValidation, FitDrops, MetricErrors, FOLDS, TRAIN_CSV,
};

/// Arguments of `regwatt calibrate`.
#[derive(clap::Args)]
pub struct Args {
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write the fitted coefficients (TOML) to this file, e.g. calibrations/fitted.toml
    /// (an existing file only with `--force`).
    #[arg(long, value_name = "PATH")]
    pub write: Option<std::path::PathBuf>,
    /// Replace the `--write` file if it exists.
    #[arg(long)]
    pub force: bool,
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn rows(out: &mut String, label: &str, m: &MetricErrors) {
    for (name, s) in [
        ("read energy", &m.read_energy),
        ("write energy", &m.write_energy),
        ("leakage (sub+gate)", &m.leakage),
        ("area", &m.area),
        ("access time", &m.access_time),
    ] {
        let _ = writeln!(
            out,
            "| {label:<8} | {name:<18} | {:>4} | {:>8} | {:>8} |",
            s.n,
            pct(s.mean_abs_rel),
            pct(s.max_abs_rel)
        );
    }
}

/// The JSON of `regwatt calibrate --json`.
#[derive(serde::Serialize)]
struct Report<'a> {
    /// The fit on every row, evaluated with the model's own search.
    fit: &'a CalibrationReport,
    /// Rows the fit left out, by reason.
    fit_dropped: &'a FitDrops,
    /// k-fold cross-validation over configurations.
    cross_validation: &'a CrossValidation,
}

/// Renders the report as a Markdown table.
pub fn table(r: &CalibrationReport, d: &FitDrops, cv: &CrossValidation) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "SRAM model vs CACTI 7 ({} rows compared, {} power-gated rows excluded, {} refused)",
        r.rows_compared,
        r.rows_gated,
        r.rows_failed.len()
    );
    let _ = writeln!(
        out,
        "| node     | metric             |    n | mean|err| | max|err| |"
    );
    let _ = writeln!(
        out,
        "|----------|--------------------|------|----------|----------|"
    );
    rows(&mut out, "all", &r.overall);
    for (node, m) in &r.per_node {
        rows(&mut out, &format!("{node} nm"), m);
    }
    let _ = writeln!(
        out,
        "\n{}-fold cross-validation over configurations (each configuration's rows at every \
         node in one fold):",
        cv.folds.len()
    );
    rows(&mut out, "train", &cv.train);
    rows(&mut out, "validate", &cv.validation);
    let _ = writeln!(
        out,
        "\nfit: {} rows; left out: {} power-gated, {} DRAM-cell, {} without an organisation, \
         {} refused; used {} ({} of them without gate leakage, {} without data-array leakage)",
        d.rows,
        d.gated,
        d.dram_cell,
        d.no_organisation.len(),
        d.refused.len(),
        d.used,
        d.no_gate_leakage,
        d.no_data_leakage
    );
    for name in &r.rows_without_gate_leakage {
        let _ = writeln!(
            out,
            "leakage not compared (CACTI printed no gate leakage): {name}"
        );
    }
    let _ = writeln!(out, "\ncoefficients:");
    for (k, v) in r.coefficients.to_pairs() {
        let _ = writeln!(out, "  {k:<24} {v:.6}");
    }
    for (name, e) in &r.rows_failed {
        let _ = writeln!(out, "refused: {name}: {e}");
    }
    out
}

/// Runs `regwatt calibrate`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(p) = &args.write {
        crate::outdir::check_new_file(p, args.force)?;
    }
    let rows_ = load_rows(TRAIN_CSV)?;
    let f = fit(&rows_);
    let c = f.coefficients;
    let report = evaluate(&rows_, &c);
    let cv = cross_validate(&rows_, FOLDS);
    if args.json {
        let r = Report {
            fit: &report,
            fit_dropped: &f.dropped,
            cross_validation: &cv,
        };
        outln!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        out!("{}", table(&report, &f.dropped, &cv));
        let same = committed()
            .map(|k| same_coefficients(&k, &c))
            .unwrap_or(false);
        outln!(
            "\nfit {} calibrations/fitted.toml",
            if same { "reproduces" } else { "DIFFERS FROM" }
        );
    }
    if let Some(p) = args.write {
        crate::outdir::write_file(&p, fitted_toml(&c).as_bytes(), args.force)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}
