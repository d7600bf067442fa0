//! Hardware inventory of the baseline register file and the mapping of its activity onto
//! component events.
//!
//! Components (per SM; the inventory counts instances over all SMs):
//!
//! | component | instance | events (energy per event) |
//! |---|---|---|
//! | `rf_banks` | one physical SRAM bank: `rf.bank_bytes`, `rf.row_bits`-wide rows, `rf.bank_ports` RW ports, ECC per `rf.ecc` (CACTI-style model, `regwatt_power::sram::estimate`) | `read`, `write` of one row (`SramResult::read_energy` / `write_energy`) |
//! | `operand_collectors` | one collector unit: `rf.collector_operands` × 1024-bit operand latches ([`circuits::latch_array`]) | `operand_write` (1024 bits in), `operand_read` (1024 bits out) |
//! | `crossbar` | one bank → collector crossbar per sub-core and slice: `banks` inputs, `collectors` outputs, `rf.row_bits` wide ([`circuits::crossbar`]) | `transfer` |
//! | `arbiter` | one per logical bank: a matrix arbiter among the sub-core's collectors ([`circuits::matrix_arbiter`]) | `grant` |
//!
//! Event mapping (from the timing model's `CoreActivity` and the design's [`BaselineStats`]):
//! `rf_banks.read = slice_reads`, `rf_banks.write = slice_writes` (a warp register is one row
//! in each slice; writes only touch slices with written lanes);
//! `operand_collectors.operand_write = collector_writes`, `.operand_read = collector_reads`;
//! `crossbar.transfer = crossbar_transfers × slices` (each slice's crossbar carries its lanes);
//! `arbiter.grant = Σ bank_reads` (reads are arbitrated; writes have priority, seed 003 §II).

use std::collections::BTreeMap;

use regwatt_power::sram::{estimate, SramSpec};
use regwatt_sim::timing::activity::CoreActivity;
use regwatt_tech::units::Energy;
use regwatt_tech::{DeviceFlavor, Technology};

use super::BaselineStats;
use crate::config::ResolvedConfig;
use crate::energy::circuits;
use crate::energy::{Component, EnergyError, EventCounts, Inventory};

/// Builds the baseline's inventory at the configuration's node and temperature.
pub fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
    let tech = Technology::for_node(cfg.power.node.nm(), cfg.power.temperature)?;
    let g = &cfg.gpu;
    let s = &g.sm;
    let sms = u64::from(g.sms);
    let sub = u64::from(s.sub_cores);
    let banks = u64::from(s.register_file.banks_per_sub_core);
    let slices = u64::from(cfg.rf.slices_per_bank);
    let collectors = s.collectors.units_per_sub_core;

    let mut spec = SramSpec::ram(
        u64::from(cfg.rf.bank_bytes),
        cfg.rf.row_bits / 8,
        cfg.power.node.nm(),
    );
    spec.rw_ports = cfg.rf.bank_ports;
    spec.ecc = cfg.rf.ecc;
    spec.temperature = cfg.power.temperature;
    spec.cell_flavor = DeviceFlavor::ItrsHp;
    spec.peri_flavor = DeviceFlavor::ItrsHp;
    let bank = estimate(&spec, &tech).map_err(|source| EnergyError::Sram {
        component: "rf_banks".into(),
        source,
    })?;

    let operand_bits = u64::from(cfg.rf.collector_operands) * 1024;
    let cu = circuits::latch_array(&tech, operand_bits, 1024)?;
    let xbar = circuits::crossbar(
        &tech,
        s.register_file.banks_per_sub_core,
        collectors,
        cfg.rf.row_bits,
    )?;
    let arb = circuits::matrix_arbiter(&tech, collectors)?;

    let ev = |pairs: &[(&str, Energy)]| -> BTreeMap<String, Energy> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    };
    Ok(Inventory {
        node: cfg.power.node,
        temperature: cfg.power.temperature,
        core_clock_mhz: g.core_clock_mhz,
        components: vec![
            Component {
                name: "rf_banks".into(),
                description: format!(
                    "{} B SRAM bank, {}-bit rows, {} RW port(s), ECC {}",
                    cfg.rf.bank_bytes, cfg.rf.row_bits, cfg.rf.bank_ports, cfg.rf.ecc
                ),
                instances: sms * sub * banks * slices,
                event_energy: ev(&[("read", bank.read_energy), ("write", bank.write_energy)]),
                leakage: bank.total_leakage_per_bank(),
                area: bank.area,
                source: "regwatt_power::sram::estimate (CACTI 7 model, calibrated)".into(),
            },
            Component {
                name: "operand_collectors".into(),
                description: format!(
                    "collector unit, {} x 1024-bit operand latches",
                    cfg.rf.collector_operands
                ),
                instances: sms * sub * u64::from(collectors),
                event_energy: ev(&[
                    ("operand_write", cu.op_energy),
                    ("operand_read", cu.op2_energy),
                ]),
                leakage: cu.leakage,
                area: cu.area,
                source: "designs::energy::circuits::latch_array (McPAT DFFCell, simplified)".into(),
            },
            Component {
                name: "crossbar".into(),
                description: format!(
                    "{} banks x {} collectors matrix crossbar, {} bits",
                    banks, collectors, cfg.rf.row_bits
                ),
                instances: sms * sub * slices,
                event_energy: ev(&[("transfer", xbar.op_energy)]),
                leakage: xbar.leakage,
                area: xbar.area,
                source: "designs::energy::circuits::crossbar (CACTI 7 crossbar.cc / ORION 2.0)"
                    .into(),
            },
            Component {
                name: "arbiter".into(),
                description: format!("matrix arbiter among {collectors} collectors"),
                instances: sms * sub * banks,
                event_energy: ev(&[("grant", arb.op_energy)]),
                leakage: arb.leakage,
                area: arb.area,
                source: "designs::energy::circuits::matrix_arbiter (ORION 2.0 / McPAT)".into(),
            },
        ],
    })
}

/// Maps a baseline run's activity onto the inventory's events.
pub fn events(cfg: &ResolvedConfig, core: &CoreActivity, stats: &BaselineStats) -> EventCounts {
    let slices = u64::from(cfg.rf.slices_per_bank);
    let mut e = EventCounts::new();
    let mut put = |c: &str, ev: &str, n: u64| {
        e.entry(c.to_string())
            .or_default()
            .insert(ev.to_string(), n);
    };
    put("rf_banks", "read", stats.slice_reads);
    put("rf_banks", "write", stats.slice_writes);
    put("operand_collectors", "operand_write", core.collector_writes);
    put("operand_collectors", "operand_read", core.collector_reads);
    put("crossbar", "transfer", core.crossbar_transfers * slices);
    put("arbiter", "grant", core.bank_reads.iter().sum());
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{preset, resolve, GpuPreset, Node, Overrides};

    #[test]
    fn gtx480_bank_is_a_4kb_array_and_12nm_is_cheaper_per_access() {
        let c40 = preset(GpuPreset::Gtx480).expect("preset");
        let i40 = inventory(&c40).expect("inventory");
        let banks = &i40.components[0];
        assert_eq!(banks.name, "rf_banks");
        assert_eq!(banks.instances, 15 * 32);
        // seed 002 Table 2 (CACTI 5.3, 40 nm): 4.68 pJ per access of a 4 KB bank; the model
        // should land within a factor of 3 of it.
        let r = banks.event_energy["read"].pj();
        assert!(r > 4.68 / 3.0 && r < 4.68 * 3.0, "read energy {r} pJ");
        let ov = Overrides {
            node: Some(Node::N12),
            ..Overrides::default()
        };
        let c12 = resolve(GpuPreset::Gtx480, &ov).expect("12nm");
        let i12 = inventory(&c12).expect("inventory");
        for (a, b) in i40.components.iter().zip(&i12.components) {
            for (k, e40) in &a.event_energy {
                assert!(b.event_energy[k] < *e40, "{} {k}", a.name);
            }
            assert!(b.area < a.area, "{}", a.name);
        }
    }

    #[test]
    fn rtx2060_inventory_counts() {
        let c = preset(GpuPreset::Rtx2060).expect("preset");
        let i = inventory(&c).expect("inventory");
        let n: Vec<u64> = i.components.iter().map(|c| c.instances).collect();
        // banks 30x4x2, collectors 30x4x2, crossbars 30x4, arbiters 30x4x2
        assert_eq!(n, vec![240, 240, 120, 240]);
    }
}
