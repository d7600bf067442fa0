//! Timing-simulation throughput: matrixMul (naive, n = 128) on the rtx2060 preset with the
//! baseline register file, in warp instructions per second (`Throughput::Elements`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use regwatt_designs::config::{preset, GpuPreset};
use regwatt_designs::exec_model::simulate_spec;
use regwatt_designs::DesignSpec;
use regwatt_sim::timing::RunOptions;

fn bench(c: &mut Criterion) {
    let (Ok(w), Ok(cfg)) = (
        regwatt_workloads::get("matrixMul_naive"),
        preset(GpuPreset::Rtx2060),
    ) else {
        eprintln!("timing_sim: workload or preset unavailable");
        return;
    };
    let Ok(spec) = w.load_spec() else {
        eprintln!("timing_sim: spec does not load");
        return;
    };
    let opts = RunOptions::default();
    let Ok(first) = simulate_spec(&spec, DesignSpec::Baseline, &cfg, &opts) else {
        eprintln!("timing_sim: simulation failed");
        return;
    };
    let mut g = c.benchmark_group("timing_sim");
    g.sample_size(10);
    g.throughput(Throughput::Elements(first.activity.core.warp_instructions));
    g.bench_function("matrixMul_naive_128/rtx2060/baseline", |b| {
        b.iter(|| {
            simulate_spec(&spec, DesignSpec::Baseline, &cfg, &opts).map(|s| s.activity.cycles)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
