//! `regwatt report` through the binary: report files, and byte-identical output whatever the
//! thread count.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common;
use common::{assert_success, regwatt};

/// `regwatt report` of vectorAdd and reduction on `jobs` threads into `out`.
fn report(out: &Path, jobs: &str) -> Output {
    let out = out.to_string_lossy();
    regwatt(&[
        "report",
        "--size",
        "ci",
        "--workloads",
        "vectorAdd,reduction",
        "--jobs",
        jobs,
        "--out",
        &out,
    ])
}

fn files(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            let rel = p.strip_prefix(dir).expect("prefix").to_path_buf();
            out.push((rel, std::fs::read(&p).expect("read")));
        }
    }
}

#[test]
fn report_writes_every_file_and_is_deterministic() {
    let a = common::tmp_dir("report_cli", "report-a");
    let b = common::tmp_dir("report_cli", "report-b");
    let oa = report(&a, "1");
    assert_success(&oa, "regwatt report --jobs 1");
    let ob = report(&b, "2");
    assert_success(&ob, "regwatt report --jobs 2");
    assert_eq!(oa.stdout, ob.stdout, "summary tables differ");
    // the output ends with the headline table: a line per GPU, node, mode and design
    let text = String::from_utf8_lossy(&oa.stdout);
    let headline = text
        .split("Each design against the reference")
        .nth(1)
        .expect("the headline table follows the per-run table");
    assert!(
        headline
            .lines()
            .any(|l| l.starts_with("rtx2060") && l.contains("baseline") && l.contains("1.000")),
        "{headline}"
    );
    let csv = std::fs::read_to_string(a.join("summary.csv")).expect("summary.csv");
    // header + 2 workloads x every (GPU, design it supports) x 2 nodes
    assert_eq!(
        csv.lines().count(),
        1 + 4 * common::supported_pairs(),
        "{csv}"
    );
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",ok")), "{csv}");
    let run: serde_json::Value = serde_json::from_slice(
        &std::fs::read(a.join("runs/rtx2060/baseline/vectorAdd-12nm.json")).expect("run json"),
    )
    .expect("json");
    for k in ["activity", "energy", "area", "config", "cycles", "ipc"] {
        assert!(run.get(k).is_some(), "missing {k}");
    }
    assert!(a.join("config/gtx480-40nm.toml").exists());
    // a design with parameters has its own resolved configuration with its `[design]` table
    let ren = std::fs::read_to_string(a.join("config/gtx480-renaming-40nm.toml"))
        .expect("renaming config");
    assert!(
        ren.contains("[design]") && ren.contains("name = \"renaming\""),
        "{ren}"
    );
    assert!(a.join("runs/gtx480/renaming/reduction-40nm.json").exists());
    let (mut fa, mut fb) = (Vec::new(), Vec::new());
    files(&a, &mut fa);
    files(&b, &mut fb);
    assert_eq!(fa.len(), fb.len());
    for ((pa, da), (pb, db)) in fa.iter().zip(&fb) {
        assert_eq!(pa, pb);
        // the command lines differ (--jobs, --out), nothing else
        let (da, db) = (without_command_line(pa, da), without_command_line(pb, db));
        assert!(da == db, "{} differs between --jobs 1 and 2", pa.display());
    }
    // The same command again gives a byte-identical directory
    let again = common::tmp_dir("report_cli", "report-a-again");
    std::fs::rename(&a, &again).expect("move the first report aside");
    assert_success(&report(&a, "1"), "regwatt report --jobs 1, again");
    let (mut f1, mut f2) = (Vec::new(), Vec::new());
    files(&again, &mut f1);
    files(&a, &mut f2);
    assert_eq!(f1, f2, "the same command wrote different files");
}

/// A report file with the line naming the command line left out (`index.html`,
/// `provenance.json`).
fn without_command_line(path: &Path, data: &[u8]) -> Vec<u8> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if !matches!(name, "index.html" | "provenance.json") {
        return data.to_vec();
    }
    if name == "provenance.json" {
        let mut v: serde_json::Value = serde_json::from_slice(data).expect("json");
        v["command_line"] = serde_json::Value::Null;
        return serde_json::to_vec(&v).expect("json");
    }
    String::from_utf8_lossy(data)
        .lines()
        .filter(|l| !l.contains("command <code>"))
        .collect::<Vec<_>>()
        .join("\n")
        .into_bytes()
}
