//! `regwatt run` through the binary: argument errors, JSON fields, dumps, determinism.

use crate::common;
use common::{assert_fails, assert_success, regwatt, text};

/// `regwatt run --workload vectorAdd --gpu rtx2060` followed by `extra`.
fn vector_add(extra: &[&'static str]) -> Vec<&'static str> {
    common::ci_run_args("vectorAdd", "rtx2060", extra)
}

/// `regwatt ARGS` fails with an error containing `needle`.
fn fails_with(args: &[&str], needle: &str) {
    let o = regwatt(args);
    let err = assert_fails(&o, &format!("{args:?}"));
    assert!(
        err.contains(needle),
        "{args:?}: error lacks {needle:?}:\n{}",
        text(&o)
    );
}

/// `--max-cycles` (shared by `run` and `report`) takes 1..=2^40, the range the timing
/// core's event keys hold.
#[test]
fn max_cycles_outside_its_range_is_refused() {
    for args in [
        vector_add(&["--max-cycles", "1099511627777"]),
        vec!["report", "--size", "ci", "--max-cycles", "0"],
    ] {
        fails_with(&args, "is not in 1..=1099511627776");
    }
}

#[test]
fn bad_gpu_design_and_node_names_give_clear_errors() {
    fails_with(
        &[
            "run",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--gpu",
            "gtx1080",
        ],
        "unknown GPU preset `gtx1080`",
    );
    fails_with(
        &vector_add(&["--design", "magic"]),
        "unknown design `magic`",
    );
    fails_with(
        &vector_add(&["--node", "7nm"]),
        "unknown technology node `7nm`",
    );
    fails_with(&vector_add(&["--set", "sm.bogus=1"]), "gpu.sm.bogus");
    fails_with(
        &[
            "run",
            "--size",
            "ci",
            "--workload",
            "noSuchWorkload",
            "--gpu",
            "rtx2060",
        ],
        "noSuchWorkload",
    );
}

#[test]
fn json_has_the_documented_fields_and_is_deterministic() {
    let args = vector_add(&["--node", "12nm", "--set", "sms=4", "--json"]);
    let a = regwatt(&args);
    assert_success(&a, "regwatt run --json");
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).expect("json");
    for k in [
        "cycles",
        "warp_instructions",
        "ipc",
        "energy",
        "area",
        "config",
        "activity",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert!(v["cycles"].as_u64().unwrap_or(0) > 0);
    assert!(v["warp_instructions"].as_u64().unwrap_or(0) > 0);
    assert_eq!(v["output_check"], serde_json::Value::Bool(true));
    assert_eq!(v["config"]["gpu"]["sms"], 4);
    assert_eq!(v["config"]["power"]["node"], "12nm");
    assert!(v["energy"]["components"].as_array().map_or(0, Vec::len) >= 4);
    assert_eq!(v["energy"]["overhead_vs_baseline"]["energy_frac"], 0.0);
    // every node names where its technology data come from (12 nm: regwatt's FinFET file)
    let src = v["energy"]["node_source"].as_str().unwrap_or("");
    assert!(src.contains("FinFET"), "energy.node_source: {src:?}");
    let t = regwatt(&vector_add(&["--node", "40nm", "--set", "sms=4"]));
    assert_success(&t, "regwatt run --node 40nm");
    let text = String::from_utf8_lossy(&t.stdout);
    assert!(
        text.contains("node 40nm: interpolated between 45 nm and 32 nm"),
        "{text}"
    );
    let b = regwatt(&args);
    assert!(b.status.success());
    assert_eq!(a.stdout, b.stdout, "two runs differ");
}

/// A design's run simulates its baseline reference beside it: the overheads it reports are
/// those of a separate baseline run, the output is the same every time, and stderr gives both
/// simulations' host times.
#[test]
fn design_overheads_come_from_the_baseline_simulated_beside_it() {
    let design = vector_add(&["--design", "renaming", "--set", "sms=4", "--json"]);
    let a = regwatt(&design);
    assert_success(&a, "regwatt run --design renaming");
    let err = String::from_utf8_lossy(&a.stderr);
    assert!(
        err.contains("simulated ") && err.contains("baseline reference"),
        "{err}"
    );
    let b = regwatt(&design);
    assert_eq!(a.stdout, b.stdout, "two runs differ");
    let base = regwatt(&vector_add(&[
        "--design", "baseline", "--set", "sms=4", "--json",
    ]));
    assert_success(&base, "regwatt run --design baseline");
    let (d, r): (serde_json::Value, serde_json::Value) = (
        serde_json::from_slice(&a.stdout).expect("json"),
        serde_json::from_slice(&base.stdout).expect("json"),
    );
    let total = |v: &serde_json::Value| v["energy"]["total_j"].as_f64().expect("total_j");
    let want = total(&d) / total(&r) - 1.0;
    let got = d["energy"]["overhead_vs_baseline"]["energy_frac"]
        .as_f64()
        .expect("energy_frac");
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1.0),
        "{got} vs {want}"
    );
    assert!(!String::from_utf8_lossy(&base.stderr).contains("baseline reference"));
}

#[test]
fn dump_matches_functional_exec_and_writes_the_resolved_config() {
    let d1 = common::tmp_dir("run_cli", "run-dump");
    let d2 = common::tmp_dir("run_cli", "exec-dump");
    let o = regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "reduction",
        "--gpu",
        "gtx480",
        "--set",
        "sms=3",
        "--dump",
        d1.to_str().expect("utf8"),
    ]);
    assert_success(&o, "regwatt run --dump");
    assert!(String::from_utf8_lossy(&o.stdout).contains("check: PASS"));
    let e = regwatt(&[
        "exec",
        "--size",
        "ci",
        "--workload",
        "reduction",
        "--dump",
        d2.to_str().expect("utf8"),
    ]);
    assert_success(&e, "regwatt exec --dump");
    let mut n = 0;
    for entry in std::fs::read_dir(&d2).expect("exec dump") {
        let p = entry.expect("entry").path();
        if p.extension().is_some_and(|x| x == "npy") {
            let name = p.file_name().expect("name");
            let a = std::fs::read(&p).expect("exec npy");
            let b = std::fs::read(d1.join(name)).expect("run npy");
            assert_eq!(a, b, "{name:?} differs between run and exec");
            n += 1;
        }
    }
    assert!(n > 0);
    let cfg = std::fs::read_to_string(d1.join("resolved_config.toml")).expect("config");
    assert!(cfg.contains("sms = 3"), "{cfg}");
}

/// Issue 5 regression: `regwatt run ... | head` panicked in `println!` when the reader closed
/// the pipe first. The reader here closes it before the simulation ends.
#[test]
fn run_into_a_closed_pipe_does_not_panic() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_regwatt"))
        .args(vector_add(&["--json"]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start regwatt");
    drop(child.stdout.take());
    let o = child.wait_with_output().expect("regwatt did not finish");
    common::no_panic(&o);
    assert!(o.status.success(), "{}", text(&o));
}
