//! The physical model: organisation-independent constants ([`Prep`]) and the closed-form
//! evaluation of one organisation ([`Prep::eval`]).
//!
//! All quantities are plain SI `f64` inside this module (hot loop); typed values are built
//! at the API boundary in `search.rs`.

use regwatt_tech::{DeviceFlavor, Technology};
use serde::{Deserialize, Serialize};

use super::spec::{Organisation, SramSpec};
use super::SramError;

/// CACTI const.h: `MINSUBARRAYROWS`.
pub const MIN_SUBARRAY_ROWS: f64 = 16.0;
/// CACTI const.h: `MAXSUBARRAYROWS`.
pub const MAX_SUBARRAY_ROWS: f64 = 262144.0;
/// CACTI const.h: `MINSUBARRAYCOLS`.
pub const MIN_SUBARRAY_COLS: f64 = 2.0;
/// CACTI const.h: `MAXSUBARRAYCOLS`.
pub const MAX_SUBARRAY_COLS: f64 = 262144.0;
/// CACTI const.h `VBITSENSEMIN`: minimum sense-amp input swing (V).
const VBITSENSEMIN: f64 = 0.08;
/// CACTI const.h `ADDRESS_BITS` (physical address width used for default tags).
const ADDRESS_BITS: u32 = 42;
/// CACTI const.h `EXTRA_TAG_BITS` (valid/dirty/coherence state bits).
const EXTRA_TAG_BITS: u32 = 5;
/// CACTI const.h `sram_num_cells_wl_stitching_`: cells between wordline stitches.
const WL_STITCH_CELLS: f64 = 16.0;
/// Logical-effort stage effort used to size driver chains (Sutherland/Sproull/Harris 1999;
/// CACTI decoder.cc sizes chains with a fan-out of ~4).
const STAGE_EFFORT: f64 = 4.0;
/// Leakage reduction of a 2-transistor stack (read-port access + read transistor), as CACTI
/// `cmos_Isub_leakage(..., fanin = 2, nmos)` applies to exclusive read ports; Narendra et al.
/// 2001 report ~2-10x for 2-stacks, we take the conservative 2x.
const STACK2_FACTOR: f64 = 0.5;
/// `floor` of a non-negative value below 2^53 by truncating conversion (the search's hot
/// loop; libm's `floor` is an out-of-line call on baseline x86-64).
#[inline(always)]
pub(crate) fn ffloor(x: f64) -> f64 {
    x as i64 as f64
}

/// `ceil` of a non-negative value below 2^53 (see [`ffloor`]).
#[inline(always)]
pub(crate) fn fceil(x: f64) -> f64 {
    let t = x as i64 as f64;
    if t < x {
        t + 1.0
    } else {
        t
    }
}

/// `2^-k` (exact) for `k` below 1023.
#[inline(always)]
fn inv_pow2(k: u32) -> f64 {
    f64::from_bits((1023 - k as u64) << 52)
}

/// Layout pitch per unit of transistor width along a periphery strip, in F (gate + contacts:
/// CACTI `w_poly_contact + 2 spacing_poly_to_contact` = 3 F). Per unit of *footprint* width:
/// the strip's pitch is divided by the technology's `width_per_footprint` (1 for planar nodes;
/// a FinFET's device width is its effective width, `width_per_footprint` times its footprint).
const LAYOUT_PITCH_F: f64 = 3.0;

/// Free model coefficients (dimensionless multipliers of physical components). Fitted by
/// [`crate::calibrate`] to CACTI 7 runs and stored in `calibrations/fitted.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coefficients {
    /// Bitline read energy (sense swing x precharge restore) multiplier.
    pub bitline_read_energy: f64,
    /// Bitline write energy (full-swing write of the selected columns) multiplier.
    pub bitline_write_energy: f64,
    /// Row-path switched capacitance (predecoders, decoders, wordline drivers, wordlines)
    /// multiplier.
    pub decoder_energy: f64,
    /// Column-path switched capacitance (precharge drivers, sense amps, mat output drivers,
    /// tag comparators) multiplier.
    pub column_energy: f64,
    /// Repeated H-tree wire energy multiplier (activity x repeater overhead).
    pub htree_energy: f64,
    /// Cell subthreshold leakage multiplier.
    pub cell_leakage: f64,
    /// Peripheral subthreshold leakage multiplier (driver sizing).
    pub periphery_leakage: f64,
    /// Cell gate leakage multiplier.
    pub cell_gate_leakage: f64,
    /// Peripheral gate leakage multiplier.
    pub periphery_gate_leakage: f64,
    /// Peripheral layout area multiplier (decoders, column circuits).
    pub periphery_area: f64,
    /// H-tree wiring area multiplier (routing-channel packing).
    pub htree_area: f64,
    /// Gate (logic) delay multiplier.
    pub logic_delay: f64,
    /// Bitline development delay multiplier.
    pub bitline_delay: f64,
    /// Repeated-wire delay multiplier.
    pub wire_delay: f64,
}

impl Default for Coefficients {
    /// All ones: the uncalibrated physical model.
    fn default() -> Self {
        Coefficients {
            bitline_read_energy: 1.0,
            bitline_write_energy: 1.0,
            decoder_energy: 1.0,
            column_energy: 1.0,
            htree_energy: 1.0,
            cell_leakage: 1.0,
            periphery_leakage: 1.0,
            cell_gate_leakage: 1.0,
            periphery_gate_leakage: 1.0,
            periphery_area: 1.0,
            htree_area: 1.0,
            logic_delay: 1.0,
            bitline_delay: 1.0,
            wire_delay: 1.0,
        }
    }
}

#[derive(Deserialize)]
struct FittedFile {
    coefficients: Coefficients,
}

static FITTED: std::sync::OnceLock<Result<Coefficients, String>> = std::sync::OnceLock::new();

impl Coefficients {
    /// The committed fit (`calibrations/fitted.toml`, compiled in). A file that does not parse
    /// is an error (it used to fall back silently to all-ones coefficients).
    pub fn fitted() -> Result<&'static Coefficients, SramError> {
        FITTED
            .get_or_init(|| Self::from_toml(include_str!("../../../calibrations/fitted.toml")))
            .as_ref()
            .map_err(|e| SramError::Coefficients(format!("calibrations/fitted.toml: {e}")))
    }

    /// Parses a fitted-coefficients TOML file.
    pub fn from_toml(text: &str) -> Result<Coefficients, String> {
        toml::from_str::<FittedFile>(text)
            .map(|f| f.coefficients)
            .map_err(|e| e.to_string())
    }

    /// Coefficients as (name, value) pairs, in a fixed order.
    pub fn to_pairs(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("bitline_read_energy", self.bitline_read_energy),
            ("bitline_write_energy", self.bitline_write_energy),
            ("decoder_energy", self.decoder_energy),
            ("column_energy", self.column_energy),
            ("htree_energy", self.htree_energy),
            ("cell_leakage", self.cell_leakage),
            ("periphery_leakage", self.periphery_leakage),
            ("cell_gate_leakage", self.cell_gate_leakage),
            ("periphery_gate_leakage", self.periphery_gate_leakage),
            ("periphery_area", self.periphery_area),
            ("htree_area", self.htree_area),
            ("logic_delay", self.logic_delay),
            ("bitline_delay", self.bitline_delay),
            ("wire_delay", self.wire_delay),
        ]
    }
}

/// CACTI's default tag width (`parameter.cc`, DynamicParameter for tag arrays):
/// `ADDRESS_BITS + EXTRA_TAG_BITS - log2(capacity) + log2(2 assoc - 1) - log2(banks)`, rounded
/// up to a multiple of 4 (CACTI `_log2` is floor(log2)).
pub fn tag_bits_default(capacity_bytes: u64, assoc: u32, banks: u32) -> u32 {
    let lg = |x: u64| 63 - x.max(1).leading_zeros();
    let t = (ADDRESS_BITS + EXTRA_TAG_BITS) as i64 - lg(capacity_bytes) as i64
        + lg(2 * assoc as u64 - 1) as i64
        - lg(banks as u64) as i64;
    let t = t.max(1) as u32;
    t.div_ceil(4) * 4
}

/// Which array of a cache (or the RAM) is modelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayKind {
    /// Data array (or a RAM).
    Data,
    /// Tag array of a cache.
    Tag,
}

/// Repeated semi-global wire figures per metre (CACTI wire.cc, "Global_30": repeaters sized
/// and spaced for minimum energy within 30% of the delay-optimal repeated wire; Bakoglu 1990
/// for the optimum).
#[derive(Debug, Clone, Copy)]
struct RepWire {
    /// Repeater size, in unit (minimum) inverters.
    size: f64,
    energy_per_m: f64,
    delay_per_m: f64,
    leak_per_m: f64,
    gate_leak_per_m: f64,
}

/// Organisation-independent constants of one array.
#[derive(Debug, Clone)]
pub struct Prep {
    pub kind: ArrayKind,
    pub sets_per_bank: f64,
    pub bits_per_set: f64,
    pub assoc: u32,
    pub out_bits: u32,
    pub tag_bits: u32,
    pub ecc: bool,
    pub banks: u32,
    pub ports_rw: f64,
    pub ports_rd: f64,
    pub ports_wr: f64,
    /// Smallest Nspd CACTI tries: output width / block bits.
    pub nspd_min: f64,
    /// ln(V_pre / (V_pre - V_b_sense)) of the bitline step response.
    ln_sense: f64,
    f: f64,
    /// Layout pitch per unit of device width ([`LAYOUT_PITCH_F`] F / width per footprint).
    lp: f64,
    vdd_c: f64,
    vdd_p: f64,
    vth_c: f64,
    is_dram: bool,
    cell_w: f64,
    cell_h: f64,
    c_wl_cell: f64,
    c_bl_cell: f64,
    r_l: f64,
    /// Wordline resistance per length (the technology's `wordline_layer`).
    r_wlw: f64,
    c_s: f64,
    r_s: f64,
    pitch_s: f64,
    vbs: f64,
    cg_p: f64,
    cd_per_w_p: f64,
    min_w: f64,
    p2n: f64,
    c0: f64,
    r0: f64,
    t_fo4: f64,
    c_bmux: f64,
    c_iso: f64,
    c_latch: f64,
    c_samux: f64,
    e_sa: f64,
    t_sa: f64,
    c_pre_per_col: f64,
    r_cell: f64,
    r_pre: f64,
    p_cell: f64,
    /// Part of `p_cell` leaking through the cross-coupled inverters.
    p_cell_inv: f64,
    pg_cell: f64,
    inv_leak_per_w: f64,
    inv_gleak_per_w: f64,
    sa_leak: f64,
    sa_gleak: f64,
    w_bmux: f64,
    w_samux: f64,
    wire: RepWire,
    dram_c_storage: f64,
    /// Delay of one branch node of an input (address / data-in) H-tree.
    t_node_in: f64,
    /// Delay of one branch node of the data-out H-tree.
    t_node_out: f64,
    /// Energy per bit of one input H-tree node.
    e_node_in: f64,
    /// Energy per bit of one data-out H-tree node.
    e_node_out: f64,
    /// Column-strip heights per port that do not depend on the organisation (hoisted out of
    /// the search loop, same operations): precharge + equaliser strip (with its gap), bit-mux
    /// pair, sense-amp block before the Ndcm division, sense-amp mux pair, write driver.
    h_pre: f64,
    h_bmux: f64,
    h_sa: f64,
    h_samux: f64,
    h_wd: f64,
    /// H-tree data-in / data-out widths (ECC-widened), bits per port.
    n_din: f64,
    n_dout: f64,
}

/// Raw component values of one evaluated organisation (SI units), before coefficients.
#[derive(Debug, Clone, Copy, Default)]
pub struct Raw {
    pub org: [f64; 6],
    pub rows: f64,
    pub cols: f64,
    pub cols_ecc: f64,
    pub sub_h: f64,
    pub sub_w: f64,
    pub num_sub: f64,
    pub num_mats: f64,
    pub n_act: f64,
    // read energy components
    pub e_dec: f64,
    pub e_wl: f64,
    pub e_bl_read: f64,
    pub e_bl_write: f64,
    pub e_pre: f64,
    pub e_sa: f64,
    pub e_matout: f64,
    pub e_ht_read: f64,
    pub e_ht_write: f64,
    pub e_comp: f64,
    // leakage per bank
    pub l_cell: f64,
    pub l_dec: f64,
    pub l_col: f64,
    pub l_ht: f64,
    pub g_cell: f64,
    pub g_dec: f64,
    pub g_col: f64,
    pub g_ht: f64,
    // area per bank (htree incl. the bank's share of inter-bank routing)
    pub a_cell: f64,
    pub a_dec: f64,
    pub a_col: f64,
    pub a_ht: f64,
    pub bank_h: f64,
    pub bank_w_cells: f64,
    // delays
    pub t_ht_in: f64,
    pub t_dec: f64,
    pub t_bl: f64,
    pub t_sa: f64,
    pub t_out_logic: f64,
    pub t_out_wire: f64,
    pub t_comp: f64,
    pub t_restore: f64,
    /// Gate delay of the H-tree branch nodes (address in + data out).
    pub t_ht_nodes: f64,
    /// n-width of the final wordline driver, m (p-width = this x the p/n ratio).
    pub w_wl_drv_n: f64,
    /// p/n width ratio of the peripheral inverters.
    pub p2n: f64,
    /// Bitline capacitance of one column (cells + wire), F.
    pub c_bitline: f64,
    /// Part of `l_cell` through the cells' cross-coupled inverters, W per bank.
    pub l_cell_inv: f64,
}

/// Bitline figures of one sub-array for a given column-mux presence (CACTI mat.cc
/// compute_bitline_delay), independent of the mux degrees.
#[derive(Debug, Clone, Copy)]
pub struct Bitline {
    /// Read energy per column not divided by the mux degree, J.
    e_fixed: f64,
    /// Read energy per column of the sense-amp side, divided by Ndcm, J.
    e_side: f64,
    /// Capacitance swung by a write, F.
    c_write: f64,
    /// Bitline delay, s.
    t_bl: f64,
    /// Precharge restore time, s.
    t_restore: f64,
}

/// Mux-independent part of an organisation (see [`Prep::row_stage`]).
#[derive(Debug, Clone, Copy)]
pub struct RowStage {
    ndwl: f64,
    ndbl: f64,
    nspd: f64,
    rows: f64,
    cols: f64,
    num_sub: f64,
    mats_h: f64,
    mats_v: f64,
    num_mats: f64,
    spm: f64,
    spr: f64,
    cols_ecc: f64,
    sub_h: f64,
    sub_w: f64,
    c_wl: f64,
    c_chain: f64,
    b: f64,
    e_predec: f64,
    t_dec: f64,
    bl_direct: Bitline,
    bl_mux: Bitline,
    w_n_drv: f64,
    w_dec: f64,
    mat_w: f64,
    bank_w0: f64,
    a_cell: f64,
    l_cell: f64,
    g_cell: f64,
    w_pre_drv: f64,
    l_dec: f64,
    g_dec: f64,
    /// H-tree branch levels on the root-to-mat path.
    levels: f64,
}

/// Metrics after applying coefficients.
#[derive(Debug, Clone, Copy, Default)]
pub struct Metrics {
    pub access: f64,
    pub cycle: f64,
    pub read: f64,
    pub write: f64,
    pub leak: f64,
    pub gate_leak: f64,
    pub area_bank: f64,
}

fn gate_c_per_w(d: &regwatt_tech::Device) -> f64 {
    // CACTI basic_circuit.cc gate_C: (C_g_ideal + C_overlap + 3 C_fringe) x width.
    d.c_g_ideal.0 + d.c_overlap.0 + 3.0 * d.c_fringe.0
}

/// CACTI basic_circuit.cc drain_C_ for an unfolded single transistor: junction bottom over
/// the drain diffusion (width x (poly contact + 2 spacings) = 3 F), sidewall on the diffusion
/// perimeter (w + 2 x 3 F), and the gate-drain fringe + overlap along the width.
fn drain_c(d: &regwatt_tech::Device, w: f64, f: f64) -> f64 {
    let diff = 3.0 * f;
    d.c_junc.0 * diff * w
        + d.c_junc_sidewall.0 * (w + 2.0 * diff)
        + (d.c_fringe.0 + d.c_overlap.0) * w
}

impl Prep {
    /// Builds the constants for one array of `spec`.
    pub fn new(spec: &SramSpec, tech: &Technology, kind: ArrayKind) -> Result<Prep, SramError> {
        let te = |e: regwatt_tech::TechError| SramError::Technology(e.to_string());
        // Cell transistors: the node's dedicated SRAM bitcell device where it has one (12 nm
        // FinFET, `[sram_cell_device]`), else the cell flavour's (CACTI's `g_tp.sram_cell`).
        let dc = tech.cell_device(spec.cell_flavor).map_err(te)?;
        let dp = tech.device(spec.peri_flavor).map_err(te)?;
        if spec.peri_flavor.is_dram() {
            return Err(SramError::Technology(format!(
                "peripheral flavour {} is a DRAM flavour; use itrs-hp, itrs-lstp or itrs-lop",
                spec.peri_flavor
            )));
        }
        let f = tech.feature_size.m();
        let per_bank = (spec.capacity_bytes / spec.banks as u64) as f64;
        let block = spec.block_bytes as f64;
        let assoc = spec.associativity;
        let tag_bits = spec
            .tag_bits
            .map(|t| t.div_ceil(4) * 4)
            .unwrap_or_else(|| tag_bits_default(spec.capacity_bytes, assoc, spec.banks));
        let (bits_per_set, out_bits) = match kind {
            ArrayKind::Data => (block * 8.0 * assoc as f64, spec.output_width_bits),
            ArrayKind::Tag => ((tag_bits * assoc) as f64, tag_bits * assoc),
        };
        let is_dram = spec.cell_flavor.is_dram() && kind == ArrayKind::Data;
        let (rw, rd, wr) = (
            spec.rw_ports as f64,
            spec.rd_ports as f64,
            spec.wr_ports as f64,
        );
        // CACTI parameter.cc: each port beyond the first adds two local-wire pitches to the
        // cell width (bitline pair) and height (wordline); DRAM cells are single-ported.
        let pitch_l = tech.wires.local.pitch.m();
        let extra = rw - 1.0 + rd + wr;
        let (b_w, b_h, w_acc, w_pd, w_pu, vdd_c, dram_c) = if is_dram {
            let dcell = tech.dram_cells.get(&spec.cell_flavor).ok_or_else(|| {
                SramError::Technology(format!(
                    "no {} cell parameters at {} nm",
                    spec.cell_flavor, tech.node_nm
                ))
            })?;
            let bw = (dcell.area.0 / dcell.aspect_ratio).sqrt();
            (
                bw,
                bw * dcell.aspect_ratio,
                dcell.access_width.0,
                0.0,
                0.0,
                dcell.vdd_cell.0,
                dcell.storage_c.0,
            )
        } else {
            let c = &tech.sram_cell;
            (
                c.width.0,
                c.height.0,
                c.access_width.0,
                c.pull_down_width.0,
                c.pull_up_width.0,
                dc.vdd.0,
                0.0,
            )
        };
        let (cell_w, cell_h) = if is_dram {
            (b_w, b_h)
        } else {
            (b_w + 2.0 * pitch_l * extra, b_h + 2.0 * pitch_l * extra)
        };
        let c_l = tech.wires.local.c_per_length.0;
        let r_l = tech.wires.local.r_per_length.0;
        // Wordline wire: the cell's `wordline_layer` (local in CACTI; the 2x semi-global layer
        // at the FinFET node, see `regwatt_tech::WireLayer` and tech/nodes/12nm.toml).
        let wl_wire = tech.wires.layer(tech.sram_cell.wordline_layer);
        let (r_wlw, c_wlw) = (wl_wire.r_per_length.0, wl_wire.c_per_length.0);
        let c_s = tech.wires.semi_global.c_per_length.0;
        let r_s = tech.wires.semi_global.r_per_length.0;
        let pitch_s = tech.wires.semi_global.pitch.0;
        let vdd_p = dp.vdd.0;
        let cg_c = gate_c_per_w(dc);
        let cg_p = gate_c_per_w(dp);
        // CACTI subarray.cc compute_C: wordline = 2 access gates + wordline wire per cell;
        // bitline = half an access drain (shared contact) + local wire per cell.
        let c_wl_cell = if is_dram { 1.0 } else { 2.0 } * cg_c * w_acc + cell_w * c_wlw;
        let c_bl_cell = drain_c(dc, w_acc, f) / 2.0 + cell_h * c_l;
        // CACTI parameter.cc: V_b_sense = max(0.05 Vdd_cell, VBITSENSEMIN).
        let vbs = if is_dram {
            VBITSENSEMIN
        } else {
            (0.05 * vdd_c).max(VBITSENSEMIN)
        };
        // CACTI parameter.cc TechnologyParameter::init transistor widths, drawn in F; at a
        // FinFET node each is a whole number of fins (issue 26,
        // `Technology::transistor_width`): the minimum device is one fin.
        let q = |drawn: f64| tech.transistor_width(regwatt_tech::units::Length(drawn)).0;
        let p2n = dp.n_to_p_drive_ratio;
        let min_w = q(1.5 * f);
        let w_pre = q(6.0 * p2n * 1.5 * f);
        let w_eq = q(p2n * 1.5 * f);
        let w_bmux = q(6.0 * 1.5 * f);
        let w_samux = q(6.0 * 1.5 * f);
        let w_iso = q(12.5 * f);
        let w_sn = q(3.75 * f);
        let w_sp = q(7.5 * f);
        let w_sen = q(5.0 * f);
        let w_p_min = q(p2n * (1.5 * f));
        let c_bmux = drain_c(dp, w_bmux, f);
        let c_iso = drain_c(dp, w_iso, f);
        let c_latch = cg_p * (w_sp + w_sn) + drain_c(dp, w_sn, f) + drain_c(dp, w_sp, f);
        let c_samux = drain_c(dp, w_samux, f);
        // CACTI mat.cc compute_sa_delay: tau = C_ld / gm, delay = tau ln(Vdd / V_b_sense),
        // energy C_ld Vdd², gm of the latch from mobility, C_ox, W/L and Vdsat.
        let c_sa_ld = c_latch + c_iso + c_samux;
        let gmn = dp.mobility_n / 2.0 * dp.c_ox.0 * (w_sn / dp.l_elec.0) * dp.vdsat.0;
        let gm = gmn * (1.0 + dp.gmp_to_gmn_multiplier);
        let t_sa = if gm > 0.0 {
            c_sa_ld / gm * (vdd_p / vbs).ln()
        } else {
            tech.sense_amp.delay.0
        };
        let e_sa = c_sa_ld * vdd_p * vdd_p;
        // Unit inverter (CACTI kinv/FO4 in parameter.cc).
        let r0 = dp.r_nch_on.0 / min_w;
        let c0 = cg_p * (min_w + w_p_min);
        let cp = drain_c(dp, min_w, f) + drain_c(dp, w_p_min, f);
        let t_fo4 = 0.69 * r0 * (cp + STAGE_EFFORT * c0);
        let cd_per_w_p =
            dp.c_junc.0 * 3.0 * f + dp.c_junc_sidewall.0 + dp.c_fringe.0 + dp.c_overlap.0;
        // Cell read current path: access + pull-down in series (CACTI mat.cc tau).
        let r_cell = dc.r_nch_on.0 / w_acc
            + if is_dram {
                0.0
            } else {
                dc.r_nch_on.0 / w_pd.max(1e-12)
            };
        let r_pre = dp.r_pch_on.0 / w_pre;
        // CACTI mat.cc leakage of an SRAM cell: two inverters ((n + p) / 2 each) plus one
        // access transistor per RW/W port and a 2-stack per read port.
        let ioff_c = dc.i_off_n.0;
        let ig_c = dc.i_g_on_n.0;
        let (p_cell, pg_cell) = if is_dram {
            let dcell = &tech.dram_cells[&spec.cell_flavor];
            (dcell.i_off_worst.0 * w_acc * vdd_c, 0.0)
        } else {
            (
                vdd_c
                    * ((w_pd + w_pu) * ioff_c
                        + w_acc * ioff_c * (rw + wr)
                        + w_acc * ioff_c * STACK2_FACTOR * rd),
                vdd_c * ((w_pd + w_pu) * ig_c / 2.0 + w_acc * ig_c * rd),
            )
        };
        let p_cell_inv = if is_dram {
            0.0
        } else {
            vdd_c * (w_pd + w_pu) * ioff_c
        };
        let ioff_p = dp.i_off_n.0;
        let ig_p = dp.i_g_on_n.0;
        let inv_leak_per_w = 0.5 * ioff_p * vdd_p;
        let inv_gleak_per_w = 0.5 * ig_p * vdd_p;
        // CACTI mat.cc compute_sa_delay: idle sense amp leaks through the enable transistor.
        let sa_leak = w_sen * ioff_p * vdd_p;
        let sa_gleak = (w_sn + w_sp + w_iso) * ig_p * vdd_p * 0.5;
        let wire = rep_wire(r_s, c_s, r0, c0, cp, vdd_p, min_w + w_p_min, ioff_p, ig_p);
        // CACTI htree2.cc: every branch node of an intra-bank H-tree is a gate sized like the
        // wire's repeater: a NAND2 in the address and data-in trees (`input_nand`; n-width
        // s (1 + p) / (2 + p) so its input matches a repeater, driving the two branch
        // repeaters), a tristate buffer (NAND + NOR + output stage, `output_buffer`) in the
        // data-out tree, modelled as two such stages. Delay = Horowitz step response to the
        // gate threshold, tau ln(Vdd / Vth).
        let (t_node_in, e_node_in) = {
            let s = wire.size.max(1.0);
            let ns = (s * (1.0 + p2n) / (2.0 + p2n)).max(1.0);
            let c_out = 2.0 * drain_c(dp, ns * min_w, f) + 2.0 * s * c0;
            let tc = 2.0 * (r0 / ns) * c_out;
            let vs = (dp.vth.0 / vdd_p).clamp(0.05, 0.95);
            let e = 0.5
                * (2.0 * drain_c(dp, p2n * ns * min_w, f)
                    + drain_c(dp, ns * min_w, f)
                    + 2.0 * s * c0)
                * vdd_p
                * vdd_p;
            (tc * (1.0 / vs).ln(), e)
        };
        let (t_node_out, e_node_out) = (2.0 * t_node_in, 2.0 * e_node_in);
        let lp = LAYOUT_PITCH_F * f / tech.width_per_footprint;
        let gap = 5.0 * f; // CACTI MIN_GAP_BET_P_AND_N_DIFFS
        let ports_all = rw + rd + wr;
        let ecc = |x: f64| if spec.ecc { x + fceil(x / 8.0) } else { x };
        let (n_din, n_dout) = match kind {
            ArrayKind::Data => {
                let extra_way = if assoc > 1 { assoc as f64 } else { 0.0 };
                (ecc(out_bits as f64 + extra_way), ecc(out_bits as f64))
            }
            ArrayKind::Tag => (ecc(tag_bits as f64), ecc(assoc as f64)),
        };
        Ok(Prep {
            h_pre: (rw + rd) * ((2.0 * w_pre + w_eq) * lp / cell_w + gap),
            h_bmux: ports_all * 2.0 * w_bmux * lp / cell_w,
            h_sa: (2.0 * w_iso + 2.0 * w_sn + 2.0 * w_sp + w_sen) * lp / cell_w,
            h_samux: 2.0 * w_samux * lp / cell_w,
            h_wd: 4.0 * w_bmux * lp / cell_w,
            n_din,
            n_dout,
            t_node_in,
            t_node_out,
            e_node_in,
            e_node_out,
            kind,
            sets_per_bank: per_bank / (block * assoc as f64),
            bits_per_set,
            assoc,
            out_bits,
            tag_bits,
            ecc: spec.ecc,
            banks: spec.banks,
            ports_rw: rw,
            ports_rd: rd,
            ports_wr: wr,
            nspd_min: spec.output_width_bits as f64 / (block * 8.0),
            ln_sense: (vdd_c / (vdd_c - vbs)).ln(),
            f,
            lp,
            vdd_c,
            vdd_p,
            vth_c: dc.vth.0,
            is_dram,
            cell_w,
            cell_h,
            c_wl_cell,
            c_bl_cell,
            r_l,
            r_wlw,
            c_s,
            r_s,
            pitch_s,
            vbs,
            cg_p,
            cd_per_w_p,
            min_w,
            p2n,
            c0,
            r0,
            t_fo4,
            c_bmux,
            c_iso,
            c_latch,
            c_samux,
            e_sa,
            t_sa,
            c_pre_per_col: cg_p * (2.0 * w_pre + w_eq) + cell_w * c_s,
            r_cell,
            r_pre,
            p_cell,
            p_cell_inv,
            pg_cell,
            inv_leak_per_w,
            inv_gleak_per_w,
            sa_leak,
            sa_gleak,
            w_bmux,
            w_samux,
            wire,
            dram_c_storage: dram_c,
        })
    }

    /// Delay of a logical-effort driver chain from a unit inverter to `c_load`
    /// (Sutherland-Sproull-Harris: N = ln(C_load / C_in) / ln 4 stages of ~one FO4 each).
    fn chain_delay(&self, c_load: f64) -> f64 {
        let n = ((c_load / self.c0).max(1.0).ln() / STAGE_EFFORT.ln()).max(1.0);
        n * self.t_fo4
    }

    /// Evaluates one organisation; `None` if CACTI's rules reject it.
    pub fn eval(&self, org: &Organisation) -> Option<Raw> {
        let st = self.row_stage(org.ndwl, org.ndbl, org.nspd)?;
        self.eval_with(&st, org)
    }

    /// The part of an organisation that does not depend on the column / sense-amp muxing
    /// (computed once per Ndwl, Ndbl, Nspd by the search).
    #[inline]
    pub fn row_stage(&self, ndwl_u: u32, ndbl_u: u32, nspd: f64) -> Option<RowStage> {
        let ndwl = ndwl_u as f64;
        let ndbl = ndbl_u as f64;
        // CACTI parameter.cc calc_subarr_rc.
        let rows = fceil(self.sets_per_bank / (ndbl * nspd));
        let cols = self.bits_per_set * nspd / ndwl;
        if cols.fract() != 0.0 {
            return None;
        }
        if !(MIN_SUBARRAY_ROWS..=MAX_SUBARRAY_ROWS).contains(&rows)
            || !(MIN_SUBARRAY_COLS..=MAX_SUBARRAY_COLS).contains(&cols)
        {
            return None;
        }
        // CACTI DynamicParameter: mats of 2 x 2 sub-arrays.
        let num_sub = ndwl * ndbl;
        let mats_h = (ndwl / 2.0).max(1.0);
        let mats_v = (ndbl / 2.0).max(1.0);
        let num_mats = mats_h * mats_v;
        let spm = num_sub / num_mats;
        let spr = ndwl / mats_h;
        // CACTI subarray.cc: ECC columns and wordline stitching.
        let cols_ecc = if self.ecc {
            cols + fceil(cols / 8.0)
        } else {
            cols
        };
        let sub_h = rows * self.cell_h;
        let sub_w = cols_ecc * self.cell_w + ffloor(cols_ecc / WL_STITCH_CELLS) * 7.5 * self.f;
        let v2 = self.vdd_p * self.vdd_p;
        // ---- wordline and row decoder (CACTI decoder.cc Decoder, Driver) ----
        let c_wl = cols_ecc * self.c_wl_cell;
        let r_wl = cols_ecc * self.cell_w * self.r_wlw;
        let w_n_drv = (c_wl / (STAGE_EFFORT * self.cg_p * (1.0 + self.p2n)))
            .clamp(self.min_w, 100.0 * self.f);
        let w_chain = w_n_drv * (1.0 + self.p2n) * STAGE_EFFORT / (STAGE_EFFORT - 1.0);
        let c_chain = w_chain * (self.cg_p + self.cd_per_w_p);
        let r_drv = self.r0 * self.min_w / w_n_drv;
        let t_wl = 0.69 * r_drv * (c_wl + w_n_drv * (1.0 + self.p2n) * self.cd_per_w_p)
            + 0.38 * r_wl * c_wl;
        // predecode: two blocks of ~log2(rows)/2 address bits, outputs running along the mat.
        // ceil(log2(rows)) for the integer row count (>= 16 here)
        let b_bits = (64 - (rows as u64 - 1).leading_zeros()).max(1);
        let b = b_bits as f64;
        let b1_bits = b_bits.div_ceil(2);
        let pow1 = (1u64 << b1_bits) as f64;
        let pow2 = (1u64 << (b_bits - b1_bits)) as f64;
        let l_pred = spr * sub_h;
        let c_nand = self.cg_p * self.min_w * (2.0 + self.p2n);
        let c_line1 = l_pred * self.c_s + spm * rows / pow1 * c_nand;
        let c_line2 = l_pred * self.c_s + spm * rows / pow2 * c_nand;
        let e_predec = (c_line1 + c_line2 + 4.0 * b * self.c0) * v2;
        let t_predec =
            self.chain_delay(c_line1.max(c_line2)) + 0.38 * self.r_s * self.c_s * l_pred * l_pred;
        let t_dec = t_predec + self.chain_delay(c_wl) + t_wl;
        // mux-independent geometry (row-decoder strip, mat width) and leakage
        let ports_all = self.ports_rw + self.ports_rd + self.ports_wr;
        let lp = self.lp;
        let gap = 5.0 * self.f; // CACTI MIN_GAP_BET_P_AND_N_DIFFS
        let w_rowdec =
            ports_all * ((w_chain + 3.0 * c_nand / self.cg_p) * lp / self.cell_h + 2.0 * gap);
        let w_pred_wires = (pow1 + pow2) * self.pitch_s * ports_all;
        let w_dec = w_pred_wires.max(spr * w_rowdec);
        let mat_w = spr * sub_w + w_dec;
        let bank_w0 = mats_h * mat_w;
        let a_cell = num_sub * sub_h * sub_w;
        let cells = num_sub * rows * cols_ecc;
        let l_cell = cells * self.p_cell;
        let g_cell = cells * self.pg_cell;
        let w_pre_drv = cols_ecc * self.c_pre_per_col / (STAGE_EFFORT * self.cg_p) * STAGE_EFFORT
            / (STAGE_EFFORT - 1.0);
        let w_dec_total = num_sub * rows * w_chain * ports_all
            + num_mats * ((pow1 + pow2) * 4.0 * self.min_w * (1.0 + self.p2n)) * ports_all;
        let l_dec = w_dec_total * self.inv_leak_per_w;
        let g_dec = w_dec_total * self.inv_gleak_per_w;
        Some(RowStage {
            levels: (ndwl_u.max(2).ilog2() - 1 + ndbl_u.max(2).ilog2() - 1) as f64,
            w_n_drv,
            w_dec,
            mat_w,
            bank_w0,
            a_cell,
            l_cell,
            g_cell,
            w_pre_drv,
            l_dec,
            g_dec,
            ndwl,
            ndbl,
            nspd,
            rows,
            cols,
            num_sub,
            mats_h,
            mats_v,
            num_mats,
            spm,
            spr,
            cols_ecc,
            sub_h,
            sub_w,
            c_wl,
            c_chain,
            b,
            e_predec,
            t_dec,
            bl_direct: self.bitline(rows, t_wl, false),
            bl_mux: self.bitline(rows, t_wl, true),
        })
    }

    /// Bitline energy, delay and restore time of a sub-array of `rows` rows (CACTI mat.cc
    /// compute_bitline_delay / compute_sa_delay): with a column mux (`muxed`) the bitline sees
    /// the mux drains and the sense-amp side is shared by Ndcm columns; without, every
    /// bitline has its own isolation, latch and mux load. Delay: tau of the cell discharging
    /// the bitline, step-input time, and the wordline ramp (Horowitz 1983 ramp-input
    /// approximation).
    #[inline]
    fn bitline(&self, rows: f64, t_wl: f64, muxed: bool) -> Bitline {
        let c_bl = rows * self.c_bl_cell;
        let r_bl = rows * self.cell_h * self.r_l;
        let (e_fixed, e_side, c_write, c_sense) = if self.is_dram {
            let c = c_bl + 2.0 * self.c_iso + self.c_latch + self.c_samux;
            (c * self.vdd_c / 2.0 * self.vdd_c, 0.0, c_bl, c)
        } else if muxed {
            let c_mux_side = 2.0 * self.c_iso + self.c_latch + self.c_samux;
            (
                (c_bl + 2.0 * self.c_bmux) * 2.0 * self.vbs * self.vdd_c,
                c_mux_side * 2.0 * self.vbs * self.vdd_c,
                c_bl + 2.0 * self.c_bmux,
                c_bl + 2.0 * self.c_bmux + c_mux_side,
            )
        } else {
            let c = c_bl + 2.0 * self.c_iso + self.c_latch + self.c_samux;
            (c * 2.0 * self.vbs * self.vdd_c, 0.0, c_bl, c)
        };
        let tau = self.r_cell * c_sense + r_bl * c_bl / 2.0;
        let t_bl = if self.is_dram {
            2.3 * self.r_cell * self.dram_c_storage * c_sense / (self.dram_c_storage + c_sense)
        } else {
            let tstep = tau * self.ln_sense;
            let m = self.vdd_c / (2.0 * t_wl).max(1e-15);
            let vov = (self.vdd_c - self.vth_c).max(0.05);
            if tstep <= 0.5 * vov / m {
                (2.0 * tstep * vov / m).sqrt()
            } else {
                tstep + vov / (2.0 * m)
            }
        };
        Bitline {
            e_fixed,
            e_side,
            c_write,
            t_bl,
            t_restore: 2.3 * self.r_pre * c_sense,
        }
    }

    /// Lower bounds of the access time and read energy ([`Raw::metrics`] with `k`) of every
    /// data-array organisation sharing this [`RowStage`], whatever its Ndcm, Ndsam1, Ndsam2;
    /// `None` when no bound is offered (tag arrays, negative coefficients). Each bound keeps
    /// only non-negative terms of [`Prep::eval_mode`] at their smallest over the mux degrees:
    /// active mats >= max(1, floor(out bits / (sub-arrays per mat x cols))) (the output bits
    /// per mat only shrink as the muxing grows), mat height >= its sub-arrays' cells, the
    /// cheaper of the direct / muxed bitline, >= 1 output bit per sub-array, address bits >=
    /// the row-decoder bits; mux decoders, sense amps, inter-bank routing dropped. The
    /// search uses them to skip organisations that another one beats on both metrics
    /// (see `search::candidates_mode`).
    pub fn lower_bounds(&self, st: &RowStage, k: &Coefficients) -> Option<(f64, f64)> {
        let ks = [
            k.logic_delay,
            k.bitline_delay,
            k.wire_delay,
            k.bitline_read_energy,
            k.decoder_energy,
            k.column_energy,
            k.htree_energy,
        ];
        if self.kind != ArrayKind::Data || ks.iter().any(|&c| c.is_nan() || c < 0.0) {
            return None;
        }
        let v2 = self.vdd_p * self.vdd_p;
        let ports_read = self.ports_rw + self.ports_rd;
        let ports_all = ports_read + self.ports_wr;
        let spm = st.spm;
        let n_lb = ffloor(self.out_bits as f64 / (spm * st.cols)).max(1.0);
        let mh_lb = (spm / st.spr) * st.sub_h;
        let l_ht = (st.bank_w0 - st.mat_w) / 2.0 + (st.mats_v * mh_lb - mh_lb) / 2.0;
        let l_bcast = (st.mats_h - 1.0) * st.mat_w + (st.mats_v - 1.0) * mh_lb;
        let levels = st.levels;
        let t_logic =
            st.t_dec + self.t_sa + 3.0 * self.t_fo4 + levels * (self.t_node_in + self.t_node_out);
        let t_bl = st.bl_direct.t_bl.min(st.bl_mux.t_bl);
        let dpm = self.wire.delay_per_m;
        let t_wire = 2.0 * l_ht * dpm + st.sub_h * dpm;
        let access = k.logic_delay * t_logic + k.bitline_delay * t_bl + k.wire_delay * t_wire;
        let e_fixed = st.bl_direct.e_fixed.min(st.bl_mux.e_fixed);
        let e_bl = e_fixed * spm * st.cols_ecc * n_lb;
        let e_row =
            st.e_predec * st.num_mats + spm * st.c_chain * v2 * n_lb + spm * st.c_wl * v2 * n_lb;
        let c_outdrv = 2.0 * self.c_samux + 3.0 * (self.c0 + self.c0);
        let e_col =
            st.cols_ecc * self.c_pre_per_col * v2 * spm * n_lb + spm * 0.5 * c_outdrv * v2 * n_lb;
        let epm = self.wire.energy_per_m;
        let e_ht = st.b * ports_all * (l_ht + l_bcast) * epm
            + levels * st.b * ports_all * self.e_node_in
            + self.n_dout * ports_read * (l_ht * epm + levels * self.e_node_out)
            + spm * st.sub_w * epm * n_lb;
        let read = k.bitline_read_energy * e_bl
            + k.decoder_energy * e_row
            + k.column_energy * e_col
            + k.htree_energy * e_ht;
        Some((access, read))
    }

    /// Finishes the evaluation of an organisation from its [`RowStage`].
    #[inline]
    pub fn eval_with(&self, st: &RowStage, org: &Organisation) -> Option<Raw> {
        self.eval_mode::<true>(st, org)
    }

    /// [`Prep::eval_with`]; with `FULL = false` only what an ED / ED² search compares (access
    /// time and read energy) is kept: write energy, leakage and area are returned as zero, so
    /// the optimiser drops their computation from the search loop.
    #[inline]
    pub fn eval_mode<const FULL: bool>(&self, st: &RowStage, org: &Organisation) -> Option<Raw> {
        let RowStage {
            ndwl,
            ndbl,
            nspd,
            rows,
            cols,
            num_sub,
            mats_h,
            mats_v,
            num_mats,
            spm,
            spr,
            cols_ecc,
            sub_h,
            sub_w,
            c_wl,
            c_chain,
            b,
            e_predec,
            t_dec,
            ..
        } = *st;
        let ndcm = org.ndcm as f64;
        let ndsam1 = org.ndsam1 as f64;
        let ndsam2 = org.ndsam2 as f64;
        let mux = ndcm * ndsam1 * ndsam2;
        // Division by a power-of-two mux degree only rescales the exponent, so it equals
        // the multiplication by the (exact) reciprocal bit for bit; the search's degrees are
        // all powers of two, other forced degrees keep the true division.
        let p2 = org.ndcm.is_power_of_two()
            && org.ndsam1.is_power_of_two()
            && org.ndsam2.is_power_of_two();
        // log2 of the mux degree (at most 93: no overflow, unlike the u32 product)
        let lg_mux =
            org.ndcm.trailing_zeros() + org.ndsam1.trailing_zeros() + org.ndsam2.trailing_zeros();
        let (inv_ndcm, inv_ndsam1, inv_mux) = if p2 {
            (
                inv_pow2(org.ndcm.trailing_zeros()),
                inv_pow2(org.ndsam1.trailing_zeros()),
                inv_pow2(lg_mux),
            )
        } else {
            (0.0, 0.0, 0.0)
        };
        let by_ndcm = |x: f64| if p2 { x * inv_ndcm } else { x / ndcm };
        let by_ndsam1 = |x: f64| if p2 { x * inv_ndsam1 } else { x / ndsam1 };
        let by_mux = |x: f64| if p2 { x * inv_mux } else { x / mux };
        if self.is_dram && ndcm > 1.0 {
            return None; // a DRAM bitline has its own sense amp
        }
        // With power-of-two Ndwl, Ndbl and mux degrees, spm x cols is an integer below 2^53
        // and the mux a power of two, so floor(spm cols / mux) is the integer shift and
        // floor(a / b) of two integers below 2^32 the integer quotient (the rounded f64
        // quotient cannot cross the next integer: 1/b > (a/b + 1) 2^-53); same values as
        // the f64 expressions without the float-to-int round trips.
        let int_ok = p2 && lg_mux < 64 && org.ndwl.is_power_of_two() && org.ndbl.is_power_of_two();
        let do_b_mat_u = if int_ok {
            ((spm * cols) as u64 >> lg_mux).max(1)
        } else {
            0
        };
        let do_b_mat = if int_ok {
            do_b_mat_u as f64
        } else {
            ffloor(by_mux(spm * cols)).max(1.0)
        };
        if do_b_mat < spm {
            return None;
        }
        let do_b_subbank = match self.kind {
            ArrayKind::Data => {
                // normal access mode: way select after the first sense-amp mux level
                if ndsam1 < self.assoc as f64 {
                    return None;
                }
                self.out_bits as f64
            }
            ArrayKind::Tag => {
                if do_b_mat < self.tag_bits as f64 {
                    return None;
                }
                (self.tag_bits * self.assoc) as f64
            }
        };
        let n_act = if int_ok {
            (do_b_subbank as u64 / do_b_mat_u) as f64
        } else {
            ffloor(do_b_subbank / do_b_mat)
        };
        if n_act < 1.0 || n_act > mats_h {
            return None;
        }
        let ecc = |x: f64| if self.ecc { x + fceil(x / 8.0) } else { x };
        let v2 = self.vdd_p * self.vdd_p;
        let ports_read = self.ports_rw + self.ports_rd;
        let ports_write = self.ports_rw + self.ports_wr;
        let ports_all = ports_read + self.ports_wr;
        // column / sense-amp mux decoders (CACTI mat.cc bit_mux_dec, sa_mux_lev_*_dec)
        let mut c_muxdec = 0.0;
        if ndcm > 1.0 {
            c_muxdec += by_ndcm(2.0 * spm * cols_ecc) * self.cg_p * self.w_bmux
                + spr * cols_ecc * self.cell_w * self.c_s;
        }
        if ndsam1 > 1.0 {
            c_muxdec += by_ndsam1(by_ndcm(spm * cols_ecc)) * self.cg_p * self.w_samux
                + spr * cols_ecc * self.cell_w * self.c_s;
        }
        if ndsam2 > 1.0 {
            c_muxdec += by_mux(spm * cols_ecc) * self.cg_p * self.w_samux
                + spr * cols_ecc * self.cell_w * self.c_s;
        }
        // CACTI mat.cc: all sub-arrays of an active mat fire a wordline.
        // The address reaches every mat and each mat's predecoders decode it (sub-bank
        // select happens at the row decoders), so predecoder energy is paid in all mats.
        let e_dec = e_predec * num_mats + (c_muxdec * v2 + spm * c_chain * v2) * n_act;
        let e_wl = spm * c_wl * v2 * n_act;

        // ---- bitlines, sense amps (mux-independent part in [`Prep::bitline`]) ----
        let bl = if ndcm > 1.0 {
            &st.bl_mux
        } else {
            &st.bl_direct
        };
        let e_bl_col = bl.e_fixed + by_ndcm(bl.e_side);
        let c_write = bl.c_write;
        let active_cols = spm * cols_ecc * n_act;
        let written_cols = by_mux(active_cols).min(active_cols);
        let e_bl_read = e_bl_col * active_cols;
        // write: selected columns full swing (CACTI: C V² x 2 per written column); the
        // half-selected columns of the open row see a read swing.
        // CACTI 7 mat.cc: written columns (active / (Ndcm Ndsam)) x num_act_mats x C V² x 2.
        let e_bl_write = written_cols * n_act * c_write * self.vdd_c * self.vdd_c * 2.0;
        let e_pre = cols_ecc * self.c_pre_per_col * v2 * spm * n_act;
        let e_sa = self.e_sa * by_ndcm(cols_ecc) * spm * n_act;
        let t_bl = bl.t_bl;
        let t_restore = bl.t_restore;

        // ---- mat output: sub-array output drivers + wire to the mat edge ----
        // x + ceil(x / 8) of an integer x below 2^53, in integers
        let do_b_mat_ecc = if int_ok && self.ecc {
            (do_b_mat_u + do_b_mat_u.div_ceil(8)) as f64
        } else {
            ecc(do_b_mat)
        };
        let c_outdrv = (ndsam1 + ndsam2) * self.c_samux + 3.0 * (self.c0 + self.c0);
        // CACTI 7 mat.cc builds the sub-array output wire with the sub-array *height*
        // (`subarray_out_wire = new Wire(g_ip->wt, subarray.area.h)`, flagged there as a bug
        // that should be the width); we follow CACTI, which this model is calibrated to.
        let l_sub_out = sub_h;
        let e_matout = do_b_mat_ecc * 0.5 * c_outdrv * v2 * n_act;
        let e_matwire = do_b_mat_ecc * sub_w * self.wire.energy_per_m * n_act;
        // write data runs the same wire to the write drivers
        let e_matwire_in = do_b_mat_ecc * sub_w * self.wire.energy_per_m * n_act;
        let t_out_logic = 3.0 * self.t_fo4;

        // ---- geometry: column periphery strip and row-decoder strip (CACTI mat.cc area) ----
        let gap = 5.0 * self.f; // CACTI MIN_GAP_BET_P_AND_N_DIFFS
                                // (per-port strip heights: `Prep::h_pre` .. `h_wd`)
        let mut h_col = self.h_pre;
        if ndcm > 1.0 {
            h_col += self.h_bmux;
        }
        h_col += ports_read * (by_ndcm(self.h_sa) + 2.0 * gap);
        if ndsam1 > 1.0 || ndsam2 > 1.0 {
            h_col += ports_read * by_ndcm(self.h_samux);
        }
        // write driver: two inverters of bit-mux size per written column group
        h_col += ports_write * by_ndcm(self.h_wd) + gap;
        // sub-array output wires: one semi-global track per output bit, stacked in the
        // column strip (CACTI mat.cc h_subarray_out_drv = wire area x outputs / width).
        let h_outw = ports_read * ecc(by_mux(cols)) * self.pitch_s;
        let RowStage {
            w_dec,
            mat_w,
            bank_w0,
            a_cell,
            l_cell,
            g_cell,
            w_pre_drv,
            l_dec,
            g_dec,
            ..
        } = *st;
        let mat_h = (spm / spr) * (sub_h + h_col + h_outw);
        let bank_h0 = mats_v * mat_h;
        let a_dec = num_mats * w_dec * mat_h;
        let a_col = num_mats * (spm / spr) * h_col * spr * sub_w;
        let a_outw = num_mats * (spm / spr) * h_outw * spr * sub_w;

        // ---- H-tree (CACTI htree2.cc): address in, data in, data out, per port ----
        let n_addr = b
            + (org.ndcm.trailing_zeros()
                + org.ndsam1.trailing_zeros()
                + org.ndsam2.trailing_zeros()) as f64
            + if int_ok {
                // num_mats = 2^a and 1 <= n_act <= num_mats: ilog2(floor(2^a / n)) =
                // a - ceil(log2 n), without the integer division
                let n = n_act as u64;
                let ceil_lg = n.ilog2() + u32::from(!n.is_power_of_two());
                ((num_mats as u64).ilog2() - ceil_lg) as f64
            } else {
                ((num_mats / n_act) as i64).max(1).ilog2() as f64
            };
        let (n_din, n_dout) = (self.n_din, self.n_dout);
        // root-to-leaf path of the H-tree from the bank centre to a mat; in an H-tree whose
        // bundles halve at each branch the total wire area per bit equals this path length.
        let l_ht = (bank_w0 - mat_w) / 2.0 + (bank_h0 - mat_h) / 2.0;
        let l_tree = l_ht;
        let wires_all = n_addr * ports_all + n_din * ports_write + n_dout * ports_read;
        // The address is broadcast over the whole tree to every mat's predecoders (each mat
        // compares its sub-bank select bits); data travels only to/from the active mats.
        let l_bcast = (mats_h - 1.0) * mat_w + (mats_v - 1.0) * mat_h;
        // CACTI bank.cc sizes the H-trees for all ports (address x all ports, data out x read
        // ports, data in x write ports) and charges the whole bus per access.
        // branch nodes on the root-to-mat path: one per level of the tree (CACTI htree2.cc
        // in_htree / out_htree loop over log2(mats) horizontal and vertical levels)
        let levels = (org.ndwl.max(2).ilog2() - 1 + org.ndbl.max(2).ilog2() - 1) as f64;
        let t_ht_nodes = levels * (self.t_node_in + self.t_node_out);
        let e_nodes_addr = levels * n_addr * ports_all * self.e_node_in;
        let e_addr = n_addr * ports_all * (l_ht + l_bcast) * self.wire.energy_per_m;
        let mut e_ht_read = e_addr
            + e_nodes_addr
            + n_dout * ports_read * (l_ht * self.wire.energy_per_m + levels * self.e_node_out);
        let mut e_ht_write = e_addr
            + e_nodes_addr
            + n_din * ports_write * (l_ht * self.wire.energy_per_m + levels * self.e_node_in);
        let mut t_ht = l_ht * self.wire.delay_per_m;
        let mut a_ht = wires_all * self.pitch_s * l_tree + a_outw;
        let mut l_ht_leak = wires_all * l_tree;
        // inter-bank routing of a UCA: banks on a near-square grid, one H-tree to all banks.
        if self.banks > 1 {
            // CACTI uca.cc: banks on a grid, more of them stacked vertically when a bank is
            // taller than wide; one inter-bank H-tree (htree2.cc in_htree with uca_tree)
            // whose size includes the routed bundles of all address and data wires.
            let nb = self.banks as f64;
            let lg = self.banks.ilog2();
            let v_lg = if bank_h0 > bank_w0 {
                lg / 2
            } else {
                lg - lg / 2
            };
            let nbv = (1u32 << v_lg) as f64;
            let nbh = nb / nbv;
            let n_addr_b = n_addr + lg as f64;
            let wires_b = n_addr_b * ports_all + n_din * ports_write + n_dout * ports_read;
            let (h, v) = ((lg - v_lg) as i32, v_lg as i32);
            let bundle = wires_b * self.pitch_s;
            let half_pow = |n: i32| 1.0 / (1u64 << n) as f64; // 0.5^n, exact
            let ht_half = (bank_h0 * nbv + bundle * 2.0 * (1.0 - half_pow(h))) / 2.0;
            let len_half = (bank_w0 * nbh + bundle * 2.0 * (1.0 - half_pow(v))) / 2.0;
            // root-to-bank path: CACTI's loop over the horizontal / vertical links
            let l_b = {
                let (mut h, mut v, mut len, mut ht, mut l) = (h, v, len_half, ht_half / 2.0, 0.0);
                while h > 0 || v > 0 {
                    if h > v {
                        l += len;
                        len /= 2.0;
                        h -= 1;
                    } else if h > 0 && v > 0 {
                        l += len + ht;
                        len /= 2.0;
                        ht /= 2.0;
                        h -= 1;
                        v -= 1;
                    } else {
                        l += ht;
                        ht /= 2.0;
                        v -= 1;
                    }
                }
                l
            };
            let e_addr_b = n_addr_b * ports_all * l_b * self.wire.energy_per_m;
            e_ht_read += e_addr_b + n_dout * ports_read * l_b * self.wire.energy_per_m;
            e_ht_write += e_addr_b + n_din * ports_write * l_b * self.wire.energy_per_m;
            t_ht += l_b * self.wire.delay_per_m;
            // area: the whole UCA is the tree's bounding box; each bank carries its share of
            // what exceeds the banks themselves.
            let a_uca = 4.0 * ht_half * len_half;
            a_ht += (a_uca / nb - bank_w0 * bank_h0).max(0.0);
            // CACTI reports per-bank leakage including the UCA-level routing repeaters.
            l_ht_leak += wires_b * l_b;
        }

        // ---- leakage of one bank ----
        let n_sa = by_ndcm(num_sub * cols_ecc) * ports_read;
        let w_col_total = num_sub * w_pre_drv * ports_read
            + num_sub * by_mux(cols_ecc) * 2.0 * self.min_w * (1.0 + self.p2n) * ports_read;
        let l_col = w_col_total * self.inv_leak_per_w + n_sa * self.sa_leak;
        let g_col = w_col_total * self.inv_gleak_per_w + n_sa * self.sa_gleak;
        let l_ht = l_ht_leak * self.wire.leak_per_m;
        let g_ht = l_ht_leak * self.wire.gate_leak_per_m;
        // lean mode: zero what the ED / ED² selection never reads
        let z = |x: f64| if FULL { x } else { 0.0 };
        let (e_bl_write, e_ht_write, e_matwire_in) =
            (z(e_bl_write), z(e_ht_write), z(e_matwire_in));
        let (l_cell, l_dec, l_col, l_ht, g_cell, g_dec, g_col, g_ht) = (
            z(l_cell),
            z(l_dec),
            z(l_col),
            z(l_ht),
            z(g_cell),
            z(g_dec),
            z(g_col),
            z(g_ht),
        );
        let (a_cell, a_dec, a_col, a_ht) = (z(a_cell), z(a_dec), z(a_col), z(a_ht));

        // ---- tag comparators (CACTI mat.cc compute_comparator_delay) ----
        let (e_comp, t_comp) = if self.kind == ArrayKind::Tag {
            let a = self.assoc as f64;
            let tb = self.tag_bits as f64;
            let c_stage = self.cg_p * (15.0 + 25.0 + 30.0 + 50.0 + 50.0 + 100.0) * self.f;
            let c_bits = tb * a * (self.cg_p + self.cd_per_w_p) * (12.5 + 37.5) * self.f;
            (
                (0.5 * c_stage * 4.0 * a + c_bits) * v2,
                (3.0 + tb.log2()) * self.t_fo4,
            )
        } else {
            (0.0, 0.0)
        };

        Some(Raw {
            org: [ndwl, ndbl, nspd, ndcm, ndsam1, ndsam2],
            rows,
            cols,
            cols_ecc,
            sub_h,
            sub_w,
            num_sub,
            num_mats,
            n_act,
            e_dec,
            e_wl,
            e_bl_read,
            e_bl_write,
            e_pre,
            e_sa,
            e_matout,
            e_ht_read: e_ht_read + e_matwire,
            e_ht_write: e_ht_write + e_matwire_in,
            e_comp,
            l_cell,
            l_dec,
            l_col,
            l_ht,
            g_cell,
            g_dec,
            g_col,
            g_ht,
            a_cell,
            a_dec,
            a_col,
            a_ht,
            bank_h: bank_h0,
            bank_w_cells: bank_w0,
            t_ht_in: t_ht,
            t_dec,
            t_bl,
            t_sa: self.t_sa,
            t_out_logic,
            t_out_wire: l_sub_out * self.wire.delay_per_m + t_ht,
            t_comp,
            t_restore,
            t_ht_nodes,
            w_wl_drv_n: st.w_n_drv,
            p2n: self.p2n,
            c_bitline: rows * self.c_bl_cell,
            l_cell_inv: num_sub * rows * cols_ecc * self.p_cell_inv,
        })
    }
}

impl Raw {
    /// Row-path energy (decoders, wordline drivers, wordlines), read or write.
    pub fn e_row(&self) -> f64 {
        self.e_dec + self.e_wl
    }
    /// Column-path energy of a read (precharge, sense amps, mat output, comparators).
    pub fn e_col_read(&self) -> f64 {
        self.e_pre + self.e_sa + self.e_matout + self.e_comp
    }
    /// Column-path energy of a write (precharge, comparators).
    pub fn e_col_write(&self) -> f64 {
        self.e_pre + self.e_comp
    }
    /// Logic part of the access time.
    pub fn t_logic(&self) -> f64 {
        self.t_dec + self.t_sa + self.t_out_logic + self.t_comp + self.t_ht_nodes
    }
    /// Wire part of the access time.
    pub fn t_wire(&self) -> f64 {
        self.t_ht_in + self.t_out_wire
    }

    /// Applies the coefficients.
    #[inline]
    pub fn metrics(&self, k: &Coefficients) -> Metrics {
        let read = k.bitline_read_energy * self.e_bl_read
            + k.decoder_energy * self.e_row()
            + k.column_energy * self.e_col_read()
            + k.htree_energy * self.e_ht_read;
        let write = k.bitline_write_energy * self.e_bl_write
            + k.decoder_energy * self.e_row()
            + k.column_energy * self.e_col_write()
            + k.htree_energy * self.e_ht_write;
        let access = k.logic_delay * self.t_logic()
            + k.bitline_delay * self.t_bl
            + k.wire_delay * self.t_wire();
        let cycle = k.logic_delay * (self.t_dec + self.t_sa)
            + k.bitline_delay * (self.t_bl + self.t_restore);
        Metrics {
            access,
            cycle,
            read,
            write,
            leak: k.cell_leakage * self.l_cell
                + k.periphery_leakage * (self.l_dec + self.l_col + self.l_ht),
            gate_leak: k.cell_gate_leakage * self.g_cell
                + k.periphery_gate_leakage * (self.g_dec + self.g_col + self.g_ht),
            area_bank: self.a_cell
                + k.periphery_area * (self.a_dec + self.a_col)
                + k.htree_area * self.a_ht,
        }
    }
}

/// Chooses repeater size and spacing for a semi-global wire: the energy-minimal design whose
/// delay is within 30% of the delay-optimal repeated wire (CACTI "Global_30";
/// Bakoglu 1990 optimum `s = sqrt(R0 c / (r C0))`, `l = sqrt(2 R0 (C0 + Cp) / (r c))`).
#[allow(clippy::too_many_arguments)]
fn rep_wire(
    r: f64,
    c: f64,
    r0: f64,
    c0: f64,
    cp: f64,
    vdd: f64,
    w_unit: f64,
    ioff: f64,
    ig: f64,
) -> RepWire {
    let s_opt = (r0 * c / (r * c0)).sqrt();
    let l_opt = (2.0 * r0 * (c0 + cp) / (r * c)).sqrt();
    let delay = |s: f64, l: f64| {
        (0.69 * r0 / s * (s * (c0 + cp) + c * l) + r * l * (0.38 * c * l + 0.69 * s * c0)) / l
    };
    let energy = |s: f64, l: f64| (c + s * (c0 + cp) / l) * vdd * vdd;
    let d_opt = delay(s_opt, l_opt);
    let mut best = (s_opt, l_opt, energy(s_opt, l_opt));
    for si in 1..=20 {
        let s = s_opt * si as f64 / 20.0;
        // the energy only falls as the spacing grows (rounding is monotone too), so when
        // even the longest spacing cannot beat the best, no spacing of this size can
        if energy(s, l_opt * (1.0 + 30.0 * 0.1)) >= best.2 {
            continue;
        }
        for li in 0..=30 {
            let l = l_opt * (1.0 + li as f64 * 0.1);
            // same choice as testing the delay first: only a lower energy can replace
            // the best, and the delay is the dearer test
            let e = energy(s, l);
            if e < best.2 && delay(s, l) <= 1.3 * d_opt {
                best = (s, l, e);
            }
        }
    }
    let (s, l, e) = best;
    RepWire {
        size: s,
        energy_per_m: e,
        delay_per_m: delay(s, l),
        leak_per_m: s * w_unit / l * 0.5 * ioff * vdd,
        gate_leak_per_m: s * w_unit / l * 0.5 * ig * vdd,
    }
}

/// True when the flavour is a DRAM cell flavour the model treats as 1T1C.
#[allow(dead_code)]
pub fn is_dram(f: DeviceFlavor) -> bool {
    f.is_dram()
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_tech::units::Temperature;

    #[test]
    fn default_tag_bits_like_cacti() {
        // 16 KB, 4-way, 1 bank: 42 + 5 - 14 + floor(log2 7) = 35 -> 36.
        assert_eq!(tag_bits_default(16384, 4, 1), 36);
        // 64 KB 8-way 1 bank: 47 - 16 + 3 = 34 -> 36
        assert_eq!(tag_bits_default(65536, 8, 1), 36);
    }

    #[test]
    fn cacti_subarray_geometry_90nm() {
        // CACTI reference row ram_hp_90nm_256B_b4_1RW0R0W_bk1: Ndwl 2, Ndbl 2, Nspd 1,
        // subarray 0.042048 mm x 0.016875 mm.
        let tech = Technology::for_node(90.0, Temperature::from_k(360.0)).unwrap();
        let mut spec = SramSpec::ram(256, 4, 90.0);
        spec.output_width_bits = 32;
        let p = Prep::new(&spec, &tech, ArrayKind::Data).unwrap();
        let org = Organisation {
            ndwl: 2,
            ndbl: 2,
            nspd: 1.0,
            ndcm: 2,
            ndsam1: 1,
            ndsam2: 1,
        };
        let r = p.eval(&org).unwrap();
        assert_eq!(r.rows, 32.0);
        assert_eq!(r.cols, 16.0);
        assert_eq!(r.cols_ecc, 18.0);
        assert!((r.sub_h * 1e3 - 0.042048).abs() < 1e-9, "{}", r.sub_h);
        assert!((r.sub_w * 1e3 - 0.016875).abs() < 1e-9, "{}", r.sub_w);
        assert_eq!(r.n_act, 1.0);
    }

    #[test]
    fn rejects_rules() {
        let tech = Technology::for_node(45.0, Temperature::from_k(360.0)).unwrap();
        let spec = SramSpec::ram(4096, 16, 45.0);
        let p = Prep::new(&spec, &tech, ArrayKind::Data).unwrap();
        // 256 sets / (Ndbl 32) = 8 rows < 16
        let org = Organisation {
            ndwl: 2,
            ndbl: 32,
            nspd: 1.0,
            ndcm: 1,
            ndsam1: 1,
            ndsam2: 1,
        };
        assert!(p.eval(&org).is_none());
        // too much muxing: 4 x 64 cols / 128 = 2 bits per mat < 4 subarrays
        let org = Organisation {
            ndwl: 2,
            ndbl: 2,
            nspd: 1.0,
            ndcm: 128,
            ndsam1: 1,
            ndsam2: 1,
        };
        assert!(p.eval(&org).is_none());
    }

    #[test]
    fn repeated_wire_is_sane() {
        // at 45 nm a semi-global repeated wire: ~50-200 ps/mm
        let tech = Technology::for_node(45.0, Temperature::from_k(360.0)).unwrap();
        let spec = SramSpec::ram(4096, 16, 45.0);
        let p = Prep::new(&spec, &tech, ArrayKind::Data).unwrap();
        let ps_per_mm = p.wire.delay_per_m * 1e-3 * 1e12;
        assert!(ps_per_mm > 20.0 && ps_per_mm < 500.0, "{ps_per_mm}");
        let fj_per_mm = p.wire.energy_per_m * 1e-3 * 1e15;
        assert!(fj_per_mm > 50.0 && fj_per_mm < 1000.0, "{fj_per_mm}");
    }
}
