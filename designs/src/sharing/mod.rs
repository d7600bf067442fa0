//! Design `sharing` (Jeon et al. 2019, Jeon et al., "Locality-aware GPU Register File", IEEE CAL
//! 2019): the renaming register file of Jeon & Annavaram 2014 ([`crate::renaming`]) plus an address
//! mapping table (AMT) in the LD/ST unit, so that a warp whose global load reads data another
//! warp already holds in a register maps its destination onto that physical register (perfect
//! sharing, §2.1) or builds it from two registers with a shift and an OR (partial sharing,
//! §2.2). See `designs/src/sharing/README.md` for the mechanism, every parameter and every
//! decision the seed leaves open.
//!
//! Storage is the renaming design's rows; a row may now have several holders (table mappings
//! and pins, the seed's reference count), and a writer of a shared row moves to a row of its
//! own (copy on write). The AMT ([`amt::Amt`]) is per SM; an entry's row lies in one
//! sub-core, and only warps of that sub-core share it (their operand network reaches only
//! their own banks).
//!
//! Per global load (after address calculation, [`RegisterFileDesign::global_access`]):
//! 1. `.volatile`, memory-ordered and `.cv` loads never share (§3);
//! 2. a load the AMT can describe ([`amt::Pattern`]: 4-byte words, prefix mask, constant
//!    stride ≤ 511 B) with an entry of the same pattern:
//!    * the entry's row is written: the destination is mapped onto it at writeback, no memory
//!      access, no register write (perfect sharing);
//!    * the entry's producing load is in flight: the load waits for that fill and takes its
//!      data (no memory access, its own register write);
//! 3. else, on an L1D miss, with the sub-core's w-merge slot free: at most two entries that
//!    cover the lanes at a shift: both rows are read through the bank arbitration into the
//!    SM's w-merge slot, shifted and ORed, and the result written back (partial sharing);
//! 4. else the load goes to memory and becomes the entry of its pattern (its row bound when
//!    it writes back).
//!
//! An entry is dropped by a store or atomic to any byte it reads, on any SM (stores are
//! broadcast to every SM's AMT, [`StoreLog`]), when its row is freed, and when its row is
//! overwritten in place.

pub mod amt;
mod design;
pub use design::Sharing;
pub mod hardware;
pub mod seed_figures;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use regwatt_sim::timing::functional::{FunctionalWarpModel, MemOpKind, MemSpaceKind};
use regwatt_sim::timing::rf::{
    BankAccessKind, BankAccesses, Delay, GlobalAccess, MemRoute, OperandRef, ReadOutcome, RegId,
    RegisterFileDesign, ReleaseCause, RfCtx, RfError, RfLayout, RfStats, Route, WarpSlot,
    WriteOutcome, WriteRef, DESIGN_READ,
};
use serde::{Deserialize, Serialize};

use crate::common::StoreLog;
use crate::config::{number_or_keyword, NumberOr, ResolvedConfig};
use crate::renaming::{
    KernelPlan, MappingPolicy, RenamingParams, RenamingRf, RenamingStats, TableCap,
};
use amt::{Amt, Cover, Holder, Pattern};

/// The AMT's capacity (`design.amt_entries`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmtCap {
    /// At most this many entries (0: sharing off).
    Entries(u32),
    /// Fig. 4's "infinite mappings".
    Unbounded,
}

impl AmtCap {
    fn limit(self) -> Option<usize> {
        match self {
            AmtCap::Entries(n) => Some(n as usize),
            AmtCap::Unbounded => None,
        }
    }
}

impl Serialize for AmtCap {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AmtCap::Entries(n) => s.serialize_u32(*n),
            AmtCap::Unbounded => s.serialize_str("unbounded"),
        }
    }
}

impl<'de> Deserialize<'de> for AmtCap {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match number_or_keyword(d, "unbounded", "an entry count")? {
            NumberOr::Number(n) => u32::try_from(n).map(AmtCap::Entries).map_err(|_| {
                serde::de::Error::custom(format!(
                    "{n}: expected an entry count in 0..=4294967295 (or \"unbounded\")"
                ))
            }),
            NumberOr::Keyword => Ok(AmtCap::Unbounded),
        }
    }
}

/// `[design]` parameters of `sharing` (defaults and sources: `defaults.toml`): the renaming
/// design's, then the AMT's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharingParams {
    /// Jeon & Annavaram 2014's parameters (see [`RenamingParams`]).
    pub table_bytes: TableCap,
    pub table_banks: u32,
    pub table_lookups_per_cycle: u32,
    pub mapping: MappingPolicy,
    pub release_flags: bool,
    pub release_dead_destinations: bool,
    pub flag_fetch: bool,
    /// AMT entries per SM (§4.1: 200; 0: no sharing, the design is `renaming`).
    pub amt_entries: AmtCap,
    /// Cycles from address calculation to a perfectly shared load's completion (§3: one AMT
    /// lookup and a renaming-table update).
    pub amt_lookup_cycles: u32,
    /// Partial sharing (§2.2) on.
    pub partial_sharing: bool,
    /// Cycles of the w-merge slot's shift and OR after its reads.
    pub merge_cycles: u32,
}

impl SharingParams {
    /// The renaming design's part.
    pub fn renaming(&self) -> RenamingParams {
        RenamingParams {
            table_bytes: self.table_bytes,
            table_banks: self.table_banks,
            table_lookups_per_cycle: self.table_lookups_per_cycle,
            mapping: self.mapping,
            release_flags: self.release_flags,
            release_dead_destinations: self.release_dead_destinations,
            flag_fetch: self.flag_fetch,
        }
    }

    /// Range checks (`key`, message).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        self.renaming().validate()?;
        if let AmtCap::Entries(n) = self.amt_entries {
            // one entry per 4-byte word of a 64 KB L1D-sized table is far beyond any AMT
            if n > 1 << 16 {
                return Err((
                    "design.amt_entries",
                    format!("{n}: at most 65536 (or \"unbounded\")"),
                ));
            }
        }
        if !(1..=64).contains(&self.amt_lookup_cycles) {
            return Err(("design.amt_lookup_cycles", "must be in 1..=64".into()));
        }
        if !(1..=64).contains(&self.merge_cycles) {
            return Err(("design.merge_cycles", "must be in 1..=64".into()));
        }
        Ok(())
    }
}

/// Event counts of the sharing design (summed over SMs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SharingStats {
    /// The renaming design's counts (its table, flags, rows).
    pub renaming: RenamingStats,
    /// Global loads looked up in the AMT, and the entries valid at those lookups (summed:
    /// mean occupancy = `amt_occupancy_sum / amt_searches`).
    pub amt_searches: u64,
    pub amt_occupancy_sum: u64,
    /// Most valid entries at once on one SM.
    pub amt_peak_entries: u64,
    /// Entries inserted (a load went to memory) and replaced when full.
    pub amt_inserts: u64,
    pub amt_replacements: u64,
    /// Rows bound to an entry (the producing load wrote back).
    pub amt_binds: u64,
    /// AMT searches for a store or atomic of this SM, and for another SM's (broadcast).
    pub amt_store_searches: u64,
    pub amt_remote_searches: u64,
    /// Entries dropped: by a store or atomic, because the row was freed, because the row was
    /// overwritten in place.
    pub amt_invalidations: u64,
    pub amt_dropped_freed: u64,
    pub amt_dropped_overwritten: u64,
    /// Loads served by perfect sharing (no memory access, no register write), by waiting for
    /// an in-flight fill of the same pattern (no memory access), by partial sharing. Of the
    /// fill waits, those whose producer had not written back by their own writeback copy the
    /// fill into a register of their own (`fill_copies`); the others map onto its row.
    pub perfect_hits: u64,
    pub fill_waits: u64,
    pub fill_copies: u64,
    pub partial_hits: u64,
    /// Loads with no exact entry that hit in the L1D (partial sharing not tried, §3), and
    /// those that missed (partial sharing tried).
    pub partial_l1_hits: u64,
    pub partial_tries: u64,
    /// Register reads of the w-merge slot (1 or 2 per partial hit).
    pub merge_reads: u64,
    /// Partial covers found with the w-merge slot busy (the load went to memory).
    pub merge_slot_busy: u64,
    /// Loads never looked up: `.volatile`/ordered/`.cv`, and loads the AMT cannot describe
    /// (64-bit elements, mask with holes, scattered).
    pub coherent_loads: u64,
    pub undescribed_loads: u64,
    /// Vector loads (`.v2`/`.v4` of 32-bit words) looked up, and those served (every word
    /// shared; counted in `perfect_hits` or `fill_waits` too).
    pub vector_loads: u64,
    pub vector_hits: u64,
    /// Exact matches not shared because the destination could not be remapped (exempt, or a
    /// partial mask over a live register), or the row is another sub-core's.
    pub ineligible_hits: u64,
}

impl RfStats for SharingStats {
    fn merge(&mut self, o: &Self) {
        self.renaming.merge(&o.renaming);
        self.amt_searches += o.amt_searches;
        self.amt_occupancy_sum += o.amt_occupancy_sum;
        self.amt_peak_entries = self.amt_peak_entries.max(o.amt_peak_entries);
        self.amt_inserts += o.amt_inserts;
        self.amt_replacements += o.amt_replacements;
        self.amt_binds += o.amt_binds;
        self.amt_store_searches += o.amt_store_searches;
        self.amt_remote_searches += o.amt_remote_searches;
        self.amt_invalidations += o.amt_invalidations;
        self.amt_dropped_freed += o.amt_dropped_freed;
        self.amt_dropped_overwritten += o.amt_dropped_overwritten;
        self.perfect_hits += o.perfect_hits;
        self.fill_waits += o.fill_waits;
        self.fill_copies += o.fill_copies;
        self.partial_hits += o.partial_hits;
        self.partial_l1_hits += o.partial_l1_hits;
        self.partial_tries += o.partial_tries;
        self.merge_reads += o.merge_reads;
        self.merge_slot_busy += o.merge_slot_busy;
        self.coherent_loads += o.coherent_loads;
        self.undescribed_loads += o.undescribed_loads;
        self.vector_loads += o.vector_loads;
        self.vector_hits += o.vector_hits;
        self.ineligible_hits += o.ineligible_hits;
    }
}

/// What an in-flight load of (warp slot, destination) will do at writeback.
#[derive(Clone, Debug)]
enum InFlight {
    /// Map the destination onto row `row` (pinned until then).
    Share { row: usize },
    /// Waiting for the in-flight load of entry `entry` (its fill): becomes `Share` when that
    /// load writes its row back; if it has not by this load's writeback (or the entry was
    /// dropped), the load writes the fill's data into a register of its own.
    Wait { entry: u32 },
    /// Write the merge of `rows` (pinned until read).
    Merge {
        rows: [usize; 2],
        reads: u8,
        cover: Cover,
        count: u8,
        /// Values read so far.
        got: [Option<Box<[u32; 32]>>; 2],
    },
}

/// The sharing register file of one SM.
#[derive(Debug)]
pub struct SharingRf {
    inner: RenamingRf,
    p: SharingParams,
    sm: u32,
    on: bool,
    amt: Amt,
    /// AMT entry bound to each row (`u32::MAX`: none).
    row_entry: Vec<u32>,
    /// (slot, register) of a load in flight → what its writeback does.
    inflight: HashMap<(u16, RegId), InFlight>,
    /// (slot, register) of an in-flight producing load → its entry.
    producers: HashMap<(u16, RegId), u32>,
    /// Entry of an in-flight producing load → the loads waiting for its fill.
    waiters: HashMap<u32, Vec<(u16, RegId)>>,
    /// The load the SM's w-merge slot is building.
    merging: Option<(u16, RegId)>,
    log: Rc<RefCell<StoreLog>>,
    stats: SharingStats,
}

const NO_ENTRY: u32 = u32::MAX;

impl SharingRf {
    /// The sharing RF of SM `sm` of `cfg` running the kernel of `plan`; `log` is shared by
    /// every SM of the launch.
    pub fn new(
        cfg: &ResolvedConfig,
        p: &SharingParams,
        plan: &KernelPlan,
        sm: u32,
        log: Rc<RefCell<StoreLog>>,
    ) -> SharingRf {
        let mut inner = RenamingRf::new(cfg, &p.renaming(), plan);
        let on = p.amt_entries != AmtCap::Entries(0);
        if on {
            inner.enable_sharing();
        }
        let rows = (cfg.gpu.sm.limits.registers / 32) as usize;
        SharingRf {
            inner,
            p: p.clone(),
            sm,
            on,
            amt: Amt::new(p.amt_entries.limit()),
            row_entry: vec![NO_ENTRY; rows],
            inflight: HashMap::new(),
            producers: HashMap::new(),
            waiters: HashMap::new(),
            merging: None,
            log,
            stats: SharingStats::default(),
        }
    }

    /// The renaming part (tests).
    pub fn renaming(&self) -> &RenamingRf {
        &self.inner
    }

    /// Drops entry `i` (and its row's link; its waiting loads will copy the fill).
    fn drop_entry(&mut self, i: u32) {
        self.waiters.remove(&i);
        if let Some(e) = self.amt.remove(i) {
            match e.holder {
                Holder::Row(t) => {
                    if let Some(x) = self.row_entry.get_mut(t) {
                        *x = NO_ENTRY;
                    }
                }
                Holder::Pending { slot, reg, .. } => {
                    self.producers.remove(&(slot, reg));
                }
            }
        }
    }

    /// Drops the entries of the rows the renaming part freed (§3: "if there is no more
    /// mapped register, the associated address mapping table entry is deleted").
    fn sync_freed(&mut self) {
        for t in self.inner.take_freed() {
            let i = self.row_entry.get(t).copied().unwrap_or(NO_ENTRY);
            if i != NO_ENTRY {
                self.drop_entry(i);
                self.stats.amt_dropped_freed += 1;
            }
        }
    }

    /// Drops the entries overlapping `lo..hi` (a store or atomic).
    fn invalidate(&mut self, lo: u64, hi: u64) {
        for i in self.amt.overlapping(lo, hi) {
            self.drop_entry(i);
            self.stats.amt_invalidations += 1;
        }
    }

    /// Applies the other SMs' stores this SM has not seen.
    fn apply_remote(&mut self) {
        let unseen = self.log.borrow_mut().unseen(self.sm);
        for (lo, hi) in unseen {
            self.stats.amt_remote_searches += 1;
            self.invalidate(lo, hi);
        }
    }

    /// `lo..hi` of the active lanes of an access.
    fn range(g: &GlobalAccess) -> Option<(u64, u64)> {
        let a = g.access;
        let mut lo = u64::MAX;
        let mut hi = 0u64;
        for (l, &x) in a.addrs.iter().enumerate() {
            if a.mask >> l & 1 != 0 {
                lo = lo.min(x);
                hi = hi.max(x.saturating_add(u64::from(a.bytes_per_lane.max(1))));
            }
        }
        (lo < hi).then_some((lo, hi))
    }

    /// A load that goes to memory becomes the entry of pattern `p` for its destination `dst`
    /// (an exempt destination never holds a shared row; a pattern already in the table keeps
    /// its entry).
    fn become_entry(&mut self, g: &GlobalAccess, p: Pattern, dst: RegId) {
        let sc = g.warp.sub_core;
        if self.amt.find(sc, &p).is_some() || self.inner.exempt(dst) {
            return;
        }
        // the replaced entry goes the way of any dropped one (its row link, its producer,
        // the loads waiting for its fill)
        if let Some(v) = self.amt.victim() {
            self.drop_entry(v);
            self.stats.amt_replacements += 1;
        }
        let (i, _) = self.amt.insert(
            sc,
            p,
            Holder::Pending {
                slot: g.warp.slot,
                reg: dst,
                fill_at: 0,
            },
        );
        // a previous in-flight producer of the same register cannot exist (the scoreboard
        // orders writes to one register)
        if let Some(old) = self.producers.insert((g.warp.slot, dst), i) {
            if old != i {
                self.drop_entry(old);
            }
        }
        self.stats.amt_inserts += 1;
        self.stats.amt_peak_entries = self.stats.amt_peak_entries.max(self.amt.len() as u64);
    }

    /// A vector load (`.v2`/`.v4` of 32-bit words, one destination register per word): each
    /// word is a pattern of its own ([`Pattern::word`]), so the AMT keeps one entry per
    /// destination register, as for scalar loads. The load is served when every word's entry
    /// is held by a row or by an in-flight fill (perfect sharing and fill waits, word by
    /// word); otherwise it goes to memory and each word without an entry becomes one.
    /// Partial sharing stays with scalar loads (the w-merge slot builds one register).
    fn vector_load(&mut self, ctx: &mut RfCtx, g: &GlobalAccess) -> MemRoute {
        let dsts = g.info.dsts.as_slice();
        let words = dsts.len() as u32;
        let patterns: Option<Vec<Pattern>> = (0..words)
            .map(|k| Pattern::word(g.access, words, k))
            .collect();
        let Some(patterns) = patterns.filter(|_| words > 1) else {
            self.stats.undescribed_loads += 1;
            return MemRoute::Hierarchy;
        };
        let sc = g.warp.sub_core;
        self.stats.amt_searches += 1;
        self.stats.amt_occupancy_sum += self.amt.len() as u64;
        self.stats.vector_loads += 1;
        // each word's entry and holder, if it can serve this destination
        let found: Vec<Option<(u32, Holder)>> = patterns
            .iter()
            .zip(dsts)
            .map(|(p, &d)| {
                let i = self.amt.find(sc, p)?;
                let h = self.amt.get(i)?.holder;
                let ready = match h {
                    Holder::Row(_) => true,
                    Holder::Pending { fill_at, .. } => fill_at > 0,
                };
                (ready && self.remappable(g.warp, d, p.count)).then_some((i, h))
            })
            .collect();
        if found.iter().all(Option::is_some) {
            let mut latency = u64::from(self.p.amt_lookup_cycles);
            let mut waited = false;
            for (&d, (i, h)) in dsts.iter().zip(found.into_iter().flatten()) {
                let key = (g.warp.slot, d);
                self.amt.touch(i);
                match h {
                    Holder::Row(t) => {
                        self.inner.pin(t);
                        self.inflight.insert(key, InFlight::Share { row: t });
                    }
                    Holder::Pending { fill_at, .. } => {
                        waited = true;
                        self.inflight.insert(key, InFlight::Wait { entry: i });
                        self.waiters.entry(i).or_default().push(key);
                        latency = latency.max(
                            fill_at.saturating_sub(ctx.now) + u64::from(self.p.amt_lookup_cycles),
                        );
                    }
                }
            }
            self.stats.vector_hits += 1;
            if waited {
                self.stats.fill_waits += 1;
            } else {
                self.stats.perfect_hits += 1;
            }
            return MemRoute::Served {
                latency: u32::try_from(latency).unwrap_or(u32::MAX),
            };
        }
        if found.iter().any(Option::is_some) {
            self.stats.ineligible_hits += 1;
        }
        for (p, &d) in patterns.into_iter().zip(dsts) {
            self.become_entry(g, p, d);
        }
        MemRoute::Hierarchy
    }

    /// Whether the destination `reg` of `warp` may be remapped onto a shared row by a load of
    /// `count` lanes: not exempt, and either every lane is written or the register holds no
    /// value (unmapped: released or never written, so no lane of it is live).
    fn remappable(&self, warp: WarpSlot, reg: RegId, count: u8) -> bool {
        !self.inner.exempt(reg) && (count == 32 || self.inner.row_of(warp.slot, reg).is_none())
    }

    /// The merged value of an [`InFlight::Merge`] whose reads are done.
    fn merged(cover: &Cover, count: u8, got: &[Option<Box<[u32; 32]>>; 2]) -> [u32; 32] {
        let mut out = [0u32; 32];
        let a = got[0].as_deref().copied().unwrap_or([0; 32]);
        let b = got[1].as_deref().copied().unwrap_or(a);
        for (i, o) in out.iter_mut().enumerate().take(usize::from(count)) {
            let (src, k) = if i < usize::from(cover.split) {
                (&a, cover.first.1)
            } else {
                (&b, cover.second.map_or(0, |s| s.1))
            };
            let j = i as i64 + k;
            if (0..32).contains(&j) {
                *o = src[j as usize];
            }
        }
        out
    }

    /// The rows of a cover (entries with rows).
    fn cover_rows(&self, c: &Cover) -> Option<[usize; 2]> {
        let row = |i: u32| match self.amt.get(i)?.holder {
            Holder::Row(t) => Some(t),
            Holder::Pending { .. } => None,
        };
        let r1 = row(c.first.0)?;
        let r2 = match c.second {
            Some((i, _)) => row(i)?,
            None => r1,
        };
        Some([r1, r2])
    }
}

impl RegisterFileDesign for SharingRf {
    type Stats = SharingStats;

    fn name(&self) -> String {
        "sharing".into()
    }

    fn layout(&self) -> RfLayout {
        self.inner.layout()
    }

    fn can_allocate(&self, warps: &[WarpSlot], regs_per_thread: u32) -> bool {
        self.inner.can_allocate(warps, regs_per_thread)
    }

    fn allocate_warp(
        &mut self,
        ctx: &mut RfCtx,
        warp: WarpSlot,
        regs_per_thread: u32,
    ) -> Result<(), RfError> {
        self.inner.allocate_warp(ctx, warp, regs_per_thread)
    }

    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot) {
        // loads of the warp still pending at exit (none in practice: a warp exits after its
        // writebacks) release their pins
        let mut mine: Vec<(u16, RegId)> = self
            .inflight
            .keys()
            .filter(|k| k.0 == warp.slot)
            .copied()
            .collect();
        mine.sort_unstable();
        for k in mine {
            match self.inflight.remove(&k) {
                Some(InFlight::Share { row }) => self.inner.unpin(ctx, row),
                Some(InFlight::Wait { .. }) => {}
                Some(InFlight::Merge {
                    rows, reads, got, ..
                }) => {
                    for (k, r) in rows.iter().enumerate().take(usize::from(reads)) {
                        if got[k].is_none() {
                            self.inner.unpin(ctx, *r);
                        }
                    }
                }
                None => {}
            }
        }
        let mut prod: Vec<(u16, RegId)> = self
            .producers
            .keys()
            .filter(|k| k.0 == warp.slot)
            .copied()
            .collect();
        prod.sort_unstable();
        for k in prod {
            if let Some(i) = self.producers.remove(&k) {
                self.drop_entry(i);
            }
        }
        self.inner.free_warp(ctx, warp);
        self.sync_freed();
    }

    fn issued(&mut self, ctx: &mut RfCtx, warp: WarpSlot, func: u32, pc: u32) -> u32 {
        self.inner.issued(ctx, warp, func, pc)
    }

    #[inline]
    fn route_read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> Route {
        let r = self.inner.route_read(ctx, op);
        if !self.on {
            return r;
        }
        // a shared or spilled row sits outside the register's baseline bank
        match self.inner.row_of(op.warp.slot, op.reg) {
            Some(t) => Route::Bank(self.inner.row_bank(t).1 as u16),
            None => r,
        }
    }

    #[inline]
    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome {
        if op.reg < DESIGN_READ {
            return self.inner.read(ctx, op);
        }
        // a read of the w-merge slot at bank `op.reg - DESIGN_READ`: the first source row
        // there not read yet (a bank's reads are granted in order)
        let bank = usize::from(op.reg - DESIGN_READ);
        let zero = ReadOutcome {
            values: [0; 32],
            delay: Delay::None,
        };
        let Some(key) = self.merging else {
            return zero;
        };
        let (k, row) = match self.inflight.get(&key) {
            Some(InFlight::Merge {
                rows, reads, got, ..
            }) => {
                let found = (0..usize::from(*reads).min(2))
                    .find(|&k| got[k].is_none() && self.inner.row_bank(rows[k]).1 == bank);
                match found {
                    Some(k) => (k, rows[k]),
                    None => return zero,
                }
            }
            _ => return zero,
        };
        let out = self.inner.read_row(ctx, row);
        self.inner.unpin(ctx, row);
        self.stats.merge_reads += 1;
        if let Some(InFlight::Merge { got, .. }) = self.inflight.get_mut(&key) {
            got[k] = Some(Box::new(out.values));
        }
        self.sync_freed();
        out
    }

    #[inline]
    fn prefetch(&self, warp: WarpSlot, reg: RegId) {
        self.inner.prefetch(warp, reg);
    }

    #[inline]
    fn route_write(&mut self, ctx: &mut RfCtx, w: &WriteRef) -> Route {
        if !self.on {
            return self.inner.route_write(ctx, w);
        }
        if w.from_load
            && matches!(
                self.inflight.get(&(w.warp.slot, w.reg)),
                Some(InFlight::Share { .. })
            )
        {
            // perfect sharing: no register write (§3)
            return Route::Bypass;
        }
        match self.inner.row_of(w.warp.slot, w.reg) {
            Some(t) if self.inner.holders(t) == 1 => Route::Bank(self.inner.row_bank(t).1 as u16),
            // a new row (or a move off a shared one), in the register's baseline bank
            _ => Route::Bank(self.inner.home_bank(w.warp.slot, w.reg) as u16),
        }
    }

    fn write(
        &mut self,
        ctx: &mut RfCtx,
        w: &WriteRef,
        values: &[u32; 32],
        mask: u32,
    ) -> WriteOutcome {
        if !self.on {
            return self.inner.write(ctx, w, values, mask);
        }
        let key = (w.warp.slot, w.reg);
        let mut merged = None;
        if w.from_load {
            match self.inflight.remove(&key) {
                Some(InFlight::Share { row }) => {
                    // map, then drop the pin (the mapping now holds the row)
                    self.inner.share(ctx, w.warp, w.reg, row);
                    self.inner.unpin(ctx, row);
                    self.sync_freed();
                    return WriteOutcome::DONE;
                }
                Some(InFlight::Merge {
                    cover, count, got, ..
                }) => merged = Some(Self::merged(&cover, count, &got)),
                Some(InFlight::Wait { entry }) => {
                    // the producer has not written back: the fill's data goes into a
                    // register of this warp's own
                    if let Some(v) = self.waiters.get_mut(&entry) {
                        v.retain(|k| *k != key);
                    }
                    self.stats.fill_copies += 1;
                }
                None => {}
            }
        }
        // an in-place overwrite destroys the value an entry describes
        if let Some(t) = self.inner.row_of(w.warp.slot, w.reg) {
            if self.inner.holders(t) == 1 {
                let i = self.row_entry.get(t).copied().unwrap_or(NO_ENTRY);
                if i != NO_ENTRY {
                    self.drop_entry(i);
                    self.stats.amt_dropped_overwritten += 1;
                }
            }
        }
        let out = self
            .inner
            .write(ctx, w, merged.as_ref().unwrap_or(values), mask);
        self.sync_freed();
        // the producing load's fill binds its entry to the row written
        if w.from_load {
            if let Some(i) = self.producers.remove(&key) {
                match self.inner.row_of(w.warp.slot, w.reg) {
                    Some(t) if self.amt.get(i).is_some() => {
                        if let Some(e) = self.amt.get_mut(i) {
                            e.holder = Holder::Row(t);
                        }
                        let old = self.row_entry.get(t).copied().unwrap_or(NO_ENTRY);
                        if old != NO_ENTRY && old != i {
                            self.drop_entry(old);
                        }
                        if let Some(x) = self.row_entry.get_mut(t) {
                            *x = i;
                        }
                        self.stats.amt_binds += 1;
                        // the loads waiting for this fill will map onto the row
                        for k in self.waiters.remove(&i).unwrap_or_default() {
                            if let Some(f) = self.inflight.get_mut(&k) {
                                if matches!(f, InFlight::Wait { entry } if *entry == i) {
                                    *f = InFlight::Share { row: t };
                                    self.inner.pin(t);
                                }
                            }
                        }
                    }
                    _ => self.drop_entry(i),
                }
            }
        }
        out
    }

    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, cause: ReleaseCause) {
        self.inner.release(ctx, warp, reg, cause);
        if self.on {
            self.sync_freed();
        }
    }

    fn global_access(&mut self, ctx: &mut RfCtx, g: &GlobalAccess) -> MemRoute {
        if !self.on || g.access.space != MemSpaceKind::Global {
            return MemRoute::Hierarchy;
        }
        self.apply_remote();
        if g.access.kind != MemOpKind::Load {
            // a store or atomic drops the entries it makes stale, here and on every SM
            if let Some((lo, hi)) = Self::range(g) {
                self.stats.amt_store_searches += 1;
                self.invalidate(lo, hi);
                self.log.borrow_mut().push(lo, hi, self.sm);
            }
            return MemRoute::Hierarchy;
        }
        if g.info.coherent {
            self.stats.coherent_loads += 1;
            return MemRoute::Hierarchy;
        }
        let dsts = g.info.dsts.as_slice();
        let (Some(p), [dst]) = (Pattern::of(g.access), dsts) else {
            return self.vector_load(ctx, g);
        };
        let dst = *dst;
        let sc = g.warp.sub_core;
        let key = (g.warp.slot, dst);
        self.stats.amt_searches += 1;
        self.stats.amt_occupancy_sum += self.amt.len() as u64;
        if let Some(i) = self.amt.find(sc, &p) {
            let holder = self.amt.get(i).map(|e| e.holder);
            match holder {
                Some(Holder::Row(t)) if self.remappable(g.warp, dst, p.count) => {
                    self.amt.touch(i);
                    self.inner.pin(t);
                    self.inflight.insert(key, InFlight::Share { row: t });
                    self.stats.perfect_hits += 1;
                    return MemRoute::Served {
                        latency: self.p.amt_lookup_cycles,
                    };
                }
                Some(Holder::Pending { fill_at, .. })
                    if fill_at > 0 && self.remappable(g.warp, dst, p.count) =>
                {
                    // the data is on its way: map onto the producer's row once it is
                    // written, a lookup after the fill arrives
                    self.amt.touch(i);
                    self.stats.fill_waits += 1;
                    self.inflight.insert(key, InFlight::Wait { entry: i });
                    self.waiters.entry(i).or_default().push(key);
                    let wait = fill_at.saturating_sub(ctx.now);
                    let lat = wait + u64::from(self.p.amt_lookup_cycles);
                    return MemRoute::Served {
                        latency: u32::try_from(lat).unwrap_or(u32::MAX),
                    };
                }
                _ => self.stats.ineligible_hits += 1,
            }
        } else if self.p.partial_sharing && g.l1_hit == Some(true) {
            self.stats.partial_l1_hits += 1;
        } else if self.p.partial_sharing && g.l1_hit == Some(false) {
            // §3: "we run partial sharing only upon L1 cache misses"
            self.stats.partial_tries += 1;
            if let Some(c) = self.amt.cover(sc, &p) {
                if !g.design_reads_free {
                    self.stats.merge_slot_busy += 1;
                } else if let Some(rows) = self.cover_rows(&c) {
                    let reads: u8 = if c.second.is_some() { 2 } else { 1 };
                    for r in rows.iter().take(usize::from(reads)) {
                        self.inner.pin(*r);
                    }
                    self.amt.touch(c.first.0);
                    if let Some((j, _)) = c.second {
                        self.amt.touch(j);
                    }
                    self.inflight.insert(
                        key,
                        InFlight::Merge {
                            rows,
                            reads,
                            cover: c,
                            count: p.count,
                            got: [None, None],
                        },
                    );
                    self.merging = Some(key);
                    self.stats.partial_hits += 1;
                    // the reads go through the SM's w-merge collector slot; the result
                    // is the shift/OR merge `merge_cycles` after the last read
                    let mut a = BankAccesses::none(BankAccessKind::RegisterReads);
                    for &r in rows.iter().take(usize::from(reads)) {
                        a.add(self.inner.row_bank(r).1);
                    }
                    a.after = self.p.merge_cycles.max(1);
                    return MemRoute::Banks(a);
                }
            }
        }
        // to memory: the load becomes its pattern's entry
        self.become_entry(g, p, dst);
        MemRoute::Hierarchy
    }

    fn probes_l1(&self) -> bool {
        self.on && self.p.partial_sharing
    }

    fn global_timed(&mut self, _ctx: &mut RfCtx, g: &GlobalAccess, ready_at: u64) {
        if !self.on {
            return;
        }
        // every destination (one per word of a vector load) that produces an entry
        for dst in g.info.dsts.as_slice() {
            if let Some(&i) = self.producers.get(&(g.warp.slot, *dst)) {
                if let Some(e) = self.amt.get_mut(i) {
                    if let Holder::Pending { fill_at, .. } = &mut e.holder {
                        *fill_at = ready_at;
                    }
                }
            }
        }
    }

    fn tick(&mut self, ctx: &mut RfCtx) {
        self.inner.tick(ctx);
    }

    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32] {
        self.inner.peek(warp, reg)
    }

    fn record_series(&mut self, window: u64) {
        self.inner.record_series(window);
    }

    fn sm_occupied(&mut self, ctx: &mut RfCtx, occupied: bool) {
        self.inner.sm_occupied(ctx, occupied);
    }

    fn finish(&mut self, ctx: &mut RfCtx) {
        self.inner.finish(ctx);
    }

    fn stats(&self) -> SharingStats {
        SharingStats {
            renaming: self.inner.stats(),
            ..self.stats.clone()
        }
    }
}

/// The launch's kernel plan (the renaming part's).
pub fn plan<F: FunctionalWarpModel>(
    cfg: &ResolvedConfig,
    p: &SharingParams,
    model: &F,
) -> KernelPlan {
    KernelPlan::for_launch(cfg, &p.renaming(), model)
}

#[cfg(test)]
mod tests;
