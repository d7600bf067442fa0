//! PTX front-end speed: parse + analyse (CFG, liveness, register allocation, release flags,
//! reuse distances) of a ~10k-instruction kernel (`sim/testdata/ptx/unrolled_10k.ptx`,
//! generated from `unrolled_10k.cu` by `sim/testdata/ptx/gen.py`).
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use regwatt_sim::analysis::analyze;
use regwatt_sim::ptx::parse;

const SRC: &str = include_str!("../sim/testdata/ptx/unrolled_10k.ptx");

fn bench(c: &mut Criterion) {
    let m = parse("unrolled_10k.ptx", SRC).expect("benchmark PTX parses");
    let n: usize = m.functions.iter().map(|f| f.instrs.len()).sum();
    let mut g = c.benchmark_group("ptx_frontend");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    g.bench_function("parse_10k", |b| {
        b.iter(|| parse("unrolled_10k.ptx", std::hint::black_box(SRC)).map(|m| m.functions.len()))
    });
    g.bench_function("parse_and_analyse_10k", |b| {
        b.iter(|| {
            let m = parse("unrolled_10k.ptx", std::hint::black_box(SRC)).expect("parses");
            m.kernels().map(|k| analyze(k).alloc.registers).sum::<u32>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
