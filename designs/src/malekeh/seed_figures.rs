//! Seed 003 (Malekeh) evaluated as the seed ran it: the Turing-like sub-core GPU (rtx2060 at
//! 12 nm), Malekeh's defaults (GTO, CCU-aware priority, RTHLD 12, dynamic STHLD), against the
//! baseline with the same operand collectors, on built-in workloads (the seed's Rodinia ones that regwatt
//! has; its DeepBench and tensor-core kernels have no counterpart). Figures: `seed_figures.toml`.

use crate::reproduce::{self as rp, Lookup, Plan, Run, Seed};

const GPU: &str = "rtx2060";

/// The seed's Rodinia workloads (Table II) that regwatt has built in, at every size; its
/// DeepBench kernels have no built-in counterpart.
fn workloads(_size: &str) -> &'static [&'static str] {
    &[
        "backprop",
        "bfs",
        "gaussian",
        "hotspot",
        "kmeans",
        "lud",
        "pathfinder",
        "srad",
    ]
}

const GTO_LRU: &str = "design.policy=gto_lru";

fn run(w: &str, design: &str) -> Run {
    Run::new(w, GPU, design)
}

fn hit_ratio(l: &Lookup<'_>, r: &Run) -> Result<f64, rp::ReproduceError> {
    let s = "/activity/design_stats/malekeh";
    let hits = l.num(r, &format!("{s}/hits"))?;
    let reads = l.num(r, &format!("{s}/source_reads"))?;
    Ok(100.0 * l.ratio(hits, reads, "source reads")?)
}

fn plan(id: &str, size: &str) -> Option<Plan> {
    let ws = workloads(size);
    let both: Vec<Run> = ws
        .iter()
        .flat_map(|w| [run(w, "malekeh"), run(w, "baseline")])
        .collect();
    type F = fn(&Lookup<'_>, &str) -> Result<f64, rp::ReproduceError>;
    type Agg = fn(&str, Vec<(String, f64)>) -> Result<rp::Value, rp::ReproduceError>;
    let over = |runs: Vec<Run>, agg: Agg, f: F| {
        Plan::over(
            runs,
            Box::new(move |l| agg(l.id, rp::per_workload(ws, |w| f(l, w))?)),
        )
    };
    let energy: F = |l, w| {
        let a = l.num(&run(w, "malekeh"), "/energy/dynamic_j")?;
        let b = l.num(&run(w, "baseline"), "/energy/dynamic_j")?;
        l.change_pct(a, b, "RF dynamic energy")
    };
    let kernel_ipc: F = |l, w| {
        let a = l.kernel_ipc(&run(w, "malekeh"))?;
        let b = l.kernel_ipc(&run(w, "baseline"))?;
        l.change_pct(a, b, "IPC")
    };
    Some(match id {
        "hit_ratio" => over(
            ws.iter().map(|w| run(w, "malekeh")).collect(),
            rp::mean,
            |l, w| hit_ratio(l, &run(w, "malekeh")),
        ),
        "bank_reads" => over(both, rp::mean, |l, w| {
            let a = l.num(
                &run(w, "malekeh"),
                "/activity/design_stats/malekeh/banks/reads",
            )?;
            let b = l.num(&run(w, "baseline"), "/activity/design_stats/baseline/reads")?;
            l.change_pct(a, b, "bank reads")
        }),
        "rf_dynamic_energy_mean" => over(both, rp::mean, energy),
        "rf_dynamic_energy_best" => over(both, rp::min, energy),
        "ipc_kernel_cycles" => over(both, rp::mean, kernel_ipc),
        "ipc_with_launch_latency" => over(both, rp::mean, |l, w| {
            let a = l.num(&run(w, "malekeh"), "/ipc")?;
            let b = l.num(&run(w, "baseline"), "/ipc")?;
            l.change_pct(a, b, "IPC")
        }),
        "ipc_worst" => over(both, rp::min, kernel_ipc),
        "gto_lru_hit_ratio" => over(
            ws.iter().map(|w| run(w, "malekeh").set(GTO_LRU)).collect(),
            rp::mean,
            |l, w| hit_ratio(l, &run(w, "malekeh").set(GTO_LRU)),
        ),
        "area" => Plan::over(
            vec![run(ws[0], "malekeh"), run(ws[0], "baseline")],
            Box::new(move |l| {
                let a = l.num(&run(ws[0], "malekeh"), "/area/total_mm2")?;
                let b = l.num(&run(ws[0], "baseline"), "/area/total_mm2")?;
                Ok(rp::single(l.change_pct(a, b, "area")?))
            }),
        ),
        "ipc_best" => over(both, rp::max, kernel_ipc),
        _ => return None,
    })
}

pub fn seed() -> Seed {
    Seed {
        number: "003",
        design: "malekeh",
        title: "Malekeh: A Lightweight, Compiler-Assisted Register File Cache for GPGPU",
        file: "designs/src/malekeh/seed_figures.toml",
        text: include_str!("seed_figures.toml"),
        plan,
    }
}
