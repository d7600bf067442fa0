//! The `default` input size keeps both GPUs busy: one workload of each kind (streaming memory,
//! stencil with shared memory, global atomics, an NN convolution) at `default` on both presets
//! holds a CTA on its SMs for at least 80 % of the kernel cycles
//! (`activity.core.sm_busy_frac`), runs at least 1 M warp instructions, issues in at most every
//! issue slot (`issue_utilisation_frac` <= 1) and computes the right answer. The runs are the
//! ones the default-size cycle check simulates (`common::default_run`); the binary's JSON shows
//! the same figures. The whole suite's figures are in workloads/README.md ("Input sizes").

use crate::common;

use regwatt_designs::config::GpuPreset;

/// One workload per kind; together about 7 M warp instructions per preset.
const WORKLOADS: [&str; 4] = ["vectorAdd", "hotspot", "histogram", "conv_mnist"];

#[test]
fn default_size_keeps_every_sm_busy_on_both_presets() {
    let mut failures = Vec::new();
    for p in GpuPreset::ALL {
        for name in WORKLOADS {
            let w = regwatt_workloads::get(name).expect("workload");
            let s = match common::default_run(w, p) {
                Ok(s) => s,
                Err(e) => {
                    failures.push(format!("{name} on {p}: {e}"));
                    continue;
                }
            };
            let core = &s.activity.core;
            let busy = core.sm_busy_frac.value();
            let issue = core.issue_utilisation_frac.value();
            if busy < 0.8 {
                failures.push(format!("{name} on {p}: sm_busy_frac {busy:.3} < 0.8"));
            }
            if !(issue > 0.0 && issue <= 1.0) {
                failures.push(format!(
                    "{name} on {p}: issue_utilisation_frac {issue} outside (0, 1]"
                ));
            }
            if core.warp_instructions < 1_000_000 {
                failures.push(format!(
                    "{name} on {p}: {} warp instructions < 1 M",
                    core.warp_instructions
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `regwatt run --size default` reports the input size and the busy figures of the same run
/// (histogram on gtx480, the shortest of the four).
#[test]
fn the_binary_reports_the_default_size_busy_figures() {
    let w = regwatt_workloads::get("histogram").expect("workload");
    let s = common::default_run(w, GpuPreset::Gtx480).expect("default run");
    let v = common::regwatt_json(
        &[
            "run",
            "--workload",
            "histogram",
            "--size",
            "default",
            "--gpu",
            "gtx480",
            "--json",
        ],
        "histogram on gtx480 at default",
    );
    assert_eq!(v["input_size"], "default");
    assert_eq!(v["output_check"], serde_json::Value::Bool(true));
    let core = &v["activity"]["core"];
    assert_eq!(
        core["sm_busy_frac"].as_f64(),
        Some(s.activity.core.sm_busy_frac.value())
    );
    assert_eq!(
        core["issue_utilisation_frac"].as_f64(),
        Some(s.activity.core.issue_utilisation_frac.value())
    );
    assert_eq!(
        v["warp_instructions"].as_u64(),
        Some(s.activity.core.warp_instructions)
    );
}
