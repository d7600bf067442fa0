//! Design `renaming` (Jeon & Annavaram 2014, Jeon & Annavaram, USC TR CENG-2014-05): each warp's
//! architectural registers are renamed onto a shared pool of physical registers, allocated
//! at the first write and released at the last read (compiler release flags), so that dead
//! registers can be powered off. See `designs/src/renaming/README.md` for the mechanism,
//! every parameter and every decision the seed leaves open.
//!
//! Storage is the baseline's banks (same banks, rows, slices; [`crate::baseline`]); what
//! changes is *which row* holds a register and *for how long*:
//!
//! * **Renaming table** (§6.1): one per SM, indexed by (warp slot, architectural register),
//!   entries of `⌈log2(physical registers per SM)⌉` bits, `design.table_banks` banks
//!   interleaved by entry index. Looked up when a source is routed to its bank (collector
//!   allocation) and at writeback; updated at allocation and release. Each table bank serves
//!   `design.table_lookups_per_cycle` lookups per cycle; a lookup beyond that waits whole
//!   cycles (the read is delayed).
//! * **Availability flags** (§6.1, Fig. 7): one bit per physical register. A write to a
//!   register with no mapping allocates one (§6.1: only on the first write, or the first
//!   write after a release; both paths of a divergent region share the mapping).
//! * **Bank and row.** The physical register is in the bank the baseline would use for that
//!   (warp, register) (GPGPU-Sim's `(reg + warp) mod banks`): operand bank conflicts stay
//!   the baseline's, and a bank never needs more rows than the baseline reserves in it, so an
//!   allocation always succeeds. The row is the mapping policy's (§7.2,
//!   [`MappingPolicy`]).
//! * **Release** (§4.3, §5): pir after the instruction reads its operands, pbr when the warp
//!   enters a block, everything at warp exit. With `design.release_dead_destinations`, also
//!   a destination written and never read (not in the seed's flag format).
//! * **Constrained table** (§7.1): `design.table_bytes`; registers ranked by
//!   [`plan::rank_exempt`] are exempt: one reserved physical register per warp from its
//!   launch to its exit, never looked up or released.
//! * **Admission** (CTA occupancy) is the baseline's rule (a warp's architected registers,
//!   first fit), so both designs run the same CTAs side by side and differences come from
//!   renaming alone.

mod design;
pub use design::Renaming;
pub mod hardware;
pub mod plan;
pub mod seed_figures;

use std::collections::HashMap;

use regwatt_sim::timing::activity::RegTracker;
use regwatt_sim::timing::config::BankMapping;
use regwatt_sim::timing::functional::{FunctionalWarpModel, GridShape};
use regwatt_sim::timing::rf::{
    prefetch_element, Delay, OperandRef, ReadOutcome, RegId, RegisterFileDesign, ReleaseCause,
    RfCtx, RfError, RfLayout, RfStats, Route, WarpSlot, WriteOutcome, WriteRef,
};
use serde::{Deserialize, Serialize};

use crate::baseline::RowAdmission;
use crate::config::{number_or_keyword, NumberOr, ResolvedConfig};
use plan::FlagLayout;

/// How a free physical row is chosen in the register's bank (Jeon & Annavaram 2014 §7.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MappingPolicy {
    /// Pack live registers into the fewest sub-arrays: the first free row of the bank's
    /// fullest sub-array that still has one (lowest sub-array on ties), so gating finds
    /// whole sub-arrays empty (§7.2, Fig. 5).
    #[default]
    Consolidate,
    /// Spread wear: search from one sub-array past the bank's last allocation (§7.2: "the
    /// bits that have a sub-array worth distance with the lastly allocated register id").
    WearLevel,
    /// The row the baseline gives the register (its warp's first-fit rows): with releases
    /// off, every access goes where the baseline's goes (the equivalence check).
    Static,
}

/// The renaming table's capacity (`design.table_bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableCap {
    /// At most this many bytes (§7.1: 1 KB).
    Bytes(u64),
    /// Eq. 1 for every register: nothing exempt.
    Unbounded,
}

impl Serialize for TableCap {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TableCap::Bytes(b) => s.serialize_u64(*b),
            TableCap::Unbounded => s.serialize_str("unbounded"),
        }
    }
}

impl<'de> Deserialize<'de> for TableCap {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match number_or_keyword(d, "unbounded", "a byte count")? {
            NumberOr::Number(n) if n > 0 => Ok(TableCap::Bytes(n as u64)),
            NumberOr::Number(n) => Err(serde::de::Error::custom(format!(
                "{n}: the table needs at least 1 byte (or \"unbounded\")"
            ))),
            NumberOr::Keyword => Ok(TableCap::Unbounded),
        }
    }
}

/// `[design]` parameters of `renaming` (defaults and sources: `defaults.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenamingParams {
    /// Renaming-table capacity (§7.1).
    pub table_bytes: TableCap,
    /// Renaming-table banks (§6.1).
    pub table_banks: u32,
    /// Lookups one table bank serves per core cycle (§6.1: 0.22 ns per lookup in a
    /// 1.25 ns cycle).
    pub table_lookups_per_cycle: u32,
    /// Physical-row choice (§7.2).
    pub mapping: MappingPolicy,
    /// Compiler release flags honoured (off: mappings live until the warp exits).
    pub release_flags: bool,
    /// Also release destinations written and never read (the seed's flags cover sources).
    pub release_dead_destinations: bool,
    /// Flag instructions fetched and decoded in the warp's instruction stream: each pir
    /// fetched on a release-flag cache miss and each pbr takes the warp's decode slot for a
    /// cycle (§6.2, Fig. 8). Off: they are counted but cost no cycle.
    pub flag_fetch: bool,
}

impl RenamingParams {
    /// Range checks (`key`, message) of the parameters.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(1..=64).contains(&self.table_banks) {
            return Err(("design.table_banks", "must be in 1..=64".into()));
        }
        if !(1..=64).contains(&self.table_lookups_per_cycle) {
            return Err(("design.table_lookups_per_cycle", "must be in 1..=64".into()));
        }
        if let TableCap::Bytes(b) = self.table_bytes {
            // the largest unconstrained table: 64 warps x 255 registers x 16 bits ≈ 32 KB
            if b > 1 << 20 {
                return Err((
                    "design.table_bytes",
                    format!("{b} B: at most 1 MiB (or \"unbounded\")"),
                ));
            }
        }
        Ok(())
    }
}

/// What the launch's kernel needs from the hardware, fixed at launch (see [`plan`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KernelPlan {
    /// Function index of the kernel.
    pub func: u32,
    /// Architectural registers per thread.
    pub registers: u32,
    /// Resident warps per SM the table is sized for (the launch's occupancy).
    pub warps: u32,
    /// Bits per table entry.
    pub entry_bits: u32,
    /// Eq. 1 for every register, bytes.
    pub unconstrained_table_bytes: u64,
    /// Eq. 1 for the renamed registers, bytes.
    pub table_bytes: u64,
    /// Renaming-exempt registers (§7.1).
    pub exempt: Vec<bool>,
    /// Release-flag layout of the kernel.
    pub flags: FlagLayout,
}

impl KernelPlan {
    /// The plan of the kernel `model` launches on `cfg`: the function with an analysis (the
    /// executor analyses exactly the launched kernel), its occupancy, the §7.1 exemptions and
    /// the release-flag layout. `None` when the model has no analysed function (nothing is
    /// exempt then and no flag instruction is counted).
    pub fn for_launch<F: FunctionalWarpModel>(
        cfg: &ResolvedConfig,
        p: &RenamingParams,
        model: &F,
    ) -> KernelPlan {
        let grid = model.grid();
        let lim = &cfg.gpu.sm.limits;
        let physical = lim.registers / 32;
        let bits = plan::entry_bits(physical);
        let warps = resident_warps(cfg, &grid);
        let regs = grid.regs_per_thread;
        let unconstrained = plan::table_bits(warps, regs, bits).div_ceil(8);
        let Some((func, a)) = model
            .analyses()
            .iter()
            .enumerate()
            .find_map(|(i, a)| a.as_ref().map(|a| (i as u32, a)))
        else {
            return KernelPlan {
                func: u32::MAX,
                registers: regs,
                warps,
                entry_bits: bits,
                unconstrained_table_bytes: unconstrained,
                table_bytes: unconstrained,
                exempt: vec![false; regs as usize],
                flags: FlagLayout::default(),
            };
        };
        let (life, writes) = plan::lifetimes(a, regs);
        let cap = match p.table_bytes {
            TableCap::Bytes(b) => Some(b * 8),
            TableCap::Unbounded => None,
        };
        let exempt = plan::rank_exempt(&life, &writes, warps, bits, cap);
        let renamed = regs - exempt.iter().filter(|e| **e).count() as u32;
        let flags = FlagLayout::new(
            a.arch_live.live_out.len(),
            &a.release.pir,
            &a.release.pbr,
            |pc| model.block_start(func, pc),
        );
        KernelPlan {
            func,
            registers: regs,
            warps,
            entry_bits: bits,
            unconstrained_table_bytes: unconstrained,
            table_bytes: plan::table_bits(warps, renamed, bits).div_ceil(8),
            exempt,
            flags,
        }
    }

    /// Exempt registers.
    pub fn exempt_count(&self) -> u32 {
        self.exempt.iter().filter(|e| **e).count() as u32
    }
}

/// Warps of the launch resident on one SM at once: CTAs per SM limited by every SM limit
/// (warps, threads, CTAs, registers at the allocation granularity, shared memory;
/// `SmLimits::ctas_per_sm`) and by the grid (`⌈CTAs / SMs⌉`), times warps per CTA. Eq. 1's "# warps per SM" (Jeon & Annavaram 2014 Table 3's
/// "# Warps" column is this count).
pub fn resident_warps(cfg: &ResolvedConfig, grid: &GridShape) -> u32 {
    let wpc = grid.warps_per_cta.max(1);
    let ctas = cfg
        .gpu
        .sm
        .limits
        .ctas_per_sm(wpc * 32, grid.regs_per_thread, grid.shared_bytes_per_cta)
        .min(grid.ctas.div_ceil(cfg.gpu.sms.max(1)));
    ctas * wpc
}

/// Event counts of the renaming design (summed over SMs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RenamingStats {
    /// Warp-register reads and writes (logical bank accesses).
    pub reads: u64,
    pub writes: u64,
    /// Physical bank row reads and writes (slices).
    pub slice_reads: u64,
    pub slice_writes: u64,
    /// Accesses to a register with no mapping (a value lost or never written; must be 0).
    pub unallocated_accesses: u64,
    /// Renaming-table lookups (source routing and destination writeback) and updates
    /// (allocation, release).
    pub table_lookups: u64,
    pub table_updates: u64,
    /// Lookups that waited for a table bank, and the cycles they added.
    pub table_conflicts: u64,
    pub table_delay_cycles: u64,
    /// Availability-flag searches (allocations) and bit updates (allocations and releases).
    pub flag_searches: u64,
    pub flag_updates: u64,
    /// Physical registers allocated (mappings created) and released.
    pub allocations: u64,
    pub releases: u64,
    /// Releases of a register with no mapping (a pbr of a register written only on the other
    /// path, a release flag on an exempt register: nothing to do).
    pub releases_unmapped: u64,
    /// Mappings still held at warp exit (freed then).
    pub freed_at_exit: u64,
    /// Exempt registers reserved (per warp) and their accesses.
    pub exempt_reserved: u64,
    /// Allocations that found no free row in the bank (must be 0).
    pub allocation_failures: u64,
    /// Release-flag cache lookups and misses (each miss fetches a pir flag instruction).
    pub flag_cache_lookups: u64,
    pub flag_cache_misses: u64,
    /// pbr flag instructions executed.
    pub pbr_instructions: u64,
    /// Largest number of physical registers mapped or reserved at once on one SM.
    pub physical_peak: u64,
    /// Jeon et al. 2019 (`sharing`) only, 0 otherwise: reference-count updates of shared rows,
    /// writers moved off a shared row (and of those, the ones that copied kept lanes), and
    /// allocations placed outside the register's baseline bank.
    pub ref_updates: u64,
    pub unshares: u64,
    pub unshare_copies: u64,
    pub bank_spills: u64,
    /// Static figures of the launch's kernel (the same on every SM); over several launches,
    /// those of the largest kernel (most instructions).
    pub exempt_registers: u32,
    pub table_bytes: u64,
    pub unconstrained_table_bytes: u64,
    pub pir_instructions_static: u32,
    pub pbr_instructions_static: u32,
    pub kernel_instructions: u32,
}

impl RfStats for RenamingStats {
    fn merge(&mut self, o: &Self) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.slice_reads += o.slice_reads;
        self.slice_writes += o.slice_writes;
        self.unallocated_accesses += o.unallocated_accesses;
        self.table_lookups += o.table_lookups;
        self.table_updates += o.table_updates;
        self.table_conflicts += o.table_conflicts;
        self.table_delay_cycles += o.table_delay_cycles;
        self.flag_searches += o.flag_searches;
        self.flag_updates += o.flag_updates;
        self.allocations += o.allocations;
        self.releases += o.releases;
        self.releases_unmapped += o.releases_unmapped;
        self.freed_at_exit += o.freed_at_exit;
        self.exempt_reserved += o.exempt_reserved;
        self.allocation_failures += o.allocation_failures;
        self.flag_cache_lookups += o.flag_cache_lookups;
        self.flag_cache_misses += o.flag_cache_misses;
        self.pbr_instructions += o.pbr_instructions;
        self.physical_peak = self.physical_peak.max(o.physical_peak);
        self.ref_updates += o.ref_updates;
        self.unshares += o.unshares;
        self.unshare_copies += o.unshare_copies;
        self.bank_spills += o.bank_spills;
        // static figures: those of the largest kernel (most instructions; the first on ties)
        if o.kernel_instructions > self.kernel_instructions {
            self.exempt_registers = o.exempt_registers;
            self.table_bytes = o.table_bytes;
            self.unconstrained_table_bytes = o.unconstrained_table_bytes;
            self.pir_instructions_static = o.pir_instructions_static;
            self.pbr_instructions_static = o.pbr_instructions_static;
            self.kernel_instructions = o.kernel_instructions;
        }
    }
}

/// One warp register's 32 lanes (as the baseline stores them).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Row([u32; 32]);

const ZERO_ROW: Row = Row([0; 32]);
const UNMAPPED: u32 = u32::MAX;

/// The release-flag cache (§6.2): `capacity` pir entries shared by the SM's warps, keyed by
/// pir group; a miss fetches the pir instruction. Replacement: least recently used (the
/// seed replaces an entry more than 18 instructions behind every buffered instruction, which
/// needs the fetch stage's instruction buffer; LRU is its nearest stand-in).
#[derive(Clone, Debug)]
struct FlagCache {
    capacity: usize,
    /// Per pir group of the kernel: the tick of its last use while cached (0: not cached).
    last_use: Vec<u64>,
    cached: usize,
    tick: u64,
}

impl FlagCache {
    /// Looks up `group`; returns whether it missed (and fills it).
    fn access(&mut self, group: u32) -> bool {
        let g = group as usize;
        if g >= self.last_use.len() {
            self.last_use.resize(g + 1, 0);
        }
        self.tick += 1;
        if self.last_use[g] != 0 {
            self.last_use[g] = self.tick;
            return false;
        }
        if self.cached >= self.capacity {
            // the least recently used cached group (a miss is rare: a scan is cheap)
            let victim = self
                .last_use
                .iter()
                .enumerate()
                .filter(|(_, &t)| t != 0)
                .min_by_key(|(_, &t)| t)
                .map(|(i, _)| i);
            if let Some(v) = victim {
                self.last_use[v] = 0;
                self.cached -= 1;
            }
        }
        self.last_use[g] = self.tick;
        self.cached += 1;
        true
    }
}

/// The renaming register file of one SM.
#[derive(Clone, Debug)]
pub struct RenamingRf {
    p: RenamingParams,
    plan: KernelPlan,
    sub_cores: usize,
    banks: usize,
    slices: usize,
    lanes_per_slice: usize,
    stored_lanes: u32,
    rows: usize,
    rows_per_subarray: usize,
    ports: u8,
    slot_mask: usize,
    /// Architectural registers per warp the table holds (`max_registers_per_thread`).
    max_regs: usize,
    /// Baseline admission: rows reserved per sub-core (first fit), and each slot's base/rows.
    admission: RowAdmission,
    warp_rows: Vec<(usize, usize)>,
    /// Physical rows: `t = (sc·banks + bank)·rows + row` (the tracker's index too).
    cells: Vec<Row>,
    /// Availability flags, one bit per row `t`.
    taken: Vec<u64>,
    /// Holders of each row: table mappings plus pins (Jeon et al. 2019's reference count; always 0
    /// or 1 in `renaming` alone, where a row has at most one mapping and no pin).
    refs: Vec<u16>,
    /// Allocation may take a row of another bank of the warp's sub-core when the baseline
    /// bank is full (`sharing`, where a shared row can outlive its producer's mapping; never
    /// needed without sharing, see [`RenamingRf::choose_row`]).
    spill_banks: bool,
    /// Rows freed since the owner last drained the list (`sharing` drops their AMT entries);
    /// recorded only when `record_frees` is set.
    record_frees: bool,
    freed: Vec<usize>,
    /// Taken rows per sub-array (`t / rows_per_subarray`).
    sub_taken: Vec<u32>,
    /// Per (sub-core, bank): the last row allocated (wear levelling).
    last_row: Vec<usize>,
    /// Renaming table: `slot × max_regs + reg` → row `t`, or [`UNMAPPED`].
    table: Vec<u32>,
    /// Rows mapped or reserved now, and the peak.
    physical_now: u64,
    /// Table-bank lookups this cycle (`cycle`), per bank.
    cycle: u64,
    bank_load: Vec<u32>,
    /// Operands whose lookup waited: (slot, reg) → cycle the lookup completes.
    lookup_ready: HashMap<(u16, u16), u64>,
    flag_cache: FlagCache,
    tracker: RegTracker,
    stats: RenamingStats,
    /// Exposed wake-ups ([`crate::power_modes::exposed_wakeup`]).
    wake: Option<(regwatt_sim::timing::activity::SleepRule, u32)>,
}

impl RenamingRf {
    /// The renaming RF of one SM of `cfg` running the kernel of `plan`.
    pub fn new(cfg: &ResolvedConfig, p: &RenamingParams, plan: &KernelPlan) -> RenamingRf {
        let s = &cfg.gpu.sm;
        let sub_cores = s.sub_cores.max(1) as usize;
        let banks = s.register_file.banks_per_sub_core.max(1) as usize;
        let slices = cfg.rf.slices_per_bank.clamp(1, 32) as usize;
        let lanes_per_slice = 32 / slices;
        let stored = slices * lanes_per_slice;
        let rows = (s.limits.registers / 32) as usize / sub_cores / banks;
        let rps = (s.register_file.rows_per_subarray.max(1) as usize).min(rows.max(1));
        let max_warps = s.limits.max_warps as usize;
        let max_regs = s.limits.max_registers_per_thread.max(1) as usize;
        let n = sub_cores * banks * rows;
        RenamingRf {
            p: p.clone(),
            plan: plan.clone(),
            sub_cores,
            banks,
            slices,
            lanes_per_slice,
            stored_lanes: if stored >= 32 {
                u32::MAX
            } else {
                (1u32 << stored) - 1
            },
            rows,
            rows_per_subarray: rps,
            ports: s.register_file.ports_per_bank.clamp(1, 255) as u8,
            slot_mask: match s.register_file.bank_mapping {
                BankMapping::WarpInterleaved => usize::MAX,
                BankMapping::RegisterModulo => 0,
            },
            max_regs,
            admission: RowAdmission::new(sub_cores, banks, rows, s.limits.register_alloc_unit),
            warp_rows: vec![(0, 0); max_warps],
            cells: vec![ZERO_ROW; n],
            taken: vec![0; n.div_ceil(64)],
            refs: vec![0; n],
            spill_banks: false,
            record_frees: false,
            freed: Vec::new(),
            sub_taken: vec![0; n.div_ceil(rps)],
            last_row: vec![0; sub_cores * banks],
            table: vec![UNMAPPED; max_warps * max_regs],
            physical_now: 0,
            cycle: u64::MAX,
            bank_load: vec![0; p.table_banks.max(1) as usize],
            lookup_ready: HashMap::new(),
            flag_cache: FlagCache {
                capacity: max_warps.max(1),
                last_use: vec![0; plan.flags.pir_instructions as usize],
                cached: 0,
                tick: 0,
            },
            tracker: crate::power_modes::tracker(cfg, n, rps as u32),
            wake: crate::power_modes::exposed_wakeup(cfg),
            stats: RenamingStats {
                exempt_registers: plan.exempt_count(),
                table_bytes: plan.table_bytes,
                unconstrained_table_bytes: plan.unconstrained_table_bytes,
                pir_instructions_static: plan.flags.pir_instructions,
                pbr_instructions_static: plan.flags.pbr_instructions_static,
                kernel_instructions: plan.flags.instructions,
                ..RenamingStats::default()
            },
        }
    }

    /// The baseline's bank of (slot, reg) and the register's row offset in its warp's rows.
    #[inline]
    fn bank_row(&self, slot: u16, reg: RegId) -> (usize, usize) {
        let r = usize::from(reg);
        (
            (r + (usize::from(slot) & self.slot_mask)) % self.banks,
            r / self.banks,
        )
    }

    #[inline]
    fn entry(&self, slot: u16, reg: RegId) -> Option<usize> {
        let r = usize::from(reg);
        (r < self.max_regs).then(|| usize::from(slot) * self.max_regs + r)
    }

    #[inline]
    fn is_exempt(&self, reg: RegId) -> bool {
        self.plan
            .exempt
            .get(usize::from(reg))
            .copied()
            .unwrap_or(false)
    }

    #[inline]
    fn mapped(&self, slot: u16, reg: RegId) -> Option<usize> {
        let e = self.entry(slot, reg)?;
        let t = *self.table.get(e)?;
        (t != UNMAPPED).then_some(t as usize)
    }

    fn is_taken(&self, t: usize) -> bool {
        self.taken[t / 64] >> (t % 64) & 1 != 0
    }

    fn set_taken(&mut self, t: usize, on: bool) {
        let s = t / self.rows_per_subarray;
        if on {
            self.taken[t / 64] |= 1 << (t % 64);
            self.sub_taken[s] += 1;
            self.physical_now += 1;
            self.stats.physical_peak = self.stats.physical_peak.max(self.physical_now);
        } else {
            self.taken[t / 64] &= !(1 << (t % 64));
            self.sub_taken[s] -= 1;
            self.physical_now -= 1;
        }
        self.stats.flag_updates += 1;
    }

    /// First free row `t` in `lo..hi`, if any.
    fn free_in(&self, lo: usize, hi: usize) -> Option<usize> {
        (lo..hi).find(|&t| !self.is_taken(t))
    }

    /// Chooses a free row for (warp, reg) in its baseline bank, per the mapping policy.
    fn choose_row(&mut self, warp: WarpSlot, reg: RegId) -> Option<usize> {
        let sc = usize::from(warp.sub_core);
        let (bank, off) = self.bank_row(warp.slot, reg);
        let first = (sc * self.banks + bank) * self.rows;
        let rps = self.rows_per_subarray;
        self.stats.flag_searches += 1;
        let t = match self.p.mapping {
            MappingPolicy::Static => {
                let (base, n) = self.warp_rows.get(usize::from(warp.slot)).copied()?;
                let t = first + base + off;
                (off < n && !self.is_taken(t)).then_some(t)
            }
            MappingPolicy::Consolidate => {
                // the fullest sub-array of the bank with a free row (lowest on ties)
                let subs = self.rows.div_ceil(rps);
                let s0 = first / rps;
                let mut best: Option<(u32, usize)> = None;
                for k in 0..subs {
                    let lo = k * rps;
                    let size = rps.min(self.rows - lo) as u32;
                    let n = self.sub_taken[s0 + k];
                    if n < size && best.is_none_or(|(bn, _)| n > bn) {
                        best = Some((n, k));
                    }
                }
                let (_, k) = best?;
                let lo = first + k * rps;
                self.free_in(lo, (lo + rps).min(first + self.rows))
            }
            MappingPolicy::WearLevel => {
                let b = sc * self.banks + bank;
                let start = (self.last_row[b] + rps) % self.rows;
                let r = (0..self.rows)
                    .map(|i| (start + i) % self.rows)
                    .find(|&r| !self.is_taken(first + r))?;
                self.last_row[b] = r;
                Some(first + r)
            }
        };
        let t = match t {
            None if self.spill_banks => self.spill_row(warp),
            t => t,
        };
        if t.is_none() {
            self.stats.allocation_failures += 1;
        }
        t
    }

    /// The first free row of the other banks of `warp`'s sub-core (nearest bank first), for
    /// a design whose shared rows can outlive their producer's mapping. Every (warp,
    /// register) maps or pins at most one row of its own sub-core, and a sub-core reserves as
    /// many rows as its warps' registers, so one is free while a mapping is missing.
    fn spill_row(&mut self, warp: WarpSlot) -> Option<usize> {
        let sc = usize::from(warp.sub_core);
        let lo = sc * self.banks * self.rows;
        let t = self.free_in(lo, lo + self.banks * self.rows);
        if t.is_some() {
            self.stats.bank_spills += 1;
        }
        t
    }

    /// Maps (warp, reg) onto a new physical row at `now`.
    fn allocate(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId) -> Option<usize> {
        let e = self.entry(warp.slot, reg)?;
        let t = self.choose_row(warp, reg)?;
        self.set_taken(t, true);
        self.refs[t] = 1;
        self.table[e] = t as u32;
        self.tracker.allocate(t, ctx.now);
        self.stats.allocations += 1;
        self.stats.table_updates += 1;
        Some(t)
    }

    /// Frees the mapping of (warp, reg), if any.
    fn unmap(&mut self, ctx: &mut RfCtx, slot: u16, reg: RegId) -> bool {
        let Some(e) = self.entry(slot, reg) else {
            return false;
        };
        let t = self.table[e];
        if t == UNMAPPED {
            return false;
        }
        self.table[e] = UNMAPPED;
        self.stats.table_updates += 1;
        self.drop_ref(ctx, t as usize);
        true
    }

    /// One holder of row `t` fewer; the last frees it.
    fn drop_ref(&mut self, ctx: &mut RfCtx, t: usize) {
        let r = &mut self.refs[t];
        *r = r.saturating_sub(1);
        if *r == 0 {
            self.set_taken(t, false);
            self.tracker.free(t, ctx.now, ctx.act);
            if self.record_frees {
                self.freed.push(t);
            }
        }
    }

    // ----- the extension for `sharing` (Jeon et al. 2019): rows with several holders -----

    /// Turns on what `sharing` needs: allocation beyond the baseline bank and the list of
    /// freed rows.
    pub(crate) fn enable_sharing(&mut self) {
        self.spill_banks = true;
        self.record_frees = true;
    }

    /// The rows freed since the last call.
    pub(crate) fn take_freed(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.freed)
    }

    /// The row (warp, reg) is mapped to.
    pub(crate) fn row_of(&self, slot: u16, reg: RegId) -> Option<usize> {
        self.mapped(slot, reg)
    }

    /// Holders of row `t`.
    pub(crate) fn holders(&self, t: usize) -> u16 {
        self.refs.get(t).copied().unwrap_or(0)
    }

    /// Whether `reg` is renaming-exempt (never shared).
    pub(crate) fn exempt(&self, reg: RegId) -> bool {
        self.is_exempt(reg)
    }

    /// Sub-core and bank (within the sub-core) of row `t`.
    pub(crate) fn row_bank(&self, t: usize) -> (usize, usize) {
        let b = t / self.rows.max(1);
        (b / self.banks, b % self.banks)
    }

    /// The baseline bank of (slot, reg).
    pub(crate) fn home_bank(&self, slot: u16, reg: RegId) -> usize {
        self.bank_row(slot, reg).0
    }

    /// Pins row `t` (one more holder: it is not freed until [`RenamingRf::unpin`]).
    pub(crate) fn pin(&mut self, t: usize) {
        if let Some(r) = self.refs.get_mut(t) {
            *r = r.saturating_add(1);
            self.stats.ref_updates += 1;
        }
    }

    /// Releases a pin of row `t`.
    pub(crate) fn unpin(&mut self, ctx: &mut RfCtx, t: usize) {
        if t < self.refs.len() {
            self.stats.ref_updates += 1;
            self.drop_ref(ctx, t);
        }
    }

    /// Maps (warp, reg) onto the existing row `t` (Jeon et al. 2019 §3: one physical register in
    /// several table entries), releasing its previous mapping. Returns false (nothing done)
    /// for an exempt or out-of-range register.
    pub(crate) fn share(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, t: usize) -> bool {
        if self.is_exempt(reg) || t >= self.refs.len() {
            return false;
        }
        let Some(e) = self.entry(warp.slot, reg) else {
            return false;
        };
        // the new holder first, so that releasing the old mapping cannot free `t`
        self.refs[t] = self.refs[t].saturating_add(1);
        self.stats.ref_updates += 1;
        if self.table[e] != UNMAPPED {
            self.unmap(ctx, warp.slot, reg);
        }
        self.table[e] = t as u32;
        self.stats.table_updates += 1;
        true
    }

    /// Reads row `t` as a register read (bank-read statistics, occupancy tracker, wake-up):
    /// the w-merge slot's reads.
    pub(crate) fn read_row(&mut self, ctx: &mut RfCtx, t: usize) -> ReadOutcome {
        let delay = crate::power_modes::read_delay(&self.tracker, self.wake, t, ctx.now);
        self.tracker.read(t, ctx.now, ctx.act);
        self.stats.reads += 1;
        ReadOutcome {
            values: self.cells.get(t).unwrap_or(&ZERO_ROW).0,
            delay,
        }
    }

    /// Moves (warp, reg) off the shared row `t` to a new row, copying the lanes outside
    /// `mask` (a copy through the bank when any lane must be kept).
    #[cold]
    fn unshare(
        &mut self,
        ctx: &mut RfCtx,
        warp: WarpSlot,
        reg: RegId,
        t: usize,
        mask: u32,
    ) -> Option<usize> {
        let old = self.cells.get(t).copied().unwrap_or(ZERO_ROW);
        let e = self.entry(warp.slot, reg)?;
        // the mapping is dropped (t keeps its other holders) and a new row allocated
        self.table[e] = UNMAPPED;
        self.stats.table_updates += 1;
        self.drop_ref(ctx, t);
        self.stats.unshares += 1;
        let n = self.allocate(ctx, warp, reg)?;
        if mask & self.stored_lanes != self.stored_lanes {
            // the kept lanes are read from the shared row and written with the new ones
            self.tracker.read(t, ctx.now, ctx.act);
            self.stats.reads += 1;
            self.stats.unshare_copies += 1;
            if let Some(row) = self.cells.get_mut(n) {
                *row = old;
            }
        }
        Some(n)
    }

    /// One table lookup for (slot, reg) at `now`: the cycles it waits for its table bank.
    fn lookup(&mut self, now: u64, slot: u16, reg: RegId) -> u64 {
        self.stats.table_lookups += 1;
        if self.cycle != now {
            self.cycle = now;
            self.bank_load.fill(0);
        }
        let nb = self.bank_load.len();
        let e = usize::from(slot) * self.max_regs + usize::from(reg);
        let load = &mut self.bank_load[e % nb];
        *load += 1;
        let wait = u64::from((*load - 1) / self.p.table_lookups_per_cycle);
        if wait > 0 {
            self.stats.table_conflicts += 1;
            self.stats.table_delay_cycles += wait;
        }
        wait
    }

    /// The row a register occupies now, looked up without side effects.
    fn locate(&self, warp: WarpSlot, reg: RegId) -> Option<usize> {
        self.mapped(warp.slot, reg)
    }

    /// Physical registers mapped or reserved now on this SM (for tests).
    pub fn physical_in_use(&self) -> u64 {
        self.physical_now
    }

    /// Checks the structural invariants: one row per mapping, flags popcount = mappings,
    /// mappings ≤ resident warps × registers. Returns a description of the first violation.
    pub fn check_invariants(&self, resident_warps: u64) -> Result<(), String> {
        let mut count = vec![0u32; self.cells.len()];
        let mut mappings = 0u64;
        for (e, &t) in self.table.iter().enumerate() {
            if t == UNMAPPED {
                continue;
            }
            let t = t as usize;
            let Some(c) = count.get_mut(t) else {
                return Err(format!("entry {e}: row {t} out of range"));
            };
            *c += 1;
            // without sharing a row has one mapping; with it, at most its holders
            if (!self.spill_banks && *c > 1) || *c > u32::from(self.refs[t]) {
                return Err(format!(
                    "entry {e}: row {t} mapped {c} times, {} holders",
                    self.refs[t]
                ));
            }
            mappings += 1;
        }
        let held = self.refs.iter().filter(|&&r| r > 0).count() as u64;
        let flags: u64 = self.taken.iter().map(|w| u64::from(w.count_ones())).sum();
        if flags != held || flags != self.physical_now {
            return Err(format!(
                "availability flags {flags} != rows held {held} (in use {})",
                self.physical_now
            ));
        }
        if !self.spill_banks && held != mappings {
            return Err(format!("{held} rows held != {mappings} mappings"));
        }
        let regs = u64::from(self.plan.registers);
        if mappings > resident_warps * regs {
            return Err(format!(
                "{mappings} mappings > {resident_warps} warps x {regs} registers"
            ));
        }
        Ok(())
    }
}

impl RegisterFileDesign for RenamingRf {
    type Stats = RenamingStats;

    fn name(&self) -> String {
        "renaming".into()
    }

    fn layout(&self) -> RfLayout {
        RfLayout {
            banks_per_sub_core: self.banks as u16,
            ports_per_bank: self.ports,
        }
    }

    fn can_allocate(&self, warps: &[WarpSlot], regs_per_thread: u32) -> bool {
        self.admission.can_allocate_warps(warps, regs_per_thread)
    }

    fn allocate_warp(
        &mut self,
        ctx: &mut RfCtx,
        warp: WarpSlot,
        regs_per_thread: u32,
    ) -> Result<(), RfError> {
        let sc = usize::from(warp.sub_core);
        let slot = usize::from(warp.slot);
        let (base, n) =
            self.admission
                .reserve_warp(warp, sc, self.warp_rows.len(), regs_per_thread)?;
        self.warp_rows[slot] = (base, n);
        // exempt registers: one reserved physical register each, for the warp's lifetime
        let regs = regs_per_thread.min(self.plan.exempt.len() as u32);
        for r in 0..regs {
            let reg = r as RegId;
            if self.is_exempt(reg) && self.mapped(warp.slot, reg).is_none() {
                if self.allocate(ctx, warp, reg).is_none() {
                    return Err(RfError::Other(format!(
                        "renaming: no physical register for exempt R{reg} of warp slot {}",
                        warp.slot
                    )));
                }
                self.stats.exempt_reserved += 1;
            }
        }
        Ok(())
    }

    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot) {
        let slot = usize::from(warp.slot);
        let Some((base, n)) = self.warp_rows.get(slot).copied() else {
            return;
        };
        for r in 0..self.max_regs {
            let reg = r as RegId;
            if self.unmap(ctx, warp.slot, reg) && !self.is_exempt(reg) {
                self.stats.freed_at_exit += 1;
            }
        }
        let sc = usize::from(warp.sub_core);
        if n > 0 && sc < self.sub_cores {
            self.admission.release(sc, base, n);
        }
        self.warp_rows[slot] = (0, 0);
    }

    fn issued(&mut self, _ctx: &mut RfCtx, _warp: WarpSlot, func: u32, pc: u32) -> u32 {
        if func != self.plan.func || !self.p.release_flags {
            return 0;
        }
        let pc = pc as usize;
        let mut fetched = 0u32;
        if let Some(Some(g)) = self.plan.flags.pir_group.get(pc) {
            self.stats.flag_cache_lookups += 1;
            if self.flag_cache.access(*g) {
                self.stats.flag_cache_misses += 1;
                fetched += 1;
            }
        }
        if let Some(&k) = self.plan.flags.pbr_instructions.get(pc) {
            self.stats.pbr_instructions += u64::from(k);
            fetched += u32::from(k);
        }
        if self.p.flag_fetch {
            fetched
        } else {
            0
        }
    }

    #[inline]
    fn route_read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> Route {
        let (bank, _) = self.bank_row(op.warp.slot, op.reg);
        if !self.is_exempt(op.reg) {
            let wait = self.lookup(ctx.now, op.warp.slot, op.reg);
            if wait > 0 {
                self.lookup_ready
                    .insert((op.warp.slot, op.reg), ctx.now + wait);
            }
        }
        Route::Bank(bank as u16)
    }

    #[inline]
    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome {
        // (the map holds only lookups that waited: almost always empty)
        let waited = if self.lookup_ready.is_empty() {
            None
        } else {
            self.lookup_ready.remove(&(op.warp.slot, op.reg))
        };
        let mut wait = match waited {
            Some(at) if at > ctx.now => (at - ctx.now) as u32,
            _ => 0,
        };
        let values = match self.locate(op.warp, op.reg) {
            Some(t) => {
                if let Delay::Cycles(c) =
                    crate::power_modes::read_delay(&self.tracker, self.wake, t, ctx.now)
                {
                    // the wake-up overlaps the table lookup
                    wait = wait.max(c);
                }
                self.tracker.read(t, ctx.now, ctx.act);
                self.stats.reads += 1;
                self.cells.get(t).unwrap_or(&ZERO_ROW).0
            }
            None => {
                self.stats.unallocated_accesses += 1;
                [0; 32]
            }
        };
        let delay = if wait > 0 {
            Delay::Cycles(wait)
        } else {
            Delay::None
        };
        ReadOutcome { values, delay }
    }

    #[inline]
    fn prefetch(&self, warp: WarpSlot, reg: RegId) {
        if let Some(t) = self.locate(warp, reg) {
            self.tracker.prefetch(t);
            prefetch_element(&self.cells, t);
        }
    }

    #[inline]
    fn route_write(&mut self, _ctx: &mut RfCtx, w: &WriteRef) -> Route {
        Route::Bank(self.bank_row(w.warp.slot, w.reg).0 as u16)
    }

    fn write(
        &mut self,
        ctx: &mut RfCtx,
        w: &WriteRef,
        values: &[u32; 32],
        mask: u32,
    ) -> WriteOutcome {
        let t = if self.is_exempt(w.reg) {
            self.mapped(w.warp.slot, w.reg)
        } else {
            // the destination's mapping is looked up (at issue, not timed) and created if
            // there is none (§6.1, Fig. 7)
            self.stats.table_lookups += 1;
            match self.mapped(w.warp.slot, w.reg) {
                // a row other holders share keeps its value: the writer moves to a row of
                // its own (Jeon et al. 2019, copy on write), with the lanes it does not write
                Some(t) if self.refs[t] > 1 => self.unshare(ctx, w.warp, w.reg, t, mask),
                Some(t) => Some(t),
                None => self.allocate(ctx, w.warp, w.reg),
            }
        };
        let Some(t) = t else {
            self.stats.unallocated_accesses += 1;
            return WriteOutcome::DONE;
        };
        self.tracker.write(t, ctx.now, ctx.act);
        self.stats.writes += 1;
        let m = mask & self.stored_lanes;
        self.stats.slice_writes += if m == u32::MAX {
            self.slices as u64
        } else {
            crate::baseline::slices_written(m, self.slices, self.lanes_per_slice)
        };
        if let Some(row) = self.cells.get_mut(t) {
            if m == u32::MAX {
                row.0 = *values;
            } else {
                for (i, (d, v)) in row.0.iter_mut().zip(values).enumerate() {
                    if m >> i & 1 != 0 {
                        *d = *v;
                    }
                }
            }
        }
        WriteOutcome::DONE
    }

    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, cause: ReleaseCause) {
        if !self.p.release_flags
            || self.is_exempt(reg)
            || (cause == ReleaseCause::DeadDst && !self.p.release_dead_destinations)
        {
            return;
        }
        if self.unmap(ctx, warp.slot, reg) {
            self.stats.releases += 1;
        } else {
            self.stats.releases_unmapped += 1;
        }
    }

    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32] {
        self.locate(warp, reg)
            .and_then(|t| self.cells.get(t))
            .map_or([0; 32], |r| r.0)
    }

    fn record_series(&mut self, window: u64) {
        self.tracker.record_series(window);
    }

    fn sm_occupied(&mut self, ctx: &mut RfCtx, occupied: bool) {
        self.tracker.sm_occupied(ctx.now, occupied);
    }

    fn finish(&mut self, ctx: &mut RfCtx) {
        self.tracker.finish(ctx.now, ctx.act);
    }

    fn stats(&self) -> RenamingStats {
        RenamingStats {
            slice_reads: self.stats.reads * self.slices as u64,
            ..self.stats.clone()
        }
    }
}

#[cfg(test)]
mod tests;
