//! Hardware inventory of the sharing design: the renaming design's
//! ([`crate::renaming::hardware`]: the baseline's register file, the renaming table, the
//! availability flags, the release-flag cache) plus Jeon et al. 2019's additions (§3, §4.2, Fig. 3):
//!
//! | component | instance | events |
//! |---|---|---|
//! | `amt` | the address mapping table of one SM: `design.amt_entries` entries (unbounded: one per physical register of the SM), a CAM of the seed's 38 search bits (base 24, stride 9, active count 5) with `⌈log2 rows⌉` + 1 data bits (physical register, valid), `regwatt_power::cam::cam` | `search` (every global load looked up, every store or atomic of this SM, and every other SM's store broadcast to it), `write` (an entry inserted, bound to its row, or invalidated) |
//! | `w_merge_slot` | one per SM (§3: "one dedicated operand collector slot"): a collector slot of 2 × 1024-bit operands ([`circuits::operand_buffers`]) | `operand_read` (each merge read handed to the merge unit) |
//! | `merge_unit` | one per SM: the shift/OR of §3 as two logarithmic lane rotators (5 levels of 2:1 muxes each, 0..31 lanes) and a 2:1 lane select, 11 levels × 32 lanes of 32-bit 2:1 muxes (ORION 2.0 mux tree per lane, `regwatt_power::crossbar`) | `merge` (one partial hit: every level switches) |
//! | `ref_counters` | one counter per physical register of the SM, `⌈log2(max warps + 3)⌉` bits (mappings by every warp plus the pins of in-flight shares and merges), flip-flops | `update` (a read-modify-write: one word read and written) |
//!
//! The w-merge slot's operand writes are counted by the timing core with the collectors'
//! (`operand_collectors.operand_write`), its reads with the bank reads, bus transfers and
//! arbiter grants, as for any operand. The memory accesses sharing avoids appear in the
//! L1D/L2/DRAM events at `--scope sm|gpu` (the core never sends those loads).

use std::collections::BTreeMap;

use regwatt_power::cam::{cam, CamSpec, CamTech};
use regwatt_power::crossbar::{crossbar, CrossbarSpec, Geometry, Topology};
use regwatt_power::flipflop::{flipflop_array, FlipFlopSpec};
use regwatt_sim::timing::activity::CoreActivity;
use regwatt_tech::units::Energy;
use regwatt_tech::{DeviceFlavor, Technology};

use super::{AmtCap, SharingParams, SharingStats};
use crate::common::hardware::row_id_bits;
use crate::config::ResolvedConfig;
use crate::energy::{circuits, Component, EnergyError, EventCounts, Inventory};
use crate::registry::DesignParams;

/// Search bits of an AMT entry: base address 24, stride 9, active-lane count 5 (§4.2).
pub const AMT_SEARCH_BITS: u32 = 24 + 9 + 5;

/// Mux levels of the merge unit: a 5-level rotator (0..31 lanes) per source row, then one
/// 2:1 select per output lane.
pub const MERGE_MUX_LEVELS: u32 = 2 * 5 + 1;

/// Entries of the AMT hardware: the cap, or one per physical register when unbounded (an
/// entry then describes a row's data; more entries than rows would describe dead data).
pub fn amt_entries(cfg: &ResolvedConfig, p: &SharingParams) -> u32 {
    match p.amt_entries {
        AmtCap::Entries(n) => n,
        AmtCap::Unbounded => cfg.gpu.sm.limits.registers / 32,
    }
}

/// Bits of a reference counter: it counts up to `max warps` mappings plus pins.
pub fn ref_counter_bits(cfg: &ResolvedConfig) -> u32 {
    let n = cfg.gpu.sm.limits.max_warps + 3;
    32 - n.saturating_sub(1).leading_zeros()
}

fn structure(
    component: &str,
) -> impl FnOnce(regwatt_power::crossbar::StructureError) -> EnergyError + '_ {
    move |source| EnergyError::Structure {
        component: component.to_string(),
        source,
    }
}

/// Builds the sharing design's inventory at the configuration's node and temperature.
pub fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
    let p = &crate::registry::inventory_params::<super::Sharing>(cfg, "amt")?;
    let mut rc = cfg.clone();
    rc.design = Some(DesignParams::Renaming(p.renaming()));
    let mut inv = crate::renaming::hardware::inventory(&rc)?;
    let tech = Technology::for_node(cfg.power.node.nm(), cfg.power.temperature)?;
    let sms = u64::from(cfg.gpu.sms);
    let rows = cfg.gpu.sm.limits.registers / 32;
    let ev = |pairs: &[(&str, Energy)]| -> BTreeMap<String, Energy> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    };

    let entries = amt_entries(cfg, p);
    if entries > 0 {
        let ct = CamTech::new(&tech, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp)
            .map_err(structure("amt"))?;
        let data = row_id_bits(rows) + 1;
        let a = cam(
            &ct,
            &CamSpec {
                entries,
                tag_bits: AMT_SEARCH_BITS,
                data_bits: data,
            },
        )
        .map_err(structure("amt"))?;
        inv.components.push(Component {
            name: "amt".into(),
            description: format!(
                "address mapping table: {entries} entries of {AMT_SEARCH_BITS} search bits (base 24, stride 9, count 5) + {data} data bits (register id, valid)"
            ),
            instances: sms,
            event_energy: ev(&[("search", a.search_energy), ("write", a.write_energy)]),
            leakage: a.leakage + a.gate_leakage,
            area: a.area,
            source: "regwatt_power::cam::cam (CACTI 7 CAM path); Jeon et al. 2019 §3, §4.2".into(),
        });
    }

    let logic = circuits::logic_tech(&tech)?;
    let slot = circuits::operand_buffers(&logic, 2, 1024)?;
    inv.components.push(Component {
        name: "w_merge_slot".into(),
        description: "w-merge collector slot, 2 x 1024-bit operand flip-flops".into(),
        instances: sms,
        event_energy: ev(&[("operand_read", slot.op2_energy)]),
        leakage: slot.leakage,
        area: slot.area,
        source: "regwatt_power::flipflop::flipflop_array (McPAT 1.3 DFFCell); Jeon et al. 2019 §3"
            .into(),
    });

    // a logarithmic shifter per source row (5 levels of 2:1 muxes rotate by 0..31 lanes) and
    // a 2:1 select per output lane (the OR of the two shifted, masked rows): 11 levels of 32
    // lane-wide (32-bit) 2:1 muxes
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
    .map_err(structure("merge_unit"))?;
    let muxes = f64::from(MERGE_MUX_LEVELS * 32);
    inv.components.push(Component {
        name: "merge_unit".into(),
        description: format!(
            "shift/OR merge: two 5-level lane rotators and a lane select, {MERGE_MUX_LEVELS} levels of 32 x 32-bit 2:1 muxes"
        ),
        instances: sms,
        event_energy: ev(&[("merge", mux.energy_per_transfer * muxes)]),
        leakage: (mux.leakage + mux.gate_leakage) * muxes,
        area: mux.area * muxes,
        source: "regwatt_power::crossbar (ORION 2.0 2:1 mux tree per 32-bit lane, pitch-limited); Jeon et al. 2019 §3".into(),
    });

    let bits = ref_counter_bits(cfg);
    let ff = flipflop_array(
        &logic,
        &FlipFlopSpec {
            entries: rows,
            width_bits: bits,
            output_load: logic.cg(logic.wn() + logic.wp()),
        },
    )
    .map_err(|source| EnergyError::Structure {
        component: "ref_counters".into(),
        source,
    })?;
    inv.components.push(Component {
        name: "ref_counters".into(),
        description: format!("{rows} reference counters of {bits} bits (flip-flops)"),
        instances: sms,
        event_energy: ev(&[("update", ff.read_energy + ff.write_energy)]),
        leakage: ff.leakage + ff.gate_leakage,
        area: ff.area,
        source: "regwatt_power::flipflop::flipflop_array (McPAT 1.3 DFFCell); Jeon et al. 2019 §3"
            .into(),
    });
    Ok(inv)
}

/// Maps a sharing run's activity onto the inventory's events.
pub fn events(cfg: &ResolvedConfig, core: &CoreActivity, s: &SharingStats) -> EventCounts {
    let mut e = crate::renaming::hardware::events(cfg, core, &s.renaming);
    let mut put = |c: &str, ev: &str, n: u64| {
        e.entry(c.to_string())
            .or_default()
            .insert(ev.to_string(), n);
    };
    let on = matches!(&cfg.design, Some(DesignParams::Sharing(p)) if p.amt_entries != AmtCap::Entries(0));
    if on {
        put(
            "amt",
            "search",
            s.amt_searches + s.amt_store_searches + s.amt_remote_searches,
        );
        put(
            "amt",
            "write",
            s.amt_inserts
                + s.amt_binds
                + s.amt_invalidations
                + s.amt_dropped_freed
                + s.amt_dropped_overwritten,
        );
    }
    put("w_merge_slot", "operand_read", s.merge_reads);
    put("merge_unit", "merge", s.partial_hits);
    put("ref_counters", "update", s.renaming.ref_updates);
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{resolve, GpuPreset, Overrides};
    use crate::registry::DesignSpec;

    fn cfg(gpu: GpuPreset, sets: &[&str]) -> ResolvedConfig {
        resolve(
            gpu,
            &Overrides {
                design: Some(DesignSpec::Sharing),
                sets: sets.iter().map(|s| s.to_string()).collect(),
                ..Overrides::default()
            },
        )
        .expect("config")
    }

    #[test]
    fn field_widths() {
        // gtx480: 48 warps + 3 → 51 → 6 bits
        assert_eq!(ref_counter_bits(&cfg(GpuPreset::Gtx480, &[])), 6);
    }

    /// §4.2: 200 entries of 38 bits (about 1 KB with the register id and valid bit regwatt
    /// adds). The additions (AMT, w-merge slot, merge unit, reference counters) measure 6.6 %
    /// (gtx480, 40 nm) and 6.4 % (rtx2060, 12 nm) of the baseline RF's area (README); bound: 10 %.
    #[test]
    fn inventory_sizes_follow_the_seed() {
        for gpu in [GpuPreset::Gtx480, GpuPreset::Rtx2060] {
            let c = cfg(gpu, &[]);
            let inv = inventory(&c).expect("inventory");
            let names: Vec<&str> = inv.components.iter().map(|x| x.name.as_str()).collect();
            assert_eq!(
                &names[names.len() - 4..],
                ["amt", "w_merge_slot", "merge_unit", "ref_counters"]
            );
            let amt = inv
                .components
                .iter()
                .find(|x| x.name == "amt")
                .expect("amt");
            assert!(amt.description.contains("200 entries of 38 search bits"));
            let rf: f64 = inv.components[..5]
                .iter()
                .map(|x| x.area.mm2() * x.instances as f64)
                .sum();
            let extra: f64 = inv.components[names.len() - 4..]
                .iter()
                .map(|x| x.area.mm2() * x.instances as f64)
                .sum();
            eprintln!("{gpu:?}: additions / RF area = {:.4}", extra / rf);

            assert!(extra / rf < 0.10, "{gpu:?}: {}", extra / rf);
            // a search costs less than reading one warp register (a bank read per slice)
            let s = amt.event_energy["search"].pj();
            let bank =
                inv.components[0].event_energy["read"].pj() * f64::from(c.rf.slices_per_bank);
            assert!(s > 0.0 && s < bank, "{s} pJ vs bank {bank} pJ");
        }
        // amt_entries = 0: no AMT in the inventory
        let c = cfg(GpuPreset::Gtx480, &["design.amt_entries=0"]);
        let inv = inventory(&c).expect("inventory");
        assert!(inv.components.iter().all(|x| x.name != "amt"));
        // unbounded: one entry per physical register
        let c = cfg(GpuPreset::Gtx480, &["design.amt_entries=unbounded"]);
        let inv = inventory(&c).expect("inventory");
        let amt = inv
            .components
            .iter()
            .find(|x| x.name == "amt")
            .expect("amt");
        assert!(
            amt.description.contains("1024 entries"),
            "{}",
            amt.description
        );
    }
}
