//! Functional execution speed: the built-in `matrixMul_naive` (n = 128, 8×8 CTAs of 16×16
//! threads) on the SIMT executor with a `FlatRegisterFile`. Throughput is reported in thread
//! instructions per second (criterion `Throughput::Elements`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use regwatt_sim::exec::{run_launch, LaunchConfig, Program, RunOptions};
use regwatt_sim::mem::{GlobalMemory, ParamSpace};

fn bench(c: &mut Criterion) {
    let w = regwatt_workloads::find("matrixMul_naive").expect("built-in matrixMul_naive");
    let spec = w
        .load_spec(regwatt_workloads::Size::Ci)
        .expect("spec loads");
    let mut global = GlobalMemory::new();
    global
        .alloc_buffers(&spec.initial_buffers())
        .expect("buffers allocate");
    let program =
        Program::from_ptx(&spec.ptx_path, &spec.ptx_source, &mut global).expect("PTX loads");
    let l = &spec.launches[0];
    let kernel = program.kernel(&l.kernel).expect("kernel exists");
    let pb = spec
        .param_block(0, &kernel.param_descs(), &|n| global.address_of(n))
        .expect("args convert");
    let params = ParamSpace::new(pb.bytes);
    let cfg = LaunchConfig {
        grid: l.grid,
        block: l.block,
        dynamic_shared_bytes: l.dynamic_shared_bytes,
    };
    let opts = RunOptions::default();
    let stats =
        run_launch(&program, kernel, &cfg, &params, &mut global, 0, &opts).expect("kernel runs");
    println!(
        "matrixMul_naive: {} warp instructions, {} thread instructions per launch",
        stats.warp_instructions, stats.thread_instructions
    );
    let mut g = c.benchmark_group("functional_exec");
    g.throughput(Throughput::Elements(stats.thread_instructions));
    g.sample_size(10);
    g.bench_function("matrixMul_naive_n128", |b| {
        b.iter(|| run_launch(&program, kernel, &cfg, &params, &mut global, 0, &opts).expect("runs"))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
