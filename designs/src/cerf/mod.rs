//! Design `cerf` (Jing et al. 2016, Jing et al., "Cache-Emulated Register File", 2016): the register
//! file and the L1D merged into one tagged, set-associative array. See
//! `designs/src/cerf/README.md` for the mechanism, every parameter and every decision the
//! seed leaves open.
//!
//! * **Array** ([`array::Array`], §III-B): the RF's storage (`gpu.sm.limits.registers / 32`
//!   entries of 128 B, 1024 on gtx480) as `banks` tag banks (the RF's logical banks, each
//!   governing its 8 data slices) × sets × `design.ways` ways. An entry holds a warp register
//!   or a cached 128-byte line, in one of Fig. 6's states.
//! * **Re-indexing** (RGen, §III-C): register `r` of warp slot `w` has the baseline's place,
//!   bank `(r + w) mod banks`, row `base(w) + r / banks`, and register address
//!   `a = row · banks + bank`, so consecutive registers go to consecutive tag banks; the tag
//!   bank is `a mod banks`, the set `(a / banks) mod sets_per_bank`, the rest is the tag. Its
//!   reg-mem line is `REGMEM_LINE + sm · entries + a` (a private region per SM above any
//!   allocation), where a spilled register lives.
//! * **Registers**: every read and write looks the tags up (the "tagging" stage,
//!   `design.tag_stage_cycles`, at the register's tag bank, which the core's bank arbitration
//!   models); a missing register is placed at its write, or fetched back from its reg-mem
//!   address at its read (`Delay::Memory`), evicting a victim.
//! * **Cache data**: global loads and stores look their lines up; a load hit reads the line
//!   from its bank (taking the port, Fig. 14), a line in flight is waited for (MSHR merge), a
//!   miss is sent to the L2 and its line placed now (ready when [`RegisterFileDesign::global_timed`]
//!   says); a store hit updates the line (clean → dirty), a store miss writes through
//!   without allocating; atomics, `.volatile` and local accesses bypass the array (an atomic
//!   drops its line).
//! * **Values**: registers live only in the array or, spilled, in the design's reg-mem
//!   store, so a register lost by an eviction without a spill computes a wrong result. Lines
//!   hold their bytes; every load checks the bytes it is served against memory, and the
//!   lower level's image of a line dirty here keeps the old bytes until the line is written
//!   back, so a dirty line dropped without its write-back serves stale bytes and fails the
//!   run ([`CerfStats::line_value_mismatches`], [`CerfStats::lost_dirty_lines`]).

pub mod array;
mod design;
pub use design::Cerf;
pub mod hardware;
pub mod seed_figures;
#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use regwatt_sim::timing::activity::{RegTracker, RfActivity};
use regwatt_sim::timing::config::BankMapping;
use regwatt_sim::timing::functional::{MemOpKind, MemSpaceKind, WarpMemAccess};
use regwatt_sim::timing::rf::{
    BankAccessKind, BankAccesses, Delay, GlobalAccess, GlobalRead, MemFetch, MemRoute, OperandRef,
    ReadOutcome, RegId, RegisterFileDesign, ReleaseCause, RfCtx, RfError, RfLayout, RfStats, Route,
    WarpSlot, WriteOutcome, WriteRef,
};
use serde::{Deserialize, Serialize};

use crate::baseline::RowAdmission;
use crate::common::StoreLog;
use crate::config::ResolvedConfig;
pub use array::Replacement;
use array::{Array, Incoming, State};

/// Bytes of an entry: one warp register (32 lanes × 4 B) or one cache line (§III-B).
pub const ENTRY_BYTES: u64 = 128;

/// First line number of the reg-mem region (byte address 2^46): every SM's registers map
/// one to one onto lines from here (§III-C: "an isolated space in the global memory via
/// address prefixing"). A multiple of any set count, so a register address keeps its set.
pub const REGMEM_LINE: u64 = 1 << 39;

/// Whether dead registers are freed (`design.liveness`, §III-D2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Liveness {
    /// As the seed: on with `lru-prioritized`, off with `lru-fair` ("these enhancements are
    /// only required by the LRU-prioritized policy").
    Auto,
    On,
    Off,
}

/// `[design]` parameters of `cerf` (defaults and sources: `defaults.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CerfParams {
    /// Ways per set (§III-E, Table I: 4; Fig. 8: 2, 4, 8).
    pub ways: u32,
    /// `lru-fair` or `lru-prioritized` (§III-D1).
    pub replacement: Replacement,
    /// Liveness bits from the release analysis (§III-D2).
    pub liveness: Liveness,
    /// Cycles the tagging stage adds to a register read (§III-B).
    pub tag_stage_cycles: u32,
    /// Cycles from the LD/ST unit to a cache-data hit's data (the L1D's path it replaces).
    pub hit_latency: u32,
}

/// Register banks the merged array supports.
const ARRAY_BANKS: usize = 8;

impl CerfParams {
    /// Whether dead registers are freed under these parameters.
    pub fn liveness_on(&self) -> bool {
        match self.liveness {
            Liveness::On => true,
            Liveness::Off => false,
            Liveness::Auto => self.replacement == Replacement::LruPrioritized,
        }
    }

    /// Range checks against the configuration (`key`, message).
    pub fn validate(&self, cfg: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        let s = &cfg.gpu.sm;
        if !self.ways.is_power_of_two() || self.ways > 32 {
            return Err((
                "design.ways",
                format!("{}: a power of two in 1..=32", self.ways),
            ));
        }
        let banks = s.register_file.banks_per_sub_core;
        if banks as usize > ARRAY_BANKS {
            return Err((
                "design",
                format!("`cerf` supports up to {ARRAY_BANKS} register banks, not {banks}"),
            ));
        }
        let entries = s.limits.registers / 32;
        if entries == 0 || !entries.is_multiple_of(banks * self.ways) {
            return Err((
                "design.ways",
                format!(
                    "{} entries (gpu.sm.limits.registers / 32) do not split into {banks} tag banks of {}-way sets",
                    entries, self.ways
                ),
            ));
        }
        let line = cfg.gpu.memory.l1d.line_bytes;
        if u64::from(line) != ENTRY_BYTES {
            return Err((
                "design",
                format!("an entry is one 128-byte warp register; the L1D line is {line} B"),
            ));
        }
        if self.tag_stage_cycles > 16 {
            return Err(("design.tag_stage_cycles", "must be in 0..=16".into()));
        }
        if !(1..=1000).contains(&self.hit_latency) {
            return Err(("design.hit_latency", "must be in 1..=1000".into()));
        }
        Ok(())
    }
}

/// Event counts and state of the cerf design (summed over SMs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CerfStats {
    /// Entries of the arrays (all SMs).
    pub entries: u64,
    /// Register reads and writes (each one tag lookup and one data-array access).
    pub reg_reads: u64,
    pub reg_writes: u64,
    /// Registers evicted to their reg-mem address (LRU-fair), fetched back on a read, and
    /// fetched back for a partial write (the other lanes).
    pub reg_spills: u64,
    pub reg_fills: u64,
    pub reg_partial_fills: u64,
    /// Registers freed by the liveness bits (§III-D2).
    pub dead_releases: u64,
    /// Reads of a register that holds no value (never written, or dead).
    pub inactive_reads: u64,
    /// Global load instructions through the array, their lines, and of the lines: hits,
    /// hits on a line in flight (MSHR merges), misses.
    pub load_instructions: u64,
    pub load_lines: u64,
    pub load_hits: u64,
    pub load_inflight_hits: u64,
    pub load_misses: u64,
    /// Missed lines placed in the array, missed lines not placed (no way they may take),
    /// placed lines whose fill was dropped before it arrived (a register took the way).
    pub fills: u64,
    pub fills_bypassed: u64,
    pub fills_cancelled: u64,
    /// Global store instructions through the array, their lines, hits, misses (written
    /// through without allocation).
    pub store_instructions: u64,
    pub store_lines: u64,
    pub store_hits: u64,
    pub store_misses: u64,
    /// Dirty lines written back when replaced, and at the end of the kernel.
    pub dirty_writebacks: u64,
    pub flush_writebacks: u64,
    /// Lines dropped by an atomic of this SM, by another SM's store or atomic.
    pub atomic_invalidations: u64,
    pub remote_invalidations: u64,
    /// Memory instructions that bypass the array: atomics, `.volatile`/ordered/`.cv`, local.
    pub uncached_instructions: u64,
    /// Replacements by (victim, newcomer), Jing et al. 2016 Fig. 13: register by register, register
    /// by line, line by register, line by line.
    pub evict_reg_by_reg: u64,
    pub evict_reg_by_line: u64,
    pub evict_line_by_reg: u64,
    pub evict_line_by_line: u64,
    /// Data-array writes (registers, line fills, store hits, register fills): Fig. 13's
    /// denominator; data-array line reads (load hits, write-backs, spills).
    pub array_writes: u64,
    pub array_line_reads: u64,
    /// Tag lookups (every register access, every line looked up, every remote invalidation
    /// probe).
    pub tag_lookups: u64,
    /// Tag-bank row writes: a tag installed or an entry's state bits changed.
    pub tag_writes: u64,
    /// Σ entry-cycles in each state: inactive, reg, cache, dirty (Fig. 11's utilisation is
    /// `1 − inactive / Σ`).
    pub state_cycles: [u64; 4],
    /// Bytes a load was served from the array that differ from memory (must stay 0).
    pub line_value_mismatches: u64,
    /// Lines written here and never written back (must stay 0).
    pub lost_dirty_lines: u64,
    /// Accesses to registers the warp does not own (must stay 0).
    pub unallocated_accesses: u64,
}

impl RfStats for CerfStats {
    fn merge(&mut self, o: &Self) {
        macro_rules! add {
            ($($f:ident),*) => { $( self.$f += o.$f; )* };
        }
        add!(
            entries,
            reg_reads,
            reg_writes,
            reg_spills,
            reg_fills,
            reg_partial_fills,
            dead_releases,
            inactive_reads,
            load_instructions,
            load_lines,
            load_hits,
            load_inflight_hits,
            load_misses,
            fills,
            fills_bypassed,
            fills_cancelled,
            store_instructions,
            store_lines,
            store_hits,
            store_misses,
            dirty_writebacks,
            flush_writebacks,
            atomic_invalidations,
            remote_invalidations,
            uncached_instructions,
            evict_reg_by_reg,
            evict_reg_by_line,
            evict_line_by_reg,
            evict_line_by_line,
            array_writes,
            array_line_reads,
            tag_lookups,
            tag_writes,
            line_value_mismatches,
            lost_dirty_lines,
            unallocated_accesses
        );
        for (a, b) in self.state_cycles.iter_mut().zip(o.state_cycles) {
            *a += b;
        }
    }
}

impl CerfStats {
    /// Fraction of entry-cycles holding a register or cache data (Fig. 11).
    pub fn utilisation(&self) -> f64 {
        let all: u64 = self.state_cycles.iter().sum();
        if all == 0 {
            return 0.0;
        }
        1.0 - self.state_cycles[State::Inactive.index()] as f64 / all as f64
    }

    /// Load lines served from the array (present or in flight) over load lines (Fig. 12).
    pub fn hit_rate(&self) -> f64 {
        if self.load_lines == 0 {
            return 0.0;
        }
        (self.load_hits + self.load_inflight_hits) as f64 / self.load_lines as f64
    }

    /// Why a run of this design cannot be trusted, if it cannot.
    pub fn integrity(&self) -> Result<(), String> {
        if self.line_value_mismatches > 0 || self.lost_dirty_lines > 0 {
            return Err(format!(
                "design `cerf`: {} bytes served from the array differ from memory and {} dirty lines were never written back (a lost store or a stale line)",
                self.line_value_mismatches, self.lost_dirty_lines
            ));
        }
        Ok(())
    }
}

/// Where a register address's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RegAt {
    /// No value (never written, dead, or the warp has none).
    Empty,
    /// In this array entry.
    In(u32),
    /// In its reg-mem line below the array.
    Spilled,
}

/// The cerf array of one SM and everything around it.
#[derive(Debug)]
pub struct CerfRf {
    p: CerfParams,
    liveness: bool,
    sm: u32,
    banks: usize,
    ports: u8,
    slot_mask: usize,
    /// First reg-mem line of this SM.
    reg_line: u64,
    admission: RowAdmission,
    /// Per warp slot: (first row, rows per bank); rows 0 = no warp.
    warps: Vec<(usize, usize)>,
    arr: Array,
    /// Per register address.
    reg_at: Vec<RegAt>,
    /// Spilled registers' values (their reg-mem lines in the L2/DRAM).
    backing: HashMap<u32, [u32; 32]>,
    /// The lower level's bytes of each line dirty here (the value before this SM's
    /// stores), until the line is written back.
    below: HashMap<u64, [u32; 32]>,
    /// Entries placed by the current memory instruction, waiting for its fill time.
    pending: Vec<(usize, u64)>,
    /// Memory writes the current memory instruction's evictions cause, until the core takes
    /// them ([`RegisterFileDesign::take_writeback`]).
    writebacks: Vec<MemFetch>,
    /// Last fill latency seen (cycles), the estimate of a register fill's.
    fill_estimate: u64,
    log: Rc<RefCell<StoreLog>>,
    /// Occupancy and power states per entry (an entry is allocated while it holds a
    /// register or a line: the power modes gate and drowse entries, not registers).
    tracker: RegTracker,
    /// Exposed wake-ups: the sleep rule and latency a register read of a sleeping entry waits.
    wake: Option<(regwatt_sim::timing::activity::SleepRule, u32)>,
    /// Scratch: (line, lanes) of the current instruction.
    lines: Vec<(u64, u32)>,
    stats: CerfStats,
}

impl CerfRf {
    /// The cerf array of SM `sm` of `cfg` (validated with `p`); `log` is shared by every SM
    /// of the launch.
    pub fn new(
        cfg: &ResolvedConfig,
        p: &CerfParams,
        sm: u32,
        log: Rc<RefCell<StoreLog>>,
    ) -> CerfRf {
        let s = &cfg.gpu.sm;
        let banks = s.register_file.banks_per_sub_core.max(1) as usize;
        let entries = (s.limits.registers / 32) as usize;
        let rows = entries / banks;
        CerfRf {
            p: p.clone(),
            liveness: p.liveness_on(),
            sm,
            banks,
            ports: s.register_file.ports_per_bank.clamp(1, 255) as u8,
            slot_mask: match s.register_file.bank_mapping {
                BankMapping::WarpInterleaved => usize::MAX,
                BankMapping::RegisterModulo => 0,
            },
            reg_line: REGMEM_LINE + u64::from(sm) * entries as u64,
            admission: RowAdmission::new(1, banks, rows, s.limits.register_alloc_unit),
            warps: vec![(0, 0); s.limits.max_warps as usize],
            arr: Array::new(entries, banks, p.ways as usize),
            reg_at: vec![RegAt::Empty; entries],
            backing: HashMap::new(),
            below: HashMap::new(),
            pending: Vec::new(),
            writebacks: Vec::new(),
            fill_estimate: u64::from(cfg.gpu.memory.l1d_hit_latency),
            log,
            tracker: crate::power_modes::tracker(cfg, entries, s.register_file.rows_per_subarray),
            wake: crate::power_modes::exposed_wakeup(cfg),
            lines: Vec::with_capacity(32),
            stats: CerfStats {
                entries: entries as u64,
                ..CerfStats::default()
            },
        }
    }

    /// Register address of `reg` of `warp` (RGen), if the warp owns it.
    fn addr(&self, warp: WarpSlot, reg: RegId) -> Option<usize> {
        let (base, rows) = *self.warps.get(usize::from(warp.slot))?;
        let r = usize::from(reg);
        let off = r / self.banks;
        if off >= rows {
            return None;
        }
        let bank = (r + (usize::from(warp.slot) & self.slot_mask)) % self.banks;
        Some((base + off) * self.banks + bank)
    }

    /// Array key of register address `a`.
    fn reg_key(&self, a: usize) -> u64 {
        self.reg_line + a as u64
    }

    /// Empties entry `i` at `now`, for a newcomer of kind `incoming` (a replacement,
    /// counted by kind: Fig. 13) or for none (a line dropped by a bypassing access): a
    /// register is spilled (its value kept in the reg-mem store), a dirty line written back,
    /// a line in flight dropped. Returns the memory write the eviction causes.
    fn evict(
        &mut self,
        i: usize,
        incoming: Option<Incoming>,
        now: u64,
        act: &mut RfActivity,
    ) -> Option<MemFetch> {
        let e = *self.arr.entry(i);
        let write = MemFetch {
            addr: e.key * ENTRY_BYTES,
            bytes: ENTRY_BYTES as u32,
            write: true,
        };
        let written = match e.state {
            State::Inactive => return None,
            State::Reg => {
                let a = (e.key - self.reg_line) as usize;
                self.backing.insert(a as u32, self.arr.data[i]);
                if let Some(r) = self.reg_at.get_mut(a) {
                    *r = RegAt::Spilled;
                }
                self.stats.reg_spills += 1;
                true
            }
            State::Dirty => {
                self.below.remove(&e.key);
                self.stats.dirty_writebacks += 1;
                true
            }
            State::Cache => {
                if e.ready_at > now {
                    self.stats.fills_cancelled += 1;
                    self.pending.retain(|&(j, _)| j != i);
                }
                false
            }
        };
        match (e.state, incoming) {
            (_, None) => {}
            (State::Reg, Some(Incoming::Register)) => self.stats.evict_reg_by_reg += 1,
            (State::Reg, Some(Incoming::Line)) => self.stats.evict_reg_by_line += 1,
            (_, Some(Incoming::Register)) => self.stats.evict_line_by_reg += 1,
            (_, Some(Incoming::Line)) => self.stats.evict_line_by_line += 1,
        }
        if written {
            // read out for the spill or write-back
            self.stats.array_line_reads += 1;
            self.tracker.read(i, now, act);
        }
        self.tracker.free(i, now, act);
        self.arr.set_state(i, State::Inactive, now);
        written.then_some(write)
    }

    /// Places register address `a` (its value `v`) at `now`, ready at `ready_at`; returns
    /// the write of the entry it evicted, if any.
    fn place_reg(
        &mut self,
        a: usize,
        v: [u32; 32],
        (ready_at, now): (u64, u64),
        act: &mut RfActivity,
    ) -> Option<MemFetch> {
        let key = self.reg_key(a);
        let i = self
            .arr
            .victim(key, Incoming::Register, self.p.replacement, now)
            .unwrap_or_else(|| self.arr.set_of(key).start);
        let victim = self.evict(i, Some(Incoming::Register), now, act);
        self.arr.install(i, State::Reg, key, ready_at, now);
        self.tracker.allocate(i, now);
        self.tracker.write(i, now, act);
        self.arr.data[i] = v;
        self.reg_at[a] = RegAt::In(i as u32);
        self.stats.array_writes += 1;
        victim
    }

    /// Frees register address `a` (dead or its warp exited).
    fn drop_reg(&mut self, a: usize, now: u64, act: &mut RfActivity) {
        match self.reg_at.get(a).copied() {
            Some(RegAt::In(i)) => {
                self.tracker.free(i as usize, now, act);
                self.arr.set_state(i as usize, State::Inactive, now);
            }
            Some(RegAt::Spilled) => {
                self.backing.remove(&(a as u32));
            }
            _ => {}
        }
        if let Some(r) = self.reg_at.get_mut(a) {
            *r = RegAt::Empty;
        }
    }

    /// The reg-mem fetch of register address `a`.
    fn reg_fetch(&self, a: usize) -> MemFetch {
        MemFetch {
            addr: self.reg_key(a) * ENTRY_BYTES,
            bytes: ENTRY_BYTES as u32,
            write: false,
        }
    }

    /// Drops the lines another SM's stores or atomics touched (the functional model's
    /// memory is coherent; so is the array, at the cost of these probes).
    fn apply_remote(&mut self, now: u64, act: &mut RfActivity) {
        let unseen = self.log.borrow_mut().unseen(self.sm);
        for (lo, hi) in unseen {
            let mut line = lo / ENTRY_BYTES;
            while line * ENTRY_BYTES < hi {
                self.stats.tag_lookups += 1;
                if let Some(i) = self.arr.find(line, State::is_line) {
                    self.below.remove(&line);
                    self.tracker.free(i, now, act);
                    self.arr.set_state(i, State::Inactive, now);
                    self.pending.retain(|&(j, _)| j != i);
                    self.stats.remote_invalidations += 1;
                }
                line += 1;
            }
        }
    }

    /// The distinct lines of `acc`'s active lanes with the lanes touching each.
    fn collect_lines(&mut self, acc: &WarpMemAccess) {
        self.lines.clear();
        let n = u64::from(acc.bytes_per_lane.max(1));
        for l in 0..32 {
            if acc.mask >> l & 1 == 0 {
                continue;
            }
            let a = acc.addrs[l];
            let (first, last) = (a / ENTRY_BYTES, (a + n - 1) / ENTRY_BYTES);
            for line in first..=last {
                match self.lines.iter_mut().find(|x| x.0 == line) {
                    Some(x) => x.1 |= 1 << l,
                    None => self.lines.push((line, 1 << l)),
                }
            }
        }
    }

    /// The 128 bytes of `line` as the level below holds them: memory, except the lines
    /// dirty here, whose lower copy is older.
    fn line_below(&self, line: u64, mem: Option<&dyn GlobalRead>) -> [u32; 32] {
        if let Some(d) = self.below.get(&line) {
            return *d;
        }
        let mut b = [0u8; ENTRY_BYTES as usize];
        if let Some(m) = mem {
            m.read_global(line * ENTRY_BYTES, &mut b);
        }
        let mut w = [0u32; 32];
        for (k, c) in b.chunks_exact(4).enumerate() {
            w[k] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        w
    }

    /// Byte `k` (0..128) of entry `i`.
    fn byte(&self, i: usize, k: usize) -> u8 {
        (self.arr.data[i][k / 4] >> (8 * (k % 4))) as u8
    }

    /// Calls `f(self, offset in the line, memory's byte)` for every byte the lanes `lanes`
    /// of `acc` access inside line `line`, as memory holds it now.
    fn lane_bytes(
        &mut self,
        line: u64,
        lanes: u32,
        acc: &WarpMemAccess,
        mem: Option<&dyn GlobalRead>,
        mut f: impl FnMut(&mut Self, usize, u8),
    ) {
        let Some(m) = mem else {
            return;
        };
        // the line as memory holds it, read once for every lane
        let mut held = [0u8; ENTRY_BYTES as usize];
        m.read_global(line * ENTRY_BYTES, &mut held);
        let n = u64::from(acc.bytes_per_lane.clamp(1, 16));
        for l in 0..32 {
            if lanes >> l & 1 == 0 {
                continue;
            }
            let a = acc.addrs[l];
            for x in a..a.saturating_add(n) {
                if x / ENTRY_BYTES == line {
                    let off = (x % ENTRY_BYTES) as usize;
                    f(self, off, held[off]);
                }
            }
        }
    }

    /// Compares the bytes of `lanes` of `acc` that lie in entry `i`'s line with memory
    /// (the bytes a load is served), counting the ones that differ.
    fn check_lanes(
        &mut self,
        i: usize,
        line: u64,
        lanes: u32,
        acc: &WarpMemAccess,
        mem: Option<&dyn GlobalRead>,
    ) {
        self.lane_bytes(line, lanes, acc, mem, |d, off, b| {
            if d.byte(i, off) != b {
                d.stats.line_value_mismatches += 1;
            }
        });
    }

    /// Copies the bytes `lanes` of store `acc` wrote into entry `i`'s line (from memory,
    /// which holds them now).
    fn apply_store(
        &mut self,
        i: usize,
        line: u64,
        lanes: u32,
        acc: &WarpMemAccess,
        mem: Option<&dyn GlobalRead>,
    ) {
        self.lane_bytes(line, lanes, acc, mem, |d, off, b| {
            let w = &mut d.arr.data[i][off / 4];
            let sh = 8 * (off % 4);
            *w = (*w & !(0xFF << sh)) | (u32::from(b) << sh);
        });
    }

    /// A line access that bypasses the array drops the line here (written back if dirty).
    fn drop_line(&mut self, line: u64, now: u64, act: &mut RfActivity) {
        self.stats.tag_lookups += 1;
        if let Some(i) = self.arr.find(line, State::is_line) {
            let w = self.evict(i, None, now, act);
            self.writebacks.extend(w);
            self.stats.atomic_invalidations += 1;
        }
    }

    fn load(&mut self, ctx: &mut RfCtx, g: &GlobalAccess) -> MemRoute {
        let now = ctx.now;
        self.stats.load_instructions += 1;
        let mut reads = BankAccesses::none(BankAccessKind::LineAccesses);
        let mut miss_lanes = 0u32;
        let mut wait_until = 0u64;
        let lines = std::mem::take(&mut self.lines);
        for &(line, lanes) in &lines {
            self.stats.load_lines += 1;
            self.stats.tag_lookups += 1;
            match self.arr.find(line, State::is_line) {
                Some(i) if self.arr.entry(i).ready_at <= now => {
                    self.stats.load_hits += 1;
                    self.stats.array_line_reads += 1;
                    self.arr.touch(i);
                    self.tracker.read(i, now, ctx.act);
                    reads.add(self.arr.bank_of(line));
                    self.check_lanes(i, line, lanes, g.access, g.memory);
                }
                Some(i) => {
                    self.stats.load_inflight_hits += 1;
                    self.arr.touch(i);
                    wait_until = wait_until.max(self.arr.entry(i).ready_at);
                    self.check_lanes(i, line, lanes, g.access, g.memory);
                }
                None => {
                    self.stats.load_misses += 1;
                    miss_lanes |= lanes;
                    match self
                        .arr
                        .victim(line, Incoming::Line, self.p.replacement, now)
                    {
                        Some(i) => {
                            let w = self.evict(i, Some(Incoming::Line), now, ctx.act);
                            self.writebacks.extend(w);
                            let d = self.line_below(line, g.memory);
                            self.arr.install(i, State::Cache, line, u64::MAX, now);
                            self.tracker.allocate(i, now);
                            self.tracker.write(i, now, ctx.act);
                            self.arr.data[i] = d;
                            self.pending.push((i, line));
                            self.stats.fills += 1;
                            self.stats.array_writes += 1;
                            self.check_lanes(i, line, lanes, g.access, g.memory);
                        }
                        None => self.stats.fills_bypassed += 1,
                    }
                }
            }
        }
        self.lines = lines;
        // a line in flight whose fill time is not known yet (placed by an earlier
        // instruction of this cycle): the earliest it can be is a miss latency away
        if wait_until == u64::MAX {
            wait_until = now + self.fill_estimate;
        }
        MemRoute::Banks(BankAccesses {
            miss_lanes,
            latency: self.p.hit_latency,
            extra: self.p.tag_stage_cycles,
            wait_until,
            ..reads
        })
    }

    fn store(&mut self, ctx: &mut RfCtx, g: &GlobalAccess) -> MemRoute {
        let now = ctx.now;
        self.stats.store_instructions += 1;
        let mut reads = BankAccesses::none(BankAccessKind::LineAccesses);
        let mut miss_lanes = 0u32;
        let lines = std::mem::take(&mut self.lines);
        for &(line, lanes) in &lines {
            self.stats.store_lines += 1;
            self.stats.tag_lookups += 1;
            self.log
                .borrow_mut()
                .push(line * ENTRY_BYTES, (line + 1) * ENTRY_BYTES, self.sm);
            match self.arr.find(line, State::is_line) {
                Some(i) => {
                    // Fig. 6: cache → dirty; the level below keeps the old bytes until the
                    // write-back
                    self.stats.store_hits += 1;
                    self.stats.array_writes += 1;
                    if self.arr.entry(i).state == State::Cache {
                        self.below.insert(line, self.arr.data[i]);
                        self.arr.set_state(i, State::Dirty, now);
                    }
                    self.arr.touch(i);
                    self.tracker.write(i, now, ctx.act);
                    self.apply_store(i, line, lanes, g.access, g.memory);
                    reads.add(self.arr.bank_of(line));
                }
                None => {
                    self.stats.store_misses += 1;
                    miss_lanes |= lanes;
                }
            }
        }
        self.lines = lines;
        MemRoute::Banks(BankAccesses {
            miss_lanes,
            latency: self.p.hit_latency,
            extra: self.p.tag_stage_cycles,
            wait_until: 0,
            ..reads
        })
    }
}

impl RegisterFileDesign for CerfRf {
    type Stats = CerfStats;

    fn name(&self) -> String {
        "cerf".into()
    }

    fn layout(&self) -> RfLayout {
        RfLayout {
            banks_per_sub_core: self.banks as u16,
            ports_per_bank: self.ports,
        }
    }

    fn can_allocate(&self, warps: &[WarpSlot], regs_per_thread: u32) -> bool {
        self.admission
            .can_allocate(warps.iter().map(|_| 0), regs_per_thread)
    }

    fn allocate_warp(
        &mut self,
        ctx: &mut RfCtx,
        warp: WarpSlot,
        regs_per_thread: u32,
    ) -> Result<(), RfError> {
        let slot = usize::from(warp.slot);
        let (base, n) = self
            .admission
            .reserve_warp(warp, 0, self.warps.len(), regs_per_thread)?;
        self.warps[slot] = (base, n);
        for row in base..base + n {
            for b in 0..self.banks {
                self.drop_reg(row * self.banks + b, ctx.now, ctx.act);
            }
        }
        Ok(())
    }

    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot) {
        let slot = usize::from(warp.slot);
        let Some(&(base, n)) = self.warps.get(slot) else {
            return;
        };
        if n == 0 {
            return;
        }
        for row in base..base + n {
            for b in 0..self.banks {
                self.drop_reg(row * self.banks + b, ctx.now, ctx.act);
            }
        }
        self.admission.release(0, base, n);
        self.warps[slot] = (0, 0);
    }

    fn route_read(&mut self, _ctx: &mut RfCtx, op: &OperandRef) -> Route {
        match self.addr(op.warp, op.reg) {
            Some(a) => Route::Bank((a % self.banks) as u16),
            None => Route::Bank(0),
        }
    }

    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome {
        let now = ctx.now;
        let Some(a) = self.addr(op.warp, op.reg) else {
            self.stats.unallocated_accesses += 1;
            return ReadOutcome {
                values: [0; 32],
                delay: Delay::None,
            };
        };
        self.stats.reg_reads += 1;
        self.stats.tag_lookups += 1;
        let tag = self.p.tag_stage_cycles;
        match self.reg_at[a] {
            RegAt::In(i) => {
                let i = i as usize;
                self.arr.touch(i);
                let woken = match crate::power_modes::read_delay(&self.tracker, self.wake, i, now) {
                    Delay::Cycles(c) => u64::from(c),
                    _ => 0,
                };
                self.tracker.read(i, now, ctx.act);
                let wait = self.arr.entry(i).ready_at.saturating_sub(now) + woken;
                ReadOutcome {
                    values: self.arr.data[i],
                    delay: if wait + u64::from(tag) == 0 {
                        Delay::None
                    } else {
                        Delay::Cycles((wait + u64::from(tag)).min(u64::from(u32::MAX)) as u32)
                    },
                }
            }
            RegAt::Spilled => {
                // fetched back from its reg-mem line; the array takes it again
                let v = self.backing.remove(&(a as u32)).unwrap_or([0; 32]);
                let victim = self.place_reg(a, v, (now + self.fill_estimate, now), ctx.act);
                self.stats.reg_fills += 1;
                ReadOutcome {
                    values: v,
                    delay: Delay::Memory {
                        fetch: self.reg_fetch(a),
                        extra: tag,
                        victim,
                    },
                }
            }
            RegAt::Empty => {
                self.stats.inactive_reads += 1;
                ReadOutcome {
                    values: [0; 32],
                    delay: if tag == 0 {
                        Delay::None
                    } else {
                        Delay::Cycles(tag)
                    },
                }
            }
        }
    }

    fn route_write(&mut self, _ctx: &mut RfCtx, w: &WriteRef) -> Route {
        match self.addr(w.warp, w.reg) {
            Some(a) => Route::Bank((a % self.banks) as u16),
            None => Route::Bank(0),
        }
    }

    fn write(
        &mut self,
        ctx: &mut RfCtx,
        w: &WriteRef,
        values: &[u32; 32],
        mask: u32,
    ) -> WriteOutcome {
        let now = ctx.now;
        let Some(a) = self.addr(w.warp, w.reg) else {
            self.stats.unallocated_accesses += 1;
            return WriteOutcome::DONE;
        };
        self.stats.reg_writes += 1;
        self.stats.tag_lookups += 1;
        let merge = |old: &[u32; 32]| {
            let mut v = *old;
            for (l, x) in v.iter_mut().enumerate() {
                if mask >> l & 1 != 0 {
                    *x = values[l];
                }
            }
            v
        };
        match self.reg_at[a] {
            RegAt::In(i) => {
                let i = i as usize;
                self.arr.data[i] = merge(&self.arr.data[i]);
                self.arr.touch(i);
                self.tracker.write(i, now, ctx.act);
                self.stats.array_writes += 1;
                WriteOutcome::DONE
            }
            RegAt::Spilled if mask != u32::MAX => {
                // the lanes not written come back from the reg-mem line first
                let old = self.backing.remove(&(a as u32)).unwrap_or([0; 32]);
                let victim = self.place_reg(a, merge(&old), (now, now), ctx.act);
                self.stats.reg_partial_fills += 1;
                WriteOutcome {
                    delay: Delay::Memory {
                        fetch: self.reg_fetch(a),
                        extra: 0,
                        victim,
                    },
                    spill: None,
                    evict_to_bank: None,
                }
            }
            RegAt::Spilled | RegAt::Empty => {
                // Fig. 6: inactive → reg (a spilled register's old value is dead: all lanes
                // are written)
                self.backing.remove(&(a as u32));
                let spill = self.place_reg(a, merge(&[0; 32]), (now, now), ctx.act);
                WriteOutcome {
                    delay: Delay::None,
                    spill,
                    ..WriteOutcome::DONE
                }
            }
        }
    }

    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, _cause: ReleaseCause) {
        let Some(a) = self.addr(warp, reg) else {
            return;
        };
        if let RegAt::In(i) = self.reg_at[a] {
            self.tracker.dead(i as usize, ctx.now, ctx.act);
        }
        if self.liveness && self.reg_at[a] != RegAt::Empty {
            // Fig. 6: reg → inactive
            self.drop_reg(a, ctx.now, ctx.act);
            self.stats.dead_releases += 1;
        }
    }

    fn global_access(&mut self, ctx: &mut RfCtx, g: &GlobalAccess) -> MemRoute {
        let now = ctx.now;
        self.pending.clear();
        self.writebacks.clear();
        self.apply_remote(now, ctx.act);
        let acc = g.access;
        self.collect_lines(acc);
        let cached = acc.space == MemSpaceKind::Global && !g.info.coherent;
        match acc.kind {
            MemOpKind::Load if cached => self.load(ctx, g),
            MemOpKind::Store if cached => self.store(ctx, g),
            _ => {
                // atomics, `.volatile`/ordered/`.cv` and local accesses go to the L2; their
                // lines leave the array (written back if dirty)
                self.stats.uncached_instructions += 1;
                if acc.space == MemSpaceKind::Global {
                    let lines = std::mem::take(&mut self.lines);
                    for &(line, _) in &lines {
                        if acc.kind != MemOpKind::Load {
                            self.log.borrow_mut().push(
                                line * ENTRY_BYTES,
                                (line + 1) * ENTRY_BYTES,
                                self.sm,
                            );
                        }
                        self.drop_line(line, now, ctx.act);
                    }
                    self.lines = lines;
                }
                MemRoute::SkipL1 {
                    extra: self.p.tag_stage_cycles,
                }
            }
        }
    }

    fn global_timed(&mut self, ctx: &mut RfCtx, _g: &GlobalAccess, ready_at: u64) {
        for (i, line) in std::mem::take(&mut self.pending) {
            let e = self.arr.entry(i);
            if e.state == State::Cache && e.key == line && e.ready_at == u64::MAX {
                self.arr.set_ready(i, ready_at);
            }
        }
        self.fill_estimate = ready_at.saturating_sub(ctx.now).max(1);
    }

    fn take_writeback(&mut self) -> Option<MemFetch> {
        self.writebacks.pop()
    }

    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32] {
        match self.addr(warp, reg).map(|a| (a, self.reg_at[a])) {
            Some((_, RegAt::In(i))) => self.arr.data[i as usize],
            Some((a, RegAt::Spilled)) => self.backing.get(&(a as u32)).copied().unwrap_or([0; 32]),
            _ => [0; 32],
        }
    }

    fn record_series(&mut self, window: u64) {
        self.tracker.record_series(window);
    }

    fn sm_occupied(&mut self, ctx: &mut RfCtx, occupied: bool) {
        self.tracker.sm_occupied(ctx.now, occupied);
    }

    fn finish(&mut self, ctx: &mut RfCtx) {
        let now = ctx.now;
        // the end of the kernel writes every dirty line back (the next launch starts cold)
        for i in self.arr.all(State::Dirty) {
            let key = self.arr.entry(i).key;
            self.below.remove(&key);
            self.stats.flush_writebacks += 1;
            self.stats.array_line_reads += 1;
            self.arr.set_state(i, State::Cache, now);
        }
        self.stats.lost_dirty_lines += self.below.len() as u64;
        self.below.clear();
        self.arr.close(now);
        self.tracker.finish(now, ctx.act);
    }

    fn stats(&self) -> CerfStats {
        let mut s = self.stats.clone();
        s.state_cycles = self.arr.state_cycles;
        s.tag_writes = self.arr.tag_writes;
        s
    }
}
