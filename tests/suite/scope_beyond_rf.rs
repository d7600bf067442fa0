//! `--scope sm` and `--scope gpu` report L1D, L2, DRAM and execution energy for every
//! workload (DRAM: every workload that reads global memory; mandelbrot only writes, and its
//! output stays in the write-back L2, which the timing model does not flush at the end of a
//! kernel).
//!
//! Every workload of [`common::design_suite`] (every built-in workload but the NN benchmark's
//! other input sizes, whose kernels are mnist29's) is simulated once per GPU preset, with the
//! host data starting in DRAM (`memory.l2_preload_host_data = false`: with the presets'
//! Accel-Sim/GPGPU-Sim `-gpgpu_perf_sim_memcpy 1`, inputs start in the L2 and most workloads
//! never reach DRAM), and the one activity record is evaluated at scopes `rf`, `sm` and
//! `gpu`. Through the binary: `regwatt run --scope` output and errors.

use crate::common;

use common::{assert_fails, assert_success, regwatt, text};
use regwatt_designs::config::{resolve, GpuPreset, Overrides, Scope};
use regwatt_designs::exec_model::simulate_spec;
use regwatt_designs::run::inventory;
use regwatt_designs::{DesignSpec, RunReport};
use regwatt_sim::timing::RunOptions;

fn config(p: GpuPreset, scope: Scope) -> Result<regwatt_designs::ResolvedConfig, String> {
    resolve(
        p,
        &Overrides {
            sets: vec!["memory.l2_preload_host_data=false".into()],
            scope: Some(scope),
            ..Overrides::default()
        },
    )
    .map_err(|e| e.to_string())
}

#[test]
fn sm_and_gpu_scopes_report_memory_and_execution_energy_for_every_workload() {
    let work: Vec<_> = GpuPreset::ALL
        .iter()
        .flat_map(|p| common::design_suite().into_iter().map(move |w| (*p, w)))
        .collect();
    let f = common::failures_on_two_threads(
        &work,
        |(p, w)| format!("{} on {p}", w.name),
        |(p, w)| {
            let cfgs: Vec<_> = Scope::ALL
                .iter()
                .map(|s| config(*p, *s))
                .collect::<Result<_, _>>()?;
            let spec = w
                .load_spec(regwatt_workloads::Size::Ci)
                .map_err(|e| e.to_string())?;
            // one simulation for every scope (the timing model knows nothing of energy)
            let sim = simulate_spec(
                &spec,
                DesignSpec::Baseline,
                &cfgs[0],
                &RunOptions::default(),
            )
            .map_err(|e| e.to_string())?;
            let inv = inventory(DesignSpec::Baseline, &cfgs[0]).map_err(|e| e.to_string())?;
            let reports: Vec<RunReport> = cfgs
                .iter()
                .map(|c| {
                    RunReport::new(
                        w.name,
                        DesignSpec::Baseline,
                        c,
                        &inv,
                        &sim.activity,
                        sim.launch_cycles,
                    )
                })
                .collect::<Result<_, _>>()
                .map_err(|e| e.to_string())?;
            let m = &sim.activity.memory;
            if reports[0].energy.scope.is_some() {
                return Err("scope rf has a scope record".into());
            }
            for r in &reports[1..] {
                let dynamic = |name: &str| {
                    r.energy
                        .components
                        .iter()
                        .find(|c| c.name == name)
                        .map(|c| c.dynamic.j())
                        .ok_or_else(|| format!("no component {name}"))
                };
                // DRAM: every workload that reads global memory reaches it (its inputs start
                // there); one that only writes (mandelbrot) leaves its output dirty in the
                // L2, which the timing model does not flush at the end of a kernel
                let dram_sectors = m.dram_sector_reads + m.dram_sector_writes;
                if (dram_sectors > 0) != (dynamic("dram")? > 0.0)
                    || (m.l2_sector_reads > 0 && dram_sectors == 0)
                {
                    return Err(format!(
                        "scope {}: DRAM energy {} J, {} DRAM sectors, {} L2 sector reads",
                        r.config.scope(),
                        dynamic("dram")?,
                        dram_sectors,
                        m.l2_sector_reads
                    ));
                }
                for name in [
                    "l1d_data",
                    "l1d_tag",
                    "l2_data",
                    "l2_tag",
                    "interconnect",
                    "exec_units",
                ] {
                    if dynamic(name)? <= 0.0 {
                        return Err(format!("scope {}: no {name} energy", r.config.scope()));
                    }
                }
                if (m.shared_accesses > 0) != (dynamic("shared_memory")? > 0.0) {
                    return Err(format!(
                        "shared memory energy vs {} accesses",
                        m.shared_accesses
                    ));
                }
                // the RF part is the rf report's
                let s = r.energy.scope.as_ref().ok_or("no scope record")?;
                if s.rf.total != reports[0].energy.total {
                    return Err("the RF level differs from the rf report".into());
                }
            }
            let (sm, gpu) = (&reports[1], &reports[2]);
            let (s, g) = (
                sm.energy.scope.as_ref().ok_or("sm")?,
                gpu.energy.scope.as_ref().ok_or("gpu")?,
            );
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
            if !close(sm.energy.total.j(), s.rf.total.j() + s.sm.total.j())
                || !close(
                    gpu.energy.total.j(),
                    g.rf.total.j() + g.sm.total.j() + g.gpu.total.j(),
                )
            {
                return Err("totals are not the sums of the scope's levels".into());
            }
            Ok(())
        },
    );
    assert!(f.is_empty(), "{} failures:\n{}", f.len(), f.join("\n"));
}

/// `regwatt run --scope`: the text names the scope and the levels; the JSON carries the
/// scope in `config.beyond_rf` and `energy.scope`; `--out` adds `level,in_total` columns;
/// an unknown scope is a clear error.
#[test]
fn run_scope_through_the_binary() {
    let o = regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--gpu",
        "gtx480",
        "--set",
        "sms=2",
        "--scope",
        "sm",
    ]);
    assert_success(&o, "regwatt run --scope sm");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("scope sm: the totals include the levels rf + sm"),
        "{out}"
    );
    assert!(out.contains("l2_data*") && out.contains("dram*"), "{out}");
    assert!(out.contains("total (scope sm)"), "{out}");

    let dir = common::tmp_dir("scope_beyond_rf", "run-out");
    let o = regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--gpu",
        "rtx2060",
        "--set",
        "sms=2",
        "--scope",
        "gpu",
        "--json",
        "--out",
        dir.to_str().expect("utf8"),
    ]);
    assert_success(&o, "regwatt run --scope gpu --json");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["config"]["beyond_rf"]["scope"], "gpu");
    assert_eq!(v["energy"]["scope"]["scope"], "gpu");
    assert_eq!(v["energy"]["scope"]["component_levels"]["dram"], "gpu");
    let csv = std::fs::read_to_string(dir.join("energy.csv")).expect("energy.csv");
    assert!(csv.starts_with("workload,size,gpu,design,node,node_nm,power_mode,scope,component,level,in_total,record,name,count,energy_per_event_pj,dynamic_j,static_j,area_mm2\n"), "{csv}");
    assert!(
        csv.contains(",gpu,l1d_data,sm,true,area,instances,2,"),
        "{csv}"
    );
    let toml = std::fs::read_to_string(dir.join("resolved_config.toml")).expect("config");
    assert!(
        toml.contains("[beyond_rf]") && toml.contains("scope = \"gpu\""),
        "{toml}"
    );

    let o = regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--gpu",
        "rtx2060",
        "--scope",
        "chip",
    ]);
    let err = assert_fails(&o, "--scope chip");
    assert!(err.contains("unknown energy scope `chip`"), "{}", text(&o));
    let o = regwatt(&[
        "report",
        "--size",
        "ci",
        "--scope",
        "board",
        "--workloads",
        "vectorAdd",
    ]);
    let err = assert_fails(&o, "report --scope board");
    assert!(err.contains("unknown energy scope `board`"), "{}", text(&o));
}

/// `regwatt report --scope gpu`: a `scope` column in the summary, `[beyond_rf]` in every
/// configuration, the scope record in every run.
#[test]
fn report_scope_through_the_binary() {
    let dir = common::tmp_dir("scope_beyond_rf", "report-gpu");
    let o = regwatt(&[
        "report",
        "--size",
        "ci",
        "--scope",
        "gpu",
        "--workloads",
        "vectorAdd",
        "--jobs",
        "1",
        "--out",
        dir.to_str().expect("utf8"),
    ]);
    assert_success(&o, "regwatt report --scope gpu");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("scope gpu: energy and area totals include the levels rf + sm + gpu"),
        "{out}"
    );
    let csv = std::fs::read_to_string(dir.join("summary.csv")).expect("summary.csv");
    assert!(
        csv.lines()
            .next()
            .is_some_and(|h| h.contains(",power_mode,scope,")),
        "{csv}"
    );
    // 1 workload x every (GPU, design it supports) x 2 nodes
    assert_eq!(
        csv.lines().count(),
        1 + 2 * common::supported_pairs(),
        "{csv}"
    );
    assert!(
        csv.lines()
            .skip(1)
            .all(|l| l.ends_with(",ok") && l.contains(",always-on,gpu,")),
        "{csv}"
    );
    let toml = std::fs::read_to_string(dir.join("config/rtx2060-12nm.toml")).expect("config");
    assert!(toml.contains("scope = \"gpu\""), "{toml}");
    let run: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join("runs/gtx480/baseline/vectorAdd-40nm.json")).expect("run json"),
    )
    .expect("json");
    assert_eq!(
        run["energy"]["scope"]["levels_in_total"],
        serde_json::json!(["rf", "sm", "gpu"])
    );
}
