//! Reader for CACTI 7 input files (`cache.cfg` format).
//!
//! Format (CACTI 7 `io.cc`, `InputParameter::parse_cfg`): one setting per line, `-key value`;
//! the key is recognised by its *prefix* (CACTI uses `strncmp` on the start of the line), string
//! values are double-quoted (`-cache type "ram"`), numeric values are the last token
//! (`-size (bytes) 65536`), weight vectors are `a:b:c:d:e`. Lines starting with `//` are
//! comments; we also accept `#` comments (the reference files start with one) and blank lines.
//!
//! Differences from CACTI, all in the direction of refusing rather than guessing:
//! - an unknown key, a malformed value, an out-of-range value or a key given twice is an error
//!   naming `file:line` and the key (CACTI ignores unknown lines and keeps the last duplicate);
//! - a value CACTI understands but this model does not implement (NUCA, DRAM cells, CAM/main
//!   memory, non-default wire types ...) is rejected by [`CactiConfig::to_sram_spec`] with an
//!   error that names the key, never silently replaced;
//! - keys that only influence DRAM / NUCA / off-chip IO / printing are accepted and recorded in
//!   [`CactiConfig::not_applicable`] (see [`NOT_APPLICABLE`] for the list and the reason each
//!   one cannot change an SRAM UCA result).

use regwatt_tech::units::{Length, Temperature};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Error reading a CACTI cfg file. Every variant names the file (and line where there is one).
#[derive(Debug, thiserror::Error)]
pub enum CfgError {
    /// The file could not be read.
    #[error(transparent)]
    Io(#[from] regwatt_inputs::ReadError),
    /// A line starting with `-` whose key is not a CACTI 7 key.
    #[error("{file}:{line}: unknown key in {text:?}")]
    UnknownKey {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// The line, as a short excerpt ([`regwatt_inputs::excerpt`]).
        text: String,
    },
    /// A line that is neither a comment, blank, nor `-key value`. Its text is kept but not
    /// shown: a file that is no cfg at all (a symlink to `/etc/passwd`) is not echoed.
    #[error("{file}:{line}: not a cfg line (expected `-key value` or a `//` comment)")]
    BadLine {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// The line, as a short excerpt ([`regwatt_inputs::excerpt`]).
        text: String,
    },
    /// The value of a known key is malformed or out of range.
    #[error("{file}:{line}: key {key:?}: {msg}")]
    BadValue {
        /// File name.
        file: String,
        /// 1-based line.
        line: usize,
        /// Canonical key.
        key: &'static str,
        /// What is wrong.
        msg: String,
    },
    /// The same key appears twice.
    #[error("{file}:{line}: key {key:?} given twice (first at line {first})")]
    Duplicate {
        /// File name.
        file: String,
        /// 1-based line of the second occurrence.
        line: usize,
        /// First occurrence.
        first: usize,
        /// Canonical key.
        key: &'static str,
    },
    /// A key the model needs is absent.
    #[error("{file}: missing key {key:?}")]
    Missing {
        /// File name.
        file: String,
        /// Canonical key.
        key: &'static str,
    },
    /// The value is valid CACTI input but this model does not implement it.
    #[error("{file}:{line}: key {key:?} = {value:?} is not supported by this model: {why}")]
    Unsupported {
        /// File name.
        file: String,
        /// 1-based line (0 if the setting came from a default).
        line: usize,
        /// Canonical key.
        key: &'static str,
        /// The value given.
        value: String,
        /// Why.
        why: String,
    },
}

/// Array type (`-cache type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheType {
    /// Scratch RAM (`"ram"`).
    Ram,
    /// Cache with tag array (`"cache"`).
    Cache,
    /// Pure CAM (`"cam"`).
    Cam,
    /// DRAM main memory (`"main memory"`).
    MainMemory,
    /// 3D DRAM (`"3D memory or 2D main memory"`).
    Memory3d,
}

/// Device flavour of a cell or periphery (`-Data array cell type` ...). CACTI 7 `io.cc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flavour {
    /// ITRS high performance.
    ItrsHp,
    /// ITRS low standby power.
    ItrsLstp,
    /// ITRS low operating power.
    ItrsLop,
    /// Logic-process DRAM cell (cells only).
    LpDram,
    /// Commodity DRAM cell (cells only).
    CommDram,
}

impl Flavour {
    /// CACTI spelling.
    pub fn cacti_name(self) -> &'static str {
        match self {
            Flavour::ItrsHp => "itrs-hp",
            Flavour::ItrsLstp => "itrs-lstp",
            Flavour::ItrsLop => "itrs-lop",
            Flavour::LpDram => "lp-dram",
            Flavour::CommDram => "comm-dram",
        }
    }
    /// Parses the CACTI spelling (exact).
    pub fn from_cacti(s: &str) -> Option<Flavour> {
        Some(match s {
            "itrs-hp" => Flavour::ItrsHp,
            "itrs-lstp" => Flavour::ItrsLstp,
            "itrs-lop" => Flavour::ItrsLop,
            "lp-dram" => Flavour::LpDram,
            "comm-dram" => Flavour::CommDram,
            _ => return None,
        })
    }
}

/// `-access mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AccessMode {
    /// Tag and data in parallel, way-select after tag compare.
    Normal,
    /// Tag first, then only the hitting data way.
    Sequential,
    /// All ways read and sent out in parallel.
    Fast,
}

/// `-Optimize ED or ED^2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum OptTarget {
    /// Energy × delay.
    #[serde(rename = "ED")]
    Ed,
    /// Energy × delay².
    #[serde(rename = "ED^2")]
    Ed2,
    /// Weights and deviations only.
    #[serde(rename = "NONE")]
    None,
}

/// Five-component weight or deviation vector (delay, dynamic power, leakage, cycle time, area).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Objective5 {
    /// Access delay.
    pub delay: u64,
    /// Dynamic energy.
    pub dynamic: u64,
    /// Leakage power.
    pub leakage: u64,
    /// Cycle time.
    pub cycle: u64,
    /// Area.
    pub area: u64,
}

/// `-Wire signaling`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum WireSignalling {
    /// `"default"`: search over all wire types.
    Default,
    /// Delay-optimal repeated global wire.
    Global,
    /// Repeaters sized for 5 % delay penalty.
    Global5,
    /// 10 %.
    Global10,
    /// 20 %.
    Global20,
    /// 30 %.
    Global30,
    /// Full-swing.
    FullSwing,
    /// Low-swing differential.
    LowSwing,
}

/// Wire class inside / outside the mat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WireClass {
    /// Local.
    Local,
    /// Semi-global.
    SemiGlobal,
    /// Global.
    Global,
}

/// `-Interconnect projection`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Projection {
    /// Aggressive.
    Aggressive,
    /// Conservative.
    Conservative,
}

/// Power-gating settings (CACTI-P keys).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PowerGatingCfg {
    /// `-Array Power Gating`.
    pub array: bool,
    /// `-WL Power Gating`.
    pub wordline: bool,
    /// `-CL Power Gating`.
    pub column: bool,
    /// `-Bitline floating`.
    pub bitline_floating: bool,
    /// `-Interconnect Power Gating`.
    pub interconnect: bool,
    /// `-Power Gating Performance Loss` (fraction, e.g. 0.01).
    pub perf_loss: f64,
}

impl PowerGatingCfg {
    /// True if any gating is on (CACTI's `power_gating` flag).
    pub fn any(&self) -> bool {
        self.array || self.wordline || self.column || self.bitline_floating || self.interconnect
    }
}

/// A forced organisation (`-Force cache config "true"` + `-Ndwl` ... ).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ForcedOrg {
    /// Wordline partitions.
    pub ndwl: u32,
    /// Bitline partitions.
    pub ndbl: u32,
    /// Sets per wordline.
    pub nspd: u32,
    /// Column mux degree.
    pub ndcm: u32,
    /// Sense-amp mux level 1.
    pub ndsam1: u32,
    /// Sense-amp mux level 2.
    pub ndsam2: u32,
}

/// A fully read CACTI cfg. All SRAM-relevant settings are explicit fields; no field is filled
/// in silently: keys that may be absent are `Option`s, and [`CactiConfig::to_sram_spec`]
/// decides (and the caller echoes) what an absent key means.
#[derive(Debug, Clone, Serialize)]
pub struct CactiConfig {
    /// The file read.
    pub file: String,
    /// `-size (bytes)`: all banks.
    pub size_bytes: u64,
    /// `-block size (bytes)`.
    pub block_bytes: u64,
    /// `-associativity` (1 = direct mapped / RAM, 0 = fully associative).
    pub associativity: u64,
    /// `-read-write port`.
    pub rw_ports: u32,
    /// `-exclusive read port`.
    pub rd_ports: u32,
    /// `-exclusive write port`.
    pub wr_ports: u32,
    /// `-single ended read ports`.
    pub se_rd_ports: u32,
    /// `-search port` (CAM / fully associative only; absent in most files).
    pub search_ports: Option<u32>,
    /// `-UCA bank count`.
    pub banks: u32,
    /// `-technology (u)` as a length (0.040 → 40 nm).
    pub technology: Length,
    /// `-output/input bus width` (bits).
    pub out_bits: u32,
    /// `-operating temperature (K)`.
    pub temperature: Temperature,
    /// `-cache type`.
    pub cache_type: CacheType,
    /// `-tag size (b)`: `None` = `"default"` (computed from size, banks, associativity).
    pub tag_bits: Option<u32>,
    /// `-access mode`.
    pub access_mode: AccessMode,
    /// `-design objective` weights.
    pub weights: Objective5,
    /// `-deviate` limits (percent).
    pub deviate: Objective5,
    /// `-Optimize ED or ED^2`.
    pub opt_target: OptTarget,
    /// `-Cache model`: true = UCA.
    pub uca: bool,
    /// `-Data array cell type`.
    pub data_cell: Flavour,
    /// `-Data array peripheral type`.
    pub data_peri: Flavour,
    /// `-Tag array cell type`.
    pub tag_cell: Flavour,
    /// `-Tag array peripheral type`.
    pub tag_peri: Flavour,
    /// `-Add ECC`.
    pub ecc: bool,
    /// Power-gating keys. `None` fields were absent (CACTI's constructor default is false).
    pub power_gating: PowerGatingCfg,
    /// Which of the power-gating keys were absent from the file.
    pub power_gating_absent: Vec<&'static str>,
    /// `-Wire signaling`.
    pub wire_signalling: WireSignalling,
    /// `-Wire inside mat`.
    pub wire_inside_mat: WireClass,
    /// `-Wire outside mat`.
    pub wire_outside_mat: WireClass,
    /// `-Interconnect projection`.
    pub projection: Projection,
    /// `-CLDriver vertical` (absent in most files; CACTI's constructor default is true).
    pub cl_driver_vertical: Option<bool>,
    /// `-Force cache config` and the `-Ndwl` ... values (recorded even when not forced).
    pub force_config: bool,
    /// `-Ndwl`, `-Ndbl`, `-Nspd`, `-Ndcm`, `-Ndsam1`, `-Ndsam2` as given.
    pub org_keys: ForcedOrg,
    /// Keys accepted as not applicable to an SRAM UCA model, with their raw value text.
    pub not_applicable: BTreeMap<String, String>,
    /// Each canonical key with its line number, in file order (for error messages
    /// downstream; [`CactiConfig::line_of`]).
    #[serde(skip)]
    pub lines: Vec<(&'static str, usize)>,
}

impl CactiConfig {
    /// The forced organisation, if `-Force cache config "true"`.
    pub fn forced_org(&self) -> Option<ForcedOrg> {
        self.force_config.then_some(self.org_keys)
    }
    /// Technology node in nm.
    pub fn node_nm(&self) -> f64 {
        self.technology.nm()
    }
    /// The cfg key that sets an [`SramSpec`](crate::sram::SramSpec) field.
    fn key_of_field(field: &str) -> &'static str {
        match field {
            "capacity_bytes" => "size (bytes)",
            "block_bytes" => "block size (bytes)",
            "associativity" => "associativity",
            "banks" => "UCA bank count",
            "output_width_bits" => "output/input bus width",
            "ports" => "read-write port",
            "node_nm" => "technology (u)",
            "temperature" => "operating temperature (K)",
            "tag_bits" => "tag size (b)",
            "weight" => "design objective",
            "max_deviation" => "deviate",
            _ => "Force cache config",
        }
    }

    /// An error of the SRAM model on this cfg, as a [`CfgError`] naming the file, the line
    /// and the key that caused it.
    pub fn spec_error(&self, e: crate::sram::SramError) -> CfgError {
        use crate::sram::SramError;
        let (key, msg) = match &e {
            SramError::InvalidSpec { field, msg } => (Self::key_of_field(field), msg.clone()),
            SramError::InvalidOrganisation(_) => ("Force cache config", e.to_string()),
            // the size and banks decide how many rows and columns a bank has
            _ => ("size (bytes)", e.to_string()),
        };
        CfgError::BadValue {
            file: self.file.clone(),
            line: self.line_of(key),
            key,
            msg,
        }
    }

    /// Line of a key (0 if absent).
    pub fn line_of(&self, key: &str) -> usize {
        self.lines
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(0, |&(_, l)| l)
    }
}

/// How the value of a key is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Size,
    Block,
    Assoc,
    RwPorts,
    RdPorts,
    WrPorts,
    SeRdPorts,
    SearchPorts,
    Banks,
    Technology,
    OutBits,
    Temperature,
    CacheType,
    TagSize,
    AccessMode,
    DataCell,
    DataPeri,
    TagCell,
    TagPeri,
    Weights,
    Deviate,
    Optimize,
    CacheModel,
    WireSignalling,
    WireInside,
    WireOutside,
    Projection,
    Ecc,
    ClDriverVertical,
    PgArray,
    PgBitline,
    PgWl,
    PgCl,
    PgInterconnect,
    PgPerfLoss,
    ForceConfig,
    Ndwl,
    Ndbl,
    Nspd,
    Ndcm,
    Ndsam1,
    Ndsam2,
    NotApplicable,
}

/// Keys used by the SRAM model: (CACTI prefix as matched in `io.cc`, canonical name, kind).
const KEYS: &[(&str, &str, Kind)] = &[
    ("-size", "size (bytes)", Kind::Size),
    ("-block", "block size (bytes)", Kind::Block),
    ("-associativity", "associativity", Kind::Assoc),
    ("-read-write", "read-write port", Kind::RwPorts),
    ("-exclusive read", "exclusive read port", Kind::RdPorts),
    ("-exclusive write", "exclusive write port", Kind::WrPorts),
    ("-single ended", "single ended read ports", Kind::SeRdPorts),
    ("-search", "search port", Kind::SearchPorts),
    ("-UCA bank", "UCA bank count", Kind::Banks),
    ("-technology", "technology (u)", Kind::Technology),
    ("-output/input", "output/input bus width", Kind::OutBits),
    (
        "-operating temperature",
        "operating temperature (K)",
        Kind::Temperature,
    ),
    ("-cache type", "cache type", Kind::CacheType),
    ("-tag size", "tag size (b)", Kind::TagSize),
    ("-access mode", "access mode", Kind::AccessMode),
    (
        "-Data array cell type",
        "Data array cell type",
        Kind::DataCell,
    ),
    (
        "-Data array peripheral type",
        "Data array peripheral type",
        Kind::DataPeri,
    ),
    ("-Tag array cell type", "Tag array cell type", Kind::TagCell),
    (
        "-Tag array peripheral type",
        "Tag array peripheral type",
        Kind::TagPeri,
    ),
    ("-design", "design objective", Kind::Weights),
    ("-deviate", "deviate", Kind::Deviate),
    ("-Optimize", "Optimize ED or ED^2", Kind::Optimize),
    ("-Cache model", "Cache model", Kind::CacheModel),
    ("-Wire signaling", "Wire signaling", Kind::WireSignalling),
    ("-Wire inside mat", "Wire inside mat", Kind::WireInside),
    ("-Wire outside mat", "Wire outside mat", Kind::WireOutside),
    (
        "-Interconnect projection",
        "Interconnect projection",
        Kind::Projection,
    ),
    ("-Add ECC", "Add ECC", Kind::Ecc),
    (
        "-CLDriver vertical",
        "CLDriver vertical",
        Kind::ClDriverVertical,
    ),
    ("-Array Power Gating", "Array Power Gating", Kind::PgArray),
    ("-Bitline floating", "Bitline floating", Kind::PgBitline),
    ("-WL Power Gating", "WL Power Gating", Kind::PgWl),
    ("-CL Power Gating", "CL Power Gating", Kind::PgCl),
    (
        "-Interconnect Power Gating",
        "Interconnect Power Gating",
        Kind::PgInterconnect,
    ),
    (
        "-Power Gating Performance Loss",
        "Power Gating Performance Loss",
        Kind::PgPerfLoss,
    ),
    (
        "-Force cache config",
        "Force cache config",
        Kind::ForceConfig,
    ),
    ("-Ndwl", "Ndwl", Kind::Ndwl),
    ("-Ndbl", "Ndbl", Kind::Ndbl),
    ("-Nspd", "Nspd", Kind::Nspd),
    ("-Ndcm", "Ndcm", Kind::Ndcm),
    ("-Ndsam1", "Ndsam1", Kind::Ndsam1),
    ("-Ndsam2", "Ndsam2", Kind::Ndsam2),
];

/// Keys accepted but not applicable to an SRAM UCA estimate: (prefix, reason). Each one is read
/// by CACTI 7 only on a path this model never takes (DRAM main memory / 3D DRAM, NUCA, the
/// off-chip IO model `extio`, the MemCAD optimiser, or printing), so its value cannot change an
/// SRAM UCA result. `-Cache model "NUCA"`, DRAM cells and main-memory types are *not* here: they
/// are read and rejected.
pub const NOT_APPLICABLE: &[(&str, &str)] = &[
    (
        "-page size",
        "DRAM page size: used only when the cache type is main memory",
    ),
    ("-burst length", "DRAM burst length: main memory only"),
    (
        "-internal prefetch width",
        "DRAM prefetch width: main memory only",
    ),
    ("-burst depth", "3D DRAM only"),
    ("-IO width", "3D DRAM only"),
    ("-system frequency", "3D DRAM only"),
    ("-stacked die", "3D DRAM only"),
    ("-partitioning granularity", "3D DRAM only"),
    ("-TSV projection", "3D DRAM only"),
    (
        "-NUCAdesign",
        "NUCA objective: used only when Cache model is NUCA (rejected here)",
    ),
    ("-NUCAdeviate", "NUCA deviation: NUCA only"),
    ("-NUCA bank", "NUCA bank count: NUCA only"),
    ("-Core", "core count: NUCA only"),
    ("-Cache level", "cache level (L2/L3): NUCA only"),
    ("-Print level", "printing only"),
    ("-Print input parameters", "printing only"),
    ("-print option", "debug printing only"),
    // The reference files spell it `-dram_type`, which CACTI 7 does not even recognise
    // (it looks for `-dram type`); both are the off-chip IO model's DRAM standard.
    (
        "-dram_type",
        "off-chip IO model (extio) only; not recognised by CACTI 7 either",
    ),
    ("-dram type", "off-chip IO model (extio) only"),
    ("-io state", "off-chip IO model (extio) only"),
    ("-addr_timing", "off-chip IO model (extio) only"),
    ("-dram ecc", "off-chip IO model (extio) only"),
    ("-dram dimm", "off-chip IO model (extio) only"),
    ("-mem_density", "off-chip IO model (extio) only"),
    ("-bus_freq", "off-chip IO model (extio) only"),
    ("-bus_bw", "off-chip IO model (extio) only"),
    ("-duty_cycle", "off-chip IO model (extio) only"),
    ("-activity_dq", "off-chip IO model (extio) only"),
    ("-activity_ca", "off-chip IO model (extio) only"),
    ("-num_dqs", "off-chip IO model (extio) only"),
    ("-num_dq", "off-chip IO model (extio) only"),
    ("-num_ca", "off-chip IO model (extio) only"),
    ("-num_clk", "off-chip IO model (extio) only"),
    ("-num_mem_dq", "off-chip IO model (extio) only"),
    ("-mem_data_width", "off-chip IO model (extio) only"),
    ("-rtt_value", "off-chip IO model (extio) only"),
    ("-ron_value", "off-chip IO model (extio) only"),
    ("-tflight_value", "off-chip IO model (extio) only"),
    ("-num_bobs", "MemCAD optimiser only"),
    ("-capacity", "MemCAD optimiser only"),
    ("-num_channels_per_bob", "MemCAD optimiser only"),
    ("-first metric", "MemCAD optimiser only"),
    ("-second metric", "MemCAD optimiser only"),
    ("-third metric", "MemCAD optimiser only"),
    ("-DIMM model", "MemCAD optimiser only"),
    ("-mirror_in_bob", "MemCAD optimiser only"),
    ("-same_bw_in_bob", "MemCAD optimiser only"),
    ("-Low Power Permitted", "MemCAD optimiser only"),
    ("-load", "MemCAD optimiser only"),
    ("-row_buffer_hit_rate", "MemCAD optimiser only"),
    ("-rd_2_wr_ratio", "MemCAD optimiser only"),
    ("-total_power", "MemCAD optimiser only"),
    ("-verbose", "MemCAD optimiser only"),
];

/// A key prefix, its canonical name, what it sets and its index among all keys (for the
/// duplicate check).
type KeyEntry = (&'static str, &'static str, Kind, usize);

/// The keys and the not-applicable keys, bucketed by the byte after the leading '-' (every
/// prefix starts with '-'), so a line is compared with the few keys of its bucket instead of
/// all ~110 (a batch reads ~75 key lines per file).
fn key_buckets() -> &'static [Vec<KeyEntry>] {
    static BUCKETS: std::sync::OnceLock<Vec<Vec<KeyEntry>>> = std::sync::OnceLock::new();
    BUCKETS.get_or_init(|| {
        let mut b: Vec<Vec<KeyEntry>> = vec![Vec::new(); 256];
        let all = KEYS
            .iter()
            .copied()
            .chain(
                NOT_APPLICABLE
                    .iter()
                    .map(|&(p, _)| (p, p.trim_start_matches('-'), Kind::NotApplicable)),
            )
            .enumerate()
            .map(|(i, (p, c, k))| (p, c, k, i));
        for e in all {
            b[usize::from(e.0.as_bytes().get(1).copied().unwrap_or(0))].push(e);
        }
        b
    })
}

/// Finds the longest matching prefix among the keys and the not-applicable keys.
fn match_key(line: &str) -> Option<KeyEntry> {
    let mut best: Option<KeyEntry> = None;
    let second = usize::from(line.as_bytes().get(1).copied().unwrap_or(0));
    for &(prefix, canon, kind, id) in &key_buckets()[second] {
        if let Some(rest) = line.strip_prefix(prefix) {
            // the prefix must end at a word boundary
            let next = rest.chars().next();
            let boundary = match next {
                None => true,
                Some(c) => !(c.is_ascii_alphanumeric() || c == '_'),
            };
            // `-size` must not swallow e.g. `-sizes`; a few CACTI prefixes are word stems
            // (`-block`, `-design`, `-Core`, `-search`) and are followed by a space anyway.
            let longer = match best {
                None => true,
                Some((p, ..)) => prefix.len() > p.len(),
            };
            if boundary && longer {
                best = Some((prefix, canon, kind, id));
            }
        }
    }
    best
}

struct Ctx<'a> {
    file: &'a str,
    line: usize,
    key: &'static str,
}

impl Ctx<'_> {
    fn bad(&self, msg: impl Into<String>) -> CfgError {
        CfgError::BadValue {
            file: self.file.to_string(),
            line: self.line,
            key: self.key,
            // the message may quote a token of the line: kept short
            msg: regwatt_inputs::excerpt_n(&msg.into(), 4 * regwatt_inputs::EXCERPT_CHARS),
        }
    }
    /// The double-quoted string after the key.
    fn quoted<'l>(&self, rest: &'l str) -> Result<&'l str, CfgError> {
        let start = rest
            .find('"')
            .ok_or_else(|| self.bad("expected a double-quoted value"))?;
        let tail = &rest[start + 1..];
        let end = tail
            .find('"')
            .ok_or_else(|| self.bad("unterminated double-quoted value"))?;
        if !tail[end + 1..].trim().is_empty() {
            return Err(self.bad(format!(
                "unexpected text after the quoted value: {:?}",
                tail[end + 1..].trim()
            )));
        }
        Ok(&tail[..end])
    }
    /// The last whitespace-separated token.
    fn last_token<'l>(&self, rest: &'l str) -> Result<&'l str, CfgError> {
        rest.split_whitespace()
            .last()
            .ok_or_else(|| self.bad("missing value"))
    }
    fn uint(&self, rest: &str) -> Result<u64, CfgError> {
        let t = self.last_token(rest)?;
        t.parse::<u64>()
            .map_err(|_| self.bad(format!("{t:?} is not a non-negative integer")))
    }
    fn u32v(&self, rest: &str) -> Result<u32, CfgError> {
        let v = self.uint(rest)?;
        u32::try_from(v).map_err(|_| self.bad(format!("{v} is too large")))
    }
    fn float(&self, rest: &str) -> Result<f64, CfgError> {
        let t = self.last_token(rest)?;
        let v: f64 = t
            .parse()
            .map_err(|_| self.bad(format!("{t:?} is not a number")))?;
        if !v.is_finite() {
            return Err(self.bad(format!("{t:?} is not finite")));
        }
        Ok(v)
    }
    fn boolean(&self, rest: &str) -> Result<bool, CfgError> {
        match self.quoted(rest)? {
            "true" => Ok(true),
            "false" => Ok(false),
            v => Err(self.bad(format!("expected \"true\" or \"false\", found {v:?}"))),
        }
    }
    fn flavour(&self, rest: &str, cell: bool) -> Result<Flavour, CfgError> {
        let v = self.quoted(rest)?;
        match Flavour::from_cacti(v) {
            Some(f @ (Flavour::LpDram | Flavour::CommDram)) if !cell => Err(self.bad(format!(
                "{} is a cell type, not a peripheral type",
                f.cacti_name()
            ))),
            Some(f) => Ok(f),
            None => Err(self.bad(format!(
                "unknown type {v:?} (expected itrs-hp, itrs-lstp, itrs-lop{})",
                if cell { ", lp-dram, comm-dram" } else { "" }
            ))),
        }
    }
    fn five(&self, rest: &str) -> Result<Objective5, CfgError> {
        let t = self.last_token(rest)?;
        let parts: Vec<&str> = t.split(':').collect();
        if parts.len() != 5 {
            return Err(self.bad(format!(
                "expected five colon-separated integers (delay:dynamic:leakage:cycle:area), found {t:?}"
            )));
        }
        let mut v = [0u64; 5];
        for (i, p) in parts.iter().enumerate() {
            v[i] = p
                .parse()
                .map_err(|_| self.bad(format!("{p:?} in {t:?} is not a non-negative integer")))?;
        }
        Ok(Objective5 {
            delay: v[0],
            dynamic: v[1],
            leakage: v[2],
            cycle: v[3],
            area: v[4],
        })
    }
}

/// Smallest node CACTI 7 accepts (nm); below it CACTI stops with "Invalid technology nodes".
pub const MIN_NODE_NM: f64 = 21.0;
/// Largest node the interpolation covers (nm). CACTI 7 also has a 180 nm table, which this
/// model does not carry.
pub const MAX_NODE_NM: f64 = 90.0;

/// Reads a CACTI cfg file.
pub fn read_file(path: &Path) -> Result<CactiConfig, CfgError> {
    let file = path.display().to_string();
    let text = regwatt_inputs::read_text(path, regwatt_inputs::TEXT_LIMIT)?;
    parse_str(&text, &file)
}

/// Parses cfg text; `file` is used in error messages.
pub fn parse_str(text: &str, file: &str) -> Result<CactiConfig, CfgError> {
    // first line of each key seen (0 = not yet), by key index; and the keys in file order
    let mut first_line = vec![0usize; KEYS.len() + NOT_APPLICABLE.len()];
    let mut seen: Vec<(&'static str, usize)> = Vec::new();
    let mut not_applicable = BTreeMap::new();

    let mut size = None;
    let mut block = None;
    let mut assoc = None;
    let mut rw = None;
    let mut rd = None;
    let mut wr = None;
    let mut se = None;
    let mut search = None;
    let mut banks = None;
    let mut tech = None;
    let mut out_bits = None;
    let mut temp = None;
    let mut cache_type = None;
    let mut tag: Option<Option<u32>> = None;
    let mut access = None;
    let mut data_cell = None;
    let mut data_peri = None;
    let mut tag_cell = None;
    let mut tag_peri = None;
    let mut weights = None;
    let mut deviate = None;
    let mut opt = None;
    let mut uca = None;
    let mut wsig = None;
    let mut win = None;
    let mut wout = None;
    let mut proj = None;
    let mut ecc = None;
    let mut clv = None;
    let mut pg_array = None;
    let mut pg_bl = None;
    let mut pg_wl = None;
    let mut pg_cl = None;
    let mut pg_ic = None;
    let mut pg_loss = None;
    let mut force = None;
    let mut ndwl = None;
    let mut ndbl = None;
    let mut nspd = None;
    let mut ndcm = None;
    let mut ndsam1 = None;
    let mut ndsam2 = None;

    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with("//") || line.starts_with('#') {
            continue;
        }
        if !line.starts_with('-') {
            return Err(CfgError::BadLine {
                file: file.to_string(),
                line: line_no,
                text: regwatt_inputs::excerpt(raw),
            });
        }
        let Some((prefix, canon, kind, id)) = match_key(line) else {
            return Err(CfgError::UnknownKey {
                file: file.to_string(),
                line: line_no,
                text: regwatt_inputs::excerpt(raw),
            });
        };
        if let Some(&first) = first_line.get(id).filter(|&&l| l > 0) {
            return Err(CfgError::Duplicate {
                file: file.to_string(),
                line: line_no,
                first,
                key: canon,
            });
        }
        first_line[id] = line_no;
        seen.push((canon, line_no));
        let rest = &line[prefix.len()..];
        let c = Ctx {
            file,
            line: line_no,
            key: canon,
        };
        match kind {
            Kind::NotApplicable => {
                not_applicable.insert(canon.to_string(), rest.trim().to_string());
            }
            Kind::Size => size = Some(c.uint(rest)?),
            Kind::Block => block = Some(c.uint(rest)?),
            Kind::Assoc => assoc = Some(c.uint(rest)?),
            Kind::RwPorts => rw = Some(c.u32v(rest)?),
            Kind::RdPorts => rd = Some(c.u32v(rest)?),
            Kind::WrPorts => wr = Some(c.u32v(rest)?),
            Kind::SeRdPorts => se = Some(c.u32v(rest)?),
            Kind::SearchPorts => search = Some(c.u32v(rest)?),
            Kind::Banks => banks = Some(c.u32v(rest)?),
            Kind::Technology => {
                let um = c.float(rest)?;
                let nm = um * 1000.0;
                if nm < MIN_NODE_NM {
                    return Err(c.bad(format!(
                        "Invalid technology nodes: {um} um ({nm} nm) is below the smallest \
                         node CACTI 7 models ({MIN_NODE_NM} nm; it has no 16/12/7 nm tables)"
                    )));
                }
                if nm > MAX_NODE_NM {
                    return Err(c.bad(format!(
                        "Invalid technology nodes: {um} um ({nm} nm) is above {MAX_NODE_NM} nm"
                    )));
                }
                tech = Some(Length::from_nm(nm));
            }
            Kind::OutBits => out_bits = Some(c.u32v(rest)?),
            Kind::Temperature => {
                let k = c.uint(rest)?;
                // CACTI 7 error_checking: 300..400 K in steps of 10 (leakage tables per 10 K).
                if !(300..=400).contains(&k) || k % 10 != 0 {
                    return Err(c.bad(format!(
                        "temperature {k} K: CACTI requires a multiple of 10 K between 300 and 400 K"
                    )));
                }
                temp = Some(Temperature::from_k(k as f64));
            }
            Kind::CacheType => {
                cache_type = Some(match c.quoted(rest)? {
                    "ram" => CacheType::Ram,
                    "cache" => CacheType::Cache,
                    "cam" => CacheType::Cam,
                    "main memory" => CacheType::MainMemory,
                    "3D memory or 2D main memory" => CacheType::Memory3d,
                    v => {
                        return Err(c.bad(format!(
                            "unknown cache type {v:?} (expected ram, cache, cam, main memory)"
                        )))
                    }
                })
            }
            Kind::TagSize => {
                tag = Some(if rest.contains('"') {
                    match c.quoted(rest)? {
                        "default" => None,
                        v => Some(v.trim().parse::<u32>().map_err(|_| {
                            c.bad(format!("expected \"default\" or a bit count, found {v:?}"))
                        })?),
                    }
                } else {
                    Some(c.u32v(rest)?)
                })
            }
            Kind::AccessMode => {
                access = Some(match c.quoted(rest)? {
                    "normal" => AccessMode::Normal,
                    "sequential" => AccessMode::Sequential,
                    "fast" => AccessMode::Fast,
                    v => return Err(c.bad(format!("Invalid access mode {v:?}"))),
                })
            }
            Kind::DataCell => data_cell = Some(c.flavour(rest, true)?),
            Kind::DataPeri => data_peri = Some(c.flavour(rest, false)?),
            Kind::TagCell => tag_cell = Some(c.flavour(rest, true)?),
            Kind::TagPeri => tag_peri = Some(c.flavour(rest, false)?),
            Kind::Weights => weights = Some(c.five(rest)?),
            Kind::Deviate => deviate = Some(c.five(rest)?),
            Kind::Optimize => {
                opt = Some(match c.quoted(rest)? {
                    "ED^2" => OptTarget::Ed2,
                    "ED" => OptTarget::Ed,
                    "NONE" => OptTarget::None,
                    v => {
                        return Err(c.bad(format!(
                            "expected \"ED\", \"ED^2\" or \"NONE\", found {v:?}"
                        )))
                    }
                })
            }
            Kind::CacheModel => {
                uca = Some(match c.quoted(rest)? {
                    "UCA" => true,
                    "NUCA" => false,
                    v => return Err(c.bad(format!("expected \"UCA\" or \"NUCA\", found {v:?}"))),
                })
            }
            Kind::WireSignalling => {
                wsig = Some(match c.quoted(rest)? {
                    "default" => WireSignalling::Default,
                    "Global" => WireSignalling::Global,
                    "Global_5" => WireSignalling::Global5,
                    "Global_10" => WireSignalling::Global10,
                    "Global_20" => WireSignalling::Global20,
                    "Global_30" => WireSignalling::Global30,
                    "fullswing" => WireSignalling::FullSwing,
                    "lowswing" => WireSignalling::LowSwing,
                    v => return Err(c.bad(format!("Unknown wire type {v:?}"))),
                })
            }
            Kind::WireInside | Kind::WireOutside => {
                let v = match c.quoted(rest)? {
                    "local" => WireClass::Local,
                    "semi-global" => WireClass::SemiGlobal,
                    "global" => WireClass::Global,
                    v => {
                        return Err(c.bad(format!(
                            "expected \"local\", \"semi-global\" or \"global\", found {v:?}"
                        )))
                    }
                };
                if kind == Kind::WireInside {
                    win = Some(v);
                } else {
                    wout = Some(v);
                }
            }
            Kind::Projection => {
                proj = Some(match c.quoted(rest)? {
                    "aggressive" => Projection::Aggressive,
                    "conservative" => Projection::Conservative,
                    v => {
                        return Err(c.bad(format!(
                            "expected \"aggressive\" or \"conservative\", found {v:?}"
                        )))
                    }
                })
            }
            Kind::Ecc => ecc = Some(c.boolean(rest)?),
            Kind::ClDriverVertical => clv = Some(c.boolean(rest)?),
            Kind::PgArray => pg_array = Some(c.boolean(rest)?),
            Kind::PgBitline => pg_bl = Some(c.boolean(rest)?),
            Kind::PgWl => pg_wl = Some(c.boolean(rest)?),
            Kind::PgCl => pg_cl = Some(c.boolean(rest)?),
            Kind::PgInterconnect => pg_ic = Some(c.boolean(rest)?),
            Kind::PgPerfLoss => {
                let v = c.float(rest)?;
                if !(v > 0.0 && v < 1.0) {
                    return Err(c.bad(format!(
                        "performance loss {v} must be a fraction strictly between 0 and 1"
                    )));
                }
                pg_loss = Some(v);
            }
            Kind::ForceConfig => force = Some(c.boolean(rest)?),
            Kind::Ndwl => ndwl = Some(c.u32v(rest)?),
            Kind::Ndbl => ndbl = Some(c.u32v(rest)?),
            Kind::Nspd => nspd = Some(c.u32v(rest)?),
            Kind::Ndcm => ndcm = Some(c.u32v(rest)?),
            Kind::Ndsam1 => ndsam1 = Some(c.u32v(rest)?),
            Kind::Ndsam2 => ndsam2 = Some(c.u32v(rest)?),
        }
    }

    let missing = |key: &'static str| CfgError::Missing {
        file: file.to_string(),
        key,
    };
    macro_rules! req {
        ($v:expr, $k:literal) => {
            $v.ok_or_else(|| missing($k))?
        };
    }
    let force_config = force.unwrap_or(false);
    // Organisation keys are required only when the organisation is forced.
    let org_req = |v: Option<u32>, k: &'static str| -> Result<u32, CfgError> {
        match v {
            Some(v) => Ok(v),
            None if force_config => Err(missing(k)),
            None => Ok(0),
        }
    };
    let org_keys = ForcedOrg {
        ndwl: org_req(ndwl, "Ndwl")?,
        ndbl: org_req(ndbl, "Ndbl")?,
        nspd: org_req(nspd, "Nspd")?,
        ndcm: org_req(ndcm, "Ndcm")?,
        ndsam1: org_req(ndsam1, "Ndsam1")?,
        ndsam2: org_req(ndsam2, "Ndsam2")?,
    };
    let mut power_gating_absent = Vec::new();
    let mut pg = |v: Option<bool>, k: &'static str| {
        if v.is_none() {
            power_gating_absent.push(k);
        }
        v.unwrap_or(false)
    };
    let power_gating = PowerGatingCfg {
        array: pg(pg_array, "Array Power Gating"),
        wordline: pg(pg_wl, "WL Power Gating"),
        column: pg(pg_cl, "CL Power Gating"),
        bitline_floating: pg(pg_bl, "Bitline floating"),
        interconnect: pg(pg_ic, "Interconnect Power Gating"),
        perf_loss: 0.0,
    };
    let mut power_gating = power_gating;
    power_gating.perf_loss = match pg_loss {
        Some(v) => v,
        None if power_gating.any() => return Err(missing("Power Gating Performance Loss")),
        None => 0.0,
    };

    let cfg = CactiConfig {
        file: file.to_string(),
        size_bytes: req!(size, "size (bytes)"),
        block_bytes: req!(block, "block size (bytes)"),
        associativity: req!(assoc, "associativity"),
        rw_ports: req!(rw, "read-write port"),
        rd_ports: req!(rd, "exclusive read port"),
        wr_ports: req!(wr, "exclusive write port"),
        se_rd_ports: req!(se, "single ended read ports"),
        search_ports: search,
        banks: req!(banks, "UCA bank count"),
        technology: req!(tech, "technology (u)"),
        out_bits: req!(out_bits, "output/input bus width"),
        temperature: req!(temp, "operating temperature (K)"),
        cache_type: req!(cache_type, "cache type"),
        tag_bits: req!(tag, "tag size (b)"),
        access_mode: req!(access, "access mode"),
        weights: req!(weights, "design objective"),
        deviate: req!(deviate, "deviate"),
        opt_target: req!(opt, "Optimize ED or ED^2"),
        uca: req!(uca, "Cache model"),
        data_cell: req!(data_cell, "Data array cell type"),
        data_peri: req!(data_peri, "Data array peripheral type"),
        tag_cell: req!(tag_cell, "Tag array cell type"),
        tag_peri: req!(tag_peri, "Tag array peripheral type"),
        ecc: req!(ecc, "Add ECC"),
        power_gating,
        power_gating_absent,
        wire_signalling: req!(wsig, "Wire signaling"),
        wire_inside_mat: req!(win, "Wire inside mat"),
        wire_outside_mat: req!(wout, "Wire outside mat"),
        projection: req!(proj, "Interconnect projection"),
        cl_driver_vertical: clv,
        force_config,
        org_keys,
        not_applicable,
        lines: seen,
    };
    basic_checks(&cfg)?;
    Ok(cfg)
}

/// Range checks that CACTI 7's `InputParameter::error_checking` (parameter.cc) also makes,
/// plus the ones that would otherwise divide by zero.
fn basic_checks(c: &CactiConfig) -> Result<(), CfgError> {
    let bad = |key: &'static str, msg: String| CfgError::BadValue {
        file: c.file.clone(),
        line: c.line_of(key),
        key,
        msg,
    };
    if c.banks == 0 || !c.banks.is_power_of_two() {
        return Err(bad(
            "UCA bank count",
            format!(
                "{} banks: the number of banks must be a power of two >= 1",
                c.banks
            ),
        ));
    }
    if c.block_bytes == 0 {
        return Err(bad("block size (bytes)", "block size must be >= 1".into()));
    }
    if c.size_bytes == 0 {
        return Err(bad("size (bytes)", "size must be > 0".into()));
    }
    if c.size_bytes / (c.banks as u64) < 64 {
        return Err(bad(
            "size (bytes)",
            format!(
                "{} bytes over {} banks: CACTI requires at least 64 bytes per bank",
                c.size_bytes, c.banks
            ),
        ));
    }
    if c.rw_ports + c.rd_ports + c.wr_ports == 0 {
        return Err(bad(
            "read-write port",
            "the array has no ports (read-write + exclusive read + exclusive write = 0)".into(),
        ));
    }
    if c.rw_ports == 0 && c.rd_ports == 0 {
        return Err(bad(
            "exclusive read port",
            "the array has no read port".into(),
        ));
    }
    if c.rw_ports == 0 && c.wr_ports == 0 {
        return Err(bad(
            "exclusive write port",
            "the array has no write port".into(),
        ));
    }
    if c.associativity != 0 && !c.associativity.is_power_of_two() {
        return Err(bad(
            "associativity",
            format!("{}: associativity must be a power of two", c.associativity),
        ));
    }
    if c.out_bits == 0 {
        return Err(bad("output/input bus width", "must be >= 1 bit".into()));
    }
    Ok(())
}

/// What the SRAM model and the gating model take from a cfg.
#[derive(Debug, Clone)]
pub struct MappedConfig {
    /// The SRAM spec.
    pub spec: crate::sram::SramSpec,
    /// Power gating, if any gating key is true.
    pub power_gating: Option<PowerGatingCfg>,
    /// Settings that were absent from the file and took CACTI 7's constructor default
    /// (key, value used) — echoed in the resolved configuration.
    pub defaults_used: Vec<(&'static str, String)>,
    /// Settings that do not apply to this array type (key, why) — e.g. tag-array flavours of
    /// a RAM.
    pub ignored_for_this_array: Vec<(&'static str, String)>,
}

fn flavor_of(f: Flavour) -> regwatt_tech::DeviceFlavor {
    use regwatt_tech::DeviceFlavor as D;
    match f {
        Flavour::ItrsHp => D::ItrsHp,
        Flavour::ItrsLstp => D::ItrsLstp,
        Flavour::ItrsLop => D::ItrsLop,
        Flavour::LpDram => D::LpDram,
        Flavour::CommDram => D::CommDram,
    }
}

impl CactiConfig {
    fn unsupported(&self, key: &'static str, value: impl Into<String>, why: &str) -> CfgError {
        CfgError::Unsupported {
            file: self.file.clone(),
            line: self.line_of(key),
            key,
            value: regwatt_inputs::excerpt(&value.into()),
            why: why.to_string(),
        }
    }

    /// Maps the cfg onto the SRAM model's spec. Every setting is either carried over, checked
    /// to be the one value the model implements, or rejected with [`CfgError::Unsupported`].
    pub fn to_sram_spec(&self) -> Result<MappedConfig, CfgError> {
        use crate::sram::{
            AccessMode as SA, Deviation, Objective, Optimisation, Organisation, SramSpec, Weights,
        };
        let mut defaults_used = Vec::new();
        let mut ignored = Vec::new();
        if !self.uca {
            return Err(self.unsupported("Cache model", "NUCA", "only UCA arrays are modelled"));
        }
        let associativity = match self.cache_type {
            CacheType::Ram => {
                if self.associativity != 1 {
                    return Err(self.unsupported(
                        "associativity",
                        self.associativity.to_string(),
                        "a \"ram\" must have associativity 1 in this model (use cache type \"cache\" for a set-associative array)",
                    ));
                }
                for k in [
                    "Tag array cell type",
                    "Tag array peripheral type",
                    "tag size (b)",
                    "access mode",
                ] {
                    ignored.push((k, "a RAM has no tag array".to_string()));
                }
                1u32
            }
            CacheType::Cache => {
                if self.associativity == 0 {
                    return Err(self.unsupported(
                        "associativity",
                        "0",
                        "fully associative caches are not modelled by the SRAM model (see regwatt_power::cam for small fully-associative tables)",
                    ));
                }
                if self.associativity == 1 {
                    return Err(self.unsupported(
                        "associativity",
                        "1",
                        "a direct-mapped cache is not modelled (the SRAM model treats associativity 1 as a RAM)",
                    ));
                }
                u32::try_from(self.associativity).map_err(|_| {
                    self.unsupported("associativity", self.associativity.to_string(), "too large")
                })?
            }
            CacheType::Cam => {
                return Err(self.unsupported(
                    "cache type",
                    "cam",
                    "pure CAMs are not handled by the SRAM model (see regwatt_power::cam)",
                ))
            }
            CacheType::MainMemory | CacheType::Memory3d => {
                return Err(self.unsupported(
                    "cache type",
                    "main memory",
                    "DRAM main memory is not modelled",
                ))
            }
        };
        if associativity > 1 {
            if self.tag_cell != self.data_cell {
                return Err(self.unsupported(
                    "Tag array cell type",
                    self.tag_cell.cacti_name(),
                    "the SRAM model uses one cell flavour for data and tag arrays; it must equal the data array's",
                ));
            }
            if self.tag_peri != self.data_peri {
                return Err(self.unsupported(
                    "Tag array peripheral type",
                    self.tag_peri.cacti_name(),
                    "the SRAM model uses one peripheral flavour for data and tag arrays; it must equal the data array's",
                ));
            }
            if self.access_mode != AccessMode::Normal {
                return Err(self.unsupported(
                    "access mode",
                    format!("{:?}", self.access_mode).to_lowercase(),
                    "only \"normal\" access is modelled",
                ));
            }
        }
        if self.se_rd_ports != 0 {
            return Err(self.unsupported(
                "single ended read ports",
                self.se_rd_ports.to_string(),
                "single-ended read ports are not modelled",
            ));
        }
        if let Some(n) = self.search_ports {
            ignored.push((
                "search port",
                format!("{n}: search ports exist only in CAMs / fully associative arrays"),
            ));
        }
        if self.wire_signalling != WireSignalling::Global30 {
            return Err(self.unsupported(
                "Wire signaling",
                format!("{:?}", self.wire_signalling),
                "the SRAM model implements CACTI's \"Global_30\" repeated wires only",
            ));
        }
        if self.wire_inside_mat != WireClass::SemiGlobal {
            return Err(self.unsupported(
                "Wire inside mat",
                format!("{:?}", self.wire_inside_mat),
                "the SRAM model implements semi-global wires inside the mat only",
            ));
        }
        if self.wire_outside_mat != WireClass::SemiGlobal {
            return Err(self.unsupported(
                "Wire outside mat",
                format!("{:?}", self.wire_outside_mat),
                "the SRAM model implements semi-global wires outside the mat only",
            ));
        }
        if self.projection != Projection::Conservative {
            return Err(self.unsupported(
                "Interconnect projection",
                "aggressive",
                "the technology files carry CACTI's conservative wire projection only",
            ));
        }
        match self.cl_driver_vertical {
            Some(false) => {
                return Err(self.unsupported(
                    "CLDriver vertical",
                    "false",
                    "only vertical sub-array drivers (CACTI's default) are modelled",
                ))
            }
            Some(true) => {}
            None => defaults_used.push(("CLDriver vertical", "true (CACTI 7 default)".to_string())),
        }
        for k in &self.power_gating_absent {
            defaults_used.push((k, "false (CACTI 7 default)".to_string()));
        }
        // Every CACTI-P switch is honoured by `crate::gating` (array, wordline, column-circuit
        // gating, bitline floating, interconnect gating); see `gating::cacti_p`.
        let pg = self.power_gating;
        let w = self.weights;
        let d = self.deviate;
        let optimisation = Optimisation {
            objective: match self.opt_target {
                OptTarget::Ed => Objective::Ed,
                OptTarget::Ed2 => Objective::Ed2,
                OptTarget::None => Objective::None,
            },
            weights: Weights {
                delay: w.delay as f64,
                dynamic: w.dynamic as f64,
                leakage: w.leakage as f64,
                cycle: w.cycle as f64,
                area: w.area as f64,
            },
            max_deviation: Deviation {
                delay: d.delay as f64,
                dynamic: d.dynamic as f64,
                leakage: d.leakage as f64,
                cycle: d.cycle as f64,
                area: d.area as f64,
            },
        };
        let block_bytes = u32::try_from(self.block_bytes).map_err(|_| CfgError::BadValue {
            file: self.file.clone(),
            line: self.line_of("block size (bytes)"),
            key: "block size (bytes)",
            msg: format!("{} is too large", self.block_bytes),
        })?;
        let force_organisation = self.forced_org().map(|o| Organisation {
            ndwl: o.ndwl,
            ndbl: o.ndbl,
            nspd: o.nspd as f64,
            ndcm: o.ndcm,
            ndsam1: o.ndsam1,
            ndsam2: o.ndsam2,
        });
        let spec = SramSpec {
            capacity_bytes: self.size_bytes,
            block_bytes,
            output_width_bits: self.out_bits,
            associativity,
            banks: self.banks,
            rw_ports: self.rw_ports,
            rd_ports: self.rd_ports,
            wr_ports: self.wr_ports,
            cell_flavor: flavor_of(self.data_cell),
            peri_flavor: flavor_of(self.data_peri),
            node_nm: self.node_nm(),
            temperature: self.temperature,
            ecc: self.ecc,
            tag_bits: if associativity > 1 {
                self.tag_bits
            } else {
                None
            },
            optimisation,
            access_mode: SA::Normal,
            force_organisation,
        };
        // the model's own range checks, reported against the cfg key (and line) that set
        // the field, not as a field of an internal struct
        spec.validate().map_err(|e| self.spec_error(e))?;
        Ok(MappedConfig {
            spec,
            power_gating: pg.any().then_some(pg),
            defaults_used,
            ignored_for_this_array: ignored,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"# comment
// another
-size (bytes) 4096
-Array Power Gating - "true"
-WL Power Gating - "false"
-CL Power Gating - "false"
-Bitline floating - "false"
-Interconnect Power Gating - "false"
-Power Gating Performance Loss 0.01
-block size (bytes) 16
-associativity 1
-read-write port 0
-exclusive read port 1
-exclusive write port 1
-single ended read ports 0
-UCA bank count 1
-technology (u) 0.040
-page size (bits) 8192
-Data array cell type - "itrs-hp"
-Data array peripheral type - "itrs-lop"
-Tag array cell type - "itrs-hp"
-Tag array peripheral type - "itrs-hp"
-output/input bus width 128
-operating temperature (K) 360
-cache type "ram"
-tag size (b) "default"
-access mode (normal, sequential, fast) - "normal"
-design objective (weight delay, dynamic power, leakage power, cycle time, area) 0:0:0:100:0
-deviate (delay, dynamic power, leakage power, cycle time, area) 20:100000:100000:100000:100000
-NUCAdesign objective (weight delay, dynamic power, leakage power, cycle time, area) 100:100:0:0:100
-Optimize ED or ED^2 (ED, ED^2, NONE): "ED^2"
-Cache model (NUCA, UCA)  - "UCA"
-Wire signaling (fullswing, lowswing, default) - "Global_30"
-Wire inside mat - "semi-global"
-Wire outside mat - "semi-global"
-Interconnect projection - "conservative"
-Add ECC - "true"
-Force cache config - "false"
-Ndwl 1
-Ndbl 1
-Nspd 0
-Ndcm 1
-Ndsam1 0
-Ndsam2 0
-num_dq 72
-num_dqs 18
"#;

    #[test]
    fn reads_sample() {
        let c = parse_str(SAMPLE, "s.cfg").unwrap();
        assert_eq!(c.size_bytes, 4096);
        assert_eq!(c.block_bytes, 16);
        assert_eq!((c.rw_ports, c.rd_ports, c.wr_ports), (0, 1, 1));
        assert!((c.node_nm() - 40.0).abs() < 1e-9);
        assert_eq!(c.temperature.k(), 360.0);
        assert_eq!(c.data_peri, Flavour::ItrsLop);
        assert_eq!(c.opt_target, OptTarget::Ed2);
        assert!(c.power_gating.array && !c.power_gating.wordline);
        assert_eq!(c.power_gating.perf_loss, 0.01);
        assert_eq!(c.weights.cycle, 100);
        assert_eq!(c.deviate.delay, 20);
        assert!(c.uca && c.ecc && !c.force_config);
        assert_eq!(c.forced_org(), None);
        // -num_dq and -num_dqs are distinct (longest prefix wins)
        assert_eq!(
            c.not_applicable.get("num_dq").map(String::as_str),
            Some("72")
        );
        assert_eq!(
            c.not_applicable.get("num_dqs").map(String::as_str),
            Some("18")
        );
        assert_eq!(c.line_of("size (bytes)"), 3);
    }

    fn replace(from: &str, to: &str) -> String {
        assert!(SAMPLE.contains(from));
        SAMPLE.replace(from, to)
    }

    #[test]
    fn unknown_key_names_line() {
        let t = replace("-Ndcm 1", "-Nfoo 1");
        let e = parse_str(&t, "x.cfg").unwrap_err().to_string();
        assert!(e.contains("x.cfg:") && e.contains("Nfoo"), "{e}");
    }

    #[test]
    fn small_node_rejected() {
        let t = replace("-technology (u) 0.040", "-technology (u) 0.016");
        let e = parse_str(&t, "x.cfg").unwrap_err().to_string();
        assert!(
            e.contains("Invalid technology nodes") && e.contains("x.cfg:17"),
            "{e}"
        );
    }

    #[test]
    fn temperature_rules() {
        for bad in ["355", "290", "410"] {
            let t = replace("(K) 360", &format!("(K) {bad}"));
            let e = parse_str(&t, "x.cfg").unwrap_err().to_string();
            assert!(e.contains("multiple of 10"), "{e}");
        }
        let t = replace("(K) 360", "(K) 400");
        assert_eq!(parse_str(&t, "x").unwrap().temperature.k(), 400.0);
    }

    #[test]
    fn duplicate_and_missing() {
        let t = format!("{SAMPLE}-size (bytes) 8192\n");
        let e = parse_str(&t, "x.cfg").unwrap_err().to_string();
        assert!(e.contains("given twice") && e.contains("line 3"), "{e}");
        let t = replace("-block size (bytes) 16\n", "");
        let e = parse_str(&t, "x.cfg").unwrap_err().to_string();
        assert!(e.contains("missing key") && e.contains("block size"), "{e}");
    }

    #[test]
    fn bad_values() {
        for (from, to, want) in [
            (
                "-size (bytes) 4096",
                "-size (bytes) lots",
                "not a non-negative integer",
            ),
            (
                "-Add ECC - \"true\"",
                "-Add ECC - \"yes\"",
                "\"true\" or \"false\"",
            ),
            ("- \"itrs-lop\"", "- \"itrs-xx\"", "unknown type"),
            ("0:0:0:100:0", "0:0:100:0", "five"),
            ("-UCA bank count 1", "-UCA bank count 3", "power of two"),
            (
                "-size (bytes) 4096",
                "-size (bytes) 32",
                "64 bytes per bank",
            ),
            ("Loss 0.01", "Loss 1.5", "between 0 and 1"),
            ("\"Global_30\"", "\"Global_99\"", "Unknown wire type"),
        ] {
            let t = replace(from, to);
            let e = parse_str(&t, "x.cfg").unwrap_err().to_string();
            assert!(e.contains(want) && e.contains("x.cfg:"), "{from} -> {e}");
        }
    }

    #[test]
    fn stray_text_is_an_error() {
        let t = format!("{SAMPLE}size 5\n");
        assert!(matches!(
            parse_str(&t, "x").unwrap_err(),
            CfgError::BadLine { .. }
        ));
    }

    #[test]
    fn reads_every_reference_cfg() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../calibrations/cacti7-train-cfg");
        let mut n = 0;
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e} (test data is in the repository)", dir.display()));
        for e in entries {
            let p = e.unwrap().path();
            let c = read_file(&p).unwrap_or_else(|e| panic!("{e}"));
            assert!(c.size_bytes > 0 && c.uca);
            n += 1;
        }
        assert_eq!(n, 487);
    }

    #[test]
    fn bitline_floating_and_interconnect_gating_are_honoured() {
        let t = replace(
            "Bitline floating - \"false\"",
            "Bitline floating - \"true\"",
        )
        .replace(
            "Interconnect Power Gating - \"false\"",
            "Interconnect Power Gating - \"true\"",
        );
        let m = parse_str(&t, "x.cfg").unwrap().to_sram_spec().unwrap();
        let pg = m.power_gating.unwrap();
        assert!(pg.bitline_floating && pg.interconnect && pg.array);
        // gating alone (no array gating) still maps
        let t = SAMPLE
            .replace(
                "-Array Power Gating - \"true\"",
                "-Array Power Gating - \"false\"",
            )
            .replace(
                "Bitline floating - \"false\"",
                "Bitline floating - \"true\"",
            );
        let m = parse_str(&t, "x.cfg").unwrap().to_sram_spec().unwrap();
        assert!(m.power_gating.unwrap().bitline_floating);
    }

    #[test]
    fn maps_to_spec_and_rejects_unsupported_values() {
        let m = parse_str(SAMPLE, "s.cfg").unwrap().to_sram_spec().unwrap();
        assert_eq!(m.spec.capacity_bytes, 4096);
        assert_eq!(m.spec.peri_flavor, regwatt_tech::DeviceFlavor::ItrsLop);
        assert!((m.spec.node_nm - 40.0).abs() < 1e-9);
        assert_eq!(m.power_gating.map(|p| p.array), Some(true));
        assert!(m
            .defaults_used
            .iter()
            .any(|(k, _)| *k == "CLDriver vertical"));
        for (from, to, key) in [
            ("\"UCA\"", "\"NUCA\"", "Cache model"),
            (
                "single ended read ports 0",
                "single ended read ports 1",
                "single ended read ports",
            ),
            ("\"Global_30\"", "\"Global_10\"", "Wire signaling"),
            ("-cache type \"ram\"", "-cache type \"cam\"", "cache type"),
            ("-associativity 1", "-associativity 4", "associativity"),
        ] {
            let t = replace(from, to);
            let e = parse_str(&t, "x.cfg").unwrap().to_sram_spec().unwrap_err();
            let msg = e.to_string();
            assert!(
                matches!(e, CfgError::Unsupported { .. })
                    && msg.contains(key)
                    && msg.contains("x.cfg:"),
                "{msg}"
            );
        }
    }
}
