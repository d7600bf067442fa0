//! Design `cerf` (Jing et al. 2016) on every built-in workload of its preset (gtx480).
//!
//! "Every built-in workload" here is [`common::design_suite`]: all but the NN benchmark's
//! mnist33 and cifar32g input sizes, which every design runs once in
//! `tests/suite/designs_workloads.rs` (CI time: their fc loops would double this suite).
//!
//! Per workload, two simulations, LRU-fair and LRU-prioritized. Checked on each run: the
//! outputs are correct (a register lost by an eviction without a spill computes a wrong
//! result; a line served with bytes that differ from memory, or a dirty line never written
//! back, fails the run), no access found a register the warp does not own, every global
//! load line was a hit, a hit in flight or a miss. Over the suite: LRU-fair spills
//! registers somewhere, LRU-prioritized never does and no line ever evicts a register.

use crate::common;

use common::{assert_fails, assert_success, regwatt};
use regwatt_designs::cerf::CerfStats;
use regwatt_designs::config::{resolve, GpuPreset, Overrides, PowerMode};
use regwatt_designs::exec_model::simulate_spec;
use regwatt_designs::run::DesignStats;
use regwatt_designs::DesignSpec;
use regwatt_sim::timing::RunOptions;

fn run(w: &regwatt_workloads::Workload, sets: &[&str]) -> Result<(u64, CerfStats), String> {
    let cfg = resolve(
        GpuPreset::Gtx480,
        &Overrides {
            sets: sets.iter().map(|s| s.to_string()).collect(),
            design: Some(DesignSpec::Cerf),
            ..Overrides::default()
        },
    )
    .map_err(|e| e.to_string())?;
    let spec = w
        .load_spec(regwatt_workloads::Size::Ci)
        .map_err(|e| e.to_string())?;
    let s = simulate_spec(&spec, DesignSpec::Cerf, &cfg, &RunOptions::default())
        .map_err(|e| e.to_string())?;
    let exp = w
        .expected_final(&spec.initial_buffers(), &spec)
        .map_err(|e| e.to_string())?;
    regwatt_workloads::check(w, &exp, &s.buffers).map_err(|e| e.to_string())?;
    let DesignStats::Cerf(st) = s.activity.design_stats else {
        return Err("not a cerf run".into());
    };
    if st.unallocated_accesses != 0 {
        return Err(format!(
            "{} accesses to unowned registers",
            st.unallocated_accesses
        ));
    }
    if st.load_hits + st.load_inflight_hits + st.load_misses != st.load_lines {
        return Err(format!("load lines do not add up: {st:?}"));
    }
    Ok((s.activity.cycles, st))
}

#[test]
fn every_workload_correct_under_both_replacement_policies() {
    let work: Vec<_> = common::design_suite()
        .into_iter()
        .flat_map(|w| ["lru-fair", "lru-prioritized"].map(|r| (w, r)))
        .collect();
    let totals = std::sync::Mutex::new(Vec::new());
    let f = common::failures_on_two_threads(
        &work,
        |(w, r)| format!("{} with {r}", w.name),
        |(w, r)| {
            let set = format!("design.replacement={r}");
            let (cycles, st) = run(w, &[set.as_str()])?;
            if let Ok(mut t) = totals.lock() {
                t.push((*r, st, w.name, cycles));
            }
            Ok(())
        },
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
    let totals = totals.into_inner().expect("totals");
    let sum = |r: &str, f: fn(&CerfStats) -> u64| -> u64 {
        totals.iter().filter(|t| t.0 == r).map(|t| f(&t.1)).sum()
    };
    assert!(
        sum("lru-fair", |s| s.reg_spills) > 0,
        "LRU-fair never spilled"
    );
    assert!(
        sum("lru-fair", |s| s.reg_fills) > 0,
        "no spilled register read back"
    );
    assert_eq!(sum("lru-prioritized", |s| s.reg_spills), 0);
    assert_eq!(sum("lru-prioritized", |s| s.evict_reg_by_line), 0);
    assert!(
        sum("lru-prioritized", |s| s.dead_releases) > 0,
        "liveness bits unused"
    );
    assert!(sum("lru-fair", |s| s.dirty_writebacks + s.flush_writebacks) > 0);
    // Jing et al. 2016 Figs. 9 and 12 on the matrix-vector kernels whose column reads thrash the
    // 16 KB L1D: LRU-fair is at least 1.25x faster and its hit rate 0.2 above the baseline's
    // (measured: mvt 2.76x, atax 2.29x, bicg 1.80x; hit rates +0.76, +0.75, +0.57)
    for name in ["mvt", "atax", "bicg"] {
        let w = regwatt_workloads::get(name).expect("workload");
        let b = common::ci_run(
            w,
            GpuPreset::Gtx480,
            DesignSpec::Baseline,
            PowerMode::AlwaysOn,
            &[],
        )
        .expect("baseline");
        let m = &b.activity.memory;
        let base_hit = m.l1d_sector_read_hits as f64 / m.l1d_sector_reads.max(1) as f64;
        let (_, st, _, cycles) = totals
            .iter()
            .find(|t| t.0 == "lru-fair" && t.2 == name)
            .expect("cerf run");
        assert!(
            (*cycles as f64) * 1.25 < b.activity.cycles as f64,
            "{name}: cerf {cycles} cycles against the baseline's {}",
            b.activity.cycles
        );
        assert!(
            st.hit_rate() > base_hit + 0.2,
            "{name}: hit rate {} against the baseline's {base_hit}",
            st.hit_rate()
        );
    }
}

/// The cache-data hit latency decides much of the CPI: a shorter one is never
/// slower on a load-bound kernel.
#[test]
fn hit_latency_sensitivity_is_monotonic() {
    let w = regwatt_workloads::get("matrixMul_naive").expect("workload");
    let mut last = 0;
    for l in [4, 35, 100] {
        let (c, _) = run(w, &[&format!("design.hit_latency={l}")]).expect("run");
        assert!(
            c >= last,
            "hit latency {l}: {c} cycles, shorter latency gave {last}"
        );
        last = c;
    }
}

#[test]
fn cli_runs_cerf_and_refuses_rtx2060() {
    let o = regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--gpu",
        "gtx480",
        "--design",
        "cerf",
        "--scope",
        "sm",
    ]);
    assert_success(&o, "regwatt run --design cerf");
    let out = String::from_utf8_lossy(&o.stdout);
    for c in ["tag_array", "rgen", "rf_banks", "shared_memory"] {
        assert!(out.contains(c), "{c} missing:\n{out}");
    }
    assert!(
        !out.contains("l1d_data"),
        "the L1D is the RF's array:\n{out}"
    );
    let o = regwatt(&common::ci_run_args(
        "vectorAdd",
        "rtx2060",
        &["--design", "cerf"],
    ));
    let e = assert_fails(&o, "cerf on rtx2060");
    assert!(e.contains("sub-cores"), "{e}");
    let o = regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--gpu",
        "gtx480",
        "--design",
        "cerf",
        "--set",
        "design.replacement=mru",
    ]);
    let e = assert_fails(&o, "a bad replacement policy");
    assert!(e.contains("design.replacement"), "{e}");
}

/// cerf in every power mode (the modes gate the unified array's rows as they gate the
/// baseline's RF): on the design sample, the tri-modal run (whose state counts price every
/// mode) computes the right outputs in always-on's cycles, and at 40 nm the static energy of
/// the modes keeps the order `common::static_energy_ordered` checks. Not at 12 nm: there the
/// wake-ups can cost more than the SRAM cells' leakage saves, because the array's cache lines
/// keep most sub-arrays awake (vectorAdd, sub-array gating: sub-arrays on 79 % of the
/// sub-array-cycles against the baseline's 36 %; 240 wake-ups at 3.54 nJ against 3.5 nJ of
/// leakage saved, so the cells take 17.00 nJ against 16.95 always on; `regwatt run --workload
/// vectorAdd --size ci --gpu gtx480 --design cerf --node 12nm --power-mode subarray-gating
/// --json`, `power_management`).
#[test]
fn every_power_mode_keeps_outputs_cycles_and_order() {
    let f = common::failures_on_two_threads(
        &common::design_sample(),
        |w| w.name.to_string(),
        |w| {
            let run = |m| common::ci_run(w, GpuPreset::Gtx480, DesignSpec::Cerf, m, &[]);
            let on = run(PowerMode::AlwaysOn)?;
            let tri = run(PowerMode::TriModal)?;
            if tri.activity.cycles != on.activity.cycles {
                return Err(format!(
                    "cycles {} with power states, {} always on",
                    tri.activity.cycles, on.activity.cycles
                ));
            }
            common::static_energy_ordered_at(
                w.name,
                GpuPreset::Gtx480,
                DesignSpec::Cerf,
                &on,
                &tri,
                &[regwatt_designs::config::Node::N40],
            )
        },
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
}
