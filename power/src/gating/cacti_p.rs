//! CACTI-P power gating beyond the cell-array sleep transistors: wordline-driver sleep
//! transistors, bitline floating, interconnect (H-tree repeater) gating, and the gated
//! ("sleep") leakage of a bank as CACTI 7 prints it.
//!
//! Sources: Li, Li, Chen, Jouppi, Muralimanohar, "CACTI-P: Architecture-level modeling for
//! SRAM-based structures with advanced leakage reduction techniques", ICCAD 2011 (sleep
//! transistors in a distributed network, bitline floating, wordline and peripheral gating);
//! the CACTI 7 implementation (github HewlettPackard/cacti):
//! - `decoder.cc` `Decoder::compute_widths` / `compute_power_gating` and `basic_circuit.cc`
//!   `logical_effort`: the wordline driver chain and its one shared header;
//! - `subarray.cc`: wordline and bitline capacitances;
//! - `mat.cc` `compute_bitline_delay`: cell leakage with array gating and bitline floating,
//!   `blfloating_c`, `blfloating_wakeup_t`, `blfloating_wakeup_e`;
//! - `mat.cc` `compute_power_energy`: decoder leakage × `Vcc_min / Vdd` with wordline gating,
//!   `wl_sleep_tx_area`, `wl_wakeup_e`, `wl_wakeup_t`;
//! - `technology.cc`: the device widths of the column circuits (`w_iso`, `w_sense_n`,
//!   `w_sense_p`, `w_nmos_sa_mux`, `w_nmos_b_mux`, `w_pmos_bl_precharge`), `h_dec`,
//!   `max_w_nmos_dec`;
//! - `decoder.cc` / `wire.cc` `power_gated_leakage = I_leak · Vcc_min,peri` for repeated
//!   logic (the interconnect gating of CACTI-P).
//!
//! Voltages (reference README, "CACTI facts"): array gating holds the cells at
//! `Vcc_min = 0.65 V_dd`; wordline (and interconnect) gating holds the peripheral rail at
//! `Vcc_min,peri = 0.35 V_dd`; bitline floating lets the bitlines float to
//! `V_bitfloating = 0.7 V_bitpre`, with `V_bitpre = V_dd,cell` for an SRAM.

use super::circuit::{drain_c, gate_area, gate_c, Fold, GateType, STACK_FACTOR};
use super::{header_sleep_tx, GatingError, GatingTech, HeaderSpec, ILINEAR_TO_ISAT_RATIO};
use crate::sram::LeakageBreakdown;
use regwatt_tech::units::{Area, Capacitance, Current, Energy, Length, Power, Time, Voltage};
use serde::Serialize;

/// Cell retention rail with array gating, as a fraction of the cell V_dd (CACTI-P; reference
/// README: "array gating scales cell leakage to 0.65 Vdd").
pub const CELL_VCCMIN_FRACTION: f64 = 0.65;
/// Peripheral rail with wordline / interconnect gating, as a fraction of the peripheral V_dd
/// (CACTI-P; reference README: "wordline gating [scales] decoder leakage to 0.35 Vdd").
pub const PERI_VCCMIN_FRACTION: f64 = 0.35;
/// Floating bitline level as a fraction of the precharge level (CACTI 7 `technology.cc`
/// `Vbitfloating = 0.7 Vbitpre`; reference README).
pub const BITLINE_FLOAT_FRACTION: f64 = 0.7;
/// Optimal stage effort of CACTI's logical-effort driver sizing (`const.h` `fopt`).
pub const FOPT: f64 = 4.0;
/// Height of a row-decoder/driver cell in cell heights (CACTI 7 `technology.cc` `h_dec`, SRAM).
pub const H_DEC: f64 = 4.0;
/// Largest decoder NMOS width in F (CACTI 7 `technology.cc`: `max_w_nmos_dec = max_w_nmos_ =
/// 100 F` for SRAM).
pub const MAX_W_NMOS_DEC_F: f64 = 100.0;
/// Sense-amp isolation PMOS width in F (CACTI 7 `technology.cc` `w_iso = 12.5 F`).
pub const W_ISO_F: f64 = 12.5;
/// Sense-amp latch NMOS width in F (CACTI 7 `technology.cc` `w_sense_n = 3.75 F`).
pub const W_SENSE_N_F: f64 = 3.75;
/// Sense-amp latch PMOS width in F (CACTI 7 `technology.cc` `w_sense_p = 7.5 F`).
pub const W_SENSE_P_F: f64 = 7.5;
/// Bit-line and sense-amp mux NMOS widths in minimum NMOS widths (CACTI 7 `technology.cc`
/// `w_nmos_b_mux = w_nmos_sa_mux = 6 min_w_nmos`).
pub const MUX_W_MIN: f64 = 6.0;
/// Bitline precharge PMOS width in (p/n ratio × minimum NMOS widths) (CACTI 7
/// `technology.cc` `w_pmos_bl_precharge = 6 · p_to_n · min_w_nmos`).
pub const PRECHARGE_W_MIN: f64 = 6.0;

/// Which CACTI-P techniques are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PgSwitches {
    /// Cell-array sleep transistors (cells held at `Vcc_min`).
    pub array: bool,
    /// Wordline-driver / decoder sleep transistors.
    pub wordline: bool,
    /// Column-circuit gating (CACTI 7 computes no effect of it on the printed leakage).
    pub column: bool,
    /// Bitline floating (access transistors see `V_bitfloating` instead of `V_dd`).
    pub bitline_floating: bool,
    /// H-tree repeater gating.
    pub interconnect: bool,
}

/// The organisation facts the CACTI-P figures need (all public in
/// [`crate::sram::ArrayResult`] / [`crate::sram::Organisation`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArrayShape {
    /// Rows per sub-array.
    pub rows: u32,
    /// Columns per sub-array including ECC columns.
    pub cols: u32,
    /// Sub-arrays per bank.
    pub num_subarrays: u32,
    /// Mats per bank.
    pub num_mats: u32,
    /// Mats activated per access (CACTI `num_act_mats_hor_dir`).
    pub active_mats: u32,
    /// Bitline mux degree (CACTI `deg_bl_muxing` = Ndcm).
    pub bitline_mux: u32,
    /// Read-write ports.
    pub rw_ports: u32,
    /// Exclusive read ports.
    pub rd_ports: u32,
    /// Exclusive write ports.
    pub wr_ports: u32,
}

impl ArrayShape {
    fn check(&self) -> Result<(), GatingError> {
        for (v, name) in [
            (self.rows, "rows"),
            (self.cols, "cols"),
            (self.num_subarrays, "num_subarrays"),
            (self.num_mats, "num_mats"),
            (self.active_mats, "active_mats"),
            (self.bitline_mux, "bitline_mux"),
        ] {
            if v == 0 {
                return Err(GatingError::Zero(name));
            }
        }
        if self.rw_ports + self.rd_ports + self.wr_ports == 0 {
            return Err(GatingError::Zero("ports"));
        }
        Ok(())
    }

    /// Sub-arrays per mat (CACTI `num_subarrays_per_mat`).
    pub fn subarrays_per_mat(&self) -> f64 {
        self.num_subarrays as f64 / self.num_mats as f64
    }

    /// Read ports of the column circuits (CACTI `RWP + ERP`; at least 1).
    fn read_ports(&self) -> f64 {
        (self.rw_ports + self.rd_ports).max(1) as f64
    }
}

fn per_um(c_per_um: f64, l: Length) -> Capacitance {
    Capacitance::from_f(c_per_um * l.um())
}

/// Wordline capacitance of one sub-array row (CACTI 7 `subarray.cc`): per cell the gates of
/// the two access transistors plus the wordline wire across the cell,
/// `C_wl = cols · (2 C_g(W_acc) + w_cell · c_wl)`, `c_wl` of the wordline layer (local in
/// CACTI; see `regwatt_tech::WireLayer`).
pub fn wordline_capacitance(gt: &GatingTech, cols: u32) -> Capacitance {
    (gate_c(&gt.cell_dev, gt.cell_access_w) * 2.0 + per_um(gt.wordline_wire_c_per_um, gt.cell_w))
        * cols as f64
}

/// Bitline capacitance of one sub-array column (CACTI 7 `subarray.cc`): per row half an
/// access-transistor drain (the contact is shared by two cells) folded to the cell width,
/// plus the local wire along the cell, `C_bl = rows · (C_d(W_acc)/2 + h_cell · c_local)`.
pub fn bitline_capacitance(gt: &GatingTech, rows: u32) -> Capacitance {
    let cd = drain_c(
        &gt.cell_dev,
        &gt.layout,
        gt.cell_access_w,
        true,
        1,
        Fold::Width(gt.cell_w),
        gt.local_wire_c_per_um,
    );
    (cd * 0.5 + per_um(gt.local_wire_c_per_um, gt.cell_h)) * rows as f64
}

/// A wordline driver: NAND2 then inverters (CACTI 7 `Decoder`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DriverChain {
    /// Load driven (the wordline).
    pub load: Capacitance,
    /// NMOS width of each stage (stage 0 = the NAND2).
    pub nmos: Vec<Length>,
    /// PMOS width of each stage.
    pub pmos: Vec<Length>,
}

impl DriverChain {
    /// Sum of the NMOS widths (CACTI `total_driver_nwidth`).
    pub fn total_nmos(&self) -> Length {
        self.nmos.iter().fold(Length::from_um(0.0), |a, w| a + *w)
    }
    /// Sum of the PMOS widths (CACTI `total_driver_pwidth`).
    pub fn total_pmos(&self) -> Length {
        self.pmos.iter().fold(Length::from_um(0.0), |a, w| a + *w)
    }
    /// Layout area of the chain in a strip `h` high (CACTI `Decoder::compute_area`).
    pub fn area(&self, gt: &GatingTech, h: Length) -> Area {
        self.nmos
            .iter()
            .zip(&self.pmos)
            .enumerate()
            .map(|(i, (n, p))| gate_area(&gt.layout, if i == 0 { 2 } else { 1 }, *n, *p, h))
            .fold(Area::ZERO, |a, b| a + b)
    }
}

fn even_at_least(n: i64, min: i64) -> usize {
    let n = n + n.rem_euclid(2);
    n.max(min) as usize
}

/// Sizes the row decoder's wordline driver as CACTI 7 does (`Decoder::compute_widths` with
/// `logical_effort`): stage 0 is a NAND2 of `W_n = 2 W_min`, `W_p = p/n · W_min`; the path
/// effort `F = g_nand2 · C_wl / C_in` gives `N = ⌊ln F / ln 4⌋` stages (made even, ≥ 2) of
/// effort `f = F^(1/N)`; the last inverter is `W_n = C_wl / f / ((1 + p/n) C_g)` (≥ W_min,
/// clamped to `max_w_nmos_dec` with the chain re-planned), and each earlier inverter is the
/// next one divided by `f` (≥ W_min). The wordline transistors use the cell device
/// (CACTI `is_wl_tr`).
pub fn wordline_driver(gt: &GatingTech, cols: u32) -> Result<DriverChain, GatingError> {
    if cols == 0 {
        return Err(GatingError::Zero("cols"));
    }
    let dev = &gt.cell_dev;
    let p2n = dev.n_to_p_drive_ratio;
    let min_w = gt.layout.min_w_nmos().um();
    let max_w = gt.layout.f.um() * MAX_W_NMOS_DEC_F;
    let cg = gate_c(dev, Length::from_um(1.0)).f(); // F per µm of gate width
    let load = wordline_capacitance(gt, cols);
    let gnand2 = (2.0 + p2n) / (1.0 + p2n);
    let (wn0, wp0) = (2.0 * min_w, p2n * min_w);
    let c_in0 = cg * (wn0 + wp0);
    let big_f = gnand2 * load.f() / c_in0;
    let mut n = even_at_least((big_f.ln() / FOPT.ln()).floor() as i64, 2);
    let mut f = big_f.powf(1.0 / n as f64);
    let mut last = (load.f() / f / ((1.0 + p2n) * cg)).max(min_w);
    if last > max_w {
        let c_ld = cg * (1.0 + p2n) * max_w;
        let big_f = gnand2 * c_ld / c_in0;
        n = even_at_least((big_f.ln() / FOPT.ln()).floor() as i64 + 1, 2);
        f = big_f.powf(1.0 / (n as f64 - 1.0));
        last = max_w;
    }
    let mut wn = vec![0.0; n];
    wn[0] = wn0;
    wn[n - 1] = last;
    for i in (1..n - 1).rev() {
        wn[i] = (wn[i + 1] / f).max(min_w);
    }
    let mut wp: Vec<f64> = wn.iter().map(|w| w * p2n).collect();
    wp[0] = wp0;
    Ok(DriverChain {
        load,
        nmos: wn.into_iter().map(Length::from_um).collect(),
        pmos: wp.into_iter().map(Length::from_um).collect(),
    })
}

/// CACTI 7's wordline-gating figures (`pg_wl_*` columns).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WordlineGating {
    /// The driver chain the header serves.
    pub driver: DriverChain,
    /// Width of one sleep transistor (one per wordline driver: the chain's header width
    /// divided over the sub-array's rows, CACTI `nodes_DSTN = rows`).
    pub sleep_tx_width: Length,
    /// Area of one sleep transistor.
    pub sleep_tx_area: Area,
    /// Sleep area of one bank: `area · rows · sub-arrays per mat · mats`.
    pub sleep_area: Area,
    /// Wake-up latency.
    pub wakeup_latency: Time,
    /// Wake-up energy of the active mats: `E · rows · sub-arrays per mat · active mats`.
    pub wakeup_energy: Energy,
}

/// Wordline-driver sleep transistors (CACTI 7 `Decoder::compute_power_gating` and
/// `Mat::compute_power_energy`): one header shared by the driver chains of a sub-array
/// (`nodes_DSTN = rows`), sized for the chain's saturation current
/// `I = I_on,n(peri) · ΣW_n`; on wake-up it recharges the chain's PMOS drains
/// (`C_d(ΣW_p)` folded to the cell height) by `V_dd,peri − Vcc_min,peri`; it is laid beside
/// the decoder strip (`w_dec = area(chain) / (h_dec · h_cell)`).
pub fn wordline_gating(
    gt: &GatingTech,
    shape: &ArrayShape,
    perf_loss: f64,
) -> Result<WordlineGating, GatingError> {
    shape.check()?;
    let driver = wordline_driver(gt, shape.cols)?;
    let vdd_p = gt.peri_dev.vdd.v();
    let c_wake = drain_c(
        &gt.peri_dev,
        &gt.layout,
        driver.total_pmos(),
        false,
        1,
        Fold::CellHeight(gt.cell_h),
        gt.local_wire_c_per_um,
    );
    let strip_h = gt.cell_h * H_DEC;
    let dec_w = driver.area(gt, strip_h) / strip_h;
    let tx = header_sleep_tx(
        gt,
        &HeaderSpec {
            peak_current: gt.peri_dev.i_on_n.times(driver.total_nmos()),
            nodes: shape.rows as f64,
            rail_capacitance: c_wake,
            swing: Voltage::from_v(vdd_p * (1.0 - PERI_VCCMIN_FRACTION)),
            beside_width: dec_w,
            perf_loss,
        },
    )?;
    let rows = shape.rows as f64;
    let spm = shape.subarrays_per_mat();
    Ok(WordlineGating {
        sleep_tx_width: tx.width,
        sleep_tx_area: tx.area,
        sleep_area: tx.area * (rows * spm * shape.num_mats as f64),
        wakeup_latency: tx.wakeup_latency,
        wakeup_energy: tx.wakeup_energy * (rows * spm * shape.active_mats as f64),
        driver,
    })
}

/// CACTI 7's bitline-floating figures (`pg_bl_float_*` columns).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BitlineFloating {
    /// Capacitance of one bitline pair with its column circuits (CACTI `blfloating_c`).
    pub pair_capacitance: Capacitance,
    /// Level the bitlines float to.
    pub float_voltage: Voltage,
    /// Wake-up latency: re-precharging one pair through the precharge PMOS.
    pub wakeup_latency: Time,
    /// Wake-up energy of the active mats.
    pub wakeup_energy: Energy,
}

/// Bitline floating (CACTI 7 `Mat::compute_bitline_delay`). The pair capacitance is
/// `C = 2 (C_bl + 2 C_d,bmux) + 2 (2 C_d,iso + C_latch + C_d,samux)` with a bitline mux
/// (without one: `2 (C_bl + 2 C_d,iso + C_latch + C_d,samux)`), the column devices folded to
/// `w_cell · Ndcm / read ports` (the bit mux to `w_cell / (2 read ports)`), and
/// `C_latch = C_g(W_sp + W_sn) + C_d(W_sn) + C_d(W_sp)`. Wake-up re-precharges it from `V_bitfloating` to
/// `V_dd,cell` through the precharge PMOS at `I_sat,p / 2`:
/// `t = C (V_dd − V_float) / (I_on,n W_pre / (n/p) / 2)`. Energy (CACTI: the read bitline
/// energy per column rescaled to the float swing, times rows, sub-arrays per mat and active
/// mats): `E = 2 V_dd (V_dd − V_float) · C_E · rows · spm · active mats` with
/// `C_E = C_bl + 2 C_d,bmux + (2 C_d,iso + C_latch + C_d,samux) / Ndcm`.
pub fn bitline_floating(
    gt: &GatingTech,
    shape: &ArrayShape,
) -> Result<BitlineFloating, GatingError> {
    shape.check()?;
    let f = gt.layout.f;
    let min_w = gt.layout.min_w_nmos();
    let peri = &gt.peri_dev;
    let p2n = peri.n_to_p_drive_ratio;
    let ports = shape.read_ports();
    let mux = shape.bitline_mux as f64;
    let fold_col = Fold::Width(gt.cell_w * (mux / ports));
    let lw = gt.local_wire_c_per_um;
    let dc = |w: Length, n: bool, fold: Fold| drain_c(peri, &gt.layout, w, n, 1, fold, lw);
    let (w_iso, w_sn, w_sp) = (f * W_ISO_F, f * W_SENSE_N_F, f * W_SENSE_P_F);
    let w_mux = min_w * MUX_W_MIN;
    let c_bl = bitline_capacitance(gt, shape.rows);
    let c_iso = dc(w_iso, false, fold_col);
    let c_latch = gate_c(peri, w_sp + w_sn) + dc(w_sn, true, fold_col) + dc(w_sp, false, fold_col);
    let c_samux = dc(w_mux, true, fold_col);
    let c_sa = c_iso * 2.0 + c_latch + c_samux;
    let (c_pair, c_energy) = if shape.bitline_mux > 1 {
        let c_bmux = dc(w_mux, true, Fold::Width(gt.cell_w / (2.0 * ports)));
        let line = c_bl + c_bmux * 2.0;
        ((line + c_sa) * 2.0, line + c_sa / mux)
    } else {
        ((c_bl + c_sa) * 2.0, c_bl + c_sa)
    };
    let vdd = gt.cell_dev.vdd.v();
    let v_float = BITLINE_FLOAT_FRACTION * vdd;
    let dv = vdd - v_float;
    let w_pre = min_w * (PRECHARGE_W_MIN * p2n);
    let i_sat_p = peri.i_on_n.times(w_pre).a() / p2n;
    let t = c_pair.f() * dv / (i_sat_p / ILINEAR_TO_ISAT_RATIO);
    let e = 2.0
        * vdd
        * dv
        * c_energy.f()
        * shape.rows as f64
        * shape.subarrays_per_mat()
        * shape.active_mats as f64;
    Ok(BitlineFloating {
        pair_capacitance: c_pair,
        float_voltage: Voltage::from_v(v_float),
        wakeup_latency: Time::from_s(t),
        wakeup_energy: Energy::from_j(e),
    })
}

/// Fraction of a cell's subthreshold leakage that flows through its access transistors
/// (CACTI 7 `mat.cc` `compute_bitline_delay`): cell = two inverters
/// `2 · (I_n + I_p)/2` plus one access NMOS per read-write / write port plus a 2-stack
/// (`× STACK_FACTOR`) per exclusive read port, all at the cell's I_off per width.
pub fn access_leakage_fraction(gt: &GatingTech, rw: u32, rd: u32, wr: u32) -> f64 {
    let dev = &gt.cell_dev;
    let inv = super::circuit::isub(dev, gt.cell_nmos_w, gt.cell_pmos_w, 1, GateType::Inv).a() * 2.0;
    let port = dev.i_off_n.times(gt.cell_access_w).a();
    let acc = port * (rw + wr) as f64 + port * STACK_FACTOR * rd as f64;
    if inv + acc <= 0.0 {
        return 0.0;
    }
    acc / (inv + acc)
}

/// Leakage of one bank with the chosen gating (subthreshold; gate leakage is unchanged by
/// CACTI-P, which scales only subthreshold terms).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SleepLeakage {
    /// Active (ungated) leakage of the bank: data array + tag array.
    pub active: Power,
    /// Cell-array leakage in sleep (inverters + access transistors).
    pub cells: Power,
    /// Decoder / wordline-driver leakage in sleep.
    pub decoder: Power,
    /// Column-circuit leakage (unchanged: CACTI 7 models no column gating effect).
    pub column_periphery: Power,
    /// H-tree repeater leakage with interconnect gating (`× Vcc_min,peri / V_dd`).
    pub htree: Power,
    /// The bank leakage CACTI 7 prints with gating on: cells, decoders, column circuits,
    /// ungated H-tree (CACTI 7 does not fold the repeaters' gated leakage into it) and tag.
    pub cacti_printed: Power,
    /// Bank leakage in sleep including interconnect gating.
    pub sleep: Power,
}

/// Gated leakage of a bank from the SRAM model's per-component leakage (CACTI 7 `mat.cc`):
/// array gating scales the cells' inverter leakage by `Vcc_min / V_dd = 0.65`; bitline
/// floating scales the access-transistor leakage by `V_bitfloating / V_dd = 0.7`; wordline
/// gating scales decoder leakage by `Vcc_min,peri / V_dd = 0.35`; interconnect gating scales
/// the H-tree repeaters by the same 0.35. `access_fraction` splits the cell leakage
/// ([`access_leakage_fraction`]); `other` is the rest of the bank (tag array), ungated.
pub fn sleep_leakage(
    data: &LeakageBreakdown,
    other: Power,
    access_fraction: f64,
    sw: &PgSwitches,
) -> SleepLeakage {
    let k = |on: bool, x: f64| if on { x } else { 1.0 };
    let a = access_fraction.clamp(0.0, 1.0);
    let cells = data.cells
        * ((1.0 - a) * k(sw.array, CELL_VCCMIN_FRACTION)
            + a * k(sw.bitline_floating, BITLINE_FLOAT_FRACTION));
    let decoder = data.decoder * k(sw.wordline, PERI_VCCMIN_FRACTION);
    let htree = data.htree * k(sw.interconnect, PERI_VCCMIN_FRACTION);
    let cacti_printed = cells + decoder + data.column_periphery + data.htree + other;
    SleepLeakage {
        active: data.total() + other,
        cells,
        decoder,
        column_periphery: data.column_periphery,
        htree,
        cacti_printed,
        sleep: cells + decoder + data.column_periphery + htree + other,
    }
}

/// H-tree repeater gating figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct InterconnectGating {
    /// Active repeater leakage of the bank.
    pub active: Power,
    /// Repeater leakage with the repeaters' supply at `Vcc_min,peri`.
    pub gated: Power,
    /// Leakage saved.
    pub saved: Power,
}

/// Interconnect (H-tree repeater) gating: the repeaters' subthreshold current is kept and
/// their supply dropped to `Vcc_min,peri` (CACTI 7 `power_gated_leakage = I_leak ·
/// Vcc_min`, as for decoders), so `P = P_active · 0.35`.
pub fn interconnect_gating(htree_leakage: Power) -> InterconnectGating {
    let gated = htree_leakage * PERI_VCCMIN_FRACTION;
    InterconnectGating {
        active: htree_leakage,
        gated,
        saved: htree_leakage - gated,
    }
}

/// Peak current of a wordline driver chain (used by [`wordline_gating`]); exposed for tests.
pub fn driver_peak_current(gt: &GatingTech, d: &DriverChain) -> Current {
    gt.peri_dev.i_on_n.times(d.total_nmos())
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_tech::units::Temperature;
    use regwatt_tech::{DeviceFlavor, Technology};

    fn gt(nm: f64) -> GatingTech {
        let t = Technology::for_node(nm, Temperature::from_k(360.0)).unwrap();
        GatingTech::new(&t, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp).unwrap()
    }

    fn shape() -> ArrayShape {
        // pg_*_regbank4K_b16_1R1W: 128 x 72 sub-arrays, 2 x 2, one mat, 1R1W
        ArrayShape {
            rows: 128,
            cols: 72,
            num_subarrays: 4,
            num_mats: 1,
            active_mats: 1,
            bitline_mux: 1,
            rw_ports: 0,
            rd_ports: 1,
            wr_ports: 1,
        }
    }

    #[test]
    fn sleep_leakage_hand_values() {
        let data = LeakageBreakdown {
            cells: Power::from_mw(4.0),
            decoder: Power::from_mw(2.0),
            column_periphery: Power::from_mw(1.0),
            htree: Power::from_mw(0.5),
        };
        let tag = Power::from_mw(0.25);
        let none = sleep_leakage(&data, tag, 0.25, &PgSwitches::default());
        assert!((none.cacti_printed.mw() - 7.75).abs() < 1e-12);
        assert!((none.sleep.mw() - 7.75).abs() < 1e-12);
        let bl = PgSwitches {
            bitline_floating: true,
            ..PgSwitches::default()
        };
        // access part 1 mW x 0.7 + inverters 3 mW
        let s = sleep_leakage(&data, tag, 0.25, &bl);
        assert!((s.cells.mw() - 3.7).abs() < 1e-12);
        let all = PgSwitches {
            array: true,
            wordline: true,
            column: true,
            bitline_floating: true,
            interconnect: true,
        };
        let s = sleep_leakage(&data, tag, 0.25, &all);
        // cells 3 x 0.65 + 1 x 0.7 = 2.65; decoder 0.7; column 1; htree printed 0.5; tag 0.25
        assert!(
            (s.cacti_printed.mw() - 5.1).abs() < 1e-12,
            "{}",
            s.cacti_printed.mw()
        );
        // with the repeaters gated: htree 0.175
        assert!((s.sleep.mw() - 4.775).abs() < 1e-12);
        assert!(s.sleep < s.active && s.cacti_printed < s.active);
        // interconnect gating alone does not change CACTI's printed figure
        let ic = PgSwitches {
            interconnect: true,
            ..PgSwitches::default()
        };
        let s = sleep_leakage(&data, tag, 0.25, &ic);
        assert_eq!(s.cacti_printed, none.cacti_printed);
        assert!(s.sleep < none.sleep);
        let g = interconnect_gating(Power::from_mw(0.5));
        assert!((g.gated.mw() - 0.175).abs() < 1e-12 && (g.saved.mw() - 0.325).abs() < 1e-12);
    }

    #[test]
    fn access_fraction_hand_value() {
        let g = gt(45.0);
        // inverters: 2 x (W_pd + W_pu)/2 x I_off; 1R1W: one write access + 0.43 read stack
        let i = g.cell_dev.i_off_n.a_per_um();
        let inv = (g.cell_nmos_w.um() + g.cell_pmos_w.um()) * i;
        let acc = g.cell_access_w.um() * i * (1.0 + 0.43);
        let want = acc / (inv + acc);
        let got = access_leakage_fraction(&g, 0, 1, 1);
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        assert!(got > 0.0 && got < 1.0);
        assert!(access_leakage_fraction(&g, 2, 0, 0) > got);
    }

    #[test]
    fn wordline_driver_chain_rules() {
        let g = gt(45.0);
        let d = wordline_driver(&g, 72).unwrap();
        let n = d.nmos.len();
        assert!(n >= 2 && n.is_multiple_of(2));
        let min_w = g.layout.min_w_nmos().um();
        assert!((d.nmos[0].um() - 2.0 * min_w).abs() < 1e-12);
        for i in 1..n {
            assert!(d.nmos[i].um() >= min_w - 1e-12);
            assert!(d.nmos[i] >= d.nmos[(i - 1).max(1)]);
        }
        // last stage: C_wl / f / ((1 + p/n) C_g); check the effort identity
        let p2n = g.cell_dev.n_to_p_drive_ratio;
        let cg = gate_c(&g.cell_dev, Length::from_um(1.0)).f();
        let c_last = cg * (1.0 + p2n) * d.nmos[n - 1].um();
        assert!(c_last <= d.load.f());
        // a wider wordline needs wider drivers
        let d2 = wordline_driver(&g, 576).unwrap();
        assert!(d2.total_nmos() > d.total_nmos());
    }

    #[test]
    fn wordline_gating_positive_and_scaling() {
        let g = gt(45.0);
        let s = shape();
        let w = wordline_gating(&g, &s, 0.01).unwrap();
        assert!(w.sleep_tx_width.um() > 0.0);
        assert!(w.wakeup_latency.s() > 0.0 && w.wakeup_energy.j() > 0.0);
        // width = I_on,peri ΣW_n / (loss μCox (Vdd-Vtc)(Vdd-Vts)) F / rows
        let d = &w.driver;
        let mu_cox = g.sleep_dev.mobility_n * g.sleep_dev.c_ox.f_per_m2();
        let vdd = g.peri_dev.vdd.v();
        let want = driver_peak_current(&g, d).a()
            / (0.01 * mu_cox * (vdd - g.peri_dev.vth.v()) * (vdd - g.sleep_dev.vth.v()))
            * g.layout.f.um()
            / 128.0;
        assert!((w.sleep_tx_width.um() - want).abs() < 1e-9 * want);
        // 10x tighter loss target: 10x the width
        let w2 = wordline_gating(&g, &s, 0.001).unwrap();
        assert!((w2.sleep_tx_width / w.sleep_tx_width - 10.0).abs() < 1e-9);
        // bank area = one device x rows x 4 sub-arrays x 1 mat
        assert!((w.sleep_area / w.sleep_tx_area - 512.0).abs() < 1e-9);
    }

    #[test]
    fn bitline_floating_hand_relations() {
        let g = gt(45.0);
        let s = shape();
        let b = bitline_floating(&g, &s).unwrap();
        assert!(b.wakeup_latency.s() > 0.0 && b.wakeup_energy.j() > 0.0);
        assert!((b.float_voltage.v() - 0.7 * g.cell_dev.vdd.v()).abs() < 1e-12);
        // without a bit mux: E = Vdd (Vdd - Vf) C_pair x rows x spm x act
        let vdd = g.cell_dev.vdd.v();
        let want = vdd * 0.3 * vdd * b.pair_capacitance.f() * 128.0 * 4.0;
        assert!((b.wakeup_energy.j() - want).abs() < 1e-9 * want);
        // the pair is at least the two bitlines
        assert!(b.pair_capacitance.f() >= 2.0 * bitline_capacitance(&g, 128).f());
        // bitline capacitance is linear in rows
        let r = bitline_capacitance(&g, 256).f() / bitline_capacitance(&g, 128).f();
        assert!((r - 2.0).abs() < 1e-12);
    }

    #[test]
    fn bad_shapes_are_errors() {
        let g = gt(45.0);
        let mut s = shape();
        s.rows = 0;
        assert!(matches!(
            bitline_floating(&g, &s),
            Err(GatingError::Zero("rows"))
        ));
        let mut s = shape();
        s.rd_ports = 0;
        s.wr_ports = 0;
        assert!(matches!(
            wordline_gating(&g, &s, 0.01),
            Err(GatingError::Zero("ports"))
        ));
        assert!(matches!(
            wordline_gating(&g, &shape(), 1.5),
            Err(GatingError::BadPerfLoss(_))
        ));
    }
}
