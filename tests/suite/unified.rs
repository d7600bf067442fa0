//! Design `unified` (Gebhart et al. 2012, cerf's comparator in Jing et al. 2016 Fig. 10) on
//! every built-in workload of its preset (gtx480), and the two ends of its split: a
//! cache-sensitive kernel whose few resident registers leave a large L1D, and a
//! register-limited launch that leaves none.
//!
//! "Every built-in workload" is [`common::design_suite`], as for the other designs; the NN
//! benchmark's other input sizes run in `tests/suite/designs_workloads.rs`.

use crate::common;

use regwatt_designs::config::{GpuPreset, PowerMode};
use regwatt_designs::run::DesignStats;
use regwatt_designs::unified::UnifiedStats;
use regwatt_designs::DesignSpec;

fn stats(s: &regwatt_designs::exec_model::SpecSimulation) -> Result<UnifiedStats, String> {
    match &s.activity.design_stats {
        DesignStats::Unified(u) => Ok(*u),
        _ => Err("not a unified run".into()),
    }
}

/// Correct outputs on every workload, every split within the array (at most 32 ways of
/// 4 KB), and at least one workload whose split gives the L1D more than the baseline's
/// 16 KB.
#[test]
fn every_workload_correct_with_its_launch_split() {
    let work = common::design_suite();
    let ways = std::sync::Mutex::new(Vec::new());
    let f = common::failures_on_two_threads(
        &work,
        |w| w.name.to_string(),
        |w| {
            let s = common::simulate_checked(
                w,
                GpuPreset::Gtx480,
                DesignSpec::Unified,
                PowerMode::AlwaysOn,
            )?;
            let u = stats(&s)?;
            if u.cache_ways > 32 || u64::from(u.cache_ways) * 8 != u.cache_rows {
                return Err(format!("split out of the array: {u:?}"));
            }
            if let Ok(mut v) = ways.lock() {
                v.push(u.cache_ways);
            }
            Ok(())
        },
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
    let ways = ways.into_inner().expect("ways");
    assert!(ways.iter().any(|&w| w > 4), "{ways:?}");
}

/// atax's CTAs leave most of the array to the L1D: more of its loads hit than in the
/// baseline's 16 KB L1D, and it runs in fewer cycles.
#[test]
fn a_cache_sensitive_kernel_gains_a_larger_l1d() {
    let w = regwatt_workloads::find("atax").expect("atax");
    let run =
        |d| common::simulate_checked(w, GpuPreset::Gtx480, d, PowerMode::AlwaysOn).expect("runs");
    let (u, b) = (run(DesignSpec::Unified), run(DesignSpec::Baseline));
    assert!(stats(&u).expect("stats").cache_ways > 4);
    let hits =
        |s: &regwatt_designs::exec_model::SpecSimulation| s.activity.memory.l1d_sector_read_hits;
    assert!(hits(&u) > hits(&b), "{} vs {}", hits(&u), hits(&b));
    assert!(u.activity.cycles < b.activity.cycles);
}

/// With a quarter of the registers (8192, in 1 KB banks), vectorAdd's resident CTAs take
/// every row: no way is left, no access goes through the L1D, and the outputs are still
/// correct.
#[test]
fn a_register_limited_launch_runs_without_l1d() {
    let w = regwatt_workloads::find("vectorAdd").expect("vectorAdd");
    let s = common::ci_run(
        w,
        GpuPreset::Gtx480,
        DesignSpec::Unified,
        PowerMode::AlwaysOn,
        &["gpu.sm.limits.registers=8192", "rf.bank_bytes=1024"],
    )
    .expect("runs");
    let u = stats(&s).expect("stats");
    assert_eq!((u.cache_ways, u.cache_rows, u.line_touches), (0, 0, 0));
    let m = &s.activity.memory;
    assert_eq!((m.l1d_sector_reads, m.l1d_line_lookups), (0, 0));
    assert!(m.l2_sector_reads > 0);
}
