//! Seed 000 (Jeon et al., IEEE CAL 2019) evaluated as the seed ran it: gtx480 (Fermi-class
//! 128 KB RF per SM), a two-level warp scheduler (§4; six active warps, the number the same
//! authors use in seed 002 §8.6), the seed's baseline with virtual register mapping (regwatt's
//! `renaming`), CifarNet and AlexNet (Tango-shaped) and the naive matrixMul. Figures:
//! `seed_figures.toml`.

use crate::reproduce::{self as rp, Lookup, Plan, Run, Seed};

const GPU: &str = "gtx480";
const TWO_LEVEL: &str = "sm.scheduler.policy={two_level={active_warps=6}}";
const CNNS: [&str; 2] = ["cifarnet", "alexnet"];

fn run(w: &str, design: &str) -> Run {
    Run::new(w, GPU, design).set(TWO_LEVEL)
}

/// `100 × (sharing / reference − 1)` of the number at `ptr`, on `w`.
fn change(l: &Lookup<'_>, w: &str, reference: &str, ptr: &str) -> Result<f64, rp::ReproduceError> {
    let a = l.num(&run(w, "sharing"), ptr)?;
    let b = l.num(&run(w, reference), ptr)?;
    l.change_pct(a, b, ptr)
}

/// Speed-up of sharing over the renaming baseline in %, kernel cycles.
fn speedup(l: &Lookup<'_>, w: &str) -> Result<f64, rp::ReproduceError> {
    let s = l.kernel_cycles(&run(w, "sharing"))?;
    let b = l.kernel_cycles(&run(w, "renaming"))?;
    Ok(100.0 * (l.ratio(b, s, "kernel cycles")? - 1.0))
}

fn pair(w: &str, reference: &str) -> Vec<Run> {
    vec![run(w, "sharing"), run(w, reference)]
}

fn plan(id: &str, _size: &str) -> Option<Plan> {
    let one = |w: &'static str, reference: &'static str, ptr: &'static str| {
        Plan::over(
            pair(w, reference),
            Box::new(move |l| Ok(rp::single(change(l, w, reference, ptr)?))),
        )
    };
    Some(match id {
        "global_load_instructions_cifarnet" => one(
            "cifarnet",
            "renaming",
            "/activity/memory/global_instructions",
        ),
        "l2_reads_cifarnet" => one("cifarnet", "renaming", "/activity/memory/l2_sector_reads"),
        "global_load_instructions_alexnet" => one(
            "alexnet",
            "renaming",
            "/activity/memory/global_instructions",
        ),
        "l2_reads_alexnet" => one("alexnet", "renaming", "/activity/memory/l2_sector_reads"),
        "l1d_reads_cifarnet" => one("cifarnet", "renaming", "/activity/memory/l1d_sector_reads"),
        "dram_reads_cifarnet" => one("cifarnet", "renaming", "/activity/memory/dram_sector_reads"),
        "l1d_reads_alexnet" => one("alexnet", "renaming", "/activity/memory/l1d_sector_reads"),
        "dram_reads_alexnet" => one("alexnet", "renaming", "/activity/memory/dram_sector_reads"),
        "registers_cifarnet" => one("cifarnet", "renaming", "/registers/allocated_peak"),
        "registers_alexnet" => one("alexnet", "renaming", "/registers/allocated_peak"),
        "cnn_speedup_end_to_end" => Plan::over(
            CNNS.iter().flat_map(|w| pair(w, "renaming")).collect(),
            Box::new(|l| rp::max(l.id, rp::per_workload(&CNNS, |w| speedup(l, w))?)),
        ),
        "cnn_speedup_per_layer" => Plan::over(
            CNNS.iter().flat_map(|w| pair(w, "renaming")).collect(),
            Box::new(|l| {
                let mut per = Vec::new();
                for w in CNNS {
                    let s = &l.get(&run(w, "sharing"))?.launches;
                    let b = &l.get(&run(w, "renaming"))?.launches;
                    if s.len() != b.len() {
                        return Err(rp::ReproduceError::Metric {
                            id: l.id.into(),
                            message: format!("{w}: {} launches against {}", s.len(), b.len()),
                        });
                    }
                    for (i, (x, y)) in s.iter().zip(b).enumerate() {
                        let r =
                            l.ratio(y.kernel_cycles as f64, x.kernel_cycles as f64, "cycles")?;
                        per.push((format!("{w}/{}:{}", i + 1, x.kernel), 100.0 * (r - 1.0)));
                    }
                }
                rp::max(l.id, per)
            }),
        ),
        "matrixmul_speedup" => Plan::over(
            pair("matrixMul_naive", "renaming"),
            Box::new(|l| Ok(rp::single(speedup(l, "matrixMul_naive")?))),
        ),
        "matrixmul_registers" => one("matrixMul_naive", "renaming", "/registers/allocated_peak"),
        "matrixmul_registers_vs_baseline" => Plan::over(
            vec![
                run("matrixMul_naive", "sharing"),
                run("matrixMul_naive", "baseline"),
            ],
            Box::new(|l| {
                let a = l.num(
                    &run("matrixMul_naive", "sharing"),
                    "/registers/allocated_peak",
                )?;
                let b = l.num(
                    &run("matrixMul_naive", "baseline"),
                    "/registers/architected_peak",
                )?;
                Ok(rp::single(l.change_pct(a, b, "registers")?))
            }),
        ),
        "partial_sharing_share" => Plan::over(
            CNNS.iter().map(|w| run(w, "sharing")).collect(),
            Box::new(|l| {
                rp::max(
                    l.id,
                    rp::per_workload(&CNNS, |w| {
                        let r = run(w, "sharing");
                        let p = "/activity/design_stats/sharing";
                        let part = l.num(&r, &format!("{p}/partial_hits"))?;
                        let all = part
                            + l.num(&r, &format!("{p}/perfect_hits"))?
                            + l.num(&r, &format!("{p}/fill_waits"))?;
                        Ok(if all == 0.0 { 0.0 } else { 100.0 * part / all })
                    })?,
                )
            }),
        ),
        "area" => Plan::over(
            vec![run("cifarnet", "sharing")],
            Box::new(|l| {
                // regwatt's entry: the seed's 38 search bits, a physical register id and a
                // valid bit (hardware.rs)
                let r = run("cifarnet", "sharing");
                let launches = l.get(&r)?.launches.len() as f64;
                let sms = l.num(&r, "/config/gpu/sms")?;
                let rows = l.num(&r, "/activity/rf/physical_registers")? / sms / launches;
                let entries = l.num(&r, "/config/design/amt_entries")?;
                let bits = 38.0 + rows.log2().ceil() + 1.0;
                Ok(rp::single(entries * bits / 8.0 / 1024.0))
            }),
        ),
        _ => return None,
    })
}

pub fn seed() -> Seed {
    Seed {
        number: "000",
        design: "sharing",
        title: "Jeon et al., Locality-aware GPU Register File (IEEE CAL 2019)",
        file: "designs/src/sharing/seed_figures.toml",
        text: include_str!("seed_figures.toml"),
        plan,
    }
}
