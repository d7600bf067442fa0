//! Issue 35, part 5: mutation tests over the inputs a user writes — launch specs, override
//! files and `--set` values, CACTI cfgs (PTX: `sim/tests/ptx_fuzz.rs`). Each mutated input
//! either parses (and then the memory estimate of what it describes is computed without
//! panicking) or gives an error that names its place; none panics. Fixed seeds and small
//! case counts keep the whole file to a few seconds.

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

const VECTOR_ADD_SPEC: &str = include_str!("../workloads/vectorAdd/vectorAdd.toml");
const VECTOR_ADD_PTX: &str = include_str!("../workloads/vectorAdd/vectorAdd.ptx");
const CACTI_CFG: &str =
    include_str!("../calibrations/cacti7-train-cfg/banksweep_64K_b16_1R1W_bk16_32nm.cfg");
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
        Err(SpecError::Read { .. }) => {}
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
    fn issue35_mutated_specs_never_panic(ops in ops()) {
        check_spec(&mutate(VECTOR_ADD_SPEC, &ops, TOML_VOCAB));
    }
}

proptest! {
    #![proptest_config(cfg(35_002, 800))]

    /// Mutated override files resolve or give an error naming the file (or the preset key
    /// they broke).
    #[test]
    fn issue35_mutated_override_files_never_panic(ops in ops()) {
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
    fn issue35_any_set_names_its_key(k in 0usize..1000, v in prop::sample::select(SET_VALUES)) {
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
                let spec = regwatt_workloads::get("vectorAdd").expect("w").load_spec().expect("spec");
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
    fn issue35_mutated_cacti_cfgs_never_panic(ops in ops()) {
        const CFG_VOCAB: &[&str] = &[
            "-size (bytes) ", "-block size (bytes) ", "-associativity ", "-technology (u) ",
            "-read-write port ", "-UCA bank count ", "0", "-1", "1e30", "0.032", "4294967296",
            "\"x\"", "\n", "//", "\"true\"", " ", "18446744073709551616", "nan",
        ];
        let text = mutate(CACTI_CFG, &ops, CFG_VOCAB);
        if let Err(e) = regwatt_power::cacti_cfg::parse_str(&text, "fuzz.cfg") {
            prop_assert!(e.to_string().starts_with("fuzz.cfg"), "{e}");
        }
    }
}
