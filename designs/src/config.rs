//! GPU presets (`designs/presets/*.toml`, embedded) + user overrides → a fully resolved,
//! validated [`ResolvedConfig`] (Ramulator-2 style: preset + overrides + a check that every
//! field is set; unknown keys rejected).
//!
//! A resolved configuration has three tables: `[gpu]` (the timing model's [`GpuConfig`],
//! every field required), `[rf]` ([`RfPhysical`], the physical organisation of the
//! register-file banks) and `[power]` ([`PowerPoint`], node and temperature of the power
//! models), and a fourth, `[beyond_rf]` ([`BeyondRf`]: the energy scope and the parameters of
//! the structures outside the register file), which every preset sets but which the resolved
//! configuration keeps only when its scope is `sm` or `gpu`: at the default scope `rf` nothing
//! outside the register file is evaluated, and results stay byte for byte what they were
//! before scopes existed (a configuration or report without `beyond_rf` is an `rf` one).
//!
//! A preset file here holds `[rf]`, `[power]` and `[beyond_rf]`; its `[gpu]` table is the
//! timing model's own preset ([`regwatt_sim::timing::config::GTX480_TOML`] /
//! [`regwatt_sim::timing::config::RTX2060_TOML`]), so every timing value is written (and
//! sourced) once. Overrides come from a TOML file with the same structure and from
//! `key=value` pairs (`gpu.sms=10`; a path whose first segment is not `gpu`, `rf`, `power`,
//! `beyond_rf` or `design` is looked up under `gpu`, so `sms=10` works too), then `--node`
//! and `--scope`. A design with parameters adds its defaults as `[design]` first
//! ([`Overrides::design`]), so `design.KEY` overrides are checked like every other key.
//! An override may only name keys the preset has: anything else is an error
//! naming the file (or `--set`) and the key.

use std::fmt;
use std::str::FromStr;

use crate::registry::{DesignParams, DesignSpec};
use regwatt_sim::timing::config::{self as timing_config, GpuConfig};
use regwatt_tech::units::{Area, Energy, Temperature};
use serde::{Deserialize, Serialize};

const GTX480_TOML: &str = include_str!("../presets/gtx480.toml");
const RTX2060_TOML: &str = include_str!("../presets/rtx2060.toml");

/// The built-in GPU presets (a closed set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuPreset {
    /// Fermi GTX 480-like (Jeon & Annavaram 2014 §2.1, Jing et al. 2016 Table I).
    Gtx480,
    /// Turing RTX 2060-like (Malekeh §II, Table I).
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

/// A technology node the designs are evaluated at: a whole number of nanometres the
/// technology layer resolves ([`regwatt_tech::Technology::supports_node`]): its files' nodes
/// 90, 65, 45, 32, 22 and 12 nm, and any node strictly between two of CACTI's nodes (90–22 nm),
/// interpolated as CACTI does (40 nm, Jeon & Annavaram 2014's node, is one). Ordered largest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Node(u32);

impl Node {
    /// 90 nm (CACTI 7 / ITRS).
    pub const N90: Node = Node(90);
    /// 65 nm (CACTI 7 / ITRS).
    pub const N65: Node = Node(65);
    /// 45 nm (CACTI 7 / ITRS).
    pub const N45: Node = Node(45);
    /// 40 nm (CACTI-interpolated between 45 and 32 nm; Jeon & Annavaram 2014's node).
    pub const N40: Node = Node(40);
    /// 32 nm (CACTI 7 / ITRS).
    pub const N32: Node = Node(32);
    /// 22 nm (CACTI 7 / ITRS).
    pub const N22: Node = Node(22);
    /// 12 nm (regwatt's FinFET node file).
    pub const N12: Node = Node(12);

    /// The technology layer's named nodes (its files and 40 nm), largest first.
    pub const ALL: [Node; 7] = [
        Node::N90,
        Node::N65,
        Node::N45,
        Node::N40,
        Node::N32,
        Node::N22,
        Node::N12,
    ];

    /// The nodes `regwatt report` evaluates every run at by default, in report order (the
    /// presets' nodes: Jeon & Annavaram 2014's 40 nm and TU106's 12 nm).
    pub const REPORT: [Node; 2] = [Node::N40, Node::N12];

    /// The node of `nm` nanometres, if the technology layer resolves it.
    pub fn from_nm(nm: u32) -> Option<Node> {
        regwatt_tech::Technology::supports_node(f64::from(nm)).then_some(Node(nm))
    }

    /// Feature size in nm.
    pub fn nm(self) -> f64 {
        f64::from(self.0)
    }

    /// Name on the command line and in reports (`40nm`).
    pub fn name(self) -> String {
        format!("{}nm", self.0)
    }
}

impl PartialOrd for Node {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Node {
    /// Largest node first (90 nm < 12 nm), the order of [`Node::ALL`].
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.0.cmp(&self.0)
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}nm", self.0)
    }
}

impl FromStr for Node {
    type Err = ConfigError;
    /// `40nm`, `40 nm`, `40` (case-insensitive); a whole number of nm the technology layer
    /// resolves.
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        let l = t.to_ascii_lowercase();
        let n = l.strip_suffix("nm").unwrap_or(&l);
        n.parse::<u32>()
            .ok()
            .and_then(Node::from_nm)
            .ok_or_else(|| ConfigError::UnknownNode(s.to_string()))
    }
}

impl Serialize for Node {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// What the energy and area totals of a run include (`--scope`; a closed set, nested:
/// `rf` ⊂ `sm` ⊂ `gpu`).
///
/// * `rf`: the design's register-file components only (the default; the report is what it
///   was before scopes existed).
/// * `sm`: `rf` + the per-SM structures: L1D data and tag arrays, shared memory, execution
///   units.
/// * `gpu`: `sm` + the L2 slices (data and tag), the SM ↔ L2 interconnect and the DRAM.
///
/// At `sm` and `gpu` the breakdown lists every component of all three levels; the totals
/// include the scope's levels only (`energy.scope` in the report names them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// Register-file components only.
    #[default]
    Rf,
    /// Register file + per-SM structures.
    Sm,
    /// The whole GPU and its DRAM.
    Gpu,
}

impl Scope {
    /// Every scope, innermost first.
    pub const ALL: [Scope; 3] = [Scope::Rf, Scope::Sm, Scope::Gpu];

    /// Name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Rf => "rf",
            Scope::Sm => "sm",
            Scope::Gpu => "gpu",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scope {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        Scope::ALL
            .into_iter()
            .find(|x| x.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ConfigError::UnknownScope(s.to_string()))
    }
}

impl Serialize for Scope {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Scope {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Physical organisation of the register-file banks. (The ports of a bank are the timing
/// model's `gpu.sm.register_file.ports_per_bank`, which the power model reads too: one key.) A *logical* bank of the timing model
/// (one arbiter queue, one warp register per access) is `slices_per_bank` physical SRAM
/// banks accessed together, each holding `row_bits / 32` lanes of every row (Jeon & Annavaram 2014 §2.1:
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
    /// Power management of the register rows (`--power-mode`).
    pub mode: PowerMode,
    /// Drowsy and tri-modal modes: cycles without an access after which a row drops to its
    /// retention voltage (0: right after every access, as Warped RF).
    pub drowsy_timeout: u64,
    /// Performance-loss budget the sleep transistors are sized for (CACTI-P's "Power Gating
    /// Performance Loss"; the fraction by which the header's resistance may slow the cells).
    pub gating_perf_loss: f64,
    /// A read of a sleeping (gated or drowsy) row waits `wakeup_cycles` (false: the wake-up
    /// hides in the operand-collector stage and cycles do not change).
    pub wakeup_exposed: bool,
    /// Wake-up latency of a row, cycles.
    pub wakeup_cycles: u32,
    /// Idle-SM gating: an SM that holds no CTA is power-gated whole, so the static energy of
    /// every per-SM component (the register file, in every power mode, and the `sm` level of
    /// `--scope sm|gpu`) is charged for the SM-cycles with a CTA resident only
    /// (`activity.core.sm_busy_frac`), as AccelWattch scales static power by the active SMs
    /// (`crate::run::IdleSmGating`). Off: every SM leaks for the whole run. Every preset sets
    /// it; written only when on, so configurations and reports with it off are what they were
    /// before the key existed (and one without it reads as off).
    #[serde(default, skip_serializing_if = "is_false")]
    pub idle_sm_gating: bool,
    /// Register and sub-array gating: when a row (a sub-array) that a write turned on goes
    /// off again. Written only when not the default, so configurations and reports with the
    /// default are what they were before the key existed.
    #[serde(default, skip_serializing_if = "GatingRelease::is_free")]
    pub gating_release: GatingRelease,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// When a gated register row or sub-array goes off again (`power.gating_release`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GatingRelease {
    /// When it is freed (its warp exits, or the design releases the register; a sub-array
    /// when its last row is freed).
    #[default]
    Free,
    /// Never within the launch: on from the first write to the launch's end. The basic
    /// power gating Jeon & Annavaram 2014 §8.3 compare renaming against, which "does not
    /// know the register lifetime": "once a register is turned on, it cannot be turned off".
    Never,
}

impl GatingRelease {
    fn is_free(&self) -> bool {
        *self == GatingRelease::Free
    }
}

/// Power management of a design's register rows (`--power-mode`); a closed set.
/// What each mode turns off or down and when: `regwatt_sim::timing::activity::PowerStateCycles`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PowerMode {
    /// Every row at full supply for the whole run (no state accounting).
    #[default]
    AlwaysOn,
    /// A sub-array is on from the first write to a register in it until all are free.
    SubarrayGating,
    /// A register row is on from its first write until it is freed.
    RegisterGating,
    /// A row drops to its retention voltage after `drowsy_timeout` idle cycles.
    Drowsy,
    /// Drowsy, and off while unallocated.
    TriModal,
}

impl PowerMode {
    /// Every mode.
    pub const ALL: [PowerMode; 5] = [
        PowerMode::AlwaysOn,
        PowerMode::SubarrayGating,
        PowerMode::RegisterGating,
        PowerMode::Drowsy,
        PowerMode::TriModal,
    ];

    /// Name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            PowerMode::AlwaysOn => "always-on",
            PowerMode::SubarrayGating => "subarray-gating",
            PowerMode::RegisterGating => "register-gating",
            PowerMode::Drowsy => "drowsy",
            PowerMode::TriModal => "tri-modal",
        }
    }
}

impl fmt::Display for PowerMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PowerMode {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        PowerMode::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ConfigError::UnknownPowerMode(s.to_string()))
    }
}

impl Serialize for PowerMode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for PowerMode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The energy scope and the parameters of the structures outside the register file that
/// the timing configuration does not hold (`[beyond_rf]`; the structures themselves are
/// sized from `[gpu]`, see `crate::beyond_rf`). Every value in a preset cites its source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeyondRf {
    /// What the energy and area totals include.
    pub scope: Scope,
    /// Die area of the GPU: the SM ↔ L2 interconnect's mean wire length is half the side of
    /// a square die of this area.
    pub die_area: Area,
    /// DRAM access energy per bit moved (array, data movement and I/O), per sector read or
    /// written.
    pub dram_energy_per_bit: Energy,
    /// SECDED ECC columns (1 check bit per 8 data bits, CACTI "Add ECC") in the L1D, shared
    /// memory and L2 arrays.
    pub cache_ecc: bool,
}

/// A preset with all overrides applied and validated: what every result is computed from
/// and what is written next to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolvedConfig {
    pub gpu: GpuConfig,
    pub rf: RfPhysical,
    pub power: PowerPoint,
    /// Present when the scope is `sm` or `gpu` (see the module docs); absent = scope `rf`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beyond_rf: Option<BeyondRf>,
    /// The design's own parameters (`[design]`, `--set design.KEY=VALUE`), for a design that
    /// has any; absent for the baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<DesignParams>,
}

/// A `[design]` value written as a number or as one keyword (`"unbounded"`, `"adaptive"`).
pub(crate) enum NumberOr {
    Number(i64),
    Keyword,
}

/// Reads a [`NumberOr`]: any other string is refused as "expected `what` or `keyword`".
pub(crate) fn number_or_keyword<'de, D: serde::Deserializer<'de>>(
    d: D,
    keyword: &str,
    what: &str,
) -> Result<NumberOr, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        N(i64),
        S(String),
    }
    match Raw::deserialize(d)? {
        Raw::N(n) => Ok(NumberOr::Number(n)),
        Raw::S(s) if s.trim() == keyword => Ok(NumberOr::Keyword),
        Raw::S(s) => Err(serde::de::Error::custom(format!(
            "`{s}`: expected {what} or \"{keyword}\""
        ))),
    }
}

/// Errors resolving a configuration. Each names the file (or `--set`) and the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("unknown GPU preset `{0}` (known: gtx480, rtx2060)")]
    UnknownGpu(String),
    #[error("unknown technology node `{0}` (known: 90nm, 65nm, 45nm, 40nm, 32nm, 22nm, 12nm, and any whole nm between 22 and 90, interpolated)")]
    UnknownNode(String),
    #[error("unknown energy scope `{0}` (known: rf, sm, gpu)")]
    UnknownScope(String),
    #[error("unknown power mode `{0}` (known: always-on, subarray-gating, register-gating, drowsy, tri-modal)")]
    UnknownPowerMode(String),
    #[error("{file}: {message}")]
    Toml { file: String, message: String },
    #[error("{file}: unknown key `{key}` (the preset has no such field)")]
    UnknownKey { file: String, key: String },
    #[error("--set `{}`: expected KEY=VALUE", regwatt_inputs::excerpt(.0))]
    BadSet(String),
    #[error("{file}: key `{key}`: {message}")]
    Invalid {
        file: String,
        key: String,
        message: String,
    },
    #[error(transparent)]
    Io(#[from] regwatt_inputs::ReadError),
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
    /// Scope chosen on the command line (wins over the preset's `beyond_rf.scope`).
    pub scope: Option<Scope>,
    /// Power mode chosen on the command line (wins over the preset's `power.mode`).
    pub power_mode: Option<PowerMode>,
    /// The design whose `[design]` defaults are added before the overrides (a design
    /// without parameters, or `None`: no `[design]` table, and a `design.*` key is unknown).
    pub design: Option<DesignSpec>,
}

impl Overrides {
    /// Reads an override file from disk.
    pub fn add_file(&mut self, path: &std::path::Path) -> Result<(), ConfigError> {
        let text = regwatt_inputs::read_text(path, regwatt_inputs::TEXT_LIMIT)?;
        self.files.push((path.display().to_string(), text));
        Ok(())
    }
}

/// Parses override or preset TOML. The error names `file:line:col` and the parser's message,
/// without the `toml` crate's quotation of the offending line (which may be any length).
fn parse_table(file: &str, text: &str) -> Result<toml::Table, ConfigError> {
    text.parse::<toml::Table>().map_err(|e| {
        let (file, message) =
            regwatt_inputs::located(file, text, e.span().map(|s| s.start), e.message());
        ConfigError::Toml { file, message }
    })
}

/// Merges `over` into `base`: tables recurse, other values replace. Keys absent from `base`
/// are errors naming the file, line and key. Every replaced key's path is pushed on
/// `applied` (a later error about it names this file and line).
fn merge(
    base: &mut toml::Table,
    over: toml::Table,
    prefix: &str,
    origin: &Origin,
    applied: &mut Vec<(String, Origin)>,
) -> Result<(), ConfigError> {
    for (k, v) in over {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let Some(slot) = base.get_mut(&k) else {
            return Err(ConfigError::UnknownKey {
                file: origin.describe(&key),
                key,
            });
        };
        match (slot, v) {
            (toml::Value::Table(b), toml::Value::Table(o)) => merge(b, o, &key, origin, applied)?,
            (slot, v) => {
                *slot = v;
                applied.push((key, origin.clone()));
            }
        }
    }
    Ok(())
}

/// Where a value of the resolved configuration was written: an override file (name and
/// text, for the line), a `--set` (as given), or a built-in preset file.
#[derive(Clone, Debug)]
enum Origin {
    File {
        name: String,
        text: std::sync::Arc<str>,
        /// Prefix of the keys of the file relative to the resolved configuration (`gpu.` for
        /// the timing preset, whose keys have no `gpu` table).
        strip: &'static str,
    },
    Set(String),
}

impl Origin {
    /// `FILE:LINE:COL` of `key` (or `FILE` when the key is not written there), or
    /// `--set KEY=VALUE`.
    fn describe(&self, key: &str) -> String {
        match self {
            Origin::Set(s) => format!("--set {}", regwatt_inputs::excerpt(s)),
            Origin::File { name, text, strip } => {
                let k = key.strip_prefix(strip).unwrap_or(key);
                let mut k = k;
                loop {
                    if let Some((l, c)) = regwatt_sim::launch::tomlpos::locate(text, k) {
                        return format!("{name}:{l}:{c}");
                    }
                    // a key the file does not write itself: the nearest table it does
                    match k.rsplit_once('.') {
                        Some((up, _)) => k = up,
                        None => return name.clone(),
                    }
                }
            }
        }
    }
}

/// True when `a` is `b` or a table above or below it (`gpu.sm` and `gpu.sm.limits.max_ctas`).
fn related(a: &str, b: &str) -> bool {
    let under = |x: &str, y: &str| {
        x == y
            || x.strip_prefix(y)
                .is_some_and(|r| r.starts_with('.') || r.starts_with('['))
    };
    under(a, b) || under(b, a)
}

/// Parses a `--set` value: a TOML value (`10`, `"gto"`, `{ latency = 4, initiation = 2 }`),
/// or else a bare string (`gto`, `40nm`).
fn parse_set_value(v: &str) -> toml::Value {
    match format!("x = {v}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("x").unwrap_or(toml::Value::String(v.to_string())),
        Err(_) => toml::Value::String(v.trim().to_string()),
    }
}

fn apply_set(
    root: &mut toml::Table,
    set: &str,
    applied: &mut Vec<(String, Origin)>,
) -> Result<(), ConfigError> {
    let (key, value) = set
        .split_once('=')
        .ok_or_else(|| ConfigError::BadSet(set.to_string()))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(ConfigError::BadSet(set.to_string()));
    }
    let mut path: Vec<&str> = key.split('.').map(str::trim).collect();
    let full;
    if !matches!(path[0], "gpu" | "rf" | "power" | "beyond_rf" | "design") {
        full = format!("gpu.{key}");
        path = full.split('.').map(str::trim).collect();
    }
    let shown = path.join(".");
    let mut table = root;
    for (i, seg) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        let unknown = || ConfigError::UnknownKey {
            file: format!("--set {}", regwatt_inputs::excerpt(set.trim())),
            key: regwatt_inputs::excerpt(&shown),
        };
        let slot = table.get_mut(*seg).ok_or_else(unknown)?;
        if last {
            *slot = parse_set_value(value);
            applied.push((shown.clone(), Origin::Set(set.trim().to_string())));
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
///
/// Every error names the key and where its value came from: the override file
/// with its line and column, the `--set` as given, or the built-in preset file and line.
/// A command-line choice (`--node`, `--power-mode`, `--scope`) and an override of the same
/// key must agree, and the override must be valid even though the choice replaces it.
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
    let design_file = ov.design.and_then(|d| d.defaults());
    if let Some((dfile, dtext)) = design_file {
        root.insert(
            "design".into(),
            toml::Value::Table(parse_table(dfile, dtext)?),
        );
    }
    // where a key nothing overrides comes from
    let builtin = |key: &str| -> String {
        let (name, text, strip) = if key == "gpu" || key.starts_with("gpu.") {
            (gpu_file, gpu_text, "gpu.")
        } else if let (true, Some((dfile, dtext))) = (key.starts_with("design"), design_file) {
            (dfile, dtext, "")
        } else {
            (file, preset.toml(), "")
        };
        Origin::File {
            name: name.to_string(),
            text: std::sync::Arc::from(text),
            strip,
        }
        .describe(key)
    };
    let mut applied: Vec<(String, Origin)> = Vec::new();
    for (name, text) in &ov.files {
        let t = parse_table(name, text)?;
        let origin = Origin::File {
            name: name.clone(),
            text: std::sync::Arc::from(text.as_str()),
            strip: "",
        };
        merge(&mut root, t, "", &origin, &mut applied)?;
    }
    for s in &ov.sets {
        apply_set(&mut root, s, &mut applied)?;
    }
    let blame = |key: &str| -> String {
        applied
            .iter()
            .rev()
            .find(|(p, _)| related(p, key))
            .map_or_else(|| builtin(key), |(_, o)| o.describe(key))
    };
    cli_choice(
        &mut root,
        &applied,
        ("power", "node"),
        ov.node.map(Node::name),
        "--node",
        |v| v.parse::<Node>().map(Node::name),
    )?;
    cli_choice(
        &mut root,
        &applied,
        ("power", "mode"),
        ov.power_mode.map(|m| m.name().to_string()),
        "--power-mode",
        |v| v.parse::<PowerMode>().map(|m| m.name().to_string()),
    )?;
    cli_choice(
        &mut root,
        &applied,
        ("beyond_rf", "scope"),
        ov.scope.map(|sc| sc.name().to_string()),
        "--scope",
        |v| v.parse::<Scope>().map(|sc| sc.name().to_string()),
    )?;
    let shown = if ov.files.is_empty() && ov.sets.is_empty() {
        file.to_string()
    } else {
        format!("{file} + overrides")
    };
    // `[design]` is an internally tagged enum, whose content serde buffers: an error inside
    // it carries the path `design` only, so the table is read again on its own below
    let design_table = root.get("design").cloned();
    // the path of the field that failed (`gpu.sms`), not only the serde message
    let mut cfg: ResolvedConfig = serde_path_to_error::deserialize(toml::Value::Table(root))
        .map_err(|e| {
            let mut key = e.path().to_string();
            let mut message = e.inner().message().trim().to_string();
            if key == "design" {
                if let Some((k, m)) = design_table.as_ref().and_then(DesignParams::field_error) {
                    (key, message) = (format!("design.{k}"), m);
                }
            }
            let message = regwatt_inputs::excerpt_n(&message, 4 * regwatt_inputs::EXCERPT_CHARS);
            if key.is_empty() || key == "." {
                ConfigError::Toml {
                    file: shown.clone(),
                    message,
                }
            } else {
                ConfigError::Invalid {
                    file: blame(&key),
                    key,
                    message,
                }
            }
        })?;
    if cfg.beyond_rf.is_none() {
        return Err(ConfigError::Toml {
            file: file.to_string(),
            message: "missing table `[beyond_rf]`".into(),
        });
    }
    let reblame = |e: ConfigError| match e {
        ConfigError::Invalid { key, message, .. } => ConfigError::Invalid {
            file: blame(&key),
            key,
            message,
        },
        e => e,
    };
    if cfg.gpu.name != preset.name() {
        return Err(reblame(ConfigError::Invalid {
            file: shown.clone(),
            key: "gpu.name".into(),
            message: format!(
                "`{}`: the name identifies the preset and must be `{}` (choose the preset with --gpu; change other keys to vary it)",
                cfg.gpu.name,
                preset.name()
            ),
        }));
    }
    cfg.validate(&shown).map_err(reblame)?;
    // what a design without `[design]` values needs of the pipeline (`validate` checks a
    // design that has values)
    if let (Some(d), None) = (ov.design, &cfg.design) {
        d.check_pipeline(&cfg).map_err(|(key, message)| {
            reblame(ConfigError::Invalid {
                file: shown.clone(),
                key: key.to_string(),
                message,
            })
        })?;
    }
    // scope `rf` evaluates nothing outside the register file: the table is dropped, so the
    // resolved configuration (and every report) is what it was before scopes existed
    if cfg.scope() == Scope::Rf {
        cfg.beyond_rf = None;
    }
    Ok(cfg)
}

/// Applies a command-line choice (`--node 12nm`) to `table.key`. When an override set the
/// same key, its value must be valid (`canon` parses it) and equal to the choice: a value
/// silently replaced would be a configuration nobody asked for.
fn cli_choice<E: fmt::Display>(
    root: &mut toml::Table,
    applied: &[(String, Origin)],
    (table, key): (&str, &str),
    choice: Option<String>,
    flag: &str,
    canon: impl Fn(&str) -> Result<String, E>,
) -> Result<(), ConfigError> {
    let Some(v) = choice else {
        return Ok(());
    };
    let path = format!("{table}.{key}");
    if let Some((_, origin)) = applied.iter().rev().find(|(p, _)| related(p, &path)) {
        let bad = |message: String| ConfigError::Invalid {
            file: origin.describe(&path),
            key: path.clone(),
            message,
        };
        let cur = root.get(table).and_then(|t| t.get(key));
        match cur.map(|c| c.as_str().map(&canon)) {
            Some(Some(Ok(c))) if c == *v => {}
            Some(Some(Ok(c))) => {
                return Err(bad(format!(
                    "`{c}` disagrees with {flag} {v}: give the value once"
                )))
            }
            Some(Some(Err(e))) => return Err(bad(e.to_string())),
            Some(None) => {
                return Err(bad(format!(
                    "expected a string, got {}",
                    cur.map_or("nothing", |c| c.type_str())
                )))
            }
            None => return Err(bad("the override removed the key".into())),
        }
    }
    if let Some(toml::Value::Table(t)) = root.get_mut(table) {
        t.insert(key.into(), toml::Value::String(v));
    }
    Ok(())
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
        if u64::from(r.row_bits) * u64::from(r.slices_per_bank) != 1024 {
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
            // Say which value would hold the registers
            let fit = if bytes.is_multiple_of(physical) {
                format!("rf.bank_bytes = {} would hold them", bytes / physical)
            } else {
                format!(
                    "no whole bank size holds them: make gpu.sm.limits.registers a multiple of {}",
                    physical
                )
            };
            return Err(bad(
                "rf.bank_bytes",
                format!(
                    "the RF must hold the registers: {physical} physical banks x {} B != {} registers x 4 B = {bytes} B; {fit}",
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
        // a timeout beyond 2^40 cycles is longer than any run `--max-cycles` allows
        if self.power.drowsy_timeout > 1 << 40 {
            return Err(bad(
                "power.drowsy_timeout",
                format!("{} cycles: must be at most 2^40", self.power.drowsy_timeout),
            ));
        }
        let pl = self.power.gating_perf_loss;
        if !(pl.is_finite() && pl > 0.0 && pl <= 0.5) {
            return Err(bad(
                "power.gating_perf_loss",
                format!("{pl}: must be in (0, 0.5] (a fraction of the cells' speed)"),
            ));
        }
        if let Some(p) = &self.design {
            p.spec().check_pipeline(self).map_err(|(k, m)| bad(k, m))?;
            p.validate(self).map_err(|(k, m)| bad(k, m))?;
        }
        if !(1..=1000).contains(&self.power.wakeup_cycles) {
            return Err(bad(
                "power.wakeup_cycles",
                format!("{}: must be in 1..=1000", self.power.wakeup_cycles),
            ));
        }
        if let Some(b) = &self.beyond_rf {
            // a reticle-limited die is at most ~858 mm² (26 mm x 33 mm scanner field)
            let a = b.die_area.mm2();
            if !(a.is_finite() && a > 0.0 && a <= 1000.0) {
                return Err(bad(
                    "beyond_rf.die_area",
                    format!("{a} mm^2 is outside (0, 1000] mm^2"),
                ));
            }
            let e = b.dram_energy_per_bit.pj();
            if !(e.is_finite() && e > 0.0 && e <= 1000.0) {
                return Err(bad(
                    "beyond_rf.dram_energy_per_bit",
                    format!("{e} pJ is outside (0, 1000] pJ per bit"),
                ));
            }
        }
        Ok(())
    }

    /// What the energy and area totals include (`rf` when `beyond_rf` is absent).
    pub fn scope(&self) -> Scope {
        self.beyond_rf.as_ref().map_or(Scope::Rf, |b| b.scope)
    }

    /// Rows (warp registers) per physical bank.
    pub fn rows_per_bank(&self) -> u32 {
        self.rf.bank_bytes / (self.rf.row_bits / 8).max(1)
    }

    /// The configuration as TOML (written next to every result).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_else(|e| format!("# cannot serialise: {e}\n"))
    }

    /// The configuration as reports' JSON writes it: the TOML's tree, with every
    /// quantity a plain number in the unit its key names (`power.temperature_k`,
    /// `beyond_rf.die_area_mm2`, `beyond_rf.dram_energy_per_bit_pj`) instead of a unit string.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        let mut number = |table: &str, key: &str, new_key: &str, x: f64| {
            if let Some(t) = v.get_mut(table).and_then(|t| t.as_object_mut()) {
                t.remove(key);
                t.insert(new_key.to_string(), serde_json::json!(x));
            }
        };
        number(
            "power",
            "temperature",
            "temperature_k",
            self.power.temperature.k(),
        );
        if let Some(b) = &self.beyond_rf {
            number("beyond_rf", "die_area", "die_area_mm2", b.die_area.mm2());
            number(
                "beyond_rf",
                "dram_energy_per_bit",
                "dram_energy_per_bit_pj",
                b.dram_energy_per_bit.pj(),
            );
        }
        v
    }
}

/// `serialize_with` of a report's `config`: [`ResolvedConfig::to_json`].
pub fn config_as_json<S: serde::Serializer>(c: &ResolvedConfig, s: S) -> Result<S::Ok, S::Error> {
    c.to_json().serialize(s)
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

    /// Found by fuzzing the inputs: `rf.row_bits = 4294967295`
    /// overflowed `row_bits × slices_per_bank` (a panic); it is a named error.
    #[test]
    fn huge_row_bits_is_an_error_not_an_overflow() {
        let ov = Overrides {
            sets: vec!["rf.row_bits=4294967295".into()],
            ..Overrides::default()
        };
        let e = resolve(GpuPreset::Rtx2060, &ov).unwrap_err().to_string();
        assert!(e.contains("rf.row_bits"), "{e}");
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

    /// The scope comes from `--scope` (or `beyond_rf.scope`); at `rf` the resolved
    /// configuration has no `[beyond_rf]` (so its TOML is what it was before scopes), at
    /// `sm`/`gpu` it has the preset's values; bad values name the key.
    #[test]
    fn scope_resolution() {
        for p in GpuPreset::ALL {
            let rf = preset(p).expect("preset");
            assert_eq!(rf.scope(), Scope::Rf);
            assert!(rf.beyond_rf.is_none());
            assert!(!rf.to_toml().contains("beyond_rf"));
            for sc in [Scope::Sm, Scope::Gpu] {
                let ov = Overrides {
                    scope: Some(sc),
                    ..Overrides::default()
                };
                let c = resolve(p, &ov).expect("resolves");
                assert_eq!(c.scope(), sc);
                let b = c.beyond_rf.as_ref().expect("beyond_rf");
                // GDDR5 (O'Connor et al. 2017) and GDDR6 (Micron) per bit
                let per_bit = match p {
                    GpuPreset::Gtx480 => 14.0,
                    GpuPreset::Rtx2060 => 7.5,
                };
                assert_eq!(b.dram_energy_per_bit.pj(), per_bit);
                let back: ResolvedConfig = toml::from_str(&c.to_toml()).expect("parses");
                assert_eq!(back, c);
                // everything else is the rf configuration's
                let mut same = c.clone();
                same.beyond_rf = None;
                assert_eq!(same, rf);
            }
        }
        let g = resolve(
            GpuPreset::Gtx480,
            &Overrides {
                sets: vec!["beyond_rf.scope=gpu".into()],
                ..Overrides::default()
            },
        )
        .expect("resolves");
        assert_eq!(g.scope(), Scope::Gpu);
        assert_eq!(g.beyond_rf.as_ref().map(|b| b.die_area.mm2()), Some(529.0));
        // --scope and an override of beyond_rf.scope must agree (before, the
        // flag silently won); agreeing values resolve
        let e = resolve(
            GpuPreset::Gtx480,
            &Overrides {
                sets: vec!["beyond_rf.scope=gpu".into()],
                scope: Some(Scope::Rf),
                ..Overrides::default()
            },
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("--set beyond_rf.scope=gpu") && e.contains("--scope rf"),
            "{e}"
        );
        let r = resolve(
            GpuPreset::Gtx480,
            &Overrides {
                sets: vec!["beyond_rf.scope=rf".into()],
                scope: Some(Scope::Rf),
                ..Overrides::default()
            },
        )
        .expect("resolves");
        assert!(r.beyond_rf.is_none());
        for (set, key) in [
            ("beyond_rf.die_area=\"0 mm^2\"", "beyond_rf.die_area"),
            (
                "beyond_rf.dram_energy_per_bit=\"-1 pJ\"",
                "beyond_rf.dram_energy_per_bit",
            ),
        ] {
            let ov = Overrides {
                sets: vec![set.into()],
                scope: Some(Scope::Gpu),
                ..Overrides::default()
            };
            let e = resolve(GpuPreset::Rtx2060, &ov).unwrap_err().to_string();
            assert!(e.contains(key), "{e}");
        }
        let ov = Overrides {
            sets: vec!["beyond_rf.die_area=\"445 mm\"".into()],
            scope: Some(Scope::Gpu),
            ..Overrides::default()
        };
        assert!(resolve(GpuPreset::Rtx2060, &ov).is_err());
        let e = "chip".parse::<Scope>().unwrap_err().to_string();
        assert!(e.contains("chip") && e.contains("rf, sm, gpu"), "{e}");
        assert_eq!("GPU".parse::<Scope>().expect("scope"), Scope::Gpu);
    }

    /// `power.idle_sm_gating`: every preset writes it (nothing silently defaulted), off; a
    /// value that is not a boolean is an error naming the key and where it was written; on, it
    /// is in the resolved configuration (off, the configuration is what it was before the key).
    #[test]
    fn idle_sm_gating_is_set_by_every_preset_and_checked() {
        for p in GpuPreset::ALL {
            let t = parse_table(p.file_name(), p.toml()).expect("parses");
            assert_eq!(
                t["power"].get("idle_sm_gating"),
                Some(&toml::Value::Boolean(false)),
                "{p}"
            );
            assert!(!preset(p).expect("preset").power.idle_sm_gating);
        }
        let ov = Overrides {
            sets: vec!["power.idle_sm_gating=yes".into()],
            ..Overrides::default()
        };
        let e = resolve(GpuPreset::Rtx2060, &ov).unwrap_err().to_string();
        assert!(
            e.contains("power.idle_sm_gating") && e.contains("--set power.idle_sm_gating=yes"),
            "{e}"
        );
        let ov = Overrides {
            files: vec![("g.toml".into(), "[power]\nidle_sm_gating = 1\n".into())],
            ..Overrides::default()
        };
        let e = resolve(GpuPreset::Gtx480, &ov).unwrap_err().to_string();
        assert!(
            e.contains("g.toml:2") && e.contains("power.idle_sm_gating"),
            "{e}"
        );
        let ov = Overrides {
            sets: vec!["power.idle_sm_gating=true".into()],
            ..Overrides::default()
        };
        let on = resolve(GpuPreset::Gtx480, &ov).expect("resolves");
        assert!(on.power.idle_sm_gating);
        let back: ResolvedConfig = toml::from_str(&on.to_toml()).expect("parses");
        assert_eq!(back, on);
    }

    /// `power.gating_release`: every preset writes `free`, which the resolved configuration
    /// leaves out; `never` is written and read back; any other value is an error naming the
    /// key and the values it takes.
    #[test]
    fn gating_release_is_set_by_every_preset_and_checked() {
        for p in GpuPreset::ALL {
            let t = parse_table(p.file_name(), p.toml()).expect("parses");
            assert_eq!(
                t["power"].get("gating_release"),
                Some(&toml::Value::String("free".into())),
                "{p}"
            );
            let r = preset(p).expect("preset");
            assert_eq!(r.power.gating_release, GatingRelease::Free);
            assert!(!r.to_toml().contains("gating_release"), "{p}");
        }
        let set = |v: &str| Overrides {
            sets: vec![format!("power.gating_release={v}")],
            ..Overrides::default()
        };
        let e = resolve(GpuPreset::Gtx480, &set("sometimes"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("power.gating_release") && e.contains("never"),
            "{e}"
        );
        let on = resolve(GpuPreset::Rtx2060, &set("never")).expect("resolves");
        assert_eq!(on.power.gating_release, GatingRelease::Never);
        let back: ResolvedConfig = toml::from_str(&on.to_toml()).expect("parses");
        assert_eq!(back, on);
    }

    #[test]
    fn resolved_config_round_trips_through_toml() {
        let r = preset(GpuPreset::Gtx480).expect("gtx480");
        let text = r.to_toml();
        let back: ResolvedConfig = toml::from_str(&text).expect("parses");
        assert_eq!(back, r);
    }
}
