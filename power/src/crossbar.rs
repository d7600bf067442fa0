//! N×M crossbar of `width`-bit ports (CACTI 7 `crossbar.cc`, `Crossbar::compute_power`).
//!
//! Structure (CACTI): `N` horizontal input buses cross `M` vertical output buses; at each
//! crosspoint and bit a tristate buffer (NAND2 + NOR2 driving a P/N output pair, CACTI
//! `output_buffer`) connects the input wire to the output wire. One transfer moves one
//! `width`-bit word from one input to one output: it switches one input wire (loaded by the `M`
//! tristate inputs along it), one output wire (loaded by the `N` tristate outputs along it),
//! one tristate's control and internal nodes, per bit:
//!
//! `E = width · (E_wire(L_in) + E_wire(L_out) + (M·C_tri,in + N·C_tri,out + C_ctrl + C_int)·V_dd²)`
//!
//! Wire lengths: CACTI derives them from the wire pitch (`L_out = pitch · N · width`,
//! `L_in = max(tristate width · n_tri · M, pitch · M · width)`); a crossbar that connects a
//! floorplan (e.g. operand collectors to register banks) instead takes the floorplan's side
//! lengths ([`Geometry::Sides`]), never shorter than the pitch-limited minimum.
//!
//! Area: the silicon of a crossbar is its crosspoint matrix at wire pitch,
//! `min_w × min_h` with `min_h = pitch · N · width` and `min_w = max(tristate width · n_tri · M,
//! pitch · M · width)` ([`Topology::Matrix`]) or `pitch · M · width` ([`Topology::MuxTree`]).
//! This is CACTI 7's crossbar area (`crossbar.cc`, `Crossbar::compute_power`: `area.w =
//! wire_len`, `area.h = pitch · n_inp · flit_size`, computed from the tristates and the wire
//! pitch only), ORION 2.0's (Kahng et al., DATE 2009: `(w · t_p · I) · (w · t_p · O)` for an
//! `I × O` crossbar of `w`-bit ports at track pitch `t_p`) and BookSim 2's ORION-derived
//! `Power_Module::areaCrossbar` (`(I · w · p) · (O · w · p)`), whose channel area likewise
//! counts only the repeaters and flip-flops of a wire (`areaChannel`), never the rectangle
//! it spans. So with [`Geometry::Sides`] the floorplan's wires — e.g. bank → collector buses
//! routed on upper metal over the register banks they connect — set the energy, delay and
//! repeater leakage, and add their repeaters' silicon ([`RepeatedWire::area`]), but the
//! rectangle they span is not crossbar area: it is the banks' own area, counted there. With
//! [`Geometry::Pitch`] the area is CACTI's matrix alone (CACTI counts no repeater area).
//!
//! Two crosspoint circuits ([`Topology`]):
//! * [`Topology::Matrix`] — CACTI's: a tristate buffer at every crosspoint and bit, sized to
//!   drive the output wire (the equations above and below). `N·M·width` wire-sized drivers
//!   leak a lot when ports are wide (a 2×2 crossbar of 1024-bit ports has 4096 of them).
//! * [`Topology::MuxTree`] — ORION 2.0's multiplexer-tree crossbar (Kahng, Li, Peh, Samadi,
//!   "ORION 2.0", DATE 2009, §3.2): each output bit selects its input through a tree of
//!   `N − 1` 2:1 transmission-gate multiplexers (`⌈log₂ N⌉` levels) at minimum size and drives
//!   its output wire from one driver (the output wire's first repeater). Per transfer and bit:
//!   `E = E_wire(L_in) + E_wire(L_out) + (⌈log₂ N⌉·C_node + C_sel)·V_dd²` with a mux node
//!   `C_node = 3·(C_d,N + C_d,P)` (two transmission-gate outputs and the next gate's input
//!   diffusion) and the select lines `C_sel = ⌈log₂ N⌉·C_g(N + P)` per bit; leakage `(N − 1)` off
//!   transmission gates (inverter-equivalent, CACTI `cmos_Isub_leakage`) per output bit plus the
//!   wires' repeaters. This is the usual circuit for small-radix, wide crossbars such as a
//!   register file's bank → operand-collector crossbar.
//!
//! Wires are repeated semi-global wires (CACTI's `wire_outside_mat` in the default
//! configuration) with delay-optimal repeaters (Bakoglu & Meindl, IEEE TED 1985); a wire
//! shorter than the optimal repeater spacing gets one driver scaled by `L / spacing` (CACTI
//! `output_buffer`). Tristate sizes: CACTI `TriS2 = s1` (the wire driver), `TriS1 = s1 (1 + p)
//! / (3 + 3p)`, at least 1. Leakage: CACTI's per-crosspoint gate sum (INV 2·TriS2, NAND2 and
//! NOR2 of 3·TriS1) plus the repeaters. Delay: Horowitz (1984) step response of the driver
//! resistance + wire resistance into wire + tristate capacitance (CACTI `compute_power`).

use crate::gating::circuit::{drain_c, gate_area, gate_c, igate, isub, Fold, GateType, Layout};
use regwatt_tech::units::{Area, Capacitance, Energy, Length, Power, Time};
use regwatt_tech::{Device, DeviceFlavor, Technology, Wire};
use serde::Serialize;

/// Errors of the crossbar / arbiter / CAM models.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StructureError {
    /// A count is zero or too large.
    #[error("{field} = {value}: {msg}")]
    BadCount {
        /// Field.
        field: &'static str,
        /// Value.
        value: u64,
        /// Rule.
        msg: &'static str,
    },
    /// A length is not positive and finite.
    #[error("{field}: length {value_um} um must be positive and finite")]
    BadLength {
        /// Field.
        field: &'static str,
        /// Value in µm.
        value_um: f64,
    },
    /// A capacitance is negative or not finite.
    #[error("{field}: capacitance {value_ff} fF must be >= 0 and finite")]
    BadCapacitance {
        /// Field.
        field: &'static str,
        /// Value in fF.
        value_ff: f64,
    },
    /// The technology lacks the flavour.
    #[error("technology: {0}")]
    Technology(String),
    /// The SRAM model refused the tag array.
    #[error("tag array: {0}")]
    Sram(String),
}

fn count(field: &'static str, v: u32, max: u32) -> Result<f64, StructureError> {
    if v == 0 {
        return Err(StructureError::BadCount {
            field,
            value: 0,
            msg: "must be >= 1",
        });
    }
    if v > max {
        return Err(StructureError::BadCount {
            field,
            value: v as u64,
            msg: "is larger than this model supports",
        });
    }
    Ok(v as f64)
}

/// Peripheral-logic technology view shared by the crossbar, arbiter and CAM models.
#[derive(Debug, Clone)]
pub struct LogicTech {
    /// Peripheral device.
    pub dev: Device,
    /// Layout rules.
    pub layout: Layout,
    /// Wire between blocks (semi-global).
    pub wire: Wire,
    /// Local wire (inside arrays).
    pub local_wire: Wire,
}

impl LogicTech {
    /// From a technology and a peripheral flavour.
    pub fn new(tech: &Technology, peri: DeviceFlavor) -> Result<LogicTech, StructureError> {
        Ok(LogicTech {
            dev: tech
                .device(peri)
                .map_err(|e| StructureError::Technology(e.to_string()))?
                .clone(),
            layout: Layout::of(tech),
            wire: tech.wires.semi_global.clone(),
            local_wire: tech.wires.local.clone(),
        })
    }
    /// Minimum NMOS width.
    pub fn wn(&self) -> Length {
        self.layout.min_w_nmos()
    }
    /// Minimum PMOS width (`n/p drive ratio × 1.5 F` drawn; whole fins at a FinFET node).
    pub fn wp(&self) -> Length {
        self.layout
            .transistor(self.layout.f * (1.5 * self.dev.n_to_p_drive_ratio))
    }
    /// Effective width of a transistor CACTI draws `drawn` wide (whole fins at a FinFET
    /// node, [`Layout::transistor`]).
    pub fn w(&self, drawn: Length) -> Length {
        self.layout.transistor(drawn)
    }
    /// Drain capacitance at the standard cell height.
    pub fn cd(&self, w: Length, n: bool) -> Capacitance {
        drain_c(
            &self.dev,
            &self.layout,
            w,
            n,
            1,
            Fold::CellHeight(self.layout.cell_h_def()),
            self.local_wire.c_per_length.f_per_um(),
        )
    }
    /// Gate capacitance.
    pub fn cg(&self, w: Length) -> Capacitance {
        gate_c(&self.dev, w)
    }
}

/// A repeated wire of a given length (Bakoglu & Meindl 1985 delay-optimal repeaters).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RepeatedWire {
    /// Length.
    pub length: Length,
    /// Repeater size (× minimum inverter).
    pub repeater_size: f64,
    /// Repeater spacing.
    pub repeater_spacing: Length,
    /// Energy per transition (wire + repeaters), `C · V_dd²`.
    pub energy: Energy,
    /// Subthreshold leakage of the repeaters.
    pub leakage: Power,
    /// Gate leakage of the repeaters.
    pub gate_leakage: Power,
    /// Delay.
    pub delay: Time,
    /// Number of repeaters (a wire shorter than the spacing has one, scaled, driver).
    pub repeaters: f64,
    /// Silicon area of the repeaters: `repeaters` inverters of `repeater_size` × minimum at
    /// the standard cell height (CACTI `compute_gate_area(INV, 1, …, cell_h_def)`). The
    /// wire itself runs on upper metal and takes no silicon.
    pub area: Area,
}

/// Delay penalty allowed when sizing repeaters for energy: CACTI's default wire type for
/// wires outside the mats, `Global_30` (the `-Wire signaling` entry of CACTI 7's default
/// `cache.cfg`): the repeaters that minimise switching energy while the wire stays within
/// 30 % of the delay-optimal wire's delay (CACTI 7 `wire.cc`, `Wire::init_wire`).
pub const REPEATER_DELAY_PENALTY: f64 = 0.3;

/// A repeated wire of `length`. Delay-optimal repeaters first (Bakoglu & Meindl 1985): size
/// `s = sqrt(R_0 c / (r C_0))`, spacing `l = sqrt(2 R_0 (C_0 + C_p) / (r c))` with the minimum
/// inverter's output resistance `R_0`, input `C_0` and output `C_p`, wire `r`, `c` per length;
/// delay per segment `0.69 R_0/s (s(C_0 + C_p) + c l) + r l (0.38 c l + 0.69 s C_0)`. Then, as
/// CACTI's `Wire::init_wire`, the size is swept down (100 % → 5 % of `s`, 5 % steps, at least
/// a minimum inverter) and the spacing up (1× → 5× `l`, 0.1 steps), and the configuration with
/// the lowest energy per length whose delay per length is within [`REPEATER_DELAY_PENALTY`] of
/// the optimum is kept. A wire shorter than the chosen spacing gets one driver scaled by
/// `L / spacing` (CACTI `output_buffer`).
pub fn repeated_wire(t: &LogicTech, length: Length) -> RepeatedWire {
    let r = t.wire.r_per_length.0; // Ω/m
    let c = t.wire.c_per_length.0; // F/m
    let r0 = t.dev.r_nch_on.over(t.wn()).ohm();
    let c0 = (t.cg(t.wn()) + t.cg(t.wp())).f();
    let cp = (t.cd(t.wn(), true) + t.cd(t.wp(), false)).f();
    let s_opt = (r0 * c / (r * c0)).sqrt();
    let l_opt = (2.0 * r0 * (c0 + cp) / (r * c)).sqrt();
    let seg_delay = |size: f64, l: f64| {
        0.69 * r0 / size * (size * (c0 + cp) + c * l) + r * l * (0.38 * c * l + 0.69 * size * c0)
    };
    let d_opt = seg_delay(s_opt, l_opt) / l_opt;
    let (mut s, mut l_rep, mut e_best) = (s_opt, l_opt, c + s_opt * (c0 + cp) / l_opt);
    for ki in 1..=20 {
        let size = (s_opt * f64::from(ki) * 0.05).max(1.0);
        for mi in 10..=50 {
            let l = l_opt * f64::from(mi) * 0.1;
            let e = c + size * (c0 + cp) / l;
            if seg_delay(size, l) / l <= (1.0 + REPEATER_DELAY_PENALTY) * d_opt && e < e_best {
                (s, l_rep, e_best) = (size, l, e);
            }
        }
    }
    let len = length.m().max(0.0);
    let vdd = t.dev.vdd.v();
    // number of repeaters; a short wire gets one driver scaled by L / spacing (CACTI).
    let (n, size) = if len < l_rep {
        (1.0, (s * len / l_rep).max(1.0))
    } else {
        ((len / l_rep).ceil(), s)
    };
    let seg = len / n;
    let c_rep = size * (c0 + cp);
    let energy = (c * len + n * c_rep) * vdd * vdd;
    let wn = t.wn() * size;
    let wp = t.wp() * size;
    let leakage = isub(&t.dev, wn, wp, 1, GateType::Inv).a() * vdd * n;
    let gate_leakage = igate(&t.dev, wn, wp, 1).a() * vdd * n;
    let delay = n * seg_delay(size, seg);
    let h = t.layout.cell_h_def();
    let area = gate_area(&t.layout, 1, wn, wp, h) * n;
    RepeatedWire {
        length,
        repeater_size: size,
        repeater_spacing: Length::from_m(l_rep),
        energy: Energy::from_j(energy),
        leakage: Power::from_w(leakage),
        gate_leakage: Power::from_w(gate_leakage),
        delay: Time::from_s(delay),
        repeaters: n,
        area,
    }
}

/// Horowitz (1984) delay of a step input into a stage of time constant `tf` to the switching
/// threshold `vs` (fraction of V_dd): `tf · ln(1/vs)` (CACTI `horowitz` with zero input ramp).
pub fn horowitz_step(tf: Time, vs: f64) -> Time {
    Time::from_s(tf.s() * (1.0 / vs.clamp(1e-6, 1.0 - 1e-6)).ln())
}

/// Crossbar wire geometry.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Geometry {
    /// CACTI's pitch-limited crossbar.
    Pitch,
    /// Input wires span `input_side`, output wires span `output_side` (the floorplan the
    /// crossbar connects); each is raised to the pitch-limited minimum if shorter. The sides
    /// set the wires' energy, delay, leakage and repeater area, not the crosspoint matrix's
    /// area (see [`CrossbarResult::area`]).
    Sides {
        /// Length of each input wire (horizontal extent).
        input_side: Length,
        /// Length of each output wire (vertical extent).
        output_side: Length,
    },
}

/// Crosspoint circuit (see module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Topology {
    /// CACTI 7 `crossbar.cc`: a wire-sized tristate at every crosspoint.
    Matrix,
    /// ORION 2.0 multiplexer tree: `N − 1` minimum 2:1 transmission-gate muxes per output bit.
    MuxTree,
}

/// Crossbar input.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CrossbarSpec {
    /// Input ports N.
    pub inputs: u32,
    /// Output ports M.
    pub outputs: u32,
    /// Bits per port.
    pub width_bits: u32,
    /// Wire geometry.
    pub geometry: Geometry,
    /// Crosspoint circuit.
    pub topology: Topology,
}

/// Crossbar result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CrossbarResult {
    /// Energy to move one word from one input to one output.
    pub energy_per_transfer: Energy,
    /// Subthreshold leakage.
    pub leakage: Power,
    /// Gate leakage.
    pub gate_leakage: Power,
    /// Silicon area: [`Self::matrix_area`] + [`Self::repeater_area`].
    pub area: Area,
    /// Area of the crosspoint matrix at wire pitch, `min_w × min_h` (see module docs); the
    /// same for both geometries.
    pub matrix_area: Area,
    /// Area of the repeaters / drivers of wires that run beyond the matrix
    /// ([`Geometry::Sides`]); zero for [`Geometry::Pitch`], where, as in CACTI, the wires lie
    /// inside the matrix and no repeater area is counted.
    pub repeater_area: Area,
    /// Input-wire length (horizontal extent; [`Geometry::Sides`]: the floorplan's).
    pub width: Length,
    /// Output-wire length (vertical extent; [`Geometry::Sides`]: the floorplan's).
    pub height: Length,
    /// Input-to-output delay.
    pub delay: Time,
    /// Tristate driver size (× minimum inverter).
    pub tristate_size: f64,
}

/// Evaluates a crossbar (see module docs).
pub fn crossbar(t: &LogicTech, s: &CrossbarSpec) -> Result<CrossbarResult, StructureError> {
    let n_in = count("inputs", s.inputs, 1024)?;
    let n_out = count("outputs", s.outputs, 1024)?;
    let bits = count("width_bits", s.width_bits, 4096)?;
    let pitch = t.wire.pitch;
    let vdd = t.dev.vdd.v();
    let (wn, wp) = (t.wn(), t.wp());
    let p = t.dev.n_to_p_drive_ratio;
    // driver of the input wire (CACTI output_buffer: l_eff = N · width · pitch)
    let l_eff = pitch * (n_in * bits);
    let w1 = repeated_wire(t, l_eff);
    let s1 = w1.repeater_size;
    let tri_s2 = s1;
    let tri_s1 = (s1 * (1.0 + p) / (3.0 + 3.0 * p)).max(1.0);
    let c_in = t.cg((wp * 2.0 + wn) * tri_s1) + t.cg((wp + wn * 2.0) * tri_s1);
    let c_int = t.cd(wn * tri_s1, true)
        + t.cd(wp * tri_s1, false) * 2.0
        + t.cg(wn * tri_s2)
        + t.cd(wp * tri_s1, true) * 2.0
        + t.cd(wp * tri_s1, false)
        + t.cg(wp * tri_s2);
    let c_out = t.cd(wn * tri_s2, true) + t.cd(wp * tri_s2, false);
    let c_ctr = t.cg((wp + wn) * tri_s2);
    // tristate footprint (CACTI: 2 output inverters + NAND2 + NOR2 at the cell height)
    let h = t.layout.cell_h_def();
    let g_area = gate_area(&t.layout, 1, wn * tri_s2, wp * tri_s2, h) * 2.0
        + gate_area(&t.layout, 2, wn * (2.0 * tri_s1), wp * tri_s1, h)
        + gate_area(&t.layout, 2, wn * tri_s1, wp * (2.0 * tri_s1), h);
    let tri_w = g_area / h;
    let n_tri = (h.m() / pitch.m()).ceil();
    let min_w = match s.topology {
        Topology::Matrix => (tri_w * (n_tri * n_out)).max(pitch * (bits * n_out)),
        Topology::MuxTree => pitch * (bits * n_out),
    };
    let min_h = pitch * (n_in * bits);
    let (width, height) = match s.geometry {
        Geometry::Pitch => (min_w, min_h),
        Geometry::Sides {
            input_side,
            output_side,
        } => {
            for (f, l) in [("input_side", input_side), ("output_side", output_side)] {
                if !(l.m().is_finite() && l.m() > 0.0) {
                    return Err(StructureError::BadLength {
                        field: f,
                        value_um: l.um(),
                    });
                }
            }
            (input_side.max(min_w), output_side.max(min_h))
        }
    };
    let win = repeated_wire(t, width);
    let wout = repeated_wire(t, height);
    let matrix_area = min_w * min_h;
    let repeater_area = match s.geometry {
        Geometry::Pitch => Area::ZERO,
        Geometry::Sides { .. } => win.area * (n_in * bits) + wout.area * (n_out * bits),
    };
    let wires_leak = (n_in * bits) * win.leakage.w() + (n_out * bits) * wout.leakage.w();
    let wires_ig = (n_in * bits) * win.gate_leakage.w() + (n_out * bits) * wout.gate_leakage.w();
    let (energy, leakage, gate_leakage, delay) = match s.topology {
        Topology::Matrix => {
            let c_tri = (c_in * n_out + c_out * n_in + c_ctr + c_int).f();
            let energy = bits * (win.energy.j() + wout.energy.j() + c_tri * vdd * vdd);
            let cross = n_in * n_out * bits;
            let gates_leak = isub(
                &t.dev,
                wn * (2.0 * tri_s2),
                wp * (2.0 * tri_s2),
                1,
                GateType::Inv,
            )
            .a() + isub(
                &t.dev,
                wn * (3.0 * tri_s1),
                wp * (3.0 * tri_s1),
                2,
                GateType::Nand,
            )
            .a() + isub(
                &t.dev,
                wn * (3.0 * tri_s1),
                wp * (3.0 * tri_s1),
                2,
                GateType::Nor,
            )
            .a();
            let gates_ig = igate(&t.dev, wn * (2.0 * tri_s2), wp * (2.0 * tri_s2), 1).a()
                + igate(&t.dev, wn * (3.0 * tri_s1), wp * (3.0 * tri_s1), 2).a() * 2.0;
            // delay: driver + wire resistance into wire + tristate loads (CACTI compute_power)
            let r = t.wire.r_per_length.times(width + height).ohm()
                + t.dev.r_nch_on.over(wn * s1).ohm();
            let c =
                t.wire.c_per_length.times(width + height).f() + (c_in * n_out + c_out * n_in).f();
            (
                energy,
                cross * gates_leak * vdd + wires_leak,
                cross * gates_ig * vdd + wires_ig,
                horowitz_step(Time::from_s(r * c), t.dev.vth.v() / vdd),
            )
        }
        Topology::MuxTree => {
            let levels = n_in.log2().ceil();
            let c_node = ((t.cd(wn, true) + t.cd(wp, false)) * 3.0).f();
            let c_sel = levels * t.cg(wn + wp).f();
            let energy =
                bits * (win.energy.j() + wout.energy.j() + (levels * c_node + c_sel) * vdd * vdd);
            let muxes = (n_in - 1.0) * n_out * bits;
            let tg_leak = 2.0 * isub(&t.dev, wn, wp, 1, GateType::Inv).a();
            let tg_ig = 2.0 * igate(&t.dev, wn, wp, 1).a();
            // delay: input wire, the mux chain (Elmore of `levels` TG stages), output wire
            let r_tg = t.dev.r_nch_on.over(wn).ohm();
            let t_mux = 0.69 * r_tg * c_node * levels * (levels + 1.0) / 2.0;
            (
                energy,
                muxes * tg_leak * vdd + wires_leak,
                muxes * tg_ig * vdd + wires_ig,
                win.delay + wout.delay + Time::from_s(t_mux),
            )
        }
    };
    Ok(CrossbarResult {
        energy_per_transfer: Energy::from_j(energy),
        leakage: Power::from_w(leakage),
        gate_leakage: Power::from_w(gate_leakage),
        area: matrix_area + repeater_area,
        matrix_area,
        repeater_area,
        width,
        height,
        delay,
        tristate_size: tri_s2,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_tech::units::Temperature;

    pub(crate) fn lt(nm: f64) -> LogicTech {
        let t = Technology::for_node(nm, Temperature::from_k(360.0)).unwrap();
        LogicTech::new(&t, DeviceFlavor::ItrsHp).unwrap()
    }

    #[test]
    fn pitch_geometry_hand_values() {
        let t = lt(45.0);
        let s = CrossbarSpec {
            inputs: 4,
            outputs: 4,
            width_bits: 32,
            geometry: Geometry::Pitch,
            topology: Topology::Matrix,
        };
        let r = crossbar(&t, &s).unwrap();
        // output wires: N x width x pitch
        let want_h = t.wire.pitch.um() * 4.0 * 32.0;
        assert!((r.height.um() - want_h).abs() < 1e-9);
        assert!((r.area.um2() - r.width.um() * r.height.um()).abs() < 1e-6);
        // energy at least the wire capacitance C (L_in + L_out) Vdd^2 per bit
        let cw = t.wire.c_per_length.times(r.width + r.height).f();
        let vdd = t.dev.vdd.v();
        assert!(r.energy_per_transfer.j() > 32.0 * cw * vdd * vdd);
        assert!(r.leakage.w() > 0.0 && r.delay.s() > 0.0);
    }

    #[test]
    fn sides_raise_wire_energy() {
        let t = lt(40.0);
        let base = CrossbarSpec {
            inputs: 8,
            outputs: 4,
            width_bits: 128,
            geometry: Geometry::Pitch,
            topology: Topology::Matrix,
        };
        let a = crossbar(&t, &base).unwrap();
        let b = crossbar(
            &t,
            &CrossbarSpec {
                geometry: Geometry::Sides {
                    input_side: Length::from_mm(1.0),
                    output_side: Length::from_mm(1.0),
                },
                ..base
            },
        )
        .unwrap();
        assert!(b.energy_per_transfer > a.energy_per_transfer);
        // the matrix is the same; the longer wires add only their repeaters' silicon
        assert_eq!(b.matrix_area, a.matrix_area);
        assert!(b.area > a.area && b.repeater_area > Area::ZERO);
        assert_eq!(a.repeater_area, Area::ZERO);
        // explicit sides shorter than the pitch minimum are raised to it
        let c = crossbar(
            &t,
            &CrossbarSpec {
                geometry: Geometry::Sides {
                    input_side: Length::from_nm(1.0),
                    output_side: Length::from_nm(1.0),
                },
                ..base
            },
        )
        .unwrap();
        assert_eq!((c.width, c.height), (a.width, a.height));
        assert_eq!(c.energy_per_transfer, a.energy_per_transfer);
        assert_eq!(c.matrix_area, a.area);
    }

    fn sides(input_um: f64, output_um: f64) -> Geometry {
        Geometry::Sides {
            input_side: Length::from_um(input_um),
            output_side: Length::from_um(output_um),
        }
    }

    #[test]
    fn sides_area_hand_value() {
        // 4 x 4 mux-tree crossbar of 32-bit ports over a 400 um x 300 um floorplan:
        // matrix (pitch · M · w) × (pitch · N · w) = (128 pitch)², plus 4·32 input and
        // 4·32 output wires' repeaters.
        let t = lt(40.0);
        let r = crossbar(
            &t,
            &CrossbarSpec {
                inputs: 4,
                outputs: 4,
                width_bits: 32,
                geometry: sides(400.0, 300.0),
                topology: Topology::MuxTree,
            },
        )
        .unwrap();
        let p = t.wire.pitch.um();
        let matrix = (128.0 * p) * (128.0 * p);
        assert!((r.matrix_area.um2() - matrix).abs() < 1e-9 * matrix);
        let rep = 128.0
            * (repeated_wire(&t, Length::from_um(400.0)).area.um2()
                + repeated_wire(&t, Length::from_um(300.0)).area.um2());
        assert!((r.repeater_area.um2() - rep).abs() < 1e-9 * rep);
        assert!((r.area.um2() - matrix - rep).abs() < 1e-9 * (matrix + rep));
        assert!((r.width.um() - 400.0).abs() < 1e-9 && (r.height.um() - 300.0).abs() < 1e-9);
        // one repeater: an inverter of the repeater size at the standard cell height
        let w = repeated_wire(&t, Length::from_um(400.0));
        let inv = gate_area(
            &t.layout,
            1,
            t.wn() * w.repeater_size,
            t.wp() * w.repeater_size,
            t.layout.cell_h_def(),
        );
        assert!((w.area.um2() - w.repeaters * inv.um2()).abs() < 1e-12);
        assert!(w.repeaters >= 1.0);
    }

    #[test]
    fn area_monotone_in_ports_and_width() {
        let t = lt(12.0);
        for topology in [Topology::Matrix, Topology::MuxTree] {
            for geometry in [Geometry::Pitch, sides(600.0, 200.0)] {
                let a = |n: u32, m: u32, w: u32| {
                    crossbar(
                        &t,
                        &CrossbarSpec {
                            inputs: n,
                            outputs: m,
                            width_bits: w,
                            geometry,
                            topology,
                        },
                    )
                    .unwrap()
                    .area
                };
                let base = a(2, 2, 256);
                assert!(a(4, 2, 256) > base, "{topology:?} {geometry:?} inputs");
                assert!(a(2, 4, 256) > base, "{topology:?} {geometry:?} outputs");
                assert!(a(2, 2, 512) > base, "{topology:?} {geometry:?} width");
            }
        }
    }

    #[test]
    fn area_independent_of_sides_energy_grows_with_them() {
        let t = lt(40.0);
        let spec = |side_um: f64| CrossbarSpec {
            inputs: 2,
            outputs: 2,
            width_bits: 1024,
            geometry: sides(2.0 * side_um, side_um),
            topology: Topology::MuxTree,
        };
        let rs: Vec<CrossbarResult> = [250.0, 500.0, 1000.0, 2000.0]
            .iter()
            .map(|&l| crossbar(&t, &spec(l)).unwrap())
            .collect();
        for w in rs.windows(2) {
            assert_eq!(w[1].matrix_area, w[0].matrix_area);
            assert!(w[1].energy_per_transfer > w[0].energy_per_transfer);
            assert!(w[1].delay > w[0].delay);
            assert!(w[1].leakage >= w[0].leakage);
            assert!(w[1].repeater_area >= w[0].repeater_area);
        }
    }

    #[test]
    fn crossbar_area_does_not_double_count_the_bank_row() {
        // Two 1024-bit banks side by side, 2 collectors (an RTX 2060 sub-core slice) over a
        // bank row larger than the matrix: the buses span the row, but the crossbar's silicon
        // is its pitch-limited mux matrix plus the buses' repeaters, not the row's rectangle
        // (which the banks' own area already counts).
        for nm in [40.0, 12.0] {
            let t = lt(nm);
            let (w_um, h_um) = (2000.0, 1000.0);
            let r = crossbar(
                &t,
                &CrossbarSpec {
                    inputs: 2,
                    outputs: 2,
                    width_bits: 1024,
                    geometry: sides(w_um, h_um),
                    topology: Topology::MuxTree,
                },
            )
            .unwrap();
            let p = t.wire.pitch.um();
            let matrix = (2048.0 * p) * (2048.0 * p);
            assert!(
                matrix < w_um * h_um,
                "{nm}: the floorplan must exceed the matrix"
            );
            assert!((r.matrix_area.um2() - matrix).abs() < 1e-9 * matrix);
            assert!((r.width.um() - w_um).abs() < 1e-9 && (r.height.um() - h_um).abs() < 1e-9);
            assert!(
                r.area.um2() < 0.5 * w_um * h_um,
                "{nm}: {} um2 of a {} um2 row",
                r.area.um2(),
                w_um * h_um
            );
            let reps =
                2048.0 * (repeated_wire(&t, r.width).area + repeated_wire(&t, r.height).area).um2();
            assert!((r.repeater_area.um2() - reps).abs() < 1e-9 * reps);
        }
    }

    #[test]
    fn repeated_wire_hand_check() {
        let t = lt(45.0);
        let w = repeated_wire(&t, Length::from_mm(2.0));
        let vdd = t.dev.vdd.v();
        let cw = t.wire.c_per_length.times(Length::from_mm(2.0)).f() * vdd * vdd;
        assert!(
            w.energy.j() > cw && w.energy.j() < 3.0 * cw,
            "{} vs {cw}",
            w.energy.j()
        );
        // 45 nm semi-global repeated wire: tens to a few hundred ps per mm
        let ps_per_mm = w.delay.ps() / 2.0;
        assert!(ps_per_mm > 20.0 && ps_per_mm < 500.0, "{ps_per_mm}");
    }

    #[test]
    fn mux_tree_hand_value_and_far_less_leakage_than_matrix() {
        let t = lt(40.0);
        let side = Length::from_um(500.0);
        let spec = |n: u32, topology| CrossbarSpec {
            inputs: n,
            outputs: 2,
            width_bits: 1024,
            geometry: Geometry::Sides {
                input_side: side,
                output_side: side,
            },
            topology,
        };
        // one input: no mux level, a transfer is exactly one input and one output wire per bit
        let one = crossbar(&t, &spec(1, Topology::MuxTree)).unwrap();
        let w = repeated_wire(&t, side).energy.j();
        let want = 1024.0 * 2.0 * w;
        assert!((one.energy_per_transfer.j() - want).abs() < 1e-9 * want);
        // two inputs: + one TG node (3 drains) and one select gate pair per bit
        let two = crossbar(&t, &spec(2, Topology::MuxTree)).unwrap();
        let v2 = t.dev.vdd.v().powi(2);
        let c = 3.0 * (t.cd(t.wn(), true) + t.cd(t.wp(), false)).f() + t.cg(t.wn() + t.wp()).f();
        let want2 = want + 1024.0 * c * v2;
        assert!((two.energy_per_transfer.j() - want2).abs() < 1e-9 * want2);
        // same wires, minimum-size crosspoints: less leakage than CACTI's wire-sized tristates
        // (the wires' delay-optimal repeaters, common to both, dominate what remains)
        let mat = crossbar(&t, &spec(2, Topology::Matrix)).unwrap();
        assert!(
            two.leakage < mat.leakage,
            "{} vs {}",
            two.leakage.w(),
            mat.leakage.w()
        );
        let wires = 1024.0 * 4.0 * repeated_wire(&t, side).leakage.w();
        let tg =
            1024.0 * 2.0 * 2.0 * isub(&t.dev, t.wn(), t.wp(), 1, GateType::Inv).a() * t.dev.vdd.v();
        assert!((two.leakage.w() - wires - tg).abs() < 1e-9 * two.leakage.w());
        assert!(two.energy_per_transfer < mat.energy_per_transfer);
        // more inputs: deeper tree, more muxes
        let four = crossbar(&t, &spec(4, Topology::MuxTree)).unwrap();
        assert!(four.energy_per_transfer > two.energy_per_transfer && four.leakage > two.leakage);
    }

    #[test]
    fn repeaters_trade_at_most_30_percent_delay_for_energy() {
        for nm in [40.0, 12.0] {
            let t = lt(nm);
            let len = Length::from_mm(5.0);
            let w = repeated_wire(&t, len);
            // recompute the delay-optimal wire of the same length
            let r = t.wire.r_per_length.0;
            let c = t.wire.c_per_length.0;
            let r0 = t.dev.r_nch_on.over(t.wn()).ohm();
            let c0 = (t.cg(t.wn()) + t.cg(t.wp())).f();
            let cp = (t.cd(t.wn(), true) + t.cd(t.wp(), false)).f();
            let s = (r0 * c / (r * c0)).sqrt();
            let l = (2.0 * r0 * (c0 + cp) / (r * c)).sqrt();
            let d_opt = (0.69 * r0 / s * (s * (c0 + cp) + c * l)
                + r * l * (0.38 * c * l + 0.69 * s * c0))
                / l;
            let e_opt = (c + s * (c0 + cp) / l) * len.m() * t.dev.vdd.v().powi(2);
            // segment rounding adds at most one segment's worth of slack
            assert!(
                w.delay.s() / len.m() <= 1.35 * d_opt,
                "{nm}: {} vs {}",
                w.delay.s() / len.m(),
                d_opt
            );
            assert!(w.energy.j() < e_opt, "{nm}");
            assert!(w.repeater_size < s && w.repeater_spacing.m() >= l, "{nm}");
        }
    }

    #[test]
    fn bad_counts() {
        let t = lt(45.0);
        let s = CrossbarSpec {
            inputs: 0,
            outputs: 4,
            width_bits: 32,
            geometry: Geometry::Pitch,
            topology: Topology::Matrix,
        };
        assert!(matches!(
            crossbar(&t, &s),
            Err(StructureError::BadCount {
                field: "inputs",
                ..
            })
        ));
        let s = CrossbarSpec {
            inputs: 2,
            outputs: 4,
            width_bits: 32,
            geometry: Geometry::Sides {
                input_side: Length::from_um(-1.0),
                output_side: Length::from_um(1.0),
            },
            topology: Topology::MuxTree,
        };
        assert!(matches!(
            crossbar(&t, &s),
            Err(StructureError::BadLength { .. })
        ));
    }
}
