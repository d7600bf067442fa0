//! Every built-in workload under the timing model with the baseline design on both GPU
//! presets reproduces its reference output; energy scales sensibly with node and time.

mod common;

use regwatt_designs::config::{preset, GpuPreset, Node};
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
    let f = common::failures_on_two_threads(
        &work,
        |(p, w)| format!("{} on {p}", w.name),
        |(p, w)| {
            let cfg = preset(*p).map_err(|e| e.to_string())?;
            let spec = w.load_spec().map_err(|e| e.to_string())?;
            let buffers = common::simulate_baseline(&spec, &cfg)?;
            let exp = w
                .reference(&spec.initial_buffers())
                .map_err(|e| e.to_string())?;
            regwatt_workloads::check(w, &exp, &buffers).map_err(|e| e.to_string())
        },
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
}

/// Simulates matrixMul_naive on preset `p` and evaluates the baseline inventory at 40 nm and
/// at 12 nm.
fn matmul_at_40_and_12(p: GpuPreset) -> (Outcome, Outcome) {
    let w = regwatt_workloads::get("matrixMul_naive").expect("workload");
    let spec = w.load_spec().expect("spec");
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
fn issue2_12nm_area_and_every_component_below_40nm() {
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
