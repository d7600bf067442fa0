//! `regwatt exec` through the binary: `--dump` of a launch spec, `--workload` with its reference
//! check, `--list` and `--json`.

use std::path::PathBuf;
use std::process::Command;

use regwatt_sim::launch::{read_npy_file, HostData};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_regwatt"))
}

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sim/testdata/exec/scale.toml")
}

#[test]
fn exec_spec_dumps_every_buffer_as_npy() {
    let dir = std::env::temp_dir().join(format!("regwatt-exec-cli-{}", std::process::id()));
    let out = bin()
        .arg("exec")
        .arg(fixture())
        .arg("--dump")
        .arg(&dir)
        .output()
        .expect("binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = read_npy_file(&dir.join("y.npy")).expect("y.npy written");
    let x = read_npy_file(&dir.join("x.npy")).expect("x.npy written");
    let (HostData::F32(y), HostData::F32(x)) = (y, x) else {
        panic!("f32 buffers expected");
    };
    assert_eq!(y.len(), 40);
    for i in 0..40 {
        let xi = 0.5 * i as f32;
        assert_eq!(x[i], xi);
        let first = 2.0f32.mul_add(xi, i as f32);
        assert_eq!(y[i], 2.0f32.mul_add(first, i as f32), "y[{i}]");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn exec_workload_checks_reference_and_prints_json() {
    let out = bin()
        .args(["exec", "--workload", "vectorAdd", "--json"])
        .output()
        .expect("binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    assert_eq!(v["check_passed"], serde_json::Value::Bool(true));
    assert!(
        v["launches"][0]["thread_instructions"]
            .as_u64()
            .unwrap_or(0)
            > 0
    );
    assert!(v["launches"][0]["warp_instructions"].as_u64().unwrap_or(0) > 0);
}

#[test]
fn exec_list_and_unknown_workload() {
    let out = bin()
        .args(["exec", "--list"])
        .output()
        .expect("binary runs");
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("matrixMul_naive") && s.contains("bfs"));
    let out = bin()
        .args(["exec", "--workload", "nope"])
        .output()
        .expect("binary runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("vectorAdd"));
}
