//! Hostile inputs to the `regwatt` binary: a Slurm script that must embed any path as a
//! literal word, sweep shards that must come from one sweep with sane values, grids too large
//! to expand, devices and FIFOs given as files, output folders holding other files or planted
//! symbolic links, CSV cells that look like formulas, and errors that must name their place
//! without echoing their input. Each is refused (or neutralised) with a clear message, exit
//! status 1, no panic, within 20 s and under 6 GB of address space ([`common::refused`]).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{assert_fails, assert_success, limited, refused, regwatt, text, tmp_dir};
use sha2::{Digest, Sha256};

/// A grid of 2 groups × 2 designs on the small preset (4 SMs keep each point fast).
const GRID: &str = r#"
workloads = ["vectorAdd"]
sizes = ["ci"]
gpus = ["gtx480"]
designs = ["baseline", "renaming"]
nodes = ["40nm"]
[set]
"gpu.sms" = [4, 8]
"#;

fn s(p: &Path) -> &str {
    p.to_str().expect("utf8")
}

/// A copy of the vectorAdd spec and PTX in `dir` (the spec under `name`).
fn vector_add(dir: &Path, name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/vectorAdd");
    std::fs::copy(root.join("vectorAdd.ptx"), dir.join("vectorAdd.ptx")).expect("ptx");
    let spec = dir.join(name);
    std::fs::copy(root.join("vectorAdd.toml"), &spec).expect("spec");
    spec
}

/// Runs `regwatt sweep` of `grid` into `out` (extra `args` appended).
fn sweep(grid: &Path, out: &Path, args: &[&str]) {
    let mut a = vec!["sweep", s(grid), "--out", s(out)];
    a.extend_from_slice(args);
    assert_success(&regwatt(&a), "sweep");
}

#[test]
fn slurm_script_embeds_hostile_paths_as_literal_words() {
    let dir = tmp_dir("hostile_inputs", "slurm");
    // a quote, a command substitution, a backtick, a newline and a space
    let grid = dir.join("x'$(touch INJECTED_P)'`touch INJECTED_B`.toml");
    std::fs::write(&grid, GRID).expect("grid");
    let out = dir.join("o ut\n$(touch INJECTED_N)'");
    let o = regwatt(&["sweep", s(&grid), "--out", s(&out), "--emit-slurm", "3"]);
    assert_success(&o, "emit-slurm");
    let script = dir.join("job.sh");
    std::fs::write(&script, &o.stdout).expect("script");
    let syntax = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .expect("bash");
    assert!(syntax.status.success(), "{}", text(&syntax));
    // a stand-in for regwatt that records the words it was given, NUL-separated
    let fake = dir.join("fake-regwatt");
    std::fs::write(
        &fake,
        "#!/bin/bash\nprintf '%s\\0' \"$@\" >> \"$ARGS_LOG\"\n",
    )
    .expect("fake");
    Command::new("chmod")
        .arg("+x")
        .arg(&fake)
        .status()
        .expect("chmod");
    let log = dir.join("args.log");
    for (task, extra) in [("2", None), ("1", Some("merge"))] {
        let _ = std::fs::remove_file(&log);
        let mut c = Command::new("bash");
        c.arg(&script)
            .current_dir(&dir)
            .env("REGWATT", &fake)
            .env("ARGS_LOG", &log)
            .env("SLURM_ARRAY_TASK_ID", task);
        if let Some(e) = extra {
            c.arg(e);
        }
        let r = c.output().expect("bash");
        assert!(r.status.success(), "{}", text(&r));
        let words: Vec<String> = std::fs::read_to_string(&log)
            .expect("log")
            .split('\0')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        let want: Vec<String> = match extra {
            None => vec![
                "sweep".into(),
                s(&grid).into(),
                "--out".into(),
                format!("{}/shard-2", s(&out)),
            ],
            // no shard exists: the glob stays as written, one word
            Some(_) => vec![
                "merge".into(),
                format!("{}/shard-*", s(&out)),
                "--out".into(),
                format!("{}/merged", s(&out)),
            ],
        };
        assert_eq!(words, want);
    }
    let injected: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("INJECTED"))
        .collect();
    assert!(injected.is_empty(), "the script ran embedded commands");
}

#[test]
fn merge_accepts_only_the_shards_of_one_sweep() {
    let dir = tmp_dir("hostile_inputs", "merge");
    let grid = dir.join("grid.toml");
    std::fs::write(&grid, GRID).expect("grid");
    let shard = |k: u32, g: &Path, name: &str| {
        let d = dir.join(name);
        sweep(g, &d, &["--shard", &format!("{k}/2")]);
        d
    };
    let (a, b) = (shard(1, &grid, "a"), shard(2, &grid, "b"));
    let whole = dir.join("whole");
    sweep(&grid, &whole, &[]);
    let merged = dir.join("merged");
    assert_success(
        &regwatt(&["merge", s(&a), s(&b), "--out", s(&merged)]),
        "merge",
    );
    assert_eq!(
        std::fs::read(whole.join("sweep.csv")).expect("whole"),
        std::fs::read(merged.join("sweep.csv")).expect("merged")
    );
    assert_eq!(
        std::fs::read(whole.join("sweep.meta.json")).expect("whole"),
        std::fs::read(merged.join("sweep.meta.json")).expect("merged"),
        "a merge is the unsharded sweep, identity and digest included"
    );
    // a shard of a grid with other [set] values
    let other = dir.join("other.toml");
    std::fs::write(&other, GRID.replace("[4, 8]", "[4, 6]")).expect("grid");
    let b2 = shard(2, &other, "b2");
    refused(
        &dir,
        &["merge", s(&a), s(&b2), "--out", "m1"],
        &["another sweep"],
    );
    // the same shard twice
    refused(
        &dir,
        &["merge", s(&a), s(&a), s(&b), "--out", "m2"],
        &["given twice"],
    );
    // an edited value
    let e = dir.join("edited");
    copy_dir(&a, &e);
    edit_first_row(&e, "cycles", "-5");
    refused(
        &dir,
        &["merge", s(&e), s(&b), "--out", "m3"],
        &["content digest"],
    );
    // --out one of the shards, or a file
    refused(&dir, &["merge", s(&a), s(&b), "--out", s(&a)], &["shard"]);
    std::fs::write(dir.join("file"), "x").expect("file");
    refused(
        &dir,
        &["merge", s(&a), s(&b), "--out", "file"],
        &["not a directory"],
    );
    // nothing was written by a refused merge
    for m in ["m1", "m2", "m3"] {
        assert!(!dir.join(m).exists(), "{m} written");
    }
}

/// Copies a shard folder (files and `points/`).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.join("points")).expect("mkdir");
    for sub in ["", "points"] {
        for e in std::fs::read_dir(from.join(sub)).expect("read") {
            let e = e.expect("entry");
            if e.file_type().expect("type").is_file() {
                std::fs::copy(e.path(), to.join(sub).join(e.file_name())).expect("copy");
            }
        }
    }
}

/// Sets `column` of the first data row of `dir/sweep.csv` to `value`.
fn edit_first_row(dir: &Path, column: &str, value: &str) {
    let p = dir.join("sweep.csv");
    let text = std::fs::read_to_string(&p).expect("csv");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let i = lines[0]
        .split(',')
        .position(|c| c == column)
        .expect("column");
    let mut f: Vec<String> = lines[1].split(',').map(str::to_string).collect();
    f[i] = value.to_string();
    lines[1] = f.join(",");
    std::fs::write(&p, lines.join("\n") + "\n").expect("write");
}

/// The digest `sweep.meta.json` records: SHA-256 over `sweep.csv`'s and each point file's.
fn digest(dir: &Path) -> String {
    let mut h = Sha256::new();
    h.update(b"sweep.csv\0");
    h.update(Sha256::digest(
        std::fs::read(dir.join("sweep.csv")).expect("csv"),
    ));
    let mut names: Vec<String> = std::fs::read_dir(dir.join("points"))
        .expect("points")
        .map(|e| e.expect("entry").file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    for n in names {
        h.update(b"points/");
        h.update(n.as_bytes());
        h.update(b"\0");
        h.update(Sha256::digest(
            std::fs::read(dir.join("points").join(&n)).expect("point"),
        ));
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Makes an edited shard's recorded digest match its files again, as a careful forger would.
fn reseal(dir: &Path) {
    let meta = dir.join("sweep.meta.json");
    let m = std::fs::read_to_string(&meta).expect("meta");
    let old = m
        .lines()
        .find(|l| l.contains("content_sha256"))
        .expect("digest line")
        .to_string();
    let new = format!("  \"content_sha256\": \"{}\"", digest(dir));
    std::fs::write(&meta, m.replace(&old, &new)).expect("meta");
}

#[test]
fn merge_validates_values_even_with_a_matching_digest() {
    let dir = tmp_dir("hostile_inputs", "values");
    let grid = dir.join("grid.toml");
    std::fs::write(&grid, GRID).expect("grid");
    let (a, b) = (dir.join("a"), dir.join("b"));
    sweep(&grid, &a, &["--shard", "1/2"]);
    sweep(&grid, &b, &["--shard", "2/2"]);
    for (i, (column, value, want)) in [
        ("cycles", "-5", "cycles is negative"),
        ("total_j", "NaN", "total_j is NaN"),
        ("dynamic_j", "1e-3", "is not dynamic_j + static_j"),
        ("design", "malekeh", "design is `malekeh`"),
        ("status", "maybe", "neither ok nor error"),
    ]
    .into_iter()
    .enumerate()
    {
        let e = dir.join(format!("e{i}"));
        copy_dir(&a, &e);
        edit_first_row(&e, column, value);
        reseal(&e);
        refused(
            &dir,
            &["merge", s(&e), s(&b), "--out", &format!("m{i}")],
            &[want],
        );
    }
    // a duplicated row, digest kept consistent
    let e = dir.join("dup");
    copy_dir(&a, &e);
    let csv = std::fs::read_to_string(e.join("sweep.csv")).expect("csv");
    let first = csv.lines().nth(1).expect("row").to_string();
    std::fs::write(e.join("sweep.csv"), format!("{csv}{first}\n")).expect("csv");
    reseal(&e);
    refused(
        &dir,
        &["merge", s(&e), s(&b), "--out", "mdup"],
        &["appears twice"],
    );
}

#[test]
fn grids_are_bounded_and_checked_before_any_work() {
    let dir = tmp_dir("hostile_inputs", "grids");
    // four [set] keys of 100 values: 10^8 points, refused from the list lengths
    let vals: Vec<String> = (1..=100).map(|i| i.to_string()).collect();
    let v = vals.join(", ");
    let big = format!(
        "workloads=[\"vectorAdd\"]\ngpus=[\"gtx480\"]\ndesigns=[\"baseline\"]\nnodes=[\"40nm\"]\n[set]\n\"gpu.sms\"=[{v}]\n\"rf.banks\"=[{v}]\n\"gpu.clock_mhz\"=[{v}]\n\"gpu.sm.limits.max_ctas\"=[{v}]\n"
    );
    std::fs::write(dir.join("big.toml"), big).expect("grid");
    refused(
        &dir,
        &["sweep", "big.toml", "--out", "big"],
        &["100000000 points", "--max-points"],
    );
    assert!(!dir.join("big").exists());
    // a [set] value no configuration accepts, named with the grid's line, before the run
    std::fs::write(
        dir.join("zero.toml"),
        "workloads=[\"vectorAdd\"]\ngpus=[\"gtx480\"]\ndesigns=[\"baseline\"]\nnodes=[\"40nm\"]\n[set]\n\"gpu.sms\"=[4, 0]\n",
    )
    .expect("grid");
    refused(
        &dir,
        &["sweep", "zero.toml", "--out", "zero"],
        &["zero.toml:6", "gpu.sms", "= 0"],
    );
    assert!(
        !dir.join("zero").exists(),
        "nothing runs, nothing is written"
    );
    // a design key on a design without it
    std::fs::write(
        dir.join("design.toml"),
        "workloads=[\"vectorAdd\"]\ngpus=[\"gtx480\"]\ndesigns=[\"baseline\",\"renaming\"]\nnodes=[\"40nm\"]\n[set]\n\"design.table_bytes\"=[512]\n",
    )
    .expect("grid");
    refused(
        &dir,
        &["sweep", "design.toml", "--out", "design"],
        &["design.table_bytes", "design baseline"],
    );
    std::fs::write(dir.join("g.toml"), GRID).expect("grid");
    // a usage error (clap's exit status 2)
    for a in [
        &["sweep", "g.toml", "--out", "j", "--jobs", "0"][..],
        &["report", "--size", "ci", "--out", "j", "--jobs", "0"][..],
    ] {
        let (o, _) = limited(&dir, a);
        let err = assert_fails(&o, "--jobs 0");
        assert!(
            err.contains("--jobs") && err.contains("not in 1.."),
            "{err}"
        );
    }
    // a point that fails at run time is a row with its error, and the sweep exits non-zero
    let (o, _) = limited(
        &dir,
        &["sweep", "g.toml", "--out", "slow", "--max-cycles", "50"],
    );
    assert_fails(&o, "cycle limit");
    let csv = std::fs::read_to_string(dir.join("slow/sweep.csv")).expect("csv");
    assert_eq!(
        csv.lines().filter(|l| l.contains(",error,")).count(),
        4,
        "{csv}"
    );
}

#[test]
fn special_files_are_refused_as_inputs() {
    let dir = tmp_dir("hostile_inputs", "special");
    let spec = vector_add(&dir, "v.toml");
    let text = std::fs::read_to_string(&spec).expect("spec");
    // /dev/zero as the spec, as the PTX, as an override file, as a ptx for `regwatt ptx`
    refused(
        &dir,
        &["exec", "/dev/zero"],
        &["/dev/zero", "character device"],
    );
    std::fs::write(
        dir.join("zptx.toml"),
        text.replace("ptx = \"vectorAdd.ptx\"", "ptx = \"/dev/zero\""),
    )
    .expect("spec");
    refused(&dir, &["exec", "zptx.toml"], &["ptx", "character device"]);
    refused(
        &dir,
        &[
            "run",
            "--gpu",
            "gtx480",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--config",
            "/dev/zero",
        ],
        &["character device"],
    );
    refused(&dir, &["ptx", "/dev/urandom"], &["character device"]);
    // /dev/urandom and a FIFO as .npy inputs (a FIFO would block forever if opened)
    // buffer `a` initialised from an .npy file at `path`
    let npy_spec = |name: &str, path: &str| {
        let t = text.replacen(
            "init = { kind = \"uniform\", min = -1.0, max = 1.0, seed = 1 }",
            &format!("init = {{ kind = \"npy\", path = \"{path}\" }}"),
            1,
        );
        std::fs::write(dir.join(name), t).expect("spec");
    };
    npy_spec("rnd.toml", "/dev/urandom");
    refused(&dir, &["exec", "rnd.toml"], &["character device"]);
    let fifo = dir.join("a.npy");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo")
        .success());
    npy_spec("fifo.toml", "a.npy");
    refused(&dir, &["exec", "fifo.toml"], &["FIFO"]);
    // a CACTI cfg folder with a link to a device and a link to a file that is no cfg
    let cfgs = dir.join("cfgs");
    std::fs::create_dir(&cfgs).expect("mkdir");
    std::os::unix::fs::symlink("/dev/zero", cfgs.join("zero.cfg")).expect("link");
    std::os::unix::fs::symlink("/etc/passwd", cfgs.join("passwd.cfg")).expect("link");
    let (o, took) = limited(&dir, &["sram", "--cacti-cfg", "cfgs"]);
    let err = assert_fails(&o, "cfg folder");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("character device"), "{out}");
    assert!(out.contains("not a cfg line"), "{out}");
    assert!(
        !out.contains("root:") && !err.contains("root:"),
        "a file's contents echoed"
    );
    assert!(took.as_secs() < 20);
}

#[test]
fn output_folders_hold_only_what_regwatt_wrote() {
    let dir = tmp_dir("hostile_inputs", "outdirs");
    std::fs::create_dir(dir.join("mine")).expect("mkdir");
    std::fs::write(dir.join("mine/notes.txt"), "user").expect("file");
    let run = |out: &str, extra: &[&str]| {
        let mut a = vec![
            "run",
            "--gpu",
            "gtx480",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--out",
            out,
        ];
        a.extend_from_slice(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    fn args(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    // a folder with a file regwatt did not write: refused by every writing command
    for a in [
        run("mine", &[]),
        run("fresh", &["--dump", "mine"]),
        vec![
            "exec".into(),
            "--size".into(),
            "ci".into(),
            "--workload".into(),
            "vectorAdd".into(),
            "--dump".into(),
            "mine".into(),
        ],
        vec![
            "report".into(),
            "--size".into(),
            "ci".into(),
            "--workloads".into(),
            "vectorAdd".into(),
            "--out".into(),
            "mine".into(),
        ],
    ] {
        refused(&dir, &args(&a), &["mine", "notes.txt", "--force"]);
    }
    assert!(
        !dir.join("fresh").exists(),
        "checked before anything was written"
    );
    // with --force: written beside it, the user's file untouched
    let (o, _) = limited(&dir, &args(&run("mine", &["--force"])));
    assert_success(&o, "--force");
    assert_eq!(
        std::fs::read_to_string(dir.join("mine/notes.txt")).expect("kept"),
        "user"
    );
    // a folder regwatt wrote is reused; the previous run's files do not linger
    let (o, _) = limited(&dir, &args(&run("r", &["--dump", "r"])));
    assert_success(&o, "out + dump");
    assert!(dir.join("r/c.npy").is_file());
    let (o, _) = limited(&dir, &args(&run("r", &[])));
    assert_success(&o, "rerun");
    assert!(
        !dir.join("r/c.npy").exists(),
        "a stale file of the previous run is left"
    );
    assert!(dir.join("r/report.json").is_file());
    // an existing file as --out: refused at once, before the (long) report runs
    std::fs::write(dir.join("afile"), "x").expect("file");
    // (the whole report takes minutes; `refused` bounds this at 20 s)
    refused(
        &dir,
        &["report", "--size", "ci", "--out", "afile"],
        &["not a directory"],
    );
    std::fs::write(dir.join("g.toml"), GRID).expect("grid");
    refused(
        &dir,
        &["sweep", "g.toml", "--out", "afile"],
        &["not a directory"],
    );
}

#[test]
fn symbolic_links_inside_output_folders_are_never_followed() {
    let dir = tmp_dir("hostile_inputs", "links");
    std::fs::write(dir.join("target.txt"), "precious").expect("target");
    std::fs::create_dir(dir.join("out")).expect("mkdir");
    std::os::unix::fs::symlink(dir.join("target.txt"), dir.join("out/report.json")).expect("link");
    let a = [
        "run",
        "--gpu",
        "gtx480",
        "--size",
        "ci",
        "--workload",
        "vectorAdd",
        "--out",
        "out",
    ];
    refused(&dir, &a, &["report.json"]);
    let mut forced = a.to_vec();
    forced.push("--force");
    let (o, _) = limited(&dir, &forced);
    assert_success(&o, "--force");
    assert_eq!(
        std::fs::read_to_string(dir.join("target.txt")).expect("target"),
        "precious",
        "written through the link"
    );
    let m = std::fs::symlink_metadata(dir.join("out/report.json")).expect("meta");
    assert!(m.is_file(), "the link was replaced by the report");
    // a sub-folder that is a link to elsewhere
    std::fs::create_dir(dir.join("elsewhere")).expect("mkdir");
    std::fs::create_dir(dir.join("rep")).expect("mkdir");
    std::os::unix::fs::symlink(dir.join("elsewhere"), dir.join("rep/runs")).expect("link");
    let err = refused(
        &dir,
        &[
            "report",
            "--size",
            "ci",
            "--workloads",
            "vectorAdd",
            "--gpus",
            "gtx480",
            "--designs",
            "baseline",
            "--out",
            "rep",
            "--force",
        ],
        &["symbolic link"],
    );
    assert!(err.contains("runs"), "{err}");
    assert_eq!(
        std::fs::read_dir(dir.join("elsewhere"))
            .expect("dir")
            .count(),
        0
    );
}

#[test]
fn csv_cells_that_look_like_formulas_are_neutralised() {
    let dir = tmp_dir("hostile_inputs", "formula");
    vector_add(&dir, "=HYPERLINK(\"x\").toml");
    let (o, _) = limited(
        &dir,
        &[
            "run",
            "=HYPERLINK(\"x\").toml",
            "--gpu",
            "gtx480",
            "--out",
            "o",
        ],
    );
    assert_success(&o, "run");
    let csv = std::fs::read_to_string(dir.join("o/energy.csv")).expect("csv");
    let row = csv.lines().nth(1).expect("row");
    assert!(row.starts_with("\"'=HYPERLINK("), "{row}");
    // numbers that begin with '-' are data and stay numbers
    assert!(csv.lines().all(|l| !l.contains(",'-")), "{csv}");
}

#[test]
fn errors_quote_only_short_excerpts_and_name_their_place() {
    let dir = tmp_dir("hostile_inputs", "errors");
    let spec = vector_add(&dir, "v.toml");
    let text = std::fs::read_to_string(&spec).expect("spec");
    let deep = format!("a = {}{}\n", "[".repeat(5000), "]".repeat(5000));
    std::fs::write(dir.join("deep.toml"), &deep).expect("deep");
    let long = format!("gpu.sms={}", "x".repeat(100_000));
    for a in [
        vec![
            "run",
            "--gpu",
            "gtx480",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--config",
            "deep.toml",
        ],
        vec!["exec", "deep.toml"],
        vec!["sweep", "deep.toml", "--out", "d"],
        vec![
            "run",
            "--gpu",
            "gtx480",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--set",
            &long,
        ],
    ] {
        let err = refused(&dir, &a, &[]);
        assert!(
            err.len() < 2000,
            "{} bytes of error for {:?}",
            err.len(),
            &a[..2]
        );
    }
    // a spec missing its top-level `ptx`: named as such, not as the first table
    std::fs::write(
        dir.join("noptx.toml"),
        text.replace("ptx = \"vectorAdd.ptx\"", ""),
    )
    .expect("spec");
    let err = refused(
        &dir,
        &["exec", "noptx.toml"],
        &["top level", "missing field `ptx`"],
    );
    assert!(!err.contains("buffers.a"), "{err}");
    // a [design] value: its own key and line
    std::fs::write(dir.join("d.toml"), "[design]\ntable_bytes = -5\n").expect("cfg");
    refused(
        &dir,
        &[
            "run",
            "--gpu",
            "gtx480",
            "--size",
            "ci",
            "--workload",
            "vectorAdd",
            "--design",
            "renaming",
            "--config",
            "d.toml",
        ],
        &["d.toml:2:1", "design.table_bytes"],
    );
    // CACTI capacity, organisation and port errors name file, line and key
    let cfg = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("calibrations/cacti7-train-cfg/banksweep_64K_b16_1R1W_bk16_32nm.cfg"),
    )
    .expect("cfg");
    for (name, from, to, want) in [
        (
            "huge",
            "-size (bytes) 65536",
            "-size (bytes) 1099511627776",
            "huge.cfg:2: key \"size (bytes)\"",
        ),
        (
            "rows",
            "-size (bytes) 65536",
            "-size (bytes) 1024",
            "rows.cfg:2: key \"size (bytes)\": no valid organisation",
        ),
        (
            "block",
            "-block size (bytes) 16",
            "-block size (bytes) 65536",
            "block.cfg:2: key \"size (bytes)\"",
        ),
    ] {
        std::fs::write(dir.join(format!("{name}.cfg")), cfg.replace(from, to)).expect("cfg");
        refused(
            &dir,
            &["sram", "--cacti-cfg", &format!("{name}.cfg")],
            &[want],
        );
    }
}
