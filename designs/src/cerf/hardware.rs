//! Hardware inventory of the cerf design (Jing et al. 2016 §III-B, §III-E, Fig. 4): the integrated
//! data array is the baseline's register file, unchanged ("the integrated data array applies
//! the same multi-banked structure as the traditional RF"), plus the tag array and the
//! re-indexing logic. The L1D the array replaces leaves the beyond-RF inventory
//! ([`crate::beyond_rf::inventory`] drops `l1d_data` and `l1d_tag` for this design).
//!
//! | component | instance | events |
//! |---|---|---|
//! | `rf_banks`, `operand_collectors`, `operand_bus`, `writeback_bus`, `arbiter` | the baseline's ([`crate::baseline::hardware`]): the data array's banks and their operand network | `rf_banks.read` = (register reads + line reads) × slices; `.write` = array writes × slices (every write charged all slices: an upper bound for partial register writes); `operand_bus.transfer` = (operand transfers + load hits) × slices (a hit line leaves its bank for the LD/ST unit); `writeback_bus.write` = array writes × slices; `arbiter.grant` = bank reads + array line accesses |
//! | `tag_array` | one tag bank per logical RF bank (§III-B, Table III; `sms × banks` instances): a RAM of `entries / ways / banks` rows, each one set's `ways` tags of CACTI's default width for the array's capacity and associativity plus 2 state bits per entry (§III-E) ([`tag_bank`]) | `lookup` = every register access, every line looked up, every invalidation probe: one row read and `ways` tag comparisons; `write` = a tag installed or an entry's state changed |
//! | `rgen` | the re-indexing adder of one SM (`base + r / banks`, a 10-bit add, §III-C), dynamic energy only | `index` = register reads + writes: 10/32 of a 32-bit integer add ([`crate::beyond_rf::exec`]) |

use regwatt_power::cam::{cam, CamSpec, CamTech};
use regwatt_power::sram::{estimate, tag_bits_default, SramError, SramSpec};
use regwatt_sim::timing::activity::{CoreActivity, MemActivity};
use regwatt_sim::timing::config::{CacheConfig, SetIndex};
use regwatt_tech::units::Energy;
use regwatt_tech::units::{Area, Power};
use regwatt_tech::{DeviceFlavor, Technology};

use super::{CerfStats, ENTRY_BYTES};
use crate::baseline::BaselineStats;
use crate::config::ResolvedConfig;
use crate::energy::{Component, EnergyError, EventCounts, Inventory};

/// Bits of the re-indexing adder: a register address (10 bits for 1024 entries).
pub fn rgen_bits(cfg: &ResolvedConfig) -> u32 {
    let entries = (cfg.gpu.sm.limits.registers / 32).max(2);
    32 - (entries - 1).leading_zeros()
}

/// The tag array's geometry: `entries / ways` sets of `ways` ways of 128-byte lines.
pub fn tag_geometry(cfg: &ResolvedConfig, ways: u32) -> CacheConfig {
    let entries = cfg.gpu.sm.limits.registers / 32;
    CacheConfig {
        sets: entries / ways.max(1),
        ways: ways.max(1),
        line_bytes: ENTRY_BYTES as u32,
        sector_bytes: ENTRY_BYTES as u32,
        set_index: SetIndex::Linear,
    }
}

/// State bits beside each tag (Jing et al. 2016 §III-E: "Each entry requires 2 bits for the 4
/// states").
pub const STATE_BITS: u32 = 2;

/// One tag bank: its geometry and its primitives (the comparators not included).
pub struct TagBank {
    /// Sets of the bank (rows of a RAM bank).
    pub sets_per_bank: u32,
    /// Tag width (CACTI's default for the array's capacity and associativity).
    pub tag_bits: u32,
    /// A RAM of one set per row (`true`), or, with fewer sets than a RAM can be organised
    /// with, one CAM per set (`false`).
    pub ram: bool,
    /// Energy of reading a set's tags (RAM) or of searching them (CAM, comparison included).
    pub lookup: Energy,
    /// Energy of writing a set's row (RAM) or one entry (CAM).
    pub write: Energy,
    pub leakage: Power,
    pub area: Area,
}

/// One tag bank of the integrated array (§III-B: the tag array "partitioned into 4 banks, and
/// each tag bank governs 8 data banks"; here one per logical RF bank): a RAM of
/// `sets / banks` rows, each a set's `ways` tags of CACTI's default width for the array's
/// capacity and associativity plus [`STATE_BITS`] per entry; a lookup reads one row. Where the
/// SRAM model finds too few sets per bank for any RAM organisation
/// ([`SramError::TooFewRows`]: 16 or 32 ways on gtx480), each set is a CAM of `ways` entries,
/// as CACTI models fully associative tags.
pub fn tag_bank(
    cfg: &ResolvedConfig,
    tech: &Technology,
    geo: &CacheConfig,
    banks: u64,
) -> Result<TagBank, EnergyError> {
    let tag_bits = tag_bits_default(crate::beyond_rf::capacity(geo), geo.ways, 1);
    let sets_per_bank = (u64::from(geo.sets) / banks.max(1)).max(1) as u32;
    let row_bytes = (geo.ways * (tag_bits + STATE_BITS)).div_ceil(8);
    let mut spec = SramSpec::ram(
        u64::from(sets_per_bank) * u64::from(row_bytes),
        row_bytes,
        cfg.power.node.nm(),
    );
    spec.ecc = false;
    spec.temperature = cfg.power.temperature;
    let sram = match estimate(&spec, tech) {
        Ok(sram) => sram,
        // too few sets per bank for any RAM organisation: one CAM per set
        Err(SramError::TooFewRows { .. }) => {
            let ct = CamTech::new(tech, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp).map_err(
                |source| EnergyError::Structure {
                    component: "tag_array".into(),
                    source,
                },
            )?;
            let set = cam(
                &ct,
                &CamSpec {
                    entries: geo.ways,
                    tag_bits,
                    data_bits: STATE_BITS,
                },
            )
            .map_err(|source| EnergyError::Structure {
                component: "tag_array".into(),
                source,
            })?;
            let n = f64::from(sets_per_bank);
            return Ok(TagBank {
                sets_per_bank,
                tag_bits,
                ram: false,
                lookup: set.search_energy,
                write: set.write_energy,
                leakage: (set.leakage + set.gate_leakage) * n,
                area: set.area * n,
            });
        }
        Err(source) => {
            return Err(EnergyError::Sram {
                component: "tag_array".into(),
                source,
            })
        }
    };
    Ok(TagBank {
        sets_per_bank,
        tag_bits,
        ram: true,
        lookup: sram.read_energy,
        write: sram.write_energy,
        leakage: sram.total_leakage_per_bank(),
        area: sram.area,
    })
}

/// Builds the cerf inventory at the configuration's node and temperature.
pub fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
    let p = &crate::registry::inventory_params::<super::Cerf>(cfg, "tag_array")?;
    let mut inv = crate::baseline::hardware::inventory(cfg)?;
    let tech = Technology::for_node(cfg.power.node.nm(), cfg.power.temperature)?;
    let sms = u64::from(cfg.gpu.sms);
    let banks = u64::from(cfg.gpu.sm.register_file.banks_per_sub_core.max(1));
    let geo = tag_geometry(cfg, p.ways);
    let tag = tag_bank(cfg, &tech, &geo, banks)?;
    let ops = crate::beyond_rf::exec::op_energies(&tech, cfg.power.temperature)?;
    let add = ops
        .get("int_alu_op")
        .copied()
        .ok_or_else(|| EnergyError::NoModel {
            component: "tag_array".into(),
            message: "no integer-operation energy".into(),
        })?;
    // a RAM bank's lookup reads the set's row and compares its ways: `ways` x tag bits
    // compared, priced as the 32-bit integer add per 32 bits (an upper bound for an XOR
    // tree); a CAM's search includes its comparison
    let compare = if tag.ram {
        add * (f64::from(geo.ways * tag.tag_bits) / 32.0)
    } else {
        Energy::ZERO
    };
    let kind = if tag.ram {
        "a RAM of one set per row, one row read per lookup"
    } else {
        "one CAM per set (too few sets for a RAM)"
    };
    inv.components.push(Component {
        name: "tag_array".into(),
        description: format!(
            "integrated array tags: {banks} tag banks per SM, each {} sets x {} ways of {}-bit tags + {STATE_BITS} state bits, {kind} (Jing et al. 2016 §III-B, §III-E, Table III)",
            tag.sets_per_bank, geo.ways, tag.tag_bits
        ),
        instances: sms * banks,
        event_energy: [
            ("lookup".to_string(), tag.lookup + compare),
            ("write".to_string(), tag.write),
        ]
        .into_iter()
        .collect(),
        leakage: tag.leakage,
        area: tag.area,
        source: "regwatt_power::sram::estimate, RAM mode (CACTI 7 model, calibrated), or regwatt_power::cam::cam (CACTI 7 CAM path) below 32 sets per bank; CACTI's default tag width; comparators as the 32-bit integer add of designs/src/beyond_rf/exec.rs per 32 bits; Jing et al. 2016 §III-B (4 tag banks, each governing 8 data banks), Table III".into(),
    });

    let b = rgen_bits(cfg);
    inv.components.push(Component {
        name: "rgen".into(),
        description: format!("register re-indexing: one {b}-bit add per register access"),
        instances: sms,
        event_energy: [("index".to_string(), add * (f64::from(b) / 32.0))]
            .into_iter()
            .collect(),
        leakage: Power::ZERO,
        area: Area::ZERO,
        source:
            "32-bit integer add of designs/src/beyond_rf/exec.rs scaled by width; Jing et al. 2016 §III-C"
                .into(),
    });
    Ok(inv)
}

/// Maps a cerf run's activity onto the inventory's events.
pub fn events(
    cfg: &ResolvedConfig,
    core: &CoreActivity,
    mem: &MemActivity,
    s: &CerfStats,
) -> EventCounts {
    let slices = u64::from(cfg.rf.slices_per_bank);
    let data = BaselineStats {
        reads: s.reg_reads + s.array_line_reads,
        writes: s.array_writes,
        slice_reads: (s.reg_reads + s.array_line_reads) * slices,
        slice_writes: s.array_writes * slices,
        unallocated_accesses: s.unallocated_accesses,
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
        (core.crossbar_transfers + s.load_hits) * slices,
    );
    put(
        "arbiter",
        "grant",
        core.bank_reads.iter().sum::<u64>() + mem.rf_design_array_accesses,
    );
    put("tag_array", "lookup", s.tag_lookups);
    put("tag_array", "write", s.tag_writes);
    put("rgen", "index", s.reg_reads + s.reg_writes);
    e
}

/// On-chip storage in bits as Jing et al. 2016 §III-E counts it, for `address_bits`-bit addresses:
/// `(cerf, baseline)`. cerf: the data array, a tag per entry (`address_bits − log2(line) −
/// log2(sets)` bits) and 2 state bits per entry; baseline: the RF, the L1D data and a tag plus
/// valid and dirty bits per L1D line. Seed: 130.375 KB against "about 144 KB"
/// (128 + 16 + 0.3).
pub fn seed_storage_bits(cfg: &ResolvedConfig, ways: u32, address_bits: u32) -> (u64, u64) {
    let lg = |x: u64| u64::from(63 - x.max(1).leading_zeros());
    let entries = u64::from(cfg.gpu.sm.limits.registers / 32);
    let line = ENTRY_BYTES;
    let sets = entries / u64::from(ways.max(1));
    let tag = u64::from(address_bits) - lg(line) - lg(sets);
    let cerf = entries * line * 8 + entries * (tag + 2);
    let l1 = &cfg.gpu.memory.l1d;
    let l1_lines = u64::from(l1.sets) * u64::from(l1.ways);
    let l1_tag = u64::from(address_bits) - lg(u64::from(l1.line_bytes)) - lg(u64::from(l1.sets));
    let base =
        entries * line * 8 + l1_lines * u64::from(l1.line_bytes) * 8 + l1_lines * (l1_tag + 2);
    (cerf, base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{resolve, GpuPreset, Overrides};
    use crate::registry::DesignSpec;

    fn cfg() -> ResolvedConfig {
        let ov = Overrides {
            design: Some(DesignSpec::Cerf),
            scope: Some(crate::config::Scope::Gpu),
            ..Overrides::default()
        };
        resolve(GpuPreset::Gtx480, &ov).expect("config")
    }

    #[test]
    fn seed_storage_130_375_kb_against_about_144_kb() {
        let (cerf, base) = seed_storage_bits(&cfg(), 4, 32);
        // §III-E: 17-bit tags x 1024 = 2.125 KB, 2 state bits x 1024 = 0.25 KB
        assert_eq!(cerf, 8 * 1024 * 128 + 1024 * 17 + 1024 * 2);
        assert_eq!(cerf as f64 / 8.0 / 1024.0, 130.375);
        // 128 + 16 KB + 128 lines x (20-bit tag + valid + dirty) = 144.34 KB
        assert_eq!(base, 8 * 1024 * 144 + 128 * 22);
        assert!((base as f64 / 8.0 / 1024.0 - 144.34375).abs() < 1e-9);
        // more ways, fewer sets, longer tags
        assert!(seed_storage_bits(&cfg(), 8, 32).0 > cerf);
    }

    /// Jing et al. 2016 Table III (CACTI 6.5) beside regwatt's primitives at 40 nm: printed for the
    /// README (`cargo test -p regwatt-designs table3_primitives -- --nocapture`), and checked
    /// for the relation the seed's argument rests on (§V-C: "the tag array only takes a very
    /// small portion in the total energy"): a set's tag lookup costs less than reading the
    /// line it finds. Leakage is per instance: one bank, one L1D, one cache's tags, or one
    /// tag bank of the integrated array.
    #[test]
    fn table3_primitives_beside_regwatt() {
        let c = cfg();
        let rf = inventory(&c).expect("cerf inventory");
        let mut bc = c.clone();
        bc.design = None;
        let beyond = crate::beyond_rf::inventory(&bc).expect("baseline beyond-RF");
        let find = |n: &str| {
            rf.components
                .iter()
                .chain(&beyond.sm.components)
                .chain(&beyond.gpu.components)
                .find(|x| x.name == n)
                .unwrap_or_else(|| panic!("{n}"))
                .clone()
        };
        let pj = |x: &Component, e: &str| x.event_energy[e].si() * 1e12;
        let rows = [
            (
                "128KB RF (4 KB bank, 16 B row)",
                "rf_banks",
                "read",
                "write",
                4.62,
                5.97,
                1.78,
            ),
            (
                "16KB L1D (128 B line)",
                "l1d_data",
                "sector_read",
                "sector_write",
                0.72,
                0.61,
                0.19,
            ),
            (
                "L1D tag (one set)",
                "l1d_tag",
                "lookup",
                "lookup",
                0.47,
                0.64,
                0.20,
            ),
            (
                "integrated tag (one tag bank)",
                "tag_array",
                "lookup",
                "write",
                0.75,
                0.78,
                0.32,
            ),
            (
                "L2 data (32 B sector)",
                "l2_data",
                "sector_read",
                "sector_write",
                5.52,
                3.95,
                2.66,
            ),
            (
                "L2 tag (one set)",
                "l2_tag",
                "lookup",
                "lookup",
                1.05,
                1.91,
                0.80,
            ),
        ];
        println!("| primitive | seed read pJ | regwatt read pJ | seed write pJ | regwatt write pJ | seed leakage mW/bank | regwatt leakage mW/instance |");
        println!("|---|---|---|---|---|---|---|");
        for (label, n, r, w, sr, sw, sl) in rows {
            let x = find(n);
            println!(
                "| {label} | {sr} | {:.2} | {sw} | {:.2} | {sl} | {:.3} |",
                pj(&x, r),
                pj(&x, w),
                x.leakage.si() * 1e3
            );
        }
        let tag = find("tag_array");
        let bank = find("rf_banks");
        assert!(
            pj(&tag, "lookup") < pj(&bank, "read") * 8.0,
            "a set lookup below a line read"
        );
        assert!(pj(&tag, "lookup") > 0.0);
        assert!(tag.area.si() > 0.0);
    }
}
