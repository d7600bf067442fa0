//! Launch specs on the executor: buffers persist across launches, argument mismatches name the
//! parameter.

use std::path::{Path, PathBuf};

use regwatt_sim::exec::{run_spec, ExecError, RunOptions};
use regwatt_sim::launch::{HostData, LaunchSpec, MemFiles};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/exec")
}

fn fixture() -> LaunchSpec {
    match LaunchSpec::load(&testdata().join("scale.toml")) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

/// A spec named `file` with one `f32` buffer `x` of `len` ones and one launch of `scale.ptx`'s
/// `scale(x, y, a, n)` kernel with `grid` and `args`.
fn scale_spec(file: &str, len: usize, grid: u32, args: &str) -> LaunchSpec {
    let ptx = std::fs::read(testdata().join("scale.ptx")).unwrap_or_default();
    let text = format!(
        "ptx = \"scale.ptx\"\n[buffers.x]\ndtype = \"f32\"\nlen = {len}\ninit = {{ kind = \"fill\", value = 1 }}\n\
[[launch]]\nkernel = \"scale\"\ngrid = [{grid}, 1, 1]\nblock = [32, 1, 1]\nargs = [{args}]\n"
    );
    let files = MemFiles::new("mem").with("scale.ptx", ptx);
    LaunchSpec::parse(file, &text, &files).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn two_launches_share_buffers() {
    let run = run_spec(&fixture(), &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let Some(HostData::F32(y)) = run.buffers.get("y") else {
        panic!("no f32 y");
    };
    for (i, v) in y.iter().enumerate() {
        let x = 0.5 * i as f32;
        let first = 2.0f32.mul_add(x, i as f32);
        let second = 2.0f32.mul_add(first, i as f32);
        assert_eq!(*v, second, "y[{i}]");
    }
    assert_eq!(run.launches.len(), 2);
    // 40 threads active of 64: 2 CTAs of one warp each
    assert_eq!(run.launches[0].ctas, 2);
    assert_eq!(run.launches[0].warps, 2);
    assert!(run.launches[0].thread_instructions > 0);
}

#[test]
fn argument_mismatch_names_the_parameter() {
    let spec = scale_spec("bad.toml", 4, 1, "\"x\", \"x\", 2.0, \"x\"");
    let err = run_spec(&spec, &RunOptions::default()).err();
    assert!(matches!(err, Some(ExecError::Spec(_))), "{err:?}");
    let msg = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(msg.contains("(n: .u32)") || msg.contains("n:"), "{msg}");
    assert!(msg.contains("bad.toml"), "{msg}");

    let spec = scale_spec("bad2.toml", 4, 1, "\"x\", \"x\", 2.0");
    let msg = run_spec(&spec, &RunOptions::default())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        msg.contains("missing argument") && msg.contains("n"),
        "{msg}"
    );
}

#[test]
fn out_of_bounds_in_a_spec_names_the_thread() {
    // n = 64 but the buffers hold 40 elements: thread 40 (ctaid 1, tid 8) faults
    let spec = scale_spec("oob.toml", 40, 2, "\"x\", \"x\", 2.0, 64");
    let msg = run_spec(&spec, &RunOptions::default())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(msg.contains("kernel scale"), "{msg}");
    assert!(msg.contains("ctaid (1, 0, 0) tid (8, 0, 0)"), "{msg}");
    assert!(msg.contains("scale.ptx:"), "{msg}");
}
