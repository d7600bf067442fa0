//! Hardware inventory of the baseline register file and the mapping of its activity onto
//! component events.
//!
//! Components (per SM; the inventory counts instances over all SMs):
//!
//! | component | instance | events (energy per event) |
//! |---|---|---|
//! | `rf_banks` | one physical SRAM bank: `rf.bank_bytes`, `rf.row_bits`-wide rows, `gpu.sm.register_file.ports_per_bank` RW ports, ECC per `rf.ecc` (CACTI-style model, `regwatt_power::sram::estimate`) | `read`, `write` of one row (`SramResult::read_energy` / `write_energy`) |
//! | `operand_collectors` | one collector unit: `rf.collector_operands` operands of 1024 bits in a flip-flop array (`regwatt_power::flipflop`, McPAT `DFFCell`, via [`circuits::operand_buffers`]) | `operand_write` (one 1024-bit operand in), `operand_read` (one operand out) |
//! | `operand_bus` | one lane-slice column of a sub-core: a line per bank and bit over the bank slices, a `banks`:1 mux per bit in each collector ([`circuits::operand_bus`], `regwatt_power::bus`), placed by [`circuits::ColumnPlacement`] from the bank's and collectors' dimensions | `transfer` (one `rf.row_bits` slice of an operand) |
//! | `writeback_bus` | one lane-slice column: one line per bit from the lanes to every bank slice's write drivers ([`circuits::writeback_bus`]) | `write` (one slice of a result) |
//! | `arbiter` | one per logical bank: a matrix arbiter among the sub-core's collectors (`regwatt_power::arbiter`, CACTI 7 `arbiter.cc`) whose grant line crosses the sub-core's columns | `grant` |
//!
//! Event mapping (from the timing model's `CoreActivity` and the design's [`BaselineStats`]):
//! `rf_banks.read = slice_reads`, `rf_banks.write = slice_writes` (a warp register is one row
//! in each slice; writes only touch slices with written lanes);
//! `operand_collectors.operand_write = collector_writes`, `.operand_read = collector_reads`;
//! `operand_bus.transfer = crossbar_transfers × slices` (each column's bus carries its lanes);
//! `writeback_bus.write = slice_writes`;
//! `arbiter.grant = Σ bank_reads` (reads are arbitrated; writes have priority, Malekeh §II).

use std::collections::BTreeMap;

use regwatt_power::sram::{estimate, SramSpec};
use regwatt_sim::timing::activity::CoreActivity;
use regwatt_tech::units::Energy;
use regwatt_tech::{DeviceFlavor, Technology};

use super::BaselineStats;
use crate::config::ResolvedConfig;
use crate::energy::circuits;
use crate::energy::{Component, EnergyError, EventCounts, Inventory};
use crate::power_modes::RowDomains;

/// One register bank as an SRAM array: `rf.bank_bytes` with `rf.row_bits` rows, `gpu.sm.register_file.ports_per_bank`
/// read/write ports, ECC as configured, HP cells and periphery, at the configured node and
/// temperature.
pub fn bank_spec(cfg: &ResolvedConfig) -> SramSpec {
    let mut spec = SramSpec::ram(
        u64::from(cfg.rf.bank_bytes),
        cfg.rf.row_bits / 8,
        cfg.power.node.nm(),
    );
    spec.rw_ports = cfg.gpu.sm.register_file.ports_per_bank;
    spec.ecc = cfg.rf.ecc;
    spec.temperature = cfg.power.temperature;
    spec.cell_flavor = DeviceFlavor::ItrsHp;
    spec.peri_flavor = DeviceFlavor::ItrsHp;
    spec
}

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

    let bank = estimate(&bank_spec(cfg), &tech).map_err(|source| EnergyError::Sram {
        component: "rf_banks".into(),
        source,
    })?;

    let logic = circuits::logic_tech(&tech)?;
    let cu = circuits::operand_buffers(&logic, cfg.rf.collector_operands, 1024)?;
    let bank_count = s.register_file.banks_per_sub_core;
    let place = circuits::ColumnPlacement::new(
        &bank,
        bank_count,
        cu.area,
        collectors,
        cfg.rf.slices_per_bank,
    );
    let (ob, ob_detail) = circuits::operand_bus(&logic, cfg.rf.row_bits, &place, collectors)?;
    let (wb, wb_detail) = circuits::writeback_bus(&logic, cfg.rf.row_bits, &place)?;
    let arb = circuits::arbiter(&logic, collectors, place.sub_core_width())?;

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
                    cfg.rf.bank_bytes,
                    cfg.rf.row_bits,
                    cfg.gpu.sm.register_file.ports_per_bank,
                    cfg.rf.ecc
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
                    "collector unit, {} x 1024-bit operand flip-flops",
                    cfg.rf.collector_operands
                ),
                instances: sms * sub * u64::from(collectors),
                event_energy: ev(&[
                    ("operand_write", cu.op_energy),
                    ("operand_read", cu.op2_energy),
                ]),
                leakage: cu.leakage,
                area: cu.area,
                source: "regwatt_power::flipflop::flipflop_array (McPAT 1.3 DFFCell on CACTI 7 primitives)".into(),
            },
            Component {
                name: "operand_bus".into(),
                description: format!(
                    "one lane-slice column: {} bank lines x {} bits, a {}:1 mux per bit in each of {} collectors",
                    bank_count, cfg.rf.row_bits, bank_count, collectors
                ),
                instances: sms * sub * slices,
                event_energy: ev(&[("transfer", ob.op_energy)]),
                leakage: ob.leakage,
                area: ob.area,
                source: format!(
                    "regwatt_power::bus (bit-sliced lines over the banks, ORION 2.0 mux tree, random-data activity 0.5); line {:.1} um (column {:.1} um wide, banks {:.1} um, collectors {:.1} um high), {:.1} fJ per bit of wire, routing beyond the arrays {:.1} um2",
                    place.operand_line().um(),
                    place.width.um(),
                    place.bank_height.um(),
                    place.collector_height.um(),
                    ob_detail.wire_energy.fj() / f64::from(cfg.rf.row_bits),
                    ob_detail.routing_area.um2()
                ),
            },
            Component {
                name: "writeback_bus".into(),
                description: format!(
                    "one lane-slice column: one {}-bit write line from the lanes to {} banks",
                    cfg.rf.row_bits, bank_count
                ),
                instances: sms * sub * slices,
                event_energy: ev(&[("write", wb.op_energy)]),
                leakage: wb.leakage,
                area: wb.area,
                source: format!(
                    "regwatt_power::bus (Tap::Driver, random-data activity 0.5); line {:.1} um, {:.1} fJ per bit of wire",
                    place.writeback_line().um(),
                    wb_detail.wire_energy.fj() / f64::from(cfg.rf.row_bits)
                ),
            },
            Component {
                name: "arbiter".into(),
                description: format!("matrix arbiter among {collectors} collectors"),
                instances: sms * sub * banks,
                event_energy: ev(&[("grant", arb.op_energy)]),
                leakage: arb.leakage,
                area: arb.area,
                source: format!(
                    "regwatt_power::arbiter::arbiter (CACTI 7 arbiter.cc, Orion matrix arbiter), grant line {:.1} um across the sub-core",
                    place.sub_core_width().um()
                ),
            },
        ],
    })
}

/// The power-managed domains of the baseline's register rows: a register row is
/// one row of each of the `slices` bank slices, `row_bits` (+ 1/8 with ECC) cells each.
pub fn power_domains(cfg: &ResolvedConfig) -> Result<RowDomains, EnergyError> {
    let tech = Technology::for_node(cfg.power.node.nm(), cfg.power.temperature)?;
    let bank = estimate(&bank_spec(cfg), &tech).map_err(|source| EnergyError::Sram {
        component: "rf_banks".into(),
        source,
    })?;
    let bits = cfg.rf.row_bits;
    let cols = if cfg.rf.ecc {
        bits + bits.div_ceil(8)
    } else {
        bits
    };
    RowDomains::new(
        cfg,
        &bank,
        cfg.rows_per_bank(),
        cols,
        cfg.rf.slices_per_bank,
        cfg.gpu.sm.register_file.rows_per_subarray,
    )
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
    put("operand_bus", "transfer", core.crossbar_transfers * slices);
    put("writeback_bus", "write", stats.slice_writes);
    put("arbiter", "grant", core.bank_reads.iter().sum());
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{preset, resolve, GpuPreset, Node, Overrides};
    use regwatt_tech::units::Temperature;

    #[test]
    fn gtx480_bank_is_a_4kb_array_and_12nm_is_cheaper_per_access() {
        let c40 = preset(GpuPreset::Gtx480).expect("preset");
        let i40 = inventory(&c40).expect("inventory");
        let banks = &i40.components[0];
        assert_eq!(banks.name, "rf_banks");
        assert_eq!(banks.instances, 15 * 32);
        // (the 4 KB bank against Jeon & Annavaram 2014's published CACTI 5.3 figure, like for like with its
        // 1R + 1W ports: power/src/sram/tests.rs, `seed_reference_points`)
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

    /// The 12 nm FinFET node must not leak more than 40 nm planar. A 4 KB register
    /// bank (16 B rows, 1R + 1W, ECC, itrs-hp cells and periphery) at 360 K.
    #[test]
    fn leaks_less_at_12nm_than_at_40nm() {
        let t = Temperature::from_k(360.0);
        let leak = |nm: f64| {
            let tech = Technology::for_node(nm, t).expect("node");
            let mut spec = SramSpec::ram(4096, 16, nm);
            spec.rw_ports = 0;
            spec.rd_ports = 1;
            spec.wr_ports = 1;
            spec.temperature = t;
            estimate(&spec, &tech).expect("4 KB bank")
        };
        let (b40, b12) = (leak(40.0), leak(12.0));
        assert!(
            b12.leakage_per_bank < b40.leakage_per_bank,
            "subthreshold: 12 nm {} mW vs 40 nm {} mW",
            b12.leakage_per_bank.mw(),
            b40.leakage_per_bank.mw()
        );
        assert!(b12.total_leakage_per_bank() < b40.total_leakage_per_bank());
    }

    /// The area a power mode adds to the RF (headers, switches, state-control flip-flops, over
    /// the physical rows of every SM) against the RF always on, on both presets at every
    /// node: register gating at most 1.15 times, drowsy and tri-modal at most 1.25 times (the
    /// published per-row schemes cost 3-5 % of the cells: `regwatt_power::gating` docs). Tri-
    /// modal has drowsy's two switches per row and no third, so its area is drowsy's.
    #[test]
    fn power_mode_area_against_always_on() {
        use crate::config::PowerMode;
        use crate::energy::EventCounts;
        use crate::power_modes::evaluate;
        use regwatt_sim::timing::activity::PowerStateCycles;
        for p in GpuPreset::ALL {
            for node in Node::ALL {
                let ov = Overrides {
                    node: Some(node),
                    ..Overrides::default()
                };
                let c = resolve(p, &ov).expect("config");
                let inv = inventory(&c).expect("inventory");
                let (_, always_on) = inv.evaluate(0, &EventCounts::new()).expect("area");
                let d = power_domains(&c).expect("domains");
                let rows_per_sm = u64::from(c.gpu.sm.limits.registers / 32);
                let counts = PowerStateCycles {
                    rows: u64::from(c.gpu.sms) * rows_per_sm,
                    subarrays: u64::from(c.gpu.sms)
                        * rows_per_sm
                            .div_ceil(u64::from(c.gpu.sm.register_file.rows_per_subarray.max(1))),
                    ..PowerStateCycles::default()
                };
                let ratio = |m: PowerMode| {
                    let added = evaluate(m, &d, &counts, inv.core_clock_mhz).area;
                    (always_on.total + added) / always_on.total
                };
                let (reg, dro, tri) = (
                    ratio(PowerMode::RegisterGating),
                    ratio(PowerMode::Drowsy),
                    ratio(PowerMode::TriModal),
                );
                assert!(
                    reg > 1.0 && reg <= 1.15,
                    "{p:?} {node:?}: register gating {reg}"
                );
                assert!(tri > reg && tri <= 1.25, "{p:?} {node:?}: tri-modal {tri}");
                assert_eq!(tri, dro, "{p:?} {node:?}");
            }
        }
    }

    /// The operand bus is placed by the banks' and collectors' own dimensions: a
    /// bank's line runs at least over the collector stack and at most over every bank and the
    /// collector stack. (Its energy against the banks' on a workload: tests/suite/designs_workloads.rs.)
    #[test]
    fn operand_bus_follows_the_placement() {
        for p in GpuPreset::ALL {
            for node in [Node::N40, Node::N12] {
                let ov = Overrides {
                    node: Some(node),
                    ..Overrides::default()
                };
                let c = resolve(p, &ov).expect("config");
                let tech =
                    Technology::for_node(c.power.node.nm(), c.power.temperature).expect("node");
                let bank = estimate(&bank_spec(&c), &tech).expect("bank");
                let logic = circuits::logic_tech(&tech).expect("logic");
                let banks = c.gpu.sm.register_file.banks_per_sub_core;
                let collectors = c.gpu.sm.collectors.units_per_sub_core;
                let cu = circuits::operand_buffers(&logic, c.rf.collector_operands, 1024)
                    .expect("collectors");
                let place = circuits::ColumnPlacement::new(
                    &bank,
                    banks,
                    cu.area,
                    collectors,
                    c.rf.slices_per_bank,
                );
                let line = place.operand_line();
                assert!(line >= place.collector_height, "{p} {node}");
                assert!(
                    line <= place.collector_height + bank.bank_height * f64::from(banks),
                    "{p} {node}"
                );
                // the operand lines mostly run over the arrays: what does not fit (gtx480 at
                // 40 nm: 4 x 128 tracks over a 79 um column at 0.16 um pitch, 21 too many)
                // is a small part of the bus's area
                let (cost, detail) =
                    circuits::operand_bus(&logic, c.rf.row_bits, &place, collectors).expect("bus");
                assert!(detail.routing_area <= cost.area * 0.5, "{p} {node}");
            }
        }
    }

    #[test]
    fn rtx2060_inventory_counts() {
        let c = preset(GpuPreset::Rtx2060).expect("preset");
        let i = inventory(&c).expect("inventory");
        let n: Vec<u64> = i.components.iter().map(|c| c.instances).collect();
        // bank slices 30 SMs x 4 sub-cores x 2 banks x 8 slices, collectors 30x4x2, operand
        // and write-back buses one per sub-core column 30x4x8, arbiters one per bank 30x4x2
        assert_eq!(n, vec![1920, 240, 960, 960, 240]);
    }
}
