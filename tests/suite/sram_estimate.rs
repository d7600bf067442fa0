//! Integration tests of the SRAM estimator through the public API.

use regwatt_power::calibrate::{committed, load_rows, TRAIN_CSV};
use regwatt_power::sram::{estimate, Organisation, SramError, SramSpec};
use regwatt_tech::units::Temperature;
use regwatt_tech::Technology;

fn tech(nm: f64) -> Technology {
    Technology::for_node(nm, Temperature::from_k(360.0)).expect("node")
}

/// The register bank at 40 nm against its CACTI 7 run (15 %, the brief's target), at 12 nm
/// below 40 nm; the renaming table cheaper and smaller than the bank at both nodes.
#[test]
fn register_bank_and_rename_table_at_40_and_12_nm() {
    let rows = load_rows(TRAIN_CSV).expect("csv");
    let cacti = rows
        .iter()
        .find(|r| r.name == "interp_40nm_4K_b16_0RW1R1W_bk1")
        .expect("the 40 nm 4 KB 1R1W reference row");
    let mut read_40 = f64::NAN;
    for nm in [40.0, 12.0] {
        let mut rb = SramSpec::ram(4096, 16, nm);
        rb.rw_ports = 0;
        rb.rd_ports = 1;
        rb.wr_ports = 1;
        let r = estimate(&rb, &tech(nm)).expect("register bank");
        let read = r.read_energy.nj();
        if nm == 40.0 {
            assert_eq!(rb.capacity_bytes, cacti.spec.capacity_bytes);
            assert!(
                (read / cacti.read_nj - 1.0).abs() <= 0.15,
                "{read} nJ vs CACTI {}",
                cacti.read_nj
            );
            read_40 = read;
        } else {
            assert!(read < read_40, "12 nm {read} nJ vs 40 nm {read_40} nJ");
        }
        let mut rt = SramSpec::ram(1024, 2, nm);
        rt.banks = 4;
        rt.rw_ports = 0;
        rt.rd_ports = 1;
        rt.wr_ports = 1;
        let t = estimate(&rt, &tech(nm)).expect("rename table");
        assert!(t.read_energy < r.read_energy);
        assert!(t.area < r.area);
    }
}

#[test]
fn unknown_nodes_are_errors() {
    for nm in [16.0, 7.0, 130.0] {
        assert!(Technology::for_node(nm, Temperature::from_k(360.0)).is_err());
    }
}

#[test]
fn too_small_ram_is_refused() {
    let s = SramSpec::ram(256, 16, 45.0);
    assert!(matches!(
        estimate(&s, &tech(45.0)),
        Err(SramError::TooFewRows { .. })
    ));
}

#[test]
fn every_reference_row_is_accepted() {
    let rows = load_rows(TRAIN_CSV).expect("csv");
    for r in rows.iter().filter(|r| !r.gated) {
        let t = Technology::for_node(r.node_nm, r.spec.temperature).expect("node");
        estimate(&r.spec, &t).unwrap_or_else(|e| panic!("{}: {e}", r.name));
        // CACTI's own organisation is valid in our rules too
        let mut f = r.spec.clone();
        f.force_organisation = Some(Organisation { ..r.org });
        estimate(&f, &t).unwrap_or_else(|e| panic!("{} at CACTI's org: {e}", r.name));
    }
    assert!(committed().is_ok());
}
