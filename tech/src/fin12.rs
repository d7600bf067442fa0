//! Checks that pin the 12 nm FinFET file (`nodes/12nm.toml`) to the derivation written in its
//! header and in `tech/README.md`: per-fin figures → per-µm-of-W_eff values, the threshold
//! each flavour's 300 K leakage implies, the subthreshold temperature law, the virtual-source
//! on current, HKMG gate leakage, 1-fin bitcell devices. A value edited in the file without
//! redoing its derivation fails here.

use crate::tech::{DeviceFlavor, Technology};
use crate::units::Temperature;

/// Fin height, m (Intel 14 nm, Natarajan et al., IEDM 2014: 42 nm).
const H_FIN: f64 = 42e-9;
/// Fin width, m (~8 nm).
const W_FIN: f64 = 8e-9;
/// Fin pitch, m (TSMC 16FF+, GF/Samsung 14LPP, GF 12LP: 48 nm).
const FIN_PITCH: f64 = 48e-9;
/// Subthreshold ideality n (SS = n kT/q ln 10 = 68.5 mV/dec at 300 K).
const N_SWING: f64 = 1.15;
/// DIBL coefficient, V/V.
const ETA_DIBL: f64 = 0.05;
/// dV_th/dT magnitude, V/K.
const KAPPA: f64 = 0.7e-3;
/// Boltzmann constant over electron charge, V/K.
const K_Q: f64 = 8.617_333_262e-5;
/// Vacuum permittivity × SiO₂'s 3.9, F/m.
const EPS_OX: f64 = 3.9 * 8.854_187_817e-12;
/// Inversion-layer dark space + quantum capacitance, as an oxide thickness, m.
const CET_ADD: f64 = 0.4e-9;
/// Virtual-source injection velocity, m/s (1.0e7 cm/s).
const V_INJ: f64 = 1.0e5;
/// Fraction of the intrinsic drive lost to source/drain series resistance.
const D_RSD: f64 = 0.3;
/// PMOS/NMOS drive ratio → `n_to_p_drive_ratio = 1.18`.
const N_TO_P: f64 = 1.18;

/// One flavour's published-figure inputs.
struct Flavour {
    flavour: DeviceFlavor,
    /// I_off per fin at 300 K and nominal Vdd, A.
    i_off_fin: f64,
    /// Physical gate length, m.
    l_g: f64,
    /// Nominal supply, V.
    vdd: f64,
    /// Gate tunnelling current density, A/m².
    j_g: f64,
}

const FLAVOURS: [Flavour; 3] = [
    Flavour {
        flavour: DeviceFlavor::ItrsHp,
        i_off_fin: 3e-9,
        l_g: 16e-9,
        vdd: 0.8,
        j_g: 2.0e4, // 2 A/cm²
    },
    Flavour {
        flavour: DeviceFlavor::ItrsLstp,
        i_off_fin: 3e-12,
        l_g: 20e-9,
        vdd: 0.8,
        j_g: 5.0e2, // 0.05 A/cm²
    },
    Flavour {
        flavour: DeviceFlavor::ItrsLop,
        i_off_fin: 0.3e-9,
        l_g: 18e-9,
        vdd: 0.7,
        j_g: 5.0e3, // 0.5 A/cm²
    },
];

/// The SRAM bitcell device (`[sram_cell_device]`): the low-power I_off tier, 100 pA/µm of
/// W_eff at 300 K (Intel 22FFL, Sell et al., IEDM 2017) = 9.2 pA per fin, on the hp gate stack.
const SRAM_CELL: Flavour = Flavour {
    flavour: DeviceFlavor::ItrsHp, // gate stack, length and supply of the hp device
    i_off_fin: 100e-12 * 1e6 * 92e-9,
    l_g: 16e-9,
    vdd: 0.8,
    j_g: 2.0e4, // 2 A/cm², the hp stack's
};

fn w_eff_fin() -> f64 {
    2.0 * H_FIN + W_FIN
}

fn ss(t: f64) -> f64 {
    N_SWING * K_Q * t * std::f64::consts::LN_10
}

/// Constant-current threshold criterion 100 nA × W/L, per metre of W_eff, A/m.
fn i_cc(f: &Flavour) -> f64 {
    100e-9 / f.l_g
}

/// I_off per metre of W_eff at 300 K, A/m.
fn i_off_300(f: &Flavour) -> f64 {
    f.i_off_fin / w_eff_fin()
}

/// V_th,sat at 300 K implied by the 300 K leakage.
fn vth_sat(f: &Flavour) -> f64 {
    ss(300.0) * (i_cc(f) / i_off_300(f)).log10()
}

/// The header's temperature law, A/m of W_eff.
fn i_off(f: &Flavour, t: f64) -> f64 {
    let vth = vth_sat(f) - KAPPA * (t - 300.0);
    i_cc(f) * (t / 300.0).sqrt() * 10f64.powf(-vth / ss(t))
}

fn tech(k: f64) -> Technology {
    Technology::for_node(12.0, Temperature::from_k(k)).expect("12 nm loads")
}

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

#[test]
fn fin_geometry_hand_values() {
    // 2 × 42 + 8 = 92 nm of W_eff per fin; 1/48 nm = 20.8 fins per µm of footprint.
    assert!((w_eff_fin() - 92e-9).abs() < 1e-15);
    assert!(rel(1e-6 / FIN_PITCH * w_eff_fin() / 1e-6, 1.9167) < 1e-4);
    // the file's layout factor is that same ratio (effective width per µm of footprint)
    assert!(rel(tech(300.0).width_per_footprint, w_eff_fin() / FIN_PITCH) < 1e-4);
    // SS(300 K) = 68.5 mV/dec.
    assert!(rel(ss(300.0), 0.068_455) < 1e-4);
}

#[test]
fn at_12nm_ioff_per_um_is_per_fin_over_weff() {
    let t = tech(300.0);
    for f in &FLAVOURS {
        let d = t.device(f.flavour).expect("flavour");
        let want = i_off_300(f) * 1e-6; // A/µm
        assert!(
            rel(d.i_off_n.a_per_um(), want) < 1e-3,
            "{:?}: file {} vs derived {want}",
            f.flavour,
            d.i_off_n.a_per_um()
        );
        assert!(rel(d.vdd.v(), f.vdd) < 1e-12);
        assert!(
            (d.vth.v() - vth_sat(f)).abs() < 1e-3,
            "{:?}: vth {} vs {}",
            f.flavour,
            d.vth.v(),
            vth_sat(f)
        );
        assert!(rel(d.l_phy.m(), f.l_g) < 1e-9);
        // C_g = C_ox × L_g (CACTI's rule).
        let cg = d.c_ox.f_per_m2() * f.l_g;
        assert!(rel(d.c_g_ideal.f_per_m(), cg) < 2e-3, "{:?}", f.flavour);
    }
}

#[test]
fn at_12nm_temperature_table_follows_subthreshold_law() {
    for k in (0..=10).map(|i| 300.0 + 10.0 * f64::from(i)) {
        let t = tech(k);
        for f in &FLAVOURS {
            let d = t.device(f.flavour).expect("flavour");
            let want = i_off(f, k) * 1e-6;
            assert!(
                rel(d.i_off_n.a_per_um(), want) < 1e-3,
                "{:?} at {k} K: file {} vs law {want}",
                f.flavour,
                d.i_off_n.a_per_um()
            );
        }
    }
    // HP: ×8.5 from 300 to 360 K, ×25 to 400 K (steep-slope device, 0.7 mV/K V_th shift).
    let hp = &FLAVOURS[0];
    assert!(rel(i_off(hp, 360.0) / i_off(hp, 300.0), 8.54) < 2e-3);
}

#[test]
fn at_12nm_on_current_and_gate_leakage_derivation() {
    let t = tech(360.0);
    for f in &FLAVOURS {
        let d = t.device(f.flavour).expect("flavour");
        let eot = d.t_ox.m();
        // C_ox = eps_ox / EOT
        assert!(
            rel(d.c_ox.f_per_m2(), EPS_OX / eot) < 2e-3,
            "{:?}",
            f.flavour
        );
        // virtual source: C_inv v_inj (Vdd - V_th,sat) (1 - d_Rsd)
        let c_inv = EPS_OX / (eot + CET_ADD);
        let ion = c_inv * V_INJ * (f.vdd - vth_sat(f)) * (1.0 - D_RSD);
        assert!(
            rel(d.i_on_n.a_per_m(), ion) < 2e-3,
            "{:?}: I_on {} vs {ion}",
            f.flavour,
            d.i_on_n.a_per_m()
        );
        assert!(rel(d.i_on_p.a_per_m(), ion / N_TO_P) < 2e-3);
        assert!(rel(d.n_to_p_drive_ratio, N_TO_P) < 1e-12);
        // gate leakage J_g × L_g per metre of W_eff
        assert!(
            rel(d.i_g_on_n.a_per_m(), f.j_g * f.l_g) < 1e-9,
            "{:?}",
            f.flavour
        );
    }
    // V_th,lin = V_th,sat + eta Vdd for HP is about 0.2 V (LVT class)
    let lin = vth_sat(&FLAVOURS[0]) + ETA_DIBL * FLAVOURS[0].vdd;
    assert!(lin > 0.18 && lin < 0.22, "{lin}");
}

#[test]
fn at_12nm_bitcell_devices_are_one_fin() {
    let t = tech(360.0);
    for c in [&t.sram_cell, &t.cam_cell] {
        for w in [c.access_width, c.pull_up_width, c.pull_down_width] {
            assert!(rel(w.m(), w_eff_fin()) < 1e-9);
        }
    }
    assert!(rel(t.sram_cell.area.um2(), 0.07) < 1e-9);
}

#[test]
fn at_12nm_hp_leaks_less_per_um_than_40nm_at_operating_temperatures() {
    for k in [300.0, 330.0, 360.0, 400.0] {
        let t12 = Technology::for_node(12.0, Temperature::from_k(k)).expect("12");
        let t40 = Technology::for_node(40.0, Temperature::from_k(k)).expect("40");
        let i12 = t12.device(DeviceFlavor::ItrsHp).expect("hp").i_off_n.0;
        let i40 = t40.device(DeviceFlavor::ItrsHp).expect("hp").i_off_n.0;
        assert!(i12 < i40, "{k} K: 12 nm {i12} A/m vs 40 nm {i40} A/m");
    }
}

/// The 12 nm wordline runs on the 2x (semi-global) layer, one track per port: the
/// track pitch fits in the cell height and is two local pitches (CACTI's per-port growth of
/// the cell), so each extra port brings room for its own track. The layer cuts the
/// wordline's resistance per length ~6x; planar (CACTI) nodes keep the local layer.
#[test]
fn at_12nm_wordline_on_the_2x_layer_fits_the_cell() {
    use crate::tech::WireLayer;
    let t = tech(360.0);
    assert_eq!(t.sram_cell.wordline_layer, WireLayer::SemiGlobal);
    assert_eq!(t.cam_cell.wordline_layer, WireLayer::SemiGlobal);
    let (l, s) = (&t.wires.local, &t.wires.semi_global);
    assert!(
        s.pitch.m() <= t.sram_cell.height.m(),
        "2x track fits one row"
    );
    assert!(rel(s.pitch.m(), 2.0 * l.pitch.m()) < 1e-9);
    let w = t.wires.layer(t.sram_cell.wordline_layer);
    // 28.8 / 4.63 = 6.2x less resistance, same capacitance per length
    assert!(rel(l.r_per_length.0 / w.r_per_length.0, 28.8 / 4.63) < 1e-3);
    assert!(rel(w.c_per_length.0, l.c_per_length.0) < 1e-3);
    for nm in [22.0, 32.0, 40.0, 45.0, 65.0, 90.0] {
        let p = Technology::for_node(nm, Temperature::from_k(360.0)).expect("node");
        assert_eq!(p.sram_cell.wordline_layer, WireLayer::Local, "{nm} nm");
    }
}

/// A technology file must name the wordline layer, and only a known one.
#[test]
fn wordline_layer_is_required_and_checked() {
    let text = include_str!("../nodes/12nm.toml");
    let bad = text.replacen(
        "wordline_layer = \"semi_global\"",
        "wordline_layer = \"global\"",
        1,
    );
    let e = Technology::from_toml_str("bad.toml", &bad, Temperature::from_k(360.0))
        .expect_err("unknown layer");
    assert!(e.to_string().contains("wordline_layer"), "{e}");
    let missing = text.replacen("wordline_layer = \"semi_global\"", "", 1);
    assert!(
        Technology::from_toml_str("missing.toml", &missing, Temperature::from_k(360.0)).is_err()
    );
}

/// The file's dedicated SRAM bitcell device follows the same derivation as the flavours:
/// per-fin leakage over W_eff, the V_th it implies, the temperature law at every tabulated
/// temperature, the virtual-source on current and the hp stack's gate leakage.
#[test]
fn at_12nm_sram_cell_device_follows_the_derivation() {
    let f = &SRAM_CELL;
    // 100 pA/µm × 0.092 µm = 9.2 pA per fin; V_th,sat = 68.46 mV × log10(6.25e-6 / 1e-10)
    assert!(rel(f.i_off_fin, 9.2e-12) < 1e-9);
    assert!((vth_sat(f) - 0.3283).abs() < 1e-4, "{}", vth_sat(f));
    for k in (0..=10).map(|i| 300.0 + 10.0 * f64::from(i)) {
        let t = tech(k);
        let d = t
            .sram_cell_device
            .as_ref()
            .expect("12 nm has an SRAM cell device");
        let want = i_off(f, k) * 1e-6;
        assert!(
            rel(d.i_off_n.a_per_um(), want) < 1e-3,
            "{k} K: file {} vs law {want}",
            d.i_off_n.a_per_um()
        );
    }
    let t = tech(360.0);
    let d = t.sram_cell_device.as_ref().expect("cell device");
    let hp = t.device(DeviceFlavor::ItrsHp).expect("hp");
    assert!((d.vth.v() - vth_sat(f)).abs() < 1e-3);
    assert!(rel(d.vdd.v(), f.vdd) < 1e-12);
    // same gate stack as hp: EOT, C_ox, L_g, C_g
    assert!(rel(d.t_ox.m(), hp.t_ox.m()) < 1e-12);
    assert!(rel(d.c_g_ideal.f_per_m(), hp.c_g_ideal.f_per_m()) < 1e-12);
    assert!(rel(d.l_phy.m(), f.l_g) < 1e-9);
    let c_inv = EPS_OX / (d.t_ox.m() + CET_ADD);
    let ion = c_inv * V_INJ * (f.vdd - vth_sat(f)) * (1.0 - D_RSD);
    assert!(
        rel(d.i_on_n.a_per_m(), ion) < 2e-3,
        "{} vs {ion}",
        d.i_on_n.a_per_m()
    );
    assert!(rel(d.i_on_p.a_per_m(), ion / N_TO_P) < 2e-3);
    assert!(rel(d.i_g_on_n.a_per_m(), f.j_g * f.l_g) < 1e-9);
    // x22.4 from 300 to 360 K (higher V_th: steeper relative temperature dependence than hp)
    assert!(rel(i_off(f, 360.0) / i_off(f, 300.0), 22.40) < 2e-3);
}

/// Subthreshold leakage of one 1-1-1 HD bitcell (CACTI mat.cc: the cross-coupled pair leaks
/// through one n and one p fin, (n + p)/2 each inverter, plus the off access fin), A.
fn bit_leak(i_off_per_m: f64) -> f64 {
    3.0 * i_off_per_m * w_eff_fin()
}

/// 12 nm SRAM leakage per bit, at 300 K and at 360 K (the temperature law of the header),
/// lies inside the band of FinFET device tiers an HD bitcell can be built from: an HD cell of
/// Intel 22FFL's ultra-low-leakage devices (1 pA/µm, Sell et al., IEDM 2017) leaks
/// 3 × 1 pA/µm × 0.092 µm = 0.28 pA/bit at 300 K; one of Intel 22 nm's SP devices (1 nA/µm,
/// Jan et al., IEDM 2012) 276 pA/bit. A cell of the hp logic device (3 nA per fin) leaks
/// 9 nA/bit and fails the bound. Each anchor is carried to 360 K with its own V_th.
#[test]
fn at_12nm_sram_leakage_per_bit_is_within_the_finfet_device_tiers() {
    let anchor = |i_off_per_um: f64| Flavour {
        flavour: DeviceFlavor::ItrsHp,
        i_off_fin: i_off_per_um * 1e6 * w_eff_fin(),
        l_g: 16e-9,
        vdd: 0.8,
        j_g: 0.0,
    };
    let (ull, sp) = (anchor(1e-12), anchor(1e-9));
    // hand values at 300 K: 0.276 pA and 276 pA per bit
    assert!(rel(bit_leak(i_off_300(&ull)), 0.276e-12) < 1e-9);
    assert!(rel(bit_leak(i_off_300(&sp)), 276e-12) < 1e-9);
    for k in [300.0, 360.0] {
        let t = tech(k);
        let cell = t.cell_device(DeviceFlavor::ItrsHp).expect("cell device");
        let per_bit = bit_leak(cell.i_off_n.0);
        let (lo, hi) = (bit_leak(i_off(&ull, k)), bit_leak(i_off(&sp, k)));
        assert!(
            lo < per_bit && per_bit < hi,
            "{k} K: {per_bit:e} A/bit outside [{lo:e}, {hi:e}]"
        );
        // and the logic hp device would not be
        let hp = t.device(DeviceFlavor::ItrsHp).expect("hp");
        assert!(bit_leak(hp.i_off_n.0) > hi, "{k} K");
    }
    // 27.6 pA/bit at 300 K, 0.62 nA/bit at 360 K
    assert!(
        rel(
            bit_leak(tech(300.0).sram_cell_device.unwrap().i_off_n.0),
            27.6e-12
        ) < 1e-3
    );
    assert!(
        rel(
            bit_leak(tech(360.0).sram_cell_device.unwrap().i_off_n.0),
            0.618e-9
        ) < 2e-3
    );
}

/// The SRAM bitcell device is used for every SRAM flavour's cells at 12 nm, not for DRAM
/// flavours, and CACTI's nodes (and 40 nm between them) have none.
#[test]
fn cell_device_only_at_the_finfet_node() {
    let t = tech(360.0);
    let cell = t.sram_cell_device.clone().expect("12 nm");
    for f in [
        DeviceFlavor::ItrsHp,
        DeviceFlavor::ItrsLop,
        DeviceFlavor::ItrsLstp,
    ] {
        assert_eq!(t.cell_device(f).expect("cell"), &cell, "{f:?}");
    }
    assert!(
        t.cell_device(DeviceFlavor::LpDram).is_err(),
        "no DRAM at 12 nm"
    );
    for nm in [22.0, 32.0, 40.0, 45.0, 65.0, 90.0] {
        let p = Technology::for_node(nm, Temperature::from_k(360.0)).expect("node");
        assert!(p.sram_cell_device.is_none(), "{nm} nm");
        assert_eq!(
            p.cell_device(DeviceFlavor::ItrsHp).expect("hp"),
            p.device(DeviceFlavor::ItrsHp).expect("hp")
        );
    }
}
