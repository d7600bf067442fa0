//! `regwatt report` as the study driver and its outputs a data scientist loads
//! directly. One small report (2 workloads, one of them multi-launch, always on and drowsy)
//! is the shared fixture: its CSV tables must add up (components to totals, kernels to runs),
//! the baseline's overheads must be 0, its JSON must hold numbers, not quantity strings, and
//! its `index.html` must embed every chart and link only files it has. An override that
//! doubles the RF area shows +100 % against `--baseline-config` of the stock preset; `run`
//! accepts every node of the technology layer.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{assert_fails, assert_success, regwatt};

/// The shared report: vectorAdd and bfs (31 launches), both presets, every design, always on
/// and drowsy, at 40 and 12 nm.
fn fixture() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::tmp_dir("report_studies", "fixture");
        let o = regwatt(&[
            "report",
            "--size",
            "ci",
            "--workloads",
            "vectorAdd,bfs",
            "--power-modes",
            "always-on,drowsy",
            "--out",
            dir.to_str().expect("utf8"),
        ]);
        assert_success(&o, "regwatt report (fixture)");
        dir
    })
}

fn num(row: &BTreeMap<String, String>, col: &str) -> f64 {
    row.get(col)
        .unwrap_or_else(|| panic!("no column {col}"))
        .parse()
        .unwrap_or_else(|e| panic!("{col} = {:?}: {e}", row[col]))
}

const RUN_KEY: [&str; 6] = ["workload", "gpu", "design", "node", "power_mode", "scope"];

fn run_key(row: &BTreeMap<String, String>) -> Vec<String> {
    RUN_KEY.iter().map(|k| row[*k].clone()).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-24
}

#[test]
fn component_energies_add_up_and_the_baseline_overhead_is_zero() {
    let dir = fixture();
    let summary = common::read_csv(&dir.join("summary.csv"));
    // 2 workloads x every (GPU, design it supports) x 2 power modes x 2 nodes
    assert_eq!(summary.len(), 8 * common::supported_pairs());
    let mut energy: BTreeMap<Vec<String>, (f64, f64, f64)> = BTreeMap::new();
    for c in common::read_csv(&dir.join("components.csv")) {
        let e = energy.entry(run_key(&c)).or_default();
        if c["in_total"] == "true" {
            e.0 += num(&c, "dynamic_j");
            e.1 += num(&c, "static_j");
            e.2 += num(&c, "area_mm2");
        }
        if c["record"] == "event" {
            let per = num(&c, "energy_per_event_pj") * 1e-12;
            assert!(close(per * num(&c, "count"), num(&c, "dynamic_j")), "{c:?}");
        }
    }
    let mut kernels: BTreeMap<Vec<String>, (usize, f64, u64)> = BTreeMap::new();
    for k in common::read_csv(&dir.join("kernels.csv")) {
        let e = kernels.entry(run_key(&k)).or_default();
        e.0 += 1;
        e.1 += num(&k, "total_j");
        e.2 += k["cycles"].parse::<u64>().expect("cycles");
    }
    for s in &summary {
        let key = run_key(s);
        let (d, st, a) = energy[&key];
        assert!(close(d, num(s, "dynamic_j")), "{key:?}: dynamic {d}");
        assert!(close(st, num(s, "static_j")), "{key:?}: static {st}");
        assert!(close(d + st, num(s, "total_j")), "{key:?}: total");
        assert!(close(a, num(s, "area_mm2")), "{key:?}: area {a}");
        let (launches, total, cycles) = kernels[&key];
        assert_eq!(
            launches,
            if s["workload"] == "bfs" { 31 } else { 1 },
            "{key:?}"
        );
        assert!(close(total, num(s, "total_j")), "{key:?}: kernels {total}");
        assert_eq!(cycles, s["cycles"].parse::<u64>().expect("cycles"));
        if s["design"] == "baseline" {
            for c in [
                "energy_overhead_frac",
                "dynamic_energy_overhead_frac",
                "static_energy_overhead_frac",
                "area_overhead_frac",
            ] {
                assert_eq!(num(s, c), 0.0, "{key:?}: {c}");
            }
        } else {
            assert!(num(s, "area_overhead_frac") > 0.0, "{key:?}");
        }
        assert_eq!(s["output_check"], "ok");
    }
    // the area budget's components add up to each design's total overhead
    let budget = common::read_csv(&dir.join("studies/area_budget.csv"));
    let mut sums: BTreeMap<Vec<String>, f64> = BTreeMap::new();
    for b in budget.iter().filter(|b| b["component"] != "total") {
        let k = vec![
            b["gpu"].clone(),
            b["node"].clone(),
            b["power_mode"].clone(),
            b["design"].clone(),
        ];
        *sums.entry(k).or_default() += num(b, "overhead_frac");
    }
    for b in budget.iter().filter(|b| b["component"] == "total") {
        let k = vec![
            b["gpu"].clone(),
            b["node"].clone(),
            b["power_mode"].clone(),
            b["design"].clone(),
        ];
        assert!((sums[&k] - num(b, "overhead_frac")).abs() < 1e-12, "{k:?}");
        if b["design"] == "renaming" {
            // the 1 KB table regwatt models (seed 002 §1), from renaming's seed_figures.toml
            assert_eq!(b["published_overhead_frac"], "0.01");
        }
    }
    // the node-scaling study prices every run at the seven nodes
    let scaling = common::read_csv(&dir.join("studies/node_scaling.csv"));
    assert_eq!(scaling.len(), 4 * common::supported_pairs() * 7);
}

/// Where a JSON document holds a string that is a number or a quantity (`"1.4e-6 J"`).
fn quantity_strings(v: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                quantity_strings(x, &format!("{path}.{k}"), out);
            }
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                quantity_strings(x, &format!("{path}[{i}]"), out);
            }
        }
        serde_json::Value::String(s) => {
            let t = s.trim();
            let quantity = t.contains(' ')
                && !t.contains('\n')
                && regwatt_tech::units::parse_quantity(t).is_ok();
            if quantity || t.parse::<f64>().is_ok() {
                out.push(format!("{path} = {s:?}"));
            }
        }
        _ => {}
    }
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

#[test]
fn report_json_holds_numbers_not_quantity_strings() {
    let mut files = Vec::new();
    json_files(fixture(), &mut files);
    assert!(files.len() > 60, "{}", files.len());
    let mut bad = Vec::new();
    for f in &files {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(f).expect("read")).expect("json");
        quantity_strings(&v, &f.display().to_string(), &mut bad);
    }
    assert!(bad.is_empty(), "quantity strings:\n{}", bad.join("\n"));
    let run: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixture().join("runs/gtx480/renaming/bfs-12nm-drowsy.json")).expect("run"),
    )
    .expect("json");
    assert!(run["energy"]["total_j"].as_f64().is_some_and(|x| x > 0.0));
    assert!(run["config"]["power"]["temperature_k"].as_f64() == Some(360.0));
    assert!(run["power_management"]["cells_j"]
        .as_f64()
        .is_some_and(|x| x > 0.0));
    let prov: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixture().join("provenance.json")).expect("provenance"),
    )
    .expect("json");
    assert_eq!(prov["command_line"][0], "regwatt");
    assert!(prov["configurations"]["rtx2060-sharing-12nm-drowsy.toml"].is_object());
    assert_eq!(
        prov["launch_specs"]["bfs"]["launches"]
            .as_array()
            .map(Vec::len),
        Some(31)
    );
}

/// `run --json` (every power-mode and scope record) and `sram --json` (power gating too) hold
/// numbers, not quantity strings: one convention across the commands.
#[test]
fn run_and_sram_json_hold_numbers() {
    let mut bad = Vec::new();
    for args in [
        &[
            "run",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--gpu",
            "rtx2060",
            "--design",
            "sharing",
            "--set",
            "sms=2",
            "--power-mode",
            "tri-modal",
            "--scope",
            "gpu",
            "--json",
        ][..],
        &[
            "sram",
            "--capacity",
            "4KB",
            "--block-bytes",
            "16",
            "--rd-ports",
            "1",
            "--wr-ports",
            "1",
            "--rw-ports",
            "0",
            "--node",
            "40nm",
            "--pg-array",
            "--json",
        ][..],
    ] {
        let o = regwatt(args);
        assert_success(&o, &args.join(" "));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        quantity_strings(&v, args[0], &mut bad);
    }
    // the sram command's `defaults_used` describes the defaults in words
    bad.retain(|b| !b.contains(".defaults_used."));
    assert!(bad.is_empty(), "quantity strings:\n{}", bad.join("\n"));
}

#[test]
fn index_html_embeds_every_chart_and_links_only_its_files() {
    let dir = fixture();
    let html = std::fs::read_to_string(dir.join("index.html")).expect("index.html");
    let mut charts = 0;
    for e in std::fs::read_dir(dir.join("studies")).expect("studies") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "svg") {
            charts += 1;
            let svg = std::fs::read_to_string(&p).expect("svg");
            let body = &svg[svg.find("<svg").expect("svg element")..];
            assert!(
                html.contains(body.trim_end()),
                "{} not embedded",
                p.display()
            );
        }
    }
    // energy, total and dynamic: 2 GPUs x 2 nodes x 2 modes each; node scaling and area:
    // 2 GPUs x 2 modes; energy versus area: 2 modes
    assert_eq!(charts, 8 + 8 + 4 + 4 + 2);
    // nothing loaded from outside (the SVG namespace URI is a name, not a load)
    for attr in ["src=\"http", "href=\"http", "src=\"//", "href=\"//"] {
        assert!(!html.contains(attr), "{attr}");
    }
    for link in html.split("href=\"").skip(1) {
        let target = &link[..link.find('"').expect("quote")];
        if !target.starts_with('#') {
            assert!(dir.join(target).exists(), "index.html links {target}");
        }
    }
    // every design README's seed table is shown (the report ran every design)
    for (path, _) in regwatt_designs::DesignSpec::ALL
        .iter()
        .filter_map(|d| d.readme())
    {
        assert!(html.contains(path), "{path}");
    }
    assert!(!html.contains("has no \"Seed versus regwatt\" table"));
    // no empty panel: a design that does not run on a GPU is named in the caption instead
    assert!(
        html.contains("not shown: cerf (it does not run on rtx2060)"),
        "the rtx2060 energy charts say why cerf is absent"
    );
}

#[test]
fn doubled_rf_area_is_plus_100_percent_against_the_stock_baseline() {
    let dir = common::tmp_dir("report_studies", "doubled");
    // twice the SMs: every RF component's instances, hence its area, doubles
    let doubled = dir.join("doubled.toml");
    let stock = dir.join("stock.toml");
    std::fs::write(&doubled, "[gpu]\nsms = 60\n").expect("write");
    std::fs::write(&stock, "[gpu]\nsms = 30\n").expect("write");
    let s = |p: &Path| p.to_str().expect("utf8").to_string();
    let out = dir.join("report");
    let o = regwatt(&[
        "report",
        "--size",
        "ci",
        "--gpus",
        "rtx2060",
        "--designs",
        "baseline,renaming",
        "--workloads",
        "vectorAdd",
        "--nodes",
        "12nm",
        "--config",
        &s(&doubled),
        "--baseline-config",
        &s(&stock),
        "--out",
        &s(&out),
    ]);
    assert_success(&o, "report --baseline-config");
    let summary = common::read_csv(&out.join("summary.csv"));
    assert_eq!(summary.len(), 2);
    let base = summary
        .iter()
        .find(|r| r["design"] == "baseline")
        .expect("baseline");
    assert!(
        (num(base, "area_overhead_frac") - 1.0).abs() < 1e-9,
        "{base:?}"
    );
    let ren = summary
        .iter()
        .find(|r| r["design"] == "renaming")
        .expect("renaming");
    assert!(num(ren, "area_overhead_frac") > 1.0, "{ren:?}");
    let budget = common::read_csv(&out.join("studies/area_budget.csv"));
    let banks = budget
        .iter()
        .find(|b| b["design"] == "baseline" && b["component"] == "rf_banks")
        .expect("rf_banks");
    assert!((num(banks, "area_mm2") / num(banks, "reference_area_mm2") - 2.0).abs() < 1e-9);
    // `run` takes the same reference
    let o = regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--gpu",
        "rtx2060",
        "--config",
        &s(&doubled),
        "--baseline-config",
        &s(&stock),
        "--json",
    ]);
    assert_success(&o, "run --baseline-config");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let area = v["area"]["overhead_vs_baseline_frac"]
        .as_f64()
        .expect("area");
    assert!((area - 1.0).abs() < 1e-9, "{area}");
    // a missing reference file is named
    let e = assert_fails(
        &regwatt(&[
            "report",
            "--size",
            "ci",
            "--workloads",
            "vectorAdd",
            "--baseline-config",
            "no/such.toml",
            "--out",
            &s(&dir.join("bad")),
        ]),
        "missing --baseline-config",
    );
    assert!(e.contains("no/such.toml"), "{e}");
}

#[test]
fn run_accepts_every_node_of_the_technology_layer() {
    for node in ["90nm", "65nm", "45nm", "32nm", "22nm", "28nm", "55 nm"] {
        let o = regwatt(&[
            "run",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--gpu",
            "gtx480",
            "--set",
            "sms=2",
            "--node",
            node,
            "--json",
        ]);
        assert_success(&o, node);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(v["node"], node.replace(' ', ""));
        assert!(
            v["energy"]["total_j"].as_f64().is_some_and(|x| x > 0.0),
            "{node}"
        );
    }
    for bad in ["16nm", "100nm", "40.5nm", "big"] {
        let e = assert_fails(
            &regwatt(&[
                "run",
                "--size",
                "ci",
                "--workload",
                "vectorAdd",
                "--gpu",
                "gtx480",
                "--node",
                bad,
            ]),
            bad,
        );
        assert!(e.contains("unknown technology node"), "{bad}: {e}");
    }
}
