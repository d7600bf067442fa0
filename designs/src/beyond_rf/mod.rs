//! The GPU beyond the register file ("Beyond the RF"): L1D, shared memory,
//! execution units, L2 slices, the SM ↔ L2 interconnect and DRAM, each costed from the
//! activity counts of the timing model, for `--scope sm|gpu` ([`crate::config::Scope`]).
//!
//! The structures are sized from the resolved `[gpu]` configuration (so `--set` overrides
//! flow through); `[beyond_rf]` ([`crate::config::BeyondRf`]) holds what `[gpu]` lacks (die
//! area, DRAM energy per bit, ECC of the caches). Components are built at the configuration's
//! node and temperature with the same estimators as the register file, and evaluated by the
//! same accounting ([`crate::energy::Inventory::evaluate`]: events × energy per event +
//! instances × leakage × time).
//!
//! ## Components
//!
//! Level `sm` (per-SM structures; in the totals at `--scope sm` and `gpu`):
//!
//! | component | one instance (instances) | model | events = activity counts |
//! |---|---|---|---|
//! | `l1d_data` | the L1D data array of one SM (`sms`): `l1d.sets × ways × line_bytes`, rows of one `l1d.sector_bytes` sector, 1 RW port | `regwatt_power::sram::estimate`, RAM mode (CACTI 7 model, calibrated) | `sector_read` = `l1d_sector_read_hits`; `sector_write` = fills (`l1d_sector_reads − hits − merges`) + `l1d_sector_writes` (stores write through; charged as array writes, an upper bound for store misses) |
//! | `l1d_tag` | the L1D tags of one SM (`sms`): `l1d.sets` CAMs of `ways` entries × CACTI's default tag width | `regwatt_power::cam::cam` (CACTI 7 CAM path, NOR matchlines); one set's CAM is searched per lookup | `lookup` = `l1d_line_lookups` |
//! | `shared_memory` | one bank (`sms × shared.banks`): `limits.shared_bytes / banks` of `shared.bank_bytes` words, 1 RW port | SRAM RAM mode | `bank_access` = (`shared_accesses` + `shared_bank_conflict_cycles`) × `banks` |
//! | `exec_units` | the execution units of one SM (`sms`), dynamic energy only | per-op energies of [`exec`] scaled by `C·V²` | one event per datapath operation (`fp32_fma_op`, `int_mul_op`, ...) = thread operations of that kind ([`exec::op_counts`]) |
//!
//! Level `gpu` (in the totals at `--scope gpu`):
//!
//! | component | one instance (instances) | model | events |
//! |---|---|---|---|
//! | `l2_data` | the data array of one L2 slice (`l2_slices`): `l2_slice.sets × ways × line_bytes`, rows of one sector | SRAM RAM mode | `sector_read` = `l2_sector_read_hits` + `dram_sector_writes` (dirty victims are read out); `sector_write` = `l2_sector_writes` + `dram_sector_reads` (fills) |
//! | `l2_tag` | the tags of one slice (`l2_slices`): `sets` CAMs of `ways` entries | CAM | `lookup` = `l2_sector_reads + l2_sector_writes` (GPGPU-Sim looks up every sector request) |
//! | `interconnect` | the SM ↔ L2 request and reply networks (1) | see below | `read_round_trip` = `l2_sector_reads`, `write_round_trip` = `l2_sector_writes` |
//! | `dram` | one channel (`dram.channels`), off chip: no area, no leakage counted | `dram_energy_per_bit` × bits | `sector_read` = `dram_sector_reads`, `sector_write` = `dram_sector_writes`; one L2 sector (`l2_slice.sector_bytes`) each |
//!
//! ## Choices and their sources
//!
//! * **Sequential tag-then-data caches.** A lookup searches one set's tags; only the hit
//!   sector is then read from the data array (the data array is a RAM of sector-wide rows).
//!   CACTI's "normal" cache mode reads every way of the set in parallel, which for the
//!   128-way L1D of the rtx2060 preset (Accel-Sim's adaptive L1 configuration) would read
//!   16 KB per access; GPU L1/L2 caches are throughput caches that check tags before data
//!   (GPGPU-Sim's L1 and L2 models do: a hit, then a data access). The sector is the unit the
//!   timing model counts (32 B; 128 B on gtx480's non-sectored L1D).
//! * **CAM tag stores.** Each set's tags are a small CAM searched in place (Zhang & Asanović,
//!   "Highly-associative caches for low-power processors", Kool Chips Workshop, MICRO-33,
//!   2000: CAM tags for highly associative low-power caches). CACTI's SRAM tag array needs at
//!   least 32 sets per bank; the rtx2060 L1D has 4 (× 128 ways), so one model that works for
//!   every configuration is the per-set CAM. Tag width: CACTI's default
//!   ([`regwatt_power::sram::tag_bits_default`]). Tag writes at fills are not counted.
//! * **Shared memory.** `banks` banks of one word (`shared.bank_bytes`) per row. A warp access
//!   that the timing model serves in `1 + conflict cycles` cycles is charged one access of
//!   every bank per cycle: exact for unit-stride 4/8/16-byte accesses (1/2/4 cycles of 32
//!   words), an upper bound for accesses with bank conflicts or inactive lanes. Reads and
//!   writes are not counted apart; both are charged the read energy.
//! * **L1D sizes of the rtx2060 preset**: the L1D (64 KB) and shared memory (64 KB) are sized
//!   separately as the timing model configures them, although Turing's unified array holds
//!   96 KB (Accel-Sim `-gpgpu_unified_l1d_size 96`).
//! * **Interconnect.** A packet of `b` bits travels from its SM to its L2 slice (or back)
//!   over global wires of a mean total length `L = ½ √(die area)` (half the side of a square
//!   die: the crossbar sits mid-die, the SMs and slices around it) and through one crossbar
//!   of its network (request: `sms` inputs × `l2_slices` outputs; reply: the reverse), flits
//!   of one L2 sector plus a header (Accel-Sim `-icnt_flit_size 40` = 32 B + 8 B; GPGPU-Sim
//!   `shader.h` `READ_PACKET_SIZE 8`, `WRITE_PACKET_SIZE 8`). A read sends an 8 B request and
//!   gets a 40 B reply; a write sends 40 B and gets an 8 B acknowledgement. Per bit:
//!   `E_bit = p_toggle · ½ · (E_wire(L) + E_xbar / width)`, where `E_wire` and `E_xbar` are
//!   the models' full-swing `C·V²` energies (`regwatt_power::crossbar::repeated_wire` on
//!   global wires, as McPAT's NoC links: `noc.cc` builds them as pipelinable
//!   `interconnect`s, which `interconnect.cc` treats as global wires routed over logic;
//!   `regwatt_power::crossbar::crossbar`, ORION 2.0 multiplexer tree at wire pitch), a
//!   transition dissipates `½ C V²`, and random data toggles with probability
//!   `p_toggle = 0.5` (Keckler et al., "GPUs and the future of parallel computing", IEEE
//!   Micro 31(5), 2011: 240 fJ/bit/mm per transition, 310 pJ for 256 bits over 10 mm "assuming
//!   random data with a 50 percent transition probability"). Leakage and area: both
//!   crossbars and their `sms + l2_slices` links per network (flit-wide, `L / 2` each).
//! * **DRAM**: energy per bit from a published figure, not node-scaled (off chip):
//!   GDDR5 ≈ 14 pJ/bit (O'Connor et al., MICRO 2017, Fig. 1). No published GDDR6 per-bit
//!   figure could be verified, so the rtx2060 preset uses the same value (see
//!   `designs/presets/rtx2060.toml`). The source gives one average per bit (activations at
//!   its row locality included), so row hits (`dram_row_hits`) are not charged apart.
//! * **ECC** of the L1D, shared memory and L2 arrays: `beyond_rf.cache_ecc`.
//!
//! The RF crossbar of the baseline inventory charges `C·V²` per bit and transfer (CACTI's
//! convention, every bit switching); the interconnect here charges random data (¼ of that).

pub mod exec;

use std::collections::BTreeMap;

use regwatt_power::cam::{cam, CamResult, CamSpec, CamTech};
use regwatt_power::crossbar::{
    crossbar as power_crossbar, repeated_wire, CrossbarResult, CrossbarSpec, Geometry, LogicTech,
    RepeatedWire, Topology,
};
use regwatt_power::sram::{estimate, tag_bits_default, SramResult, SramSpec};
use regwatt_sim::timing::activity::{CoreActivity, MemActivity};
use regwatt_sim::timing::config::CacheConfig;
use regwatt_tech::units::{Area, Energy, Length, Power};
use regwatt_tech::{DeviceFlavor, Technology};

use crate::config::{BeyondRf, ResolvedConfig};
use crate::energy::circuits;
use crate::energy::{Component, EnergyError, EventCounts, Inventory};

/// Bytes of a packet header on the SM ↔ L2 network: GPGPU-Sim `shader.h`,
/// `READ_PACKET_SIZE 8` ("6 address, 2 bytes [shaderid + mshrid] + req_size") and
/// `WRITE_PACKET_SIZE 8`.
pub const PACKET_HEADER_BYTES: u32 = 8;

/// Probability that a bit of random data toggles between consecutive transfers (Keckler et
/// al., IEEE Micro 2011: "random data with a 50 percent transition probability").
pub const TOGGLE_PROBABILITY: f64 = 0.5;

/// Fraction of a full-swing `C·V²` dissipated per transition: charging a node draws `C·V²`
/// from the supply and discharging it draws nothing, `½ C V²` per transition on average
/// (Rabaey, Chandrakasan, Nikolić, "Digital Integrated Circuits", 2nd ed., §5.5.1).
pub const ENERGY_PER_TRANSITION: f64 = 0.5;

/// The hardware beyond the RF at one node: the per-SM level and the GPU level.
#[derive(Clone, Debug, PartialEq)]
pub struct BeyondRfInventory {
    /// L1D data and tags, shared memory, execution units.
    pub sm: Inventory,
    /// L2 slices (data and tags), interconnect, DRAM.
    pub gpu: Inventory,
}

fn sram_err(component: &str) -> impl FnOnce(regwatt_power::sram::SramError) -> EnergyError + '_ {
    move |source| EnergyError::Sram {
        component: component.to_string(),
        source,
    }
}

fn structure_err(
    component: &str,
) -> impl FnOnce(regwatt_power::crossbar::StructureError) -> EnergyError + '_ {
    move |source| EnergyError::Structure {
        component: component.to_string(),
        source,
    }
}

/// A RAM of `capacity` bytes in `row_bytes` rows, one read/write port, HP cells and
/// periphery, ECC per `beyond_rf.cache_ecc`, at the configuration's node and temperature.
fn ram_spec(cfg: &ResolvedConfig, b: &BeyondRf, capacity: u64, row_bytes: u32) -> SramSpec {
    let mut spec = SramSpec::ram(capacity, row_bytes, cfg.power.node.nm());
    spec.ecc = b.cache_ecc;
    spec.temperature = cfg.power.temperature;
    spec.cell_flavor = DeviceFlavor::ItrsHp;
    spec.peri_flavor = DeviceFlavor::ItrsHp;
    spec
}

/// Capacity of a cache configuration, bytes.
pub(crate) fn capacity(c: &CacheConfig) -> u64 {
    u64::from(c.sets) * u64::from(c.ways) * u64::from(c.line_bytes)
}

/// One set's tag CAM of a cache: `ways` entries of CACTI's default tag width for the
/// cache's capacity and associativity. Returns the CAM and the tag width.
pub(crate) fn set_tags(
    t: &CamTech,
    c: &CacheConfig,
    component: &str,
) -> Result<(CamResult, u32), EnergyError> {
    let bits = tag_bits_default(capacity(c), c.ways, 1);
    let r = cam(
        t,
        &CamSpec {
            entries: c.ways,
            tag_bits: bits,
            data_bits: 0,
        },
    )
    .map_err(structure_err(component))?;
    Ok((r, bits))
}

fn events_map(pairs: &[(&str, Energy)]) -> BTreeMap<String, Energy> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// A data-array component from an SRAM result.
fn array_component(
    name: &str,
    description: String,
    instances: u64,
    r: &SramResult,
    events: &[(&str, bool)],
) -> Component {
    let ev: Vec<(&str, Energy)> = events
        .iter()
        .map(|&(e, write)| (e, if write { r.write_energy } else { r.read_energy }))
        .collect();
    Component {
        name: name.into(),
        description,
        instances,
        event_energy: events_map(&ev),
        leakage: r.total_leakage_per_bank(),
        area: r.area,
        source: "regwatt_power::sram::estimate, RAM mode (CACTI 7 model, calibrated)".into(),
    }
}

/// A tag-store component: `sets` CAMs of one set each per instance.
pub(crate) fn tag_component(
    name: &str,
    instances: u64,
    c: &CacheConfig,
    set: &CamResult,
    bits: u32,
) -> Component {
    let sets = f64::from(c.sets);
    Component {
        name: name.into(),
        description: format!(
            "{} sets x {}-entry tag CAM, {bits}-bit tags",
            c.sets, c.ways
        ),
        instances,
        event_energy: events_map(&[("lookup", set.search_energy)]),
        leakage: (set.leakage + set.gate_leakage) * sets,
        area: set.area * sets,
        source: "regwatt_power::cam::cam (CACTI 7 CAM path); tag width CACTI default".into(),
    }
}

/// The SM ↔ L2 networks: energy per round trip and leakage/area of both networks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interconnect {
    /// Mean wire length a packet travels, `½ √(die area)`.
    pub distance: Length,
    /// Flit width, bits (one L2 sector + the header).
    pub flit_bits: u32,
    /// Energy per bit of a request-network traversal (wires + crossbar, random data).
    pub request_bit: Energy,
    /// Energy per bit of a reply-network traversal.
    pub reply_bit: Energy,
    /// An L2 sector read: header request + sector reply.
    pub read_round_trip: Energy,
    /// An L2 sector write: sector request + header acknowledgement.
    pub write_round_trip: Energy,
    /// Leakage (subthreshold + gate) of both networks.
    pub leakage: Power,
    /// Area of both networks (crosspoint matrices + link repeaters).
    pub area: Area,
}

/// The interconnect of `cfg` (see the module docs).
pub fn interconnect(
    cfg: &ResolvedConfig,
    b: &BeyondRf,
    tech: &Technology,
) -> Result<Interconnect, EnergyError> {
    let g = &cfg.gpu;
    let semi = circuits::logic_tech(tech)?;
    let global = LogicTech {
        wire: tech.wires.global.clone(),
        ..semi.clone()
    };
    let distance = Length::from_mm(0.5 * b.die_area.mm2().sqrt());
    // each packet crosses its source's link and its destination's link, L / 2 each
    let link: RepeatedWire = repeated_wire(&global, distance * 0.5);
    let sector_bits = g.memory.l2_slice.sector_bytes * 8;
    let header_bits = PACKET_HEADER_BYTES * 8;
    let flit_bits = sector_bits + header_bits;
    let xbar = |inputs: u32, outputs: u32| -> Result<CrossbarResult, EnergyError> {
        power_crossbar(
            &semi,
            &CrossbarSpec {
                inputs,
                outputs,
                width_bits: flit_bits,
                geometry: Geometry::Pitch,
                topology: Topology::MuxTree,
            },
        )
        .map_err(structure_err("interconnect"))
    };
    let req = xbar(g.sms, g.memory.l2_slices)?;
    let rep = xbar(g.memory.l2_slices, g.sms)?;
    let per_bit = |x: &CrossbarResult| {
        let full = link.energy * 2.0 + x.energy_per_transfer / f64::from(flit_bits);
        full * (TOGGLE_PROBABILITY * ENERGY_PER_TRANSITION)
    };
    let (request_bit, reply_bit) = (per_bit(&req), per_bit(&rep));
    let (h, f) = (f64::from(header_bits), f64::from(flit_bits));
    let ports = f64::from(g.sms + g.memory.l2_slices) * f;
    let links_leak = (link.leakage + link.gate_leakage) * (2.0 * ports);
    Ok(Interconnect {
        distance,
        flit_bits,
        request_bit,
        reply_bit,
        read_round_trip: request_bit * h + reply_bit * f,
        write_round_trip: request_bit * f + reply_bit * h,
        leakage: req.leakage + req.gate_leakage + rep.leakage + rep.gate_leakage + links_leak,
        area: req.area + rep.area + link.area * (2.0 * ports),
    })
}

/// Builds the hardware beyond the RF at the configuration's node and temperature. Needs the
/// `[beyond_rf]` table (present at scope `sm` and `gpu`).
pub fn inventory(cfg: &ResolvedConfig) -> Result<BeyondRfInventory, EnergyError> {
    let b = cfg.beyond_rf.as_ref().ok_or(EnergyError::MissingBeyondRf)?;
    let tech = Technology::for_node(cfg.power.node.nm(), cfg.power.temperature)?;
    let g = &cfg.gpu;
    let m = &g.memory;
    let sms = u64::from(g.sms);
    let cam_tech = CamTech::new(&tech, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp)
        .map_err(structure_err("tags"))?;

    let l1 = &m.l1d;
    let l1_data = estimate(&ram_spec(cfg, b, capacity(l1), l1.sector_bytes), &tech)
        .map_err(sram_err("l1d_data"))?;
    let (l1_set, l1_bits) = set_tags(&cam_tech, l1, "l1d_tag")?;
    let banks = m.shared.banks;
    let shared_bank = estimate(
        &ram_spec(
            cfg,
            b,
            u64::from(g.sm.limits.shared_bytes / banks.max(1)),
            m.shared.bank_bytes,
        ),
        &tech,
    )
    .map_err(sram_err("shared_memory"))?;
    let ops = exec::op_energies(&tech, cfg.power.temperature)?;

    let l2 = &m.l2_slice;
    let l2_data = estimate(&ram_spec(cfg, b, capacity(l2), l2.sector_bytes), &tech)
        .map_err(sram_err("l2_data"))?;
    let (l2_set, l2_bits) = set_tags(&cam_tech, l2, "l2_tag")?;
    let icnt = interconnect(cfg, b, &tech)?;
    let dram_sector = b.dram_energy_per_bit * f64::from(l2.sector_bytes * 8);

    let inv = |components| Inventory {
        node: cfg.power.node,
        temperature: cfg.power.temperature,
        core_clock_mhz: g.core_clock_mhz,
        components,
    };
    let sm = inv(vec![
        array_component(
            "l1d_data",
            format!(
                "L1D data array, {} B in {}-byte sector rows, 1 RW port, ECC {}",
                capacity(l1),
                l1.sector_bytes,
                b.cache_ecc
            ),
            sms,
            &l1_data,
            &[("sector_read", false), ("sector_write", true)],
        ),
        tag_component("l1d_tag", sms, l1, &l1_set, l1_bits),
        array_component(
            "shared_memory",
            format!(
                "shared-memory bank, {} B of {}-byte words, 1 RW port, ECC {}",
                g.sm.limits.shared_bytes / banks.max(1),
                m.shared.bank_bytes,
                b.cache_ecc
            ),
            sms * u64::from(banks),
            &shared_bank,
            &[("bank_access", false)],
        ),
        Component {
            name: "exec_units".into(),
            description: "execution units of one SM, energy per thread operation (no leakage or area model)".into(),
            instances: sms,
            event_energy: ops,
            leakage: Power::ZERO,
            area: Area::ZERO,
            source: "published per-op energies (Horowitz ISSCC 2014; Dally SC09; McPAT SFU/FPU ratio) scaled by C·V² of the technology files (designs/src/beyond_rf/exec.rs)".into(),
        },
    ]);
    let gpu = inv(vec![
        array_component(
            "l2_data",
            format!(
                "L2 slice data array, {} B in {}-byte sector rows, 1 RW port, ECC {}",
                capacity(l2),
                l2.sector_bytes,
                b.cache_ecc
            ),
            u64::from(m.l2_slices),
            &l2_data,
            &[("sector_read", false), ("sector_write", true)],
        ),
        tag_component("l2_tag", u64::from(m.l2_slices), l2, &l2_set, l2_bits),
        Component {
            name: "interconnect".into(),
            description: format!(
                "SM <-> L2 request and reply crossbars ({} x {}), {}-bit flits, {:.2} mm mean global-wire distance",
                g.sms, m.l2_slices, icnt.flit_bits, icnt.distance.mm()
            ),
            instances: 1,
            event_energy: events_map(&[
                ("read_round_trip", icnt.read_round_trip),
                ("write_round_trip", icnt.write_round_trip),
            ]),
            leakage: icnt.leakage,
            area: icnt.area,
            source: "regwatt_power::crossbar (ORION 2.0 mux tree) + repeated global wires over half the die side; random data (Keckler et al. 2011)".into(),
        },
        Component {
            name: "dram".into(),
            description: format!(
                "DRAM channel, {} per bit, {}-byte sectors (off chip: no area or leakage counted)",
                b.dram_energy_per_bit, l2.sector_bytes
            ),
            instances: u64::from(m.dram.channels),
            event_energy: events_map(&[("sector_read", dram_sector), ("sector_write", dram_sector)]),
            leakage: Power::ZERO,
            area: Area::ZERO,
            source: "beyond_rf.dram_energy_per_bit (preset: O'Connor et al., MICRO 2017, Fig. 1)".into(),
        },
    ]);
    Ok(BeyondRfInventory { sm, gpu })
}

/// Maps a run's activity onto the events of [`inventory`]'s two levels (see the module
/// table): `(sm level, gpu level)`.
pub fn events(
    cfg: &ResolvedConfig,
    core: &CoreActivity,
    mem: &MemActivity,
) -> Result<(EventCounts, EventCounts), EnergyError> {
    let mut sm = EventCounts::new();
    let mut gpu = EventCounts::new();
    let put = |e: &mut EventCounts, c: &str, ev: &str, n: u64| {
        e.entry(c.to_string())
            .or_default()
            .insert(ev.to_string(), n);
    };
    put(&mut sm, "l1d_data", "sector_read", mem.l1d_sector_read_hits);
    put(&mut sm, "l1d_data", "sector_write", l1d_sector_writes(mem));
    put(&mut sm, "l1d_tag", "lookup", mem.l1d_line_lookups);
    let shared_cycles = mem.shared_accesses + mem.shared_bank_conflict_cycles;
    put(
        &mut sm,
        "shared_memory",
        "bank_access",
        shared_cycles * u64::from(cfg.gpu.memory.shared.banks),
    );
    for (ev, n) in exec::op_counts(&core.thread_ops_by_kind)? {
        put(&mut sm, "exec_units", &ev, n);
    }
    put(
        &mut gpu,
        "l2_data",
        "sector_read",
        mem.l2_sector_read_hits + mem.dram_sector_writes,
    );
    put(
        &mut gpu,
        "l2_data",
        "sector_write",
        mem.l2_sector_writes + mem.dram_sector_reads,
    );
    put(
        &mut gpu,
        "l2_tag",
        "lookup",
        mem.l2_sector_reads + mem.l2_sector_writes,
    );
    put(
        &mut gpu,
        "interconnect",
        "read_round_trip",
        mem.l2_sector_reads,
    );
    put(
        &mut gpu,
        "interconnect",
        "write_round_trip",
        mem.l2_sector_writes,
    );
    put(&mut gpu, "dram", "sector_read", mem.dram_sector_reads);
    put(&mut gpu, "dram", "sector_write", mem.dram_sector_writes);
    Ok((sm, gpu))
}

/// Sectors written into the L1D's data array: fills (sector reads that neither hit nor merged
/// with a miss in flight) and stores (write-through, charged as array writes: an upper bound
/// for store misses).
pub(crate) fn l1d_sector_writes(mem: &MemActivity) -> u64 {
    mem.l1d_sector_reads
        .saturating_sub(mem.l1d_sector_read_hits)
        .saturating_sub(mem.l1d_sector_read_merges)
        + mem.l1d_sector_writes
}

impl BeyondRfInventory {
    /// Without the SM-level components whose names start with one of `prefixes`: the
    /// structures a design's own inventory holds ([`crate::registry::Design::REPLACES`]:
    /// cerf's merged array and the unified array are the L1D).
    pub fn without(mut self, prefixes: &[&str]) -> BeyondRfInventory {
        self.sm
            .components
            .retain(|c| !prefixes.iter().any(|p| c.name.starts_with(p)));
        self
    }
}

/// `events` without the components `prefixes` name ([`BeyondRfInventory::without`]).
pub fn drop_replaced(events: &mut EventCounts, prefixes: &[&str]) {
    events.retain(|k, _| !prefixes.iter().any(|p| k.starts_with(p)));
}

#[cfg(test)]
mod tests;
