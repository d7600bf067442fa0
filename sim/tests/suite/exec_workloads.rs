//! Every built-in workload runs on the functional executor (with the register allocator's
//! architectural registers behind the `RegisterAccess` seam) and reproduces its Rust reference
//! at its `ci` and `default` sizes: integers exactly, floats within the workload's documented
//! tolerance. (`paper` inputs take minutes each; `regwatt exec --workload NAME --size paper`
//! checks them the same way.)

use regwatt_sim::exec::{run_spec, RunOptions};
use regwatt_workloads::Size;

fn run_one(name: &str, size: Size) -> Result<u64, String> {
    let w = regwatt_workloads::find(name).ok_or(format!("no workload {name}"))?;
    let spec = w.load_spec(size).map_err(|e| e.to_string())?;
    let expected = w
        .expected_final(&spec.initial_buffers(), &spec)
        .map_err(|e| e.to_string())?;
    let run = run_spec(&spec, &RunOptions::default()).map_err(|e| e.to_string())?;
    regwatt_workloads::check(w, &expected, &run.buffers).map_err(|e| e.to_string())?;
    let warp: u64 = run.launches.iter().map(|l| l.warp_instructions).sum();
    if warp == 0 {
        return Err(format!("{name}: no instructions executed"));
    }
    Ok(warp)
}

fn every_workload_at(size: Size) -> Vec<(&'static str, u64)> {
    let mut failures = Vec::new();
    let mut done = Vec::new();
    for w in regwatt_workloads::all()
        .iter()
        .filter(|w| w.sizes().contains(&size))
    {
        match run_one(w.name, size) {
            Ok(n) => {
                eprintln!("PASS {} ({size}, {n} warp instructions)", w.name);
                done.push((w.name, n));
            }
            Err(e) => {
                eprintln!("FAIL {} ({size}): {e}", w.name);
                failures.push(format!("{}: {e}", w.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures at {size}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    done
}

#[test]
fn every_workload_matches_its_reference() {
    every_workload_at(Size::Ci);
    assert!(regwatt_workloads::all().len() >= 18);
}

/// The `default` inputs: every workload has them, they match the reference, and all but the
/// named exceptions run at least a million warp instructions (the size's definition).
#[test]
fn every_workload_matches_its_reference_at_the_default_size() {
    let done = every_workload_at(Size::Default);
    let missing: Vec<&str> = regwatt_workloads::all()
        .iter()
        .filter(|w| !w.sizes().contains(&Size::Default))
        .map(|w| w.name)
        .collect();
    assert!(missing.is_empty(), "no default size: {missing:?}");
    // gaussian: a dependency chain of 2 launches per pivot, sized to the run-time budget
    // (workloads/gaussian/gaussian.default.toml)
    const BELOW_A_MILLION: &[&str] = &["gaussian"];
    for (name, n) in done {
        assert!(
            n >= 1_000_000 || BELOW_A_MILLION.contains(&name),
            "{name}: {n} warp instructions at default"
        );
    }
}
