//! Hardware inventory of the unified design (Gebhart et al. 2012, as Jing et al. 2016 §V-A
//! implement it): the baseline's register file, whose banks also hold the L1D's lines, and
//! the L1D's tags, sized for the largest L1D a launch can take (the whole array). The L1D
//! data array and tags of the beyond-RF inventory leave it ([`crate::beyond_rf::inventory`]
//! drops `l1d_data` and `l1d_tag` for this design).
//!
//! | component | instance | events |
//! |---|---|---|
//! | `rf_banks`, `operand_collectors`, `operand_bus`, `writeback_bus`, `arbiter` | the baseline's ([`crate::baseline::hardware`]) | `rf_banks.read` = (register reads + L1D sector read hits) × slices (a 128-byte line is one row of every slice); `.write` = (register slice writes) + (L1D fills + L1D sector writes) × slices; `operand_bus.transfer` = (operand transfers + L1D read hits) × slices (a hit line leaves its bank for the LD/ST unit); `writeback_bus.write` = slice writes as `rf_banks.write` |
//! | `tag_array` | one SM's L1D tags at the largest split: `l1d.sets` CAMs of `registers × 4 B / (sets × line)` ways, CACTI's default tag width, as the baseline's L1D tags ([`crate::beyond_rf`]) | `lookup` = `l1d_line_lookups` |

use regwatt_power::cam::CamTech;
use regwatt_sim::timing::activity::{CoreActivity, MemActivity};
use regwatt_sim::timing::config::CacheConfig;
use regwatt_tech::{DeviceFlavor, Technology};

use super::{rows_per_way, UnifiedStats};
use crate::baseline::BaselineStats;
use crate::config::ResolvedConfig;
use crate::energy::{EnergyError, EventCounts, Inventory};

/// The tags of the largest L1D a launch can take: every row of the array in ways of
/// `rows_per_way` rows (32 ways of 32 sets on gtx480).
pub fn tag_geometry(cfg: &ResolvedConfig) -> CacheConfig {
    let banks = cfg.gpu.sm.register_file.banks_per_sub_core.max(1);
    let rows = cfg.gpu.sm.limits.registers / 32 / banks;
    let per_way = rows_per_way(cfg).unwrap_or(1).max(1) as u32;
    CacheConfig {
        ways: (rows / per_way).max(1),
        ..cfg.gpu.memory.l1d
    }
}

/// Builds the unified inventory at the configuration's node and temperature.
pub fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
    let mut inv = crate::baseline::hardware::inventory(cfg)?;
    let tech = Technology::for_node(cfg.power.node.nm(), cfg.power.temperature)?;
    let ct = CamTech::new(&tech, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp).map_err(|source| {
        EnergyError::Structure {
            component: "tag_array".into(),
            source,
        }
    })?;
    let geo = tag_geometry(cfg);
    let (set, bits) = crate::beyond_rf::set_tags(&ct, &geo, "tag_array")?;
    let mut tags =
        crate::beyond_rf::tag_component("tag_array", u64::from(cfg.gpu.sms), &geo, &set, bits);
    tags.description = format!(
        "L1D tags of the largest split: {} sets x {}-way CAM, {bits}-bit tags (Gebhart et al. 2012)",
        geo.sets, geo.ways
    );
    tags.source =
        "regwatt_power::cam::cam (CACTI 7 CAM path), as the baseline's L1D tags; Gebhart et al. 2012"
            .into();
    inv.components.push(tags);
    Ok(inv)
}

/// Maps a unified run's activity onto the inventory's events: the L1D's sector reads that
/// hit read a row of the array, its fills and (write-through) stores write one, as the
/// beyond-RF L1D counts them ([`crate::beyond_rf`]).
pub fn events(
    cfg: &ResolvedConfig,
    core: &CoreActivity,
    mem: &MemActivity,
    s: &UnifiedStats,
) -> EventCounts {
    let slices = u64::from(cfg.rf.slices_per_bank);
    let r = &s.registers;
    let hits = mem.l1d_sector_read_hits;
    let line_writes = crate::beyond_rf::l1d_sector_writes(mem);
    let data = BaselineStats {
        reads: r.reads + hits,
        writes: r.writes + line_writes,
        slice_reads: r.slice_reads + hits * slices,
        slice_writes: r.slice_writes + line_writes * slices,
        unallocated_accesses: r.unallocated_accesses,
    };
    let mut e = crate::baseline::hardware::events(cfg, core, &data);
    let mut put = |c: &str, ev: &str, n: u64| {
        e.entry(c.to_string())
            .or_default()
            .insert(ev.to_string(), n);
    };
    put(
        "operand_bus",
        "transfer",
        (core.crossbar_transfers + hits) * slices,
    );
    put("tag_array", "lookup", mem.l1d_line_lookups);
    e
}
