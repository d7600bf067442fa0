//! Technology parameters per node, CACTI 7 style.
//!
//! Node files live in `tech/nodes/*.toml` (compiled in with `include_str!`); a user file can be
//! loaded with [`Technology::from_file`]. [`Technology::for_node`] resolves a node and a
//! temperature into a [`Technology`] with plain SI typed values:
//!
//! - 90, 65, 45, 32, 22 nm: CACTI 7's tables (`tech_params/*.dat`), conservative wires.
//! - any node strictly between two of those (e.g. 40 nm, 28 nm): linear interpolation of every
//!   resolved parameter exactly as CACTI 7 `TechnologyParameter::init` does
//!   (`alpha = (nm - nm_small) / (nm_large - nm_small)` on the larger node; 40 nm =
//!   0.615 x 45 nm + 0.385 x 32 nm); the sense-amp figures are taken from the smaller node as
//!   CACTI does; marked `interpolated = true`.
//! - 12 nm: our own FinFET node (see `tech/README.md` and the comments in `nodes/12nm.toml`).
//! - anything else (e.g. 16 nm, 7 nm, 130 nm): [`TechError::UnknownNode`].
//!
//! Temperature: CACTI tabulates `I_off` and `I_g_on` at 300..400 K in 10 K steps and accepts
//! only those temperatures; we accept any temperature in [300 K, 400 K] and interpolate
//! log-linearly between the tabulated points (exact at the tabulated points).

use crate::units::{
    parse_quantity, Area, CapacitancePerArea, CapacitancePerLength, CurrentPerWidth, Dim, Energy,
    Length, ResistancePerLength, ResistanceWidth, Temperature, Time, UnitError, Voltage,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Errors building a [`Technology`].
#[derive(Debug, thiserror::Error)]
pub enum TechError {
    /// The node is not tabulated and cannot be interpolated.
    #[error("unknown technology node {nm} nm: regwatt has 90, 65, 45, 32, 22 nm (CACTI 7 tables), any node strictly between 22 and 90 nm (interpolated as CACTI 7 does) and 12 nm (FinFET); CACTI refuses other nodes (\"Invalid technology nodes\")")]
    UnknownNode {
        /// The node asked for.
        nm: f64,
    },
    /// Temperature outside the tabulated range.
    #[error("temperature {kelvin} K is outside the tabulated range 300-400 K")]
    Temperature {
        /// Temperature asked for.
        kelvin: f64,
    },
    /// A device flavour is not available at this node.
    #[error("device flavour {flavor} is not available at {nm} nm")]
    MissingFlavor {
        /// Flavour.
        flavor: DeviceFlavor,
        /// Node.
        nm: f64,
    },
    /// TOML syntax or schema error.
    #[error("{file}: {message}")]
    Parse {
        /// File name.
        file: String,
        /// Message (includes line/column from the TOML parser).
        message: String,
    },
    /// A value with a bad unit.
    #[error("{file}: field {field}: {source}")]
    Unit {
        /// File name.
        file: String,
        /// Dotted field path.
        field: String,
        /// Underlying unit error.
        source: UnitError,
    },
    /// Reading a user file failed.
    #[error(transparent)]
    Io(#[from] regwatt_inputs::ReadError),
}

/// Device (transistor) flavours, as CACTI 7 names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum DeviceFlavor {
    /// ITRS high performance.
    #[serde(rename = "itrs-hp")]
    ItrsHp,
    /// ITRS low standby power.
    #[serde(rename = "itrs-lstp")]
    ItrsLstp,
    /// ITRS low operating power.
    #[serde(rename = "itrs-lop")]
    ItrsLop,
    /// Logic-process embedded DRAM.
    #[serde(rename = "lp-dram")]
    LpDram,
    /// Commodity DRAM.
    #[serde(rename = "comm-dram")]
    CommDram,
}

impl DeviceFlavor {
    /// All flavours.
    pub const ALL: [DeviceFlavor; 5] = [
        DeviceFlavor::ItrsHp,
        DeviceFlavor::ItrsLstp,
        DeviceFlavor::ItrsLop,
        DeviceFlavor::LpDram,
        DeviceFlavor::CommDram,
    ];
    /// CACTI's name.
    pub fn name(self) -> &'static str {
        match self {
            DeviceFlavor::ItrsHp => "itrs-hp",
            DeviceFlavor::ItrsLstp => "itrs-lstp",
            DeviceFlavor::ItrsLop => "itrs-lop",
            DeviceFlavor::LpDram => "lp-dram",
            DeviceFlavor::CommDram => "comm-dram",
        }
    }
    /// True for the DRAM flavours.
    pub fn is_dram(self) -> bool {
        matches!(self, DeviceFlavor::LpDram | DeviceFlavor::CommDram)
    }
}

impl fmt::Display for DeviceFlavor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown flavour name.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "unknown device flavour {0:?} (expected itrs-hp, itrs-lstp, itrs-lop, lp-dram or comm-dram)"
)]
pub struct UnknownFlavor(pub String);

impl FromStr for DeviceFlavor {
    type Err = UnknownFlavor;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DeviceFlavor::ALL
            .into_iter()
            .find(|f| f.name() == s.trim())
            .ok_or_else(|| UnknownFlavor(s.to_string()))
    }
}

/// Resolved device parameters of one flavour at one temperature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Device {
    /// Supply voltage.
    pub vdd: Voltage,
    /// Threshold voltage.
    pub vth: Voltage,
    /// Drain saturation voltage.
    pub vdsat: Voltage,
    /// Physical gate length.
    pub l_phy: Length,
    /// Electrical gate length.
    pub l_elec: Length,
    /// Ideal gate capacitance per width.
    pub c_g_ideal: CapacitancePerLength,
    /// Fringe capacitance per width.
    pub c_fringe: CapacitancePerLength,
    /// Gate-drain overlap capacitance per width (CACTI: 0.2 x C_g_ideal).
    pub c_overlap: CapacitancePerLength,
    /// Junction (bottom) capacitance per area.
    pub c_junc: CapacitancePerArea,
    /// Junction sidewall capacitance per perimeter.
    pub c_junc_sidewall: CapacitancePerLength,
    /// NMOS on current per width.
    pub i_on_n: CurrentPerWidth,
    /// PMOS on current per width.
    pub i_on_p: CurrentPerWidth,
    /// NMOS (and PMOS, as CACTI) subthreshold leakage per width at the temperature.
    pub i_off_n: CurrentPerWidth,
    /// Gate leakage per width at the temperature.
    pub i_g_on_n: CurrentPerWidth,
    /// NMOS effective on-resistance x width (CACTI: multiplier x Vdd / I_on_n).
    pub r_nch_on: ResistanceWidth,
    /// PMOS effective on-resistance x width (CACTI: n_to_p ratio x R_nch_on).
    pub r_pch_on: ResistanceWidth,
    /// NMOS/PMOS effective current drive ratio (CACTI `n2p_drv_rt`).
    pub n_to_p_drive_ratio: f64,
    /// Leakage reduction of long-channel devices (CACTI `lch_lk_rdc`).
    pub long_channel_leakage_reduction: f64,
    /// Gate oxide capacitance per area.
    pub c_ox: CapacitancePerArea,
    /// Oxide thickness.
    pub t_ox: Length,
    /// Ratio of PMOS to NMOS transconductance (CACTI `gmp_to_gmn_multiplier`).
    pub gmp_to_gmn_multiplier: f64,
    /// Wordline boost voltage (DRAM flavours).
    pub vpp: Voltage,
    /// Effective electron mobility, m²/(V·s) (CACTI `Mobility_n`; used for the sense-amp
    /// latch transconductance).
    pub mobility_n: f64,
}

/// Resolved wire parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wire {
    /// Pitch.
    pub pitch: Length,
    /// Aspect ratio (thickness / width).
    pub aspect_ratio: f64,
    /// Horizontal (line-to-line) dielectric constant.
    pub horiz_dielectric_constant: f64,
    /// Vertical (inter-layer) dielectric constant.
    pub vert_dielectric_constant: f64,
    /// Miller factor for coupling capacitance.
    pub miller_value: f64,
    /// Inter-layer dielectric thickness.
    pub ild_thickness: Length,
    /// Resistance per length.
    pub r_per_length: ResistancePerLength,
    /// Capacitance per length.
    pub c_per_length: CapacitancePerLength,
}

/// The three wire classes (CACTI: local, semi-global, global).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wires {
    /// Local wires (inside the cell array: bitlines, wordlines).
    pub local: Wire,
    /// Semi-global wires (inside/outside mats in CACTI's default configuration).
    pub semi_global: Wire,
    /// Global wires.
    pub global: Wire,
}

/// Which wire class a cell array's wordline is routed on.
///
/// CACTI 7 (`subarray.cc` / `decoder.cc`) routes wordlines on the local layer. FinFET SRAM
/// macros route (or strap) them on a wider, thicker upper layer because the minimum-pitch
/// layer became too resistive: wordlines on separate upper metal layers "to have increased
/// widths, which decrease wordline resistance" (Qualcomm, US 9,806,083 B2, 2017); dual word
/// lines on thicker metal layers against the rising word/bit-line resistance of scaled cells
/// (TSMC, J.-J. Liaw, DE 10 2016 114 698 B4, filed 2016).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WireLayer {
    /// The local (minimum-pitch) layer, as CACTI.
    #[serde(rename = "local")]
    Local,
    /// The semi-global (2x-pitch intermediate) layer.
    #[serde(rename = "semi_global")]
    SemiGlobal,
}

impl std::str::FromStr for WireLayer {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "local" => Ok(WireLayer::Local),
            "semi_global" => Ok(WireLayer::SemiGlobal),
            other => Err(format!(
                "unknown wire layer \"{other}\" (expected \"local\" or \"semi_global\")"
            )),
        }
    }
}

impl Wires {
    /// The wire of one layer class.
    pub fn layer(&self, l: WireLayer) -> &Wire {
        match l {
            WireLayer::Local => &self.local,
            WireLayer::SemiGlobal => &self.semi_global,
        }
    }
}

/// Memory-cell geometry and device widths.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Cell area.
    pub area: Area,
    /// Aspect ratio height / width (CACTI `asp_ratio_cell`).
    pub aspect_ratio: f64,
    /// Cell width along the wordline (CACTI `b_w = sqrt(area / aspect)`).
    pub width: Length,
    /// Cell height along the bitline (CACTI `b_h = aspect x b_w`).
    pub height: Length,
    /// Access transistor width.
    pub access_width: Length,
    /// Pull-up (PMOS) width.
    pub pull_up_width: Length,
    /// Pull-down (NMOS) width.
    pub pull_down_width: Length,
    /// Layer the wordline runs on (see [`WireLayer`]); the bitlines stay on the local layer.
    pub wordline_layer: WireLayer,
}

/// DRAM cell parameters (CACTI lp-dram / comm-dram).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DramCell {
    /// Cell supply.
    pub vdd_cell: Voltage,
    /// Access transistor width.
    pub access_width: Length,
    /// Cell area.
    pub area: Area,
    /// Aspect ratio.
    pub aspect_ratio: f64,
    /// Cell on current per width.
    pub i_on: CurrentPerWidth,
    /// Storage capacitance.
    pub storage_c: crate::units::Capacitance,
    /// Worst-case off current per width.
    pub i_off_worst: CurrentPerWidth,
}

/// Sense amplifier figures (CACTI `sense_delay`, `sense_dy_power`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SenseAmp {
    /// Sensing delay.
    pub delay: Time,
    /// Dynamic energy per sensing.
    pub energy: Energy,
}

/// Fin geometry of a FinFET node (logic and periphery in whole fins).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Fin {
    /// Fin pitch: the layout footprint one fin takes along the gate.
    pub pitch: Length,
    /// Effective channel width of one fin, `2 H_fin + W_fin`.
    pub effective_width: Length,
}

/// A resolved technology: one node at one temperature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Technology {
    /// Node in nm as asked for.
    pub node_nm: f64,
    /// Feature size F (used for CACTI's F-scaled transistor widths).
    pub feature_size: Length,
    /// Transistor width (the `W` every device figure is normalised to) per unit of layout
    /// footprint width along the gate. 1 for planar nodes, where drawn width is the width;
    /// for a FinFET node the devices are given per µm of *effective* width (2 H_fin + W_fin
    /// per fin), and a µm of footprint holds `(2 H_fin + W_fin) / fin_pitch` of it, so layout
    /// area per unit of device width is divided by this factor.
    pub width_per_footprint: f64,
    /// Fin geometry of a FinFET node (`None`: planar). Transistors are then built of whole
    /// fins ([`Technology::transistor_width`]).
    pub fin: Option<Fin>,
    /// Temperature the leakage currents are resolved at.
    pub temperature: Temperature,
    /// True when interpolated between two tabulated nodes.
    pub interpolated: bool,
    /// Where the numbers come from (file(s) and weights).
    pub provenance: String,
    /// What kind of data the node is: the technology file's top-level `source` (CACTI 7's
    /// ITRS projection, regwatt's published-FinFET derivation, ...), or for an interpolated
    /// node "interpolated between X nm and Y nm (...)". A short label for reports.
    pub source: String,
    /// Devices by flavour.
    pub devices: BTreeMap<DeviceFlavor, Device>,
    /// The process's dedicated SRAM bitcell transistors (`[sram_cell_device]`), where the
    /// file has them: a FinFET process builds its bitcells from SRAM-specific devices (own
    /// V_th), not from a logic flavour. `None` on CACTI's nodes, whose cells use the cell
    /// flavour's logic device (CACTI `g_tp.sram_cell` = the `ram_cell_tech_type` flavour).
    /// Read it through [`Technology::cell_device`].
    pub sram_cell_device: Option<Device>,
    /// Wires.
    pub wires: Wires,
    /// 6T SRAM cell.
    pub sram_cell: Cell,
    /// CAM cell.
    pub cam_cell: Cell,
    /// DRAM cells by flavour (only where tabulated).
    pub dram_cells: BTreeMap<DeviceFlavor, DramCell>,
    /// Sense amplifier.
    pub sense_amp: SenseAmp,
}

/// Built-in node files.
const BUILTIN: [(u32, &str); 6] = [
    (90, include_str!("../nodes/90nm.toml")),
    (65, include_str!("../nodes/65nm.toml")),
    (45, include_str!("../nodes/45nm.toml")),
    (32, include_str!("../nodes/32nm.toml")),
    (22, include_str!("../nodes/22nm.toml")),
    (12, include_str!("../nodes/12nm.toml")),
];

/// Nodes CACTI 7 tabulates (between which we interpolate), largest first.
const CACTI_NODES: [u32; 5] = [90, 65, 45, 32, 22];

// ---------- raw (file) schema ----------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    /// Short label of the node's data source (reports print it).
    #[serde(default)]
    source: Option<String>,
    node_nm: f64,
    feature_size: String,
    #[serde(default)]
    interpolated: bool,
    width_per_footprint: f64,
    #[serde(default)]
    fin: Option<RawFin>,
    devices: BTreeMap<String, RawDevice>,
    #[serde(default)]
    sram_cell_device: Option<RawDevice>,
    wires: RawWires,
    sram_cell: RawCell,
    cam_cell: RawCell,
    #[serde(default)]
    dram_cells: BTreeMap<String, RawDram>,
    sense_amp: RawSense,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFin {
    #[allow(dead_code)]
    source: String,
    pitch: String,
    effective_width: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDevice {
    #[allow(dead_code)]
    source: String,
    c_g_ideal: String,
    c_fringe: String,
    c_junc: String,
    c_junc_sidewall: String,
    l_phy: String,
    l_elec: String,
    nmos_effective_resistance_multiplier: f64,
    vdd: String,
    vth: String,
    vdsat: String,
    i_on_n: String,
    i_on_p: String,
    c_ox: String,
    t_ox: String,
    n_to_p_drive_ratio: f64,
    long_channel_leakage_reduction: f64,
    mobility_n: String,
    gmp_to_gmn_multiplier: f64,
    vpp: String,
    i_off_n: Vec<String>,
    i_g_on_n: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWires {
    local: RawWire,
    semi_global: RawWire,
    global: RawWire,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct RawWire {
    source: String,
    pitch: String,
    aspect_ratio: f64,
    barrier_thickness: String,
    dishing_thickness: String,
    alpha_scatter: f64,
    miller_value: f64,
    horiz_dielectric_constant: f64,
    vert_dielectric_constant: f64,
    ild_thickness: String,
    fringe_cap: String,
    resistivity: String,
    r_per_length: String,
    c_per_length: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCell {
    #[allow(dead_code)]
    source: String,
    area: String,
    aspect_ratio: f64,
    access_width: String,
    pull_up_width: String,
    pull_down_width: String,
    wordline_layer: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDram {
    #[allow(dead_code)]
    source: String,
    vdd_cell: String,
    access_width: String,
    area: String,
    aspect_ratio: f64,
    i_on: String,
    storage_c: String,
    i_off_worst: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSense {
    #[allow(dead_code)]
    source: String,
    delay: String,
    dynamic_energy: String,
}

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn q(&self, field: &str, text: &str, dim: Dim) -> Result<f64, TechError> {
        crate::units::parse_as(text, dim).map_err(|e| TechError::Unit {
            file: self.file.to_string(),
            field: field.to_string(),
            source: e,
        })
    }
    fn area(&self, field: &str, text: &str, f: f64) -> Result<Area, TechError> {
        let q = parse_quantity(text).map_err(|e| TechError::Unit {
            file: self.file.to_string(),
            field: field.to_string(),
            source: e,
        })?;
        if q.dim == Dim::FEATURE_AREA {
            Ok(Area(q.value * f * f))
        } else if q.dim == Dim::AREA {
            Ok(Area(q.value))
        } else {
            Err(TechError::Unit {
                file: self.file.to_string(),
                field: field.to_string(),
                source: UnitError::WrongDimension {
                    text: text.to_string(),
                    found: q.dim.to_string(),
                    expected: "m^2 or F^2".into(),
                },
            })
        }
    }
    fn table(&self, field: &str, v: &[String], t: f64) -> Result<CurrentPerWidth, TechError> {
        if v.len() != 11 {
            return Err(TechError::Parse {
                file: self.file.to_string(),
                message: format!(
                    "field {field}: expected 11 values (300..400 K in 10 K steps), found {}",
                    v.len()
                ),
            });
        }
        let mut vals = [0.0; 11];
        for (i, s) in v.iter().enumerate() {
            vals[i] = self.q(&format!("{field}[{i}]"), s, CurrentPerWidth::DIM)?;
        }
        Ok(CurrentPerWidth(interp_temperature(&vals, t)))
    }
}

/// Log-linear interpolation in a 300..400 K / 10 K table (exact at tabulated points).
fn interp_temperature(vals: &[f64; 11], t: f64) -> f64 {
    let x = ((t - 300.0) / 10.0).clamp(0.0, 10.0);
    let i = (x.floor() as usize).min(9);
    let fr = x - i as f64;
    let (a, b) = (vals[i], vals[i + 1]);
    if fr == 0.0 {
        return a;
    }
    if a > 0.0 && b > 0.0 {
        (a.ln() * (1.0 - fr) + b.ln() * fr).exp()
    } else {
        a * (1.0 - fr) + b * fr
    }
}

fn resolve(file: &str, text: &str, temperature: Temperature) -> Result<Technology, TechError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let (file, message) =
            regwatt_inputs::located(file, text, e.span().map(|s| s.start), e.message());
        TechError::Parse { file, message }
    })?;
    let cx = Ctx { file };
    let t = temperature.k();
    let f = cx.q("feature_size", &raw.feature_size, Dim::LENGTH)?;
    // `prefix`: the table the device is read from (`devices.<flavour>`, `sram_cell_device`).
    let device = |prefix: &str, is_dram: bool, d: &RawDevice| -> Result<Device, TechError> {
        let p = |field: &str, s: &str, dim: Dim| cx.q(&format!("{prefix}.{field}"), s, dim);
        let vdd = Voltage(p("vdd", &d.vdd, Dim::VOLTAGE)?);
        let vpp = Voltage(p("vpp", &d.vpp, Dim::VOLTAGE)?);
        let i_on_n = CurrentPerWidth(p("i_on_n", &d.i_on_n, CurrentPerWidth::DIM)?);
        let c_g_ideal =
            CapacitancePerLength(p("c_g_ideal", &d.c_g_ideal, CapacitancePerLength::DIM)?);
        // CACTI 7 DeviceType::assign: R_nch_on = multiplier x Vdd / I_on_n (Vpp for DRAM
        // flavours), R_pch_on = n2p ratio x R_nch_on, C_overlap = 0.2 C_g_ideal.
        let v_drive = if is_dram && vpp.v() > 0.0 { vpp } else { vdd };
        let r_n = if i_on_n.0 > 0.0 {
            d.nmos_effective_resistance_multiplier * v_drive.v() / i_on_n.0
        } else {
            0.0
        };
        let dev = Device {
            vdd,
            vth: Voltage(p("vth", &d.vth, Dim::VOLTAGE)?),
            vdsat: Voltage(p("vdsat", &d.vdsat, Dim::VOLTAGE)?),
            l_phy: Length(p("l_phy", &d.l_phy, Dim::LENGTH)?),
            l_elec: Length(p("l_elec", &d.l_elec, Dim::LENGTH)?),
            c_g_ideal,
            c_fringe: CapacitancePerLength(p("c_fringe", &d.c_fringe, CapacitancePerLength::DIM)?),
            c_overlap: c_g_ideal * 0.2,
            c_junc: CapacitancePerArea(p("c_junc", &d.c_junc, CapacitancePerArea::DIM)?),
            c_junc_sidewall: CapacitancePerLength(p(
                "c_junc_sidewall",
                &d.c_junc_sidewall,
                CapacitancePerLength::DIM,
            )?),
            i_on_n,
            i_on_p: CurrentPerWidth(p("i_on_p", &d.i_on_p, CurrentPerWidth::DIM)?),
            i_off_n: cx.table(&format!("{prefix}.i_off_n"), &d.i_off_n, t)?,
            i_g_on_n: cx.table(&format!("{prefix}.i_g_on_n"), &d.i_g_on_n, t)?,
            r_nch_on: ResistanceWidth(r_n),
            r_pch_on: ResistanceWidth(r_n * d.n_to_p_drive_ratio),
            n_to_p_drive_ratio: d.n_to_p_drive_ratio,
            long_channel_leakage_reduction: d.long_channel_leakage_reduction,
            c_ox: CapacitancePerArea(p("c_ox", &d.c_ox, CapacitancePerArea::DIM)?),
            t_ox: Length(p("t_ox", &d.t_ox, Dim::LENGTH)?),
            gmp_to_gmn_multiplier: d.gmp_to_gmn_multiplier,
            vpp,
            mobility_n: p(
                "mobility_n",
                &d.mobility_n,
                Dim::AREA
                    .mul_const(Dim::VOLTAGE, -1)
                    .mul_const(Dim::TIME, -1),
            )?,
        };
        Ok(dev)
    };
    let mut devices = BTreeMap::new();
    for (name, d) in &raw.devices {
        let flavor: DeviceFlavor = name.parse().map_err(|e: UnknownFlavor| TechError::Parse {
            file: file.to_string(),
            message: format!("[devices.{name}]: {e}"),
        })?;
        devices.insert(
            flavor,
            device(&format!("devices.{name}"), flavor.is_dram(), d)?,
        );
    }
    let sram_cell_device = raw
        .sram_cell_device
        .as_ref()
        .map(|d| device("sram_cell_device", false, d))
        .transpose()?;
    let wire = |name: &str, w: &RawWire| -> Result<Wire, TechError> {
        let p = |field: &str, s: &str, dim: Dim| cx.q(&format!("wires.{name}.{field}"), s, dim);
        Ok(Wire {
            pitch: Length(p("pitch", &w.pitch, Dim::LENGTH)?),
            aspect_ratio: w.aspect_ratio,
            horiz_dielectric_constant: w.horiz_dielectric_constant,
            vert_dielectric_constant: w.vert_dielectric_constant,
            miller_value: w.miller_value,
            ild_thickness: Length(p("ild_thickness", &w.ild_thickness, Dim::LENGTH)?),
            r_per_length: ResistancePerLength(p(
                "r_per_length",
                &w.r_per_length,
                ResistancePerLength::DIM,
            )?),
            c_per_length: CapacitancePerLength(p(
                "c_per_length",
                &w.c_per_length,
                CapacitancePerLength::DIM,
            )?),
        })
    };
    let cell = |name: &str, c: &RawCell| -> Result<Cell, TechError> {
        let area = cx.area(&format!("{name}.area"), &c.area, f)?;
        // CACTI 7 MemoryType::assign: b_w = sqrt(area / aspect), b_h = aspect x b_w.
        let width = Length((area.0 / c.aspect_ratio).sqrt());
        let p = |field: &str, s: &str| cx.q(&format!("{name}.{field}"), s, Dim::LENGTH);
        Ok(Cell {
            area,
            aspect_ratio: c.aspect_ratio,
            width,
            height: width * c.aspect_ratio,
            access_width: Length(p("access_width", &c.access_width)?),
            pull_up_width: Length(p("pull_up_width", &c.pull_up_width)?),
            pull_down_width: Length(p("pull_down_width", &c.pull_down_width)?),
            wordline_layer: c.wordline_layer.parse().map_err(|message: String| {
                TechError::Parse {
                    file: file.to_string(),
                    message: format!("[{name}] wordline_layer: {message}"),
                }
            })?,
        })
    };
    let mut dram_cells = BTreeMap::new();
    for (name, d) in &raw.dram_cells {
        let flavor: DeviceFlavor = name.parse().map_err(|e: UnknownFlavor| TechError::Parse {
            file: file.to_string(),
            message: format!("[dram_cells.{name}]: {e}"),
        })?;
        let p =
            |field: &str, s: &str, dim: Dim| cx.q(&format!("dram_cells.{name}.{field}"), s, dim);
        dram_cells.insert(
            flavor,
            DramCell {
                vdd_cell: Voltage(p("vdd_cell", &d.vdd_cell, Dim::VOLTAGE)?),
                access_width: Length(p("access_width", &d.access_width, Dim::LENGTH)?),
                area: cx.area(&format!("dram_cells.{name}.area"), &d.area, f)?,
                aspect_ratio: d.aspect_ratio,
                i_on: CurrentPerWidth(p("i_on", &d.i_on, CurrentPerWidth::DIM)?),
                storage_c: crate::units::Capacitance(p(
                    "storage_c",
                    &d.storage_c,
                    crate::units::Capacitance::DIM,
                )?),
                i_off_worst: CurrentPerWidth(p(
                    "i_off_worst",
                    &d.i_off_worst,
                    CurrentPerWidth::DIM,
                )?),
            },
        );
    }
    if !(raw.width_per_footprint.is_finite() && raw.width_per_footprint >= 1.0) {
        return Err(TechError::Parse {
            file: file.to_string(),
            message: format!(
                "width_per_footprint = {}: must be a number >= 1 (1 for planar devices)",
                raw.width_per_footprint
            ),
        });
    }
    let fin = match &raw.fin {
        None => None,
        Some(rf) => {
            let fin = Fin {
                pitch: Length(cx.q("fin.pitch", &rf.pitch, Dim::LENGTH)?),
                effective_width: Length(cx.q(
                    "fin.effective_width",
                    &rf.effective_width,
                    Dim::LENGTH,
                )?),
            };
            let ratio = fin.effective_width.0 / fin.pitch.0;
            if !(fin.pitch.0 > 0.0 && ratio.is_finite())
                || (ratio / raw.width_per_footprint - 1.0).abs() > 1e-3
            {
                return Err(TechError::Parse {
                    file: file.to_string(),
                    message: format!(
                        "fin: effective_width / pitch = {ratio} must equal width_per_footprint = {}",
                        raw.width_per_footprint
                    ),
                });
            }
            Some(fin)
        }
    };
    Ok(Technology {
        node_nm: raw.node_nm,
        feature_size: Length(f),
        width_per_footprint: raw.width_per_footprint,
        fin,
        temperature,
        interpolated: raw.interpolated,
        provenance: file.to_string(),
        source: raw
            .source
            .clone()
            .unwrap_or_else(|| format!("technology file {file}")),
        devices,
        sram_cell_device,
        wires: Wires {
            local: wire("local", &raw.wires.local)?,
            semi_global: wire("semi_global", &raw.wires.semi_global)?,
            global: wire("global", &raw.wires.global)?,
        },
        sram_cell: cell("sram_cell", &raw.sram_cell)?,
        cam_cell: cell("cam_cell", &raw.cam_cell)?,
        dram_cells,
        sense_amp: SenseAmp {
            delay: Time(cx.q("sense_amp.delay", &raw.sense_amp.delay, Dim::TIME)?),
            energy: Energy(cx.q(
                "sense_amp.dynamic_energy",
                &raw.sense_amp.dynamic_energy,
                Dim::ENERGY,
            )?),
        },
    })
}

fn check_temperature(t: Temperature) -> Result<(), TechError> {
    let k = t.k();
    if !(300.0..=400.0).contains(&k) || !k.is_finite() {
        return Err(TechError::Temperature { kelvin: k });
    }
    Ok(())
}

fn builtin(nm: u32, temperature: Temperature) -> Result<Technology, TechError> {
    let (_, text) = BUILTIN
        .iter()
        .find(|(n, _)| *n == nm)
        .ok_or(TechError::UnknownNode { nm: nm as f64 })?;
    resolve(&format!("tech/nodes/{nm}nm.toml"), text, temperature)
}

fn lerp(a: f64, b: f64, alpha: f64) -> f64 {
    alpha * a + (1.0 - alpha) * b
}

macro_rules! lerp_q {
    ($a:expr, $b:expr, $al:expr) => {
        $a.clone() * $al + $b.clone() * (1.0 - $al)
    };
}

impl Device {
    fn interpolate(a: &Device, b: &Device, al: f64) -> Device {
        Device {
            vdd: lerp_q!(a.vdd, b.vdd, al),
            vth: lerp_q!(a.vth, b.vth, al),
            vdsat: lerp_q!(a.vdsat, b.vdsat, al),
            l_phy: lerp_q!(a.l_phy, b.l_phy, al),
            l_elec: lerp_q!(a.l_elec, b.l_elec, al),
            c_g_ideal: lerp_q!(a.c_g_ideal, b.c_g_ideal, al),
            c_fringe: lerp_q!(a.c_fringe, b.c_fringe, al),
            c_overlap: lerp_q!(a.c_overlap, b.c_overlap, al),
            c_junc: lerp_q!(a.c_junc, b.c_junc, al),
            // CACTI 7 DeviceType::interpolate keeps dev1's sidewall capacitance.
            c_junc_sidewall: a.c_junc_sidewall,
            i_on_n: lerp_q!(a.i_on_n, b.i_on_n, al),
            i_on_p: lerp_q!(a.i_on_p, b.i_on_p, al),
            i_off_n: lerp_q!(a.i_off_n, b.i_off_n, al),
            i_g_on_n: lerp_q!(a.i_g_on_n, b.i_g_on_n, al),
            r_nch_on: lerp_q!(a.r_nch_on, b.r_nch_on, al),
            r_pch_on: lerp_q!(a.r_pch_on, b.r_pch_on, al),
            n_to_p_drive_ratio: lerp(a.n_to_p_drive_ratio, b.n_to_p_drive_ratio, al),
            long_channel_leakage_reduction: lerp(
                a.long_channel_leakage_reduction,
                b.long_channel_leakage_reduction,
                al,
            ),
            c_ox: lerp_q!(a.c_ox, b.c_ox, al),
            t_ox: lerp_q!(a.t_ox, b.t_ox, al),
            gmp_to_gmn_multiplier: lerp(a.gmp_to_gmn_multiplier, b.gmp_to_gmn_multiplier, al),
            vpp: lerp_q!(a.vpp, b.vpp, al),
            mobility_n: lerp(a.mobility_n, b.mobility_n, al),
        }
    }
}

impl Wire {
    fn interpolate(a: &Wire, b: &Wire, al: f64) -> Wire {
        Wire {
            pitch: lerp_q!(a.pitch, b.pitch, al),
            aspect_ratio: lerp(a.aspect_ratio, b.aspect_ratio, al),
            horiz_dielectric_constant: lerp(
                a.horiz_dielectric_constant,
                b.horiz_dielectric_constant,
                al,
            ),
            vert_dielectric_constant: lerp(
                a.vert_dielectric_constant,
                b.vert_dielectric_constant,
                al,
            ),
            miller_value: lerp(a.miller_value, b.miller_value, al),
            ild_thickness: lerp_q!(a.ild_thickness, b.ild_thickness, al),
            r_per_length: lerp_q!(a.r_per_length, b.r_per_length, al),
            c_per_length: lerp_q!(a.c_per_length, b.c_per_length, al),
        }
    }
}

impl Cell {
    fn interpolate(a: &Cell, b: &Cell, al: f64) -> Cell {
        let area = lerp_q!(a.area, b.area, al);
        let aspect_ratio = lerp(a.aspect_ratio, b.aspect_ratio, al);
        // CACTI 7 MemoryType::interpolate recomputes b_w, b_h from the interpolated area.
        let width = Length((area.0 / aspect_ratio).sqrt());
        Cell {
            area,
            aspect_ratio,
            width,
            height: width * aspect_ratio,
            access_width: lerp_q!(a.access_width, b.access_width, al),
            pull_up_width: lerp_q!(a.pull_up_width, b.pull_up_width, al),
            pull_down_width: lerp_q!(a.pull_down_width, b.pull_down_width, al),
            // a layer choice does not interpolate: the nearer node's
            wordline_layer: if al >= 0.5 {
                a.wordline_layer
            } else {
                b.wordline_layer
            },
        }
    }
}

impl DramCell {
    fn interpolate(a: &DramCell, b: &DramCell, al: f64) -> DramCell {
        DramCell {
            vdd_cell: lerp_q!(a.vdd_cell, b.vdd_cell, al),
            access_width: lerp_q!(a.access_width, b.access_width, al),
            area: lerp_q!(a.area, b.area, al),
            aspect_ratio: lerp(a.aspect_ratio, b.aspect_ratio, al),
            i_on: lerp_q!(a.i_on, b.i_on, al),
            storage_c: lerp_q!(a.storage_c, b.storage_c, al),
            i_off_worst: lerp_q!(a.i_off_worst, b.i_off_worst, al),
        }
    }
}

impl Technology {
    /// Effective width of a transistor drawn `drawn` wide (CACTI's F-scaled widths). Planar
    /// nodes: `drawn`. FinFET nodes: the footprint holds `round(drawn / fin pitch)` fins, at
    /// least one, each of the fin's effective width (at 12 nm CACTI's minimum NMOS
    /// of 1.5 F = 18 nm is one fin, 92 nm of effective width; a device drawn many pitches
    /// wide gets `effective_width / pitch` = `width_per_footprint` times its footprint).
    pub fn transistor_width(&self, drawn: Length) -> Length {
        match self.fin {
            None => drawn,
            Some(fin) => {
                let fins = (drawn.0 / fin.pitch.0).round().max(1.0);
                Length(fins * fin.effective_width.0)
            }
        }
    }

    /// Resolves a node (nm) at a temperature. See the module docs for what is accepted.
    pub fn for_node(nm: f64, temperature: Temperature) -> Result<Technology, TechError> {
        check_temperature(temperature)?;
        if !nm.is_finite() {
            return Err(TechError::UnknownNode { nm });
        }
        // Exact nodes (CACTI accepts +-1 nm around a tabulated node).
        for (n, _) in BUILTIN {
            if (nm - n as f64).abs() < 1.0 {
                let mut t = builtin(n, temperature)?;
                t.node_nm = nm;
                return Ok(t);
            }
        }
        // Strictly between two CACTI nodes: linear interpolation (CACTI 7
        // TechnologyParameter::find_upper_and_lower_tech / init).
        for w in CACTI_NODES.windows(2) {
            let (lo, hi) = (w[0] as f64, w[1] as f64); // lo = larger node
            if nm < lo && nm > hi {
                let alpha = (nm - hi) / (lo - hi);
                let a = builtin(w[0], temperature)?;
                let b = builtin(w[1], temperature)?;
                return Ok(Technology::interpolate(&a, &b, alpha, nm));
            }
        }
        Err(TechError::UnknownNode { nm })
    }

    /// Loads a user technology file (same schema as `tech/nodes/*.toml`).
    pub fn from_file(
        path: &std::path::Path,
        temperature: Temperature,
    ) -> Result<Technology, TechError> {
        check_temperature(temperature)?;
        let text = regwatt_inputs::read_text(path, regwatt_inputs::TEXT_LIMIT)?;
        resolve(&path.display().to_string(), &text, temperature)
    }

    /// Parses technology TOML text (`name` is used in error messages).
    pub fn from_toml_str(
        name: &str,
        text: &str,
        temperature: Temperature,
    ) -> Result<Technology, TechError> {
        check_temperature(temperature)?;
        resolve(name, text, temperature)
    }

    /// `alpha x a + (1 - alpha) x b` of every parameter (a = larger node).
    fn interpolate(a: &Technology, b: &Technology, alpha: f64, nm: f64) -> Technology {
        let mut devices = BTreeMap::new();
        for (f, da) in &a.devices {
            if let Some(db) = b.devices.get(f) {
                devices.insert(*f, Device::interpolate(da, db, alpha));
            }
        }
        let mut dram_cells = BTreeMap::new();
        for (f, da) in &a.dram_cells {
            if let Some(db) = b.dram_cells.get(f) {
                dram_cells.insert(*f, DramCell::interpolate(da, db, alpha));
            }
        }
        Technology {
            node_nm: nm,
            feature_size: Length::from_nm(nm),
            width_per_footprint: lerp(a.width_per_footprint, b.width_per_footprint, alpha),
            // CACTI's nodes are planar; an interpolated node between them is too
            fin: None,
            temperature: a.temperature,
            interpolated: true,
            provenance: format!(
                "interpolated: {alpha:.4} x {} + {:.4} x {} (CACTI 7 linear node interpolation)",
                a.provenance,
                1.0 - alpha,
                b.provenance
            ),
            source: if a.source == b.source {
                format!(
                    "interpolated between {} nm and {} nm ({})",
                    a.node_nm, b.node_nm, a.source
                )
            } else {
                format!(
                    "interpolated between {} nm ({}) and {} nm ({})",
                    a.node_nm, a.source, b.node_nm, b.source
                )
            },
            devices,
            sram_cell_device: match (&a.sram_cell_device, &b.sram_cell_device) {
                (Some(da), Some(db)) => Some(Device::interpolate(da, db, alpha)),
                _ => None,
            },
            wires: Wires {
                local: Wire::interpolate(&a.wires.local, &b.wires.local, alpha),
                semi_global: Wire::interpolate(&a.wires.semi_global, &b.wires.semi_global, alpha),
                global: Wire::interpolate(&a.wires.global, &b.wires.global, alpha),
            },
            sram_cell: Cell::interpolate(&a.sram_cell, &b.sram_cell, alpha),
            cam_cell: Cell::interpolate(&a.cam_cell, &b.cam_cell, alpha),
            dram_cells,
            // CACTI reads sense_delay / sense_dy_power from the smaller node's file only.
            sense_amp: b.sense_amp.clone(),
        }
    }

    /// The transistors an SRAM (or CAM) cell of `flavor` is built from: the file's dedicated
    /// SRAM bitcell device when it has one (the 12 nm FinFET node) and `flavor` is a logic
    /// flavour, else the flavour's device (CACTI's nodes: CACTI 7 `technology.cc` fills
    /// `g_tp.sram_cell` from the cell flavour's column). DRAM flavours always get their own.
    pub fn cell_device(&self, flavor: DeviceFlavor) -> Result<&Device, TechError> {
        match &self.sram_cell_device {
            Some(d) if !flavor.is_dram() => Ok(d),
            _ => self.device(flavor),
        }
    }

    /// The device parameters of a flavour, or an error naming flavour and node.
    pub fn device(&self, flavor: DeviceFlavor) -> Result<&Device, TechError> {
        self.devices.get(&flavor).ok_or(TechError::MissingFlavor {
            flavor,
            nm: self.node_nm,
        })
    }

    /// Whether [`Technology::for_node`] resolves `nm`: a built-in node (within 1 nm) or a
    /// node strictly between two of CACTI's nodes (90–22 nm), interpolated.
    pub fn supports_node(nm: f64) -> bool {
        nm.is_finite()
            && (BUILTIN.iter().any(|(n, _)| (nm - *n as f64).abs() < 1.0)
                || CACTI_NODES
                    .windows(2)
                    .any(|w| nm < w[0] as f64 && nm > w[1] as f64))
    }

    /// Nodes available without interpolation.
    pub fn builtin_nodes() -> Vec<u32> {
        BUILTIN.iter().map(|(n, _)| *n).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t360() -> Temperature {
        Temperature::from_k(360.0)
    }

    #[test]
    fn supports_node_agrees_with_for_node() {
        for tenth in (50..=1000).step_by(5) {
            let nm = f64::from(tenth) / 10.0;
            assert_eq!(
                Technology::supports_node(nm),
                Technology::for_node(nm, t360()).is_ok(),
                "{nm} nm"
            );
        }
        assert!(Technology::supports_node(28.0) && !Technology::supports_node(16.0));
        assert!(!Technology::supports_node(f64::NAN));
    }

    /// Every node names its source: CACTI's files their ITRS projection, 12 nm regwatt's
    /// FinFET derivation, an interpolated node both neighbours; a user file without a
    /// `source` key is labelled by its name.
    #[test]
    fn every_node_names_its_source() {
        for nm in [90.0, 65.0, 45.0, 32.0, 22.0] {
            let t = Technology::for_node(nm, t360()).unwrap();
            assert_eq!(t.source, "CACTI 7 ITRS projection", "{nm} nm");
        }
        let t12 = Technology::for_node(12.0, t360()).unwrap();
        assert!(t12.source.contains("FinFET") && t12.source.contains("published"));
        let t40 = Technology::for_node(40.0, t360()).unwrap();
        assert_eq!(
            t40.source,
            "interpolated between 45 nm and 32 nm (CACTI 7 ITRS projection)"
        );
        let text = include_str!("../nodes/22nm.toml").replacen(
            "source = \"CACTI 7 ITRS projection\"",
            "",
            1,
        );
        let u = Technology::from_toml_str("mine.toml", &text, t360()).unwrap();
        assert_eq!(u.source, "technology file mine.toml");
    }

    #[test]
    fn loads_all_builtin_nodes() {
        for n in Technology::builtin_nodes() {
            let t = Technology::for_node(n as f64, t360()).unwrap();
            assert!(!t.interpolated);
            let hp = t.device(DeviceFlavor::ItrsHp).unwrap();
            assert!(hp.vdd.v() > 0.5 && hp.vdd.v() < 1.5, "{n}");
            assert!(t.sram_cell.area.um2() > 0.0);
        }
    }

    #[test]
    fn cacti_cell_geometry_45nm() {
        let t = Technology::for_node(45.0, t360()).unwrap();
        // 146 F^2, aspect 1.46: b_w = 10 F, b_h = 14.6 F.
        assert!((t.sram_cell.width.um() - 0.45).abs() < 1e-9);
        assert!((t.sram_cell.height.um() - 0.657).abs() < 1e-9);
        // I_off at 360 K = table index 6.
        let hp = t.device(DeviceFlavor::ItrsHp).unwrap();
        assert!((hp.i_off_n.a_per_um() - 6.42e-7).abs() < 1e-15);
        // R_nch_on = 1.51 x 1 V / 2.0466e-3 A/um
        assert!((hp.r_nch_on.ohm_um() - 1.51 / 2.0466e-3).abs() < 1e-6);
    }

    #[test]
    fn interpolates_40nm_like_cacti() {
        let t = Technology::for_node(40.0, t360()).unwrap();
        assert!(t.interpolated);
        let a = Technology::for_node(45.0, t360()).unwrap();
        let b = Technology::for_node(32.0, t360()).unwrap();
        let al: f64 = 8.0 / 13.0;
        assert!((al - 0.615).abs() < 1e-3);
        let v = t.device(DeviceFlavor::ItrsHp).unwrap().vdd.v();
        assert!((v - (al * 1.0 + (1.0 - al) * 0.9)).abs() < 1e-12);
        let ioff = t.device(DeviceFlavor::ItrsHp).unwrap().i_off_n.0;
        let ia = a.device(DeviceFlavor::ItrsHp).unwrap().i_off_n.0;
        let ib = b.device(DeviceFlavor::ItrsHp).unwrap().i_off_n.0;
        assert!((ioff - (al * ia + (1.0 - al) * ib)).abs() < 1e-9 * ia);
        assert_eq!(t.sense_amp, b.sense_amp);
    }

    #[test]
    fn rejects_unknown_nodes() {
        for nm in [16.0, 7.0, 14.0, 21.0, 100.0, 130.0, f64::NAN] {
            let e = Technology::for_node(nm, t360()).unwrap_err();
            assert!(matches!(e, TechError::UnknownNode { .. }), "{nm}");
        }
        let e = Technology::for_node(16.0, t360()).unwrap_err();
        assert!(e.to_string().contains("16"));
    }

    #[test]
    fn rejects_bad_temperature() {
        assert!(Technology::for_node(45.0, Temperature::from_k(250.0)).is_err());
        assert!(Technology::for_node(45.0, Temperature::from_k(450.0)).is_err());
    }

    #[test]
    fn leakage_rises_with_temperature() {
        for n in [90.0, 65.0, 45.0, 40.0, 32.0, 22.0, 12.0] {
            let mut last = 0.0;
            for k in [300.0, 315.0, 330.0, 345.0, 360.0, 385.0, 400.0] {
                let t = Technology::for_node(n, Temperature::from_k(k)).unwrap();
                let i = t.device(DeviceFlavor::ItrsHp).unwrap().i_off_n.0;
                assert!(i >= last, "{n} nm {k} K");
                last = i;
            }
        }
    }

    #[test]
    fn twelve_nm_is_sane() {
        let t = Technology::for_node(12.0, t360()).unwrap();
        assert!((t.sram_cell.area.um2() - 0.07).abs() < 1e-9);
        let hp = t.device(DeviceFlavor::ItrsHp).unwrap();
        assert!((hp.vdd.v() - 0.8).abs() < 1e-12);
        assert!(t.wires.local.r_per_length.ohm_per_um() > 10.0);
        assert!(t.device(DeviceFlavor::LpDram).is_err());
    }

    #[test]
    fn user_file_errors_name_field() {
        let text = include_str!("../nodes/45nm.toml").replace("vdd = \"1 V\"", "vdd = \"1 Q\"");
        let e = Technology::from_toml_str("mine.toml", &text, t360()).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("mine.toml") && s.contains("vdd") && s.contains("1 Q"),
            "{s}"
        );
        let e = Technology::from_toml_str("bad.toml", "node_nm = ", t360()).unwrap_err();
        assert!(e.to_string().contains("bad.toml"));
        let e = Technology::from_file(std::path::Path::new("/nonexistent.toml"), t360());
        assert!(e.is_err());
    }
}
