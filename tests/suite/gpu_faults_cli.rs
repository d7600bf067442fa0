//! The faults a GPU raises (misaligned vector accesses, barrier deadlocks, barrier operands
//! out of range, blocks beyond `.maxntid`) through the `regwatt` binary: `regwatt exec` and
//! `regwatt run --gpu rtx2060|gtx480` exit with status 1 and an error naming the PTX line (and
//! the CTA and warp for faults while running), without a panic. The executor's and timing
//! model's own tests are in `sim/tests/suite/gpu_faults.rs`.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::{assert_fails, text, tmp_dir};

const PTX: &str = ".version 8.8\n.target sm_75\n.address_size 64\n\n\
.visible .entry vec4(.param .u64 out, .param .u32 n)\n{\n\
.reg .f32 %f<5>;\n.reg .b64 %rd<4>;\n\
ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n\
ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2+4];\nst.global.f32 [%rd2], %f1;\nret;\n}\n\n\
.visible .entry split(.param .u64 out, .param .u32 n)\n{\n\
.reg .pred %p<2>;\n.reg .b32 %r<4>;\n\
mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 64;\n@%p1 bra LOW;\nbar.sync 1;\nbra.uni END;\n\
LOW:\nbar.sync 0;\nEND:\nret;\n}\n\n\
.visible .entry over(.param .u64 out, .param .u32 n)\n{\n\
bar.sync 0, 96;\nret;\n}\n\n\
.visible .entry regid(.param .u64 out, .param .u32 n)\n{\n\
.reg .b32 %r<4>;\n\
ld.param.u32 %r1, [n];\nbar.sync %r1;\nret;\n}\n\n\
.visible .entry bounded(.param .u64 out, .param .u32 n)\n.maxntid 64, 1, 1\n{\n\
ret;\n}\n";

/// Writes `faults.ptx` and a spec `NAME.toml` launching `kernel` with `block` threads and `n`.
fn spec(d: &Path, name: &str, kernel: &str, block: u32, n: u32) {
    std::fs::write(d.join("faults.ptx"), PTX).expect("write ptx");
    let text = format!(
        "ptx = \"faults.ptx\"\n[buffers.out]\ndtype = \"f32\"\nlen = 256\n\
         init = {{ kind = \"fill\", value = 0 }}\n[[launch]]\nkernel = \"{kernel}\"\n\
         grid = [2, 1, 1]\nblock = [{block}, 1, 1]\nargs = [\"out\", {n}]\n"
    );
    std::fs::write(d.join(format!("{name}.toml")), text).expect("write spec");
}

fn regwatt(d: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_regwatt"))
        .args(args)
        .current_dir(d)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("cannot start regwatt")
}

/// `regwatt exec NAME.toml` and `regwatt run NAME.toml --gpu G` on both presets fail with
/// status 1 and every one of `needles` in the error.
fn refused_everywhere(d: &Path, name: &str, needles: &[&str]) {
    let file = format!("{name}.toml");
    for args in [
        vec!["exec", file.as_str()],
        vec!["run", file.as_str(), "--gpu", "rtx2060"],
        vec!["run", file.as_str(), "--gpu", "gtx480"],
    ] {
        let what = args.join(" ");
        let o = regwatt(d, &args);
        let err = assert_fails(&o, &what);
        assert_eq!(o.status.code(), Some(1), "{what}:\n{}", text(&o));
        for n in needles {
            assert!(err.contains(n), "{what}: `{n}` missing from:\n{err}");
        }
    }
}

#[test]
fn gpu_faults_fail_exec_and_run_on_both_presets() {
    let d = tmp_dir("gpu_faults_cli", "all");
    spec(&d, "vec4", "vec4", 64, 0);
    refused_everywhere(
        &d,
        "vec4",
        &[
            "faults.ptx:11:",
            "ctaid (",
            "warp ",
            "misaligned global access of 16 bytes",
        ],
    );
    spec(&d, "split", "split", 128, 0);
    refused_everywhere(
        &d,
        "split",
        &[
            "faults.ptx:",
            "ctaid (",
            "warp ",
            "barrier deadlock",
            "barrier 0 (line 26): warps 0, 1 wait",
            "barrier 1 (line 23): warps 2, 3 wait",
        ],
    );
    spec(&d, "over", "over", 64, 0);
    refused_everywhere(
        &d,
        "over",
        &[
            "faults.ptx:33:",
            "warp ",
            "thread count 96 exceeds the CTA's 64 threads",
        ],
    );
    spec(&d, "regid", "regid", 64, 17);
    refused_everywhere(
        &d,
        "regid",
        &[
            "faults.ptx:41:",
            "warp ",
            "barrier number 17 out of range 0..15",
        ],
    );
    spec(&d, "bounded", "bounded", 128, 0);
    refused_everywhere(
        &d,
        "bounded",
        &["faults.ptx:46:", "128 threads", ".maxntid 64, 1, 1"],
    );
    // in range, it runs
    spec(&d, "regok", "regid", 64, 3);
    let o = regwatt(&d, &["run", "regok.toml", "--gpu", "gtx480"]);
    assert!(o.status.success(), "{}", text(&o));
}
