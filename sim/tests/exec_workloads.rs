//! Every built-in workload runs on the functional executor (with the register allocator's
//! architectural registers behind the `RegisterAccess` seam) and reproduces its Rust reference:
//! integers exactly, floats within the workload's documented tolerance.

use regwatt_sim::exec::{run_spec, RunOptions};

fn run_one(name: &str) -> Result<(), String> {
    let w = regwatt_workloads::find(name).ok_or(format!("no workload {name}"))?;
    let spec = w
        .load_spec(regwatt_workloads::Size::Ci)
        .map_err(|e| e.to_string())?;
    let expected = w
        .expected_final(&spec.initial_buffers(), &spec)
        .map_err(|e| e.to_string())?;
    let run = run_spec(&spec, &RunOptions::default()).map_err(|e| e.to_string())?;
    regwatt_workloads::check(w, &expected, &run.buffers).map_err(|e| e.to_string())?;
    if run
        .launches
        .iter()
        .map(|l| l.thread_instructions)
        .sum::<u64>()
        == 0
    {
        return Err(format!("{name}: no instructions executed"));
    }
    Ok(())
}

#[test]
fn every_workload_matches_its_reference() {
    let mut failures = Vec::new();
    for w in regwatt_workloads::all() {
        match run_one(w.name) {
            Ok(()) => eprintln!("PASS {}", w.name),
            Err(e) => {
                eprintln!("FAIL {}: {e}", w.name);
                failures.push(format!("{}: {e}", w.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(regwatt_workloads::all().len() >= 18);
}
