//! A user's launch spec file in the studies: `report --workloads` and a sweep grid's
//! `workloads` take spec files beside built-in names. The spec here is the built-in vectorAdd
//! exported at `ci` size under another name, so its runs must equal the built-in workload's:
//! the same cycles and energies, its own `[check]` passing, its rows in the tables and its
//! name in the charts.

use crate::common;

use std::path::{Path, PathBuf};

use common::{assert_fails, assert_success, regwatt};

fn s(p: &Path) -> &str {
    p.to_str().expect("utf8")
}

/// `vectorAdd` exported at `ci` into `dir`, its spec renamed `my_vadd.toml`.
fn exported(dir: &Path) -> PathBuf {
    let k = dir.join("kernel");
    assert_success(
        &regwatt(&["workload", "export", "vectorAdd", s(&k), "--size", "ci"]),
        "export",
    );
    let spec = k.join("my_vadd.toml");
    std::fs::rename(k.join("vectorAdd.toml"), &spec).expect("rename");
    spec
}

#[test]
fn a_spec_file_runs_in_report_and_sweep_like_the_built_in_workload() {
    let dir = common::tmp_dir("own_kernel_in_studies", "both");
    let spec = exported(&dir);
    let out = dir.join("report");
    let list = format!("{},vectorAdd", s(&spec));
    assert_success(
        &regwatt(&[
            "report",
            "--size",
            "ci",
            "--workloads",
            &list,
            "--designs",
            "baseline,renaming",
            "--gpus",
            "gtx480",
            "--nodes",
            "40nm",
            "--out",
            s(&out),
        ]),
        "report with a spec file",
    );
    let summary = common::read_csv(&out.join("summary.csv"));
    let pick = |w: &str, d: &str| {
        summary
            .iter()
            .find(|r| r["workload"] == w && r["design"] == d)
            .unwrap_or_else(|| panic!("no row {w} {d}"))
            .clone()
    };
    for d in ["baseline", "renaming"] {
        let (mine, builtin) = (pick("my_vadd", d), pick("vectorAdd", d));
        assert_eq!(mine["size"], "-", "a spec file has its own inputs");
        assert_eq!(builtin["size"], "ci");
        for col in [
            "cycles",
            "dynamic_j",
            "total_j",
            "area_mm2",
            "energy_overhead_frac",
        ] {
            assert_eq!(mine[col], builtin[col], "{d} {col}");
        }
        assert_eq!(mine["output_check"], "ok", "its own [check] passes");
    }
    let html = std::fs::read_to_string(out.join("index.html")).expect("html");
    assert!(
        html.contains("my_vadd"),
        "the spec's runs are in the charts"
    );
    let prov = std::fs::read_to_string(out.join("provenance.json")).expect("provenance");
    assert!(prov.contains("\"my_vadd\""), "its spec is recorded");

    // a sweep grid names it relative to the grid file
    let grid = spec.parent().expect("dir").join("grid.toml");
    std::fs::write(
        &grid,
        "workloads = [\"my_vadd.toml\", \"vectorAdd\"]\nsizes = [\"ci\", \"default\"]\ngpus = [\"gtx480\"]\ndesigns = [\"baseline\"]\nnodes = [\"40nm\"]\n",
    )
    .expect("grid");
    let sweep = dir.join("sweep");
    assert_success(&regwatt(&["sweep", s(&grid), "--out", s(&sweep)]), "sweep");
    let points = common::read_csv(&sweep.join("sweep.csv"));
    // the spec once (its own inputs), vectorAdd at both sizes
    assert_eq!(points.len(), 3, "{points:?}");
    assert!(points.iter().all(|r| r["status"] == "ok"), "{points:?}");
    let mine: Vec<_> = points
        .iter()
        .filter(|r| r["workload"] == "my_vadd")
        .collect();
    assert_eq!(mine.len(), 1);
    let ci = points
        .iter()
        .find(|r| r["workload"] == "vectorAdd" && r["size"] == "ci")
        .expect("vectorAdd at ci");
    assert_eq!(mine[0]["cycles"], ci["cycles"]);

    // sharded and merged (where the spec files need not be): the same sweep, and the merge
    // records the spec's text
    let mut shards = Vec::new();
    for k in 1..=2 {
        let d = dir.join(format!("shard{k}"));
        assert_success(
            &regwatt(&[
                "sweep",
                s(&grid),
                "--out",
                s(&d),
                "--shard",
                &format!("{k}/2"),
            ]),
            "shard",
        );
        shards.push(d);
    }
    let merged = dir.join("merged");
    assert_success(
        &regwatt(&["merge", s(&shards[0]), s(&shards[1]), "--out", s(&merged)]),
        "merge",
    );
    assert_eq!(
        std::fs::read(sweep.join("sweep.csv")).expect("whole"),
        std::fs::read(merged.join("sweep.csv")).expect("merged")
    );
    let prov = std::fs::read_to_string(merged.join("provenance.json")).expect("provenance");
    assert!(prov.contains("spec file my_vadd"), "{prov}");
}

#[test]
fn spec_files_that_cannot_be_told_apart_are_refused() {
    let dir = common::tmp_dir("own_kernel_in_studies", "refused");
    let spec = exported(&dir);
    let clash = spec.with_file_name("vectorAdd.toml");
    std::fs::copy(&spec, &clash).expect("copy");
    let out = dir.join("report");
    for (list, want) in [
        (
            s(&clash).to_string(),
            "named like the built-in workload `vectorAdd`",
        ),
        (s(&dir.join("absent.toml")).to_string(), "absent.toml"),
        ("nope".to_string(), "nope"),
    ] {
        let o = regwatt(&[
            "report",
            "--size",
            "ci",
            "--workloads",
            &list,
            "--out",
            s(&out),
        ]);
        let err = assert_fails(&o, want);
        assert!(err.contains(want), "{list}: {err}");
        assert!(!out.exists(), "nothing written for {list}");
    }
}
