//! Bit-sliced data buses of a register file: the operand bus from the banks to the operand
//! collectors and the write-back bus from the execution units to the banks.
//!
//! **Layout.** A register file whose rows are split into lane slices (each slice of every bank
//! sits above the lanes it serves: Gebhart et al., "Energy-efficient mechanisms for managing
//! thread context in throughput processors", ISCA 2011, §2 and Fig. 2; Jeon & Annavaram 2014 §2.1) needs
//! no wide crossbar: bit `i` of every bank slice, of every collector's operand slice and of
//! the lane's input all lie in one column. A bus line per bit runs vertically over the arrays
//! on upper metal; each receiver selects among the lines it can read with a multiplexer per
//! bit. [`BusSpec`] describes one such column:
//!
//! * `lines` lines per bit, each driven by one source (operand bus: one line per bank, driven
//!   by the bank's sense-amplifier output; write-back bus: one line per write port);
//! * `receivers` taps per line (operand bus: each collector, whose `lines`:1 multiplexer per
//!   bit selects the granted bank; write-back bus: each bank's write-driver input, no mux);
//! * each line is a repeated wire of `line_length`, the distance from its source to the far
//!   end of the receivers in the floorplan (the caller derives it from the placement);
//! * a receiver's select lines run across the slices of its row (`select_length`).
//!
//! **Energy per transfer** (one `bits`-wide word from one source to one receiver), with
//! `½ C V²` per node transition (Rabaey, Chandrakasan, Nikolić, *Digital Integrated Circuits*,
//! 2nd ed., §5.5) and the data toggling with probability `a` per transfer (random data:
//! `a = ½`, the "50 percent transition probability" of Keckler et al., "GPUs and the Future of
//! Parallel Computing", IEEE Micro 31(5), 2011, p. 9 — their 40 nm wire costs 240 fJ/bit·mm
//! per transition and 121 fJ/bit·mm for random data):
//!
//! ```text
//! E = bits · a · ½ V² · (C_wire(L) + C_rep(L) + R · C_tap + levels · C_node)
//!   + levels · ½ · ½ V² · (bits · C_g(N + P) + C_wire(select_length))
//! ```
//!
//! `C_wire + C_rep` is the repeated wire ([`crate::crossbar::repeated_wire`]: semi-global
//! layer, CACTI's `Global_30` repeaters within 30 % of the delay-optimal delay, one scaled
//! driver when the wire is shorter than a repeater spacing); `C_tap` is one receiver's load
//! on the line: a transmission gate's N and P drains (the mux input) or one minimum inverter's
//! gate (a write driver's input); the selected mux tree has `levels = ⌈log₂ lines⌉` internal
//! nodes of `C_node = 3 (C_d,N + C_d,P)` (ORION 2.0's multiplexer-tree crossbar, Kahng, Li,
//! Peh, Samadi, DATE 2009, §3.2, as [`crate::crossbar::Topology::MuxTree`]); the select line
//! of each level drives one transmission gate's N and P gates per bit and toggles with
//! probability ½ (the granted source is random).
//!
//! **Leakage**: every line's repeaters and every multiplexer's `lines − 1` 2:1 transmission-
//! gate pairs per bit (inverter-equivalent, CACTI `cmos_Isub_leakage`).
//!
//! **Area**: the multiplexers (two minimum transmission gates per 2:1 mux, each the footprint
//! of a minimum inverter at the standard cell height, CACTI `compute_gate_area`), the
//! repeaters, and routing tracks only where they cannot run over an array: `lines · bits`
//! vertical tracks at the semi-global pitch fit over `over_array_width · track_layers /
//! pitch`; the tracks beyond that take `pitch · line_length` each. (Wires over an array take
//! no silicon of their own: CACTI 7 `crossbar.cc` and ORION 2.0 count a crossbar's matrix and
//! repeaters only.)

use crate::crossbar::{repeated_wire, LogicTech, RepeatedWire, StructureError};
use crate::gating::circuit::{gate_area, igate, isub, GateType};
use regwatt_tech::units::{Area, Energy, Length, Power, Time};
use serde::Serialize;

/// Toggle probability of a data line per transfer for random data (Keckler et al., IEEE
/// Micro 2011, p. 9: "random data with a 50 percent transition probability").
pub const RANDOM_DATA_ACTIVITY: f64 = 0.5;

/// What a receiver puts on a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Tap {
    /// A `lines`:1 transmission-gate multiplexer per bit (operand bus).
    Mux,
    /// One minimum inverter's input per bit (a write driver; write-back bus).
    Driver,
}

/// One column of a bit-sliced bus (see module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BusSpec {
    /// Data bits per word in the column.
    pub bits: u32,
    /// Lines per bit (one per source).
    pub lines: u32,
    /// Receivers on each line.
    pub receivers: u32,
    /// What a receiver puts on a line.
    pub tap: Tap,
    /// Length of each line (source to the farthest receiver).
    pub line_length: Length,
    /// Length of a receiver's select lines (zero without a mux).
    pub select_length: Length,
    /// Width of the arrays the lines run over.
    pub over_array_width: Length,
    /// Metal layers available to the vertical lines over the arrays.
    pub track_layers: u32,
    /// Toggle probability of a data line per transfer.
    pub activity: f64,
}

/// Costs of one bus column.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BusResult {
    /// Energy of one transfer (one word, one source, one receiver).
    pub energy_per_transfer: Energy,
    /// Of which the data lines (wire and repeaters).
    pub wire_energy: Energy,
    /// Subthreshold leakage (repeaters and multiplexers).
    pub leakage: Power,
    /// Gate leakage.
    pub gate_leakage: Power,
    /// Silicon area: multiplexers + repeaters + routing that does not fit over the arrays.
    pub area: Area,
    /// Of which routing tracks beyond the arrays.
    pub routing_area: Area,
    /// Source-to-receiver delay.
    pub delay: Time,
    /// The repeated wire of one line.
    pub line: RepeatedWire,
}

/// Energy of moving one bit of random data over one millimetre of the node's repeated
/// semi-global wire: `a · ½ · (C_wire + C_rep) · V²` per mm with `a` =
/// [`RANDOM_DATA_ACTIVITY`] (see module docs). The figure published wire energies are quoted
/// in (fJ/bit·mm).
pub fn wire_energy_per_bit_mm(t: &LogicTech) -> Energy {
    let w = repeated_wire(t, Length::from_mm(10.0));
    // per mm of a long wire, so that a short wire's single scaled driver does not distort it
    w.energy * (RANDOM_DATA_ACTIVITY * 0.5 / 10.0)
}

/// Evaluates one bus column (see module docs).
pub fn bus(t: &LogicTech, s: &BusSpec) -> Result<BusResult, StructureError> {
    let count = |field: &'static str, v: u32, max: u32| -> Result<f64, StructureError> {
        if v == 0 || v > max {
            return Err(StructureError::BadCount {
                field,
                value: u64::from(v),
                msg: "out of range",
            });
        }
        Ok(f64::from(v))
    };
    let bits = count("bits", s.bits, 1 << 16)?;
    let lines = count("lines", s.lines, 64)?;
    let receivers = count("receivers", s.receivers, 1024)?;
    let layers = count("track_layers", s.track_layers, 16)?;
    for (field, l) in [
        ("line_length", s.line_length),
        ("select_length", s.select_length),
        ("over_array_width", s.over_array_width),
    ] {
        if !(l.m().is_finite() && l.m() >= 0.0) {
            return Err(StructureError::BadLength {
                field,
                value_um: l.um(),
            });
        }
    }
    if !(s.activity.is_finite() && (0.0..=1.0).contains(&s.activity)) {
        return Err(StructureError::BadCount {
            field: "activity",
            value: 0,
            msg: "toggle probability must be in 0..=1",
        });
    }
    let v2 = t.dev.vdd.v().powi(2);
    let (wn, wp) = (t.wn(), t.wp());
    let line = repeated_wire(t, s.line_length);
    let (levels, c_tap) = match s.tap {
        Tap::Mux => (lines.log2().ceil(), (t.cd(wn, true) + t.cd(wp, false)).f()),
        Tap::Driver => (0.0, t.cg(wn + wp).f()),
    };
    let c_node = ((t.cd(wn, true) + t.cd(wp, false)) * 3.0).f();
    // data: the line (wire + repeaters, `line.energy` = C V²), the taps, the mux nodes
    let wire = line.energy.j() * 0.5 * s.activity;
    let taps = 0.5 * s.activity * (receivers * c_tap + levels * c_node) * v2;
    let sel_wire = repeated_wire(t, s.select_length);
    let select = if levels > 0.0 {
        levels * 0.25 * (bits * t.cg(wn + wp).f() * v2 + sel_wire.energy.j())
    } else {
        0.0
    };
    let energy = bits * (wire + taps) + select;
    // leakage and area
    let muxes = match s.tap {
        Tap::Mux => receivers * (lines - 1.0) * bits,
        Tap::Driver => 0.0,
    };
    let h = t.layout.cell_h_def();
    let mux_area = gate_area(&t.layout, 1, wn, wp, h) * (2.0 * muxes);
    let n_lines = lines * bits;
    let rep_area = line.area * n_lines;
    let pitch = t.wire.pitch;
    // (+1e-9: a width that holds an exact number of pitches is not cut by rounding)
    let fit = (s.over_array_width.m() * layers / pitch.m() + 1e-9).floor();
    let overflow = (n_lines - fit).max(0.0);
    let routing_area = pitch * s.line_length * overflow;
    let sel_lines = levels * receivers;
    let leakage = n_lines * line.leakage.w()
        + sel_lines * sel_wire.leakage.w()
        + muxes * 2.0 * isub(&t.dev, wn, wp, 1, GateType::Inv).a() * t.dev.vdd.v();
    let gate_leakage = n_lines * line.gate_leakage.w()
        + sel_lines * sel_wire.gate_leakage.w()
        + muxes * 2.0 * igate(&t.dev, wn, wp, 1).a() * t.dev.vdd.v();
    let r_tg = t.dev.r_nch_on.over(wn).ohm();
    let t_mux = 0.69 * r_tg * c_node * levels * (levels + 1.0) / 2.0;
    Ok(BusResult {
        energy_per_transfer: Energy::from_j(energy),
        wire_energy: Energy::from_j(bits * wire),
        leakage: Power::from_w(leakage),
        gate_leakage: Power::from_w(gate_leakage),
        area: mux_area + rep_area + routing_area + sel_wire.area * sel_lines,
        routing_area,
        delay: line.delay + Time::from_s(t_mux),
        line,
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

    fn spec() -> BusSpec {
        BusSpec {
            bits: 128,
            lines: 2,
            receivers: 2,
            tap: Tap::Mux,
            line_length: Length::from_um(200.0),
            select_length: Length::from_um(400.0),
            over_array_width: Length::from_um(60.0),
            track_layers: 1,
            activity: RANDOM_DATA_ACTIVITY,
        }
    }

    /// The wire energy per bit·mm lies within the published range at every node:
    /// 20–240 fJ/bit·mm (Dally et al., VLSI 2018, 16 nm: 20–40; Gebhart et al., ISCA 2011,
    /// 40 nm: 1.9 pJ/mm per 32-bit word = 59; Keckler et al., IEEE Micro 2011, 40 nm: 121 for
    /// random data, 240 per transition). Wire capacitance per mm barely changes across nodes
    /// ("wire capacitance per mm remains approximately constant across process
    /// generations", Keckler et al.), so the energy follows V²: it falls from 90 nm to 22 nm
    /// with the supply; the 12 nm figure (0.8 V, as CACTI's 22 nm) is within 10 % of 22 nm's
    /// (the 12 nm semi-global layer's ultra-low-k 2.55 against CACTI's projected 2.1) and below
    /// 40 nm's.
    #[test]
    fn wire_energy_per_bit_mm_in_the_published_range() {
        let mut last = f64::INFINITY;
        let at = |nm: f64| wire_energy_per_bit_mm(&lt(nm)).fj();
        for nm in [90.0, 65.0, 45.0, 40.0, 32.0, 22.0, 12.0] {
            let e = at(nm);
            assert!((20.0..=240.0).contains(&e), "{nm} nm: {e} fJ/bit.mm");
            if nm >= 22.0 {
                assert!(e <= last, "{nm} nm: {e} above the larger node's {last}");
            }
            last = e;
        }
        assert!(at(12.0) < at(40.0) && at(12.0) <= 1.10 * at(22.0));
    }

    /// By hand for one wire: at 40 nm a 1-line, 1-receiver bus (`Tap::Driver`, no mux, no
    /// select) of 1 bit costs a·½·(C_wire + C_rep)V² + a·½·C_g(N+P)V²: the repeated wire's own
    /// energy (computed separately by `repeated_wire`, the function under test here being
    /// the bus composition) and one inverter input.
    #[test]
    fn single_line_is_the_wire_plus_one_input() {
        let t = lt(40.0);
        let l = Length::from_um(500.0);
        let s = BusSpec {
            bits: 1,
            lines: 1,
            receivers: 1,
            tap: Tap::Driver,
            line_length: l,
            select_length: Length::ZERO,
            over_array_width: Length::from_um(1.0),
            track_layers: 1,
            activity: 0.5,
        };
        let r = bus(&t, &s).unwrap();
        let v2 = t.dev.vdd.v().powi(2);
        let want = 0.25 * repeated_wire(&t, l).energy.j() + 0.25 * t.cg(t.wn() + t.wp()).f() * v2;
        assert!((r.energy_per_transfer.j() - want).abs() < 1e-12 * want);
        // one track over a 1 um wide array fits
        assert_eq!(r.routing_area, Area::ZERO);
    }

    #[test]
    fn costs_grow_with_length_lines_receivers_and_bits() {
        let t = lt(12.0);
        let base = bus(&t, &spec()).unwrap();
        let longer = bus(
            &t,
            &BusSpec {
                line_length: Length::from_um(400.0),
                ..spec()
            },
        )
        .unwrap();
        assert!(longer.energy_per_transfer > base.energy_per_transfer);
        let more_lines = bus(&t, &BusSpec { lines: 4, ..spec() }).unwrap();
        assert!(more_lines.energy_per_transfer > base.energy_per_transfer);
        assert!(more_lines.area > base.area && more_lines.leakage > base.leakage);
        let more_rx = bus(
            &t,
            &BusSpec {
                receivers: 16,
                ..spec()
            },
        )
        .unwrap();
        assert!(more_rx.energy_per_transfer > base.energy_per_transfer);
        let wider = bus(
            &t,
            &BusSpec {
                bits: 256,
                ..spec()
            },
        )
        .unwrap();
        assert!((wider.wire_energy / base.wire_energy - 2.0).abs() < 1e-12);
        // activity scales the data part only
        let quiet = bus(
            &t,
            &BusSpec {
                activity: 0.0,
                ..spec()
            },
        )
        .unwrap();
        assert_eq!(quiet.wire_energy, Energy::ZERO);
        assert!(quiet.energy_per_transfer > Energy::ZERO); // the select lines still switch
    }

    /// Tracks beyond what fits over the arrays take routing area, by hand: 2 lines x 128 bits
    /// = 256 tracks; a 20 um wide array at the 40 nm semi-global pitch takes floor(20 /
    /// pitch) of them on one layer; the rest take pitch x length each.
    #[test]
    fn routing_area_only_for_tracks_that_do_not_fit() {
        let t = lt(40.0);
        let narrow = BusSpec {
            over_array_width: Length::from_um(20.0),
            ..spec()
        };
        let r = bus(&t, &narrow).unwrap();
        let p = t.wire.pitch.um();
        let fit = (20.0 / p).floor();
        let want = (256.0 - fit).max(0.0) * p * 200.0;
        assert!((r.routing_area.um2() - want).abs() < 1e-6 * want.max(1.0));
        let two_layers = bus(
            &t,
            &BusSpec {
                track_layers: 2,
                ..narrow
            },
        )
        .unwrap();
        assert!(two_layers.routing_area < r.routing_area);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let t = lt(40.0);
        assert!(bus(&t, &BusSpec { bits: 0, ..spec() }).is_err());
        assert!(bus(&t, &BusSpec { lines: 0, ..spec() }).is_err());
        assert!(bus(
            &t,
            &BusSpec {
                activity: 1.5,
                ..spec()
            }
        )
        .is_err());
        assert!(bus(
            &t,
            &BusSpec {
                line_length: Length::from_um(f64::NAN),
                ..spec()
            }
        )
        .is_err());
    }
}
