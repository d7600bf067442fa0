//! GPU presets (`designs/presets/*.toml`, embedded) + user overrides → a fully resolved,
//! validated [`ResolvedConfig`] (Ramulator-2 style: preset + overrides + a check that every
//! field is set; unknown keys rejected).
//!
//! A resolved configuration has three tables: `[gpu]` (the timing model's [`GpuConfig`],
//! every field required), `[rf]` ([`RfPhysical`], the physical organisation of the
//! register-file banks) and `[power]` ([`PowerPoint`], node and temperature of the power
//! models). A preset file here holds `[rf]` and `[power]`; its `[gpu]` table is the timing
//! model's own preset ([`regwatt_sim::timing::config::GTX480_TOML`] /
//! [`regwatt_sim::timing::config::RTX2060_TOML`]), so every timing value is written (and
//! sourced) once. Overrides come
//! from a TOML file with the same structure and from `key=value` pairs (`gpu.sms=10`; a path
//! whose first segment is not `gpu`, `rf` or `power` is looked up under `gpu`, so `sms=10`
//! works too). An override may only name keys the preset has: anything else is an error
//! naming the file (or `--set`) and the key.

use std::fmt;
use std::str::FromStr;

use regwatt_sim::timing::config::{self as timing_config, GpuConfig};
use regwatt_tech::units::Temperature;
use serde::{Deserialize, Serialize};

const GTX480_TOML: &str = include_str!("../presets/gtx480.toml");
const RTX2060_TOML: &str = include_str!("../presets/rtx2060.toml");

/// The built-in GPU presets (a closed set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuPreset {
    /// Fermi GTX 480-like (seed 002 §2.1, seed 004 Table I).
    Gtx480,
    /// Turing RTX 2060-like (seed 003 §II, Table I).
    Rtx2060,
}

impl GpuPreset {
    /// Every preset, in report order.
    pub const ALL: [GpuPreset; 2] = [GpuPreset::Gtx480, GpuPreset::Rtx2060];

    /// Name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            GpuPreset::Gtx480 => "gtx480",
            GpuPreset::Rtx2060 => "rtx2060",
        }
    }

    /// File name of the embedded preset.
    pub fn file_name(self) -> &'static str {
        match self {
            GpuPreset::Gtx480 => "presets/gtx480.toml",
            GpuPreset::Rtx2060 => "presets/rtx2060.toml",
        }
    }

    /// The embedded preset text (`[rf]` and `[power]`).
    pub fn toml(self) -> &'static str {
        match self {
            GpuPreset::Gtx480 => GTX480_TOML,
            GpuPreset::Rtx2060 => RTX2060_TOML,
        }
    }

    /// File name and text of the timing model's preset that becomes the `[gpu]` table.
    pub fn gpu_toml(self) -> (&'static str, &'static str) {
        match self {
            GpuPreset::Gtx480 => ("sim/src/timing/gtx480.toml", timing_config::GTX480_TOML),
            GpuPreset::Rtx2060 => ("sim/src/timing/rtx2060.toml", timing_config::RTX2060_TOML),
        }
    }
}

impl fmt::Display for GpuPreset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GpuPreset {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        GpuPreset::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ConfigError::UnknownGpu(s.to_string()))
    }
}

/// Technology nodes the designs are evaluated at (a closed set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Node {
    /// 90 nm (CACTI 7 / ITRS).
    N90,
    /// 65 nm (CACTI 7 / ITRS).
    N65,
    /// 45 nm (CACTI 7 / ITRS).
    N45,
    /// 40 nm (CACTI-interpolated between 45 and 32 nm; seed 002's node).
    N40,
    /// 32 nm (CACTI 7 / ITRS).
    N32,
    /// 22 nm (CACTI 7 / ITRS).
    N22,
    /// 12 nm (regwatt's FinFET node file).
    N12,
}

impl Node {
    /// Every node the technology layer has, largest first.
    pub const ALL: [Node; 7] = [
        Node::N90,
        Node::N65,
        Node::N45,
        Node::N40,
        Node::N32,
        Node::N22,
        Node::N12,
    ];

    /// The nodes `regwatt report` evaluates every run at, in report order (the presets'
    /// nodes: seed 002's 40 nm and TU106's 12 nm).
    pub const REPORT: [Node; 2] = [Node::N40, Node::N12];

    /// Feature size in nm.
    pub fn nm(self) -> f64 {
        match self {
            Node::N90 => 90.0,
            Node::N65 => 65.0,
            Node::N45 => 45.0,
            Node::N40 => 40.0,
            Node::N32 => 32.0,
            Node::N22 => 22.0,
            Node::N12 => 12.0,
        }
    }

    /// Name on the command line and in reports (`40nm`).
    pub fn name(self) -> &'static str {
        match self {
            Node::N90 => "90nm",
            Node::N65 => "65nm",
            Node::N45 => "45nm",
            Node::N40 => "40nm",
            Node::N32 => "32nm",
            Node::N22 => "22nm",
            Node::N12 => "12nm",
        }
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Node {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        let l = t.to_ascii_lowercase();
        let n = l.strip_suffix("nm").unwrap_or(&l);
        Node::ALL
            .into_iter()
            .find(|node| node.name().strip_suffix("nm") == Some(n))
            .ok_or_else(|| ConfigError::UnknownNode(s.to_string()))
    }
}

impl Serialize for Node {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Physical organisation of the register-file banks. (The ports of a bank are the timing
/// model's `gpu.sm.register_file.ports_per_bank`, which the power model reads too: one key,
/// issue 26.) A *logical* bank of the timing model
/// (one arbiter queue, one warp register per access) is `slices_per_bank` physical SRAM
/// banks accessed together, each holding `row_bits / 32` lanes of every row (seed 002 §2.1:
/// the same bank of the 8 SIMT clusters, 128-bit rows of 4 lanes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RfPhysical {
    /// Physical banks per logical bank.
    pub slices_per_bank: u32,
    /// Row width of one physical bank, bits (`slices_per_bank × row_bits = 1024`).
    pub row_bits: u32,
    /// Capacity of one physical bank, bytes.
    pub bank_bytes: u32,
    /// SECDED ECC columns in the banks (1 check bit per 8 data bits, CACTI "Add ECC").
    pub ecc: bool,
    /// Source operand slots per operand collector unit.
    pub collector_operands: u32,
}

/// Operating point of the power models.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowerPoint {
    /// Technology node.
    pub node: Node,
    /// Junction temperature the leakage is evaluated at.
    pub temperature: Temperature,
}

/// A preset with all overrides applied and validated: what every result is computed from
/// and what is written next to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolvedConfig {
    pub gpu: GpuConfig,
    pub rf: RfPhysical,
    pub power: PowerPoint,
}

/// Errors resolving a configuration. Each names the file (or `--set`) and the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("unknown GPU preset `{0}` (known: gtx480, rtx2060)")]
    UnknownGpu(String),
    #[error("unknown technology node `{0}` (known: 90nm, 65nm, 45nm, 40nm, 32nm, 22nm, 12nm)")]
    UnknownNode(String),
    #[error("{file}: {message}")]
    Toml { file: String, message: String },
    #[error("{file}: unknown key `{key}` (the preset has no such field)")]
    UnknownKey { file: String, key: String },
    #[error("--set `{0}`: expected KEY=VALUE")]
    BadSet(String),
    #[error("{file}: key `{key}`: {message}")]
    Invalid {
        file: String,
        key: String,
        message: String,
    },
    #[error("cannot read {file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
}

/// Overrides applied on top of a preset, in order.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// (file name for messages, TOML text) of override files.
    pub files: Vec<(String, String)>,
    /// `key=value` pairs (`--set`).
    pub sets: Vec<String>,
    /// Node chosen on the command line (wins over the preset's `power.node`).
    pub node: Option<Node>,
}

impl Overrides {
    /// Reads an override file from disk.
    pub fn add_file(&mut self, path: &std::path::Path) -> Result<(), ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            file: path.display().to_string(),
            source,
        })?;
        self.files.push((path.display().to_string(), text));
        Ok(())
    }
}

fn parse_table(file: &str, text: &str) -> Result<toml::Table, ConfigError> {
    text.parse::<toml::Table>().map_err(|e| ConfigError::Toml {
        file: file.to_string(),
        message: e.to_string(),
    })
}

/// Merges `over` into `base`: tables recurse, other values replace. Keys absent from `base`
/// are errors.
fn merge(
    base: &mut toml::Table,
    over: toml::Table,
    prefix: &str,
    file: &str,
) -> Result<(), ConfigError> {
    for (k, v) in over {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let Some(slot) = base.get_mut(&k) else {
            return Err(ConfigError::UnknownKey {
                file: file.to_string(),
                key,
            });
        };
        match (slot, v) {
            (toml::Value::Table(b), toml::Value::Table(o)) => merge(b, o, &key, file)?,
            (slot, v) => *slot = v,
        }
    }
    Ok(())
}

/// Parses a `--set` value: a TOML value (`10`, `"gto"`, `{ latency = 4, initiation = 2 }`),
/// or else a bare string (`gto`, `40nm`).
fn parse_set_value(v: &str) -> toml::Value {
    match format!("x = {v}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("x").unwrap_or(toml::Value::String(v.to_string())),
        Err(_) => toml::Value::String(v.trim().to_string()),
    }
}

fn apply_set(root: &mut toml::Table, set: &str) -> Result<(), ConfigError> {
    let (key, value) = set
        .split_once('=')
        .ok_or_else(|| ConfigError::BadSet(set.to_string()))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(ConfigError::BadSet(set.to_string()));
    }
    let mut path: Vec<&str> = key.split('.').map(str::trim).collect();
    let full;
    if !matches!(path[0], "gpu" | "rf" | "power") {
        full = format!("gpu.{key}");
        path = full.split('.').map(str::trim).collect();
    }
    let shown = path.join(".");
    let mut table = root;
    for (i, seg) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        let unknown = || ConfigError::UnknownKey {
            file: "--set".into(),
            key: shown.clone(),
        };
        let slot = table.get_mut(*seg).ok_or_else(unknown)?;
        if last {
            *slot = parse_set_value(value);
            return Ok(());
        }
        table = match slot {
            toml::Value::Table(t) => t,
            _ => return Err(unknown()),
        };
    }
    Ok(())
}

/// Resolves a preset with overrides and validates the result.
pub fn resolve(preset: GpuPreset, ov: &Overrides) -> Result<ResolvedConfig, ConfigError> {
    let file = preset.file_name();
    let mut root = parse_table(file, preset.toml())?;
    let (gpu_file, gpu_text) = preset.gpu_toml();
    if root.contains_key("gpu") {
        return Err(ConfigError::Toml {
            file: file.to_string(),
            message: format!("`[gpu]` comes from {gpu_file}; the preset must not repeat it"),
        });
    }
    root.insert(
        "gpu".into(),
        toml::Value::Table(parse_table(gpu_file, gpu_text)?),
    );
    for (name, text) in &ov.files {
        let t = parse_table(name, text)?;
        merge(&mut root, t, "", name)?;
    }
    for s in &ov.sets {
        apply_set(&mut root, s)?;
    }
    if let Some(n) = ov.node {
        if let Some(toml::Value::Table(p)) = root.get_mut("power") {
            p.insert("node".into(), toml::Value::String(n.name().into()));
        }
    }
    let shown = if ov.files.is_empty() && ov.sets.is_empty() {
        file.to_string()
    } else {
        format!("{file} + overrides")
    };
    let cfg: ResolvedConfig =
        toml::Value::Table(root)
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::Toml {
                file: shown.clone(),
                message: e.message().to_string(),
            })?;
    cfg.validate(&shown)?;
    Ok(cfg)
}

/// Loads a preset without overrides.
pub fn preset(preset: GpuPreset) -> Result<ResolvedConfig, ConfigError> {
    resolve(preset, &Overrides::default())
}

impl ResolvedConfig {
    /// Checks every value's range and the consistency of the physical RF with the timing
    /// model's register file.
    pub fn validate(&self, file: &str) -> Result<(), ConfigError> {
        let bad = |key: &str, message: String| ConfigError::Invalid {
            file: file.to_string(),
            key: key.to_string(),
            message,
        };
        self.gpu
            .validate()
            .map_err(|e| bad(&format!("gpu.{}", e.field), e.message))?;
        let r = &self.rf;
        if r.slices_per_bank == 0 || r.slices_per_bank > 32 || 32 % r.slices_per_bank != 0 {
            return Err(bad(
                "rf.slices_per_bank",
                "must divide 32 lanes (1, 2, 4, 8, 16 or 32)".into(),
            ));
        }
        if r.row_bits * r.slices_per_bank != 1024 {
            return Err(bad(
                "rf.row_bits",
                format!(
                    "{} bits x {} slices must hold one 32-lane x 32-bit warp register (1024 bits)",
                    r.row_bits, r.slices_per_bank
                ),
            ));
        }
        let s = &self.gpu.sm;
        let logical_banks = u64::from(s.sub_cores) * u64::from(s.register_file.banks_per_sub_core);
        let physical = logical_banks * u64::from(r.slices_per_bank);
        let bytes = u64::from(s.limits.registers) * 4;
        if physical * u64::from(r.bank_bytes) != bytes {
            return Err(bad(
                "rf.bank_bytes",
                format!(
                    "{physical} physical banks x {} B != {} registers x 4 B = {bytes} B",
                    r.bank_bytes, s.limits.registers
                ),
            ));
        }
        if r.collector_operands == 0 || r.collector_operands > 16 {
            return Err(bad("rf.collector_operands", "must be in 1..=16".into()));
        }
        let k = self.power.temperature.k();
        if !(300.0..=400.0).contains(&k) {
            return Err(bad(
                "power.temperature",
                format!("{k} K is outside 300..=400 K (the technology tables' range)"),
            ));
        }
        Ok(())
    }

    /// Rows (warp registers) per physical bank.
    pub fn rows_per_bank(&self) -> u32 {
        self.rf.bank_bytes / (self.rf.row_bits / 8).max(1)
    }

    /// The configuration as TOML (written next to every result).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_else(|e| format!("# cannot serialise: {e}\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_resolve_with_the_seed_organisations() {
        let g = preset(GpuPreset::Gtx480).expect("gtx480");
        assert_eq!(g.gpu.sms, 15);
        assert_eq!(g.gpu.sm.limits.max_warps, 48);
        assert_eq!(g.gpu.sm.limits.max_threads, 1536);
        // 32 physical 4 KB banks of 128-bit rows = 128 KB
        assert_eq!(
            g.gpu.sm.register_file.banks_per_sub_core * g.rf.slices_per_bank,
            32
        );
        assert_eq!(g.rows_per_bank(), 256);
        let l2 =
            g.gpu.memory.l2_slices * g.gpu.memory.l2_slice.sets * g.gpu.memory.l2_slice.ways * 128;
        assert_eq!(l2, 768 * 1024);
        assert_eq!(g.power.node, Node::N40);
        let r = preset(GpuPreset::Rtx2060).expect("rtx2060");
        assert_eq!(r.gpu.sms, 30);
        assert_eq!(r.gpu.sm.sub_cores, 4);
        assert_eq!(r.gpu.sm.register_file.banks_per_sub_core, 2);
        assert_eq!(r.gpu.sm.collectors.units_per_sub_core, 2);
        assert_eq!(r.gpu.sm.limits.registers * 4, 256 * 1024);
        assert_eq!(r.power.temperature.k(), 360.0);
    }

    #[test]
    fn timing_section_is_the_timing_models_own_preset() {
        let r = preset(GpuPreset::Rtx2060).expect("rtx2060");
        assert_eq!(r.gpu, GpuConfig::rtx2060_like().expect("sim preset"));
        let g = preset(GpuPreset::Gtx480).expect("gtx480");
        assert_eq!(g.gpu, GpuConfig::gtx480_like().expect("sim preset"));
        for p in GpuPreset::ALL {
            assert!(!parse_table("x", p.toml())
                .expect("parses")
                .contains_key("gpu"));
        }
    }

    #[test]
    fn overrides_apply_and_unknown_keys_are_named() {
        let ov = Overrides {
            sets: vec!["sms=10".into(), "power.temperature=\"330 K\"".into()],
            node: Some(Node::N40),
            ..Overrides::default()
        };
        let r = resolve(GpuPreset::Rtx2060, &ov).expect("resolves");
        assert_eq!(r.gpu.sms, 10);
        assert_eq!(r.power.temperature.k(), 330.0);
        assert_eq!(r.power.node, Node::N40);

        let ov = Overrides {
            sets: vec!["gpu.sm.bogus=1".into()],
            ..Overrides::default()
        };
        let e = resolve(GpuPreset::Rtx2060, &ov).unwrap_err().to_string();
        assert!(e.contains("--set") && e.contains("gpu.sm.bogus"), "{e}");

        let ov = Overrides {
            files: vec![("my.toml".into(), "[rf]\nfoo = 3\n".into())],
            ..Overrides::default()
        };
        let e = resolve(GpuPreset::Gtx480, &ov).unwrap_err().to_string();
        assert!(e.contains("my.toml") && e.contains("rf.foo"), "{e}");
    }

    #[test]
    fn inconsistent_values_are_rejected_with_the_key() {
        let ov = Overrides {
            sets: vec!["rf.bank_bytes=1024".into()],
            ..Overrides::default()
        };
        let e = resolve(GpuPreset::Gtx480, &ov).unwrap_err().to_string();
        assert!(e.contains("rf.bank_bytes"), "{e}");
        let ov = Overrides {
            sets: vec!["sms=0".into()],
            ..Overrides::default()
        };
        let e = resolve(GpuPreset::Gtx480, &ov).unwrap_err().to_string();
        assert!(e.contains("gpu.sms"), "{e}");
        let ov = Overrides {
            sets: vec!["sms=\"ten\"".into()],
            ..Overrides::default()
        };
        assert!(resolve(GpuPreset::Gtx480, &ov).is_err());
        assert!("7nm".parse::<Node>().is_err());
        assert!("gtx1080".parse::<GpuPreset>().is_err());
    }

    #[test]
    fn resolved_config_round_trips_through_toml() {
        let r = preset(GpuPreset::Gtx480).expect("gtx480");
        let text = r.to_toml();
        let back: ResolvedConfig = toml::from_str(&text).expect("parses");
        assert_eq!(back, r);
    }
}
