//! Every built-in workload under the timing model with the baseline design on both GPU
//! presets reproduces its reference output; energy scales sensibly with node and time.

use regwatt_designs::config::{preset, GpuPreset, Node};
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
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((p, w)) = work.get(i) else { break };
                let r = (|| -> Result<(), String> {
                    let cfg = preset(*p).map_err(|e| e.to_string())?;
                    let spec = w.load_spec().map_err(|e| e.to_string())?;
                    let sim =
                        simulate_spec(&spec, DesignSpec::Baseline, &cfg, &RunOptions::default())
                            .map_err(|e| e.to_string())?;
                    if sim.activity.design_stats.unallocated_accesses() != 0 {
                        return Err("accesses to unallocated registers".into());
                    }
                    if sim.activity.core.uncollected_reads != 0 {
                        return Err("uncollected operand reads".into());
                    }
                    let exp = w
                        .reference(&spec.initial_buffers())
                        .map_err(|e| e.to_string())?;
                    regwatt_workloads::check(w, &exp, &sim.buffers).map_err(|e| e.to_string())
                })();
                if let Err(e) = r {
                    if let Ok(mut f) = failures.lock() {
                        f.push(format!("{} on {p}: {e}", w.name));
                    }
                }
            });
        }
    });
    let f = failures.into_inner().unwrap_or_default();
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
}

#[test]
fn energy_scales_with_node_and_static_energy_with_cycles() {
    let w = regwatt_workloads::get("matrixMul_naive").expect("workload");
    let spec = w.load_spec().expect("spec");
    for p in GpuPreset::ALL {
        let cfg = preset(p).expect("preset");
        let sim = simulate_spec(&spec, DesignSpec::Baseline, &cfg, &RunOptions::default())
            .expect("simulates");
        let ev = events(&cfg, &sim.activity);
        let c40 = at_node(&cfg, Node::N40);
        let c12 = at_node(&cfg, Node::N12);
        let (e40, a40) = inventory(DesignSpec::Baseline, &c40)
            .expect("inventory")
            .evaluate(sim.activity.cycles, &ev)
            .expect("evaluates");
        let (e12, a12) = inventory(DesignSpec::Baseline, &c12)
            .expect("inventory")
            .evaluate(sim.activity.cycles, &ev)
            .expect("evaluates");
        assert!(
            e12.dynamic < e40.dynamic,
            "{p}: 12 nm dynamic not below 40 nm"
        );
        assert!(a12.total < a40.total, "{p}: 12 nm area not below 40 nm");
        for (a, b) in e40.components.iter().zip(&e12.components) {
            assert!(a.dynamic.j() > 0.0, "{p}: {} has no dynamic energy", a.name);
            assert!(b.dynamic < a.dynamic, "{p}: {}", a.name);
        }
        // static energy is leakage x time: twice the cycles, twice the static energy
        let (e40x2, _) = inventory(DesignSpec::Baseline, &c40)
            .expect("inventory")
            .evaluate(sim.activity.cycles * 2, &ev)
            .expect("evaluates");
        let ratio = e40x2.static_energy / e40.static_energy;
        assert!((ratio - 2.0).abs() < 1e-9, "{p}: ratio {ratio}");
        assert_eq!(e40x2.dynamic, e40.dynamic);
    }
}
