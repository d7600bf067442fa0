//! `regwatt sram` end to end: CACTI cfg files in, one JSON object out; bad input gives a clear
//! error and never a panic.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_regwatt"))
}

fn cfg_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("calibrations/cacti7-train-cfg")
}

fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_clean_error(o: &Output, want: &[&str]) {
    assert!(!o.status.success(), "expected failure");
    let e = stderr(o);
    assert!(!e.contains("panicked"), "panic: {e}");
    for w in want {
        assert!(e.contains(w), "missing {w:?} in: {e}");
    }
}

/// `regwatt sram --cacti-cfg <reference cfg NAME> --json`, parsed.
fn cfg_json(name: &str) -> Value {
    let p = cfg_dir().join(format!("{name}.cfg"));
    json_of(&run(&[
        "sram",
        "--cacti-cfg",
        p.to_str().unwrap(),
        "--json",
    ]))
}

fn json_of(o: &Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap()
}

const FIELDS: [&str; 9] = [
    "access_ns",
    "cycle_ns",
    "read_energy_pj",
    "write_energy_pj",
    "leakage_mw",
    "gate_leakage_mw",
    "area_mm2",
    "height_mm",
    "width_mm",
];

#[test]
fn ram_and_cache_cfgs_give_one_json_object() {
    for name in [
        "banksweep_64K_b16_1R1W_bk16_32nm",
        "celltype_itrs-hp_itrs-lstp_22nm_64K_b16_1RW",
    ] {
        let v = cfg_json(name);
        for f in FIELDS {
            let x = v[f]
                .as_f64()
                .unwrap_or_else(|| panic!("{name}: {f} missing"));
            assert!(x.is_finite() && x > 0.0, "{name}: {f} = {x}");
        }
        let o = &v["organisation"];
        for k in ["ndwl", "ndbl", "nspd", "ndcm"] {
            assert!(o[k].as_f64().is_some(), "{k}");
        }
        let c = &v["config"];
        assert!(c["source"].as_str().unwrap().contains(name));
        assert!(c["not_applicable"]
            .as_object()
            .unwrap()
            .contains_key("page size"));
        assert_eq!(c["capacity_bytes"].as_u64(), Some(65536));
    }
}

#[test]
fn every_cache_cfg_runs_or_fails_cleanly() {
    // all reference cfgs give a result (bitline floating and interconnect gating included).
    let mut ok = 0;
    let mut failed = Vec::new();
    for e in std::fs::read_dir(cfg_dir()).unwrap() {
        let p = e.unwrap().path();
        let o = run(&["sram", "--cacti-cfg", p.to_str().unwrap(), "--json"]);
        if o.status.success() {
            let v: Value = serde_json::from_slice(&o.stdout).unwrap();
            assert!(v["access_ns"].as_f64().unwrap() > 0.0);
            ok += 1;
        } else {
            let e = stderr(&o);
            assert!(!e.contains("panicked"), "{}: {e}", p.display());
            failed.push(format!("{}: {e}", p.display()));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert_eq!(ok, 487);
}

#[test]
fn issue_bitline_float_and_interconnect_cfgs_report_pg_outputs() {
    for name in [
        "pg_bl_regbank4K_b16_1R1W_45nm",
        "pg_ic_regbank4K_b16_1R1W_45nm",
        "pg_all_regbank4K_b16_1R1W_45nm",
    ] {
        let v = cfg_json(name);
        let g = &v["power_gating"];
        let c = &g["cacti_style"];
        for k in [
            "wl_sleep_tx_width_um",
            "wl_sleep_area_mm2",
            "wl_wakeup_ns",
            "wl_wakeup_nj",
            "bl_float_wakeup_ns",
            "bl_float_wakeup_nj",
        ] {
            assert!(c[k].as_f64().unwrap() > 0.0, "{name}: {k}");
        }
        let active = v["leakage_mw"].as_f64().unwrap();
        let printed = g["cacti_sleep_leakage_mw"].as_f64().unwrap();
        let with_ic = g["cacti_sleep_leakage_with_interconnect_mw"]
            .as_f64()
            .unwrap();
        assert!(
            with_ic <= printed && printed <= active * (1.0 + 1e-12),
            "{name}"
        );
        if name.starts_with("pg_ic") {
            // This bank is a single mat (CACTI's organisation 2/2/1): there is no H-tree to
            // gate, and CACTI's pg_ic row leaks exactly what its pg_none row does.
            assert!(with_ic <= active);
            assert_eq!(
                g["interconnect_gating"]["htree_saved_mw"].as_f64().unwrap(),
                0.0
            );
        } else {
            assert!(printed < active, "{name}");
        }
    }
    // the same switches from flags
    let v = json_of(&run(&[
        "sram",
        "--capacity",
        "4KB",
        "--block-bytes",
        "16",
        "--rd-ports",
        "1",
        "--wr-ports",
        "1",
        "--node",
        "45nm",
        "--pg-bl-float",
        "--pg-interconnect",
        "--json",
    ]));
    assert_eq!(v["power_gating"]["bitline_floating"], Value::Bool(true));
    assert_eq!(v["power_gating"]["interconnect"], Value::Bool(true));
}

#[test]
fn power_gating_cfg_reports_gating() {
    let p = cfg_dir().join("pg_wl_ram32K_b128_1RW_22nm.cfg");
    let v = json_of(&run(&[
        "sram",
        "--cacti-cfg",
        p.to_str().unwrap(),
        "--json",
    ]));
    let g = &v["power_gating"];
    assert_eq!(g["wordline"], Value::Bool(true));
    assert!(g["subarray"]["wakeup_ns"].as_f64().unwrap() > 0.0);
    assert!(g["sleep_leakage_mw"].as_f64().unwrap() < v["leakage_mw"].as_f64().unwrap());
}

#[test]
fn flags_give_the_same_fields() {
    let v = json_of(&run(&[
        "sram",
        "--capacity",
        "4KB",
        "--block-bytes",
        "16",
        "--node",
        "40nm",
        "--rd-ports",
        "1",
        "--wr-ports",
        "1",
        "--json",
    ]));
    for f in FIELDS {
        assert!(v[f].as_f64().unwrap() > 0.0, "{f}");
    }
    let d = v["config"]["defaults_used"].as_object().unwrap();
    assert!(d.contains_key("banks") && d.contains_key("out_bits"));
}

#[test]
fn missing_file_is_a_clear_error() {
    let o = run(&["sram", "--cacti-cfg", "/nonexistent/x.cfg"]);
    assert_clean_error(&o, &["/nonexistent/x.cfg", "cannot read"]);
}

#[test]
fn bad_key_names_file_and_line() {
    let dir = std::env::temp_dir().join(format!("regwatt-sram-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src =
        std::fs::read_to_string(cfg_dir().join("banksweep_64K_b16_1R1W_bk16_32nm.cfg")).unwrap();
    let bad = dir.join("bad_key.cfg");
    std::fs::write(&bad, src.replace("-Ndcm 1", "-Nfrobnicate 1")).unwrap();
    let o = run(&["sram", "--cacti-cfg", bad.to_str().unwrap()]);
    assert_clean_error(&o, &["bad_key.cfg:", "unknown key", "Nfrobnicate"]);

    let n16 = dir.join("node16.cfg");
    std::fs::write(
        &n16,
        src.replace("-technology (u) 0.032", "-technology (u) 0.016"),
    )
    .unwrap();
    let o = run(&["sram", "--cacti-cfg", n16.to_str().unwrap()]);
    assert_clean_error(&o, &["node16.cfg:", "Invalid technology nodes"]);

    let small = dir.join("small.cfg");
    std::fs::write(
        &small,
        src.replace("-size (bytes) 65536", "-size (bytes) 256"),
    )
    .unwrap();
    let o = run(&["sram", "--cacti-cfg", small.to_str().unwrap()]);
    assert_clean_error(&o, &["64 bytes per bank"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_flags_are_clear_errors() {
    let o = run(&[
        "sram",
        "--capacity",
        "4KB",
        "--block-bytes",
        "16",
        "--node",
        "16nm",
    ]);
    assert_clean_error(&o, &["16"]);
    // Below 22 nm only our 12 nm FinFET node exists
    for node in ["7nm", "14nm"] {
        let o = run(&[
            "sram",
            "--capacity",
            "4KB",
            "--block-bytes",
            "16",
            "--node",
            node,
        ]);
        assert_clean_error(&o, &[node.trim_end_matches("nm"), "12 nm"]);
    }
    let o = run(&[
        "sram",
        "--capacity",
        "64",
        "--block-bytes",
        "16",
        "--node",
        "40nm",
    ]);
    assert_clean_error(&o, &["rows"]);
    let o = run(&[
        "sram",
        "--capacity",
        "4QB",
        "--block-bytes",
        "16",
        "--node",
        "40nm",
    ]);
    assert_clean_error(&o, &["--capacity"]);
    let o = run(&["sram", "--block-bytes", "16", "--node", "40nm"]);
    assert_clean_error(&o, &["--capacity is required"]);
}

/// Interconnect gating saves H-tree leakage only where there is an H-tree. The 4 KB
/// register bank is one mat (no saving, as in CACTI's pg_ic/pg_none rows); the 16 KB 4-way L1D
/// and the 32 KB RAM span several mats, so gating the H-tree must lower leakage.
#[test]
fn interconnect_gating_saves_only_with_an_htree() {
    for name in [
        "pg_all_l1d16K_4w_128B_32nm",
        "pg_all_perf0.001_ram32K_b128_1RW_22nm",
    ] {
        let v = cfg_json(name);
        let g = &v["power_gating"];
        let saved = g["interconnect_gating"]["htree_saved_mw"].as_f64().unwrap();
        let printed = g["cacti_sleep_leakage_mw"].as_f64().unwrap();
        let with_ic = g["cacti_sleep_leakage_with_interconnect_mw"]
            .as_f64()
            .unwrap();
        assert!(saved > 0.0, "{name}: {saved}");
        assert!(with_ic < printed, "{name}: {with_ic} vs {printed}");
    }
}

/// Several cfg files (or a directory) in one process give, file by file, exactly
/// the single-file JSON, one object per line in input order; a bad file is an error record
/// in its place, the rest go on, and the command exits non-zero.
#[test]
fn batch_cfgs_equal_single_runs_and_keep_going_past_errors() {
    let mut names: Vec<PathBuf> = std::fs::read_dir(cfg_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cfg"))
        .collect();
    names.sort();
    let pick: Vec<PathBuf> = names.iter().step_by(97).cloned().collect();
    assert!(pick.len() >= 5);
    let bad = std::env::temp_dir().join(format!("regwatt-batch-bad-{}.cfg", std::process::id()));
    std::fs::write(&bad, "-size (bytes) 12x\n").unwrap();
    let mut args: Vec<String> = vec!["sram".into(), "--cacti-cfg".into()];
    args.extend(pick.iter().map(|p| p.display().to_string()));
    args.insert(3, bad.display().to_string());
    args.push("--json".into());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&refs);
    assert!(
        !o.status.success(),
        "a failed file makes the batch exit non-zero"
    );
    assert!(!stderr(&o).contains("panicked"));
    let lines: Vec<Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect();
    assert_eq!(lines.len(), pick.len() + 1);
    // input order: the bad file is the second record
    assert_eq!(lines[1]["file"], bad.display().to_string());
    assert!(lines[1]["error"].as_str().is_some_and(|e| !e.is_empty()));
    let good: Vec<&Value> = lines.iter().filter(|l| l.get("error").is_none()).collect();
    for (p, got) in pick.iter().zip(good) {
        let single = json_of(&run(&[
            "sram",
            "--cacti-cfg",
            &p.display().to_string(),
            "--json",
        ]));
        let mut got = got.clone();
        got.as_object_mut().unwrap().remove("file");
        assert_eq!(got, single, "{}", p.display());
    }
    let _ = std::fs::remove_file(&bad);
    // a directory: every cfg, sorted; CSV has a row per file
    let o = run(&[
        "sram",
        "--cacti-cfg",
        &cfg_dir().display().to_string(),
        "--csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = String::from_utf8_lossy(&o.stdout);
    assert_eq!(csv.lines().count(), 1 + names.len());
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .starts_with("file,access_ns,cycle_ns"));
    // the worker count changes nothing in the output
    let dir = cfg_dir().display().to_string();
    for jobs in ["1", "3"] {
        let o = run(&["sram", "--cacti-cfg", &dir, "--csv", "--jobs", jobs]);
        assert_eq!(o.stdout, csv.as_bytes(), "--csv --jobs {jobs}");
    }
    let mut json_args: Vec<String> = vec!["sram".into(), "--cacti-cfg".into()];
    json_args.extend(pick.iter().map(|p| p.display().to_string()));
    let by_jobs: Vec<Vec<u8>> = ["1", "4"]
        .iter()
        .map(|j| {
            let mut a: Vec<&str> = json_args.iter().map(String::as_str).collect();
            a.extend(["--jobs", j]);
            run(&a).stdout
        })
        .collect();
    assert_eq!(by_jobs[0], by_jobs[1], "JSON lines with --jobs 1 and 4");
}

/// A cache's text output shows its tag array with the figures the JSON's `tag` holds; a RAM's
/// has none.
#[test]
fn cache_text_output_shows_the_tag_array() {
    let args = [
        "sram",
        "--capacity",
        "16KB",
        "--block-bytes",
        "128",
        "--node",
        "40nm",
    ];
    let cache = run(&[&args[..], &["--assoc", "4"]].concat());
    assert!(cache.status.success(), "{}", stderr(&cache));
    let text = String::from_utf8_lossy(&cache.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.starts_with("tag array"))
        .unwrap_or_else(|| panic!("no tag array line:\n{text}"));
    let v = json_of(&run(&[&args[..], &["--assoc", "4", "--json"]].concat()));
    let bits = v["tag"]["tag_bits"].as_u64().expect("tag bits");
    assert!(line.contains(&format!("{bits} bits")), "{line}");
    let ram = run(&args);
    assert!(!String::from_utf8_lossy(&ram.stdout).contains("tag array"));
}
