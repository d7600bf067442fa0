//! Regression corpus of the reliability audit: the invalid configurations, launch specs and
//! runaway kernels it found, each refused by the `regwatt` binary with a clean error (no
//! panic, no abort) that names the key and place, under a 6 GB address-space limit as the
//! audit asked. (The PTX forms of part 1 are in `sim/tests/suite/ptx_check.rs`.)

use crate::common;

use std::path::{Path, PathBuf};

use common::{assert_success, limited, refused, tmp_dir};

/// A scratch directory with the vectorAdd PTX, a spinning kernel and the audit's specs.
fn corpus(name: &str) -> PathBuf {
    let d = tmp_dir("refused_inputs", name);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("workloads/vectorAdd/vectorAdd.ptx"),
        d.join("vectorAdd.ptx"),
    )
    .expect("copy ptx");
    let spin = ".version 8.8\n.target sm_75\n.address_size 64\n\n.visible .entry spin(\n\t.param .u64 spin_param_0\n)\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<4>;\n\tmov.u32 \t%r1, 0;\n$L__BB0_1:\n\tadd.s32 \t%r1, %r1, 1;\n\tbra.uni \t$L__BB0_1;\n\tret;\n}\n";
    std::fs::write(d.join("spin.ptx"), spin).expect("write");
    let buf = |name: &str, dtype: &str, len: u64| {
        format!("[buffers.{name}]\ndtype = \"{dtype}\"\nlen = {len}\ninit = {{ kind = \"fill\", value = 0 }}\n")
    };
    let launch = "[[launch]]\nkernel = \"vectorAdd\"\ngrid = [64, 1, 1]\nblock = [256, 1, 1]\nargs = [\"a\", \"b\", \"c\", 16384]\n";
    let abc = format!(
        "{}{}{}",
        buf("a", "f32", 16384),
        buf("b", "f32", 16384),
        buf("c", "f32", 16384)
    );
    let mut six = "ptx = \"vectorAdd.ptx\"\n".to_string();
    for i in 0..6 {
        six.push_str(&buf(&format!("big{i}"), "u8", 1 << 30));
    }
    six.push_str(&abc);
    six.push_str(launch);
    std::fs::write(d.join("six_gib.toml"), six).expect("write");
    // [[launch]] without `block`, after [buffers.c]
    let no_block = format!(
        "ptx = \"vectorAdd.ptx\"\n{abc}[[launch]]\nkernel = \"vectorAdd\"\ngrid = [64, 1, 1]\nargs = [\"a\", \"b\", \"c\", 16384]\n"
    );
    std::fs::write(d.join("no_block.toml"), no_block).expect("write");
    // [buffers.c] without `len`
    let no_len = format!(
        "ptx = \"vectorAdd.ptx\"\n{}{}[buffers.c]\ndtype = \"f32\"\ninit = {{ kind = \"fill\", value = 0 }}\n{launch}",
        buf("a", "f32", 16384),
        buf("b", "f32", 16384)
    );
    std::fs::write(d.join("no_len.toml"), no_len).expect("write");
    for (name, grid, block) in [("spin", 1, 32), ("spin_full", 4096, 1024)] {
        std::fs::write(
            d.join(format!("{name}.toml")),
            format!("ptx = \"spin.ptx\"\n{}[[launch]]\nkernel = \"spin\"\ngrid = [{grid}, 1, 1]\nblock = [{block}, 1, 1]\nargs = [\"x\"]\n", buf("x", "u32", 1)),
        )
        .expect("write");
    }
    std::fs::write(
        d.join("override.toml"),
        "[gpu]\nsms = 10\n\n[gpu.sm.limits]\nmax_ctas = -4\n",
    )
    .expect("write");
    d
}

fn run_set(d: &Path, set: &str, needles: &[&str]) {
    refused(
        d,
        &common::ci_run_args("vectorAdd", "rtx2060", &["--set", set]),
        needles,
    );
}

/// Part 2: values that aborted on allocation, met the OOM killer or were accepted
/// are refused with the key, the value and the valid range.
#[test]
fn unbounded_configuration_values_are_refused() {
    let d = corpus("bounds");
    for (set, key) in [
        ("memory.l1d.sets=1000000000", "gpu.memory.l1d.sets"),
        (
            "memory.l2_slice.sets=1000000000",
            "gpu.memory.l2_slice.sets",
        ),
        ("sm.limits.max_ctas=4000000000", "gpu.sm.limits.max_ctas"),
        (
            "memory.l1d_hit_latency=4000000000",
            "gpu.memory.l1d_hit_latency",
        ),
        (
            "memory.l2_rop_latency=4000000000",
            "gpu.memory.l2_rop_latency",
        ),
        ("memory.dram.latency=4000000000", "gpu.memory.dram.latency"),
        (
            "sm.units.sp.timing.latency=4000000000",
            "gpu.sm.units.sp.timing.latency",
        ),
        (
            "kernel_launch_latency=4000000000",
            "gpu.kernel_launch_latency",
        ),
        ("sms=100000", "gpu.sms"),
        ("memory.l1d.ways=100000000", "gpu.memory.l1d.ways"),
        ("memory.dram.banks=100000000", "gpu.memory.dram.banks"),
    ] {
        run_set(&d, set, &[&format!("--set {set}"), key, "valid range"]);
    }
    run_set(
        &d,
        "core_clock_mhz=1e30",
        &["gpu.core_clock_mhz", "1..=10000 MHz"],
    );
    run_set(&d, "gpu.name=bogus", &["gpu.name", "rtx2060"]);
    run_set(
        &d,
        "sm.limits.register_alloc_unit=3",
        &["gpu.sm.limits.register_alloc_unit", "power of two"],
    );
    run_set(
        &d,
        "sm.register_file.ports_per_bank=300",
        &["ports_per_bank", "1..=32"],
    );
    // the RF must hold the registers, and the message says which bank size would
    run_set(
        &d,
        "sm.limits.registers=32768",
        &["rf.bank_bytes", "rf.bank_bytes = 2048 would hold them"],
    );
}

/// Part 2: a command-line choice and an override of the same key must agree, and
/// an override must be valid although the choice replaces it.
#[test]
fn cli_choices_do_not_hide_overrides() {
    let d = corpus("choices");
    let base = [
        "run",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--gpu",
        "rtx2060",
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    for (extra, needles) in [
        (
            vec!["--node", "12nm", "--set", "power.node=7nm"],
            vec!["--set power.node=7nm", "unknown technology node `7nm`"],
        ),
        (
            vec!["--node", "12nm", "--set", "power.node=40nm"],
            vec!["`40nm` disagrees with --node 12nm"],
        ),
        (
            vec!["--scope", "rf", "--set", "beyond_rf.scope=gpu"],
            vec!["`gpu` disagrees with --scope rf"],
        ),
        (
            vec!["--set", "power.mode=sleepy"],
            vec!["power.mode", "unknown power mode `sleepy`"],
        ),
    ] {
        let a = with(&extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        refused(&d, &a, &needles);
    }
    // agreeing values are fine, and an override alone is used
    let o = common::regwatt(&[
        "run",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--gpu",
        "rtx2060",
        "--set",
        "beyond_rf.scope=gpu",
        "--json",
    ]);
    assert_success(&o, "beyond_rf.scope=gpu alone");
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"scope\": \"gpu\""));
}

/// Part 2: memory beyond the budget is refused before it is allocated.
#[test]
fn memory_beyond_the_budget_is_refused_up_front() {
    let d = corpus("budget");
    for cmd in [
        vec!["run", "six_gib.toml", "--gpu", "rtx2060"],
        vec!["exec", "six_gib.toml"],
    ] {
        refused(&d, &cmd, &["memory budget", "6.00 GiB", "--memory-budget"]);
    }
    refused(
        &d,
        &[
            "run",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--gpu",
            "rtx2060",
            "--set",
            "sms=1024",
            "--set",
            "memory.l1d.sets=4096",
            "--memory-budget",
            "2GiB",
        ],
        &[
            "1024 SMs",
            "above the memory budget of 2.00 GiB (--memory-budget 2GiB)",
        ],
    );
    refused(
        &d,
        &["exec", "six_gib.toml", "--memory-budget", "lots"],
        &["memory size `lots`"],
    );
}

/// Part 4: a missing field is reported under its own table, with its line.
#[test]
fn errors_name_the_right_table_and_line() {
    let d = corpus("places");
    refused(
        &d,
        &["exec", "no_block.toml"],
        &["no_block.toml:14:1: launch[0]: missing field `block`"],
    );
    refused(
        &d,
        &["exec", "no_len.toml"],
        &["no_len.toml:10:1: buffers.c: missing field `len`"],
    );
    refused(
        &d,
        &[
            "run",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--gpu",
            "gtx480",
            "--config",
            "override.toml",
        ],
        &["override.toml:5:1: key `gpu.sm.limits.max_ctas`", "-4"],
    );
    for (set, key) in [
        ("sms=ten", "gpu.sms"),
        ("sms=-1", "gpu.sms"),
        ("core_clock_mhz=abc", "gpu.core_clock_mhz"),
        ("sm.scheduler.policy=3", "gpu.sm.scheduler.policy"),
        ("rf.ecc=2", "rf.ecc"),
        ("sm.units.sp.timing={latency=1}", "gpu.sm.units.sp.timing"),
        ("memory.l1d={sets=1}", "gpu.memory.l1d"),
        ("name=3", "gpu.name"),
        ("power.wakeup_exposed=3", "power.wakeup_exposed"),
        ("power.temperature=\"3 Q\"", "power.temperature"),
    ] {
        run_set(&d, set, &[&format!("--set {set}"), &format!("key `{key}`")]);
    }
}

/// Part 3: a kernel that loops forever stops at a limit, and the error says how
/// to raise it (small limits here; the defaults are sized in `exec_model` / `exec::program`).
#[test]
fn runaway_kernels_stop_with_a_hint() {
    let d = corpus("runaway");
    refused(
        &d,
        &[
            "run",
            "spin.toml",
            "--gpu",
            "rtx2060",
            "--max-cycles",
            "100000",
        ],
        &["cycle limit of 100000", "--max-cycles"],
    );
    refused(
        &d,
        &[
            "run",
            "spin_full.toml",
            "--gpu",
            "gtx480",
            "--max-warp-instructions",
            "200000",
        ],
        &[
            "warp-instruction limit of 200000",
            "--max-warp-instructions",
        ],
    );
    refused(
        &d,
        &["exec", "spin.toml", "--max-warp-instructions", "1000000"],
        &["1000000 warp instructions", "--max-warp-instructions"],
    );
    // nothing is drawn on a pipe
    let (o, _) = limited(
        &d,
        &[
            "run",
            "spin.toml",
            "--gpu",
            "gtx480",
            "--max-cycles",
            "3000000",
        ],
    );
    assert!(!String::from_utf8_lossy(&o.stderr).contains("warp instr."));
    const { assert!(regwatt_designs::exec_model::DEFAULT_MAX_CYCLES <= 10_000_000) };
    const { assert!(regwatt_designs::exec_model::DEFAULT_MAX_WARP_INSTRUCTIONS <= 30_000_000) };
    const { assert!(regwatt_sim::exec::DEFAULT_MAX_WARP_INSTRUCTIONS <= 100_000_000) };
}

/// Part 2: a buffer's memory is its bytes, once (a 1 GiB buffer cost 3.15 GB).
#[test]
fn buffer_memory_is_proportional() {
    let d = corpus("proportional");
    let spec = regwatt_sim::launch::LaunchSpec::load(&d.join("six_gib.toml")).expect("spec");
    let f = regwatt_sim::footprint::functional(&spec);
    let six = 6u64 << 30;
    assert!(f.bytes >= six && f.bytes < six + (128 << 20), "{f:?}");
    let cfg = regwatt_designs::config::preset(regwatt_designs::config::GpuPreset::Rtx2060)
        .expect("preset");
    let t = regwatt_sim::footprint::timed(&cfg.gpu, &spec, 2);
    assert!(t.bytes >= 2 * six, "{t:?}");
}
