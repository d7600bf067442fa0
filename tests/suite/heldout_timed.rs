//! Every held-out kernel (`sim/testdata/heldout/`), run with its launch spec through
//! the timing model — what `regwatt run SPEC --gpu gtx480|rtx2060 --design baseline --node 40nm
//! --dump DIR` does, in-process through `regwatt_designs::exec_model::simulate_spec` — reproduces
//! its expected outputs on both GPU presets, with the same comparison and tolerances as the
//! functional test `tests/suite/heldout_kernels.rs` (`tests/suite/common/`). The register-file design holds
//! the values, so an early release or a lost register shows up as a wrong output; accesses to
//! unallocated registers and uncollected operand reads are checked too.

use crate::common;

use regwatt_designs::config::{preset, GpuPreset, Node};
use regwatt_designs::run::at_node;
use regwatt_sim::launch::LaunchSpec;

fn run_one(name: &str, p: GpuPreset) -> Result<(), String> {
    let cfg = at_node(&preset(p).map_err(|e| e.to_string())?, Node::N40);
    let spec_path = common::root().join(name).join(format!("{name}.toml"));
    let spec = LaunchSpec::load(&spec_path).map_err(|e| e.to_string())?;
    let buffers = common::simulate_baseline(&spec, &cfg)?;
    common::check_buffers(name, &buffers)
}

#[test]
fn heldout_kernels_timed_on_both_presets_match_expected() {
    let kernels = common::all_kernels();
    assert!(kernels.len() >= 41, "corpus has {} kernels", kernels.len());
    let work: Vec<(GpuPreset, &String)> = GpuPreset::ALL
        .iter()
        .flat_map(|p| kernels.iter().map(move |k| (*p, k)))
        .collect();
    let f = common::failures_on_two_threads(
        &work,
        |(p, k)| format!("{k} on {p}"),
        |(p, k)| run_one(k, *p),
    );
    assert!(
        f.is_empty(),
        "{} of {} timed runs failed:\n{}",
        f.len(),
        work.len(),
        f.join("\n")
    );
}
