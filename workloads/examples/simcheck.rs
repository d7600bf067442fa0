//! Runs every built-in workload (or those named) through regwatt-sim's functional executor
//! (`regwatt_sim::exec::run_spec`) and checks the final buffers against the Rust reference.
//! Prints per-workload launches, warp/thread instructions and divergent branches.
//!
//! `cargo run --release -p regwatt-workloads --example simcheck [--size ci|default|paper] [NAME...]`

use std::process::ExitCode;

use regwatt_sim::exec::{run_spec, RunOptions};
use regwatt_sim::launch::HostData;
use regwatt_workloads::{all, check, Buffers, Size, Tolerance, Workload};

/// Largest |actual - expected| over all float outputs, as a fraction of the allowed error
/// (0 = bit-identical everywhere).
fn tolerance_used(w: &Workload, expected: &Buffers, actual: &Buffers) -> f64 {
    let mut worst = 0.0f64;
    for (name, e) in expected {
        let (HostData::F32(e), Some(HostData::F32(a))) = (e, actual.get(name)) else {
            continue;
        };
        for (x, y) in e.iter().zip(a) {
            let diff = (*x as f64 - *y as f64).abs();
            if diff == 0.0 {
                continue;
            }
            let allowed = match w.tolerance(name) {
                Tolerance::Exact => 0.0,
                Tolerance::Float { abs, rel } => abs + rel * (*x as f64).abs(),
            };
            worst = worst.max(if allowed > 0.0 {
                diff / allowed
            } else {
                f64::INFINITY
            });
        }
    }
    worst
}

fn main() -> ExitCode {
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    let size = match names.iter().position(|a| a == "--size") {
        None => Size::Ci,
        Some(i) => {
            let parsed = names.get(i + 1).map(|v| v.parse::<Size>());
            names.drain(i..(i + 2).min(names.len()));
            match parsed {
                Some(Ok(s)) => s,
                Some(Err(e)) => {
                    eprintln!("{e}");
                    return ExitCode::from(2);
                }
                None => {
                    eprintln!("--size needs a value");
                    return ExitCode::from(2);
                }
            }
        }
    };
    let mut failed = false;
    println!(
        "{:<16} {:>8} {:>12} {:>14} {:>10} {:>9}  result",
        "workload", "launches", "warp_instr", "thread_instr", "div_branch", "tol_used"
    );
    for w in all()
        .iter()
        .filter(|w| names.is_empty() || names.iter().any(|n| n == w.name))
    {
        let outcome = (|| -> Result<(usize, u64, u64, u64, f64), String> {
            let spec = w.load_spec(size).map_err(|e| e.to_string())?;
            let expected = w
                .expected_final(&spec.initial_buffers(), &spec)
                .map_err(|e| e.to_string())?;
            let run = run_spec(&spec, &RunOptions::default()).map_err(|e| e.to_string())?;
            let warp: u64 = run.launches.iter().map(|l| l.warp_instructions).sum();
            let thread: u64 = run.launches.iter().map(|l| l.thread_instructions).sum();
            let div: u64 = run.launches.iter().map(|l| l.divergent_branches).sum();
            check(w, &expected, &run.buffers)
                .map_err(|m| format!("{m} [{warp} {thread} {div}]"))?;
            Ok((
                run.launches.len(),
                warp,
                thread,
                div,
                tolerance_used(w, &expected, &run.buffers),
            ))
        })();
        match outcome {
            Ok((n, warp, thread, div, used)) => println!(
                "{:<16} {n:>8} {warp:>12} {thread:>14} {div:>10} {used:>9.3}  ok",
                w.name
            ),
            Err(e) => {
                failed = true;
                println!("{:<16} FAIL {e}", w.name);
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
