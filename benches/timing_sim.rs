//! Timing-simulation throughput: matrixMul (naive, n = 128) on the rtx2060 preset, in warp
//! instructions per second (`Throughput::Elements`):
//!
//! * `baseline`: the baseline register file, always on (the reference);
//! * `baseline+tri-modal`: the same with power states counted (issue 27: every mode's state
//!   cycles come from one counted run; target within 1.5x of always-on);
//! * `renaming`: design `renaming` with its defaults (issue 28: target within 1.5x of the
//!   baseline);
//! * `renaming+tri-modal`: renaming with power states counted;
//! * `malekeh`: design `malekeh` with its defaults (issue 29: target within 1.5x of the
//!   baseline);
//! * `rows32x8/baseline`, `rows32x8/sharing`: the same kernel launched in 32x8 blocks (each
//!   warp one matrix row, seed 000 §2.1's matrixMul), where `sharing` serves about half of the
//!   loads from registers (issue 31: target within 2x of the baseline);
//! * `matrixMul_naive_128/gtx480/baseline`, `.../cerf`: the kernel on gtx480 with the
//!   baseline and with design `cerf` (issue 30: target within 2x of the baseline);
//! * `mnist29_lreg/gtx480/baseline`, `.../lreg`: seed 001's network with the L-register
//!   annotation on gtx480, with the baseline and with design `lreg` (issue 32: target within
//!   1.5x of the baseline).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use regwatt_designs::config::{resolve, GpuPreset, Overrides, PowerMode};
use regwatt_designs::exec_model::simulate_spec;
use regwatt_designs::DesignSpec;
use regwatt_sim::timing::RunOptions;

fn bench(c: &mut Criterion) {
    let Ok(w) = regwatt_workloads::get("matrixMul_naive") else {
        eprintln!("timing_sim: workload unavailable");
        return;
    };
    let Ok(spec) = w.load_spec(regwatt_workloads::Size::Ci) else {
        eprintln!("timing_sim: spec does not load");
        return;
    };
    let opts = RunOptions::default();
    let mut g = c.benchmark_group("timing_sim");
    g.sample_size(10);
    for (name, design, mode) in [
        ("baseline", DesignSpec::Baseline, PowerMode::AlwaysOn),
        (
            "baseline+tri-modal",
            DesignSpec::Baseline,
            PowerMode::TriModal,
        ),
        ("renaming", DesignSpec::Renaming, PowerMode::AlwaysOn),
        (
            "renaming+tri-modal",
            DesignSpec::Renaming,
            PowerMode::TriModal,
        ),
        ("malekeh", DesignSpec::Malekeh, PowerMode::AlwaysOn),
    ] {
        let ov = Overrides {
            design: Some(design),
            power_mode: Some(mode),
            ..Overrides::default()
        };
        let Ok(cfg) = resolve(GpuPreset::Rtx2060, &ov) else {
            eprintln!("timing_sim: {name}: preset does not resolve");
            continue;
        };
        let Ok(first) = simulate_spec(&spec, design, &cfg, &opts) else {
            eprintln!("timing_sim: {name}: simulation failed");
            continue;
        };
        g.throughput(Throughput::Elements(first.activity.core.warp_instructions));
        g.bench_function(format!("matrixMul_naive_128/rtx2060/{name}"), |b| {
            b.iter(|| simulate_spec(&spec, design, &cfg, &opts).map(|s| s.activity.cycles))
        });
    }
    let mut rows = spec.clone();
    for l in &mut rows.launches {
        l.grid = [4, 16, 1];
        l.block = [32, 8, 1];
    }
    let mut gtx480 = vec![
        ("matrixMul_naive_128_rows32x8", &rows, DesignSpec::Baseline),
        ("matrixMul_naive_128_rows32x8", &rows, DesignSpec::Sharing),
        ("matrixMul_naive_128", &spec, DesignSpec::Baseline),
        ("matrixMul_naive_128", &spec, DesignSpec::Cerf),
    ];
    let nn = regwatt_workloads::get("mnist29_lreg")
        .ok()
        .and_then(|w| w.load_spec(regwatt_workloads::Size::Ci).ok());
    if let Some(nn) = &nn {
        gtx480.push(("mnist29_lreg", nn, DesignSpec::Baseline));
        gtx480.push(("mnist29_lreg", nn, DesignSpec::Lreg));
    }
    for (label, spec, design) in gtx480 {
        let name = format!("{label}/gtx480/{design}");
        let ov = Overrides {
            design: Some(design),
            ..Overrides::default()
        };
        let Ok(cfg) = resolve(GpuPreset::Gtx480, &ov) else {
            eprintln!("timing_sim: {name}: preset does not resolve");
            continue;
        };
        let Ok(first) = simulate_spec(spec, design, &cfg, &opts) else {
            eprintln!("timing_sim: {name}: simulation failed");
            continue;
        };
        g.throughput(Throughput::Elements(first.activity.core.warp_instructions));
        g.bench_function(name, |b| {
            b.iter(|| simulate_spec(spec, design, &cfg, &opts).map(|s| s.activity.cycles))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
