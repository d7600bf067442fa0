//! Transistor-level primitives shared by the gating, crossbar, arbiter and CAM models:
//! gate / drain capacitance, subthreshold and gate leakage of simple gates, gate area, and
//! CACTI's layout rules. All follow CACTI 7 `basic_circuit.cc` / `area.cc` /
//! `technology.cc`, re-derived on the typed [`regwatt_tech::Device`] parameters.

use regwatt_tech::units::{Area, Capacitance, Current, Length};
use regwatt_tech::{Device, Fin, Technology};

/// CACTI's layout rules, all multiples of the feature size F (CACTI 7 `technology.cc`,
/// `TechnologyParameter::init`: `cell_h_def = 50 F`, `HPOWERRAIL = 2 F`,
/// `MIN_GAP_BET_P_AND_N_DIFFS = 5 F`, `w_poly_contact = F`, `spacing_poly_to_contact = F`,
/// `spacing_poly_to_poly = 1.5 F`, `min_w_nmos_ = 1.5 F`). At a FinFET node a transistor is a
/// whole number of fins ([`Layout::transistor`]) and its footprint along the gate is
/// its effective width divided by the node's `width_per_footprint` ([`Layout::footprint`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Feature size F.
    pub f: Length,
    /// Fin geometry (`None`: planar).
    pub fin: Option<Fin>,
}

impl Layout {
    /// The layout rules of a technology.
    pub fn of(tech: &Technology) -> Layout {
        Layout {
            f: tech.feature_size,
            fin: tech.fin,
        }
    }
    /// Effective width of a transistor drawn `drawn` wide ([`Technology::transistor_width`]):
    /// `drawn` on planar nodes, whole fins on FinFET nodes.
    pub fn transistor(&self, drawn: Length) -> Length {
        match self.fin {
            None => drawn,
            Some(fin) => fin.effective_width * (drawn / fin.pitch).round().max(1.0),
        }
    }
    /// Layout footprint along the gate of a device of effective width `w`.
    pub fn footprint(&self, w: Length) -> Length {
        match self.fin {
            None => w,
            Some(fin) => w * (fin.pitch / fin.effective_width),
        }
    }
    /// Standard-cell height of peripheral gates (50 F).
    pub fn cell_h_def(&self) -> Length {
        self.f * 50.0
    }
    /// Power-rail height (2 F).
    pub fn power_rail(&self) -> Length {
        self.f * 2.0
    }
    /// Minimum gap between P and N diffusions (5 F).
    pub fn gap_p_n(&self) -> Length {
        self.f * 5.0
    }
    /// Poly contact width (F).
    pub fn w_poly_contact(&self) -> Length {
        self.f
    }
    /// Poly-to-contact spacing (F).
    pub fn spacing_poly_to_contact(&self) -> Length {
        self.f
    }
    /// Poly-to-poly spacing (1.5 F).
    pub fn spacing_poly_to_poly(&self) -> Length {
        self.f * 1.5
    }
    /// Minimum NMOS width (1.5 F drawn; one fin at a FinFET node).
    pub fn min_w_nmos(&self) -> Length {
        self.transistor(self.f * 1.5)
    }
}

/// CACTI's stacking factor for leakage of series off transistors (CACTI 7 `const.h`
/// `UNI_LEAK_STACK_FACTOR`).
pub const STACK_FACTOR: f64 = 0.43;

/// Gate capacitance of a device of width `w`: `(C_g_ideal + C_overlap + 3 C_fringe) W`
/// (CACTI 7 `basic_circuit.cc` `gate_C`; the poly-wire term is 0 for the widths used here).
pub fn gate_c(dev: &Device, w: Length) -> Capacitance {
    (dev.c_g_ideal + dev.c_overlap + dev.c_fringe * 3.0).times(w)
}

/// How a transistor is folded for its drain capacitance (CACTI `drain_C_` 4th/5th argument).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fold {
    /// Fold when wider than this width.
    Width(Length),
    /// Part of a gate of this cell height (CACTI splits the height 1:2 between N and P).
    CellHeight(Length),
}

/// Drain capacitance of a transistor (CACTI 7 `basic_circuit.cc` `drain_C_`): junction area +
/// sidewall + gate-overlap/fringe, with folding and the metal joining the folds.
pub fn drain_c(
    dev: &Device,
    layout: &Layout,
    width: Length,
    nchannel: bool,
    stack: u32,
    fold: Fold,
    local_wire_c_per_um: f64,
) -> Capacitance {
    let um = |l: Length| l.um();
    let w = um(width);
    if w <= 0.0 {
        return Capacitance::ZERO;
    }
    let mut w_folded = match fold {
        Fold::Width(t) => um(t),
        Fold::CellHeight(h) => {
            let h_tr = um(h) - 2.0 * um(layout.power_rail());
            let ratio_p_to_n = 2.0 / 3.0;
            let avail = h_tr - um(layout.gap_p_n());
            if nchannel {
                (1.0 - ratio_p_to_n) * avail
            } else {
                ratio_p_to_n * avail
            }
        }
    };
    // A gate too short to hold any diffusion (non-positive fold width) is not folded: CACTI's
    // `num_folded_tr = ceil(w / w_folded)` is then < 2 and the device keeps its width.
    let num_folded = if w_folded > 0.0 {
        (w / w_folded).ceil().max(1.0)
    } else {
        1.0
    };
    if num_folded < 2.0 {
        w_folded = w;
    }
    let contact = um(layout.w_poly_contact()) + 2.0 * um(layout.spacing_poly_to_contact());
    let stack = stack.max(1) as f64;
    let mut total_drain_w = contact + (stack - 1.0) * um(layout.spacing_poly_to_poly());
    let mut h_sidewall = w_folded;
    let mut h_wrt_gate = w_folded + 2.0 * w_folded * (stack - 1.0);
    let mut metal = 0.0;
    if num_folded > 1.0 {
        total_drain_w += (num_folded - 2.0) * contact
            + (num_folded - 1.0) * ((stack - 1.0) * um(layout.spacing_poly_to_poly()));
        if (num_folded as u64) & 1 == 0 {
            h_sidewall = 0.0;
        }
        h_wrt_gate *= num_folded;
        metal = local_wire_c_per_um * total_drain_w;
    }
    let c_junc = dev.c_junc.f_per_um2();
    let c_sw = dev.c_junc_sidewall.f_per_um();
    let c_fo = 2.0 * (dev.c_fringe.f_per_um() + dev.c_overlap.f_per_um());
    Capacitance::from_f(
        c_junc * total_drain_w * w_folded
            + c_sw * (h_sidewall + 2.0 * total_drain_w)
            + c_fo * h_wrt_gate
            + metal,
    )
}

/// Logic gate types for leakage (CACTI `Gate_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateType {
    /// Inverter.
    Inv,
    /// NAND.
    Nand,
    /// NOR.
    Nor,
}

fn binom(n: u32, k: u32) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// State-averaged subthreshold leakage current of a gate (CACTI 7 `basic_circuit.cc`
/// `cmos_Isub_leakage`): inverter `(I_n + I_p)/2`; NAND: parallel pull-up + stacked pull-down
/// with the stack factor, averaged over the `2^fanin` input states; NOR the dual. `wn`, `wp`
/// are per-transistor widths. PMOS off current per width = NMOS (CACTI).
pub fn isub(dev: &Device, wn: Length, wp: Length, fanin: u32, g: GateType) -> Current {
    let n = dev.i_off_n.times(wn).a();
    let p = dev.i_off_n.times(wp).a();
    let fanin = fanin.max(1);
    let states = 2f64.powi(fanin as i32);
    let stacked = |leak: f64| -> f64 {
        (1..=fanin)
            .map(|off| leak * STACK_FACTOR.powi(off as i32 - 1) * binom(fanin, off))
            .sum::<f64>()
    };
    Current::from_a(match g {
        GateType::Inv => (n + p) / 2.0,
        GateType::Nand => (fanin as f64 * p + stacked(n)) / states,
        GateType::Nor => (stacked(p) + fanin as f64 * n) / states,
    })
}

/// Gate-oxide leakage of a gate: on devices leak `I_g_on` per width; averaged over the input
/// states as half the devices on (simplification of CACTI 7 `cmos_Ig_leakage`, which
/// enumerates the states; the average on-width is the same for INV/NAND/NOR to first order).
pub fn igate(dev: &Device, wn: Length, wp: Length, fanin: u32) -> Current {
    let fanin = fanin.max(1) as f64;
    dev.i_g_on_n.times((wn + wp) * (fanin / 2.0))
}

/// Area of a static gate folded into height `h_gate` (after CACTI 7 `area.cc`
/// `compute_gate_area`): the P and N transistors share the height (minus the two power rails
/// and the P/N gap) in proportion to their widths; each fold adds one poly line and one
/// contacted diffusion (`w_poly_contact + 2 spacing_poly_to_contact`); series stacks add
/// `spacing_poly_to_poly` per extra input. If the gate is shorter than `h_gate`, its own
/// height is used.
pub fn gate_area(layout: &Layout, fanin: u32, wn: Length, wp: Length, h_gate: Length) -> Area {
    let (wn, wp) = (layout.footprint(wn), layout.footprint(wp));
    let (wn, wp, h) = (wn.um(), wp.um(), h_gate.um());
    if wn <= 0.0 || wp <= 0.0 {
        return Area::ZERO;
    }
    let f = layout.f.um();
    let h_tr = (h - 2.0 * layout.power_rail().um() - layout.gap_p_n().um()).max(f);
    let ratio_p = wp / (wp + wn);
    let fold_p = (wp / (h_tr * ratio_p)).ceil().max(1.0);
    let fold_n = (wn / (h_tr * (1.0 - ratio_p))).ceil().max(1.0);
    let contact = layout.w_poly_contact().um() + 2.0 * layout.spacing_poly_to_contact().um();
    let fanin = fanin.max(1) as f64;
    let stack_pitch = f + layout.spacing_poly_to_poly().um();
    let diff_w = |folds: f64| folds * (fanin * stack_pitch + contact) + contact;
    let w = diff_w(fold_p).max(diff_w(fold_n));
    let own_h = wp / fold_p + wn / fold_n + layout.gap_p_n().um() + 2.0 * layout.power_rail().um();
    Area::from_um2(w * own_h.min(h))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_tech::units::Temperature;
    use regwatt_tech::{DeviceFlavor, Technology};

    fn hp45() -> (Device, Layout) {
        let t = Technology::for_node(45.0, Temperature::from_k(360.0)).unwrap();
        (
            t.device(DeviceFlavor::ItrsHp).unwrap().clone(),
            Layout::of(&t),
        )
    }

    #[test]
    fn gate_cap_hand_value() {
        let (d, _) = hp45();
        // 45 nm hp: C_g_ideal 6.78e-16, C_overlap 0.2 x that, C_fringe 5e-17 F/um.
        let want = (6.78e-16 * 1.2 + 3.0 * 5e-17) * 2.0;
        let c = gate_c(&d, Length::from_um(2.0));
        assert!((c.f() - want).abs() < 1e-6 * want, "{} vs {want}", c.f());
    }

    #[test]
    fn drain_cap_unfolded_hand_value() {
        let (d, l) = hp45();
        // W = 0.1 um, no folding, stack 1: drain width 3F = 0.135 um.
        let c = drain_c(
            &d,
            &l,
            Length::from_um(0.1),
            true,
            1,
            Fold::Width(Length::from_um(10.0)),
            0.0,
        );
        let want = 1e-15 * 0.135 * 0.1
            + 2.5e-16 * (0.1 + 2.0 * 0.135)
            + 2.0 * (5e-17 + 0.2 * 6.78e-16) * 0.1;
        assert!((c.f() - want).abs() < 1e-6 * want, "{} vs {want}", c.f());
    }

    #[test]
    fn leakage_of_gates() {
        let (d, _) = hp45();
        let w = Length::from_um(1.0);
        let i = d.i_off_n.times(w).a();
        assert!((isub(&d, w, w, 1, GateType::Inv).a() - i).abs() < 1e-12 * i);
        // NAND2: (2 p + n (1 + 0.43)) / 4 with n = p = i (two 1-off states, one 2-off state)
        let want = (2.0 * i + i * 2.0 + i * 0.43) / 4.0;
        assert!((isub(&d, w, w, 2, GateType::Nand).a() - want).abs() < 1e-9 * want);
    }

    #[test]
    fn gate_area_grows_with_width() {
        let (_, l) = hp45();
        let h = l.cell_h_def();
        let a1 = gate_area(&l, 1, Length::from_um(0.1), Length::from_um(0.2), h);
        let a2 = gate_area(&l, 1, Length::from_um(1.0), Length::from_um(2.0), h);
        let a3 = gate_area(&l, 1, Length::from_um(10.0), Length::from_um(20.0), h);
        assert!(a1.um2() > 0.0 && a2 > a1 && a3 > a2);
    }
}
