//! `regwatt exec` through the binary: `--dump` of a launch spec, `--workload` with its reference
//! check, `--list` and `--json`.

use std::path::PathBuf;

use regwatt_sim::launch::{read_npy_file, HostData};

use crate::common;
use common::{assert_fails, assert_success, regwatt};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sim/testdata/exec/scale.toml")
}

#[test]
fn exec_spec_dumps_every_buffer_as_npy() {
    let dir = common::tmp_dir("exec_cli", "dump");
    let (spec, dump) = (fixture(), dir.to_string_lossy().to_string());
    let out = regwatt(&["exec", &spec.to_string_lossy(), "--dump", &dump]);
    assert_success(&out, "regwatt exec scale.toml");
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
}

#[test]
fn exec_workload_checks_reference_and_prints_json() {
    let out = regwatt(&["exec", "--size", "ci", "--workload", "vectorAdd", "--json"]);
    assert_success(&out, "regwatt exec --workload vectorAdd");
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
    let out = regwatt(&["exec", "--list"]);
    assert_success(&out, "regwatt exec --list");
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("matrixMul_naive") && s.contains("bfs"));
    let err = assert_fails(
        &regwatt(&["exec", "--size", "ci", "--workload", "nope"]),
        "unknown workload",
    );
    assert!(err.contains("vectorAdd"), "{err}");
}

/// `regwatt ptx` on invalid PTX (an empty file, a wrong operand) fails with the
/// file, line, column and rule instead of printing a table. (A valid module without kernels
/// is reported with zero kernels, issue 4; a launch of a kernel from it is an error.)
#[test]
fn regwatt_ptx_rejects_invalid_ptx() {
    let dir = common::tmp_dir("exec_cli", "refused_inputs");
    let cases = [
        ("empty.ptx", String::new(), "empty.ptx:1:1: version"),
        (
            "operands.ptx",
            ".version 8.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\
             .reg .f32 %f<4>;\nadd.f32 %f3, %f2;\nret;\n}\n"
                .to_string(),
            "operands.ptx:7:1: operand-count",
        ),
    ];
    for (name, src, want) in cases {
        let p = dir.join(name);
        std::fs::write(&p, src).unwrap();
        let path = p.display().to_string();
        let err = assert_fails(&regwatt(&["ptx", &path]), name);
        assert!(err.contains(want), "{name}: {err}");
    }
}
