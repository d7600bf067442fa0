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
            layout: Layout {
                f: tech.feature_size,
            },
            wire: tech.wires.semi_global.clone(),
            local_wire: tech.wires.local.clone(),
        })
    }
    /// Minimum NMOS width.
    pub fn wn(&self) -> Length {
        self.layout.min_w_nmos()
    }
    /// Minimum PMOS width (`n/p drive ratio × min NMOS`).
    pub fn wp(&self) -> Length {
        self.layout.min_w_nmos() * self.dev.n_to_p_drive_ratio
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
}

/// Optimal repeater size and spacing: `s = sqrt(R_0 c / (r C_0))`, `l = sqrt(2 R_0 (C_0 +
/// C_p) / (r c))` with the minimum inverter's output resistance `R_0`, input `C_0` and output
/// `C_p`, wire `r`, `c` per length (Bakoglu & Meindl 1985); delay per segment `0.69 R_0/s
/// (s(C_0 + C_p) + c l) + r l (0.38 c l + 0.69 s C_0)`.
pub fn repeated_wire(t: &LogicTech, length: Length) -> RepeatedWire {
    let r = t.wire.r_per_length.0; // Ω/m
    let c = t.wire.c_per_length.0; // F/m
    let r0 = t.dev.r_nch_on.over(t.wn()).ohm();
    let c0 = (t.cg(t.wn()) + t.cg(t.wp())).f();
    let cp = (t.cd(t.wn(), true) + t.cd(t.wp(), false)).f();
    let s = (r0 * c / (r * c0)).sqrt();
    let l_opt = (2.0 * r0 * (c0 + cp) / (r * c)).sqrt();
    let len = length.m().max(0.0);
    let vdd = t.dev.vdd.v();
    // number of repeaters; a short wire gets one driver scaled by L / l_opt (CACTI).
    let (n, size) = if len < l_opt {
        (1.0, (s * len / l_opt).max(1.0))
    } else {
        ((len / l_opt).ceil(), s)
    };
    let seg = len / n;
    let c_rep = size * (c0 + cp);
    let energy = (c * len + n * c_rep) * vdd * vdd;
    let wn = t.wn() * size;
    let wp = t.wp() * size;
    let leakage = isub(&t.dev, wn, wp, 1, GateType::Inv).a() * vdd * n;
    let gate_leakage = igate(&t.dev, wn, wp, 1).a() * vdd * n;
    let delay = n
        * (0.69 * r0 / size * (size * (c0 + cp) + c * seg)
            + r * seg * (0.38 * c * seg + 0.69 * size * c0));
    RepeatedWire {
        length,
        repeater_size: size,
        repeater_spacing: Length::from_m(l_opt),
        energy: Energy::from_j(energy),
        leakage: Power::from_w(leakage),
        gate_leakage: Power::from_w(gate_leakage),
        delay: Time::from_s(delay),
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
    /// crossbar connects); each is raised to the pitch-limited minimum if shorter.
    Sides {
        /// Length of each input wire (horizontal extent).
        input_side: Length,
        /// Length of each output wire (vertical extent).
        output_side: Length,
    },
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
    /// Area.
    pub area: Area,
    /// Input-wire length (horizontal extent).
    pub width: Length,
    /// Output-wire length (vertical extent).
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
    let min_w = (tri_w * (n_tri * n_out)).max(pitch * (bits * n_out));
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
    let wires_leak = (n_in * bits) * win.leakage.w() + (n_out * bits) * wout.leakage.w();
    let wires_ig = (n_in * bits) * win.gate_leakage.w() + (n_out * bits) * wout.gate_leakage.w();
    let leakage = cross * gates_leak * vdd + wires_leak;
    let gate_leakage = cross * gates_ig * vdd + wires_ig;
    // delay: driver + wire resistance into wire + tristate loads (CACTI compute_power)
    let r = t.wire.r_per_length.times(width + height).ohm() + t.dev.r_nch_on.over(wn * s1).ohm();
    let c = t.wire.c_per_length.times(width + height).f() + (c_in * n_out + c_out * n_in).f();
    let delay = horowitz_step(Time::from_s(r * c), t.dev.vth.v() / vdd);
    Ok(CrossbarResult {
        energy_per_transfer: Energy::from_j(energy),
        leakage: Power::from_w(leakage),
        gate_leakage: Power::from_w(gate_leakage),
        area: width * height,
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
        assert!(b.area > a.area);
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
        assert_eq!(c.area, a.area);
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
    fn bad_counts() {
        let t = lt(45.0);
        let s = CrossbarSpec {
            inputs: 0,
            outputs: 4,
            width_bits: 32,
            geometry: Geometry::Pitch,
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
        };
        assert!(matches!(
            crossbar(&t, &s),
            Err(StructureError::BadLength { .. })
        ));
    }
}
