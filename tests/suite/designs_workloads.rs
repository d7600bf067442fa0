//! Every built-in workload under the timing model with the baseline design on both GPU
//! presets reproduces its reference output; energy scales sensibly with node and time. Every
//! design runs the NN benchmark's input sizes that the design suites leave out.

use crate::common;

use std::collections::BTreeMap;

use regwatt_designs::config::{preset, GpuPreset, Node, PowerMode};
use regwatt_designs::energy::{AreaSummary, EnergySummary};
use regwatt_designs::exec_model::simulate_spec;
use regwatt_designs::run::{at_node, events, inventory};
use regwatt_designs::DesignSpec;
use regwatt_sim::timing::RunOptions;

#[test]
fn every_workload_on_both_presets_matches_its_reference() {
    let work: Vec<_> = GpuPreset::ALL
        .iter()
        .flat_map(|p| regwatt_workloads::all().iter().map(move |w| (*p, w)))
        .collect();
    let cycles = std::sync::Mutex::new(BTreeMap::new());
    let f = common::failures_on_two_threads(
        &work,
        |(p, w)| format!("{} on {p}", w.name),
        |(p, w)| simulate_and_check(*p, w, regwatt_workloads::Size::Ci, &cycles),
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
    let cycles = cycles.into_inner().expect("cycles");
    timing_against_gpgpusim(&cycles);
    timing_on_the_kept_back_set(&cycles);
}

/// Simulates workload `w` at `size` with the baseline on preset `p`, records its kernels' own
/// cycles (without the preset's kernel-launch latency) in `cycles` under (preset, workload),
/// and checks its outputs against the reference.
fn simulate_and_check(
    p: GpuPreset,
    w: &regwatt_workloads::Workload,
    size: regwatt_workloads::Size,
    cycles: &std::sync::Mutex<BTreeMap<(String, String), u64>>,
) -> Result<(), String> {
    let cfg = preset(p).map_err(|e| e.to_string())?;
    let spec = w.load_spec(size).map_err(|e| e.to_string())?;
    let launch = u64::from(cfg.gpu.kernel_launch_latency) * spec.launches.len() as u64;
    let c = if size == regwatt_workloads::Size::Ci {
        // the checked run the design suites share
        let s = common::ci_run(w, p, DesignSpec::Baseline, PowerMode::AlwaysOn, &[])?;
        if s.activity.core.uncollected_reads != 0 {
            return Err("uncollected operand reads".into());
        }
        s.activity.cycles
    } else {
        assert_eq!(size, regwatt_workloads::Size::Default);
        // the checked run the default-size checks share
        common::default_run(w, p)?.activity.cycles
    };
    if let Ok(mut m) = cycles.lock() {
        m.insert((p.to_string(), w.name.to_string()), c - launch);
    }
    Ok(())
}

/// Every design runs the NN benchmark's mnist33 and cifar32g input sizes with correct outputs
/// and no access to an unowned register. The design suites run every other workload in all
/// their variants and modes ([`common::design_suite`]); these eight (same kernels as
/// mnist29's, other constants) run here once per design, in its default configuration: on a
/// design's first supported preset the four mnist33 versions, on its second the four cifar32g
/// ones (both on a design with one preset). The baseline and lreg run all eight on both presets
/// in their own suites (`every_workload_on_both_presets_matches_its_reference`, lreg.rs).
#[test]
fn every_design_runs_the_nn_benchmark_at_every_input_size() {
    let nn = common::nn_other_sizes();
    assert_eq!(nn.len(), 8, "mnist33 and cifar32g in four versions each");
    let mut work = Vec::new();
    for d in DesignSpec::ALL
        .into_iter()
        .filter(|d| !matches!(d, DesignSpec::Baseline | DesignSpec::Lreg))
    {
        let presets: Vec<GpuPreset> = GpuPreset::ALL
            .into_iter()
            .filter(|p| d.supports(*p))
            .collect();
        for w in &nn {
            let second = w.name.starts_with("cifar32g");
            let p = presets[usize::from(second) % presets.len()];
            work.push((d, p, *w));
        }
    }
    assert!(work.len() >= 4 * 8, "{} runs", work.len());
    let f = common::failures_on_two_threads(
        &work,
        |(d, p, w)| format!("{} on {p} with {d}", w.name),
        |(d, p, w)| common::simulate_checked(w, *p, *d, PowerMode::AlwaysOn).map(|_| ()),
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
}

/// The simulated cycles of every workload (without the kernel-launch latency)
/// against GPGPU-Sim 4.2's on the same PTX, launches and inputs
/// (`calibrations/gpgpusim-suite/cycles.csv`, provenance in `calibrations/PROVENANCE.md`).
/// The bounds are the measured mean |error| plus a margin: rtx2060 5.5 % (bound 7 %; 9.4 %
/// before issue 36, 7.8 % before it modelled the crossbar's head-of-line blocking); gtx480
/// 8.1 % (bound 10 %) since issue 36 modelled its instruction and constant caches, BookSim's
/// crossbar latency and the atomics (24.8 % before, 9.8 % before the atomics): a change of the
/// timing model that moves the suite away from GPGPU-Sim fails here. GPGPU-Sim crashed on
/// reduction and fc on the GTX 480 configuration (SHFL on Fermi; the CSV's `match` = crash):
/// those two have no reference.
fn timing_against_gpgpusim(ours: &BTreeMap<(String, String), u64>) {
    let csv = include_str!("../../calibrations/gpgpusim-suite/cycles.csv");
    let crashed = mean_errors(csv, ours, &[("rtx2060", 23, 0.07), ("gtx480", 21, 0.10)]);
    assert_eq!(crashed, ["reduction/gtx480", "fc/gtx480"]);
}

/// The 22 workloads of the kept-back set (`calibrations/gpgpusim-keptback/`, run on
/// GPGPU-Sim 4.2 by the suite's method; no preset was tuned on them). The targets
/// are the bounds: rtx2060 5 % (measured 4.0 %; 6.8 % before issue 36 modelled the L1D banks,
/// the miss queue and the crossbar's head-of-line blocking), gtx480 15 % (measured 4.9 %).
fn timing_on_the_kept_back_set(ours: &BTreeMap<(String, String), u64>) {
    let csv = include_str!("../../calibrations/gpgpusim-keptback/cycles.csv");
    let crashed = mean_errors(csv, ours, &[("rtx2060", 22, 0.05), ("gtx480", 22, 0.15)]);
    assert!(crashed.is_empty(), "{crashed:?}");
}

/// The `default` input size against GPGPU-Sim 4.2 (`calibrations/gpgpusim-default/`, the same
/// method at `--size default`, AccelWattch on): every workload GPGPU-Sim ran, simulated here
/// at `default` with the baseline on both presets, computes its reference output, and each
/// preset's mean |error| stays within the 10 % target: measured rtx2060 8.4 % over 20
/// workloads and gtx480 9.9 % over 18 (docs/timing.md "At the default size"), so a change of
/// the timing model that moves either past the target fails here.
#[test]
fn default_size_cycles_against_gpgpusim() {
    let csv = include_str!("../../calibrations/gpgpusim-default/cycles.csv");
    let mut names: Vec<String> = csv
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .map(str::to_string)
        .collect();
    names.dedup();
    let work: Vec<_> = GpuPreset::ALL
        .iter()
        .flat_map(|p| names.iter().map(move |w| (*p, w.clone())))
        .collect();
    let cycles = std::sync::Mutex::new(BTreeMap::new());
    let f = common::failures_on_two_threads(
        &work,
        |(p, w)| format!("{w} on {p} at default"),
        |(p, name)| {
            let w = regwatt_workloads::get(name).map_err(|e| e.to_string())?;
            simulate_and_check(*p, w, regwatt_workloads::Size::Default, &cycles)
        },
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
    let cycles = cycles.into_inner().expect("cycles");
    // rows with cycles per preset (GPGPU-Sim crashes on fc and reduction with SM2_GTX480)
    let rows = |config: &str| {
        csv.lines()
            .filter(|l| l.split(',').nth(1) == Some(config) && l.split(',').nth(2) != Some("crash"))
            .count()
    };
    assert!(names.len() >= 20, "{} workloads at default", names.len());
    let crashed = mean_errors(
        csv,
        &cycles,
        &[
            ("rtx2060", rows("SM75_RTX2060"), 0.10),
            ("gtx480", rows("SM2_GTX480"), 0.10),
        ],
    );
    assert_eq!(crashed, ["fc/gtx480", "reduction/gtx480"]);
}

/// Prints every workload's error against a GPGPU-Sim cycles CSV and checks each preset's
/// `(gpu, workloads, bound)` on the mean |error|; returns the `workload/gpu` rows GPGPU-Sim
/// crashed on.
fn mean_errors(
    csv: &str,
    ours: &BTreeMap<(String, String), u64>,
    bounds: &[(&str, usize, f64)],
) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Row {
        workload: String,
        config: String,
        #[serde(rename = "match")]
        outcome: String,
        gpu_tot_sim_cycle: Option<u64>,
        launch_latency_cycles: Option<u64>,
    }
    let mut errs: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut crashed = Vec::new();
    for row in csv::Reader::from_reader(csv.as_bytes()).deserialize::<Row>() {
        let r = row.expect("cycles.csv row");
        let gpu = match r.config.as_str() {
            "SM75_RTX2060" => "rtx2060",
            "SM2_GTX480" => "gtx480",
            other => panic!("unknown config {other}"),
        };
        if r.outcome == "crash" {
            crashed.push(format!("{}/{gpu}", r.workload));
            continue;
        }
        let (Some(total), Some(launch)) = (r.gpu_tot_sim_cycle, r.launch_latency_cycles) else {
            panic!("{}/{gpu}: no cycles", r.workload);
        };
        let reference = total - launch;
        let got = ours[&(gpu.to_string(), r.workload.clone())];
        let e = got as f64 / reference as f64 - 1.0;
        println!(
            "{:<16} {gpu:<8} ours {got:>7} GPGPU-Sim {reference:>7} {:+6.1}%",
            r.workload,
            100.0 * e
        );
        errs.entry(gpu).or_default().push(e.abs());
    }
    for &(gpu, n, bound) in bounds {
        let e = &errs[gpu];
        assert_eq!(e.len(), n, "{gpu}");
        let mean = e.iter().sum::<f64>() / e.len() as f64;
        println!(
            "{gpu}: mean |error| {:.1}% over {n} workloads",
            100.0 * mean
        );
        assert!(
            mean <= bound,
            "{gpu}: mean |error| {:.1}% against GPGPU-Sim",
            100.0 * mean
        );
    }
    crashed
}

/// Simulates matrixMul_naive on preset `p` and evaluates the baseline inventory at 40 nm and
/// at 12 nm.
fn matmul_at_40_and_12(p: GpuPreset) -> (Outcome, Outcome) {
    let w = regwatt_workloads::get("matrixMul_naive").expect("workload");
    let spec = w.load_spec(regwatt_workloads::Size::Ci).expect("spec");
    let cfg = preset(p).expect("preset");
    let sim = simulate_spec(&spec, DesignSpec::Baseline, &cfg, &RunOptions::default())
        .expect("simulates");
    let ev = events(&cfg, &sim.activity);
    let at = |n: Node| {
        let inv = inventory(DesignSpec::Baseline, &at_node(&cfg, n)).expect("inventory");
        let (e, a) = inv.evaluate(sim.activity.cycles, &ev).expect("evaluates");
        let (e2, _) = inv
            .evaluate(sim.activity.cycles * 2, &ev)
            .expect("evaluates");
        Outcome { e, a, e2 }
    };
    (at(Node::N40), at(Node::N12))
}

/// Energy and area of one run; `e2`: the same events over twice the cycles.
struct Outcome {
    e: EnergySummary,
    a: AreaSummary,
    e2: EnergySummary,
}

#[test]
fn energy_scales_with_node_and_static_energy_with_cycles() {
    for p in GpuPreset::ALL {
        let (n40, n12) = matmul_at_40_and_12(p);
        assert!(
            n12.e.dynamic < n40.e.dynamic,
            "{p}: 12 nm dynamic not below 40 nm"
        );
        for a in &n40.e.components {
            assert!(a.dynamic.j() > 0.0, "{p}: {} has no dynamic energy", a.name);
        }
        // Issue 26 acceptance: the operand delivery costs less than the banks on
        // matrixMul_naive, on both presets at both nodes (the full-width crossbar it replaced
        // cost 2.6-5.0x the banks).
        for (node, o) in [("40nm", &n40), ("12nm", &n12)] {
            let dyn_of = |name: &str| {
                o.e.components
                    .iter()
                    .find(|c| c.name == name)
                    .map(|c| c.dynamic)
                    .expect(name)
            };
            assert!(
                dyn_of("operand_bus") <= dyn_of("rf_banks"),
                "{p} {node}: operand bus {} nJ, banks {} nJ",
                dyn_of("operand_bus").nj(),
                dyn_of("rf_banks").nj()
            );
        }
        // static energy is leakage x time: twice the cycles, twice the static energy
        let ratio = n40.e2.static_energy / n40.e.static_energy;
        assert!((ratio - 2.0).abs() < 1e-9, "{p}: ratio {ratio}");
        assert_eq!(n40.e2.dynamic, n40.e.dynamic);
    }
}

/// Issue 2 regression: on rtx2060 the 32 KB banks (128 B rows) came out about as large at 12 nm
/// as at 40 nm, so the whole RF was larger at 12 nm. The 12 nm local wire (28.8 Ω/µm) made the
/// wordline slow, the ED² search split it (Ndwl 4-8) and the H-tree bundles between mats widened
/// the bank. FinFET arrays strap the wordline on a higher metal (`wordline_layer` in the
/// technology file); with it, every component must be smaller and cheaper per event at 12 nm.
#[test]
fn at_12nm_area_and_every_component_below_40nm() {
    for p in GpuPreset::ALL {
        let (n40, n12) = matmul_at_40_and_12(p);
        assert!(
            n12.a.total < n40.a.total,
            "{p}: 12 nm area {:?} not below 40 nm {:?}",
            n12.a.total,
            n40.a.total
        );
        for (a, b) in n40.e.components.iter().zip(&n12.e.components) {
            assert!(b.dynamic < a.dynamic, "{p}: {}", a.name);
        }
    }
}
