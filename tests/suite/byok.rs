//! Part 4 (acceptance): the bring-your-own-kernel path through the binary. Export a
//! built-in workload (`regwatt workload export`), build a new spec for its PTX with
//! `regwatt spec new` (used as written: no edits), run it with `exec --dump`, compute the
//! expected output from the dumped inputs, and add a `[check]` table: `exec` and `run` pass,
//! fail on a perturbed expectation naming the buffer and element, and pass again within a
//! widened tolerance. The exported specs of built-in workloads pass their appended `[check]`,
//! and `workload export` / `spec new` refuse to overwrite files. (NVRTC, the first step of the
//! path, is `scripts/cu2ptx.py`; tests do not need it: the PTX comes from the export.)

use std::path::Path;

use regwatt_sim::launch::{read_npy_file, write_npy_file, HostData};

use crate::common;
use common::{assert_fails, assert_success, regwatt, text, tmp_dir};

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `regwatt exec SPEC` and `regwatt run SPEC --gpu rtx2060`: both succeed with `check: PASS`.
fn both_pass(spec: &Path, what: &str) {
    for args in [
        vec!["exec", s(spec)],
        vec!["run", s(spec), "--gpu", "rtx2060"],
    ] {
        let o = regwatt(&args);
        assert_success(&o, &format!("{what}: {args:?}"));
        let out = stdout(&o);
        assert!(
            out.contains(&format!("check: PASS ({})", s(spec))),
            "{what}: {args:?}:\n{}",
            text(&o)
        );
    }
}

/// `regwatt exec SPEC` and `regwatt run SPEC --gpu rtx2060` both fail with an error containing
/// every one of `needles`; `check: FAIL` on stdout.
fn both_fail(spec: &Path, needles: &[&str], what: &str) {
    for args in [
        vec!["exec", s(spec)],
        vec!["run", s(spec), "--gpu", "rtx2060"],
    ] {
        let o = regwatt(&args);
        let err = assert_fails(&o, &format!("{what}: {args:?}"));
        assert!(stdout(&o).contains("check: FAIL: "), "{}", text(&o));
        for n in needles {
            assert!(err.contains(n), "{what}: {args:?}: no {n:?} in\n{err}");
        }
    }
}

#[test]
fn byok_path_export_spec_new_exec_and_check() {
    let dir = tmp_dir("byok", "path");
    // 1. a starting point: the built-in vectorAdd
    let o = regwatt(&["workload", "export", "--size", "ci", "vectorAdd", s(&dir)]);
    assert_success(&o, "workload export vectorAdd");
    let ptx = dir.join("vectorAdd.ptx");
    assert!(ptx.is_file() && dir.join("vectorAdd.cu").is_file());

    // 2. a new spec for its PTX, as written by `spec new`
    let spec = dir.join("mine/mine.toml");
    let o = regwatt(&["spec", "new", s(&ptx), "--out", s(&spec)]);
    assert_success(&o, "spec new");
    let template = std::fs::read_to_string(&spec).expect("template written");
    assert!(
        template.contains("ptx = \"../vectorAdd.ptx\""),
        "{template}"
    );
    assert!(template.contains("# [check.param_2]"), "{template}");

    // 3. run it and dump the buffers; without a [check] no check is reported
    let dump = dir.join("dump");
    let o = regwatt(&["exec", s(&spec), "--dump", s(&dump)]);
    assert_success(&o, "exec the template");
    assert!(!stdout(&o).contains("check:"), "{}", text(&o));
    let o = regwatt(&["run", s(&spec), "--gpu", "rtx2060", "--json"]);
    assert_success(&o, "run the template");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["output_check"], serde_json::Value::Null);

    // 4. the expected output, computed here from the dumped inputs (an f32 add: exact)
    let read = |n: &str| match read_npy_file(&dump.join(format!("{n}.npy"))) {
        Ok(HostData::F32(v)) => v,
        other => panic!("{n}: {other:?}"),
    };
    let (a, b) = (read("param_0"), read("param_1"));
    assert_eq!(a.len(), 1024);
    let c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(read("param_2"), c, "the kernel computes c = a + b");
    let expected = spec.with_file_name("expected").join("param_2.npy");
    std::fs::create_dir_all(expected.parent().expect("dir")).expect("mkdir");
    write_npy_file(&expected, &HostData::F32(c.clone())).expect("write npy");

    // 5. the [check] table (the template's commented example, uncommented): pass
    let with_check = |tolerance: &str| {
        std::fs::write(
            &spec,
            format!("{template}\n[check.param_2]\nnpy = \"expected/param_2.npy\"\n{tolerance}"),
        )
        .expect("write spec");
    };
    with_check("");
    both_pass(&spec, "[check] of the right values");
    let o = regwatt(&["exec", s(&spec), "--json"]);
    assert_success(&o, "exec --json");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["check_passed"], serde_json::Value::Bool(true));

    // 6. one expected element off by 0.01: both fail, naming the buffer and the element
    let mut off = c.clone();
    off[100] += 0.01;
    write_npy_file(&expected, &HostData::F32(off)).expect("write npy");
    both_fail(
        &spec,
        &["buffer \"param_2\"[100]", "1 of 1024 elements differ"],
        "a perturbed element",
    );
    let o = regwatt(&["run", s(&spec), "--gpu", "rtx2060", "--json"]);
    assert_fails(&o, "run --json of a failing check");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["output_check"], serde_json::Value::Bool(false));

    // 7. a tolerance wider than the difference: pass again; narrower: fail
    with_check("abs = 0.02\n");
    both_pass(&spec, "abs = 0.02");
    with_check("abs = 0.001\nrel = 0.001\n");
    both_fail(&spec, &["buffer \"param_2\"[100]"], "abs = rel = 0.001");
}

#[test]
fn exported_builtins_pass_their_checks_and_exports_do_not_overwrite() {
    let dir = tmp_dir("byok", "export");
    for (name, tolerance) in [
        (
            "vectorAdd",
            "[check.c]\nnpy = \"expected/c.npy\"\nabs = 0.0\nrel = 0.0\n",
        ),
        (
            "BlackScholes",
            "[check.call]\nnpy = \"expected/call.npy\"\nabs = 0.0001\nrel = 0.0001\n",
        ),
    ] {
        let d = dir.join(name);
        assert_success(
            &regwatt(&["workload", "export", "--size", "ci", name, s(&d)]),
            &format!("export {name}"),
        );
        let spec = d.join(format!("{name}.toml"));
        let t = std::fs::read_to_string(&spec).expect("exported spec");
        assert!(t.contains(tolerance), "{name}:\n{t}");
        both_pass(&spec, name);
    }
    // an export never overwrites without --force
    let d = dir.join("vectorAdd");
    let o = regwatt(&["workload", "export", "--size", "ci", "vectorAdd", s(&d)]);
    let err = assert_fails(&o, "export over an export");
    assert!(
        err.contains("vectorAdd.toml exists") && err.contains("--force"),
        "{err}"
    );
    std::fs::write(d.join("expected/c.npy"), b"edited").expect("write");
    assert!(assert_fails(
        &regwatt(&["exec", s(&d.join("vectorAdd.toml"))]),
        "edited npy"
    )
    .contains("check.c.npy"));
    assert_success(
        &regwatt(&[
            "workload",
            "export",
            "--size",
            "ci",
            "vectorAdd",
            s(&d),
            "--force",
        ]),
        "export --force",
    );
    both_pass(&d.join("vectorAdd.toml"), "re-exported");
    // nor does spec new
    let out = d.join("new.toml");
    let ptx = d.join("vectorAdd.ptx");
    assert_success(
        &regwatt(&["spec", "new", s(&ptx), "--out", s(&out)]),
        "spec new",
    );
    let err = assert_fails(
        &regwatt(&["spec", "new", s(&ptx), "--out", s(&out)]),
        "spec new over a file",
    );
    assert!(
        err.contains("new.toml exists") && err.contains("--force"),
        "{err}"
    );
    // unknown workloads and kernels, and bad PTX, are errors naming them
    let err = assert_fails(&regwatt(&["workload", "export", "nope", s(&d)]), "nope");
    assert!(
        err.contains("\"nope\"") && err.contains("vectorAdd"),
        "{err}"
    );
    let err = assert_fails(
        &regwatt(&["spec", "new", s(&ptx), "--kernel", "nope"]),
        "--kernel nope",
    );
    assert!(
        err.contains("no kernel \"nope\" (kernels: vectorAdd)"),
        "{err}"
    );
    let bad = d.join("bad.ptx");
    std::fs::write(
        &bad,
        ".version 8.8\n.target sm_75\n.address_size 64\nbogus;\n",
    )
    .expect("write");
    let err = assert_fails(&regwatt(&["spec", "new", s(&bad)]), "bad PTX");
    assert!(err.contains("bad.ptx:4:"), "{err}");
    // the list of workloads
    let o = regwatt(&["workload", "list"]);
    assert_success(&o, "workload list");
    assert!(stdout(&o).contains("BlackScholes"));
}
