//! Hardware inventory of the Malekeh design: the baseline's register file with every
//! operand collector unit turned into a caching collector unit (Malekeh §III-B/C, Fig. 5):
//!
//! | component | instance | events |
//! |---|---|---|
//! | `rf_banks`, `operand_bus`, `writeback_bus`, `arbiter` | as the baseline ([`crate::baseline::hardware`]) | bank reads are the misses only; writes are all results (write-through) |
//! | `operand_collectors` | one CCU's cache-table data: `design.entries` × 1024-bit flip-flops (the baseline collector has `rf.collector_operands`) with its output multiplexers (`regwatt_power::flipflop`) | `operand_write` (a bank fill or a port-D result), `operand_read` (a source to the execution unit at dispatch) |
//! | `ccu_tags` | one CCU's metadata: per entry a valid bit, an 8-bit tag, a lock bit, a reuse bit and 3 LRU bits (14 flip-flops), compared in parallel | `check` (every tag read and compared), `update` (one entry's metadata written), `flush` (every entry's valid bit cleared) |
//!
//! The write filter's tri-state buffer and the arbiter's squash signal are a gate per write
//! request and are not priced. The adaptive STHLD keeps one IPC register per GPU and runs a
//! small state machine every 10,000 cycles (§VI-D: "negligible"); not priced.

use std::collections::BTreeMap;

use regwatt_power::flipflop::{flipflop_array, FlipFlopSpec};
use regwatt_sim::timing::activity::CoreActivity;
use regwatt_tech::units::Energy;
use regwatt_tech::Technology;

use super::MalekehStats;
use crate::config::ResolvedConfig;
use crate::energy::{circuits, Component, EnergyError, EventCounts, Inventory};

/// Metadata bits per cache-table entry: valid, 8-bit tag (256 registers), lock, reuse, and 3
/// LRU bits (§III-C).
pub const META_BITS: u32 = 1 + 8 + 1 + 1 + 3;

/// Builds the Malekeh design's inventory at the configuration's node and temperature.
pub fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
    let p = &crate::registry::inventory_params::<super::Malekeh>(cfg, "ccu_tags")?;
    let mut inv = crate::baseline::hardware::inventory(cfg)?;
    let tech = Technology::for_node(cfg.power.node.nm(), cfg.power.temperature)?;
    let logic = circuits::logic_tech(&tech)?;
    let s = &cfg.gpu.sm;
    let ccus = u64::from(cfg.gpu.sms)
        * u64::from(s.sub_cores)
        * u64::from(s.collectors.units_per_sub_core);
    let ct = circuits::operand_buffers(&logic, p.entries, 1024)?;
    if let Some(c) = inv
        .components
        .iter_mut()
        .find(|c| c.name == "operand_collectors")
    {
        c.description = format!(
            "caching collector unit: cache table of {} x 1024-bit entries (flip-flops)",
            p.entries
        );
        c.event_energy = ev(&[
            ("operand_write", ct.op_energy),
            ("operand_read", ct.op2_energy),
        ]);
        c.leakage = ct.leakage;
        c.area = ct.area;
        c.instances = ccus;
        c.source = "regwatt_power::flipflop::flipflop_array (McPAT 1.3 DFFCell on CACTI 7 primitives); Malekeh §III-C".into();
    }
    let meta = flipflop_array(
        &logic,
        &FlipFlopSpec {
            entries: p.entries,
            width_bits: META_BITS,
            output_load: logic.cg(logic.wn() + logic.wp()),
        },
    )
    .map_err(|source| EnergyError::Structure {
        component: "ccu_tags".into(),
        source,
    })?;
    let entries = f64::from(p.entries);
    inv.components.push(Component {
        name: "ccu_tags".into(),
        description: format!(
            "CCU metadata: {} entries x {META_BITS} bits (valid, tag, lock, reuse, LRU), parallel tag compare",
            p.entries
        ),
        instances: ccus,
        event_energy: ev(&[
            ("check", meta.read_energy * entries),
            ("update", meta.write_energy),
            ("flush", meta.write_energy * entries),
        ]),
        leakage: meta.leakage + meta.gate_leakage,
        area: meta.area,
        source: "regwatt_power::flipflop::flipflop_array (McPAT 1.3 DFFCell); Malekeh §III-C, Fig. 5".into(),
    });
    Ok(inv)
}

fn ev(pairs: &[(&str, Energy)]) -> BTreeMap<String, Energy> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// Maps a Malekeh run's activity onto the inventory's events.
pub fn events(cfg: &ResolvedConfig, core: &CoreActivity, s: &MalekehStats) -> EventCounts {
    let mut e = crate::baseline::hardware::events(cfg, core, &s.banks);
    let mut put = |c: &str, ev: &str, n: u64| {
        e.entry(c.to_string())
            .or_default()
            .insert(ev.to_string(), n);
    };
    // a hit is read out at dispatch but not written into the table again
    put(
        "operand_collectors",
        "operand_write",
        s.fills + s.uncached_reads + s.ccu_writes,
    );
    put("ccu_tags", "check", s.tag_checks);
    put(
        "ccu_tags",
        "update",
        s.fills + s.ccu_writes + s.invalidations,
    );
    put("ccu_tags", "flush", s.flushes);
    e
}
