//! Unit and property tests of the SRAM model.

use super::*;
use proptest::prelude::*;
use regwatt_tech::units::Temperature;
use regwatt_tech::{DeviceFlavor, Technology};

fn tech(nm: f64) -> Technology {
    Technology::for_node(nm, Temperature::from_k(360.0)).unwrap()
}

fn regbank(nm: f64) -> SramSpec {
    let mut s = SramSpec::ram(4096, 16, nm);
    s.rw_ports = 0;
    s.rd_ports = 1;
    s.wr_ports = 1;
    s
}

/// The 40 nm register bank against its CACTI 7 run (`calibrations/cacti7-train.csv`,
/// row `interp_40nm_4K_b16_0RW1R1W_bk1`: read 4.22648 pJ, write 11.154 pJ, leakage 5.89004 +
/// 0.260462 mW, area 0.0271656 mm2, access 0.275159 ns), each metric within the brief's 15 %.
#[test]
fn register_bank_40nm_matches_its_cacti_run() {
    let r = estimate(&regbank(40.0), &tech(40.0)).unwrap();
    for (what, got, cacti) in [
        ("read pJ", r.read_energy.pj(), 4.22648),
        ("write pJ", r.write_energy.pj(), 11.154),
        (
            "leakage mW",
            r.total_leakage_per_bank().mw(),
            5.89004 + 0.260462,
        ),
        ("area mm2", r.area.mm2(), 0.0271656),
        ("access ns", r.access_time.ns(), 0.275159),
    ] {
        assert!(
            (got / cacti - 1.0).abs() <= 0.15,
            "{what}: {got} vs CACTI 7 {cacti}"
        );
    }
    // breakdowns add up
    let d = &r.data;
    assert!((d.read.total().pj() - r.read_energy.pj()).abs() < 1e-9);
    assert!((d.area.total().mm2() - r.area.mm2()).abs() < 1e-12);
    assert!(r.tag.is_none());
}

#[test]
fn twelve_nm_is_below_forty_nm() {
    let a = estimate(&regbank(40.0), &tech(40.0)).unwrap();
    let b = estimate(&regbank(12.0), &tech(12.0)).unwrap();
    assert!(b.read_energy < a.read_energy);
    assert!(b.area < a.area);
    assert!(b.area.mm2() > 0.001);
}

/// The rtx2060 RF bank (32 KB, 128 B rows, 1 RW port, no ECC) is smaller at 12 nm
/// than at 40 nm and than the same 12 nm bank with CACTI's local-layer wordline, whose RC
/// (28.8 Ohm/um) pushed the ED^2 search to Ndwl 4 and a 1 mm wide bank.
#[test]
fn rf_bank_at_12nm_smaller_than_at_40nm() {
    let bank = |nm: f64, t: &Technology| {
        let mut s = SramSpec::ram(32768, 128, nm);
        s.ecc = false;
        estimate(&s, t).unwrap()
    };
    let a40 = bank(40.0, &tech(40.0));
    let t12 = tech(12.0);
    let a12 = bank(12.0, &t12);
    let mut local = t12.clone();
    local.sram_cell.wordline_layer = regwatt_tech::WireLayer::Local;
    let l12 = bank(12.0, &local);
    assert!(a12.area < a40.area, "{} vs {}", a12.area, a40.area);
    assert!(a12.area < l12.area, "{} vs {}", a12.area, l12.area);
    assert!(a12.bank_width < l12.bank_width);
    assert!(a12.data.organisation.ndwl <= l12.data.organisation.ndwl);
    // the strapped wordline is faster at the same organisation
    let mut fs = SramSpec::ram(32768, 128, 12.0);
    fs.ecc = false;
    fs.force_organisation = Some(a12.data.organisation);
    let fast = estimate(&fs, &t12).unwrap();
    let slow = estimate(&fs, &local).unwrap();
    assert!(fast.data.delay.decoder_wordline < slow.data.delay.decoder_wordline);
}

#[test]
fn cache_has_tag_array() {
    let mut s = SramSpec::ram(16384, 128, 45.0);
    s.associativity = 4;
    let r = estimate(&s, &tech(45.0)).unwrap();
    let t = r.tag.as_ref().unwrap();
    assert_eq!(r.tag_bits, Some(36));
    assert!(r.read_energy > r.data.read.total());
    assert!(r.area > r.data.area.total());
    assert!(t.read.comparator.pj() > 0.0);
}

#[test]
fn cacti_refusals_are_errors() {
    // 256 B of 16 B rows = 16 rows per bank < 32
    let s = SramSpec::ram(256, 16, 45.0);
    let e = estimate(&s, &tech(45.0)).unwrap_err();
    assert!(matches!(e, SramError::TooFewRows { rows: 16 }), "{e}");
    assert!(e.to_string().contains(">= 32 rows"));
    // invalid specs
    let mut s = SramSpec::ram(4096, 16, 45.0);
    s.banks = 3;
    assert!(matches!(
        estimate(&s, &tech(45.0)),
        Err(SramError::InvalidSpec { field: "banks", .. })
    ));
    let mut s = SramSpec::ram(4096, 16, 45.0);
    s.rw_ports = 0;
    assert!(estimate(&s, &tech(45.0)).is_err());
    let mut s = SramSpec::ram(4096, 0, 45.0);
    s.output_width_bits = 8;
    assert!(estimate(&s, &tech(45.0)).is_err());
    let mut s = SramSpec::ram(4096, 16, 45.0);
    s.temperature = Temperature::from_k(350.0);
    assert!(matches!(
        estimate(&s, &tech(45.0)),
        Err(SramError::TemperatureMismatch { .. })
    ));
    // forced organisation breaking a rule
    let mut s = SramSpec::ram(4096, 16, 45.0);
    s.force_organisation = Some(Organisation {
        ndwl: 2,
        ndbl: 64,
        nspd: 1.0,
        ndcm: 1,
        ndsam1: 1,
        ndsam2: 1,
    });
    assert!(matches!(
        estimate(&s, &tech(45.0)),
        Err(SramError::InvalidOrganisation(_))
    ));
    // DRAM peripheral flavour
    let mut s = SramSpec::ram(4096, 16, 45.0);
    s.peri_flavor = DeviceFlavor::LpDram;
    assert!(matches!(
        estimate(&s, &tech(45.0)),
        Err(SramError::Technology(_))
    ));
}

#[test]
fn forced_organisation_is_used() {
    let mut s = SramSpec::ram(4096, 16, 45.0);
    let o = Organisation {
        ndwl: 2,
        ndbl: 2,
        nspd: 1.0,
        ndcm: 2,
        ndsam1: 1,
        ndsam2: 1,
    };
    s.force_organisation = Some(o);
    let r = estimate(&s, &tech(45.0)).unwrap();
    assert_eq!(r.organisation, o);
    // 256 sets / 2 = 128 rows, 128 bits / 2 = 64 cols (+8 ECC)
    assert_eq!(r.subarray.rows, 128);
    assert_eq!(r.subarray.cols, 64);
    assert_eq!(r.subarray.cols_with_ecc, 72);
}

#[test]
fn ecc_costs_energy_and_area() {
    let mut s = SramSpec::ram(4096, 16, 45.0);
    let o = Organisation {
        ndwl: 2,
        ndbl: 2,
        nspd: 1.0,
        ndcm: 2,
        ndsam1: 1,
        ndsam2: 1,
    };
    s.force_organisation = Some(o);
    let with = estimate(&s, &tech(45.0)).unwrap();
    s.ecc = false;
    let without = estimate(&s, &tech(45.0)).unwrap();
    assert!(with.read_energy > without.read_energy);
    assert!(with.area > without.area);
}

#[test]
fn objectives_are_selectable() {
    let t = tech(32.0);
    let mut s = regbank(32.0);
    let ed2 = estimate(&s, &t).unwrap();
    s.optimisation.objective = Objective::Ed;
    let ed = estimate(&s, &t).unwrap();
    s.optimisation = Optimisation::balanced();
    let bal = estimate(&s, &t).unwrap();
    // ED² never has a larger E·D² than the others
    let ed2c = |r: &SramResult| r.read_energy.si() * r.access_time.si().powi(2);
    assert!(ed2c(&ed2) <= ed2c(&ed) * (1.0 + 1e-9));
    assert!(ed2c(&ed2) <= ed2c(&bal) * (1.0 + 1e-9) || bal.area <= ed2.area);
}

/// The search reproduces CACTI 7's choice for the seed's 4 KB register bank at 45 nm
/// (`cacti7-train.csv` row seed_a_regbank4K_b16_1R1W_45nm_ecct_ed2: Ndwl 2, Ndbl 2, Nspd 1,
/// Ndcm 2, Ndsam 1 1). Before the H-tree branch nodes and the CACTI selection procedure the
/// model picked Ndwl 4.
#[test]
fn regbank_organisation_matches_cacti() {
    let r = estimate(&regbank(45.0), &tech(45.0)).unwrap();
    assert_eq!(
        r.organisation,
        Organisation {
            ndwl: 2,
            ndbl: 2,
            nspd: 1.0,
            ndcm: 2,
            ndsam1: 1,
            ndsam2: 1
        }
    );
}

/// CACTI's `find_optimal_uca` applies the deviation limits only to the weighted
/// objective; under ED² they are ignored (only `filter_data_arr` prunes).
#[test]
fn ed2_ignores_deviation_limits() {
    let t = tech(32.0);
    let mut a = SramSpec::ram(64 * 1024, 32, 32.0);
    a.banks = 4;
    let mut b = a.clone();
    b.optimisation.max_deviation = Deviation {
        delay: 0.0,
        dynamic: 0.0,
        leakage: 0.0,
        cycle: 0.0,
        area: 0.0,
    };
    let ra = estimate(&a, &t).unwrap();
    let rb = estimate(&b, &t).unwrap();
    assert_eq!(ra.organisation, rb.organisation);
}

/// The circuit details add up: the cell-leakage split sums to the cells' leakage,
/// and the bitline capacitance grows linearly with the rows of the sub-array.
#[test]
fn circuit_details_are_consistent() {
    let t = tech(45.0);
    let r = estimate(&regbank(45.0), &t).unwrap();
    let c = &r.data.circuit;
    let sum = c.cell_leakage_inverters + c.cell_leakage_access;
    assert!(
        (sum.mw() - r.data.leakage.cells.mw()).abs() < 1e-9 * r.data.leakage.cells.mw().max(1.0)
    );
    assert!(c.cell_leakage_inverters.mw() > 0.0 && c.cell_leakage_access.mw() > 0.0);
    assert!(c.wordline_driver_nmos_width.0 > 0.0);
    assert!(c.wordline_driver_pmos_width.0 > c.wordline_driver_nmos_width.0);
    assert!(r.data.active_mats >= 1);
    let mut s2 = regbank(45.0);
    let mut org = r.organisation;
    s2.force_organisation = Some(org);
    let r1 = estimate(&s2, &t).unwrap();
    org.ndbl *= 2; // half the rows per sub-array
    s2.force_organisation = Some(org);
    let r2 = estimate(&s2, &t).unwrap();
    let ratio = r1.data.circuit.bitline_capacitance.0 / r2.data.circuit.bitline_capacitance.0;
    assert!((ratio - 2.0).abs() < 1e-9, "{ratio}");
}

fn spec_strategy() -> impl Strategy<Value = (u32, u32, u32, usize)> {
    // log2 capacity (2 KB .. 128 KB), log2 block (4 .. 64 B), read ports 1..3, node index
    (11u32..=17, 2u32..=6, 1u32..=3, 0usize..4)
}

const NODES: [f64; 4] = [90.0, 45.0, 32.0, 22.0];

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261122),
        ..ProptestConfig::default()
    })]

    // Every spec the strategy draws is valid, so an estimate that fails is a
    // failure of the property, never a skipped case.

    #[test]
    fn monotone_in_capacity((lc, lb, rd, ni) in spec_strategy()) {
        let t = tech(NODES[ni]);
        let mut a = SramSpec::ram(1 << lc, 1 << lb, NODES[ni]);
        a.rw_ports = 0; a.rd_ports = rd; a.wr_ports = 1;
        let x = estimate(&a, &t).unwrap();
        // twice the rows at the comparable organisation: twice the sub-arrays, stacked along
        // the bitlines (the search may pick another organisation for the larger array, and
        // CACTI's search is not monotone either), so nothing may fall
        let o = x.organisation;
        let b = SramSpec {
            capacity_bytes: a.capacity_bytes * 2,
            force_organisation: Some(Organisation { ndbl: o.ndbl * 2, ..o }),
            ..a.clone()
        };
        let y = estimate(&b, &t).unwrap();
        prop_assert!(y.area >= x.area);
        prop_assert!(y.total_leakage_per_bank() >= x.total_leakage_per_bank());
        prop_assert!(y.read_energy >= x.read_energy);
        prop_assert!(y.write_energy >= x.write_energy);
        prop_assert!(y.access_time >= x.access_time);
    }

    #[test]
    fn monotone_in_ports((lc, lb, rd, ni) in spec_strategy()) {
        let t = tech(NODES[ni]);
        let mut a = SramSpec::ram(1 << lc, 1 << lb, NODES[ni]);
        a.rw_ports = 0; a.rd_ports = rd; a.wr_ports = 1;
        // same organisation (the search may legitimately pick a different one with more
        // ports): a port only adds cell pitch, bit/word lines and port periphery.
        let x = estimate(&a, &t).unwrap();
        let mut b = a.clone();
        b.rd_ports += 1;
        b.force_organisation = Some(x.organisation);
        let y = estimate(&b, &t).unwrap();
        prop_assert!(y.area >= x.area);
        prop_assert!(y.total_leakage_per_bank() >= x.total_leakage_per_bank());
        prop_assert!(y.read_energy >= x.read_energy);
    }

    #[test]
    fn monotone_in_row_width((lc, lb, rd, ni) in spec_strategy()) {
        let t = tech(NODES[ni]);
        let mut a = SramSpec::ram(1 << lc, 1 << lb, NODES[ni]);
        a.rw_ports = 0; a.rd_ports = rd; a.wr_ports = 1;
        // the wider row at the comparable organisation: twice the sub-arrays side by side
        // (the search may pick another organisation; CACTI's search is not monotone either)
        let x = estimate(&a, &t).unwrap();
        let o = x.organisation;
        let b = SramSpec {
            block_bytes: a.block_bytes * 2,
            output_width_bits: a.output_width_bits * 2,
            force_organisation: Some(Organisation { ndwl: o.ndwl * 2, ..o }),
            ..a.clone()
        };
        let y = estimate(&b, &t).unwrap();
        prop_assert!(y.read_energy >= x.read_energy);
        prop_assert!(y.write_energy >= x.write_energy);
        prop_assert!(y.area >= x.area);
        prop_assert!(y.total_leakage_per_bank() >= x.total_leakage_per_bank());
    }

    #[test]
    fn leakage_rises_with_temperature((lc, lb, _rd, ni) in spec_strategy(), k in 0u32..10) {
        let nm = NODES[ni];
        let t1 = 300.0 + 10.0 * k as f64;
        let mut a = SramSpec::ram(1 << lc, 1 << lb, nm);
        a.temperature = Temperature::from_k(t1);
        let ta = Technology::for_node(nm, a.temperature).unwrap();
        let x = estimate(&a, &ta).unwrap();
        // the same organisation 10 K hotter (this used a fixed organisation that
        // was invalid for every drawn spec, so the property was never checked)
        let mut b = a.clone();
        b.temperature = Temperature::from_k(t1 + 10.0);
        b.force_organisation = Some(x.organisation);
        let tb = Technology::for_node(nm, b.temperature).unwrap();
        let y = estimate(&b, &tb).unwrap();
        prop_assert!(y.leakage_per_bank > x.leakage_per_bank);
    }

    #[test]
    fn never_panics(cap in 0u64..(1 << 22), block in 0u32..300, ow in 0u32..3000, assoc in 0u32..20, banks in 0u32..40, ports in (0u32..3, 0u32..3, 0u32..3)) {
        let mut s = SramSpec::ram(cap, block, 32.0);
        s.output_width_bits = ow;
        s.associativity = assoc;
        s.banks = banks;
        s.rw_ports = ports.0; s.rd_ports = ports.1; s.wr_ports = ports.2;
        let _ = estimate(&s, &tech(32.0));
    }
}

/// Asserts `got` equals a figure printed with `printed`'s number of decimals (the README's
/// tables), to within half a unit of its last digit.
fn assert_printed(what: &str, got: f64, printed: &str) {
    let want: f64 = printed.parse().unwrap();
    let decimals = printed.split('.').nth(1).map_or(0, str::len) as i32;
    let half_ulp = 0.5 * 10f64.powi(-decimals);
    assert!(
        (got - want).abs() <= half_ulp + 1e-12,
        "{what}: model {got}, README {printed}: update the README's seed reference points"
    );
}

/// The README's "seed reference points" table, asserted. Both configurations are
/// the seeds' own (Jeon & Annavaram 2014 Table 2, CACTI 5.3 at 40 nm, `calibrations/published-sram.toml`):
/// a 4 KB register bank (16 B rows, 1R + 1W) and the 1 KB renaming table (4 banks, 2 B rows,
/// 1R + 1W). Two checks each:
/// * against the published figure, like for like. Energy within 25 %: we follow CACTI 7,
///   whose ITRS device tables differ from 5.3's and which widens each row by 1/8 for ECC
///   (~+15 % read energy). Leakage between 0.8x and 3x: CACTI 7 at 360 K with ECC, while the
///   paper's temperature is unstated; the 40 nm HP device leaks ~2.6x more at 360 K than at
///   300 K (`tech/README.md`), times 9/8 for the ECC columns.
/// * against the README's table to its printed digits, so the table cannot go stale.
#[test]
fn seed_reference_points() {
    let rename = |nm: f64| {
        let mut rt = SramSpec::ram(1024, 2, nm);
        rt.banks = 4;
        rt.rw_ports = 0;
        rt.rd_ports = 1;
        rt.wr_ports = 1;
        rt
    };
    // (config, node, published read pJ, published leakage mW/bank, README figures:
    //  read pJ, write pJ, leakage mW/bank, area mm2, access ns)
    let rows: [(&str, SramSpec, f64, f64, [&str; 5]); 4] = [
        (
            "4 KB bank",
            regbank(40.0),
            4.68,
            2.8,
            ["4.33", "11.3", "5.89", "0.0260", "0.27"],
        ),
        (
            "1 KB renaming table",
            rename(40.0),
            1.14,
            0.27,
            ["0.98", "1.14", "0.41", "0.0109", "0.20"],
        ),
        (
            "4 KB bank",
            regbank(12.0),
            f64::NAN,
            f64::NAN,
            ["1.98", "4.07", "0.32", "0.0089", "0.21"],
        ),
        (
            "1 KB renaming table",
            rename(12.0),
            f64::NAN,
            f64::NAN,
            ["0.43", "0.47", "0.05", "0.0038", "0.16"],
        ),
    ];
    for (name, spec, pub_read, pub_leak, readme) in rows {
        let nm = spec.node_nm;
        let r = estimate(&spec, &tech(nm)).unwrap();
        let what = format!("{name} at {nm} nm");
        if pub_read.is_finite() {
            let ratio = r.read_energy.pj() / pub_read;
            assert!(
                (ratio - 1.0).abs() <= 0.25,
                "{what}: read / published = {ratio}"
            );
            let ratio = r.total_leakage_per_bank().mw() / pub_leak;
            assert!(
                (0.8..=3.0).contains(&ratio),
                "{what}: leakage / published = {ratio}"
            );
        }
        assert_printed(&what, r.read_energy.pj(), readme[0]);
        assert_printed(&what, r.write_energy.pj(), readme[1]);
        assert_printed(&what, r.total_leakage_per_bank().mw(), readme[2]);
        assert_printed(&what, r.area.mm2(), readme[3]);
        assert_printed(&what, r.access_time.ns(), readme[4]);
    }
}

/// For a fixed array (the organisation the 90 nm search picks), read energy and
/// area fall monotonically over CACTI's nodes from 90 nm to 22 nm, on a grid of sizes (1–64
/// KB), row widths (8–128 B) and ports (1 RW, 1R1W, 2R1W). Leakage does not: CACTI 7's own
/// runs leak more at 65 nm than at 90 nm for every such configuration at 360 K (e.g.
/// `ram_hp_1K_b32_1RW0R0W`: 0.64 mW at 90 nm, 1.87 mW at 65 nm; all 22 itrs-hp configurations
/// the reference set has at both nodes), and the model follows CACTI. The 12 nm step is not
/// in this test: see the top-level README, Status, issue 26.
#[test]
fn energy_and_area_fall_from_90_to_22_nm_for_a_fixed_array() {
    let nodes = [90.0, 65.0, 45.0, 40.0, 32.0, 22.0];
    let techs: Vec<Technology> = nodes.iter().map(|&n| tech(n)).collect();
    let mut arrays = 0;
    for kb in [1u64, 2, 4, 8, 16, 32, 64] {
        for block in [8u32, 16, 32, 64, 128] {
            for (rw, rd, wr) in [(1u32, 0u32, 0u32), (0, 1, 1), (0, 2, 1)] {
                let spec = |nm: f64| {
                    let mut s = SramSpec::ram(kb * 1024, block, nm);
                    (s.rw_ports, s.rd_ports, s.wr_ports) = (rw, rd, wr);
                    s
                };
                let Ok(base) = estimate(&spec(90.0), &techs[0]) else {
                    // 1 KB with 64 or 128 B rows has fewer than 32 rows: not a valid RAM
                    assert!(kb * 1024 / u64::from(block) < 32, "{kb} KB {block} B");
                    continue;
                };
                arrays += 1;
                let mut last = (f64::INFINITY, f64::INFINITY);
                for (t, &nm) in techs.iter().zip(&nodes) {
                    let mut s = spec(nm);
                    s.force_organisation = Some(base.organisation);
                    let r = estimate(&s, t)
                        .unwrap_or_else(|e| panic!("{kb} KB {block} B {nm} nm: {e}"));
                    let now = (r.read_energy.pj(), r.area.mm2());
                    assert!(
                        now.0 <= last.0 && now.1 <= last.1,
                        "{kb} KB, {block} B rows, ports {rw}/{rd}/{wr}: at {nm} nm read {} pJ area {} mm2, the larger node {} pJ {} mm2",
                        now.0, now.1, last.0, last.1
                    );
                    last = now;
                }
            }
        }
    }
    assert_eq!(arrays, 96);
}

/// Among CACTI's own nodes (90 to 22 nm, `tech/nodes/*.toml` from CACTI 7's tables) every
/// array's read energy and area fall with each node step, and its leakage falls from 65 nm
/// down. (CACTI 7's 90 nm devices leak about a third of its 65 nm ones, so 90 -> 65 nm is
/// exempt for leakage; those tables are CACTI's and stay as they are.)
#[test]
fn cacti_nodes_scale_monotonically() {
    let arrays = [
        ("64 KB, 128 B rows", SramSpec::ram(64 * 1024, 128, 90.0)),
        ("4 KB, 16 B rows", SramSpec::ram(4 * 1024, 16, 90.0)),
        ("16 KB, 128 B rows", SramSpec::ram(16 * 1024, 128, 90.0)),
        ("256 KB, 32 B rows", SramSpec::ram(256 * 1024, 32, 90.0)),
    ];
    let nodes = [90.0, 65.0, 45.0, 32.0, 22.0];
    for (what, spec) in arrays {
        let r: Vec<_> = nodes
            .iter()
            .map(|&nm| {
                let mut s = spec.clone();
                s.node_nm = nm;
                estimate(&s, &tech(nm)).unwrap()
            })
            .collect();
        for i in 1..nodes.len() {
            let (a, b) = (&r[i - 1], &r[i]);
            let step = format!("{what}: {} -> {} nm", nodes[i - 1], nodes[i]);
            assert!(b.read_energy < a.read_energy, "{step}: read energy");
            assert!(b.area.m2() < a.area.m2(), "{step}: area");
            if nodes[i - 1] <= 65.0 {
                assert!(
                    b.total_leakage_per_bank() < a.total_leakage_per_bank(),
                    "{step}: leakage"
                );
            }
        }
    }
}
