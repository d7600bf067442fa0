//! Seed 001 (Elango, MS thesis 2017, chapter 8) evaluated as the seed ran it: a Fermi-class
//! GPU with a 128 KB RF per SM (gtx480; the seed's 16 SMs are 15 here), the four-layer CNN in
//! its four versions (baseline, shared memory, L registers with corner cases handled and
//! skipped), cycles of the kernels (GPGPU-Sim 3.2.1 has no launch latency), power at the
//! whole GPU. The L-register versions run on `lreg`; the baseline and shared-memory versions
//! on the `baseline` design, the hardware the seed compares against. Figures:
//! `seed_figures.toml`.

use crate::reproduce::{self as rp, Lookup, Plan, Run, Seed};

const GPU: &str = "gtx480";
const LANES: &str = "memory_load_lanes";
const WARP_LOADS: &str = "memory_load_instructions";

/// The network's inputs at a size: at `ci` the MNIST 29x29 input only (test time), at the
/// other sizes the seed's three (29x29, 33x33, Cifar-10 grey).
fn inputs(size: &str) -> &'static [&'static str] {
    if size == "ci" {
        &["mnist29"]
    } else {
        &["mnist29", "mnist33", "cifar32g"]
    }
}

/// The run of one version (`""`, `_smem`, `_lreg`, `_lskip`) of an input.
fn run(input: &str, version: &str) -> Run {
    let design = if version.starts_with("_l") {
        "lreg"
    } else {
        "baseline"
    };
    Run::new(&format!("{input}{version}"), GPU, design).scope("gpu")
}

/// Every ld.global lane (`memory_load_lanes`) or warp instruction
/// (`memory_load_instructions`) that reached memory; the baseline design has no such counter,
/// so the unannotated versions are counted on `lreg`, where they run exactly as on the
/// baseline.
fn loads(l: &Lookup<'_>, r: &Run, counter: &str) -> Result<f64, rp::ReproduceError> {
    l.num(r, &format!("/activity/design_stats/lreg/{counter}"))
}

fn lreg_run(input: &str, version: &str) -> Run {
    Run::new(&format!("{input}{version}"), GPU, "lreg").scope("gpu")
}

/// Mean over the inputs of `f(input)`.
fn over_inputs(
    l: &Lookup<'_>,
    size: &str,
    f: impl Fn(&Lookup<'_>, &str) -> Result<f64, rp::ReproduceError>,
) -> Result<rp::Value, rp::ReproduceError> {
    rp::mean(l.id, rp::per_workload(inputs(size), |i| f(l, i))?)
}

fn plan(id: &str, size: &str) -> Option<Plan> {
    let size_s = size.to_string();
    let ins = inputs(size);
    let runs_of = |versions: &[(&str, bool)]| -> Vec<Run> {
        ins.iter()
            .flat_map(|i| {
                versions.iter().map(
                    move |(v, on_lreg)| {
                        if *on_lreg {
                            lreg_run(i, v)
                        } else {
                            run(i, v)
                        }
                    },
                )
            })
            .collect()
    };
    // loads: new version against a reference version, both counted on `lreg`
    let load_change = |new: &'static str, old: &'static str, counter: &'static str| {
        let sz = size_s.clone();
        Plan::over(
            runs_of(&[(new, true), (old, true)]),
            Box::new(move |l| {
                over_inputs(l, &sz, |l, i| {
                    let a = loads(l, &lreg_run(i, new), counter)?;
                    let b = loads(l, &lreg_run(i, old), counter)?;
                    l.change_pct(a, b, "loads")
                })
            }),
        )
    };
    // speed-up in kernel cycles: the version on its hardware against the reference on its own
    let speedup = |new: &'static str, old: &'static str| {
        let sz = size_s.clone();
        Plan::over(
            runs_of(&[(new, false), (old, false)]),
            Box::new(move |l| {
                over_inputs(l, &sz, |l, i| {
                    let a = l.kernel_cycles(&run(i, new))?;
                    let b = l.kernel_cycles(&run(i, old))?;
                    Ok(100.0 * (l.ratio(b, a, "cycles")? - 1.0))
                })
            }),
        )
    };
    let power = |old_on_lreg: bool| {
        let sz = size_s.clone();
        Plan::over(
            runs_of(&[("_lskip", false), ("", old_on_lreg)]),
            Box::new(move |l| {
                over_inputs(l, &sz, |l, i| {
                    let a = l.num(&run(i, "_lskip"), "/energy/average_power_w")?;
                    let old = if old_on_lreg {
                        lreg_run(i, "")
                    } else {
                        run(i, "")
                    };
                    let b = l.num(&old, "/energy/average_power_w")?;
                    l.change_pct(a, b, "average power")
                })
            }),
        )
    };
    // Fig. 34: IPC at 30-cycle L1D and shared-memory latency against 10 cycles, on mnist29
    let latency = |version: &'static str| {
        let at = |lat: u32| {
            run("mnist29", version)
                .set(&format!("gpu.memory.l1d_hit_latency={lat}"))
                .set(&format!("gpu.memory.shared.latency={lat}"))
        };
        Plan::over(
            vec![at(10), at(30)],
            Box::new(move |l| {
                let fast = l.kernel_ipc(&at(10))?;
                let slow = l.kernel_ipc(&at(30))?;
                Ok(rp::single(l.change_pct(slow, fast, "IPC")?))
            }),
        )
    };
    Some(match id {
        "loads_skip_vs_baseline" => load_change("_lskip", "", LANES),
        "loads_skip_vs_shared" => load_change("_lskip", "_smem", LANES),
        "loads_corners_vs_baseline" => load_change("_lreg", "", LANES),
        "warp_loads_corners_vs_baseline" => load_change("_lreg", "", WARP_LOADS),
        "loads_corners_vs_shared" => load_change("_lreg", "_smem", LANES),
        "speedup_skip_vs_baseline" => speedup("_lskip", ""),
        "speedup_skip_vs_shared" => speedup("_lskip", "_smem"),
        "speedup_corners_vs_baseline" => speedup("_lreg", ""),
        "speedup_corners_vs_shared" => speedup("_lreg", "_smem"),
        "power_skip_vs_baseline" => power(false),
        "power_skip_vs_baseline_on_lreg" => power(true),
        "latency_baseline" => latency(""),
        "latency_skip" => latency("_lskip"),
        "scheduler_gto_vs_lrr" => {
            // gtx480 schedules GTO: the GTO run is the default one the speed-up rows use
            let at = |p: &str| match p {
                "gto" => run("mnist29", "_lskip"),
                _ => run("mnist29", "_lskip").set(&format!("sm.scheduler.policy={p}")),
            };
            Plan::over(
                vec![at("gto"), at("lrr")],
                Box::new(move |l| {
                    let gto = l.kernel_cycles(&at("gto"))?;
                    let lrr = l.kernel_cycles(&at("lrr"))?;
                    Ok(rp::single(100.0 * (l.ratio(lrr, gto, "cycles")? - 1.0)))
                }),
            )
        }
        "output_error" => Plan::NotRun(
            "the mean square error needs the seed's trained weights and images; regwatt's network runs synthetic ones (workloads/README.md)".into(),
        ),
        _ => return None,
    })
}

pub fn seed() -> Seed {
    Seed {
        number: "001",
        design: "lreg",
        title: "Elango, CNN Acceleration on GPU by Exploiting Data Reuse (MS thesis 2017)",
        file: "designs/src/lreg/seed_figures.toml",
        text: include_str!("seed_figures.toml"),
        plan,
    }
}
