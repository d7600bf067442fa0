//! `regwatt run` through the binary: argument errors, JSON fields, dumps, determinism.

use std::path::PathBuf;
use std::process::{Command, Output};

fn regwatt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_regwatt"))
        .args(args)
        .output()
        .expect("regwatt runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("regwatt-h8-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn bad_gpu_design_and_node_names_give_clear_errors() {
    let o = regwatt(&["run", "--workload", "vectorAdd", "--gpu", "gtx1080"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown GPU preset `gtx1080`"),
        "{}",
        stderr(&o)
    );
    let o = regwatt(&[
        "run",
        "--workload",
        "vectorAdd",
        "--gpu",
        "rtx2060",
        "--design",
        "magic",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown design `magic`"),
        "{}",
        stderr(&o)
    );
    let o = regwatt(&[
        "run",
        "--workload",
        "vectorAdd",
        "--gpu",
        "rtx2060",
        "--node",
        "7nm",
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown technology node `7nm`"),
        "{}",
        stderr(&o)
    );
    let o = regwatt(&[
        "run",
        "--workload",
        "vectorAdd",
        "--gpu",
        "rtx2060",
        "--set",
        "sm.bogus=1",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("gpu.sm.bogus"), "{}", stderr(&o));
    let o = regwatt(&["run", "--workload", "noSuchWorkload", "--gpu", "rtx2060"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("noSuchWorkload"), "{}", stderr(&o));
}

#[test]
fn json_has_the_documented_fields_and_is_deterministic() {
    let args = [
        "run",
        "--workload",
        "vectorAdd",
        "--gpu",
        "rtx2060",
        "--node",
        "12nm",
        "--set",
        "sms=4",
        "--json",
    ];
    let a = regwatt(&args);
    assert!(a.status.success(), "{}", stderr(&a));
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
    assert_eq!(v["energy"]["overhead_vs_baseline"]["energy"], 0.0);
    let b = regwatt(&args);
    assert!(b.status.success());
    assert_eq!(a.stdout, b.stdout, "two runs differ");
}

#[test]
fn dump_matches_functional_exec_and_writes_the_resolved_config() {
    let d1 = tmp("run-dump");
    let d2 = tmp("exec-dump");
    let o = regwatt(&[
        "run",
        "--workload",
        "reduction",
        "--gpu",
        "gtx480",
        "--set",
        "sms=3",
        "--dump",
        d1.to_str().expect("utf8"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("check: PASS"));
    let e = regwatt(&[
        "exec",
        "--workload",
        "reduction",
        "--dump",
        d2.to_str().expect("utf8"),
    ]);
    assert!(e.status.success(), "{}", stderr(&e));
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
    let _ = std::fs::remove_dir_all(&d1);
    let _ = std::fs::remove_dir_all(&d2);
}
