//! `regwatt calibrate [--json] [--write PATH]`: re-fits the SRAM model's coefficients to the
//! CACTI 7 reference runs (`calibrations/cacti7-train.csv`) and prints the error table
//! (mean and worst |relative error| per metric, overall and per node). `--write` stores the
//! fitted coefficients (the committed copy is `calibrations/fitted.toml`).

use std::fmt::Write as _;

use regwatt_power::calibrate::{
    committed, evaluate, fit, fitted_toml, load_rows, same_coefficients, CalibrationReport,
    MetricErrors, TRAIN_CSV,
};

/// Arguments of `regwatt calibrate`.
#[derive(clap::Args)]
pub struct Args {
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write the fitted coefficients (TOML) to this file, e.g. calibrations/fitted.toml.
    #[arg(long, value_name = "PATH")]
    pub write: Option<std::path::PathBuf>,
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

/// Renders the report as a Markdown table.
pub fn table(r: &CalibrationReport) -> String {
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
    let rows_ = load_rows(TRAIN_CSV)?;
    let c = fit(&rows_);
    let report = evaluate(&rows_, &c);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("{}", table(&report));
        let same = committed()
            .map(|k| same_coefficients(&k, &c))
            .unwrap_or(false);
        outln!(
            "\nfit {} calibrations/fitted.toml",
            if same { "reproduces" } else { "DIFFERS FROM" }
        );
    }
    if let Some(p) = args.write {
        std::fs::write(&p, fitted_toml(&c))
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}
