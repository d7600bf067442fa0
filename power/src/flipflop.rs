//! Flip-flop array: `entries` words of `width` bits held in D flip-flops, written one word per
//! clock and read one word at a time through a tristate read port (operand-collector operand
//! buffers, pipeline latches, small queues).
//!
//! The storage element is McPAT 1.3's NAND2-based D flip-flop (`logic.cc`, `DFFCell`, built
//! on CACTI's `basic_circuit.cc` primitives): five NAND2 and one NAND3 at CACTI's minimum
//! peripheral widths. With `C(fan_in, fan_out) = C_d,N(stack 2) + fan_in·C_d,P +
//! fan_out·C_g(N + P)` (McPAT `fpfp_node_cap`):
//!
//! * node capacitances `c1 = c5 = c6 = C(2,1)`, `c2 = C(2,3)`, `c3 = C(3,2)`, `c4 = C(2,2)`;
//! * clock load `C_clk = 2·C_g(N + P)`; a clocked flop draws `E_clock = C_clk·V²` (the clock
//!   rises and falls every cycle, no ½);
//! * a flop whose data changes draws `E_switch = ½(c1 + … + c6)·V²`, one that keeps a 1
//!   `E_keep1 = c3·V²`, one that keeps a 0 `E_keep0 = c2·V²`;
//! * McPAT `Pipeline::compute` weights switch / keep-1 / keep-0 equally (⅓ each) for data of
//!   unknown statistics; we do the same, so one written bit costs
//!   `E_bit,w = E_clock + (E_switch + E_keep1 + E_keep0) / 3`;
//! * leakage per flop: `5·I_sub(NAND2) + I_sub(NAND3)` times V (McPAT), gate leakage alike;
//! * area per flop: `5·A(NAND2) + A(NAND2, N-only widths)` at CACTI's 50 F standard-cell
//!   height (McPAT's `DFFCell` area).
//!
//! Array: only the written word is clocked (clock gating per word, as register files and
//! McPAT's per-stage pipeline registers assume). The write-data line of each bit runs past
//! all `entries` flops (`entries` NAND2 input loads plus a local wire of the array's height,
//! `entries × cell height`); the read port is one tristate output buffer per flop (CACTI
//! `crossbar.cc`'s tristate, minimum size) on a shared output line per bit loaded by the
//! `entries` tristate drains, the same wire, and the consumer: `output_load`. Data lines
//! switch with the 0→1 probability ¼ of random data (`E = ¼·C·V²` per line, Rabaey,
//! *Digital Integrated Circuits* 2nd ed. §5.5), the selected word's enables every access.

use crate::crossbar::{LogicTech, StructureError};
use crate::gating::circuit::{gate_area, igate, isub, GateType};
use regwatt_tech::units::{Area, Capacitance, Energy, Length, Power};
use serde::Serialize;

/// 0→1 transition probability of a line carrying random data.
pub const ALPHA_DATA: f64 = 0.25;

/// Flip-flop array input.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FlipFlopSpec {
    /// Words held.
    pub entries: u32,
    /// Bits per word.
    pub width_bits: u32,
    /// Capacitance each read-out bit drives beyond the array (consumer input + wire).
    pub output_load: Capacitance,
}

/// Flip-flop array result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FlipFlopResult {
    /// Energy to write one word.
    pub write_energy: Energy,
    /// Energy to read one word out.
    pub read_energy: Energy,
    /// Subthreshold leakage of the array.
    pub leakage: Power,
    /// Gate leakage of the array.
    pub gate_leakage: Power,
    /// Area.
    pub area: Area,
    /// One flop's energies (McPAT `DFFCell`): clock, data switch, keep 1, keep 0.
    pub flop: FlopEnergies,
}

/// Per-flop energies of McPAT's `DFFCell`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FlopEnergies {
    /// `E_clock = C_clk V²`.
    pub clock: Energy,
    /// `E_switch = ½ Σ c_i V²` (no external load).
    pub switch: Energy,
    /// `E_keep1 = c3 V²`.
    pub keep1: Energy,
    /// `E_keep0 = c2 V²`.
    pub keep0: Energy,
}

/// McPAT `DFFCell` energies, leakage current (sub, gate) and area at minimum widths.
fn dff_cell(t: &LogicTech) -> (FlopEnergies, f64, f64, Area) {
    let (wn, wp) = (t.wn(), t.wp());
    let v2 = t.dev.vdd.v().powi(2);
    // McPAT fpfp_node_cap: stacked NMOS drain (stack 2) + fan_in PMOS drains + fan_out gates
    let node = |fan_in: f64, fan_out: f64| -> f64 {
        let cdn = crate::gating::circuit::drain_c(
            &t.dev,
            &t.layout,
            wn,
            true,
            2,
            crate::gating::circuit::Fold::CellHeight(t.layout.cell_h_def()),
            t.local_wire.c_per_length.f_per_um(),
        );
        (cdn + t.cd(wp, false) * fan_in + t.cg(wn + wp) * fan_out).f()
    };
    let c1 = node(2.0, 1.0);
    let c2 = node(2.0, 3.0);
    let c3 = node(3.0, 2.0);
    let c4 = node(2.0, 2.0);
    let clk = 2.0 * t.cg(wn + wp).f();
    let e = FlopEnergies {
        clock: Energy::from_j(clk * v2),
        switch: Energy::from_j(0.5 * (c4 + 3.0 * c1 + c2 + c3) * v2),
        keep1: Energy::from_j(c3 * v2),
        keep0: Energy::from_j(c2 * v2),
    };
    let i_sub = 5.0 * isub(&t.dev, wn, wp, 2, GateType::Nand).a()
        + isub(&t.dev, wn, wn, 3, GateType::Nand).a();
    let i_g = 5.0 * igate(&t.dev, wn, wp, 2).a() + igate(&t.dev, wn, wn, 3).a();
    let h = t.layout.cell_h_def();
    let area = gate_area(&t.layout, 2, wn, wp, h) * 5.0 + gate_area(&t.layout, 2, wn, wn, h);
    (e, i_sub, i_g, area)
}

/// Evaluates a flip-flop array (see module docs).
pub fn flipflop_array(t: &LogicTech, s: &FlipFlopSpec) -> Result<FlipFlopResult, StructureError> {
    for (field, v) in [("entries", s.entries), ("width_bits", s.width_bits)] {
        if v == 0 || v > 1 << 20 {
            return Err(StructureError::BadCount {
                field,
                value: u64::from(v),
                msg: "must be in 1..=1048576",
            });
        }
    }
    let load = s.output_load.f();
    if !(load.is_finite() && load >= 0.0) {
        return Err(StructureError::BadCapacitance {
            field: "output_load",
            value_ff: s.output_load.ff(),
        });
    }
    let (rows, bits) = (f64::from(s.entries), f64::from(s.width_bits));
    let v = t.dev.vdd.v();
    let v2 = v * v;
    let (wn, wp) = (t.wn(), t.wp());
    let (fl, i_sub_ff, i_g_ff, a_ff) = dff_cell(t);
    // line running past all entries: local wire of the array height (entries x cell height)
    let h = t.layout.cell_h_def();
    let line: Length = h * rows;
    let c_wire = t.local_wire.c_per_length.times(line).f();
    // write: data line into `entries` NAND2 inputs, the written word's clock, its flops
    let c_din = rows * t.cg(wn + wp).f() + c_wire;
    let e_bit_w = fl.clock.j() + (fl.switch.j() + fl.keep1.j() + fl.keep0.j()) / 3.0;
    let write = bits * (e_bit_w + ALPHA_DATA * c_din * v2) + bits * t.cg(wn + wp).f() * v2;
    // read: tristate (minimum inverter output pair) per flop on the shared output line
    let c_tri_out = (t.cd(wn, true) + t.cd(wp, false)).f();
    let c_out_line = rows * c_tri_out + c_wire + load;
    let c_enable = bits * t.cg(wn + wp).f(); // the selected word's tristate enables
    let read = bits * ALPHA_DATA * c_out_line * v2 + c_enable * v2;
    // leakage: flops + tristates (inverter-equivalent)
    let n_ff = rows * bits;
    let i_tri = isub(&t.dev, wn, wp, 1, GateType::Inv).a();
    let ig_tri = igate(&t.dev, wn, wp, 1).a();
    let a_tri = gate_area(&t.layout, 1, wn, wp, h);
    Ok(FlipFlopResult {
        write_energy: Energy::from_j(write),
        read_energy: Energy::from_j(read),
        leakage: Power::from_w(n_ff * (i_sub_ff + i_tri) * v),
        gate_leakage: Power::from_w(n_ff * (i_g_ff + ig_tri) * v),
        area: (a_ff + a_tri) * n_ff,
        flop: fl,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_tech::units::Temperature;
    use regwatt_tech::{DeviceFlavor, Technology};

    fn lt(nm: f64) -> LogicTech {
        let t = Technology::for_node(nm, Temperature::from_k(360.0)).unwrap();
        LogicTech::new(&t, DeviceFlavor::ItrsHp).unwrap()
    }

    fn spec(entries: u32, width_bits: u32) -> FlipFlopSpec {
        FlipFlopSpec {
            entries,
            width_bits,
            output_load: Capacitance::ZERO,
        }
    }

    /// By hand from `tech/nodes/45nm.toml` (itrs-hp; F = 0.045 um, V = 1.0 V; gate C
    /// 9.636e-16 F/um; C_junc 1e-15 F/um^2, sidewall 2.5e-16 F/um, overlap + fringe
    /// 1.856e-16 F/um; local wire 2.58017e-16 F/um), not through the code under test.
    /// * Minimum widths N 1.5 F = 0.0675 um, P 2.41 x 0.0675 = 0.162675 um: C_g(N + P)
    ///   = 0.221797 fF. Drains (unfolded): N stacked 2 (drain width 3 F + 1.5 F = 0.2025 um):
    ///   1e-15 x 0.2025 x 0.0675 + 2.5e-16 x (0.0675 + 0.405) + 2 x 1.856e-16 x 3 x 0.0675
    ///   = 0.206962 fF; P (0.135 um): 0.190515 fF.
    /// * Nodes C(fi, fo) = 0.206962 + fi x 0.190515 + fo x 0.221797: c1 = C(2,1) = 0.809788,
    ///   c2 = C(2,3) = 1.253381, c3 = C(3,2) = 1.222100, c4 = C(2,2) = 1.031585 fF.
    /// * E_clock = 2 x 0.221797 = 0.443593 fJ; E_switch = (c4 + 3 c1 + c2 + c3) / 2
    ///   = 2.968215 fJ; E_keep1 = c3, E_keep0 = c2.
    /// * One 1-bit word: E_w = E_clock + (2.968215 + 1.222100 + 1.253381) / 3 + 1/4 (C_g(N+P)
    ///   + wire 50 F x 2.58017e-16 = 0.580538 fF) + C_g(N+P) = 2.680539 fJ.
    #[test]
    fn one_flop_hand_values() {
        let r = flipflop_array(&lt(45.0), &spec(1, 1)).unwrap();
        let close = |got: f64, want: f64| (got - want).abs() < 1e-5 * want;
        assert!(close(r.flop.clock.fj(), 0.443593), "{}", r.flop.clock.fj());
        assert!(
            close(r.flop.switch.fj(), 2.968215),
            "{}",
            r.flop.switch.fj()
        );
        assert!(close(r.flop.keep1.fj(), 1.222100), "{}", r.flop.keep1.fj());
        assert!(close(r.flop.keep0.fj(), 1.253381), "{}", r.flop.keep0.fj());
        assert!(
            close(r.write_energy.fj(), 2.680539),
            "{}",
            r.write_energy.fj()
        );
        assert!(r.leakage.w() > 0.0 && r.area.um2() > 0.0);
    }

    #[test]
    fn scales_with_size() {
        let t = lt(40.0);
        let a = flipflop_array(&t, &spec(3, 1024)).unwrap();
        let b = flipflop_array(&t, &spec(6, 1024)).unwrap();
        // leakage and area proportional to the bit count
        assert!((b.leakage.w() / a.leakage.w() - 2.0).abs() < 1e-9);
        assert!((b.area.um2() / a.area.um2() - 2.0).abs() < 1e-9);
        // longer lines cost more per access
        assert!(b.write_energy > a.write_energy && b.read_energy > a.read_energy);
        // twice the width, twice the energy (+ nothing else)
        let w = flipflop_array(&t, &spec(3, 2048)).unwrap();
        assert!((w.write_energy.j() / a.write_energy.j() - 2.0).abs() < 1e-9);
        // an external load raises read energy only
        let l = flipflop_array(
            &t,
            &FlipFlopSpec {
                output_load: Capacitance::from_ff(10.0),
                ..spec(3, 1024)
            },
        )
        .unwrap();
        assert!(l.read_energy > a.read_energy && l.write_energy == a.write_energy);
    }

    #[test]
    fn smaller_node_costs_less() {
        let a = flipflop_array(&lt(40.0), &spec(3, 1024)).unwrap();
        let b = flipflop_array(&lt(12.0), &spec(3, 1024)).unwrap();
        assert!(b.write_energy < a.write_energy && b.read_energy < a.read_energy);
        assert!(b.area < a.area && b.leakage < a.leakage);
    }

    #[test]
    fn bad_input() {
        let t = lt(45.0);
        assert!(matches!(
            flipflop_array(&t, &spec(0, 8)),
            Err(StructureError::BadCount {
                field: "entries",
                ..
            })
        ));
        assert!(flipflop_array(
            &t,
            &FlipFlopSpec {
                output_load: Capacitance::from_ff(-1.0),
                ..spec(1, 8)
            }
        )
        .is_err());
    }
}
