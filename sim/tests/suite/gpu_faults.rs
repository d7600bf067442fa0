//! Faults a GPU raises, raised here too, by the functional executor (`exec::run_spec`) and by
//! the timing model running the same kernel (`timing::run_spec_timed`, rtx2060 and gtx480
//! presets) with the same fault, line and CTA: misaligned vector accesses, barrier deadlocks and barrier
//! operands out of range, and blocks a kernel's `.maxntid`/`.reqntid` exclude. Each message
//! names the PTX file and line, and (for faults while running) the CTA and the warp. Correct
//! programs that use named barriers, `bar.arrive` and aligned vectors run, and the timed run's
//! buffers equal the functional run's.

use crate::support;

use regwatt_sim::exec::{run_spec, RunOptions as ExecOptions};
use regwatt_sim::launch::{HostData, LaunchSpec, MemFiles};
use regwatt_sim::timing::{run_spec_timed, GpuConfig, RunOptions};
use support::FlatRf;

const HEAD: &str = ".version 8.8\n.target sm_75\n.address_size 64\n\n";

/// A kernel `k(.param .u64 out, .param .u32 n)` whose body starts on line [`BODY`] with `%r1` =
/// `%tid.x`, `%rd2` = the global address of `out` and `%r2` = `n`; the body's own lines follow.
fn kernel(directives: &str, body: &str) -> String {
    format!(
        "{HEAD}.visible .entry k(.param .u64 out, .param .u32 n)\n{directives}\n{{\n\
         .reg .pred %p<4>;\n.reg .f32 %f<8>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n\
         .shared .align 16 .b8 sh[1024];\n.local .align 16 .b8 stk[64];\n\
         mov.u32 %r1, %tid.x;\nld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n\
         ld.param.u32 %r2, [n];\n{body}\nret;\n}}\n"
    )
}

/// The body's first line (see [`kernel`]).
const BODY: u32 = 18;

/// A spec launching `k` on `grid` CTAs of `block` threads with `n`, and a 4 KiB u32 buffer.
fn spec(src: &str, grid: u32, block: [u32; 3], n: u32) -> LaunchSpec {
    let text = format!(
        "ptx = \"k.ptx\"\n[buffers.out]\ndtype = \"u32\"\nlen = 1024\n\
         init = {{ kind = \"fill\", value = 0 }}\n[[launch]]\nkernel = \"k\"\n\
         grid = [{grid}, 1, 1]\nblock = [{}, {}, {}]\nargs = [\"out\", {n}]\n",
        block[0], block[1], block[2]
    );
    let files = MemFiles::new("builtin:faults").with("k.ptx", src.as_bytes().to_vec());
    LaunchSpec::parse("k.toml", &text, &files).unwrap_or_else(|e| panic!("{e}"))
}

fn presets() -> [(&'static str, GpuConfig); 2] {
    [
        ("rtx2060", GpuConfig::rtx2060_like().expect("preset")),
        ("gtx480", GpuConfig::gtx480_like().expect("preset")),
    ]
}

/// Fails unless the functional run fails with every one of `common` and `exec_only` in its
/// message, and the timed runs on both presets fail with `common` in theirs and name a CTA and
/// a warp. (Which warp meets a fault first, or arrives last at a barrier, depends on the
/// schedule, which differs between the executor's round robin and the timing model.)
fn faults(s: &LaunchSpec, common: &[&str], exec_only: &[&str]) {
    let e = match run_spec(s, &ExecOptions::default()) {
        Ok(_) => panic!("functional run accepted, expected {common:?}"),
        Err(e) => e.to_string(),
    };
    for n in common.iter().chain(exec_only) {
        assert!(e.contains(n), "`{n}` missing from: {e}");
    }
    for (name, cfg) in presets() {
        match run_spec_timed(s, &cfg, |_| FlatRf::new(&cfg), &RunOptions::default()) {
            Ok(_) => panic!("{name}: timed run accepted, expected: {e}"),
            Err(t) => {
                let t = t.to_string();
                for n in common.iter().chain(&["ctaid (", "warp "]) {
                    assert!(t.contains(n), "{name}: `{n}` missing from: {t}");
                }
            }
        }
    }
}

/// [`faults`] for a launch refused before any CTA runs (no CTA or warp to name).
fn faults_at_launch(s: &LaunchSpec, needles: &[&str]) {
    let e = match run_spec(s, &ExecOptions::default()) {
        Ok(_) => panic!("functional run accepted, expected {needles:?}"),
        Err(e) => e.to_string(),
    };
    for (name, cfg) in presets() {
        match run_spec_timed(s, &cfg, |_| FlatRf::new(&cfg), &RunOptions::default()) {
            Ok(_) => panic!("{name}: timed run accepted, expected: {e}"),
            Err(t) => assert!(t.to_string().contains(&e), "{name}: `{t}` is not `{e}`"),
        }
    }
    for n in needles {
        assert!(e.contains(n), "`{n}` missing from: {e}");
    }
}

/// Fails unless the functional and both timed runs succeed with the same buffers; returns them.
fn runs(s: &LaunchSpec) -> Vec<u32> {
    let want = run_spec(s, &ExecOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    for (name, cfg) in presets() {
        let got = run_spec_timed(s, &cfg, |_| FlatRf::new(&cfg), &RunOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.buffers, want.buffers, "{name}: timed buffers differ");
        assert_eq!(got.launches[0].core.uncollected_reads, 0, "{name}");
    }
    match want.buffers.get("out") {
        Some(HostData::U32(v)) => v.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn misaligned_vector_accesses_fault_in_every_state_space() {
    let line = |k: u32| format!("k.ptx:{}:", BODY + k);
    // global: a .v4.f32 4 bytes past a 16-byte boundary; a .v2.u64 8 bytes past one
    let s = spec(
        &kernel("", "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2+4];"),
        1,
        [64, 1, 1],
        0,
    );
    faults(
        &s,
        &[&line(0), "misaligned global access of 16 bytes"],
        &["ctaid (0, 0, 0) tid (0, 0, 0) warp 0"],
    );
    let s = spec(
        &kernel(
            "",
            "mov.u64 %rd3, 0;\nst.global.v2.u64 [%rd2+8], {%rd3, %rd3};",
        ),
        1,
        [64, 1, 1],
        0,
    );
    faults(
        &s,
        &[&line(1), "misaligned global access of 16 bytes"],
        &["warp 0"],
    );
    // each thread's own 8 bytes, but vectors at +4 in the second warp only: lane 0 of warp 1
    let body = "shl.b32 %r3, %r1, 3;\nsetp.ge.u32 %p1, %r1, 32;\nselp.b32 %r4, 4, 0, %p1;\n\
                add.s32 %r3, %r3, %r4;\nmov.u32 %r5, sh;\nadd.s32 %r5, %r5, %r3;\n\
                ld.shared.v2.f32 {%f1, %f2}, [%r5];";
    let s = spec(&kernel("", body), 2, [64, 1, 1], 0);
    faults(
        &s,
        &[
            &line(6),
            "tid (32, 0, 0) warp 1",
            "misaligned shared access of 8 bytes at 0x104",
        ],
        &["ctaid (0, 0, 0)"],
    );
    let s = spec(
        &kernel(
            "",
            "mov.u64 %rd3, stk;\nld.local.v4.u32 {%r3, %r4, %r5, %r6}, [%rd3+8];",
        ),
        1,
        [32, 1, 1],
        0,
    );
    faults(
        &s,
        &[&line(1), "misaligned local access of 16 bytes at 0x8"],
        &[],
    );
    // generic addresses: the space they fall in
    let s = spec(
        &kernel("", "ld.v2.u32 {%r3, %r4}, [%rd1+4];"),
        1,
        [32, 1, 1],
        0,
    );
    faults(&s, &[&line(0), "misaligned global access of 8 bytes"], &[]);
    // the same accesses aligned run, in every space
    let body = "mul.wide.u32 %rd3, %r1, 16;\nadd.s64 %rd4, %rd2, %rd3;\n\
                ld.global.v4.u32 {%r3, %r4, %r5, %r6}, [%rd4];\nadd.s32 %r3, %r3, %r1;\n\
                mov.u64 %rd5, stk;\nst.local.v4.u32 [%rd5+16], {%r3, %r4, %r5, %r6};\n\
                ld.local.v2.u32 {%r7, %r8}, [%rd5+16];\nmov.u32 %r9, sh;\nshl.b32 %r10, %r1, 3;\n\
                add.s32 %r9, %r9, %r10;\nst.shared.v2.u32 [%r9], {%r7, %r8};\n\
                ld.shared.v2.u32 {%r11, %r12}, [%r9];\nst.global.v2.u32 [%rd4+8], {%r11, %r12};";
    let out = runs(&spec(&kernel("", body), 1, [64, 1, 1], 0));
    for t in 0..64usize {
        assert_eq!(out[4 * t + 2], t as u32, "thread {t}");
    }
}

#[test]
fn warps_waiting_at_different_barriers_forever_are_a_deadlock() {
    // warps 0, 1 at barrier 0 (line +5), warps 2, 3 at barrier 1 (line +2): none can proceed
    let body = "setp.lt.u32 %p1, %r1, 64;\n@%p1 bra LOW;\nbar.sync 1;\nbra.uni END;\nLOW:\n\
                bar.sync 0;\nEND:";
    let s = spec(&kernel("", body), 2, [128, 1, 1], 0);
    let l0 = BODY + 5;
    let l1 = BODY + 2;
    faults(
        &s,
        &[
            "barrier deadlock: every live warp waits at a barrier that cannot complete",
            &format!("barrier 0 (line {l0}): warps 0, 1 wait"),
            &format!("barrier 1 (line {l1}): warps 2, 3 wait"),
        ],
        &[&format!(
            "k.ptx:{l1}: kernel k, ctaid (0, 0, 0), warp 3: barrier deadlock"
        )],
    );
    // a counted barrier the exited warps can no longer fill
    let body = "setp.ge.u32 %p1, %r1, 64;\n@%p1 bra END;\nbar.sync 2, 128;\nEND:";
    let s = spec(&kernel("", body), 1, [128, 1, 1], 0);
    faults(
        &s,
        &[
            "barrier deadlock",
            &format!(
                "barrier 2 (line {}): warps 0, 1 wait, 2 of the 4 warps",
                BODY + 2
            ),
        ],
        &["ctaid (0, 0, 0), warp 3: barrier deadlock: warp 3 exited"],
    );
}

#[test]
fn barrier_operands_out_of_range_fault() {
    // the expected thread count exceeds the CTA's
    let s = spec(&kernel("", "bar.sync 0, 96;"), 1, [64, 1, 1], 0);
    faults(
        &s,
        &[
            &format!("k.ptx:{BODY}:"),
            "thread count 96 exceeds the CTA's 64 threads",
        ],
        &["ctaid (0, 0, 0) tid (0, 0, 0) warp 0"],
    );
    // run-time barrier number and count (registers): out of range, not a warp multiple,
    // different in the warp's threads
    let s = spec(&kernel("", "bar.sync %r2;"), 1, [64, 1, 1], 17);
    faults(&s, &["barrier number 17 out of range 0..15"], &["warp 0"]);
    let s = spec(&kernel("", "bar.sync 1, %r2;"), 1, [64, 1, 1], 48);
    faults(
        &s,
        &["thread count 48 is not a multiple of the warp size"],
        &[],
    );
    let s = spec(&kernel("", "bar.arrive 1, %r2;"), 1, [64, 1, 1], 0);
    faults(&s, &["a thread count of 0"], &[]);
    let s = spec(
        &kernel("", "and.b32 %r3, %r1, 1;\nbar.sync %r3;"),
        1,
        [64, 1, 1],
        0,
    );
    faults(&s, &["barrier's number differs"], &["tid (1, 0, 0) warp 0"]);
    // in range, they run
    runs(&spec(&kernel("", "bar.sync %r2;"), 1, [64, 1, 1], 15));
    runs(&spec(&kernel("", "bar.sync 1, %r2;"), 1, [64, 1, 1], 64));
}

#[test]
fn named_barriers_and_arrivals_synchronise_their_warps_only() {
    // warps 2, 3 produce into shared memory and `bar.arrive` at barrier 1; warps 0, 1 wait
    // there for all four and read what the producers wrote; meanwhile warps 2, 3 meet at
    // barrier 2 (two warps) and warps 0, 1 at barrier 3 (two warps)
    let body = "mov.u32 %r3, sh;\nsetp.lt.u32 %p1, %r1, 64;\n@%p1 bra CONS;\n\
                and.b32 %r4, %r1, 63;\nshl.b32 %r4, %r4, 2;\nadd.s32 %r4, %r3, %r4;\n\
                mul.lo.u32 %r5, %r1, 3;\nst.shared.u32 [%r4], %r5;\nbar.arrive 1, 128;\n\
                bar.sync 2, 64;\nmov.u32 %r6, 7;\nbra.uni DONE;\nCONS:\nbar.sync 1, 128;\n\
                shl.b32 %r4, %r1, 2;\nadd.s32 %r4, %r3, %r4;\nld.shared.u32 %r6, [%r4];\n\
                bar.sync 3, 64;\nDONE:\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
                st.global.u32 [%rd4], %r6;";
    let out = runs(&spec(&kernel("", body), 3, [128, 1, 1], 0));
    for t in 0..128u32 {
        let want = if t < 64 { (t + 64) * 3 } else { 7 };
        assert_eq!(out[t as usize], want, "thread {t}");
    }
    // `bar.red` reduces per barrier: warps 0, 1 count at barrier 1, warps 2, 3 at barrier 2
    let body = "setp.lt.u32 %p1, %r1, 64;\nand.b32 %r3, %r1, 1;\nsetp.eq.u32 %p2, %r3, 1;\n\
                @%p1 bra LOW;\nbar.red.popc.u32 %r6, 2, 64, %p2;\nbra.uni DONE;\nLOW:\n\
                setp.lt.u32 %p3, %r1, 5;\nbar.red.popc.u32 %r6, 1, 64, %p3;\nDONE:\n\
                mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd2, %rd3;\nst.global.u32 [%rd4], %r6;";
    let out = runs(&spec(&kernel("", body), 1, [128, 1, 1], 0));
    for (t, &v) in out.iter().enumerate().take(128) {
        assert_eq!(v, if t < 64 { 5 } else { 32 }, "thread {t}");
    }
}

#[test]
fn blocks_beyond_the_kernels_launch_bounds_are_refused() {
    let line = 6; // the directive's line
    let s = spec(
        &kernel(".maxntid 64, 1, 1", "bar.sync 0;"),
        1,
        [128, 1, 1],
        0,
    );
    faults_at_launch(
        &s,
        &[
            &format!("k.ptx:{line}: kernel k: block (128, 1, 1) has 128 threads"),
            ".maxntid 64, 1, 1",
        ],
    );
    // a 2D block within the total runs
    runs(&spec(
        &kernel(".maxntid 64, 1, 1", "bar.sync 0;"),
        1,
        [8, 8, 1],
        0,
    ));
    let s = spec(
        &kernel(".reqntid 32, 2, 1", "bar.sync 0;"),
        1,
        [64, 1, 1],
        0,
    );
    faults_at_launch(
        &s,
        &[
            &format!("k.ptx:{line}: kernel k: block (64, 1, 1) differs from"),
            ".reqntid 32, 2, 1",
        ],
    );
    runs(&spec(
        &kernel(".reqntid 32, 2, 1", "bar.sync 0;"),
        1,
        [32, 2, 1],
        0,
    ));
}
