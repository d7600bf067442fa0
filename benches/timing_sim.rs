//! Timing-simulation throughput in warp instructions per second (`Throughput::Elements`):
//!
//! * `matrixMul_naive_128/<gpu>/<design>`: matrixMul (naive, n = 128, `ci` size) with every
//!   design (`DesignSpec::ALL`) on every preset it supports, always on; the baseline is the
//!   reference each design's time is compared with (docs/speed.md);
//! * `matrixMul_naive_128/rtx2060/<design>+tri-modal`: the baseline and renaming with every
//!   power state counted;
//! * `matrixMul_naive_128_rows32x8/gtx480/{baseline,sharing}`: the same kernel launched in
//!   32x8 blocks (each warp one matrix row, the matrixMul of Jeon et al. 2019 §2.1), where
//!   `sharing` serves about half of the loads from registers;
//! * `mnist29_lreg/gtx480/{baseline,lreg}`: the CNN of Elango 2017 with the L-register
//!   annotation, with the baseline and with `lreg`.

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
    // every design on every preset it supports, plus the power modes that add per-access
    // work on rtx2060
    let mut runs: Vec<(GpuPreset, DesignSpec, PowerMode)> = Vec::new();
    for gpu in [GpuPreset::Rtx2060, GpuPreset::Gtx480] {
        for design in DesignSpec::ALL.into_iter().filter(|d| d.supports(gpu)) {
            runs.push((gpu, design, PowerMode::AlwaysOn));
        }
    }
    for design in [DesignSpec::Baseline, DesignSpec::Renaming] {
        runs.push((GpuPreset::Rtx2060, design, PowerMode::TriModal));
    }
    for (gpu, design, mode) in runs {
        let name = match mode {
            PowerMode::AlwaysOn => format!("matrixMul_naive_128/{gpu}/{design}"),
            _ => format!("matrixMul_naive_128/{gpu}/{design}+{}", mode.name()),
        };
        let ov = Overrides {
            design: Some(design),
            power_mode: Some(mode),
            ..Overrides::default()
        };
        let Ok(cfg) = resolve(gpu, &ov) else {
            eprintln!("timing_sim: {name}: preset does not resolve");
            continue;
        };
        let Ok(first) = simulate_spec(&spec, design, &cfg, &opts) else {
            eprintln!("timing_sim: {name}: simulation failed");
            continue;
        };
        g.throughput(Throughput::Elements(first.activity.core.warp_instructions));
        g.bench_function(name, |b| {
            b.iter(|| simulate_spec(&spec, design, &cfg, &opts).map(|s| s.activity.cycles))
        });
    }
    let mut rows = spec.clone();
    for l in &mut rows.launches {
        l.grid = [4, 16, 1];
        l.block = [32, 8, 1];
    }
    // the workloads where sharing and lreg do their work, against the baseline
    let mut gtx480 = vec![
        ("matrixMul_naive_128_rows32x8", &rows, DesignSpec::Baseline),
        ("matrixMul_naive_128_rows32x8", &rows, DesignSpec::Sharing),
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
