//! Issue 5 (simulation speed): the timing model's optimisations must not change what it
//! simulates. Six workloads run through the timing core with the baseline RF on both GPU
//! presets and a fixed-latency memory model defined here; the full activity of every launch
//! (cycles, instructions, per-bank reads/writes, conflict cycles, stall breakdown, occupancy
//! integrals, histograms, design statistics) and a hash of the final buffers are compared
//! with the committed snapshot `testdata/timing_snapshot.jsonl` (one run a line), byte for
//! byte.
//!
//! The inputs are frozen so that other work does not move the numbers: the GPU
//! configurations are resolved presets frozen in `testdata/timing_snapshot_*.toml`, and the
//! memory model is [`FixedMemory`] below, not the evolving memory hierarchy. Only
//! `simulated_cycles` (how many cycles the simulator stepped rather than skipped — a measure
//! of simulator work, not of the modelled GPU) is left out.
//!
//! An intended change of the model re-blesses the snapshot:
//! `REGWATT_BLESS_SNAPSHOT=1 cargo test -p regwatt-designs --test timing_snapshot`, in a commit
//! of its own whose message says which model change moved which runs (a re-bless
//! inside a speed-up commit hides a change of results). `scripts/check-snapshot-commits.sh`,
//! run by CI, fails on a commit that changes the snapshot and anything else.

use std::collections::BTreeMap;
use std::path::PathBuf;

use regwatt_designs::baseline::BaselineRf;
use regwatt_designs::config::preset;
use regwatt_designs::exec_model::for_each_launch;
use regwatt_designs::{GpuPreset, ResolvedConfig};
use regwatt_sim::launch::LaunchSpec;
use regwatt_sim::timing::activity::MemActivity;
use regwatt_sim::timing::functional::{MemOpKind, MemSpaceKind, WarpMemAccess};
use regwatt_sim::timing::memory::{MemTiming, MemoryTiming};
use regwatt_sim::timing::rf::MemFetch;
use regwatt_sim::timing::{run_with_memory, RunOptions};

const WORKLOADS: [&str; 6] = [
    "vectorAdd",
    "matrixMul_naive",
    "reduction",
    "bfs",
    "histogram",
    "nw",
];
const GPUS: [&str; 2] = ["rtx2060", "gtx480"];

/// Fixed latencies (test inputs, not a model of any GPU): a warp access costs a base latency
/// by space and direction plus 2 cycles per extra 128-byte line its active lanes touch, and
/// keeps the LD/ST unit one cycle per line.
struct FixedMemory;

impl MemoryTiming for FixedMemory {
    fn access(
        &mut self,
        now: u64,
        _sm: u32,
        acc: &WarpMemAccess,
        skip_l1: bool,
        _act: &mut MemActivity,
    ) -> MemTiming {
        let mut lines: Vec<u64> = (0..32)
            .filter(|l| acc.mask >> l & 1 != 0)
            .map(|l| acc.addrs[l] / 128)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        let n = lines.len().max(1) as u64;
        let base = match (acc.space, acc.kind) {
            (MemSpaceKind::Shared, _) => 20,
            (MemSpaceKind::Param | MemSpaceKind::Const, _) => 8,
            (_, MemOpKind::Store) => 4,
            _ if skip_l1 => 200,
            _ => 160,
        };
        MemTiming {
            ready_at: now + base + 2 * (n - 1),
            ldst_cycles: n as u32,
        }
    }

    fn fetch(&mut self, now: u64, _sm: u32, _f: &MemFetch, _act: &mut MemActivity) -> u64 {
        now + 100
    }
}

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/testdata")
        .join(name)
}

/// The frozen configuration of `gpu`; blessing writes it from the preset when missing.
fn config(gpu: &str) -> ResolvedConfig {
    let file = format!("timing_snapshot_{gpu}.toml");
    let path = testdata(&file);
    if !path.exists() && std::env::var_os("REGWATT_BLESS_SNAPSHOT").is_some() {
        let cfg = preset(gpu.parse().expect("preset name")).expect("preset resolves");
        let header = format!(
            "# FROZEN resolved `{gpu}` preset for designs/tests/timing_snapshot.rs: a preset\n\
             # change must not move the snapshot. Delete it and re-bless to refreeze.\n"
        );
        std::fs::write(&path, header + &cfg.to_toml()).expect("write frozen config");
    }
    let text = std::fs::read_to_string(&path).expect("frozen config");
    let mut frozen: toml::Table = text.parse().expect("frozen config parses");
    // `gpu.memory` configures the memory hierarchy, which `FixedMemory` replaces: it is taken
    // from the current preset so that its fields may change without touching the snapshot
    let p: GpuPreset = gpu.parse().expect("preset name");
    let current = toml::Table::try_from(preset(p).expect("preset resolves")).expect("table");
    if let (Some(toml::Value::Table(f)), Some(toml::Value::Table(c))) =
        (frozen.get_mut("gpu"), current.get("gpu"))
    {
        if let Some(m) = c.get("memory") {
            f.insert("memory".into(), m.clone());
        }
    }
    // `[power]` and `[beyond_rf]` configure the energy evaluation (node, temperature, power
    // mode, scope), which the snapshot does not record: taken from the current preset too
    for section in ["power", "beyond_rf"] {
        if let Some(v) = current.get(section) {
            frozen.insert(section.into(), v.clone());
        }
    }
    let cfg: ResolvedConfig = toml::Value::Table(frozen)
        .try_into()
        .expect("frozen config deserialises");
    cfg.validate(&file).expect("frozen config is valid");
    cfg
}

/// The launch spec of a built-in workload, `workloads/<name>/<name>.toml`.
fn spec(name: &str) -> LaunchSpec {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads");
    LaunchSpec::load(&dir.join(name).join(name).with_extension("toml"))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// FNV-1a, 64 bit (Fowler, Noll, Vo).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn snapshot_of(workload: &str, gpu: &str) -> serde_json::Value {
    let cfg = config(gpu);
    let s = spec(workload);
    let mut mem = FixedMemory;
    let opts = RunOptions::default();
    let (launches, buffers) = for_each_launch(&s, cfg.gpu.alloc_target(), |model| {
        run_with_memory(&cfg.gpu, model, |_| BaselineRf::new(&cfg), &mut mem, &opts)
    })
    .unwrap_or_else(|e| panic!("{workload} on {gpu}: {e}"));
    let launches: Vec<serde_json::Value> = launches
        .iter()
        .map(|a| {
            let mut v = serde_json::to_value(a).expect("activity serialises");
            if let Some(o) = v.as_object_mut() {
                o.remove("simulated_cycles");
            }
            v
        })
        .collect();
    serde_json::json!({
        "launches": launches,
        "buffers_fnv1a": format!("{:016x}", fnv1a(format!("{buffers:?}").as_bytes())),
    })
}

/// Leaves of a JSON value by path, for a readable report of what moved.
fn leaves(v: &serde_json::Value, path: String, out: &mut BTreeMap<String, String>) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                leaves(x, format!("{path}.{k}"), out);
            }
        }
        serde_json::Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                leaves(x, format!("{path}[{i}]"), out);
            }
        }
        x => {
            out.insert(path, x.to_string());
        }
    }
}

#[test]
fn timing_speedups_preserve_activity() {
    let mut all = serde_json::Map::new();
    for w in WORKLOADS {
        for g in GPUS {
            all.insert(format!("{w}/{g}"), snapshot_of(w, g));
        }
    }
    // one run a line: `workload/gpu<TAB>compact JSON`
    let text: String = all
        .iter()
        .map(|(k, v)| format!("{k}\t{}\n", serde_json::to_string(v).expect("serialise")))
        .collect();
    let path = testdata("timing_snapshot.jsonl");
    if std::env::var_os("REGWATT_BLESS_SNAPSHOT").is_some() {
        std::fs::write(&path, &text).expect("write snapshot");
        return;
    }
    let want = std::fs::read_to_string(&path).expect("committed snapshot");
    if want == text {
        return;
    }
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    for line in want.lines() {
        let (k, v) = line.split_once('\t').expect("snapshot line: key TAB json");
        let v: serde_json::Value = serde_json::from_str(v).expect("snapshot line parses");
        leaves(&v, k.to_string(), &mut a);
    }
    for (k, v) in &all {
        leaves(v, k.clone(), &mut b);
    }
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let diffs: Vec<String> = keys
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .take(40)
        .map(|k| format!("{k}: snapshot {:?}, now {:?}", a.get(k), b.get(k)))
        .collect();
    panic!(
        "timing activity differs from the snapshot ({} shown):\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

#[test]
fn snapshot_runs_are_deterministic() {
    assert_eq!(
        snapshot_of("histogram", "rtx2060"),
        snapshot_of("histogram", "rtx2060")
    );
}
