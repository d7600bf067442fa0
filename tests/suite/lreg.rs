//! Design `lreg` (Elango 2017) on every built-in workload of both presets
//! ([`common::design_suite`] and the annotated versions of the NN benchmark's other input
//! sizes).
//!
//! Per workload and preset: the outputs are correct under `lreg` (a shuffled value that
//! memory does not hold fails the run), no access found an unowned register, and a workload
//! without the L-register annotation runs exactly as on the baseline (same cycles, same
//! memory activity). Over the annotated workloads: loads turn into shuffles, and with power
//! states counted (the L-registers' rows included) the outputs and cycles stay and the static
//! energy is ordered as for every design. With the corner cases handled, at least a quarter of
//! the conv kernels' load instructions are removed for the whole warp (thesis §7.4).

use crate::common;

use common::{assert_fails, regwatt};
use regwatt_designs::config::{GpuPreset, PowerMode};
use regwatt_designs::lreg::LregStats;
use regwatt_designs::run::{DesignActivity, DesignStats};
use regwatt_designs::DesignSpec;

fn simulate(
    w: &regwatt_workloads::Workload,
    gpu: GpuPreset,
    design: DesignSpec,
) -> Result<DesignActivity, String> {
    common::simulate_checked(w, gpu, design, PowerMode::AlwaysOn).map(|s| s.activity.clone())
}

fn annotated(w: &regwatt_workloads::Workload) -> bool {
    w.ptx.contains("\"regwatt.lreg ")
}

#[test]
fn every_workload_correct_and_unannotated_ones_run_as_on_the_baseline() {
    // the design suite and the annotated versions of the other NN input sizes (the
    // unannotated ones run as on the baseline, shown here on mnist29's)
    let work: Vec<_> = GpuPreset::ALL
        .iter()
        .flat_map(|p| {
            regwatt_workloads::all()
                .iter()
                .filter(|w| annotated(w) || common::design_suite().iter().any(|d| d.name == w.name))
                .map(move |w| (*p, w))
        })
        .collect();
    let stats = std::sync::Mutex::new(Vec::new());
    let f = common::failures_on_two_threads(
        &work,
        |(p, w)| format!("{} on {p}", w.name),
        |(p, w)| {
            let on = common::simulate_checked(w, *p, DesignSpec::Lreg, PowerMode::AlwaysOn)?;
            let a = &on.activity;
            let DesignStats::Lreg(s) = &a.design_stats else {
                return Err("not an lreg run".into());
            };
            if annotated(w) {
                // the L-registers' rows under every power mode: outputs, cycles, and the
                // static energy ordered as issue 27 asks
                let counted =
                    common::simulate_checked(w, *p, DesignSpec::Lreg, PowerMode::TriModal)?;
                if counted.activity.cycles != a.cycles {
                    return Err(format!(
                        "cycles {} with power states, {} always on",
                        counted.activity.cycles, a.cycles
                    ));
                }
                common::static_energy_ordered(w.name, *p, DesignSpec::Lreg, &on, &counted)?;
            }
            if !annotated(w) {
                let b = simulate(w, *p, DesignSpec::Baseline)?;
                if (a.cycles, &a.memory) != (b.cycles, &b.memory) {
                    return Err(format!(
                        "unannotated: {} cycles against the baseline's {} (or other memory activity)",
                        a.cycles, b.cycles
                    ));
                }
                if s.lreg_instructions != 0 || s.memory_load_lanes != s.global_load_lanes {
                    return Err(format!("unannotated, yet L-register loads: {s:?}"));
                }
            }
            if let Ok(mut v) = stats.lock() {
                v.push((w.name, *p, s.clone()));
            }
            Ok(())
        },
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
    let stats: Vec<(&str, GpuPreset, LregStats)> = stats.into_inner().expect("stats");
    // Elango 2017's network: the _lreg and _lskip versions of three inputs are annotated
    let n = stats
        .iter()
        .filter(|(n, _, _)| regwatt_workloads::find(n).is_some_and(annotated))
        .count();
    assert_eq!(n, 6 * GpuPreset::ALL.len(), "annotated workload runs");
    for (name, p, s) in stats
        .iter()
        .filter(|(n, _, _)| regwatt_workloads::find(n).is_some_and(annotated))
    {
        // the annotated kernels' loads were numbered, inputs shuffled, the rest loaded
        assert!(s.lreg_instructions > 0, "{name} on {p}");
        assert!(
            s.input_lanes + s.private_lanes <= s.global_load_lanes,
            "{name} on {p}"
        );
        assert!(
            s.shuffled_horizontal + s.shuffled_vertical > 0,
            "{name} on {p}: no shuffle"
        );
        assert!(s.memory_load_lanes < s.global_load_lanes, "{name} on {p}");
        assert_eq!(s.retained, s.released, "{name} on {p}");
        assert_eq!(s.value_mismatches, 0, "{name} on {p}");
        // thesis §7.4 with the corner cases handled (§7.5): blocks whose rows are whole warp
        // units lose their horizontal-overlap loads for the whole warp (15 of the 51 or 301
        // loads of a conv thread), and the outputs stay correct (checked above)
        if name.ends_with("_lreg") {
            assert!(
                s.removed_instructions * 4 >= s.lreg_instructions,
                "{name} on {p}: {} of {} conv load instructions removed for the whole warp",
                s.removed_instructions,
                s.lreg_instructions
            );
        }
    }
}

#[test]
fn cli_runs_lreg_and_checks_its_parameters() {
    let j = common::regwatt_json(
        &common::ci_run_args("vectorAdd", "rtx2060", &["--design", "lreg", "--json"]),
        "lreg run",
    );
    assert_eq!(j["design"], "lreg");
    assert_eq!(j["output_check"], true);
    assert_eq!(j["config"]["design"]["map_entries"], 64);
    let names: Vec<&str> = j["energy"]["components"]
        .as_array()
        .expect("components")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    for c in ["lreg_map", "lreg_counters", "shuffle_network"] {
        assert!(names.contains(&c), "{c} missing from {names:?}");
    }
    let e = assert_fails(
        &regwatt(&common::ci_run_args(
            "vectorAdd",
            "gtx480",
            &["--design", "lreg", "--set", "design.directions=diagonal"],
        )),
        "a bad direction",
    );
    assert!(
        e.contains("design.directions") || e.contains("diagonal"),
        "{e}"
    );
}
