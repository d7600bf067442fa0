//! `regwatt sweep` and `regwatt merge`. A small grid run unsharded and as 3 shards plus
//! `merge` gives a byte-identical `sweep.csv`; a missing shard makes `merge` name the missing
//! points and fail; the emitted Slurm script, run with a job array's environment and then
//! with `merge`, gives the same shards and the same merged sweep. (Hostile grids, shards and
//! paths: `tests/suite/hostile_inputs.rs`.)

use crate::common;

use std::process::Command;

use common::{assert_fails, assert_success, regwatt};

const GRID: &str = r#"
workloads = ["vectorAdd"]
sizes = ["ci"]
gpus = ["gtx480", "rtx2060"]
designs = ["baseline", "renaming"]
nodes = ["40nm", "12nm"]
power_modes = ["always-on", "register-gating"]
[set]
"gpu.sms" = [4, 8]
"#;

fn s(p: &std::path::Path) -> &str {
    p.to_str().expect("utf8")
}

#[test]
fn shards_merge_to_the_unsharded_sweep() {
    let dir = common::tmp_dir("sweep_cli", "grid");
    let grid = dir.join("grid.toml");
    std::fs::write(&grid, GRID).expect("grid");
    let whole = dir.join("whole");
    assert_success(
        &regwatt(&["sweep", s(&grid), "--out", s(&whole), "--jobs", "2"]),
        "sweep",
    );
    let csv = std::fs::read_to_string(whole.join("sweep.csv")).expect("csv");
    // 1 workload x 2 gpus x 2 designs x 2 modes x 2 sms values = 16 points, 2 nodes each
    assert_eq!(csv.lines().count(), 1 + 32, "{csv}");
    // the report's summary columns, same names and units
    let header = csv.lines().next().expect("header");
    assert_eq!(
        header,
        format!(
            "point,gpu.sms,{},status,error",
            regwatt_designs::run::SummaryRow::COLUMNS.join(",")
        )
    );
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",ok,ok,")), "{csv}");
    // renaming's overheads are priced against the same point's baseline
    let cols: Vec<&str> = header.split(',').collect();
    let col = |name: &str| cols.iter().position(|c| *c == name).expect("column");
    for l in csv.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let area: f64 = f[col("area_overhead_frac")].parse().expect("number");
        assert_eq!(f[col("design")] == "renaming", area > 0.0, "{l}");
    }
    let mut shards = Vec::new();
    for k in 1..=3 {
        let d = dir.join(format!("shard{k}"));
        assert_success(
            &regwatt(&[
                "sweep",
                s(&grid),
                "--out",
                s(&d),
                "--shard",
                &format!("{k}/3"),
            ]),
            "shard",
        );
        shards.push(d);
    }
    let merged = dir.join("merged");
    assert_success(
        &regwatt(&[
            "merge",
            s(&shards[0]),
            s(&shards[1]),
            s(&shards[2]),
            "--out",
            s(&merged),
        ]),
        "merge",
    );
    assert_eq!(
        std::fs::read(whole.join("sweep.csv")).expect("whole"),
        std::fs::read(merged.join("sweep.csv")).expect("merged"),
        "merged shards differ from the unsharded sweep"
    );
    let e = assert_fails(
        &regwatt(&[
            "merge",
            s(&shards[0]),
            s(&shards[2]),
            "--out",
            s(&dir.join("partial")),
        ]),
        "merge with a shard missing",
    );
    assert!(e.contains("points missing (points"), "{e}");

    // the emitted Slurm script, run as each array task and then with `merge`
    let slurm = dir.join("slurm");
    let o = regwatt(&["sweep", s(&grid), "--out", s(&slurm), "--emit-slurm", "3"]);
    assert_success(&o, "emit-slurm");
    let script = dir.join("job.sh");
    std::fs::write(&script, &o.stdout).expect("script");
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(text.contains("#SBATCH --array=1-3"), "{text}");
    for task in ["1", "2", "3", "merge"] {
        let mut c = Command::new("bash");
        c.arg(&script)
            .env("REGWATT", env!("CARGO_BIN_EXE_regwatt"))
            .env("SLURM_ARRAY_TASK_MIN", "1")
            .env("SLURM_ARRAY_TASK_COUNT", "3");
        if task == "merge" {
            c.arg("merge");
        } else {
            c.env("SLURM_ARRAY_TASK_ID", task);
        }
        let st = c.status().expect("bash");
        assert!(st.success(), "task {task}");
        if task != "merge" {
            let k: usize = task.parse().expect("task");
            assert_eq!(
                std::fs::read(slurm.join(format!("shard-{task}")).join("sweep.csv"))
                    .expect("slurm"),
                std::fs::read(shards[k - 1].join("sweep.csv")).expect("shard"),
            );
        }
    }
    assert_eq!(
        std::fs::read(whole.join("sweep.csv")).expect("whole"),
        std::fs::read(slurm.join("merged").join("sweep.csv")).expect("merged"),
    );
}

#[test]
fn bad_grids_are_named() {
    let dir = common::tmp_dir("sweep_cli", "bad");
    for (name, text, want) in [
        ("unknown", "workloads=[\"vectorAdd\"]\ngpus=[\"gtx480\"]\ndesigns=[\"baseline\"]\nnodes=[\"40nm\"]\nbogus=1\n", "bogus"),
        ("design", "workloads=[\"vectorAdd\"]\ngpus=[\"gtx480\"]\ndesigns=[\"nope\"]\nnodes=[\"40nm\"]\n", "unknown design"),
        ("empty", "workloads=[]\ngpus=[\"gtx480\"]\ndesigns=[\"baseline\"]\nnodes=[\"40nm\"]\n", "`workloads` is empty"),
        ("setlist", "workloads=[\"vectorAdd\"]\ngpus=[\"gtx480\"]\ndesigns=[\"baseline\"]\nnodes=[\"40nm\"]\n[set]\n\"gpu.sms\"=4\n", "must be a list"),
    ] {
        let g = dir.join(format!("{name}.toml"));
        std::fs::write(&g, text).expect("grid");
        let e = assert_fails(
            &regwatt(&["sweep", s(&g), "--out", s(&dir.join(name))]),
            name,
        );
        assert!(e.contains(want), "{name}: {e}");
    }
}

/// The two grids that run `report --size paper` as a sweep (docs/reports.md, "The paper
/// size") name every built-in workload at `paper`, and the binary accepts them.
#[test]
fn paper_sweep_grids_cover_every_workload() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let all: Vec<&str> = regwatt_workloads::all().iter().map(|w| w.name).collect();
    for (grid, designs) in [
        (
            "docs/paper-sweep.toml",
            &["baseline", "renaming", "malekeh", "sharing", "lreg"][..],
        ),
        ("docs/paper-sweep-cerf.toml", &["baseline", "cerf"][..]),
    ] {
        let path = root.join(grid);
        let text = std::fs::read_to_string(&path).expect("grid");
        let t: toml::Table = text.parse().expect("grid TOML");
        let list = |k: &str| -> Vec<String> {
            t[k].as_array()
                .expect(k)
                .iter()
                .map(|v| v.as_str().expect("string").to_string())
                .collect()
        };
        assert_eq!(list("workloads"), all, "{grid}: workloads");
        assert_eq!(list("sizes"), ["paper"], "{grid}");
        assert_eq!(list("designs"), designs, "{grid}");
        let dir = common::tmp_dir("sweep_cli", "paper_grid");
        let o = common::regwatt(&[
            "sweep",
            s(&path),
            "--out",
            s(&dir.join("out")),
            "--emit-slurm",
            "8",
        ]);
        common::assert_success(&o, grid);
    }
}
