//! Timed runs of real workloads through the functional executor (`exec`): the timed run's
//! buffers equal the functional run's, and the activity is plausible and deterministic.

use crate::support;

use std::path::PathBuf;

use regwatt_sim::exec::{run_spec, RunOptions as ExecOptions};
use regwatt_sim::launch::LaunchSpec;
use regwatt_sim::timing::{run_spec_timed, GpuConfig, RunOptions};
use support::FlatRf;

fn spec(name: &str) -> LaunchSpec {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../workloads")
        .join(name)
        .join(format!("{name}.toml"));
    LaunchSpec::load(&p).expect("spec loads")
}

fn check(name: &str) {
    let s = spec(name);
    let cfg = GpuConfig::rtx2060_like().expect("preset");
    let want = run_spec(&s, &ExecOptions::default()).expect("functional run");
    let got =
        run_spec_timed(&s, &cfg, |_| FlatRf::new(&cfg), &RunOptions::default()).expect("timed run");
    assert_eq!(got.buffers, want.buffers, "{name}: timed buffers differ");
    let a = &got.launches[0];
    assert_eq!(a.core.warp_instructions, want.launches[0].warp_instructions);
    assert_eq!(
        a.core.thread_instructions,
        want.launches[0].thread_instructions
    );
    assert_eq!(a.core.uncollected_reads, 0);
    assert!(a.cycles > 0);
    eprintln!(
        "{name}: {} cycles, {} warp instructions, IPC {:.2}, stalls {:?}",
        a.cycles,
        a.core.warp_instructions,
        a.core.warp_instructions as f64 / a.cycles as f64,
        a.core.stalls
    );
}

#[test]
fn vector_add_timed_equals_functional() {
    check("vectorAdd");
}

#[test]
fn matrix_mul_naive_timed_equals_functional() {
    check("matrixMul_naive");
}

#[test]
fn timed_workload_runs_are_deterministic() {
    let s = spec("vectorAdd");
    let cfg = GpuConfig::rtx2060_like().expect("preset");
    let run = || {
        let r = run_spec_timed(&s, &cfg, |_| FlatRf::new(&cfg), &RunOptions::default())
            .expect("timed run");
        toml::to_string(&r.launches[0]).expect("serialise")
    };
    assert_eq!(run(), run());
}

/// On rtx2060 (63 uniform registers) the timed run holds warp-uniform values in the
/// executor's uniform file and still gives the functional run's buffers (which the functional
/// executor computes without a uniform file); the accesses are counted apart from the register
/// file and serialised only when there are any (gtx480 has no uniform file: none, no key).
#[test]
fn uniform_registers_on_rtx2060_only() {
    let s = spec("reduction");
    let want = run_spec(&s, &ExecOptions::default()).expect("functional run");
    for (cfg, uniform) in [
        (GpuConfig::rtx2060_like().expect("preset"), true),
        (GpuConfig::gtx480_like().expect("preset"), false),
    ] {
        let got = run_spec_timed(&s, &cfg, |_| FlatRf::new(&cfg), &RunOptions::default())
            .expect("timed run");
        assert_eq!(
            got.buffers, want.buffers,
            "{}: timed buffers differ",
            cfg.name
        );
        let a = &got.launches[0];
        assert_eq!(a.core.uncollected_reads, 0);
        let json = toml::to_string(a).expect("serialise");
        if uniform {
            assert!(
                a.core.uniform_reads > 0 && a.core.uniform_writes > 0,
                "{}",
                cfg.name
            );
            assert!(json.contains("uniform_reads"));
        } else {
            assert_eq!((a.core.uniform_reads, a.core.uniform_writes), (0, 0));
            assert!(!json.contains("uniform_reads"), "gtx480 JSON unchanged");
        }
    }
}
