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

/// A 1-D convolution whose nine taps are a `__constant__` array (`sim/testdata/exec/conv_taps.cu`):
/// set through `[constants.taps]`, `exec` and `run` (the timing model) compute the convolution;
/// without the table they warn, naming the array, and the kernel reads zeros as a CUDA program
/// without `cudaMemcpyToSymbol` would; `--strict` refuses; `spec new` offers the table.
#[test]
fn constant_arrays_set_by_the_spec_reach_the_kernel() {
    let dir = common::tmp_dir("exec_cli", "constants");
    let ptx = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sim/testdata/exec/conv_taps.ptx");
    let n = 300usize;
    let spec = |constants: &str| {
        format!(
            "ptx = {:?}\n[buffers.input]\ndtype = \"f32\"\nlen = {n}\ninit = {{ kind = \"iota\", start = 1.0, step = 0.5 }}\n\
             [buffers.output]\ndtype = \"f32\"\nlen = {n}\ninit = {{ kind = \"fill\", value = 7.0 }}\n{constants}\n\
             [[launch]]\nkernel = \"conv_taps\"\ngrid = [3, 1, 1]\nblock = [128, 1, 1]\nargs = [\"input\", \"output\", {n}]\n",
            ptx.to_string_lossy()
        )
    };
    let set = dir.join("set.toml");
    std::fs::write(
        &set,
        spec("[constants.taps]\ndtype = \"f32\"\nlen = 9\ninit = { kind = \"iota\", start = -2.0, step = 0.5 }"),
    )
    .expect("spec");
    let unset = dir.join("unset.toml");
    std::fs::write(&unset, spec("")).expect("spec");

    // the reference, in the kernel's order of accumulation
    let input: Vec<f32> = (0..n).map(|i| 1.0 + 0.5 * i as f32).collect();
    let taps: Vec<f32> = (0..9).map(|k| -2.0 + 0.5 * k as f32).collect();
    let want: Vec<f32> = (0..n as i64)
        .map(|i| {
            (-4i64..=4)
                .filter(|k| (0..n as i64).contains(&(i + k)))
                .fold(0.0f32, |s, k| {
                    s + taps[(k + 4) as usize] * input[(i + k) as usize]
                })
        })
        .collect();
    let output = |d: &std::path::Path| match read_npy_file(&d.join("output.npy")) {
        Ok(HostData::F32(v)) => v,
        other => panic!("output.npy: {other:?}"),
    };

    let dump = dir.join("set_exec");
    let out = regwatt(&[
        "exec",
        &set.to_string_lossy(),
        "--dump",
        &dump.to_string_lossy(),
    ]);
    assert_success(&out, "exec with [constants.taps]");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("warning"),
        "{}",
        common::text(&out)
    );
    assert_eq!(output(&dump), want);
    let timed = dir.join("set_run");
    let out = regwatt(&[
        "run",
        &set.to_string_lossy(),
        "--gpu",
        "gtx480",
        "--dump",
        &timed.to_string_lossy(),
    ]);
    assert_success(&out, "run with [constants.taps]");
    assert_eq!(output(&timed), want);

    let dump = dir.join("unset_exec");
    let out = regwatt(&[
        "exec",
        &unset.to_string_lossy(),
        "--dump",
        &dump.to_string_lossy(),
    ]);
    assert_success(&out, "exec without [constants.taps]");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: ")
            && err.contains("read __constant__ taps of ")
            && err.contains("[constants.taps]"),
        "{err}"
    );
    assert!(
        output(&dump).iter().all(|&v| v == 0.0),
        "zeros without the taps"
    );
    let err = assert_fails(
        &regwatt(&["exec", &unset.to_string_lossy(), "--strict"]),
        "exec --strict without [constants.taps]",
    );
    assert!(
        err.contains("read __constant__ taps") && err.contains("(--strict)"),
        "{err}"
    );
    let err = assert_fails(
        &regwatt(&[
            "run",
            &unset.to_string_lossy(),
            "--gpu",
            "gtx480",
            "--strict",
        ]),
        "run --strict without [constants.taps]",
    );
    assert!(err.contains("read __constant__ taps"), "{err}");

    let template = dir.join("template.toml");
    let out = regwatt(&[
        "spec",
        "new",
        &ptx.to_string_lossy(),
        "--out",
        &template.to_string_lossy(),
    ]);
    assert_success(&out, "spec new conv_taps.ptx");
    let t = std::fs::read_to_string(&template).expect("template");
    assert!(
        t.contains("# [constants.taps]\n# dtype = \"f32\"\n# len = 9\n"),
        "{t}"
    );
}
