//! Seed 004 (Jing et al., Cache-Emulated Register File, 2016) evaluated as the seed ran it: a
//! Fermi-class GPU (gtx480 at 40 nm) with a separate 16 KB L1D and 128 KB RF as the baseline,
//! CERF with LRU-fair replacement, suite workloads and the cache-sensitive PolyBench/STREAM
//! kernels regwatt has built in; Fig. 10's comparator is the `unified` design. Figures:
//! `seed_figures.toml`.

use crate::reproduce::{self as rp, Lookup, Plan, Run, Seed};

const GPU: &str = "gtx480";

/// Cache-sensitive kernels (the seed's Fig. 9 and 15 set that regwatt has).
const CACHE_SENSITIVE: [&str; 6] = ["atax", "bicg", "mvt", "gemm", "syrk", "stream_triad"];

/// The other workloads: at `ci` seven of the suite (test time; matrixMul_naive, the
/// slowest, left out), otherwise the suite.
fn suite(size: &str) -> &'static [&'static str] {
    const ALL: [&str; 27] = [
        "BlackScholes",
        "backprop",
        "bfs",
        "collatz",
        "conv_large",
        "conv_mnist",
        "dct8x8",
        "fc",
        "gaussian",
        "histogram",
        "hotspot",
        "kmeans",
        "lud",
        "mandelbrot",
        "matrixMul_naive",
        "matrixMul_tiled",
        "maxpool",
        "nbody",
        "nw",
        "pathfinder",
        "reduction",
        "scan",
        "srad",
        "transpose",
        "vectorAdd",
        "cifarnet",
        "alexnet",
    ];
    if size == "ci" {
        &[
            "BlackScholes",
            "bfs",
            "gaussian",
            "hotspot",
            "kmeans",
            "nbody",
            "srad",
        ]
    } else {
        &ALL
    }
}

fn run(w: &str, design: &str) -> Run {
    Run::new(w, GPU, design).scope("gpu")
}

/// Σ live register-cycles over Σ (physical registers × kernel cycles), per launch: the share
/// of the RF's register-cycles holding a live value (launches run one after another, each
/// with the whole RF).
fn live_share(l: &Lookup<'_>, r: &Run) -> Result<f64, rp::ReproduceError> {
    let launches = &l.get(r)?.launches;
    let live: u64 = launches.iter().map(|x| x.live_register_cycles).sum();
    let cap: f64 = launches
        .iter()
        .map(|x| x.physical_registers as f64 * x.kernel_cycles as f64)
        .sum();
    l.ratio(live as f64, cap, "register-cycles")
}

fn baseline_hit_rate(l: &Lookup<'_>, w: &str) -> Result<f64, rp::ReproduceError> {
    let r = run(w, "baseline");
    let hits = l.num(&r, "/activity/memory/l1d_sector_read_hits")?;
    let reads = l.num(&r, "/activity/memory/l1d_sector_reads")?;
    if reads == 0.0 {
        return Ok(0.0);
    }
    Ok(100.0 * hits / reads)
}

fn cerf_hit_rate(l: &Lookup<'_>, w: &str) -> Result<f64, rp::ReproduceError> {
    let r = run(w, "cerf");
    let s = "/activity/design_stats/cerf";
    let lines = l.num(&r, &format!("{s}/load_lines"))?;
    if lines == 0.0 {
        return Ok(0.0);
    }
    let hits =
        l.num(&r, &format!("{s}/load_hits"))? + l.num(&r, &format!("{s}/load_inflight_hits"))?;
    Ok(100.0 * hits / lines)
}

const PRIORITIZED: &str = "design.replacement=lru-prioritized";

/// cerf's largest associativity (`design.ways`, a power of two up to 32).
const ALL_WAYS: &str = "design.ways=32";

/// Kernel cycles per warp instruction of run `r`.
fn cpi(l: &Lookup<'_>, r: &Run) -> Result<f64, rp::ReproduceError> {
    l.ratio(
        l.kernel_cycles(r)?,
        l.num(r, "/warp_instructions")?,
        "instructions",
    )
}

/// Baseline CPI over cerf CPI on `w`; `sets`: cerf's overrides.
fn speedup_ratio_with(l: &Lookup<'_>, w: &str, sets: &[&str]) -> Result<f64, rp::ReproduceError> {
    let mut ours = run(w, "cerf");
    for s in sets {
        ours = ours.set(s);
    }
    l.ratio(cpi(l, &run(w, "baseline"))?, cpi(l, &ours)?, "CPI")
}

fn speedup_ratio(l: &Lookup<'_>, w: &str) -> Result<f64, rp::ReproduceError> {
    speedup_ratio_with(l, w, &[])
}

fn plan(id: &str, size: &str) -> Option<Plan> {
    let suite = suite(size);
    let all: Vec<&'static str> = suite
        .iter()
        .chain(CACHE_SENSITIVE.iter())
        .copied()
        .collect();
    let both = |ws: &[&str]| -> Vec<Run> {
        ws.iter()
            .flat_map(|w| [run(w, "cerf"), run(w, "baseline")])
            .collect()
    };
    Some(match id {
        "rf_holes" => Plan::over(
            suite.iter().map(|w| run(w, "baseline")).collect(),
            Box::new(move |l| {
                rp::mean(
                    l.id,
                    rp::per_workload(suite, |w| {
                        Ok(100.0 * (1.0 - live_share(l, &run(w, "baseline"))?))
                    })?,
                )
            }),
        ),
        "speedup_all" => {
            let ws = all.clone();
            Plan::over(
                both(&all),
                Box::new(move |l| {
                    let v = rp::geomean_change_pct(
                        l.id,
                        rp::per_workload(&ws, |w| speedup_ratio(l, w))?,
                    )?;
                    Ok(v)
                }),
            )
        }
        "speedup_all_prioritized" => {
            let ws = all.clone();
            let runs = all
                .iter()
                .flat_map(|w| [run(w, "cerf").set(PRIORITIZED), run(w, "baseline")])
                .collect();
            Plan::over(
                runs,
                Box::new(move |l| {
                    rp::geomean_change_pct(
                        l.id,
                        rp::per_workload(&ws, |w| speedup_ratio_with(l, w, &[PRIORITIZED]))?,
                    )
                }),
            )
        }
        "speedup_cache_sensitive_max" => Plan::over(
            both(&CACHE_SENSITIVE),
            Box::new(|l| {
                rp::max(
                    l.id,
                    rp::per_workload(&CACHE_SENSITIVE, |w| speedup_ratio(l, w))?,
                )
            }),
        ),
        "hit_rate_points" => {
            let ws = all.clone();
            Plan::over(
                both(&all),
                Box::new(move |l| {
                    rp::mean(
                        l.id,
                        rp::per_workload(&ws, |w| {
                            Ok(cerf_hit_rate(l, w)? - baseline_hit_rate(l, w)?)
                        })?,
                    )
                }),
            )
        }
        "utilisation" => Plan::over(
            both(suite),
            Box::new(move |l| {
                rp::mean(
                    l.id,
                    rp::per_workload(suite, |w| {
                        let r = run(w, "cerf");
                        let s = "/activity/design_stats/cerf/state_cycles";
                        let st: Vec<f64> = (0..4)
                            .map(|i| l.num(&r, &format!("{s}/{i}")))
                            .collect::<Result<_, _>>()?;
                        let total: f64 = st.iter().sum();
                        // state 0 is inactive (CerfStats::utilisation)
                        let ours = 1.0 - l.ratio(st[0], total, "entry-cycles")?;
                        let base = live_share(l, &run(w, "baseline"))?;
                        l.change_pct(ours, base, "utilisation")
                    })?,
                )
            }),
        ),
        "energy_cache_sensitive" => Plan::over(
            both(&CACHE_SENSITIVE),
            Box::new(|l| {
                rp::mean(
                    l.id,
                    rp::per_workload(&CACHE_SENSITIVE, |w| {
                        let a = l.num(&run(w, "cerf"), "/energy/total_j")?;
                        let b = l.num(&run(w, "baseline"), "/energy/total_j")?;
                        l.change_pct(a, b, "energy")
                    })?,
                )
            }),
        ),
        "area" => Plan::over(
            vec![run(suite[0], "cerf"), run(suite[0], "baseline")],
            Box::new(move |l| {
                let area = |d: &str, parts: &[&str]| -> Result<f64, rp::ReproduceError> {
                    let r = run(suite[0], d);
                    parts
                        .iter()
                        .map(|c| l.num(&r, &format!("/area/components_mm2/{c}")))
                        .sum()
                };
                let ours = area("cerf", &["rf_banks", "tag_array"])?;
                let base = area("baseline", &["rf_banks", "l1d_data", "l1d_tag"])?;
                Ok(rp::single(l.change_pct(ours, base, "area")?))
            }),
        ),
        "against_unified" => Plan::over(
            CACHE_SENSITIVE
                .iter()
                .flat_map(|w| [run(w, "cerf"), run(w, "unified")])
                .collect(),
            Box::new(|l| {
                rp::geomean_change_pct(
                    l.id,
                    rp::per_workload(&CACHE_SENSITIVE, |w| {
                        l.ratio(cpi(l, &run(w, "unified"))?, cpi(l, &run(w, "cerf"))?, "CPI")
                    })?,
                )
            }),
        ),
        "against_unified_equal_ways" => Plan::over(
            CACHE_SENSITIVE
                .iter()
                .flat_map(|w| [run(w, "cerf").set(ALL_WAYS), run(w, "unified")])
                .collect(),
            Box::new(|l| {
                rp::geomean_change_pct(
                    l.id,
                    rp::per_workload(&CACHE_SENSITIVE, |w| {
                        l.ratio(
                            cpi(l, &run(w, "unified"))?,
                            cpi(l, &run(w, "cerf").set(ALL_WAYS))?,
                            "CPI",
                        )
                    })?,
                )
            }),
        ),
        "unified_bfs" => Plan::over(
            vec![run("bfs", "unified"), run("bfs", "baseline")],
            Box::new(|l| {
                let r = l.ratio(
                    cpi(l, &run("bfs", "baseline"))?,
                    cpi(l, &run("bfs", "unified"))?,
                    "CPI",
                )?;
                Ok(rp::single(100.0 * (r - 1.0)))
            }),
        ),
        _ => return None,
    })
}

pub fn seed() -> Seed {
    Seed {
        number: "004",
        design: "cerf",
        title: "Jing et al., Cache-Emulated Register File (2016)",
        file: "designs/src/cerf/seed_figures.toml",
        text: include_str!("seed_figures.toml"),
        plan,
    }
}
