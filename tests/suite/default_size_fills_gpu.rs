//! The `default` input size keeps both GPUs busy: one workload of each kind (streaming memory,
//! stencil with shared memory, global atomics, an NN convolution) run by the binary at
//! `--size default` on both presets holds a CTA on its SMs for at least 80 % of the kernel
//! cycles (`activity.core.sm_busy_frac`), runs at least 1 M warp instructions, issues in at
//! most every issue slot (`issue_utilisation_frac` <= 1) and computes the right answer. The
//! whole suite's figures are in workloads/README.md ("Input sizes").

use crate::common;

use common::{assert_success, regwatt};

/// One workload per kind; together about 7 M warp instructions per preset.
const WORKLOADS: [&str; 4] = ["vectorAdd", "hotspot", "histogram", "conv_mnist"];

#[test]
fn default_size_keeps_every_sm_busy_on_both_presets() {
    let mut failures = Vec::new();
    for gpu in ["gtx480", "rtx2060"] {
        for w in WORKLOADS {
            let out = regwatt(&[
                "run",
                "--workload",
                w,
                "--size",
                "default",
                "--gpu",
                gpu,
                "--json",
            ]);
            assert_success(&out, &format!("{w} on {gpu} at default"));
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("run JSON");
            assert_eq!(v["input_size"], "default", "{w} on {gpu}");
            let core = &v["activity"]["core"];
            let busy = core["sm_busy_frac"].as_f64().expect("sm_busy_frac");
            let issue = core["issue_utilisation_frac"]
                .as_f64()
                .expect("issue_utilisation_frac");
            let warps = v["warp_instructions"].as_u64().expect("warp_instructions");
            if busy < 0.8 {
                failures.push(format!("{w} on {gpu}: sm_busy_frac {busy:.3} < 0.8"));
            }
            if !(issue > 0.0 && issue <= 1.0) {
                failures.push(format!(
                    "{w} on {gpu}: issue_utilisation_frac {issue} outside (0, 1]"
                ));
            }
            if warps < 1_000_000 {
                failures.push(format!("{w} on {gpu}: {warps} warp instructions < 1 M"));
            }
            if v["output_check"] != serde_json::Value::Bool(true) {
                failures.push(format!("{w} on {gpu}: wrong output"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
