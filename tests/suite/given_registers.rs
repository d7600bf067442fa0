//! A spec's `[registers]` table pins a kernel's registers per thread (e.g. `ptxas -v`'s count):
//! occupancy and the register file use it, the run says which counts were given and which
//! estimated, and a count the kernel's values cannot fit in is refused with its key.

use crate::common::{assert_fails, assert_success, regwatt, regwatt_json, tmp_dir};

/// The built-in gemm (ci size) exported into the scratch directory `name`, with `registers`
/// appended to its spec (empty: none). Returns the spec's path.
fn gemm_spec(name: &str, registers: &str) -> String {
    let out = tmp_dir("given_registers", name).join("gemm");
    let o = regwatt(&[
        "workload",
        "export",
        "gemm",
        out.to_str().unwrap(),
        "--size",
        "ci",
    ]);
    assert_success(&o, "export");
    let spec = std::fs::read_dir(&out)
        .expect("exported")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "toml"))
        .expect("a spec");
    if !registers.is_empty() {
        let mut text = std::fs::read_to_string(&spec).expect("spec");
        text.push_str(&format!("\n[registers]\n{registers}\n"));
        std::fs::write(&spec, text).expect("write");
    }
    spec.display().to_string()
}

fn run_json(spec: &str) -> serde_json::Value {
    regwatt_json(&["run", spec, "--gpu", "gtx480", "--json"], "run")
}

#[test]
fn given_register_counts_set_occupancy_and_are_reported() {
    let est = gemm_spec("estimated", "");
    let e = run_json(&est);
    assert_eq!(e["kernel_registers"]["gemm"]["source"], "estimated");
    let n = e["kernel_registers"]["gemm"]["registers"]
        .as_u64()
        .expect("count");
    // twice the estimate: fewer warps fit an SM's 32 K registers, and each reserves more
    let given = gemm_spec("given", &format!("gemm = {}", 2 * n));
    let g = run_json(&given);
    assert_eq!(g["kernel_registers"]["gemm"]["source"], "given");
    assert_eq!(g["kernel_registers"]["gemm"]["registers"], 2 * n);
    assert_eq!(g["output_check"], true);
    let peak = |v: &serde_json::Value| v["registers"]["architected_peak"].as_u64().unwrap();
    assert_ne!(
        peak(&g),
        peak(&e),
        "the given count changes the RF's reservation"
    );
    // the text output names the source
    let o = regwatt(&["run", &given, "--gpu", "gtx480"]);
    assert_success(&o, "run text");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!("registers per thread: gemm {} (given)", 2 * n)),
        "{text}"
    );
    // fewer registers than the kernel's values need: refused, naming the key and the minimum
    let low = gemm_spec("low", "gemm = 2");
    let err = assert_fails(&regwatt(&["run", &low, "--gpu", "gtx480"]), "2 registers");
    assert!(
        err.contains("registers.gemm") && err.contains("give at least"),
        "{err}"
    );
    let other = gemm_spec("other", "gemm2 = 30");
    let err = assert_fails(
        &regwatt(&["run", &other, "--gpu", "gtx480"]),
        "unknown kernel",
    );
    assert!(
        err.contains("registers.gemm2") && err.contains("no kernel"),
        "{err}"
    );
}

/// `regwatt ptx` sets the CTAs per SM regwatt's count implies beside those of a given ptxas
/// count, per preset (hand-computed in `ctas_per_sm_takes_the_tightest_limit`: gtx480 at 256
/// threads holds 4 CTAs at 30 registers, 2 at 60; rtx2060 is limited by its 32 warps).
#[test]
fn ptx_shows_the_occupancy_of_a_ptxas_count() {
    let gemm = concat!(env!("CARGO_MANIFEST_DIR"), "/workloads/gemm/gemm.ptx");
    let v = regwatt_json(
        &[
            "ptx",
            gemm,
            "--block",
            "256",
            "--ptxas-registers",
            "gemm=60",
            "--json",
        ],
        "ptx",
    );
    let row = |gpu: &str| {
        v["occupancy"]
            .as_array()
            .expect("occupancy")
            .iter()
            .find(|r| r["gpu"] == gpu)
            .cloned()
            .expect("a row per preset")
    };
    let f = row("gtx480");
    assert_eq!(
        (f["registers"].as_u64(), f["ctas_per_sm"].as_u64()),
        (Some(30), Some(4))
    );
    assert_eq!(
        (
            f["ptxas_registers"].as_u64(),
            f["ptxas_ctas_per_sm"].as_u64()
        ),
        (Some(60), Some(2))
    );
    let t = row("rtx2060");
    assert_eq!(
        (t["ctas_per_sm"].as_u64(), t["ptxas_ctas_per_sm"].as_u64()),
        (Some(4), Some(4))
    );
    for (bad, needle) in [
        ("gemm2=30", "no kernel \"gemm2\""),
        ("0", "1..=255"),
        ("x", "1..=255"),
    ] {
        let err = assert_fails(&regwatt(&["ptx", gemm, "--ptxas-registers", bad]), bad);
        assert!(err.contains(needle), "{bad}: {err}");
    }
}
