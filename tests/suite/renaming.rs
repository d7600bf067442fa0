//! Design `renaming` (Jeon & Annavaram 2014) on every built-in workload and both presets.
//!
//! "Every built-in workload" here is [`common::design_suite`]: all but the NN benchmark's
//! mnist33 and cifar32g input sizes, which every design runs once in
//! `tests/suite/designs_workloads.rs` (CI time: their fc loops would double this suite).
//!
//! Per (workload, preset), runs 1 and 2 below, and on one workload of each kind
//! ([`common::design_sample`]) runs 3 to 5 too:
//! 1. `baseline`, always on;
//! 2. `renaming` with its defaults (1 KB table, consolidating policy) and power states
//!    counted: the tracker counts every mode's states at once and a hidden wake-up changes
//!    no cycle, so this one run serves every managed mode (each is evaluated from it);
//! 3. `renaming` with an unbounded table and the wear-levelling policy;
//! 4. `renaming` with releases off and the baseline's placement (`mapping = "static"`),
//!    which must equal the baseline's cycles and bank activity exactly;
//! 5. `sharing` with 0 AMT entries, which must equal run 2 in every activity
//!    count.
//!
//! Checked on each renaming run: the outputs are correct, no access found a register without
//! a mapping, no allocation failed, nothing stays mapped after the last warp exits
//! (allocations = releases + frees at exit + exempt reservations), the physical peak is at
//! most the architected one, and nothing is exempt with an unbounded table.

use crate::common;

use common::{assert_fails, assert_success, regwatt};
use regwatt_designs::config::{GpuPreset, Node, PowerMode};
use regwatt_designs::exec_model::{simulate_spec, SpecSimulation};
use regwatt_designs::run::{at_node, inventory, DesignStats};
use regwatt_designs::{DesignSpec, RunReport};
use regwatt_sim::timing::RunOptions;
use regwatt_workloads::Workload;
use std::sync::Arc;

/// A checked `ci` run of `w` with design `d` in mode `m` and overrides `sets`, shared with the
/// other tests ([`common::ci_run`]).
fn sim(
    w: &Workload,
    p: GpuPreset,
    d: DesignSpec,
    m: PowerMode,
    sets: &[&str],
) -> Result<Arc<SpecSimulation>, String> {
    common::ci_run(w, p, d, m, sets).map_err(|e| format!("{d} {m} {sets:?}: {e}"))
}

/// The renaming-specific checks of one run.
fn check_renaming(s: &SpecSimulation, unbounded: bool) -> Result<(), String> {
    let DesignStats::Renaming(st) = &s.activity.design_stats else {
        return Err("not a renaming run".into());
    };
    if st.unallocated_accesses != 0 || st.allocation_failures != 0 {
        return Err(format!(
            "{} accesses without a mapping, {} failed allocations",
            st.unallocated_accesses, st.allocation_failures
        ));
    }
    if st.allocations != st.releases + st.freed_at_exit + st.exempt_reserved {
        return Err(format!(
            "left mapped: {} allocations != {} releases + {} at exit + {} exempt",
            st.allocations, st.releases, st.freed_at_exit, st.exempt_reserved
        ));
    }
    let rf = &s.activity.rf;
    if rf.allocated_peak > rf.architected_peak || rf.allocated_peak != st.physical_peak {
        return Err(format!(
            "physical peak {} (design {}) vs architected {}",
            rf.allocated_peak, st.physical_peak, rf.architected_peak
        ));
    }
    if unbounded && st.exempt_registers != 0 {
        return Err(format!(
            "{} exempt with an unbounded table",
            st.exempt_registers
        ));
    }
    Ok(())
}

#[test]
fn every_workload_correct_invariants_hold_and_static_placement_equals_baseline() {
    let sample = common::design_sample();
    let work: Vec<_> = GpuPreset::ALL
        .iter()
        .flat_map(|p| common::design_suite().into_iter().map(move |w| (*p, w)))
        .collect();
    let f = common::failures_on_two_threads(
        &work,
        |(p, w)| format!("{} on {p}", w.name),
        |(p, w)| {
            let base = sim(w, *p, DesignSpec::Baseline, PowerMode::AlwaysOn, &[])?;
            let r = sim(w, *p, DesignSpec::Renaming, PowerMode::TriModal, &[])?;
            check_renaming(&r, false).map_err(|e| format!("defaults: {e}"))?;
            // every mode evaluates from the counted run, at both report nodes
            for mode in PowerMode::ALL {
                for node in Node::REPORT {
                    let c = at_node(
                        &common::mode_config(*p, DesignSpec::Renaming, mode, &[])?,
                        node,
                    );
                    let inv = inventory(DesignSpec::Renaming, &c).map_err(|e| e.to_string())?;
                    let rep = RunReport::new(
                        w.name,
                        DesignSpec::Renaming,
                        &c,
                        &inv,
                        &r.activity,
                        r.launch_cycles,
                    )
                    .map_err(|e| format!("{mode} {node}: {e}"))?;
                    if rep.energy.total.j().is_nan() || rep.energy.total.j() <= 0.0 {
                        return Err(format!("{mode} {node}: no energy"));
                    }
                }
            }

            // the other configurations on one workload of each kind (CI's time budget)
            if !sample.iter().any(|x| x.name == w.name) {
                return Ok(());
            }
            // `sharing` with no AMT entries is this design, cycle for cycle
            let z = sim(
                w,
                *p,
                DesignSpec::Sharing,
                PowerMode::TriModal,
                &["design.amt_entries=0"],
            )?;
            let DesignStats::Sharing(zs) = &z.activity.design_stats else {
                return Err("not a sharing run".into());
            };
            let (a, b) = (&z.activity, &r.activity);
            if a.cycles != b.cycles
                || a.core != b.core
                || a.memory != b.memory
                || a.rf != b.rf
                || DesignStats::Renaming(zs.renaming.clone()) != b.design_stats
            {
                return Err(format!(
                    "sharing with 0 AMT entries: cycles {} vs renaming {}",
                    a.cycles, b.cycles
                ));
            }
            let u = sim(
                w,
                *p,
                DesignSpec::Renaming,
                PowerMode::AlwaysOn,
                &["design.table_bytes=unbounded", "design.mapping=wear_level"],
            )?;
            check_renaming(&u, true).map_err(|e| format!("unbounded: {e}"))?;

            let e = sim(
                w,
                *p,
                DesignSpec::Renaming,
                PowerMode::AlwaysOn,
                &["design.mapping=static", "design.release_flags=false"],
            )?;
            check_renaming(&e, false).map_err(|e| format!("static: {e}"))?;
            let (a, b) = (&e.activity, &base.activity);
            if a.cycles != b.cycles
                || a.core.bank_reads != b.core.bank_reads
                || a.core.bank_writes != b.core.bank_writes
                || a.core.bank_conflict_cycles != b.core.bank_conflict_cycles
            {
                return Err(format!(
                    "static placement without releases: cycles {} vs baseline {}, bank reads {:?} vs {:?}",
                    a.cycles, b.cycles, a.core.bank_reads, b.core.bank_reads
                ));
            }
            let (DesignStats::Renaming(x), DesignStats::Baseline(y)) =
                (&a.design_stats, &b.design_stats)
            else {
                return Err("design statistics of the wrong design".into());
            };
            if (x.slice_reads, x.slice_writes) != (y.slice_reads, y.slice_writes) {
                return Err(format!(
                    "slice reads/writes {:?} vs baseline {:?}",
                    (x.slice_reads, x.slice_writes),
                    (y.slice_reads, y.slice_writes)
                ));
            }
            Ok(())
        },
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
}

#[test]
fn cli_runs_renaming_with_design_overrides_and_names_bad_keys() {
    let o = regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--gpu",
        "gtx480",
        "--design",
        "renaming",
        "--set",
        "design.table_bytes=unbounded",
        "--json",
    ]);
    assert_success(&o, "renaming run");
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(r["config"]["design"]["name"], "renaming");
    assert_eq!(r["config"]["design"]["table_bytes"], "unbounded");
    assert_eq!(r["output_check"], true);
    let arch = r["registers"]["architected_peak"].as_u64().expect("peak");
    let phys = r["registers"]["allocated_peak"].as_u64().expect("peak");
    assert!(phys > 0 && phys <= arch, "{phys} vs {arch}");
    // overheads are against a simulated baseline, not zero
    assert!(
        r["area"]["overhead_vs_baseline_frac"]
            .as_f64()
            .expect("area")
            > 0.0
    );

    let e = assert_fails(
        &regwatt(&[
            "run",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--gpu",
            "gtx480",
            "--design",
            "renaming",
            "--set",
            "design.table_banks=0",
        ]),
        "bad design key value",
    );
    assert!(e.contains("design.table_banks"), "{e}");
    let e = assert_fails(
        &regwatt(&[
            "run",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--gpu",
            "gtx480",
            "--design",
            "baseline",
            "--set",
            "design.table_banks=2",
        ]),
        "design key on the baseline",
    );
    assert!(e.contains("design.table_banks"), "{e}");
}

/// Issue 28 (Jeon & Annavaram 2014 Fig. 2): the occupancy series integrates exactly what the run's totals
/// count (allocated and live register-cycles), on both designs and across launches, and the
/// CLI writes it as CSV.
#[test]
fn register_series_adds_up_to_the_run_totals() {
    for (w, p) in [
        ("bfs", GpuPreset::Gtx480),
        ("matrixMul_tiled", GpuPreset::Rtx2060),
    ] {
        let w = regwatt_workloads::get(w).expect("workload");
        let spec = w.load_spec(regwatt_workloads::Size::Ci).expect("spec");
        for d in DesignSpec::ALL.into_iter().filter(|d| d.supports(p)) {
            let cfg = common::mode_config(p, d, PowerMode::AlwaysOn, &[]).expect("config");
            let opts = RunOptions {
                series_window: 700,
                ..RunOptions::default()
            };
            let s = simulate_spec(&spec, d, &cfg, &opts).expect("run");
            let rf = &s.activity.rf;
            let series = &rf.register_series;
            assert!(!series.is_empty(), "{} {d}", w.name);
            let sum = |f: fn(&regwatt_sim::timing::activity::RegisterWindow) -> u64| {
                series.iter().map(f).sum::<u64>()
            };
            assert_eq!(sum(|x| x.live_register_cycles), rf.live_register_cycles);
            assert_eq!(
                sum(|x| x.allocated_register_cycles),
                rf.allocated_register_cycles
            );
            // windows tile the run: consecutive, within one launch at most 700 cycles
            let mut t = 0;
            for x in series {
                assert_eq!(x.start_cycle, t, "{} {d}", w.name);
                assert!(x.cycles > 0 && x.cycles <= 700);
                // no more live than allocated registers in any window
                assert!(x.live_register_cycles <= x.allocated_register_cycles);
                t += x.cycles;
            }
            assert_eq!(t, s.activity.cycles, "{} {d}", w.name);
            // the same run without a series is the same run
            let plain = common::ci_run(w, p, d, PowerMode::AlwaysOn, &[]).expect("run");
            assert_eq!(plain.activity.cycles, s.activity.cycles);
            assert!(plain.activity.rf.register_series.is_empty());
        }
    }
    let dir = common::tmp_dir("renaming", "series");
    let o = regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--gpu",
        "gtx480",
        "--design",
        "renaming",
        "--series-window",
        "100",
        "--out",
        dir.to_str().expect("utf8"),
    ]);
    assert_success(&o, "run --series-window");
    let csv = std::fs::read_to_string(dir.join("register_series.csv")).expect("csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("start_cycle,cycles,architected_registers,allocated_registers,live_registers,utilisation_frac")
    );
    assert!(lines.count() >= 9, "{csv}");
}
