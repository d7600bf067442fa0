//! Seed 002 (Jeon & Annavaram, USC TR 2014) evaluated as the seed ran it: Fermi-class gtx480
//! with its 128 KB RF at 40 nm (the seed's CACTI node), a two-level warp scheduler with six
//! active warps (§8.6), the 1 KB renaming table, and the seed's Table 3 workloads that regwatt
//! has built in (its own implementations and sizes). Figures: `seed_figures.toml`.

use crate::reproduce::{self as rp, Lookup, Plan, Run, Seed};

const GPU: &str = "gtx480";
const TWO_LEVEL: &str = "sm.scheduler.policy={two_level={active_warps=6}}";
/// Fig. 2's window: the first 10,000 cycles.
const WINDOW: u64 = 10_000;

/// The seed's Table 3 workloads regwatt has (matrixMul: the SDK's tiled kernel). At `ci` a
/// subset of eight (test time).
fn workloads(size: &str) -> &'static [&'static str] {
    const ALL: [&str; 13] = [
        "matrixMul_tiled",
        "BlackScholes",
        "dct8x8",
        "nbody",
        "reduction",
        "vectorAdd",
        "backprop",
        "bfs",
        "hotspot",
        "kmeans",
        "pathfinder",
        "lud",
        "gaussian",
    ];
    if size == "ci" {
        &[
            "matrixMul_tiled",
            "BlackScholes",
            "dct8x8",
            "reduction",
            "vectorAdd",
            "bfs",
            "kmeans",
            "gaussian",
        ]
    } else {
        &ALL
    }
}

fn run(w: &str, design: &str) -> Run {
    Run::new(w, GPU, design)
        .set(TWO_LEVEL)
        .node("40nm")
        .window(WINDOW)
}

/// Registers ever allocated, summed over SMs and launches: registers whose allocated cycles
/// are not 0 (`activity.rf.per_register_allocated_cycles`, bucket 0 = never allocated).
fn ever_allocated(l: &Lookup<'_>, r: &Run) -> Result<f64, rp::ReproduceError> {
    let count = l.num(r, "/activity/rf/per_register_allocated_cycles/count")?;
    let never = l
        .num(r, "/activity/rf/per_register_allocated_cycles/buckets/0")
        .unwrap_or(0.0);
    Ok(count - never)
}

fn plan(id: &str, size: &str) -> Option<Plan> {
    let ws = workloads(size);
    let both = |mode: &str| -> Vec<Run> {
        ws.iter()
            .flat_map(|w| [run(w, "baseline").mode(mode), run(w, "renaming").mode(mode)])
            .collect()
    };
    let only = |design: &str| -> Vec<Run> { ws.iter().map(|w| run(w, design)).collect() };
    type F = fn(&Lookup<'_>, &str) -> Result<f64, rp::ReproduceError>;
    let mean = |runs: Vec<Run>, f: F| {
        Plan::over(
            runs,
            Box::new(move |l| rp::mean(l.id, rp::per_workload(ws, |w| f(l, w))?)),
        )
    };
    // the gated cells' static energy, renaming (rows off when released) against the
    // baseline gating `release`: the seed's (§8.3: on from the first write, never off) or
    // regwatt's own (off when the warp frees the row)
    let cells = |mode: &'static str, release: &'static str| {
        let base = move |w: &str| {
            run(w, "baseline")
                .mode(mode)
                .set(&format!("power.gating_release={release}"))
        };
        let runs = ws
            .iter()
            .flat_map(|w| [base(w), run(w, "renaming").mode(mode)])
            .collect();
        Plan::over(
            runs,
            Box::new(move |l| {
                rp::mean(
                    l.id,
                    rp::per_workload(ws, |w| {
                        let a =
                            l.num(&run(w, "renaming").mode(mode), "/power_management/cells_j")?;
                        let b = l.num(&base(w), "/power_management/cells_j")?;
                        l.change_pct(a, b, "cells' static energy")
                    })?,
                )
            }),
        )
    };
    Some(match id {
        "live_share_first_window" => mean(only("baseline"), |l, w| {
            let r = run(w, "baseline");
            let live = l.num(&r, "/activity/rf/register_series/0/live_register_cycles")?;
            let alloc = l.num(
                &r,
                "/activity/rf/register_series/0/allocated_register_cycles",
            )?;
            Ok(100.0 * l.ratio(live, alloc, "reserved register cycles")?)
        }),
        "registers_ever_allocated" => mean(both(""), |l, w| {
            let a = ever_allocated(l, &run(w, "renaming"))?;
            let b = ever_allocated(l, &run(w, "baseline"))?;
            l.change_pct(a, b, "registers ever allocated")
        }),
        "registers_concurrent_peak" => mean(only("renaming"), |l, w| {
            let r = run(w, "renaming");
            let a = l.num(&r, "/registers/allocated_peak")?;
            let b = l.num(&r, "/registers/architected_peak")?;
            l.change_pct(a, b, "register peak")
        }),
        "static_vs_subarray_gating" => cells("subarray-gating", "never"),
        "static_vs_register_gating" => cells("register-gating", "never"),
        "static_vs_subarray_gating_at_free" => cells("subarray-gating", "free"),
        "static_vs_register_gating_at_free" => cells("register-gating", "free"),
        "table_static_overhead" => mean(only("renaming"), |l, w| {
            let r = run(w, "renaming");
            let t = l.component(&r, "rename_table", "static_j")?;
            let b = l.component(&r, "rf_banks", "static_j")?;
            Ok(100.0 * l.ratio(t, b, "rf_banks static energy")?)
        }),
        "table_dynamic_overhead" => mean(only("renaming"), |l, w| {
            let r = run(w, "renaming");
            let t = l.component(&r, "rename_table", "dynamic_j")?;
            let b = l.component(&r, "rf_banks", "dynamic_j")?;
            Ok(100.0 * l.ratio(t, b, "rf_banks dynamic energy")?)
        }),
        "cycles_mean" => mean(both(""), |l, w| {
            let a = l.kernel_cycles(&run(w, "renaming"))?;
            let b = l.kernel_cycles(&run(w, "baseline"))?;
            l.change_pct(a, b, "kernel cycles")
        }),
        "cycles_worst" => Plan::over(
            both(""),
            Box::new(move |l| {
                rp::max(
                    l.id,
                    rp::per_workload(ws, |w| {
                        let a = l.kernel_cycles(&run(w, "renaming"))?;
                        let b = l.kernel_cycles(&run(w, "baseline"))?;
                        l.change_pct(a, b, "kernel cycles")
                    })?,
                )
            }),
        ),
        "dynamic_instructions" => mean(only("renaming"), |l, w| {
            let r = run(w, "renaming");
            let s = "/activity/design_stats/renaming";
            let added = l.num(&r, &format!("{s}/flag_cache_misses"))?
                + l.num(&r, &format!("{s}/pbr_instructions"))?;
            Ok(100.0 * l.ratio(added, l.num(&r, "/warp_instructions")?, "warp instructions")?)
        }),
        "static_code" => mean(only("renaming"), |l, w| {
            let r = run(w, "renaming");
            let s = "/activity/design_stats/renaming";
            let added = l.num(&r, &format!("{s}/pir_instructions_static"))?
                + l.num(&r, &format!("{s}/pbr_instructions_static"))?;
            let k = l.num(&r, &format!("{s}/kernel_instructions"))?;
            Ok(100.0 * l.ratio(added, k, "kernel instructions")?)
        }),
        "area" => {
            let runs = vec![run(ws[0], "renaming"), run(ws[0], "baseline")];
            Plan::over(
                runs,
                Box::new(move |l| {
                    let a = l.num(&run(ws[0], "renaming"), "/area/total_mm2")?;
                    let b = l.num(&run(ws[0], "baseline"), "/area/total_mm2")?;
                    Ok(rp::single(l.change_pct(a, b, "area")?))
                }),
            )
        }
        "scheduler_sensitivity" => {
            let policies = ["sm.scheduler.policy=gto", "sm.scheduler.policy=lrr"];
            let at = |w: &str, p: Option<&str>| {
                let r = run(w, "renaming");
                match p {
                    None => r,
                    Some(p) => Run::new(w, GPU, "renaming")
                        .set(p)
                        .node("40nm")
                        .window(WINDOW),
                }
            };
            let mut runs = Vec::new();
            for w in ws {
                runs.push(at(w, None));
                for p in policies {
                    runs.push(at(w, Some(p)));
                }
            }
            Plan::over(
                runs,
                Box::new(move |l| {
                    let saving = |p: Option<&str>| -> Result<f64, rp::ReproduceError> {
                        let per = rp::per_workload(ws, |w| {
                            let r = at(w, p);
                            let a = l.num(&r, "/registers/allocated_peak")?;
                            let b = l.num(&r, "/registers/architected_peak")?;
                            l.change_pct(a, b, "register peak")
                        })?;
                        Ok(rp::mean(l.id, per)?.value)
                    };
                    let per = vec![
                        ("two_level_6".to_string(), saving(None)?),
                        ("gto".to_string(), saving(Some(policies[0]))?),
                        ("lrr".to_string(), saving(Some(policies[1]))?),
                    ];
                    let hi = per.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
                    let lo = per.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
                    Ok(rp::Value {
                        value: hi - lo,
                        per_workload: per,
                    })
                }),
            )
        }
        _ => return None,
    })
}

pub fn seed() -> Seed {
    Seed {
        number: "002",
        design: "renaming",
        title: "Jeon & Annavaram, Hardware Co-operated Register Reallocation (USC TR 2014)",
        file: "designs/src/renaming/seed_figures.toml",
        text: include_str!("seed_figures.toml"),
        plan,
    }
}
