//! Power gating at sub-array and at row (one register) granularity.
//!
//! Model: CACTI-P (Li, Li, Chen, Jouppi, Muralimanohar, "CACTI-P: Architecture-level modeling
//! for SRAM-based structures with advanced leakage reduction techniques", ICCAD 2011) as
//! implemented in CACTI 7 `powergating.cc` (`Sleep_tx`) and `mat.cc` (array sleep transistors,
//! one header per column of a sub-array, "distributed sleep-transistor network").
//!
//! **Sizing** (`Sleep_tx::Sleep_tx`): the header works in its linear region; its IR drop must
//! keep the gated block's delay loss within `perf_loss`. With a delay ∝ 1/(V_dd − V_th) the
//! allowed drop is `ΔV = perf_loss · (V_dd − V_th,circuit)`, and the linear-region current
//! `I = μ C_ox (W/L) (V_dd − V_th,sleep) ΔV` must carry the block's peak switching current:
//!
//! `W = I_peak / (perf_loss · μ C_ox · (V_dd − V_th,circuit) · (V_dd − V_th,sleep)) · L`,
//! `L = F`.
//!
//! CACTI uses the node's low-standby-power device (`itrs-lstp`: high V_th, thick oxide) for
//! the sleep transistor, and the peripheral device's V_dd and V_th for the circuit. The peak
//! current of one column of a sub-array is `2 · I_on,n · W_pull-down` of the cell (one row
//! active; the two inverters of the cell, `mat.cc`).
//!
//! **Row (register) headers** are not in CACTI-P, which gates only sub-arrays. A header sits
//! between V_dd and the cells' virtual V_dd, so it carries only the current the cells draw
//! from V_dd. A read draws none: the precharged bitline discharges through the access and
//! pull-down NMOS to ground, and the node at `1` faces a bitline at V_dd. A write draws,
//! per cell that flips, the current of the pull-up PMOS holding the node that the bitline
//! pulls low (in saturation until the cell flips), which then charges the rising node
//! (Rabaey, Chandrakasan and Nikolić, *Digital Integrated Circuits*, 2nd ed., ch. 12, the
//! six-transistor cell's read and write). A register row writes all its `b` cells at once,
//! so its header carries `I_peak = b · I_sat,p(W_pu) = b · I_on,n · W_pu / (n/p drive ratio)`
//! (CACTI `simplified_pmos_Isat`, as for the header itself).
//!
//! *Sizing rule* ([`row_header_width`]). CACTI-P's budget bounds the gated block's *delay*
//! loss (`ΔV = perf_loss · (V_dd − V_th)`, about 5 mV at 40 nm). It does not apply to a row
//! header: the only current it carries is the write's, and a lower cell supply during a write
//! does not slow the write, it helps it (the bitline overpowers a weaker pull-up; write assist
//! by lowering the cell supply, Ohbayashi et al., "A 65-nm SoC embedded 6T-SRAM designed for
//! manufacturability with read and write operation stabilizing circuits", IEEE JSSC 42(4),
//! 2007). What the drop must respect is retention: while the row is written, the cells of the
//! row whose value does not change (lanes outside the warp's active mask, which the write
//! skips, and bits written with their own value) must keep their state, so the virtual rail
//! may fall to the cells' retention voltage and no lower: `ΔV = V_dd − V_ccmin`, the drowsy
//! state's own level ([`crate::drowsy::retention_voltage`]). The header (gate at 0, source at
//! V_dd, overdrive `V_ov = V_dd − V_th,sleep`) is in its linear region (square law, Rabaey et al.
//! ch. 3; saturated if `ΔV ≥ V_ov`):
//!
//! `W = I_peak / (μ C_ox · (V_ov · ΔV − ΔV²/2)) · L`, `L = F`.
//!
//! After the write the rail recovers through the header from at worst V_ccmin, which is the
//! drowsy wake-up; that wake-up stays well inside one core cycle at every node (0.06–0.3 ns;
//! test `row_header_wakes_within_a_cycle`), the one-cycle wake-up Jeon & Annavaram (2014,
//! §8.3) and Abdel-Majeed & Annavaram ("Warped register file", HPCA 2013) assume. Sized so,
//! a row header is 5–7 % of its row's cell area at 90–32 nm and 1–3 % at 22 and 12 nm, as
//! the published per-row schemes: gated-V_dd ≈ 5 % (Powell et al., ISLPED 2000), the DRG-Cache
//! under 4 % (Agarwal, Li and Roy, DAC 2003), the drowsy line's voltage control ≈ 3 %
//! (Flautner et al., ISCA 2002). Sizing it with CACTI-P's 1 % delay budget instead made it
//! 1.7–1.9 times the row's cells at 90–40 nm, and register gating nearly doubled the RF.
//!
//! **Drowsy supply switch** ([`drowsy_supply_switch`]). A drowsy row (Flautner et al. 2002,
//! and the tri-modal register of Warped RF) has two PMOS switches: the header to V_dd above,
//! and one to a V_ccmin rail, which carries only the drowsy row's leakage. That one is sized
//! with CACTI-P's equation for that current, its budget `perf_loss · V_ccmin`, at the
//! overdrive `V_ccmin − V_th,sleep` its source sees, and is at least the minimum width. Off
//! in a tri-modal register's off state, it leaks its subthreshold current at V_ccmin.
//!
//! **Wake-up** (`Sleep_tx::compute_penalty`, header case): the virtual rail capacitance
//! (`C_wake`: per cell one PMOS drain of the cell's inverter pair counted three times plus one
//! NMOS drain, `mat.cc`, times the cells on the rail) plus the sleep device's own drain
//! capacitance is recharged by `ΔV = V_dd − V_floor` through the header at its average current
//! `I_sat,p(W) / 2` (CACTI `Ilinear_to_Isat_ratio = 2`):
//! `t_wake = C·ΔV / (I_sat,p/2)`, `E_wake = C · V_dd · ΔV`. With state retention the floor is
//! the cell's retention voltage V_ccmin ([`crate::drowsy::retention_voltage`]; CACTI-P uses
//! the same V_ccmin); without retention the rail collapses to 0 and `ΔV = V_dd`.
//!
//! **Area** (`Sleep_tx::Sleep_tx`): the gate area of the header folded into twice the cell
//! width, halved (CACTI's "device laid on the side" rule), via [`circuit::gate_area`].
//!
//! **Gated leakage**: without retention, the residual current is the off header's
//! subthreshold current (its width × the lstp device's I_off), which cannot exceed the block's
//! own active leakage (series connection: the smaller one limits). With retention, the cells
//! sit at V_ccmin and leak what [`crate::drowsy::leakage_at`] gives (BSIM subthreshold with DIBL,
//! direct-tunnelling gate leakage) — not CACTI-P's linear `V_ccmin/V_dd` scaling.

pub mod cacti_p;
pub mod circuit;

use crate::drowsy::{self, DrowsyError};
use circuit::{drain_c, gate_area, Fold, Layout};
use regwatt_tech::units::{
    Area, Capacitance, Current, Energy, Length, Power, Temperature, Time, Voltage,
};
use regwatt_tech::{Device, DeviceFlavor, Technology};
use serde::Serialize;

/// CACTI 7 `const.h` `Ilinear_to_Isat_ratio`: average linear-region current of a switch
/// recharging a rail = I_sat / 2.
pub const ILINEAR_TO_ISAT_RATIO: f64 = 2.0;

/// Errors of the gating model.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GatingError {
    /// Performance-loss target out of range.
    #[error("performance-loss target {0} must be a fraction strictly between 0 and 1")]
    BadPerfLoss(f64),
    /// A device flavour is missing from the technology.
    #[error("technology: {0}")]
    Technology(String),
    /// The supply is too low for the sleep device to conduct.
    #[error("sleep transistor cannot conduct: V_dd {vdd} V <= V_th {vth} V")]
    NoOverdrive {
        /// Supply.
        vdd: f64,
        /// Threshold.
        vth: f64,
    },
    /// A count is zero.
    #[error("{0} must be >= 1")]
    Zero(&'static str),
    /// Retention voltage problems.
    #[error(transparent)]
    Drowsy(#[from] DrowsyError),
}

/// What happens to the gated cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Retention {
    /// The virtual rail collapses; the state is lost (Jeon & Annavaram 2014's "completely shut down").
    Off,
    /// The virtual rail is held at the cell's V_ccmin; the state is kept (CACTI-P).
    Vccmin,
}

/// Technology view used by the gating model.
#[derive(Debug, Clone)]
pub struct GatingTech {
    /// Node (nm).
    pub node_nm: f64,
    /// Temperature.
    pub temperature: Temperature,
    /// Cell device (flavour of the array cells).
    pub cell_dev: Device,
    /// Peripheral device (sets the circuit V_dd / V_th of the delay-loss budget).
    pub peri_dev: Device,
    /// Sleep-transistor device (CACTI: itrs-lstp of the node).
    pub sleep_dev: Device,
    /// Layout rules.
    pub layout: Layout,
    /// SRAM cell width and height.
    pub cell_w: Length,
    /// SRAM cell height.
    pub cell_h: Length,
    /// Cell pull-down (NMOS) width.
    pub cell_nmos_w: Length,
    /// Cell pull-up (PMOS) width.
    pub cell_pmos_w: Length,
    /// Cell access (pass) transistor width.
    pub cell_access_w: Length,
    /// Local wire capacitance per µm (metal joining folded drains).
    pub local_wire_c_per_um: f64,
    /// Wordline wire capacitance, F/µm (the cell's `wordline_layer`: local on CACTI's
    /// nodes, semi-global at 12 nm).
    pub wordline_wire_c_per_um: f64,
    /// Cell retention voltage V_ccmin.
    pub vccmin: Voltage,
}

impl GatingTech {
    /// Builds the view from a technology for the given cell and peripheral flavours.
    pub fn new(
        tech: &Technology,
        cell: DeviceFlavor,
        peri: DeviceFlavor,
    ) -> Result<GatingTech, GatingError> {
        let get = |f: DeviceFlavor| {
            tech.device(f)
                .cloned()
                .map_err(|e| GatingError::Technology(e.to_string()))
        };
        Ok(GatingTech {
            node_nm: tech.node_nm,
            temperature: tech.temperature,
            // the node's SRAM bitcell device where it has one (`Technology::cell_device`)
            cell_dev: tech
                .cell_device(cell)
                .cloned()
                .map_err(|e| GatingError::Technology(e.to_string()))?,
            peri_dev: get(peri)?,
            sleep_dev: get(DeviceFlavor::ItrsLstp)?,
            layout: Layout::of(tech),
            cell_w: tech.sram_cell.width,
            cell_h: tech.sram_cell.height,
            cell_nmos_w: tech.sram_cell.pull_down_width,
            cell_pmos_w: tech.sram_cell.pull_up_width,
            cell_access_w: tech.sram_cell.access_width,
            local_wire_c_per_um: tech.wires.local.c_per_length.f_per_um(),
            wordline_wire_c_per_um: tech
                .wires
                .layer(tech.sram_cell.wordline_layer)
                .c_per_length
                .f_per_um(),
            vccmin: drowsy::retention_voltage(tech.node_nm)?,
        })
    }

    /// Peak current of one active cell (`2 · I_on,n · W_pd`, CACTI `mat.cc`).
    pub fn cell_peak_current(&self) -> Current {
        self.cell_dev.i_on_n.times(self.cell_nmos_w) * 2.0
    }

    /// Current one cell draws from its supply rail while it is written: the pull-up PMOS's
    /// saturation current `I_on,n · W_pu / (n/p drive ratio)` (module docs, "Row headers";
    /// CACTI `simplified_pmos_Isat`). A read draws none.
    pub fn cell_write_supply_current(&self) -> Current {
        self.cell_dev.i_on_n.times(self.cell_pmos_w) * (1.0 / self.cell_dev.n_to_p_drive_ratio)
    }

    /// Virtual-rail capacitance contributed by one cell (CACTI `mat.cc` `c_wakeup_array`
    /// per row: three PMOS drains + one NMOS drain, folded to the cell height).
    pub fn cell_rail_capacitance(&self) -> Capacitance {
        let fold = Fold::CellHeight(self.cell_h);
        let l = &self.layout;
        let cp = drain_c(
            &self.cell_dev,
            l,
            self.cell_pmos_w,
            false,
            1,
            fold,
            self.local_wire_c_per_um,
        );
        let cn = drain_c(
            &self.cell_dev,
            l,
            self.cell_nmos_w,
            true,
            1,
            fold,
            self.local_wire_c_per_um,
        );
        cp * 3.0 + cn
    }
}

/// One sized sleep transistor.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SleepTransistor {
    /// Width (NMOS-equivalent, as CACTI reports it).
    pub width: Length,
    /// Layout area.
    pub area: Area,
    /// Peak current it is sized for.
    pub peak_current: Current,
    /// Rail + own drain capacitance recharged on wake-up.
    pub wake_capacitance: Capacitance,
    /// Rail swing on wake-up.
    pub wake_swing: Voltage,
    /// Wake-up latency.
    pub wakeup_latency: Time,
    /// Wake-up energy.
    pub wakeup_energy: Energy,
    /// Off-state subthreshold current through the header.
    pub off_current: Current,
}

/// What a header sleep transistor is sized for and what it recharges on wake-up (the
/// arguments of CACTI 7 `Sleep_tx::Sleep_tx`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeaderSpec {
    /// Peak current of the gated block (CACTI `active_Isat`).
    pub peak_current: Current,
    /// Number of sleep transistors sharing that current (CACTI `num_sleep_tx`, the DSTN node
    /// count; the width is divided by it).
    pub nodes: f64,
    /// Capacitance of the gated block recharged on wake-up (CACTI `c_circuit_wakeup`).
    pub rail_capacitance: Capacitance,
    /// Rail swing on wake-up (CACTI `V_delta`).
    pub swing: Voltage,
    /// Width of the block the device is laid beside (CACTI `cell.w`; the device is folded
    /// into twice that height and its area halved).
    pub beside_width: Length,
    /// Performance-loss target.
    pub perf_loss: f64,
}

/// Sizes one header sleep transistor for an arbitrary block (CACTI 7 `powergating.cc`
/// `Sleep_tx::Sleep_tx` + `compute_penalty`, header case; equations in the module docs):
/// `W = I_peak / (perf_loss · μ C_ox · (V_dd − V_th,c) · (V_dd − V_th,s)) · F / nodes`,
/// area `= gate_area(INV, W_n = p/n · W, W_p = W, h = 2 · beside_width) / 2`,
/// `t_wake = (C_rail + C_d,sleep) · ΔV / (I_sat,p(W) / 2)`,
/// `E_wake = (C_rail + C_d,sleep) · V_dd,cell · ΔV`.
pub fn header_sleep_tx(gt: &GatingTech, h: &HeaderSpec) -> Result<SleepTransistor, GatingError> {
    let perf_loss = h.perf_loss;
    if !(perf_loss > 0.0 && perf_loss < 1.0) {
        return Err(GatingError::BadPerfLoss(perf_loss));
    }
    if h.nodes.is_nan() || h.nodes < 1.0 {
        return Err(GatingError::Zero("nodes"));
    }
    let vdd = gt.peri_dev.vdd.v();
    let vt_c = gt.peri_dev.vth.v();
    let vt_s = gt.sleep_dev.vth.v();
    for vt in [vt_c, vt_s] {
        if vdd <= vt {
            return Err(GatingError::NoOverdrive { vdd, vth: vt });
        }
    }
    // μ C_ox in A/V² (mobility m²/(V s) × F/m²)
    let mu_cox = gt.sleep_dev.mobility_n * gt.sleep_dev.c_ox.f_per_m2();
    let w_over_l = h.peak_current.a() / (perf_loss * mu_cox * (vdd - vt_c) * (vdd - vt_s));
    let width = gt.layout.f * w_over_l / h.nodes;
    Ok(header_of_width(gt, width, h))
}

/// A header of a given `width` (NMOS-equivalent): its area, wake-up and off current as
/// [`header_sleep_tx`] computes them (CACTI 7 `Sleep_tx`; `h.perf_loss` and `h.nodes` are not
/// used).
pub fn header_of_width(gt: &GatingTech, width: Length, h: &HeaderSpec) -> SleepTransistor {
    let p_to_n = gt.sleep_dev.n_to_p_drive_ratio;
    // area: INV gate of (w_p = W, w_n = p_to_n W) folded into 2 block widths, halved.
    let area = gate_area(&gt.layout, 1, width * p_to_n, width, h.beside_width * 2.0) * 0.5;
    let height = area / h.beside_width;
    let c_int = drain_c(
        &gt.sleep_dev,
        &gt.layout,
        width * p_to_n,
        false,
        1,
        Fold::CellHeight(height),
        gt.local_wire_c_per_um,
    );
    let c = h.rail_capacitance + c_int;
    let dv = h.swing.v().max(0.0);
    let vdd_cell = gt.cell_dev.vdd.v();
    // PMOS saturation current of the header: W · I_on,n / (n/p drive ratio) (CACTI
    // simplified_pmos_Isat), averaged over the swing (÷ Ilinear_to_Isat_ratio).
    let i_sat_p = gt.sleep_dev.i_on_n.times(width).a() / p_to_n;
    let t = c.f() * dv / (i_sat_p / ILINEAR_TO_ISAT_RATIO);
    SleepTransistor {
        width,
        area,
        peak_current: h.peak_current,
        wake_capacitance: c,
        wake_swing: Voltage::from_v(dv),
        wakeup_latency: Time::from_s(t),
        wakeup_energy: Energy::from_j(c.f() * vdd_cell * dv),
        off_current: gt.sleep_dev.i_off_n.times(width * p_to_n),
    }
}

/// Width (NMOS-equivalent) of a row header carrying `peak_current` with its virtual rail
/// allowed to fall to the cells' retention voltage (module docs, "Sizing rule"):
/// `ΔV = min(V_dd,cell − V_ccmin, V_ov)`, `V_ov = V_dd − V_th,sleep`,
/// `W = I_peak / (μ C_ox (V_ov ΔV − ΔV²/2)) · F`.
pub fn row_header_width(gt: &GatingTech, peak_current: Current) -> Result<Length, GatingError> {
    let vdd = gt.peri_dev.vdd.v();
    let vt_s = gt.sleep_dev.vth.v();
    let v_ov = vdd - vt_s;
    if v_ov <= 0.0 {
        return Err(GatingError::NoOverdrive { vdd, vth: vt_s });
    }
    let droop = gt.cell_dev.vdd.v() - gt.vccmin.v();
    if droop <= 0.0 {
        return Err(GatingError::NoOverdrive {
            vdd: gt.cell_dev.vdd.v(),
            vth: gt.vccmin.v(),
        });
    }
    let dv = droop.min(v_ov);
    let mu_cox = gt.sleep_dev.mobility_n * gt.sleep_dev.c_ox.f_per_m2();
    let w_over_l = peak_current.a() / (mu_cox * (v_ov * dv - dv * dv / 2.0));
    Ok(gt.layout.f * w_over_l)
}

/// The switch of a drowsy row to its V_ccmin rail (module docs, "Drowsy supply switch"):
/// CACTI-P's linear-region equation for the row's drowsy leakage `P_drowsy / V_ccmin`, a drop of
/// `perf_loss · V_ccmin`, overdrive `V_ccmin − V_th,sleep`, at least the minimum width; laid
/// beside one cell as the headers. It recharges nothing on a wake-up (the V_dd header does).
pub fn drowsy_supply_switch(
    gt: &GatingTech,
    drowsy_leakage: Power,
    perf_loss: f64,
) -> Result<SleepTransistor, GatingError> {
    if !(perf_loss > 0.0 && perf_loss < 1.0) {
        return Err(GatingError::BadPerfLoss(perf_loss));
    }
    let v = gt.vccmin.v();
    let vt_s = gt.sleep_dev.vth.v();
    if v <= vt_s {
        return Err(GatingError::NoOverdrive { vdd: v, vth: vt_s });
    }
    let i = Current::from_a(drowsy_leakage.w().max(0.0) / v);
    let mu_cox = gt.sleep_dev.mobility_n * gt.sleep_dev.c_ox.f_per_m2();
    let w_over_l = i.a() / (perf_loss * v * mu_cox * (v - vt_s));
    let width = (gt.layout.f * w_over_l).max(gt.layout.min_w_nmos());
    Ok(header_of_width(
        gt,
        width,
        &HeaderSpec {
            peak_current: i,
            nodes: 1.0,
            rail_capacitance: Capacitance::ZERO,
            swing: Voltage::from_v(0.0),
            beside_width: gt.cell_w,
            perf_loss,
        },
    ))
}

/// Sizes one header sleep transistor of the cell array (CACTI 7 `Sleep_tx`, as `mat.cc`
/// instantiates it: one device per column, laid beside one cell; equations in the module
/// docs).
pub fn sleep_transistor(
    gt: &GatingTech,
    peak_current: Current,
    rail_capacitance: Capacitance,
    retention: Retention,
    perf_loss: f64,
) -> Result<SleepTransistor, GatingError> {
    let v_floor = match retention {
        Retention::Off => 0.0,
        Retention::Vccmin => gt.vccmin.v(),
    };
    let vdd_cell = gt.cell_dev.vdd.v();
    header_sleep_tx(
        gt,
        &HeaderSpec {
            peak_current,
            nodes: 1.0,
            rail_capacitance,
            swing: Voltage::from_v((vdd_cell - v_floor).max(0.0)),
            beside_width: gt.cell_w,
            perf_loss,
        },
    )
}

/// Gating of one domain (a sub-array, or one register).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GatedDomain {
    /// Cells in the domain.
    pub cells: u64,
    /// Sleep transistors in the domain (sub-array: one per column; register: one).
    pub sleep_transistors: u64,
    /// One sleep transistor.
    pub sleep_tx: SleepTransistor,
    /// Area of all sleep transistors of the domain.
    pub sleep_area: Area,
    /// Sleep area / area of the domain's cells.
    pub area_overhead: f64,
    /// Wake-up latency of the domain (all headers switch in parallel).
    pub wakeup_latency: Time,
    /// Wake-up energy of the domain.
    pub wakeup_energy: Energy,
    /// Active leakage (subthreshold + gate) of the domain's cells.
    pub active_leakage: Power,
    /// Gated leakage of the domain.
    pub gated_leakage: Power,
    /// A drowsy row's switch to its V_ccmin rail ([`drowsy_supply_switch`]; its area is in
    /// `sleep_area`). `None` for a domain gated off, and for sub-arrays.
    pub supply_switch: Option<SleepTransistor>,
}

/// Inputs describing the cells' active leakage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellLeakage {
    /// Subthreshold leakage of one cell at V_dd.
    pub subthreshold_per_cell: Power,
    /// Gate leakage of one cell at V_dd.
    pub gate_per_cell: Power,
}

fn gated(
    gt: &GatingTech,
    leak: &CellLeakage,
    cells: u64,
    n_tx: u64,
    tx: SleepTransistor,
    retention: Retention,
) -> Result<GatedDomain, GatingError> {
    let active_sub = leak.subthreshold_per_cell * cells as f64;
    let active_gate = leak.gate_per_cell * cells as f64;
    let active = active_sub + active_gate;
    let vdd = gt.cell_dev.vdd;
    let gated_leakage = match retention {
        Retention::Off => {
            let through_header = (tx.off_current * vdd) * n_tx as f64;
            through_header.min(active)
        }
        Retention::Vccmin => {
            let p = drowsy::leakage_params(gt.node_nm)?;
            let s = drowsy::leakage_at(&p, gt.temperature, vdd, gt.vccmin, active_sub, active_gate);
            s.subthreshold + s.gate
        }
    };
    let sleep_area = tx.area * n_tx as f64;
    let cell_area = gt.cell_w * gt.cell_h * cells as f64;
    Ok(GatedDomain {
        cells,
        sleep_transistors: n_tx,
        sleep_tx: tx,
        sleep_area,
        area_overhead: sleep_area / cell_area,
        wakeup_latency: tx.wakeup_latency,
        wakeup_energy: tx.wakeup_energy * n_tx as f64,
        active_leakage: active,
        gated_leakage,
        supply_switch: None,
    })
}

/// Sub-array gating: one header per column, each sized for one active cell (CACTI-P DSTN).
pub fn subarray_gating(
    gt: &GatingTech,
    rows: u32,
    cols: u32,
    leak: &CellLeakage,
    retention: Retention,
    perf_loss: f64,
) -> Result<GatedDomain, GatingError> {
    if rows == 0 {
        return Err(GatingError::Zero("rows"));
    }
    if cols == 0 {
        return Err(GatingError::Zero("cols"));
    }
    let tx = sleep_transistor(
        gt,
        gt.cell_peak_current(),
        gt.cell_rail_capacitance() * rows as f64,
        retention,
        perf_loss,
    )?;
    gated(
        gt,
        leak,
        rows as u64 * cols as u64,
        cols as u64,
        tx,
        retention,
    )
}

/// Per-register gating: one header per row of `bits` cells, carrying the supply current of
/// the whole row being written (`bits ·` [`GatingTech::cell_write_supply_current`]) with the
/// rail allowed down to V_ccmin ([`row_header_width`]; module docs, "Row headers"). With
/// [`Retention::Vccmin`] (a drowsy row) the row also has its switch to the V_ccmin rail
/// ([`drowsy_supply_switch`], for the row's drowsy leakage with a `perf_loss` budget), whose
/// area is added to the header's.
pub fn register_gating(
    gt: &GatingTech,
    bits: u32,
    leak: &CellLeakage,
    retention: Retention,
    perf_loss: f64,
) -> Result<GatedDomain, GatingError> {
    if bits == 0 {
        return Err(GatingError::Zero("bits"));
    }
    if !(perf_loss > 0.0 && perf_loss < 1.0) {
        return Err(GatingError::BadPerfLoss(perf_loss));
    }
    let peak = gt.cell_write_supply_current() * bits as f64;
    let v_floor = match retention {
        Retention::Off => 0.0,
        Retention::Vccmin => gt.vccmin.v(),
    };
    let vdd_cell = gt.cell_dev.vdd.v();
    let tx = header_of_width(
        gt,
        row_header_width(gt, peak)?,
        &HeaderSpec {
            peak_current: peak,
            nodes: 1.0,
            rail_capacitance: gt.cell_rail_capacitance() * bits as f64,
            swing: Voltage::from_v((vdd_cell - v_floor).max(0.0)),
            beside_width: gt.cell_w,
            perf_loss,
        },
    );
    let mut d = gated(gt, leak, bits as u64, 1, tx, retention)?;
    if retention == Retention::Vccmin {
        let sw = drowsy_supply_switch(gt, d.gated_leakage, perf_loss)?;
        d.sleep_area += sw.area;
        d.area_overhead = d.sleep_area / (gt.cell_w * gt.cell_h * bits as f64);
        d.supply_switch = Some(sw);
    }
    Ok(d)
}

/// CACTI 7's aggregate figures for a data array (as printed in its "Power-gating Components"
/// section and in the `pg_subarray_*` reference columns): per-device width, total sleep area
/// of a bank (`width-area × cols × sub-arrays`), wake-up latency, and wake-up energy of all
/// sub-arrays of the active mats (`E_tx × cols × sub-arrays per mat × active mats`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CactiArrayGating {
    /// Sleep transistor width.
    pub sleep_tx_width: Length,
    /// Total sleep area of one bank.
    pub sleep_area: Area,
    /// Wake-up latency.
    pub wakeup_latency: Time,
    /// Wake-up energy (active mats).
    pub wakeup_energy: Energy,
}

/// [`CactiArrayGating`] for an array of `num_subarrays` sub-arrays of `rows × cols` in
/// `num_mats` mats of which `active_mats` are activated per access (CACTI `mat.cc`).
pub fn cacti_array_gating(
    gt: &GatingTech,
    rows: u32,
    cols: u32,
    num_subarrays: u32,
    num_mats: u32,
    active_mats: u32,
    perf_loss: f64,
) -> Result<CactiArrayGating, GatingError> {
    if num_mats == 0 {
        return Err(GatingError::Zero("num_mats"));
    }
    let leak = CellLeakage {
        subthreshold_per_cell: Power::ZERO,
        gate_per_cell: Power::ZERO,
    };
    let d = subarray_gating(gt, rows, cols, &leak, Retention::Vccmin, perf_loss)?;
    let per_mat = num_subarrays as f64 / num_mats as f64;
    Ok(CactiArrayGating {
        sleep_tx_width: d.sleep_tx.width,
        sleep_area: d.sleep_tx.area * (cols as f64 * num_subarrays as f64),
        wakeup_latency: d.wakeup_latency,
        wakeup_energy: d.sleep_tx.wakeup_energy * (cols as f64 * per_mat * active_mats as f64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gt(nm: f64) -> GatingTech {
        let t = Technology::for_node(nm, Temperature::from_k(360.0)).unwrap();
        GatingTech::new(&t, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp).unwrap()
    }

    #[test]
    fn width_hand_value_45nm() {
        // 45 nm: I_peak = 2 x 2.0466e-3 A/um x 0.0936 um = 3.8312e-4 A
        // mu Cox (lstp) = 3.6396e10 um^2/Vs x 2.01e-14 F/um^2 = 7.3156e-4 A/V^2
        // W/L = 3.8312e-4 / (0.01 x 7.3156e-4 x (1 - 0.18035) x (1 - 0.50245)) = 128.42
        // W = 128.42 x 0.045 um = 5.779 um  (CACTI 7 prints 5.77878 um for this node)
        let g = gt(45.0);
        let tx = sleep_transistor(
            &g,
            g.cell_peak_current(),
            Capacitance::ZERO,
            Retention::Vccmin,
            0.01,
        )
        .unwrap();
        assert!((tx.width.um() - 5.779).abs() < 0.01, "{}", tx.width.um());
        // width is inversely proportional to the loss target
        let tx2 = sleep_transistor(
            &g,
            g.cell_peak_current(),
            Capacitance::ZERO,
            Retention::Vccmin,
            0.001,
        )
        .unwrap();
        assert!((tx2.width.um() / tx.width.um() - 10.0).abs() < 1e-9);
    }

    #[test]
    fn wakeup_energy_hand_formula() {
        let g = gt(45.0);
        let tx = sleep_transistor(
            &g,
            g.cell_peak_current(),
            Capacitance::from_ff(50.0),
            Retention::Vccmin,
            0.01,
        )
        .unwrap();
        let c = tx.wake_capacitance.f();
        assert!(c > 50e-15);
        // E = C x Vdd x (Vdd - Vccmin) = C x 1.0 x 0.35
        assert!((tx.wakeup_energy.j() - c * 0.35).abs() < 1e-9 * c);
        let off = sleep_transistor(
            &g,
            g.cell_peak_current(),
            Capacitance::from_ff(50.0),
            Retention::Off,
            0.01,
        )
        .unwrap();
        assert!(off.wakeup_energy > tx.wakeup_energy);
        assert!(off.wakeup_latency > tx.wakeup_latency);
    }

    #[test]
    fn gated_below_active_and_register_vs_subarray() {
        let g = gt(40.0);
        let leak = CellLeakage {
            subthreshold_per_cell: Power::from_nw(100.0),
            gate_per_cell: Power::from_nw(10.0),
        };
        for r in [Retention::Off, Retention::Vccmin] {
            let s = subarray_gating(&g, 128, 72, &leak, r, 0.01).unwrap();
            assert!(s.gated_leakage < s.active_leakage);
            assert!(s.wakeup_energy.j() > 0.0 && s.wakeup_latency.s() > 0.0);
            let reg = register_gating(&g, 128, &leak, r, 0.01).unwrap();
            assert!(reg.gated_leakage < reg.active_leakage);
            // the row header is sized by its retention droop, not by the delay budget
            let other = register_gating(&g, 128, &leak, r, 0.1).unwrap();
            assert_eq!(reg.sleep_tx.width, other.sleep_tx.width);
            // a drowsy row has its V_ccmin switch too; a row gated off does not
            assert_eq!(reg.supply_switch.is_some(), r == Retention::Vccmin);
        }
    }

    /// Row header at 45 nm by hand (`tech/nodes/45nm.toml`, 360 K; not through the code):
    /// * write supply current per cell `I_on,n W_pu / (n/p)` = 2.0466e-3 A/um x 0.05535 um /
    ///   2.41 = 4.70038e-5 A; a 128-bit row: I_peak = 6.01649e-3 A;
    /// * V_ov = V_dd,peri - V_th,lstp = 1.0 - 0.50245 = 0.49755 V; the rail may fall to
    ///   V_ccmin = 0.65 V (seed 002 Table 4): dV = 0.35 V; V_ov dV - dV^2/2 = 0.1128925 V^2;
    /// * mu Cox (lstp) = 7.3156e-4 A/V^2: W/L = 6.01649e-3 / (7.3156e-4 x 0.1128925) = 72.850,
    ///   W = 72.850 x 0.045 um = 3.2782 um;
    /// * CACTI-P's 1 % delay budget, dV = 0.01 x (1 - 0.18035) = 8.1965 mV at the same
    ///   overdrive, gives W/L = 6.01649e-3 / (7.3156e-4 x 0.01 x 0.81965 x 0.49755) = 2016.7,
    ///   W = 90.75 um: 27.7 times wider.
    #[test]
    fn row_header_width_hand_value_45nm() {
        let g = gt(45.0);
        let i = g.cell_write_supply_current() * 128.0;
        assert!((i.a() - 6.01649e-3).abs() < 1e-5 * 6.01649e-3, "{}", i.a());
        let w = row_header_width(&g, i).unwrap();
        assert!((w.um() - 3.2782).abs() < 1e-3, "{}", w.um());
        let leak = CellLeakage {
            subthreshold_per_cell: Power::from_nw(50.0),
            gate_per_cell: Power::from_nw(5.0),
        };
        let reg = register_gating(&g, 128, &leak, Retention::Off, 0.01).unwrap();
        assert_eq!(reg.sleep_tx.width, w);
        let cacti_p = sleep_transistor(&g, i, Capacitance::ZERO, Retention::Off, 0.01).unwrap();
        assert!(
            (cacti_p.width.um() - 90.75).abs() < 0.05,
            "{}",
            cacti_p.width.um()
        );
        // off leakage from the sized device: I_off,lstp(360 K) x p/n x W x V_dd
        let off = g
            .sleep_dev
            .i_off_n
            .times(w * g.sleep_dev.n_to_p_drive_ratio)
            .a()
            * 1.0;
        assert!((reg.gated_leakage.w() - off).abs() < 1e-9 * off);
    }

    /// The V_ccmin switch of a drowsy row at 45 nm by hand: 1 uW of drowsy leakage at
    /// V_ccmin = 0.65 V is I = 1.53846 uA; budget 0.01 x 0.65 V = 6.5 mV, overdrive
    /// 0.65 - 0.50245 = 0.14755 V: W/L = 1.53846e-6 / (6.5e-3 x 7.3156e-4 x 0.14755) = 2.1927,
    /// W = 0.098673 um (above the minimum 1.5 F = 0.0675 um). 1 nW gives the minimum width.
    #[test]
    fn drowsy_supply_switch_hand_value_45nm() {
        let g = gt(45.0);
        let sw = drowsy_supply_switch(&g, Power::from_uw(1.0), 0.01).unwrap();
        assert!((sw.width.um() - 0.098673).abs() < 1e-5, "{}", sw.width.um());
        let small = drowsy_supply_switch(&g, Power::from_nw(1.0), 0.01).unwrap();
        assert!(
            (small.width.um() - 0.0675).abs() < 1e-9,
            "{}",
            small.width.um()
        );
        assert!(small.area < sw.area);
        assert!(drowsy_supply_switch(&g, Power::from_uw(1.0), 0.0).is_err());
    }

    /// A row header is sized for the current the row draws from V_dd on a write (its pull-up
    /// PMOS), not for CACTI-P's read current of a cell (`2 I_on,n W_pd`), and with the rail
    /// allowed down to V_ccmin. At every node, for a register row of gtx480 (136 cells) and a
    /// wide one (1152): an off row leaks less than an off sub-array of the same columns, the
    /// header is a few per cent of the row's cells (published per-row schemes: 3-5 %; the
    /// bound is 10 %), and the row wakes from off (full swing) within one cycle of the
    /// fastest preset core clock (rtx2060, 1365 MHz: 0.733 ns), the one-cycle wake-up seed
    /// 002 §8.3 assumes.
    #[test]
    fn row_header_is_a_few_percent_and_wakes_within_a_cycle() {
        for nm in [90.0, 65.0, 45.0, 40.0, 32.0, 22.0, 12.0] {
            let g = gt(nm);
            // hand formula: I_on,n x W_pu / (n/p)
            let by_hand =
                g.cell_dev.i_on_n.times(g.cell_pmos_w).a() / g.cell_dev.n_to_p_drive_ratio;
            assert!((g.cell_write_supply_current().a() / by_hand - 1.0).abs() < 1e-12);
            let leak = CellLeakage {
                subthreshold_per_cell: Power::from_nw(50.0),
                gate_per_cell: Power::from_nw(5.0),
            };
            for bits in [136, 1152] {
                let reg = register_gating(&g, bits, &leak, Retention::Off, 0.01).unwrap();
                let sub = subarray_gating(&g, 64, bits, &leak, Retention::Off, 0.01).unwrap();
                assert!(reg.gated_leakage < sub.gated_leakage, "{nm} nm");
                assert!(
                    reg.area_overhead > 0.005 && reg.area_overhead < 0.10,
                    "{nm} nm {bits}: {}",
                    reg.area_overhead
                );
                assert!(
                    reg.wakeup_latency.ns() < 1e3 / 1365.0,
                    "{nm} nm {bits}: {} ns",
                    reg.wakeup_latency.ns()
                );
                // the drowsy row adds only its small V_ccmin switch
                let dro = register_gating(&g, bits, &leak, Retention::Vccmin, 0.01).unwrap();
                assert_eq!(dro.sleep_tx.width, reg.sleep_tx.width);
                let extra = dro.sleep_area.um2() - reg.sleep_area.um2();
                assert!(
                    extra > 0.0 && extra < 0.25 * reg.sleep_area.um2(),
                    "{nm} nm"
                );
            }
        }
    }

    #[test]
    fn bad_inputs() {
        let g = gt(45.0);
        let leak = CellLeakage {
            subthreshold_per_cell: Power::from_nw(1.0),
            gate_per_cell: Power::ZERO,
        };
        assert!(matches!(
            subarray_gating(&g, 0, 8, &leak, Retention::Off, 0.01),
            Err(GatingError::Zero(_))
        ));
        assert!(matches!(
            register_gating(&g, 8, &leak, Retention::Off, 0.0),
            Err(GatingError::BadPerfLoss(_))
        ));
    }

    /// Reference rows with power gating on: CACTI's own organisation (Ndwl, Ndbl, Nspd) and
    /// active-mat counts from the CSV, our sleep-transistor model, relative errors per column.
    /// Run with `--nocapture` to see the table.
    #[test]
    fn cacti_pg_columns_error() {
        let text = crate::calibrate::TRAIN_CSV;
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |k: &str| header.iter().position(|h| *h == k).unwrap();
        let mut errs: [Vec<f64>; 4] = Default::default();
        println!("name | width um (cacti, ours) | area mm2 | wake ns | wake nJ");
        for l in lines {
            let f: Vec<&str> = l.split(',').collect();
            if f[col("pg_subarray_sleep_tx_um")].is_empty() {
                continue;
            }
            let num = |k: &str| f[col(k)].parse::<f64>().unwrap();
            let t =
                Technology::for_node(num("tech_nm"), Temperature::from_k(num("temp_K"))).unwrap();
            let cell: DeviceFlavor = f[col("cell_type")].parse().unwrap();
            let peri: DeviceFlavor = f[col("peri_type")].parse().unwrap();
            let g = GatingTech::new(&t, cell, peri).unwrap();
            let banks = num("banks");
            let assoc = num("assoc");
            let sets = num("size_bytes") / (banks * num("block_bytes") * assoc);
            let (ndwl, ndbl, nspd) = (num("Ndwl"), num("Ndbl"), num("Nspd"));
            let rows = sets / (ndbl * nspd);
            let mut cols = num("block_bytes") * 8.0 * assoc * nspd / ndwl;
            if f[col("ecc")] == "true" {
                cols += (cols / 8.0).ceil();
            }
            let per_mat = num("pg_active_subarrays_per_mat");
            let r = cacti_array_gating(
                &g,
                rows as u32,
                cols as u32,
                (ndwl * ndbl) as u32,
                ((ndwl * ndbl) / per_mat).max(1.0) as u32,
                num("pg_active_mats") as u32,
                num("pg_perfloss"),
            )
            .unwrap();
            let pairs = [
                (num("pg_subarray_sleep_tx_um"), r.sleep_tx_width.um()),
                (num("pg_subarray_sleep_area_mm2"), r.sleep_area.mm2()),
                (num("pg_subarray_wakeup_ns"), r.wakeup_latency.ns()),
                (num("pg_subarray_wakeup_nJ"), r.wakeup_energy.nj()),
            ];
            print!("{}", f[0]);
            for (i, (c, o)) in pairs.iter().enumerate() {
                let e = (o - c) / c;
                errs[i].push(e);
                print!(" | {c:.4e} {o:.4e} ({:+.1}%)", 100.0 * e);
            }
            println!();
        }
        let names = ["sleep_tx_um", "sleep_area_mm2", "wakeup_ns", "wakeup_nJ"];
        for (i, e) in errs.iter().enumerate() {
            let mean_abs = e.iter().map(|x| x.abs()).sum::<f64>() / e.len() as f64;
            let max_abs = e.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            println!(
                "{}: n={} mean |err| {:.1}% max |err| {:.1}%",
                names[i],
                e.len(),
                100.0 * mean_abs,
                100.0 * max_abs
            );
        }
        assert_eq!(errs[0].len(), 12);
        // Tolerances per column (mean |err|, worst |err|), at CACTI's own organisation:
        // - the sleep-transistor width is CACTI-P's equation on CACTI's cell: exact (2 %);
        // - the sleep-transistor area folds that width into the sub-array's pitch, which our
        //   layout rules approximate (measured 13.0 % / 28.4 %): the brief's 15 % mean target,
        //   30 % worst;
        // - wake-up time and energy follow from the gated capacitance, which our SRAM
        //   periphery model estimates within its own 15 % (measured 11.0 % / 20.7 %): 15 % mean,
        //   25 % worst.
        let tol = [(0.02, 0.02), (0.15, 0.30), (0.15, 0.25), (0.15, 0.25)];
        for (i, e) in errs.iter().enumerate() {
            let mean_abs = e.iter().map(|x| x.abs()).sum::<f64>() / e.len() as f64;
            let max_abs = e.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            assert!(
                mean_abs <= tol[i].0 && max_abs <= tol[i].1,
                "{}: mean {mean_abs:.3} max {max_abs:.3} against {:?}",
                names[i],
                tol[i]
            );
        }
    }
}
