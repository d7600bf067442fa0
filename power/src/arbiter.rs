//! Matrix arbiter for `R` requesters (CACTI 7 `arbiter.cc`, after Wang, Peh, Malik, "Power
//! models for on-chip networks", MICRO 2003 / Orion).
//!
//! Each requester has a request line, a grant NOR2 per competitor and a priority matrix of
//! `R(R−1)/2` flip-flops. Device widths (CACTI, in units of F): NOR2 `N 13.5/2, P 76/2`, grant
//! inverter `N 12.5/2, P 25/2`.
//!
//! Energy per arbitration (CACTI `compute_power`), with `C_req`, `C_pri`, `C_grant`, `C_int`
//! from `arb_req`, `arb_pri`, `arb_grant`, `arb_int`:
//!
//! `E = R·C_req·V²/2 + R·C_pri·V²/2 + C_grant·V² + C_int·V²/2`
//!
//! `C_grant` includes the crossbar control line the grant drives (`crossbar_ctrline`: wire of
//! the given length + one inverter). Leakage: CACTI counts one requester's NOR2 pair, the
//! `R`-wide NOR and the inverter (its own `FIXME` notes the priority table is missing); we count
//! all `R` requesters' gates and the `R(R−1)/2` priority flip-flops (each two latches of an
//! inverter pair + NOR2 feedback at minimum size, an assumption of ours), which makes leakage
//! and area grow with `R` as the structure does. Area: the gates folded at the standard cell
//! height (`gating::circuit::gate_area`).

use crate::crossbar::{LogicTech, StructureError};
use crate::gating::circuit::{gate_area, igate, isub, GateType};
use regwatt_tech::units::{Area, Capacitance, Energy, Length, Power};
use serde::Serialize;

/// Arbiter result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ArbiterResult {
    /// Energy per arbitration.
    pub energy_per_arbitration: Energy,
    /// Subthreshold leakage.
    pub leakage: Power,
    /// Gate leakage.
    pub gate_leakage: Power,
    /// Area.
    pub area: Area,
}

/// Evaluates an `requesters`-input matrix arbiter whose grant drives a control line of length
/// `output_wire` (e.g. a crossbar's input-wire length; zero for none).
pub fn arbiter(
    t: &LogicTech,
    requesters: u32,
    output_wire: Length,
) -> Result<ArbiterResult, StructureError> {
    if requesters == 0 || requesters > 1024 {
        return Err(StructureError::BadCount {
            field: "requesters",
            value: requesters as u64,
            msg: "must be in 1..=1024",
        });
    }
    if !(output_wire.m().is_finite() && output_wire.m() >= 0.0) {
        return Err(StructureError::BadLength {
            field: "output_wire",
            value_um: output_wire.um(),
        });
    }
    let r = requesters as f64;
    let f = t.layout.f;
    let ntn1 = t.w(f * (13.5 / 2.0));
    let ptn1 = t.w(f * (76.0 / 2.0));
    let (ntn2, ptn2) = (ntn1, ptn1);
    let nti = t.w(f * (12.5 / 2.0));
    let pti = t.w(f * (25.0 / 2.0));
    let cg = |w: Length| t.cg(w);
    let cdn = |w: Length| t.cd(w, true);
    let cdp = |w: Length| t.cd(w, false);
    let c_req: Capacitance = (cg(ntn1) * 2.0 + cg(ptn1)) * (r - 1.0)
        + cg(ntn2) * 2.0
        + cg(ptn2)
        + cg(nti)
        + cg(pti)
        + cdn(nti)
        + cdp(pti);
    let c_pri = (cg(ntn1) * 2.0 + cg(ptn1)) * 2.0;
    let ctrline = t.wire.c_per_length.times(output_wire) + cdn(nti) + cdp(pti) + cg(nti) + cg(pti);
    let c_grant = cdn(ntn1) * 2.0 + cdp(ptn1) + ctrline;
    let c_int = cdn(ntn1) * 2.0 + cdp(ptn1) + cg(ntn2) * 2.0 + cg(ptn2);
    let v = t.dev.vdd.v();
    let e = (r * c_req.f() * v * v / 2.0)
        + (r * c_pri.f() * v * v / 2.0)
        + c_grant.f() * v * v
        + c_int.f() * v * v / 2.0;
    // leakage: per requester NOR2 pair + R-input NOR + inverter; priority flip-flops.
    let per_req = isub(&t.dev, ntn1 * 2.0, ptn1 * 2.0, 2, GateType::Nor).a()
        + isub(&t.dev, ntn2 * r, ptn2 * r, 2, GateType::Nor).a()
        + isub(&t.dev, nti, pti, 1, GateType::Inv).a();
    let per_req_g = igate(&t.dev, ntn1 * 2.0, ptn1 * 2.0, 2).a()
        + igate(&t.dev, ntn2 * r, ptn2 * r, 2).a()
        + igate(&t.dev, nti, pti, 1).a();
    let flops = r * (r - 1.0) / 2.0;
    let (wn, wp) = (t.wn(), t.wp());
    let ff = 2.0
        * (2.0 * isub(&t.dev, wn, wp, 1, GateType::Inv).a()
            + isub(&t.dev, wn, wp, 2, GateType::Nor).a());
    let ff_g = 2.0 * (2.0 * igate(&t.dev, wn, wp, 1).a() + igate(&t.dev, wn, wp, 2).a());
    let h = t.layout.cell_h_def();
    let a_req = gate_area(&t.layout, 2, ntn1, ptn1, h) * 2.0
        + gate_area(&t.layout, 2, ntn2 * r, ptn2 * r, h)
        + gate_area(&t.layout, 1, nti, pti, h);
    let a_ff =
        (gate_area(&t.layout, 1, wn, wp, h) * 2.0 + gate_area(&t.layout, 2, wn, wp, h)) * 2.0;
    Ok(ArbiterResult {
        energy_per_arbitration: Energy::from_j(e),
        leakage: Power::from_w((r * per_req + flops * ff) * v),
        gate_leakage: Power::from_w((r * per_req_g + flops * ff_g) * v),
        area: a_req * r + a_ff * flops,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_tech::units::Temperature;
    use regwatt_tech::{DeviceFlavor, Technology};

    fn lt() -> LogicTech {
        let t = Technology::for_node(45.0, Temperature::from_k(360.0)).unwrap();
        LogicTech::new(&t, DeviceFlavor::ItrsHp).unwrap()
    }

    /// Computed by hand from `tech/nodes/45nm.toml` (itrs-hp), not through the
    /// code under test. Inputs: F = 0.045 um, V = 1.0 V, C_g,ideal = 6.78e-16 F/um,
    /// C_overlap = 0.2 C_g,ideal, C_fringe = 5e-17 F/um, C_junc = 1e-15 F/um^2,
    /// C_sidewall = 2.5e-16 F/um, local wire 2.58017e-16 F/um.
    /// * Gate C per um: 6.78e-16 + 1.356e-16 + 3 x 5e-17 = 9.636e-16 F/um. Widths: NOR2
    ///   N 6.75 F = 0.30375 um, P 38 F = 1.71 um; inverter N 6.25 F = 0.28125 um,
    ///   P 12.5 F = 0.5625 um. C_g: 0.29269, 1.64776, 0.27101, 0.54203 fF.
    /// * Drains (CACTI `drain_C_`, 50 F cell: N folds at 41 F/3 = 0.615 um, P at 1.23 um;
    ///   contact 3 F = 0.135 um): N 0.30375 um unfolded, 1e-15 x 0.135 x 0.30375 plus
    ///   2.5e-16 x (0.30375 + 0.27) plus 2(5e-17 + 1.356e-16) x 0.30375 = 0.29720 fF;
    ///   P 1.71 um in 2 folds of 1.23 um (no sidewall, metal 2.58017e-16 x 0.135):
    ///   1.18153 fF; inverter N 0.28018 fF, P 0.49286 fF.
    /// * C_req = 2(2 x 0.29269 + 1.64776) + 0.27101 + 0.54203 + 0.28018 + 0.49286 = 6.05237 fF;
    ///   C_pri = 2(2 x 0.29269 + 1.64776) = 4.46629 fF;
    ///   C_grant = 2 x 0.29720 + 1.18153 + 0.28018 + 0.49286 + 0.27101 + 0.54203 = 3.36201 fF;
    ///   C_int = 2 x 0.29720 + 1.18153 + 2 x 0.29269 + 1.64776 = 4.00907 fF.
    /// * E = 2 x 6.05237/2 + 2 x 4.46629/2 + 3.36201 + 4.00907/2 = 15.8852 fJ.
    #[test]
    fn two_requesters_hand_value() {
        let r = arbiter(&lt(), 2, Length::ZERO).unwrap();
        let e = r.energy_per_arbitration.fj();
        assert!((e - 15.8852).abs() < 1e-4 * 15.8852, "{e} fJ");
    }

    #[test]
    fn grows_with_requesters_and_wire() {
        let t = lt();
        let mut last = arbiter(&t, 1, Length::ZERO).unwrap();
        for n in [2, 4, 8, 16, 32] {
            let a = arbiter(&t, n, Length::ZERO).unwrap();
            assert!(a.energy_per_arbitration > last.energy_per_arbitration);
            assert!(a.leakage > last.leakage && a.area > last.area);
            last = a;
        }
        let w = arbiter(&t, 8, Length::from_mm(1.0)).unwrap();
        assert!(
            w.energy_per_arbitration > arbiter(&t, 8, Length::ZERO).unwrap().energy_per_arbitration
        );
        assert!(arbiter(&t, 0, Length::ZERO).is_err());
    }
}
