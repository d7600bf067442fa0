//! Property tests of the gating, drowsy, crossbar, arbiter and CAM models.

use proptest::prelude::*;
use regwatt_power::arbiter::arbiter;
use regwatt_power::cam::{cam, CamSpec, CamTech};
use regwatt_power::crossbar::{crossbar, CrossbarSpec, Geometry, LogicTech, Topology};
use regwatt_power::drowsy::{self, DrowsyInput};
use regwatt_power::gating::cacti_p::{self, ArrayShape, PgSwitches};
use regwatt_power::gating::{register_gating, subarray_gating, CellLeakage, GatingTech, Retention};
use regwatt_power::sram::LeakageBreakdown;
use regwatt_tech::units::{Capacitance, Current, Length, Power, Temperature, Voltage};
use regwatt_tech::{DeviceFlavor, Technology};

const NODES: [f64; 8] = [90.0, 65.0, 45.0, 40.0, 32.0, 28.0, 22.0, 12.0];

fn tech(nm: f64, k: f64) -> Technology {
    Technology::for_node(nm, Temperature::from_k(k)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        // A fixed seed, so a run is repeatable; failures found are kept in the
        // .proptest-regressions file beside this one and replayed first
        rng_seed: proptest::test_runner::RngSeed::Fixed(25003),
        ..ProptestConfig::default()
    })]

    #[test]
    fn gated_leakage_below_active_and_wakeup_positive(
        node in 0usize..NODES.len(),
        temp in 30u32..=40,
        rows in 16u32..1024,
        cols in 2u32..1024,
        bits in 1u32..512,
        loss in 0.001f64..0.3,
        sub_nw in 0.01f64..1000.0,
        gate_nw in 0.0f64..100.0,
    ) {
        let t = tech(NODES[node], temp as f64 * 10.0);
        let g = GatingTech::new(&t, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp).unwrap();
        let leak = CellLeakage {
            subthreshold_per_cell: Power::from_nw(sub_nw),
            gate_per_cell: Power::from_nw(gate_nw),
        };
        for r in [Retention::Off, Retention::Vccmin] {
            let s = subarray_gating(&g, rows, cols, &leak, r, loss).unwrap();
            prop_assert!(s.gated_leakage < s.active_leakage);
            prop_assert!(s.wakeup_energy.j() > 0.0 && s.wakeup_latency.s() > 0.0);
            prop_assert!(s.sleep_area.m2() > 0.0);
            let reg = register_gating(&g, bits, &leak, r, loss).unwrap();
            prop_assert!(reg.gated_leakage < reg.active_leakage);
            prop_assert!(reg.wakeup_energy.j() > 0.0 && reg.wakeup_latency.s() > 0.0);
        }
    }

    #[test]
    fn drowsy_leakage_below_active_and_superlinear(
        node in 0usize..NODES.len(),
        temp in 300.0f64..400.0,
        f1 in 0.1f64..0.95,
        f2 in 0.1f64..0.95,
        sub_mw in 0.001f64..10.0,
        gate_mw in 0.0f64..1.0,
    ) {
        let nm = NODES[node];
        let p = drowsy::leakage_params(nm).unwrap();
        let vdd = Voltage::from_v(0.9);
        let (lo, hi) = if f1 < f2 { (f1, f2) } else { (f2, f1) };
        prop_assume!(hi - lo > 1e-3);
        let t = Temperature::from_k(temp);
        let at = |f: f64| drowsy::leakage_at(&p, t, vdd, vdd * f, Power::from_mw(sub_mw), Power::from_mw(gate_mw));
        let a = at(lo);
        let b = at(hi);
        // below active, and falling faster than linearly with the retention voltage
        prop_assert!(b.subthreshold.mw() < sub_mw);
        prop_assert!(b.subthreshold.mw() < hi * sub_mw);
        prop_assert!(a.subthreshold.mw() / b.subthreshold.mw() < lo / hi);
        if gate_mw > 0.0 {
            prop_assert!(a.gate.mw() / b.gate.mw() < lo / hi);
        }
        let r = drowsy::drowsy(&DrowsyInput {
            node_nm: nm,
            temperature: t,
            vdd: Voltage::from_v(1.0),
            vret: None,
            active_subthreshold: Power::from_mw(sub_mw),
            active_gate: Power::from_mw(gate_mw),
            rail_capacitance: Capacitance::from_ff(10.0),
            switch_current: Current::from_ua(10.0),
        }).unwrap();
        prop_assert!(r.subthreshold.mw() + r.gate.mw() < sub_mw + gate_mw);
        prop_assert!(r.wakeup_energy.j() > 0.0 && r.wakeup_latency.s() > 0.0);
    }

    #[test]
    fn crossbar_monotone(
        node in 0usize..NODES.len(),
        n in 1u32..32, m in 1u32..32, w in 1u32..256,
        dn in 0u32..8, dm in 0u32..8, dw in 0u32..64,
        sides in proptest::bool::ANY,
        mux in proptest::bool::ANY,
    ) {
        let topology = if mux { Topology::MuxTree } else { Topology::Matrix };
        let t = LogicTech::new(&tech(NODES[node], 360.0), DeviceFlavor::ItrsHp).unwrap();
        let geometry = if sides {
            Geometry::Sides { input_side: Length::from_um(300.0), output_side: Length::from_um(200.0) }
        } else {
            Geometry::Pitch
        };
        let a = crossbar(&t, &CrossbarSpec { inputs: n, outputs: m, width_bits: w, geometry, topology }).unwrap();
        let b = crossbar(&t, &CrossbarSpec { inputs: n + dn, outputs: m + dm, width_bits: w + dw, geometry, topology }).unwrap();
        prop_assert!(b.energy_per_transfer.j() >= a.energy_per_transfer.j() * (1.0 - 1e-12));
        prop_assert!(b.area.m2() >= a.area.m2() * (1.0 - 1e-12));
        prop_assert!(b.leakage.w() >= a.leakage.w() * (1.0 - 1e-12));
    }

    #[test]
    fn cam_and_arbiter_monotone(
        node in 0usize..NODES.len(),
        e in 1u32..256, tb in 1u32..64, db in 0u32..128,
        de in 0u32..64, dt in 0u32..16, dd in 0u32..64,
        r in 1u32..32, dr in 0u32..8,
    ) {
        let tk = tech(NODES[node], 360.0);
        let t = CamTech::new(&tk, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp).unwrap();
        let a = cam(&t, &CamSpec { entries: e, tag_bits: tb, data_bits: db }).unwrap();
        let b = cam(&t, &CamSpec { entries: e + de, tag_bits: tb + dt, data_bits: db + dd }).unwrap();
        prop_assert!(b.search_energy >= a.search_energy);
        prop_assert!(b.read_energy >= a.read_energy && b.write_energy >= a.write_energy);
        prop_assert!(b.area >= a.area && b.leakage >= a.leakage);
        let lt = LogicTech::new(&tk, DeviceFlavor::ItrsHp).unwrap();
        let x = arbiter(&lt, r, Length::ZERO).unwrap();
        let y = arbiter(&lt, r + dr, Length::ZERO).unwrap();
        prop_assert!(y.energy_per_arbitration >= x.energy_per_arbitration);
        prop_assert!(y.area >= x.area && y.leakage >= x.leakage);
    }

    #[test]
    fn cacti_p_gated_below_active_and_wakeup_positive(
        node in 0usize..NODES.len(),
        rows_log in 4u32..10,
        cols in 8u32..1200,
        ndwl_log in 1u32..5,
        ndbl_log in 1u32..5,
        mux_log in 0u32..3,
        loss in 0.001f64..0.3,
        cells in 0.01f64..10.0,
        dec in 0.0f64..5.0,
        col in 0.0f64..5.0,
        ht in 0.0f64..5.0,
        bits in 0u32..32,
    ) {
        let g = GatingTech::new(&tech(NODES[node], 360.0), DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp).unwrap();
        let subs = (1u32 << ndwl_log) * (1u32 << ndbl_log);
        let mats = (subs / 4).max(1);
        let shape = ArrayShape {
            rows: 1 << rows_log, cols, num_subarrays: subs, num_mats: mats, active_mats: 1,
            bitline_mux: 1 << mux_log, rw_ports: 1, rd_ports: 0, wr_ports: 0,
        };
        let wl = cacti_p::wordline_gating(&g, &shape, loss).unwrap();
        prop_assert!(wl.sleep_tx_width.um() > 0.0 && wl.sleep_area.m2() > 0.0);
        prop_assert!(wl.wakeup_latency.s() > 0.0 && wl.wakeup_energy.j() > 0.0);
        prop_assert!(wl.wakeup_latency.s().is_finite() && wl.wakeup_energy.j().is_finite());
        let bl = cacti_p::bitline_floating(&g, &shape).unwrap();
        prop_assert!(bl.wakeup_latency.s() > 0.0 && bl.wakeup_energy.j() > 0.0);
        let leak = LeakageBreakdown {
            cells: Power::from_mw(cells),
            decoder: Power::from_mw(dec),
            column_periphery: Power::from_mw(col),
            htree: Power::from_mw(ht),
        };
        let sw = PgSwitches {
            array: bits & 1 != 0,
            wordline: bits & 2 != 0,
            column: bits & 4 != 0,
            bitline_floating: bits & 8 != 0,
            interconnect: bits & 16 != 0,
        };
        let a = cacti_p::access_leakage_fraction(&g, 1, 0, 0);
        let s = cacti_p::sleep_leakage(&leak, Power::ZERO, a, &sw);
        prop_assert!(s.sleep <= s.cacti_printed && s.cacti_printed <= s.active);
        if sw.array || sw.bitline_floating {
            prop_assert!(s.cacti_printed < s.active);
        }
    }
}

/// Gated and drowsy leakage below active leakage, and positive wake-up costs, for real
/// register-bank leakage from the SRAM model (4 KB, 16 B rows, 1R + 1W) at 40 nm (planar,
/// interpolated) and 12 nm (FinFET) over the 300–400 K range the technology files cover.
#[test]
fn gated_and_drowsy_below_active_on_real_banks() {
    use regwatt_power::sram::{estimate, SramSpec};
    for nm in [40.0, 12.0] {
        for k in [300.0, 360.0, 400.0] {
            let t = tech(nm, k);
            let mut spec = SramSpec::ram(4096, 16, nm);
            spec.rw_ports = 0;
            spec.rd_ports = 1;
            spec.wr_ports = 1;
            spec.temperature = Temperature::from_k(k);
            let bank = estimate(&spec, &t).unwrap();
            let cells = 4096.0 * 8.0;
            let leak = CellLeakage {
                subthreshold_per_cell: bank.data.leakage.cells / cells,
                gate_per_cell: bank.data.gate_leakage.cells / cells,
            };
            assert!(leak.subthreshold_per_cell.w() > 0.0, "{nm} nm {k} K");
            let g = GatingTech::new(&t, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp).unwrap();
            for r in [Retention::Off, Retention::Vccmin] {
                let s = subarray_gating(&g, 128, 128, &leak, r, 0.05).unwrap();
                assert!(s.gated_leakage < s.active_leakage, "{nm} nm {k} K {r:?}");
                assert!(s.wakeup_energy.j() > 0.0 && s.wakeup_latency.s() > 0.0);
                let reg = register_gating(&g, 1024, &leak, r, 0.05).unwrap();
                assert!(
                    reg.gated_leakage < reg.active_leakage,
                    "{nm} nm {k} K {r:?}"
                );
                assert!(reg.wakeup_energy.j() > 0.0 && reg.wakeup_latency.s() > 0.0);
            }
            let dev = t.device(DeviceFlavor::ItrsHp).unwrap();
            let d = drowsy::drowsy(&DrowsyInput {
                node_nm: nm,
                temperature: Temperature::from_k(k),
                vdd: dev.vdd,
                vret: None,
                active_subthreshold: bank.leakage_per_bank,
                active_gate: bank.gate_leakage_per_bank,
                rail_capacitance: Capacitance::from_ff(100.0),
                switch_current: Current::from_ua(100.0),
            })
            .unwrap();
            assert!(
                d.subthreshold + d.gate < bank.total_leakage_per_bank(),
                "{nm} nm {k} K drowsy"
            );
            assert!(d.wakeup_energy.j() > 0.0 && d.wakeup_latency.s() > 0.0);
        }
    }
}
