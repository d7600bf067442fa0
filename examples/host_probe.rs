//! Is a slow `timing_sim` figure the simulator's or the host's?
//!
//! Alternates, `ROUNDS` times (default 20), five host probes with one simulation of the
//! `timing_sim` bench's workload (matrixMul naive, n = 128, rtx2060, baseline):
//! - `alu`: a register-only loop (8 independent integer chains, no memory operand), ms;
//! - `chase_32k` / `chase_1m` / `chase_16m`: a dependent pointer chase over a random cyclic
//!   permutation of 64-byte lines in a 32 KiB (L1d-sized), 1 MiB (L2-sized) or 16 MiB buffer
//!   (beyond the 2 MiB L2 of this host's cores), ns per load;
//! - `mlp_1m`: independent loads at pseudo-random lines of the same 1 MiB buffer (eight
//!   interleaved address streams, nothing waits for a loaded value), ns per load: bounded by
//!   how many misses the core keeps in flight (its reorder window and fill buffers, which a
//!   sibling hardware thread shares), where a dependent chase is bounded by latency alone;
//! - `sim`: the simulation's speed, M warp instructions per second.
//!
//! Prints one line per round, the spread (max / min) of each column and the Pearson correlation
//! of each probe with the simulation's time, the simulation's median speed, and its median over
//! the quarter of the rounds in which each probe was fastest. A host whose
//! core is shared with other tenants shows the memory probes moving with the simulator's speed
//! while `alu` stays put. Run it pinned to one core, next to nothing else:
//!
//! ```sh
//! cargo build --release --example host_probe
//! taskset -c 1 target/release/examples/host_probe 40
//! ```

use std::hint::black_box;
use std::time::Instant;

use regwatt_designs::config::{preset, GpuPreset};
use regwatt_designs::exec_model::simulate_spec;
use regwatt_designs::DesignSpec;
use regwatt_sim::timing::RunOptions;

/// Line size of the chased buffer (x86-64 and AArch64 L1d lines).
const LINE: usize = 64;
const WORDS_PER_LINE: usize = LINE / 8;

/// One step of Knuth's 64-bit MMIX linear congruential generator: every run of the probes
/// visits the same addresses.
fn lcg(x: u64) -> u64 {
    x.wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407)
}

/// A random cyclic permutation of the buffer's lines: word `8·i` holds the word index of the
/// next line visited, in an order drawn with [`lcg`].
fn chase_buffer(bytes: usize) -> Vec<usize> {
    let n = bytes / LINE;
    let mut order: Vec<usize> = (0..n).collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in (1..n).rev() {
        x = lcg(x);
        let j = ((x >> 33) as usize) % (i + 1);
        order.swap(i, j);
    }
    let mut buf = vec![0usize; n * WORDS_PER_LINE];
    for k in 0..n {
        buf[order[k] * WORDS_PER_LINE] = order[(k + 1) % n] * WORDS_PER_LINE;
    }
    buf
}

/// Nanoseconds per dependent load over `buf` (one warm-up lap first).
fn chase_ns(buf: &[usize], loads: usize) -> f64 {
    let mut p = 0usize;
    for _ in 0..buf.len() / WORDS_PER_LINE {
        p = buf[p];
    }
    let t = Instant::now();
    for _ in 0..loads {
        p = buf[p];
    }
    black_box(p);
    t.elapsed().as_secs_f64() * 1e9 / loads as f64
}

/// Nanoseconds per load for `loads` independent loads from `buf`: eight [`lcg`] address
/// streams (one multiply-add per load), each picking a line index from the high bits of its
/// state, and a sum no load depends on.
fn mlp_ns(buf: &[usize], loads: usize) -> f64 {
    let lines = (buf.len() / WORDS_PER_LINE) as u64;
    let mut x: [u64; 8] = black_box([1, 2, 3, 4, 5, 6, 7, 8]);
    let mut sum = 0usize;
    let t = Instant::now();
    for _ in 0..loads / 8 {
        for s in x.iter_mut() {
            *s = lcg(*s);
            let line = ((*s >> 32) * lines) >> 32;
            sum = sum.wrapping_add(buf[line as usize * WORDS_PER_LINE]);
        }
    }
    black_box(sum);
    t.elapsed().as_secs_f64() * 1e9 / (loads / 8 * 8) as f64
}

/// Milliseconds for a register-only loop: eight independent add/shift/xor chains.
fn alu_ms(iters: u64) -> f64 {
    let t = Instant::now();
    let mut v: [u64; 8] = black_box([1, 2, 3, 4, 5, 6, 7, 8]);
    for i in 0..iters {
        for x in v.iter_mut() {
            *x = x.wrapping_add(i ^ (*x >> 3));
            *x ^= *x << 1;
        }
        v = black_box(v);
    }
    black_box(v);
    t.elapsed().as_secs_f64() * 1e3
}

fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// The median (the mean of the two middle values for an even count); `v` is not empty.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Column names of the probes, in the order [`main`] runs them each round.
const PROBES: [&str; 5] = [
    "alu_ms",
    "chase_32k_ns",
    "chase_1m_ns",
    "chase_16m_ns",
    "mlp_1m_ns",
];

/// One output line: `label`, then each value right-aligned under its column name.
fn line(label: &str, names: &[&str], values: &[f64]) -> String {
    let mut s = format!("{label:<8}");
    for (n, v) in names.iter().zip(values) {
        s += &format!(" {v:>w$.2}", w = n.len());
    }
    s
}

fn main() -> anyhow::Result<()> {
    let rounds: usize = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .map_err(|e| anyhow::anyhow!("ROUNDS `{s}`: {e}"))?,
        None => 20,
    };
    anyhow::ensure!(rounds >= 2, "ROUNDS must be at least 2");
    let w = regwatt_workloads::get("matrixMul_naive")?;
    let spec = w.load_spec(regwatt_workloads::Size::Ci)?;
    let cfg = preset(GpuPreset::Rtx2060)?;
    let opts = RunOptions::default();
    let small = chase_buffer(32 << 10);
    let large = chase_buffer(1 << 20);
    let huge = chase_buffer(16 << 20);
    let mut names = PROBES.to_vec();
    names.push("sim_M/s");
    println!("{:<8} {}", "round", names.join(" "));
    let mut probes: [Vec<f64>; PROBES.len()] = Default::default();
    let (mut rate, mut secs) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        let row = [
            alu_ms(20_000_000),
            chase_ns(&small, 5_000_000),
            chase_ns(&large, 5_000_000),
            chase_ns(&huge, 2_000_000),
            mlp_ns(&large, 5_000_000),
        ];
        let t = Instant::now();
        let s = simulate_spec(&spec, DesignSpec::Baseline, &cfg, &opts)?;
        secs.push(t.elapsed().as_secs_f64());
        rate.push(s.activity.core.warp_instructions as f64 / secs[r] / 1e6);
        for (p, v) in probes.iter_mut().zip(row) {
            p.push(v);
        }
        println!(
            "{}",
            line(&r.to_string(), &names, &[&row[..], &[rate[r]]].concat())
        );
    }
    let spread = |v: &[f64]| {
        let max = v.iter().copied().fold(f64::MIN, f64::max);
        let min = v.iter().copied().fold(f64::MAX, f64::min);
        max / min
    };
    let mut spreads: Vec<f64> = probes.iter().map(|p| spread(p)).collect();
    spreads.push(spread(&rate));
    println!("{}", line("max/min", &names, &spreads));
    let corr: Vec<f64> = probes.iter().map(|p| pearson(p, &secs)).collect();
    println!(
        "{}  (correlation with the simulation's time)",
        line("corr", &names, &corr)
    );
    // for each probe, the quarter of the rounds in which it was fastest: the quietest host
    // that probe saw
    let quarter = rounds.div_ceil(4);
    let quiet = |probe: &[f64]| {
        let mut by: Vec<(f64, f64)> = probe.iter().copied().zip(rate.iter().copied()).collect();
        by.sort_by(|a, b| a.0.total_cmp(&b.0));
        median(by[..quarter].iter().map(|p| p.1).collect())
    };
    let quiet_medians: Vec<f64> = probes.iter().map(|p| quiet(p)).collect();
    println!("sim median {:.2} M/s", median(rate));
    for (n, q) in PROBES.iter().zip(quiet_medians) {
        println!("sim median over the {quarter} rounds with the fastest {n}: {q:.2} M/s");
    }
    Ok(())
}
