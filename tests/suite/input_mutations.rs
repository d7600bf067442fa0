//! Mutation tests over every input kind a user writes — launch specs, override files and
//! `--set` values, CACTI cfgs, sweep grids and sweep shards (PTX: `sim/tests/suite/ptx_fuzz.rs`).
//! Each mutated input either parses (and then what it describes is estimated without
//! panicking) or gives a short error that names its place; none panics. Fixed seeds and small
//! case counts bound the whole file to a few seconds of CI time; grids and shards go through
//! the `regwatt` binary, as a user's would.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use regwatt_designs::config::{resolve, ConfigError, GpuPreset, Overrides};
use regwatt_sim::launch::{LaunchSpec, MemFiles, SpecError};

fn cfg(seed: u64, cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    }
}

const VECTOR_ADD_SPEC: &str = include_str!("../../workloads/vectorAdd/vectorAdd.toml");
const VECTOR_ADD_PTX: &str = include_str!("../../workloads/vectorAdd/vectorAdd.ptx");
const CACTI_CFG: &str =
    include_str!("../../calibrations/cacti7-train-cfg/banksweep_64K_b16_1R1W_bk16_32nm.cfg");
const OVERRIDE: &str = "[gpu]\nsms = 10\n[gpu.sm.limits]\nmax_ctas = 8\n[gpu.memory.l1d]\nsets = 8\n[rf]\necc = true\n[power]\ntemperature = \"330 K\"\n";

/// Tokens spliced into TOML texts: delimiters, huge and negative numbers, wrong types.
const TOML_VOCAB: &[&str] = &[
    "[",
    "]",
    "[[",
    "]]",
    "{",
    "}",
    "=",
    ",",
    "\"",
    "\n",
    "#",
    ".",
    "-1",
    "0",
    "1e30",
    "4294967296",
    "18446744073709551615",
    "9223372036854775807",
    "nan",
    "inf",
    "true",
    "\"x\"",
    "[buffers.z]",
    "[[launch]]",
    "len",
    "dtype",
    "init",
    "grid",
    "block",
    "args",
    "kind",
    "\"fill\"",
    "\"npy\"",
    "[gpu]",
    "sms",
    "[rf]",
    "bank_bytes",
    "1073741824",
    "[1, 2, 3]",
    "{ latency = 1 }",
];

/// A mutation of `text`: cut a byte range, or insert/replace with a vocabulary token.
fn mutate(text: &str, ops: &[(u8, usize, usize, usize)], vocab: &[&str]) -> String {
    let mut s = text.to_string();
    for &(kind, a, b, t) in ops {
        if s.is_empty() {
            s.push_str(vocab[t % vocab.len()]);
            continue;
        }
        let mut i = a % s.len();
        while !s.is_char_boundary(i) {
            i -= 1;
        }
        let mut j = (i + b % 24).min(s.len());
        while !s.is_char_boundary(j) {
            j -= 1;
        }
        match kind % 3 {
            0 => s.replace_range(i..j, ""),
            1 => s.insert_str(i, vocab[t % vocab.len()]),
            _ => s.replace_range(i..j, vocab[t % vocab.len()]),
        }
    }
    s
}

fn ops() -> impl Strategy<Value = Vec<(u8, usize, usize, usize)>> {
    prop::collection::vec(
        (any::<u8>(), any::<usize>(), any::<usize>(), any::<usize>()),
        1..6,
    )
}

fn check_spec(text: &str) {
    let files = MemFiles::new("fuzz").with("vectorAdd.ptx", VECTOR_ADD_PTX.as_bytes().to_vec());
    match LaunchSpec::parse("fuzz.toml", text, &files) {
        Ok(spec) => {
            // what a parsed spec describes can be estimated before it runs
            let f = regwatt_sim::footprint::functional(&spec);
            assert!(f.bytes > 0);
            let g = regwatt_designs::config::preset(GpuPreset::Rtx2060).expect("preset");
            assert!(regwatt_sim::footprint::timed(&g.gpu, &spec, 2).bytes >= f.bytes / 2);
        }
        Err(SpecError::Syntax { line, col, .. }) | Err(SpecError::Invalid { line, col, .. }) => {
            assert!(line >= 1 && col >= 1, "{text}")
        }
        Err(SpecError::Read(_)) => {}
    }
}

/// Every `[set]`-able key of a preset (dotted paths of its leaves).
fn keys(t: &toml::Table, prefix: &str, out: &mut Vec<String>) {
    for (k, v) in t {
        let p = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(sub) => keys(sub, &p, out),
            _ => out.push(p),
        }
    }
}

fn all_keys() -> Vec<String> {
    let c = regwatt_designs::config::preset(GpuPreset::Rtx2060).expect("preset");
    let t: toml::Table = toml::from_str(&c.to_toml()).expect("toml");
    let mut out = Vec::new();
    keys(&t, "", &mut out);
    out
}

const SET_VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "3",
    "4294967295",
    "4294967296",
    "1e30",
    "-1e30",
    "0.5",
    "nan",
    "inf",
    "true",
    "\"x\"",
    "x",
    "[1]",
    "{}",
    "{ latency = 1 }",
    "\"7nm\"",
    "\"-5 K\"",
    "\"1e9 mm^2\"",
    "1048576",
    "100000",
    "100001",
];

proptest! {
    #![proptest_config(cfg(35_001, 800))]

    /// Mutated launch specs parse or name file:line:col.
    #[test]
    fn mutated_specs_never_panic(ops in ops()) {
        check_spec(&mutate(VECTOR_ADD_SPEC, &ops, TOML_VOCAB));
    }
}

proptest! {
    #![proptest_config(cfg(35_002, 800))]

    /// Mutated override files resolve or give an error naming the file (or the preset key
    /// they broke).
    #[test]
    fn mutated_override_files_never_panic(ops in ops()) {
        let text = mutate(OVERRIDE, &ops, TOML_VOCAB);
        let ov = Overrides {
            files: vec![("fuzz.toml".into(), text.clone())],
            ..Overrides::default()
        };
        if let Err(e) = resolve(GpuPreset::Gtx480, &ov) {
            let m = e.to_string();
            prop_assert!(!m.is_empty());
            if let ConfigError::Invalid { key, .. } | ConfigError::UnknownKey { key, .. } = &e {
                prop_assert!(m.contains(key.as_str()), "{m}");
            }
        }
    }
}

proptest! {
    #![proptest_config(cfg(35_003, 1000))]

    /// Any preset key set to any value: resolves, or the error names `--set` and the key.
    #[test]
    fn any_set_names_its_key(k in 0usize..1000, v in prop::sample::select(SET_VALUES)) {
        let keys = all_keys();
        let key = &keys[k % keys.len()];
        let set = format!("{key}={v}");
        let ov = Overrides {
            sets: vec![set.clone()],
            design: Some(regwatt_designs::DesignSpec::Baseline),
            ..Overrides::default()
        };
        match resolve(GpuPreset::Rtx2060, &ov) {
            Ok(c) => {
                // a resolved configuration is bounded: its estimate is finite and computed
                let spec = regwatt_workloads::get("vectorAdd").expect("w").load_spec(regwatt_workloads::Size::Ci).expect("spec");
                let f = regwatt_sim::footprint::timed(&c.gpu, &spec, 1);
                prop_assert!(f.bytes < u64::MAX);
            }
            Err(e) => {
                let m = e.to_string();
                // the key, or for cross-key rules the key it broke with where that comes from
                prop_assert!(m.contains(key.as_str()) || m.contains("key `"), "{set}: {m}");
            }
        }
    }
}

proptest! {
    #![proptest_config(cfg(35_004, 1000))]

    /// Mutated CACTI cfgs parse or give `file:line` errors.
    #[test]
    fn mutated_cacti_cfgs_never_panic(ops in ops()) {
        const CFG_VOCAB: &[&str] = &[
            "-size (bytes) ", "-block size (bytes) ", "-associativity ", "-technology (u) ",
            "-read-write port ", "-UCA bank count ", "0", "-1", "1e30", "0.032", "4294967296",
            "\"x\"", "\n", "//", "\"true\"", " ", "18446744073709551616", "nan",
        ];
        let text = mutate(CACTI_CFG, &ops, CFG_VOCAB);
        match regwatt_power::cacti_cfg::parse_str(&text, "fuzz.cfg") {
            Err(e) => {
                prop_assert!(e.to_string().starts_with("fuzz.cfg"), "{e}");
                prop_assert!(e.to_string().len() < 1000, "{e}");
            }
            // mapped to the SRAM model: its range checks name the file, line and key too
            Ok(c) => {
                if let Err(e) = c.to_sram_spec() {
                    prop_assert!(e.to_string().starts_with("fuzz.cfg"), "{e}");
                }
            }
        }
    }
}

/// A sweep grid over the small preset (its points run in a fraction of a second).
const GRID: &str = "workloads = [\"vectorAdd\"]\nsizes = [\"ci\"]\ngpus = [\"gtx480\"]\ndesigns = [\"baseline\", \"renaming\"]\nnodes = [\"40nm\"]\npower_modes = [\"always-on\"]\n[set]\n\"gpu.sms\" = [4, 8]\n";

/// Tokens spliced into grids: the lists' names, values of the right and wrong kinds.
const GRID_VOCAB: &[&str] = &[
    "[",
    "]",
    "\"",
    ",",
    "=",
    "\n",
    "[set]",
    "workloads",
    "designs",
    "nodes",
    "gpus",
    "\"gpu.sms\"",
    "\"rf.banks\"",
    "\"design.table_bytes\"",
    "\"renaming\"",
    "\"cerf\"",
    "\"rtx2060\"",
    "\"12nm\"",
    "\"7nm\"",
    "0",
    "-1",
    "1e30",
    "4294967296",
    "nan",
    "[1, 2, 3]",
    "\"=cmd|x\"",
];

fn regwatt_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_regwatt"))
        .args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("regwatt")
}

/// A run's error, checked: no panic, a short message.
fn clean(o: &std::process::Output) -> Result<(), TestCaseError> {
    let err = String::from_utf8_lossy(&o.stderr);
    prop_assert!(
        o.status.code() != Some(101) && !err.contains("panicked"),
        "{err}"
    );
    prop_assert!(err.len() < 4000, "{} bytes of error", err.len());
    Ok(())
}

proptest! {
    #![proptest_config(cfg(47_001, 150))]

    /// Mutated grids are checked whole before anything runs: `--emit-slurm` (which reads and
    /// checks the grid, then prints) either prints a script or refuses with a short error
    /// naming the grid file.
    #[test]
    fn mutated_grids_never_panic(ops in ops()) {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("input_mutations_grid");
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("g.toml"), mutate(GRID, &ops, GRID_VOCAB)).expect("grid");
        let o = regwatt_in(&dir, &["sweep", "g.toml", "--out", "o", "--emit-slurm", "2"]);
        clean(&o)?;
        if !o.status.success() {
            let err = String::from_utf8_lossy(&o.stderr);
            prop_assert!(err.contains("g.toml") || err.contains("--max-points"), "{err}");
        }
    }
}

/// The two shards of [`GRID`], made once.
fn shards() -> &'static std::path::Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("input_mutations_shards");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("g.toml"), GRID).expect("grid");
        for k in 1..=2 {
            let o = regwatt_in(
                &dir,
                &[
                    "sweep",
                    "g.toml",
                    "--out",
                    &format!("s{k}"),
                    "--shard",
                    &format!("{k}/2"),
                ],
            );
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        }
        dir
    })
}

/// Tokens spliced into a shard's CSV and meta: numbers, separators, quotes, names.
const SHARD_VOCAB: &[&str] = &[
    ",",
    "\n",
    "\"",
    "-",
    "-1",
    "0",
    "1e308",
    "NaN",
    "inf",
    "ok",
    "error",
    "baseline",
    "renaming",
    "40nm",
    "{",
    "}",
    ":",
    "\"points\": 99",
    "\"shard\": 2",
    "\"format\": 1",
];

proptest! {
    #![proptest_config(cfg(47_002, 150))]

    /// A shard whose `sweep.csv` or `sweep.meta.json` was mutated is refused by `merge` with a
    /// short error (unless the mutation changed nothing), never a panic.
    #[test]
    fn mutated_shards_never_panic(ops in ops(), meta in any::<bool>(), case in 0u32..1_000_000) {
        let base = shards();
        let dir = base.join(format!("m{case}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("points")).expect("dir");
        for sub in ["", "points"] {
            for e in std::fs::read_dir(base.join("s1").join(sub)).expect("read") {
                let e = e.expect("entry");
                if e.file_type().expect("type").is_file() {
                    std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).expect("copy");
                }
            }
        }
        let name = if meta { "sweep.meta.json" } else { "sweep.csv" };
        let text = std::fs::read_to_string(dir.join(name)).expect("read");
        let mutated = mutate(&text, &ops, SHARD_VOCAB);
        std::fs::write(dir.join(name), &mutated).expect("write");
        let out = format!("out{case}");
        let d = dir.to_string_lossy().to_string();
        let s2 = base.join("s2").to_string_lossy().to_string();
        let o = regwatt_in(base, &["merge", &d, &s2, "--out", &out]);
        clean(&o)?;
        // a changed CSV is refused; a changed meta too, unless only its JSON layout changed
        if o.status.success() {
            prop_assert!(meta || mutated == text, "an edited sweep.csv was merged");
        } else {
            prop_assert!(mutated != text, "{}", String::from_utf8_lossy(&o.stderr));
        }
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(base.join(&out));
    }
}
