//! `regwatt reproduce`: every seed at `ci` in one run (the runs the seeds share are made
//! once), compared with the checked-in tables (`designs/src/<design>/seed_table_ci.csv`) and
//! the design READMEs' generated blocks; bad input refused before anything is written.
//!
//! Regenerate the tables with `scripts/reproduce_tables.sh` (release binary) after a change
//! that moves a figure.

use std::path::{Path, PathBuf};

use crate::common::{assert_fails, assert_success, read_csv, regwatt, tmp_dir};

const DESIGNS: [(&str, &str); 5] = [
    ("000", "sharing"),
    ("001", "lreg"),
    ("002", "renaming"),
    ("003", "malekeh"),
    ("004", "cerf"),
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The README's generated block: its marker's size and its table.
fn readme_block(design: &str) -> (String, String, String) {
    let path = repo().join("designs/src").join(design).join("README.md");
    let text = read(&path);
    let begin = text
        .find("<!-- reproduce:begin ")
        .unwrap_or_else(|| panic!("{}: no reproduce:begin marker", path.display()));
    let head_end = begin + text[begin..].find("-->\n").expect("marker end") + 4;
    let end = text[head_end..]
        .find("<!-- reproduce:end -->")
        .unwrap_or_else(|| panic!("{}: no reproduce:end marker", path.display()));
    let marker = text[begin..head_end].to_string();
    let field = |k: &str| {
        marker
            .split_whitespace()
            .find_map(|t| t.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("{}: marker without {k}=", path.display()))
            .to_string()
    };
    (
        field("seed"),
        field("size"),
        text[head_end..head_end + end].to_string(),
    )
}

/// Every seed at `ci`: each design's table is the checked-in one, the README's block (at
/// `ci`) is its markdown, every table has at least six rows with both values numeric, and
/// each figure with a value has its data file. Prints the wall time (CI budget).
#[test]
fn every_seed_at_ci_matches_its_checked_in_table_and_readme() {
    let dir = tmp_dir("reproduce", "all_ci");
    let out = dir.join("out");
    let t = std::time::Instant::now();
    let o = regwatt(&[
        "reproduce",
        "all",
        "--size",
        "ci",
        "--jobs",
        "2",
        "--out",
        out.to_str().expect("utf-8 path"),
    ]);
    let took = t.elapsed();
    assert_success(&o, "regwatt reproduce all --size ci");
    eprintln!("regwatt reproduce all --size ci: {took:?}");
    for (seed, design) in DESIGNS {
        let got = read(&out.join(design).join("seed_table.csv"));
        let want = read(
            &repo()
                .join("designs/src")
                .join(design)
                .join("seed_table_ci.csv"),
        );
        assert_eq!(
            got, want,
            "{design}: the binary's ci table differs from designs/src/{design}/seed_table_ci.csv; rerun scripts/reproduce_tables.sh"
        );
        let rows = read_csv(&out.join(design).join("seed_table.csv"));
        let numeric = rows
            .iter()
            .filter(|r| {
                r["seed_value"].parse::<f64>().is_ok() && r["regwatt_value"].parse::<f64>().is_ok()
            })
            .count();
        assert!(
            numeric >= 6,
            "{design}: {numeric} rows with both values numeric"
        );
        for r in &rows {
            assert_eq!(r["seed"], seed, "{design}: {r:?}");
            assert_eq!(r["size"], "ci", "{design}: {r:?}");
            if r["regwatt_value"].is_empty() {
                assert!(r["note"].starts_with("not run: "), "{design}: {r:?}");
            }
        }
        let figures = out.join(design).join("figures");
        let files = std::fs::read_dir(&figures)
            .unwrap_or_else(|e| panic!("{}: {e}", figures.display()))
            .count();
        assert!(files >= numeric, "{design}: {files} figure files");
        let (marker_seed, size, block) = readme_block(design);
        assert_eq!(marker_seed, seed, "{design}: README marker");
        if size == "ci" {
            assert_eq!(
                block,
                read(&out.join(design).join("seed_table.md")),
                "{design}: the README's seed table differs from the binary's; rerun scripts/reproduce_tables.sh"
            );
        }
    }
}

/// A figure run alone, on one thread, gives the row the full run gave on two (the table does
/// not depend on `--jobs` or on which figures share the run).
#[test]
fn one_figure_on_one_thread_gives_the_checked_in_row() {
    let o = regwatt(&[
        "reproduce",
        "sharing",
        "--size",
        "ci",
        "--jobs",
        "1",
        "--figure",
        "matrixmul_registers_vs_baseline",
    ]);
    assert_success(&o, "reproduce sharing --figure");
    let md = String::from_utf8_lossy(&o.stdout).into_owned();
    let row = md
        .lines()
        .find(|l| l.contains("against the architected allocation"))
        .unwrap_or_else(|| panic!("no row in:\n{md}"))
        .to_string();
    let (_, size, block) = readme_block("sharing");
    let rows = read_csv(&repo().join("designs/src/sharing/seed_table_ci.csv"));
    let value = rows
        .iter()
        .find(|r| r["metric"].contains("against the architected allocation"))
        .map(|r| r["regwatt_value"].clone())
        .expect("row in seed_table_ci.csv");
    assert!(
        row.contains(&format!("| {value} |")),
        "{row} against {value}"
    );
    if size == "ci" {
        assert!(block.contains(&row), "README block lacks {row}");
    }
}

/// Bad input is refused with a clear error and nothing is written: an unknown seed (the
/// valid ones listed), an unknown figure (the seed's listed), a figure regwatt cannot run, an
/// output folder holding other files.
#[test]
fn bad_input_is_refused_and_writes_nothing() {
    let dir = tmp_dir("reproduce", "refused");
    let out = dir.join("out");
    let o_s = out.to_str().expect("utf-8 path");
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["reproduce", "nope", "--out", o_s],
            &["unknown seed or design `nope`", "003 (malekeh)"],
        ),
        (
            &["reproduce", "lreg", "--figure", "bogus", "--out", o_s],
            &["unknown figure `bogus`", "loads_skip_vs_baseline"],
        ),
        (
            &[
                "reproduce",
                "lreg",
                "--figure",
                "output_error",
                "--out",
                o_s,
            ],
            &["output_error", "cannot be run"],
        ),
    ];
    for (args, needles) in cases {
        let err = assert_fails(&regwatt(args), &args.join(" "));
        for n in needles {
            assert!(
                err.contains(n),
                "{}: `{n}` missing from:\n{err}",
                args.join(" ")
            );
        }
        assert!(!out.exists(), "{}: wrote {}", args.join(" "), out.display());
    }
    std::fs::create_dir_all(&out).expect("mkdir");
    std::fs::write(out.join("mine.txt"), "keep").expect("write");
    let err = assert_fails(
        &regwatt(&["reproduce", "sharing", "--size", "ci", "--out", o_s]),
        "reproduce into a foreign folder",
    );
    assert!(err.contains("mine.txt"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&out).expect("read_dir").collect();
    assert_eq!(left.len(), 1, "the foreign folder changed");
    let err = assert_fails(&regwatt(&["reproduce"]), "reproduce without a seed");
    assert!(err.contains("--list"), "{err}");
}

/// `--list` names every seed, its design and its figures, and marks those regwatt cannot run.
#[test]
fn list_names_seeds_designs_and_figures() {
    let o = regwatt(&["reproduce", "--list"]);
    assert_success(&o, "reproduce --list");
    let s = String::from_utf8_lossy(&o.stdout);
    for (seed, design) in DESIGNS {
        assert!(s.contains(&format!("{seed} {design}:")), "{s}");
    }
    for id in [
        "l2_reads_cifarnet",
        "registers_ever_allocated",
        "ipc_kernel_cycles",
        "rf_holes",
        "Fig. 29",
    ] {
        assert!(s.contains(id), "{id} missing from:\n{s}");
    }
    assert!(s.contains("output_error") && s.contains("not run"), "{s}");
}
