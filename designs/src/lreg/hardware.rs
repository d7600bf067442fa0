//! Hardware inventory of the L-register design: the baseline's register file
//! ([`crate::baseline::hardware`]; L-registers live in its unreserved rows, §6.4: "does not
//! impose any area or power overhead on the register file design") plus Elango 2017's additions
//! (§7.1–§7.4):
//!
//! | component | instance | events |
//! |---|---|---|
//! | `lreg_map` | per SM: for every warp slot, `design.map_entries` entries mapping an L-register id (16 bits) to a physical warp register (`⌈log2 rows⌉` bits) with a valid bit; an SRAM of one-entry rows (`regwatt_power::sram`, like Jeon & Annavaram 2014's renaming table) | `read` (a lookup: every L-register load, every shuffle source), `write` (an L-register allocated or released) |
//! | `lreg_counters` | per SM: the next L-register id of every warp slot (16 bits), flip-flops | `update` (read and write at every L-register load) |
//! | `shuffle_network` | per sub-core: a logarithmic lane rotator, 5 levels of 32 lane-wide (32-bit) 2:1 muxes (ORION 2.0 mux, pitch-limited): a shuffle moves every lane by the same distance (+1 or +`blockDim.x`) | `transfer` (one source row rotated) |
//!
//! GPUs since Kepler have a shuffle network (`shfl`, §2.1.3), which the baseline's inventory
//! (the register file) does not list; the rotator is listed here whole, so the area and
//! leakage overheads are upper bounds.
//!
//! A shuffle's source row is read from its bank through the arbiter and the operand bus like
//! an operand (`rf_banks.read`, `arbiter.grant`, `operand_bus.transfer`); the destination is
//! the load's own destination register, written back as any load's (§6.4: the L-register is
//! the load's destination). The overlap test and the shifts of §7.3 are a few small adders
//! per lane, left out (their energy is far below one map access). The memory accesses the
//! shuffles avoid are absent from the L1D/L2/DRAM events at `--scope sm|gpu`.

use std::collections::BTreeMap;

use regwatt_power::crossbar::{crossbar, CrossbarSpec, Geometry, Topology};
use regwatt_power::flipflop::{flipflop_array, FlipFlopSpec};
use regwatt_power::sram::estimate;
use regwatt_sim::timing::activity::CoreActivity;
use regwatt_tech::units::Energy;
use regwatt_tech::Technology;

use super::{LregParams, LregStats};
use crate::common::hardware::row_id_bits;
use crate::common::hardware::sram;
use crate::config::ResolvedConfig;
use crate::energy::{circuits, Component, EnergyError, EventCounts, Inventory};

/// Bits of an L-register id (the lane counters and the map's tags): 65536 loads per thread
/// before the numbering wraps, far beyond a convolution window's `K²·S`.
pub const LREG_ID_BITS: u32 = 16;

/// Mux levels of the shuffle network: a rotation by 0..31 lanes.
pub const ROTATOR_LEVELS: u32 = 5;

/// Bits of one map entry on an SM of `rows` warp registers: id, physical register, valid.
pub fn map_entry_bits(rows: u32) -> u32 {
    LREG_ID_BITS + row_id_bits(rows) + 1
}

fn params(cfg: &ResolvedConfig) -> Result<LregParams, EnergyError> {
    crate::registry::inventory_params::<super::Lreg>(cfg, "lreg_map")
}

/// Builds the L-register design's inventory at the configuration's node and temperature.
pub fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
    let p = params(cfg)?;
    let mut inv = crate::baseline::hardware::inventory(cfg)?;
    let tech = Technology::for_node(cfg.power.node.nm(), cfg.power.temperature)?;
    let s = &cfg.gpu.sm;
    let sms = u64::from(cfg.gpu.sms);
    let rows = s.limits.registers / 32;
    let warps = s.limits.max_warps;
    let ev = |pairs: &[(&str, Energy)]| -> BTreeMap<String, Energy> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    };

    // the map: `map_entries` entries per warp slot, one SRAM of one-entry rows (as the
    // renaming table of Jeon & Annavaram 2014); the lane counters: one 32 x 16-bit row per warp slot
    let sram_err = |c: &'static str| {
        move |source| EnergyError::Sram {
            component: c.to_string(),
            source,
        }
    };
    let bits = map_entry_bits(rows);
    let entry_bytes = bits.div_ceil(8);
    let entries = u64::from(warps) * u64::from(p.map_entries);
    let mspec = sram(cfg, entries * u64::from(entry_bytes), entry_bytes);
    let map = estimate(&mspec, &tech).map_err(sram_err("lreg_map"))?;
    inv.components.push(Component {
        name: "lreg_map".into(),
        description: format!(
            "L-register map: {warps} warps x {} entries of {bits} bits (id {LREG_ID_BITS}, register {}, valid), {} B, 1 RW port",
            p.map_entries,
            row_id_bits(rows),
            mspec.capacity_bytes
        ),
        instances: sms,
        event_energy: ev(&[("read", map.read_energy), ("write", map.write_energy)]),
        leakage: map.total_leakage_per_bank(),
        area: map.area,
        source: "regwatt_power::sram::estimate (CACTI 7 model, calibrated); Elango 2017 §7.1-§7.2"
            .into(),
    });
    let logic = circuits::logic_tech(&tech)?;
    let ff = flipflop_array(
        &logic,
        &FlipFlopSpec {
            entries: warps,
            width_bits: LREG_ID_BITS,
            output_load: logic.cg(logic.wn() + logic.wp()),
        },
    )
    .map_err(|source| EnergyError::Structure {
        component: "lreg_counters".into(),
        source,
    })?;
    inv.components.push(Component {
        name: "lreg_counters".into(),
        description: format!(
            "next L-register id of every warp slot: {warps} x {LREG_ID_BITS} bits, flip-flops"
        ),
        instances: sms,
        event_energy: ev(&[("update", ff.read_energy + ff.write_energy)]),
        leakage: ff.leakage + ff.gate_leakage,
        area: ff.area,
        source: "regwatt_power::flipflop::flipflop_array (McPAT 1.3 DFFCell); Elango 2017 §7.1"
            .into(),
    });

    // a shuffle moves every lane by the same distance (+1 or +blockDim.x): a logarithmic
    // lane rotator, 5 levels of 32 lane-wide (32-bit) 2:1 muxes
    let mux = crossbar(
        &logic,
        &CrossbarSpec {
            inputs: 2,
            outputs: 1,
            width_bits: 32,
            geometry: Geometry::Pitch,
            topology: Topology::MuxTree,
        },
    )
    .map_err(|source| EnergyError::Structure {
        component: "shuffle_network".into(),
        source,
    })?;
    let muxes = f64::from(ROTATOR_LEVELS * 32);
    inv.components.push(Component {
        name: "shuffle_network".into(),
        description: format!(
            "lane rotator for shuffles: {ROTATOR_LEVELS} levels of 32 x 32-bit 2:1 muxes"
        ),
        instances: sms * u64::from(s.sub_cores.max(1)),
        event_energy: ev(&[("transfer", mux.energy_per_transfer * muxes)]),
        leakage: (mux.leakage + mux.gate_leakage) * muxes,
        area: mux.area * muxes,
        source: "regwatt_power::crossbar (ORION 2.0 2:1 mux per 32-bit lane, pitch-limited); Elango 2017 §2.1.3, §7.3"
            .into(),
    });
    Ok(inv)
}

/// Maps an L-register run's activity onto the inventory's events.
pub fn events(cfg: &ResolvedConfig, core: &CoreActivity, s: &LregStats) -> EventCounts {
    let mut e = crate::baseline::hardware::events(cfg, core, &s.banks);
    let slices = u64::from(cfg.rf.slices_per_bank);
    let mut add = |c: &str, ev: &str, n: u64| {
        *e.entry(c.to_string())
            .or_default()
            .entry(ev.to_string())
            .or_default() += n;
    };
    add("rf_banks", "read", s.shuffle_row_reads * slices);
    // a retained L-register's lanes are written into its side row like a register write
    add("rf_banks", "write", s.side_row_writes * slices);
    add("writeback_bus", "write", s.side_row_writes * slices);
    add("operand_bus", "transfer", s.shuffle_row_reads * slices);
    add("arbiter", "grant", s.shuffle_row_reads);
    add("shuffle_network", "transfer", s.shuffle_row_reads);
    add("lreg_map", "read", s.map_reads);
    add("lreg_map", "write", s.map_writes);
    add("lreg_counters", "update", s.lreg_instructions);
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{resolve, GpuPreset, Overrides};
    use crate::registry::DesignSpec;

    fn cfg(gpu: GpuPreset) -> ResolvedConfig {
        resolve(
            gpu,
            &Overrides {
                design: Some(DesignSpec::Lreg),
                ..Overrides::default()
            },
        )
        .expect("config")
    }

    /// The additions are small beside the register file (§6.4 claims no overhead on the RF
    /// itself; the map and the network are outside it).
    #[test]
    fn inventory_adds_a_map_and_a_network() {
        for gpu in [GpuPreset::Gtx480, GpuPreset::Rtx2060] {
            let c = cfg(gpu);
            let inv = inventory(&c).expect("inventory");
            let names: Vec<&str> = inv.components.iter().map(|x| x.name.as_str()).collect();
            assert_eq!(
                &names[names.len() - 3..],
                ["lreg_map", "lreg_counters", "shuffle_network"]
            );
            let area = |x: &Component| x.area.mm2() * x.instances as f64;
            let rf: f64 = inv
                .components
                .iter()
                .filter(|x| x.name == "rf_banks")
                .map(area)
                .sum();
            let extra: f64 = inv.components[names.len() - 3..].iter().map(area).sum();
            for x in &inv.components[names.len() - 3..] {
                eprintln!("{gpu:?}: {} {:.4}", x.name, area(x) / rf);
            }
            eprintln!("{gpu:?}: additions / RF bank area = {:.4}", extra / rf);
            // the map (64 entries per warp) and the network; bound 20 %
            assert!(extra > 0.0 && extra / rf < 0.20, "{gpu:?}: {}", extra / rf);
        }
        assert_eq!(map_entry_bits(1024), 16 + 10 + 1);
    }
}
