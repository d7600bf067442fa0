//! Issue 34 (part): `regwatt sweep` and `regwatt merge`. A small grid run unsharded and as 3
//! shards plus `merge` gives a byte-identical `sweep.csv`; a missing shard makes `merge` name
//! the missing points and fail; the emitted Slurm script's command line, run by hand with a
//! job array's environment, gives the same shards.

mod common;

use std::process::Command;

use common::{assert_fails, assert_success, regwatt};

const GRID: &str = r#"
workloads = ["vectorAdd"]
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
fn issue34_shards_merge_to_the_unsharded_sweep() {
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

    // the emitted Slurm script's command, run by hand for each array task
    let slurm = dir.join("slurm");
    let o = regwatt(&["sweep", s(&grid), "--out", s(&slurm), "--emit-slurm", "3"]);
    assert_success(&o, "emit-slurm");
    let script = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(script.contains("#SBATCH --array=1-3"), "{script}");
    let line = script
        .lines()
        .find(|l| l.starts_with("regwatt sweep"))
        .expect("command line");
    for task in 1..=3 {
        let cmd = line.replacen("regwatt", env!("CARGO_BIN_EXE_regwatt"), 1);
        let st = Command::new("bash")
            .arg("-c")
            .arg(&cmd)
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_MIN", "1")
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .status()
            .expect("bash");
        assert!(st.success(), "{cmd}");
        assert_eq!(
            std::fs::read(slurm.join(format!("shard-{task}")).join("sweep.csv")).expect("slurm"),
            std::fs::read(shards[task - 1].join("sweep.csv")).expect("shard"),
        );
    }
}

#[test]
fn issue34_bad_grids_are_named() {
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
    // a point that fails is a row with its error, and the sweep exits non-zero
    let g = dir.join("failing.toml");
    std::fs::write(
        &g,
        "workloads=[\"vectorAdd\"]\ngpus=[\"gtx480\"]\ndesigns=[\"baseline\"]\nnodes=[\"40nm\"]\n[set]\n\"gpu.sms\"=[4, 0]\n",
    )
    .expect("grid");
    let out = dir.join("failing");
    assert_fails(
        &regwatt(&["sweep", s(&g), "--out", s(&out)]),
        "failing point",
    );
    let csv = std::fs::read_to_string(out.join("sweep.csv")).expect("csv");
    assert_eq!(
        csv.lines().filter(|l| l.contains(",error,")).count(),
        1,
        "{csv}"
    );
    assert_eq!(
        csv.lines().filter(|l| l.ends_with(",ok,")).count(),
        1,
        "{csv}"
    );
}
