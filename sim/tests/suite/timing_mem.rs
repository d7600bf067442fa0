//! The memory hierarchy on real workloads (rtx2060 preset, baseline RF).
//!
//! The acceptance target is Accel-Sim's `gpu_sim_cycle` within ±25 %. Accel-Sim cannot run
//! here; the reference values are the back-of-envelope estimates of its model derived in the
//! top-level README ("Timing model vs Accel-Sim (rtx2060)"): vectorAdd ≈ 5 730 cycles,
//! matrixMul_naive ≈ 36 000 cycles.

use crate::support;

use std::path::PathBuf;

use regwatt_sim::launch::LaunchSpec;
use regwatt_sim::timing::activity::Activity;
use regwatt_sim::timing::rf::NoStats;
use regwatt_sim::timing::{run_spec_timed, GpuConfig, RunOptions};
use support::FlatRf;

/// Times launch 0 of a workload with the baseline-equivalent RF of the test support.
fn timed(name: &str, cfg: &GpuConfig) -> Activity<NoStats> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../workloads")
        .join(name)
        .join(format!("{name}.toml"));
    let spec = LaunchSpec::load(&p).expect("spec loads");
    let mut r = run_spec_timed(&spec, cfg, |_| FlatRf::new(cfg), &RunOptions::default())
        .expect("timed run");
    r.launches.remove(0)
}

/// The kernels' own cycles (the 5000-cycle launch latency, checked exactly below,
/// taken out) against GPGPU-Sim 4.2 on the same PTX and inputs
/// (`calibrations/gpgpusim-suite/cycles.csv`: vectorAdd 6131 − 5000 = 1131, matrixMul_naive
/// 39383 − 5000 = 34383 cycles). Measured: vectorAdd 857 (−24 %), matrixMul_naive 33689
/// (−2 %). Bounds: 30 % for the 1000-cycle kernel, whose error is the suite's largest among
/// short kernels (the suite's mean is held by `tests/suite/designs_workloads.rs`), 10 % for the
/// latency-bound matrixMul_naive, whose 128 round trips the model follows mechanism by
/// mechanism (Accel-Sim's back-of-envelope estimate in the README: 31 000).
fn kernel_cycles_within(name: &str, got: u64, gpgpusim: u64, tol: f64) {
    let own = got - 5000;
    let e = own as f64 / gpgpusim as f64 - 1.0;
    assert!(
        e.abs() <= tol,
        "{name}: {own} kernel cycles vs GPGPU-Sim {gpgpusim} ({:+.1}%)",
        100.0 * e
    );
}

#[test]
fn cycles_track_gpgpusim() {
    let cfg = GpuConfig::rtx2060_like().expect("preset");
    let va = timed("vectorAdd", &cfg);
    kernel_cycles_within("vectorAdd", va.cycles, 1131, 0.30);
    let mm = timed("matrixMul_naive", &cfg);
    kernel_cycles_within("matrixMul_naive", mm.cycles, 34383, 0.10);
    // the mechanisms behind the estimate: inputs in the L2, one L1 miss and 7 merges per CTA
    // per k for B, no DRAM traffic
    let m = &mm.memory;
    assert_eq!(m.l2_sector_read_hits, m.l2_sector_reads);
    assert_eq!(m.dram_sector_reads, 0);
    assert_eq!(m.l1d_sector_read_merges, 7 * 64 * 128 * 2);
}

#[test]
fn launch_latency_is_counted_once() {
    let cfg = GpuConfig::rtx2060_like().expect("preset");
    let mut none = cfg.clone();
    none.kernel_launch_latency = 0;
    let with = timed("vectorAdd", &cfg);
    let without = timed("vectorAdd", &none);
    assert_eq!(with.cycles - without.cycles, 5000);
    assert_eq!(with.core.warp_instructions, without.core.warp_instructions);
}

#[test]
fn inputs_outside_the_l2_go_to_dram_and_cost_cycles() {
    let cfg = GpuConfig::rtx2060_like().expect("preset");
    let mut cold = cfg.clone();
    cold.memory.l2_preload_host_data = false;
    let warm = timed("vectorAdd", &cfg);
    let cold = timed("vectorAdd", &cold);
    // A and B: 2 x 16384 floats = 4096 sectors, read once from DRAM
    assert_eq!(cold.memory.dram_sector_reads, 4096);
    assert_eq!(warm.memory.dram_sector_reads, 0);
    assert!(cold.cycles > warm.cycles);
}
