//! Drowsy (state-retentive, reduced-supply) SRAM: leakage at a retention voltage, wake-up cost.
//!
//! Flautner, Kim, Martin, Blaauw, Mudge, "Drowsy caches: simple techniques for reducing leakage
//! power", ISCA 2002: a line is kept at a low retention supply (there 0.3 V for 0.07 µm) that
//! preserves its state; waking it takes a supply swing and about one cycle.
//!
//! **Subthreshold leakage** at supply `V` (BSIM subthreshold model; see e.g. Roy,
//! Mukhopadhyay, Mahmoodi-Meimand, "Leakage current mechanisms and leakage reduction
//! techniques in deep-submicrometer CMOS circuits", Proc. IEEE 91(2), 2003, eq. (1)):
//!
//! `I_sub(V) = I_0 · exp((−V_th0 + η·V_DS) / (n·v_T)) · (1 − exp(−V_DS / v_T))`, `V_DS = V`
//!
//! for the off devices of a cell whose rail is at `V`. `V_th0` and `I_0` cancel in the ratio to
//! the leakage at the nominal supply `V_dd` (which the SRAM model computes from the technology
//! tables), so only the DIBL coefficient `η`, the swing factor `n` and the temperature are
//! needed:
//!
//! `I_sub(V)/I_sub(V_dd) = exp(η (V − V_dd)/(n v_T)) · (1 − e^{−V/v_T}) / (1 − e^{−V_dd/v_T})`
//!
//! and the power `P = V · I`. Leakage therefore falls exponentially (super-linearly) with the
//! retention voltage — unlike CACTI-P's linear `0.65 · V_dd`-style scaling, which we do not use.
//!
//! **Gate (direct-tunnelling) leakage** (Roy et al. 2003, eq. (4); Schuegraf & Hu 1994):
//! `J_g ∝ (V/T_ox)² · exp(−B·T_ox·(1 − (1 − V/φ_ox)^{3/2}) / V)`, with `φ_ox = 3.1 eV` (Si/SiO₂
//! electron barrier) and `B = 8π√(2 m_ox) φ_ox^{3/2} / (3 h q)`, `m_ox = 0.4 m_0`. Around 1 V and
//! 1 nm EOT this behaves like `V^3` (`V²` prefactor times the weakening exponential), inside
//! the `V²…V³` range usually quoted. Again only the ratio to the nominal supply is used.
//!
//! **Retention voltage** defaults: CACTI-P's SRAM V_ccmin table as reproduced in seed
//! `002_1d6dd49753f19552.txt` Table 4 (`published.toml` `[[retention]]`): 65 nm 0.70 V,
//! 45 nm 0.65 V, 32 nm 0.60 V, 22 nm 0.55 V, linearly interpolated in the node between those
//! points (40 nm = 0.615·45 nm + 0.385·32 nm = 0.631 V; 90 nm extrapolated along the 65–45 nm
//! slope = 0.7625 V). **12 nm: we keep 0.55 V** (the 22 nm value, not a linear extrapolation):
//! SRAM V_min stopped scaling with the node because it is set by random V_th variation of the
//! minimum-size cell, and published 16/14 nm FinFET high-density bit cells are still reported
//! around 0.5–0.6 V without assist; the 12 nm nominal Vdd (0.8 V) is then 1.45 × V_ret.
//!
//! **Wake-up**: the virtual rail (capacitance `C_rail`) is recharged from `V_ret` to `V_dd`
//! through the drowsy/awake switch: energy drawn from the supply `E = C_rail · V_dd ·
//! (V_dd − V_ret)` (half stored, half dissipated in the switch; CACTI 7 `powergating.cc`
//! `Sleep_tx::compute_penalty` uses the same `C · V_dd · ΔV`), latency `t = C_rail ·
//! (V_dd − V_ret) / I_switch` with the switch's average (linear-region) current.

use regwatt_tech::units::{
    Capacitance, Current, Energy, Length, Power, Temperature, Time, Voltage,
};
use serde::Serialize;

/// Errors of the drowsy model.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DrowsyError {
    /// The node has no parameters.
    #[error("no drowsy/leakage parameters for a {nm} nm node (available: 90..22 nm interpolated, and 12 nm)")]
    UnknownNode {
        /// Node asked for.
        nm: f64,
    },
    /// The retention voltage is not below the supply, or not positive.
    #[error("retention voltage {vret} V must be > 0 and < the supply {vdd} V")]
    BadRetention {
        /// Retention voltage.
        vret: f64,
        /// Supply.
        vdd: f64,
    },
    /// A parameter is out of range.
    #[error("{what}: {msg}")]
    BadParameter {
        /// Which parameter.
        what: &'static str,
        /// What is wrong.
        msg: String,
    },
}

/// Physical leakage parameters of a node's devices.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LeakageParams {
    /// DIBL coefficient η (V/V): ΔV_th = −η·V_DS.
    pub eta_dibl: f64,
    /// Subthreshold swing factor n (S = n·v_T·ln 10).
    pub n_swing: f64,
    /// Gate-oxide equivalent thickness for the tunnelling ratio.
    pub t_ox: Length,
    /// Where the numbers come from.
    #[serde(skip)]
    pub source: &'static str,
}

/// Per-node parameter table: (node nm, η, n, EOT nm, source).
///
/// These are representative device figures, not foundry data; replace them with your
/// process's if you have it (all three enter only through the leakage *ratios*):
/// - planar bulk 90–32 nm: S ≈ 85–95 mV/dec at 300 K (n ≈ 1.4–1.55) and DIBL ≈ 0.08–0.15 V/V
///   for short-channel logic devices (ranges of Roy et al., Proc. IEEE 2003, section II, and the
///   ITRS PIDS device tables that CACTI's 90–22 nm files come from); DIBL grows as L shrinks;
/// - 22 nm (CACTI's ITRS 22 nm high-performance device): n = 1.35, η = 0.12;
/// - 12 nm FinFET: S ≈ 68 mV/dec (n = 1.15, the value regwatt's 12 nm technology file uses
///   for its I_off temperature law) and DIBL ≈ 0.05 V/V (tri-gate/FinFET figures reported for
///   Intel 22 nm tri-gate, Auth et al., VLSI 2012, and 14/16 nm FinFETs: 40–60 mV/V);
/// - EOT: the `t_ox` of CACTI's hp device at each node (tech files), 0.9 nm at 12 nm.
const TABLE: [(f64, f64, f64, f64, &str); 6] = [
    (
        90.0,
        0.08,
        1.50,
        1.2,
        "planar bulk, representative (Roy et al. 2003; ITRS PIDS)",
    ),
    (
        65.0,
        0.10,
        1.50,
        1.1,
        "planar bulk, representative (Roy et al. 2003; ITRS PIDS)",
    ),
    (
        45.0,
        0.12,
        1.45,
        0.65,
        "planar HKMG, representative (Roy et al. 2003; ITRS PIDS)",
    ),
    (
        32.0,
        0.13,
        1.40,
        0.55,
        "planar HKMG, representative (Roy et al. 2003; ITRS PIDS)",
    ),
    (
        22.0,
        0.12,
        1.35,
        0.50,
        "ITRS 22 nm HP device, representative",
    ),
    (
        12.0,
        0.05,
        1.15,
        0.90,
        "FinFET, representative (Auth et al. VLSI 2012; 14/16 nm FinFET reports)",
    ),
];

/// Leakage parameters at a node: tabulated nodes exactly, linear interpolation between
/// 90 and 22 nm (as the technology tables are), 12 nm as tabulated; anything else is an error.
pub fn leakage_params(node_nm: f64) -> Result<LeakageParams, DrowsyError> {
    for &(n, eta, ns, tox, src) in &TABLE {
        if (node_nm - n).abs() < 1.0 {
            return Ok(LeakageParams {
                eta_dibl: eta,
                n_swing: ns,
                t_ox: Length::from_nm(tox),
                source: src,
            });
        }
    }
    for w in TABLE[..5].windows(2) {
        let (a, b) = (w[0], w[1]);
        if node_nm < a.0 && node_nm > b.0 {
            let al = (node_nm - b.0) / (a.0 - b.0);
            let l = |x: f64, y: f64| al * x + (1.0 - al) * y;
            return Ok(LeakageParams {
                eta_dibl: l(a.1, b.1),
                n_swing: l(a.2, b.2),
                t_ox: Length::from_nm(l(a.3, b.3)),
                source: "interpolated between neighbouring nodes",
            });
        }
    }
    Err(DrowsyError::UnknownNode { nm: node_nm })
}

/// Retention (V_ccmin) table, Jeon & Annavaram 2014 Table 4 (from CACTI-P): (node nm, V_ccmin V).
const RETENTION: [(f64, f64); 4] = [(65.0, 0.70), (45.0, 0.65), (32.0, 0.60), (22.0, 0.55)];

/// Default retention voltage at a node (see the module docs for interpolation, 90 nm and
/// 12 nm choices).
pub fn retention_voltage(node_nm: f64) -> Result<Voltage, DrowsyError> {
    if !node_nm.is_finite() {
        return Err(DrowsyError::UnknownNode { nm: node_nm });
    }
    if (node_nm - 12.0).abs() < 1.0 {
        return Ok(Voltage::from_v(0.55));
    }
    if !(21.0..=91.0).contains(&node_nm) {
        return Err(DrowsyError::UnknownNode { nm: node_nm });
    }
    let pts = RETENTION;
    // segment: 90..65 uses the 65-45 slope (extrapolation), below 22 clamps to 22.
    let v = if node_nm >= pts[0].0 {
        let slope = (pts[0].1 - pts[1].1) / (pts[0].0 - pts[1].0);
        pts[0].1 + slope * (node_nm - pts[0].0)
    } else if node_nm <= pts[3].0 {
        pts[3].1
    } else {
        let mut v = pts[3].1;
        for w in pts.windows(2) {
            let (a, b) = (w[0], w[1]);
            if node_nm <= a.0 && node_nm >= b.0 {
                let al = (node_nm - b.0) / (a.0 - b.0);
                v = al * a.1 + (1.0 - al) * b.1;
                break;
            }
        }
        v
    };
    Ok(Voltage::from_v(v))
}

/// Thermal voltage kT/q.
pub fn thermal_voltage(t: Temperature) -> Voltage {
    const K_OVER_Q: f64 = 8.617_333_262e-5; // V/K
    Voltage::from_v(K_OVER_Q * t.k())
}

/// `I_sub(V) / I_sub(V_dd)` (BSIM subthreshold, see module docs).
pub fn subthreshold_current_ratio(
    p: &LeakageParams,
    vdd: Voltage,
    v: Voltage,
    t: Temperature,
) -> f64 {
    let vt = thermal_voltage(t).v();
    let (vdd, v) = (vdd.v(), v.v());
    let dibl = (p.eta_dibl * (v - vdd) / (p.n_swing * vt)).exp();
    let ds = (1.0 - (-v / vt).exp()) / (1.0 - (-vdd / vt).exp());
    dibl * ds
}

/// `J_gate(V) / J_gate(V_dd)` (direct tunnelling, see module docs).
pub fn gate_current_ratio(t_ox: Length, vdd: Voltage, v: Voltage) -> f64 {
    // B = 8π sqrt(2 m_ox) φ^{3/2} / (3 h q) in V/m, φ in J.
    const M0: f64 = 9.109_383_7e-31;
    const H: f64 = 6.626_070_15e-34;
    const Q: f64 = 1.602_176_634e-19;
    let phi_v = 3.1;
    let phi_j = phi_v * Q;
    let b = 8.0 * std::f64::consts::PI * (2.0 * 0.4 * M0).sqrt() * phi_j.powf(1.5) / (3.0 * H * Q);
    let tox = t_ox.m();
    let j = |v: f64| -> f64 {
        if v <= 0.0 {
            return 0.0;
        }
        let x = (v / phi_v).min(1.0);
        (v / tox).powi(2) * (-b * tox * (1.0 - (1.0 - x).powf(1.5)) / v).exp()
    };
    j(v.v()) / j(vdd.v())
}

/// Leakage of a block whose supply is lowered from `vdd` to `v`, given its leakage at `vdd`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScaledLeakage {
    /// Subthreshold leakage power at `v`.
    pub subthreshold: Power,
    /// Gate leakage power at `v`.
    pub gate: Power,
}

/// Scales active leakage powers (at `vdd`) to supply `v` (power = V·I).
pub fn leakage_at(
    p: &LeakageParams,
    t: Temperature,
    vdd: Voltage,
    v: Voltage,
    sub_at_vdd: Power,
    gate_at_vdd: Power,
) -> ScaledLeakage {
    let vr = v.v() / vdd.v();
    ScaledLeakage {
        subthreshold: sub_at_vdd * (vr * subthreshold_current_ratio(p, vdd, v, t)),
        gate: gate_at_vdd * (vr * gate_current_ratio(p.t_ox, vdd, v)),
    }
}

/// Inputs of [`drowsy`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DrowsyInput {
    /// Node (for the parameter table and default retention voltage).
    pub node_nm: f64,
    /// Temperature.
    pub temperature: Temperature,
    /// Nominal cell supply.
    pub vdd: Voltage,
    /// Retention voltage; `None` = the node's default ([`retention_voltage`]).
    pub vret: Option<Voltage>,
    /// Active subthreshold leakage of the block at `vdd`.
    pub active_subthreshold: Power,
    /// Active gate leakage of the block at `vdd`.
    pub active_gate: Power,
    /// Capacitance of the block's virtual supply rail (cell drains on the rail + wire).
    pub rail_capacitance: Capacitance,
    /// Average current of the awake switch while recharging the rail.
    pub switch_current: Current,
}

/// Result of [`drowsy`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DrowsyResult {
    /// Retention voltage used.
    pub vret: Voltage,
    /// Parameters used.
    pub params: LeakageParams,
    /// Subthreshold leakage while drowsy.
    pub subthreshold: Power,
    /// Gate leakage while drowsy.
    pub gate: Power,
    /// Drowsy / active total leakage.
    pub ratio: f64,
    /// Wake-up energy (drawn from the supply).
    pub wakeup_energy: Energy,
    /// Wake-up latency.
    pub wakeup_latency: Time,
}

/// Drowsy leakage and wake-up cost of a block.
pub fn drowsy(i: &DrowsyInput) -> Result<DrowsyResult, DrowsyError> {
    let p = leakage_params(i.node_nm)?;
    let vret = match i.vret {
        Some(v) => v,
        None => retention_voltage(i.node_nm)?,
    };
    if !(vret.v() > 0.0 && vret.v() < i.vdd.v()) {
        return Err(DrowsyError::BadRetention {
            vret: vret.v(),
            vdd: i.vdd.v(),
        });
    }
    if i.switch_current.a().is_nan() || i.switch_current.a() <= 0.0 {
        return Err(DrowsyError::BadParameter {
            what: "switch_current",
            msg: format!("{} A must be > 0", i.switch_current.a()),
        });
    }
    let s = leakage_at(
        &p,
        i.temperature,
        i.vdd,
        vret,
        i.active_subthreshold,
        i.active_gate,
    );
    let active = (i.active_subthreshold + i.active_gate).w();
    let dv = i.vdd.v() - vret.v();
    Ok(DrowsyResult {
        vret,
        params: p,
        subthreshold: s.subthreshold,
        gate: s.gate,
        ratio: if active > 0.0 {
            (s.subthreshold + s.gate).w() / active
        } else {
            0.0
        },
        wakeup_energy: Energy::from_j(i.rail_capacitance.f() * i.vdd.v() * dv),
        wakeup_latency: Time::from_s(i.rail_capacitance.f() * dv / i.switch_current.a()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t300() -> Temperature {
        Temperature::from_k(300.0)
    }

    #[test]
    fn retention_table_and_interpolation() {
        for (n, v) in RETENTION {
            assert!((retention_voltage(n).unwrap().v() - v).abs() < 1e-12);
        }
        // 40 nm: alpha = (40-32)/(45-32) = 8/13 -> 8/13*0.65 + 5/13*0.60
        let want = 8.0 / 13.0 * 0.65 + 5.0 / 13.0 * 0.60;
        assert!((retention_voltage(40.0).unwrap().v() - want).abs() < 1e-12);
        assert!((retention_voltage(12.0).unwrap().v() - 0.55).abs() < 1e-12);
        assert!((retention_voltage(90.0).unwrap().v() - 0.7625).abs() < 1e-12);
        assert!(retention_voltage(16.0).is_err());
        assert!(retention_voltage(7.0).is_err());
    }

    #[test]
    fn subthreshold_ratio_hand_value() {
        // 45 nm: eta 0.12, n 1.45; 300 K: vT = 0.025852 V; V = 0.65 of Vdd = 1.0.
        let p = leakage_params(45.0).unwrap();
        let vt: f64 = 8.617333262e-5 * 300.0;
        let want = (0.12f64 * (0.65 - 1.0) / (1.45 * vt)).exp() * (1.0 - (-0.65 / vt).exp())
            / (1.0 - (-1.0 / vt).exp());
        let r = subthreshold_current_ratio(&p, Voltage::from_v(1.0), Voltage::from_v(0.65), t300());
        assert!((r - want).abs() < 1e-12);
        // exp(-0.042 / 0.037486) = 0.326
        assert!((r - 0.3261).abs() < 2e-3, "{r}");
        assert_eq!(
            subthreshold_current_ratio(&p, Voltage::from_v(1.0), Voltage::from_v(1.0), t300()),
            1.0
        );
    }

    #[test]
    fn gate_ratio_is_between_v2_and_v4() {
        let tox = Length::from_nm(1.2);
        let r = gate_current_ratio(tox, Voltage::from_v(1.0), Voltage::from_v(0.7));
        // hand value (module docs): ~0.343 = 0.7^3.0
        assert!(r < 0.7f64.powi(2) && r > 0.7f64.powi(4), "{r}");
        assert!((r - 0.343).abs() < 0.02, "{r}");
    }

    #[test]
    fn drowsy_falls_faster_than_linear() {
        let vdd = Voltage::from_v(1.0);
        let p = leakage_params(45.0).unwrap();
        let s = leakage_at(
            &p,
            t300(),
            vdd,
            Voltage::from_v(0.5),
            Power::from_mw(1.0),
            Power::from_mw(1.0),
        );
        // linear (CACTI-P style) scaling of the power would give 0.5 mW each
        assert!(s.subthreshold.mw() < 0.5 * 0.5);
        assert!(s.gate.mw() < 0.5 * 0.5);
    }

    #[test]
    fn drowsy_wakeup_hand_value() {
        let r = drowsy(&DrowsyInput {
            node_nm: 45.0,
            temperature: t300(),
            vdd: Voltage::from_v(1.0),
            vret: None,
            active_subthreshold: Power::from_mw(1.0),
            active_gate: Power::from_mw(0.1),
            rail_capacitance: Capacitance::from_ff(100.0),
            switch_current: Current::from_ua(100.0),
        })
        .unwrap();
        assert!((r.vret.v() - 0.65).abs() < 1e-12);
        // E = 100 fF * 1 V * 0.35 V = 35 fJ ; t = 100 fF * 0.35 V / 100 uA = 0.35 ns
        assert!((r.wakeup_energy.fj() - 35.0).abs() < 1e-9);
        assert!((r.wakeup_latency.ns() - 0.35).abs() < 1e-12);
        assert!(r.ratio < 1.0 && r.ratio > 0.0);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let mut i = DrowsyInput {
            node_nm: 45.0,
            temperature: t300(),
            vdd: Voltage::from_v(1.0),
            vret: Some(Voltage::from_v(1.2)),
            active_subthreshold: Power::from_mw(1.0),
            active_gate: Power::from_mw(0.1),
            rail_capacitance: Capacitance::from_ff(100.0),
            switch_current: Current::from_ua(100.0),
        };
        assert!(matches!(drowsy(&i), Err(DrowsyError::BadRetention { .. })));
        i.vret = None;
        i.node_nm = 16.0;
        assert!(matches!(drowsy(&i), Err(DrowsyError::UnknownNode { .. })));
    }
}
