//! Idle-SM gating (`power.idle_sm_gating`): with it on, the static energy of a run is at most
//! the ungated one, component by component, in every power mode; the GPU-wide components
//! (L2, interconnect, DRAM) and every dynamic energy are unchanged; the saving reported is
//! the difference; and a run whose every SM holds a CTA for the whole kernel (`sms=1`: the
//! one SM takes every CTA back to back) gets the ungated static energy in the kernels'
//! window. Cycles do not change. Through the binary: the `run` line and JSON field, and an
//! override of the wrong type named with its key.

use crate::common;

use common::{assert_fails, assert_success, regwatt, text};
use regwatt_designs::config::{resolve, GpuPreset, Overrides, PowerMode, Scope};
use regwatt_designs::exec_model::simulate_spec;
use regwatt_designs::run::inventory;
use regwatt_designs::{DesignSpec, RunReport};
use regwatt_sim::timing::RunOptions;

const WORKLOADS: [&str; 3] = ["vectorAdd", "matrixMul_tiled", "bfs"];

fn config(
    p: GpuPreset,
    mode: PowerMode,
    gating: bool,
    sets: &[&str],
) -> Result<regwatt_designs::ResolvedConfig, String> {
    let mut sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    sets.push(format!("power.idle_sm_gating={gating}"));
    // a drowsy row stays awake a while after its last access, into the SM's idle windows
    sets.push("power.drowsy_timeout=50".into());
    resolve(
        p,
        &Overrides {
            sets,
            scope: Some(Scope::Gpu),
            power_mode: Some(mode),
            ..Overrides::default()
        },
    )
    .map_err(|e| e.to_string())
}

/// Off and on for one (GPU, workload, mode, overrides): the checks of the module docs.
/// Returns whether every SM was busy for the whole kernel.
fn compare(p: GpuPreset, w: &str, mode: PowerMode, sets: &[&str]) -> Result<bool, String> {
    let (off_cfg, on_cfg) = (config(p, mode, false, sets)?, config(p, mode, true, sets)?);
    let wl = regwatt_workloads::all()
        .iter()
        .find(|x| x.name == w)
        .ok_or(format!("no workload {w}"))?;
    let spec = wl
        .load_spec(regwatt_workloads::Size::Ci)
        .map_err(|e| e.to_string())?;
    let opts = RunOptions::default();
    let sim =
        simulate_spec(&spec, DesignSpec::Baseline, &on_cfg, &opts).map_err(|e| e.to_string())?;
    let plain =
        simulate_spec(&spec, DesignSpec::Baseline, &off_cfg, &opts).map_err(|e| e.to_string())?;
    if sim.activity.cycles != plain.activity.cycles
        || sim.activity.core != plain.activity.core
        || sim.activity.memory != plain.activity.memory
    {
        return Err("counting idle-SM states changed the simulation".into());
    }
    let inv = inventory(DesignSpec::Baseline, &on_cfg).map_err(|e| e.to_string())?;
    let report = |c| {
        RunReport::new(
            w,
            DesignSpec::Baseline,
            c,
            &inv,
            &sim.activity,
            sim.launch_cycles,
        )
        .map_err(|e| e.to_string())
    };
    let (off, on) = (report(&off_cfg)?, report(&on_cfg)?);
    // the ungated evaluation of the activity is the plain run's
    let plain_off = RunReport::new(
        w,
        DesignSpec::Baseline,
        &off_cfg,
        &inv,
        &plain.activity,
        plain.launch_cycles,
    )
    .map_err(|e| e.to_string())?;
    if plain_off.energy.total != off.energy.total {
        return Err("the ungated energy depends on the idle-SM record".into());
    }
    let levels = &on
        .energy
        .scope
        .as_ref()
        .ok_or("no scope record")?
        .component_levels;
    for (x, y) in off.energy.components.iter().zip(&on.energy.components) {
        if x.dynamic != y.dynamic {
            return Err(format!("{}: dynamic energy changed", x.name));
        }
        if y.static_energy > x.static_energy {
            return Err(format!(
                "{}: gated static {} J > ungated {} J",
                x.name,
                y.static_energy.j(),
                x.static_energy.j()
            ));
        }
        if levels[&x.name] == Scope::Gpu && y.static_energy != x.static_energy {
            return Err(format!("{}: a GPU-wide component was gated", x.name));
        }
    }
    let g = on.energy.idle_sm_gating.ok_or("no idle_sm_gating record")?;
    if g.static_saved != off.energy.static_energy - on.energy.static_energy {
        return Err("static_saved_j is not the difference".into());
    }
    if on.launch_latency.static_energy > off.launch_latency.static_energy
        || g.launch_latency_static_saved
            != off.launch_latency.static_energy - on.launch_latency.static_energy
    {
        return Err("launch latency static energy".into());
    }
    let busy = sim.activity.core.sm_busy_frac;
    if g.sm_busy_frac != busy.value() {
        return Err(format!(
            "busy share {} is not activity.core.sm_busy_frac {}",
            g.sm_busy_frac,
            busy.value()
        ));
    }
    let full = busy.num == busy.den;
    if full && on.energy.static_energy != off.energy.static_energy {
        return Err(format!(
            "every SM busy the whole kernel, yet static {} J != {} J",
            on.energy.static_energy.j(),
            off.energy.static_energy.j()
        ));
    }
    if !full && g.static_saved.j() <= 0.0 {
        return Err(format!("busy share {} but nothing saved", busy.value()));
    }
    Ok(full)
}

#[test]
fn gated_static_energy_is_at_most_ungated_and_equal_when_every_sm_is_busy() {
    let mut work = Vec::new();
    for p in GpuPreset::ALL {
        for w in WORKLOADS {
            for mode in PowerMode::ALL {
                work.push((p, w, mode, false));
            }
            work.push((p, w, PowerMode::AlwaysOn, true));
            work.push((p, w, PowerMode::TriModal, true));
        }
    }
    let fulls = std::sync::Mutex::new(0usize);
    let f = common::failures_on_two_threads(
        &work,
        |(p, w, m, one)| format!("{w} on {p}, {m}{}", if *one { ", sms=1" } else { "" }),
        |&(p, w, m, one)| {
            let sets: &[&str] = if one { &["sms=1"] } else { &[] };
            let full = compare(p, w, m, sets)?;
            if one && !full {
                return Err("one SM was not busy the whole kernel".into());
            }
            if full {
                *fulls.lock().map_err(|e| e.to_string())? += 1;
            }
            Ok(())
        },
    );
    assert!(f.is_empty(), "{}", f.join("\n"));
    assert!(*fulls.lock().expect("count") >= 12);
}

/// Every design passes the SM's busy stretches to its register tracker (the design seam's
/// `sm_occupied`): the idle share of its row-cycles is the idle share of the SM-cycles
/// (`1 − sm_busy_frac`, up to the one-cycle ends of the busy stretches), not the whole run
/// (a design that passed nothing would count every cycle idle and charge no cell).
#[test]
fn every_design_counts_the_idle_share_of_its_rows() {
    let work: Vec<_> = GpuPreset::ALL
        .iter()
        .flat_map(|p| {
            DesignSpec::ALL
                .iter()
                .filter(move |d| d.supports(*p))
                .map(move |d| (*p, *d))
        })
        .collect();
    let f = common::failures_on_two_threads(
        &work,
        |(p, d)| format!("{} on {p}", d.name()),
        |&(p, d)| {
            let cfg = resolve(
                p,
                &Overrides {
                    sets: vec!["power.idle_sm_gating=true".into()],
                    power_mode: Some(PowerMode::TriModal),
                    design: Some(d),
                    ..Overrides::default()
                },
            )
            .map_err(|e| e.to_string())?;
            let wl = regwatt_workloads::all()
                .iter()
                .find(|x| x.name == "vectorAdd")
                .ok_or("no vectorAdd")?;
            let spec = wl
                .load_spec(regwatt_workloads::Size::Ci)
                .map_err(|e| e.to_string())?;
            let sim =
                simulate_spec(&spec, d, &cfg, &RunOptions::default()).map_err(|e| e.to_string())?;
            let ps = sim
                .activity
                .rf
                .power_states
                .as_ref()
                .ok_or("no power states")?;
            let idle = ps.sm_idle.ok_or("no idle share")?;
            let tracked = idle.row_cycles as f64 / ps.row_cycles as f64;
            let busy = sim.activity.core.sm_busy_frac.value();
            if !(busy < 1.0 && (tracked - (1.0 - busy)).abs() < 0.01) {
                return Err(format!(
                    "idle share of the rows {tracked:.4}, of the SM-cycles {:.4}",
                    1.0 - busy
                ));
            }
            let inv = inventory(d, &cfg).map_err(|e| e.to_string())?;
            let r = RunReport::new("vectorAdd", d, &cfg, &inv, &sim.activity, sim.launch_cycles)
                .map_err(|e| e.to_string())?;
            let pm = r.power_management.ok_or("no power management")?;
            if pm.cells.j() <= 0.0 {
                return Err("no cell energy".into());
            }
            Ok(())
        },
    );
    assert!(f.is_empty(), "{}", f.join("\n"));
}

#[test]
fn run_shows_the_busy_share_and_the_saving() {
    let o = regwatt(&[
        "run",
        "--workload",
        "vectorAdd",
        "--size",
        "ci",
        "--gpu",
        "rtx2060",
        "--set",
        "power.idle_sm_gating=true",
    ]);
    assert_success(&o, "gated run");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("idle-SM gating: per-SM static energy charged for"),
        "{}",
        text(&o)
    );
    let o = regwatt(&[
        "run",
        "--workload",
        "vectorAdd",
        "--size",
        "ci",
        "--gpu",
        "rtx2060",
        "--json",
        "--set",
        "power.idle_sm_gating=true",
    ]);
    assert_success(&o, "gated run, JSON");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let g = &v["energy"]["idle_sm_gating"];
    assert!(g["static_saved_j"].as_f64().is_some_and(|x| x > 0.0), "{v}");
    assert_eq!(g["sm_busy_frac"], v["activity"]["core"]["sm_busy_frac"]);
    assert_eq!(v["config"]["power"]["idle_sm_gating"], true);
    // off (the presets' default): no record, no key in the configuration
    let o = regwatt(&[
        "run",
        "--workload",
        "vectorAdd",
        "--size",
        "ci",
        "--gpu",
        "rtx2060",
        "--json",
    ]);
    assert_success(&o, "plain run, JSON");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["energy"].get("idle_sm_gating").is_none());
    assert!(v["config"]["power"].get("idle_sm_gating").is_none());
    let e = assert_fails(
        &regwatt(&[
            "run",
            "--workload",
            "vectorAdd",
            "--size",
            "ci",
            "--gpu",
            "gtx480",
            "--set",
            "power.idle_sm_gating=2",
        ]),
        "non-boolean idle_sm_gating",
    );
    assert!(e.contains("power.idle_sm_gating"), "{e}");
}
