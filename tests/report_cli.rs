//! `regwatt report` through the binary: report files, and byte-identical output whatever the
//! thread count.

use std::path::{Path, PathBuf};
use std::process::Command;

fn report(out: &Path, jobs: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_regwatt"))
        .args([
            "report",
            "--workloads",
            "vectorAdd,reduction",
            "--jobs",
            jobs,
            "--out",
        ])
        .arg(out)
        .output()
        .expect("regwatt runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("regwatt-h8-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
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
    let (a, b) = (tmp("report-a"), tmp("report-b"));
    let oa = report(&a, "1");
    assert!(
        oa.status.success(),
        "{}",
        String::from_utf8_lossy(&oa.stderr)
    );
    let ob = report(&b, "2");
    assert!(
        ob.status.success(),
        "{}",
        String::from_utf8_lossy(&ob.stderr)
    );
    assert_eq!(oa.stdout, ob.stdout, "summary tables differ");
    let csv = std::fs::read_to_string(a.join("summary.csv")).expect("summary.csv");
    // header + 2 workloads x 2 GPUs x 1 design x 2 nodes
    assert_eq!(csv.lines().count(), 1 + 8, "{csv}");
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",ok")), "{csv}");
    let run: serde_json::Value = serde_json::from_slice(
        &std::fs::read(a.join("runs/rtx2060/baseline/vectorAdd-12nm.json")).expect("run json"),
    )
    .expect("json");
    for k in ["activity", "energy", "area", "config", "cycles", "ipc"] {
        assert!(run.get(k).is_some(), "missing {k}");
    }
    assert!(a.join("config/gtx480-40nm.toml").exists());
    let (mut fa, mut fb) = (Vec::new(), Vec::new());
    files(&a, &mut fa);
    files(&b, &mut fb);
    assert_eq!(fa.len(), fb.len());
    for ((pa, da), (pb, db)) in fa.iter().zip(&fb) {
        assert_eq!(pa, pb);
        assert!(da == db, "{} differs between --jobs 1 and 2", pa.display());
    }
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}
