//! Small logic structures around the RF banks: latch arrays (operand-collector storage), the
//! bank → collector crossbar and the per-bank arbiter, from CACTI 7's transistor primitives
//! (`regwatt_power::gating::circuit`: gate/drain capacitance, subthreshold leakage, gate area).
//!
//! **Interim.** `regwatt-power` is getting its own crossbar and arbiter estimators (issue 5,
//! part 2); these closed forms stand in until they land and are then replaced by calls to
//! them. Every equation below cites the model it simplifies.
//!
//! Conventions: `Wn = 1.5 F` (CACTI `min_w_nmos_`), `Wp = n_to_p_drive_ratio × Wn` (CACTI
//! sizes PMOS for equal drive), peripheral cell height `50 F` (CACTI `cell_h_def`). Data
//! activity: random data switches a node 0→1 with probability `α = 1/4`, and the energy
//! drawn per 0→1 transition is `C·Vdd²` (Rabaey, *Digital Integrated Circuits*, 2nd ed.,
//! §5.5: `P = α₀→₁ C V² f`); clocks switch every cycle (`α = 1`).

use regwatt_power::gating::circuit::{
    drain_c, gate_area, gate_c, igate, isub, Fold, GateType, Layout,
};
use regwatt_tech::units::{Area, Capacitance, Energy, Power};
use regwatt_tech::{DeviceFlavor, TechError, Technology};
use serde::Serialize;

/// 0→1 transition probability of random data (Rabaey §5.5).
pub const ALPHA_DATA: f64 = 0.25;

/// Per-operation energies, leakage and area of one instance of a structure.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogicCost {
    /// Energy of the structure's main operation (see the constructor).
    pub op_energy: Energy,
    /// Energy of the secondary operation (reads of a latch array; 0 where none).
    pub op2_energy: Energy,
    /// Subthreshold + gate leakage power.
    pub leakage: Power,
    /// Layout area.
    pub area: Area,
}

struct Gates {
    vdd2: f64,
    /// Input capacitance of an inverter (one N + one P gate).
    c_in: Capacitance,
    /// Output (drain) capacitance of an inverter.
    c_out: Capacitance,
    /// Leakage power of one inverter.
    p_inv: Power,
    /// Area of one inverter.
    a_inv: Area,
}

fn gates(tech: &Technology) -> Result<Gates, TechError> {
    let dev = tech.device(DeviceFlavor::ItrsHp)?;
    let layout = Layout {
        f: tech.feature_size,
    };
    let wn = layout.min_w_nmos();
    let wp = wn * dev.n_to_p_drive_ratio.max(1.0);
    let h = layout.cell_h_def();
    let local = tech.wires.local.c_per_length.f_per_um();
    let c_in = gate_c(dev, wn) + gate_c(dev, wp);
    let c_out = drain_c(dev, &layout, wn, true, 1, Fold::CellHeight(h), local)
        + drain_c(dev, &layout, wp, false, 1, Fold::CellHeight(h), local);
    let vdd = dev.vdd.v();
    let i = isub(dev, wn, wp, 1, GateType::Inv).a() + igate(dev, wn, wp, 1).a();
    Ok(Gates {
        vdd2: vdd * vdd,
        c_in,
        c_out,
        p_inv: Power::from_w(i * vdd),
        a_inv: gate_area(&layout, 1, wn, wp, h),
    })
}

/// A latch array of `bits` bits (operand-collector operand slots).
///
/// Per bit, a transmission-gate latch (simplified McPAT 1.3 `logic.cc` `DFFCell`: clock load
/// of two transmission gates, a storage node of two cross-coupled inverters) plus a
/// tri-state read driver:
/// * write (per bit): `E_w = C_clk·V² + α·C_node·V²`, `C_clk = 2·C_in`,
///   `C_node = 2·C_in + 2·C_out`;
/// * read (per bit): `E_r = α·(C_out + C_in)·V²` (driver drain + the consumer's gate);
/// * leakage: 5 inverter-equivalents per bit (2 storage, 2 transmission gates, 1 driver);
/// * area: 5 inverter areas per bit (CACTI `compute_gate_area`).
///
/// `op_energy` = write of `width` bits, `op2_energy` = read of `width` bits.
pub fn latch_array(tech: &Technology, bits: u64, width: u32) -> Result<LogicCost, TechError> {
    let g = gates(tech)?;
    let w = f64::from(width);
    let c_clk = g.c_in * 2.0;
    let c_node = g.c_in * 2.0 + g.c_out * 2.0;
    let e_w = (c_clk.f() + ALPHA_DATA * c_node.f()) * g.vdd2;
    let e_r = ALPHA_DATA * (g.c_out + g.c_in).f() * g.vdd2;
    let b = bits as f64;
    Ok(LogicCost {
        op_energy: Energy::from_j(e_w * w),
        op2_energy: Energy::from_j(e_r * w),
        leakage: g.p_inv * (5.0 * b),
        area: g.a_inv * (5.0 * b),
    })
}

/// A matrix crossbar from `n_in` input ports to `n_out` output ports, `width` bits each
/// (after CACTI 7 `crossbar.cc` `Crossbar::compute_power` and ORION 2.0's matrix crossbar,
/// Kahng et al., DATE 2009):
/// * each input bit line runs across all outputs, `L_in = n_out · width · pitch`; each output
///   bit line across all inputs, `L_out = n_in · width · pitch` (semi-global wire pitch);
/// * every crosspoint is a transmission gate: an input line carries `n_out` drain loads, an
///   output line `n_in`;
/// * transfer of one `width`-bit word: `E = width · α · (c_wire·(L_in + L_out) +
///   (n_in + n_out)·C_out + C_in)·V² + width · C_in · V²` (data lines + the selected
///   crosspoint column's enables, which switch every transfer);
/// * leakage: `n_in · n_out · width` transmission gates (inverter-equivalents);
/// * area: the wire matrix, `(n_in · width · pitch) × (n_out · width · pitch)`.
///
/// `op_energy` = one transfer.
pub fn crossbar(
    tech: &Technology,
    n_in: u32,
    n_out: u32,
    width: u32,
) -> Result<LogicCost, TechError> {
    let g = gates(tech)?;
    let wire = &tech.wires.semi_global;
    let (ni, no, w) = (f64::from(n_in), f64::from(n_out), f64::from(width));
    let l_in = wire.pitch * (no * w);
    let l_out = wire.pitch * (ni * w);
    let c_line = wire.c_per_length.times(l_in + l_out) + g.c_out * (ni + no) + g.c_in;
    let e = w * (ALPHA_DATA * c_line.f() + g.c_in.f()) * g.vdd2;
    Ok(LogicCost {
        op_energy: Energy::from_j(e),
        op2_energy: Energy::ZERO,
        leakage: g.p_inv * (ni * no * w),
        area: Area::from_m2((ni * w * wire.pitch.m()) * (no * w * wire.pitch.m())),
    })
}

/// A matrix arbiter among `requesters` (after ORION 2.0's matrix arbiter, Kahng et al., DATE
/// 2009, as in McPAT 1.3 `logic.cc` `MCPAT_Arbiter`): `R(R−1)/2` priority latches and `R`
/// grant gates of fan-in `R`.
/// * one arbitration: `E = α·R·((R−1)·C_in + C_out)·V²` (request lines into the other rows'
///   grant gates, grant outputs) `+ (R−1)·E_latch` (the granted row's priorities flip);
/// * leakage and area: `R(R−1)/2` latches (5 inverter-equivalents each) + `R` gates.
///
/// `op_energy` = one grant.
pub fn matrix_arbiter(tech: &Technology, requesters: u32) -> Result<LogicCost, TechError> {
    let g = gates(tech)?;
    let r = f64::from(requesters.max(1));
    let latch = latch_array(tech, 1, 1)?;
    let e = ALPHA_DATA * r * ((r - 1.0) * g.c_in.f() + g.c_out.f()) * g.vdd2
        + (r - 1.0) * latch.op_energy.j();
    let latches = r * (r - 1.0) / 2.0;
    Ok(LogicCost {
        op_energy: Energy::from_j(e),
        op2_energy: Energy::ZERO,
        leakage: latch.leakage * latches + g.p_inv * r,
        area: latch.area * latches + g.a_inv * r,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_tech::units::Temperature;

    fn tech(nm: f64) -> Technology {
        Technology::for_node(nm, Temperature::from_k(360.0)).expect("node")
    }

    #[test]
    fn costs_are_positive_and_scale_with_size() {
        let t = tech(40.0);
        let a = latch_array(&t, 1024, 1024).expect("latch");
        let b = latch_array(&t, 2048, 1024).expect("latch");
        assert!(a.op_energy.j() > 0.0 && a.op2_energy.j() > 0.0);
        assert!((b.leakage / a.leakage - 2.0).abs() < 1e-9);
        assert!((b.area / a.area - 2.0).abs() < 1e-9);
        let x2 = crossbar(&t, 2, 2, 1024).expect("xbar");
        let x8 = crossbar(&t, 4, 16, 128).expect("xbar");
        assert!(x2.op_energy.j() > 0.0 && x8.op_energy.j() > 0.0);
        let wider = crossbar(&t, 2, 4, 1024).expect("xbar");
        assert!(wider.op_energy > x2.op_energy && wider.area > x2.area);
        let a2 = matrix_arbiter(&t, 2).expect("arb");
        let a16 = matrix_arbiter(&t, 16).expect("arb");
        assert!(a16.op_energy > a2.op_energy && a16.leakage > a2.leakage);
    }

    #[test]
    fn smaller_node_costs_less_per_operation() {
        let (t40, t12) = (tech(40.0), tech(12.0));
        let l40 = latch_array(&t40, 64, 64).expect("latch");
        let l12 = latch_array(&t12, 64, 64).expect("latch");
        assert!(l12.op_energy < l40.op_energy);
        assert!(l12.area < l40.area);
        let x40 = crossbar(&t40, 2, 2, 1024).expect("xbar");
        let x12 = crossbar(&t12, 2, 2, 1024).expect("xbar");
        assert!(x12.op_energy < x40.op_energy);
    }
}
