//! Full SRAM organisation searches (`regwatt_power::sram::estimate`), the two cases of the
//! speed target: a 4 KB register bank (16 B rows, 1R + 1W ports, 1 bank) and a 256 KB array of
//! 8 banks of 32 KB with 128 B rows. Both at 40 nm (interpolated node), 360 K, ECC, ED².
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use regwatt_power::sram::{estimate, SramSpec};
use regwatt_tech::units::Temperature;
use regwatt_tech::Technology;

fn bench(c: &mut Criterion) {
    let tech = Technology::for_node(40.0, Temperature::from_k(360.0)).expect("40 nm");
    let mut regbank = SramSpec::ram(4096, 16, 40.0);
    regbank.rw_ports = 0;
    regbank.rd_ports = 1;
    regbank.wr_ports = 1;
    let mut big = SramSpec::ram(256 * 1024, 128, 40.0);
    big.banks = 8;
    c.bench_function("sram_search_4KB_16B_1R1W", |b| {
        b.iter(|| estimate(black_box(&regbank), black_box(&tech)).expect("valid"))
    });
    c.bench_function("sram_search_256KB_8x32KB_128B", |b| {
        b.iter(|| estimate(black_box(&big), black_box(&tech)).expect("valid"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
