//! Design `sharing` (Jeon et al. 2019) on every built-in workload and both presets.
//!
//! "Every built-in workload" here is [`common::design_suite`]: all but the NN benchmark's
//! mnist33 and cifar32g input sizes, which every design runs once in
//! `tests/suite/designs_workloads.rs` (CI time: their fc loops would double this suite).
//!
//! Per (workload, preset), a simulation with 200 AMT entries (the default), and on one
//! workload of each kind ([`common::design_sample`]) one with unbounded entries; the third size, 0 entries, runs in `tests/suite/renaming.rs` beside the renaming run it
//! must equal cycle for cycle (one simulation of `renaming` serves both tests).
//!
//! Checked on each run: the outputs are correct (a register the design lost, or a shared or
//! merged value that differs from memory, fails the check), no access found a register
//! without a mapping, no allocation failed, the loads served without a memory access are the
//! design's perfect, fill-wait and partial hits, and the physical peak is at most the
//! architected one. On nbody, whose warps load the same float4 tiles, at least 10 % of the
//! global loads are served by registers.

use crate::common;

use common::{assert_fails, assert_success, regwatt};
use regwatt_designs::config::{resolve, GpuPreset, Overrides};
use regwatt_designs::exec_model::{simulate_spec, SpecSimulation};
use regwatt_designs::run::DesignStats;
use regwatt_designs::{DesignSpec, ResolvedConfig};
use regwatt_sim::timing::RunOptions;
use regwatt_workloads::Workload;

fn config(p: GpuPreset, sets: &[&str]) -> Result<ResolvedConfig, String> {
    resolve(
        p,
        &Overrides {
            sets: sets.iter().map(|s| s.to_string()).collect(),
            design: Some(DesignSpec::Sharing),
            ..Overrides::default()
        },
    )
    .map_err(|e| e.to_string())
}

fn sim(w: &Workload, cfg: &ResolvedConfig) -> Result<SpecSimulation, String> {
    let spec = w
        .load_spec(regwatt_workloads::Size::Ci)
        .map_err(|e| e.to_string())?;
    let s = simulate_spec(&spec, DesignSpec::Sharing, cfg, &RunOptions::default())
        .map_err(|e| e.to_string())?;
    let exp = w
        .expected_final(&spec.initial_buffers(), &spec)
        .map_err(|e| e.to_string())?;
    regwatt_workloads::check(w, &exp, &s.buffers).map_err(|e| e.to_string())?;
    let DesignStats::Sharing(st) = &s.activity.design_stats else {
        return Err("not a sharing run".into());
    };
    let r = &st.renaming;
    if r.unallocated_accesses != 0 || r.allocation_failures != 0 {
        return Err(format!(
            "{} accesses without a mapping, {} failed allocations",
            r.unallocated_accesses, r.allocation_failures
        ));
    }
    let served = st.perfect_hits + st.fill_waits + st.partial_hits;
    if s.activity.memory.rf_design_served != served {
        return Err(format!(
            "memory counted {} loads served by the design, the design {served}",
            s.activity.memory.rf_design_served
        ));
    }
    if st.merge_reads < st.partial_hits || st.merge_reads > 2 * st.partial_hits {
        return Err(format!(
            "{} merge reads for {} partial hits",
            st.merge_reads, st.partial_hits
        ));
    }
    let regs = &s.activity.rf;
    if regs.allocated_peak > regs.architected_peak {
        return Err(format!(
            "physical peak {} above the architected {}",
            regs.allocated_peak, regs.architected_peak
        ));
    }
    Ok(s)
}

#[test]
fn every_workload_correct_with_200_and_unbounded_amt_entries() {
    let sample = common::design_sample();
    let work: Vec<_> = GpuPreset::ALL
        .iter()
        .flat_map(|p| common::design_suite().into_iter().map(move |w| (*p, w)))
        .collect();
    let f = common::failures_on_two_threads(
        &work,
        |(p, w)| format!("{} on {p}", w.name),
        |(p, w)| {
            let d = sim(w, &config(*p, &[])?).map_err(|e| format!("200 entries: {e}"))?;
            let DesignStats::Sharing(a) = &d.activity.design_stats else {
                return Err("design statistics of the wrong design".into());
            };
            if a.amt_peak_entries > 200 {
                return Err(format!("AMT peak {} with 200 entries", a.amt_peak_entries));
            }
            // nbody's warps load the same float4 tiles (`.v4`, a pattern per word): at least
            // a tenth of its global loads are served by registers
            let loads = a.amt_searches + a.coherent_loads + a.undescribed_loads;
            let served = a.perfect_hits + a.fill_waits + a.partial_hits;
            if w.name == "nbody" && (a.vector_hits == 0 || served * 10 < loads) {
                return Err(format!(
                    "{served} of {loads} global loads served ({} vector hits)",
                    a.vector_hits
                ));
            }
            // the unbounded table on one workload of each kind (CI's time budget)
            if !sample.iter().any(|s| s.name == w.name) {
                return Ok(());
            }
            let u = sim(w, &config(*p, &["design.amt_entries=unbounded"])?)
                .map_err(|e| format!("unbounded: {e}"))?;
            let DesignStats::Sharing(b) = &u.activity.design_stats else {
                return Err("design statistics of the wrong design".into());
            };
            if b.amt_replacements != 0 {
                return Err(format!(
                    "{} AMT replacements with an unbounded table",
                    b.amt_replacements
                ));
            }
            Ok(())
        },
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
}

#[test]
fn cli_runs_sharing_and_names_bad_keys() {
    let o = regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "conv_mnist",
        "--gpu",
        "gtx480",
        "--design",
        "sharing",
        "--set",
        "design.amt_entries=unbounded",
        "--json",
    ]);
    assert_success(&o, "sharing run");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["output_check"], serde_json::json!(true));
    let st = &j["activity"]["design_stats"]["sharing"];
    assert!(st["perfect_hits"].as_u64().unwrap_or(0) > 0, "{st}");
    assert_eq!(j["config"]["design"]["amt_entries"], "unbounded");
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
            "sharing",
            "--set",
            "design.merge_cycles=0",
        ]),
        "bad merge_cycles",
    );
    assert!(e.contains("design.merge_cycles"), "{e}");
}

/// Jeon et al. 2019 §2.1's matrixMul: "four warps that are assigned to the same row will use the same
/// input row of the first matrix". The built-in matrixMul_naive runs 16x16 blocks, whose
/// warps span two rows (two stride groups per load, which the AMT does not describe, §4.1);
/// the same PTX launched in 32x8 blocks gives each warp one row. Its result does not depend
/// on the block shape, so the built-in reference checks it.
#[test]
fn matrixmul_in_row_warps_shares_the_a_row() {
    let w = regwatt_workloads::get("matrixMul_naive").expect("workload");
    let mut spec = w.load_spec(regwatt_workloads::Size::Ci).expect("spec");
    for l in &mut spec.launches {
        l.grid = [4, 16, 1];
        l.block = [32, 8, 1];
    }
    let exp = w
        .expected_final(&spec.initial_buffers(), &spec)
        .expect("reference");
    let cfg = config(GpuPreset::Gtx480, &[]).expect("config");
    let s = simulate_spec(&spec, DesignSpec::Sharing, &cfg, &RunOptions::default())
        .expect("simulation");
    regwatt_workloads::check(w, &exp, &s.buffers).expect("correct");
    let DesignStats::Sharing(st) = &s.activity.design_stats else {
        panic!("not a sharing run")
    };
    // every load is described; the A loads (half of them) are shared by the row's warps
    assert_eq!(st.undescribed_loads, 0);
    let loads = st.amt_searches;
    let served = st.perfect_hits + st.fill_waits + st.partial_hits;
    assert!(
        served * 10 > loads * 4 && served * 2 <= loads,
        "{served} of {loads} loads served"
    );
}

/// Partial sharing end to end (Jeon et al. 2019 §3): loads that two earlier loads cover are
/// built from two registers read through the SM's w-merge collector slot and the bank
/// arbitration (`BankAccessKind::RegisterReads`), and the kernel's outputs equal the
/// baseline's. `designs/src/sharing/partial_shift.toml` loads a[i], then a[i + 16]; a one-line
/// L1D makes the second loads miss, where partial sharing applies.
#[test]
fn partial_sharing_reads_two_registers_and_keeps_the_outputs() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("designs/src/sharing/partial_shift.toml");
    let spec = regwatt_sim::launch::LaunchSpec::load(&path).expect("spec");
    let sets = [
        "gpu.memory.l1d.sets=1",
        "gpu.memory.l1d.ways=1",
        "gpu.memory.l1d.set_index=linear",
    ];
    let opts = RunOptions::default();
    let base_cfg = resolve(
        GpuPreset::Gtx480,
        &Overrides {
            sets: sets.iter().map(|s| s.to_string()).collect(),
            ..Overrides::default()
        },
    )
    .expect("config");
    let base = simulate_spec(&spec, DesignSpec::Baseline, &base_cfg, &opts).expect("baseline");
    let cfg = config(GpuPreset::Gtx480, &sets).expect("config");
    let s = simulate_spec(&spec, DesignSpec::Sharing, &cfg, &opts).expect("sharing");
    assert_eq!(
        s.buffers, base.buffers,
        "partial sharing changed the outputs"
    );
    let DesignStats::Sharing(st) = &s.activity.design_stats else {
        panic!("not a sharing run")
    };
    assert!(st.partial_hits > 0, "no partial hit: {st:?}");
    // one or two register reads per partial hit, each a bank read through the crossbar
    assert!(st.merge_reads >= st.partial_hits && st.merge_reads <= 2 * st.partial_hits);
    assert_eq!(st.renaming.unallocated_accesses, 0);
    assert_eq!(
        s.activity.memory.rf_design_served,
        st.perfect_hits + st.fill_waits + st.partial_hits
    );
}
