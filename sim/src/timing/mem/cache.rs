//! Sectored set-associative tag array with LRU replacement, and the MSHR table, shared by the
//! L1D and the L2 slices.
//!
//! Follows GPGPU-Sim 4.0's `tag_array` / `sector_cache_block` / `mshr_table` (`gpu-cache.h`):
//! a line is allocated whole (one tag per 128 B line), validity is kept per 32 B sector, a sector
//! being fetched is *reserved* and a line with reserved sectors cannot be evicted; MSHR entries are
//! per sector address and merge up to `max_merge` requests each.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{check, ConfigError, LINE_BYTES, SECTORS_PER_LINE, SECTOR_BYTES};

/// How a line address picks its set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SetIndex {
    /// `(addr / line) mod sets` (GPGPU-Sim set-index function `L`).
    Linear,
    /// Line index XOR-folded with the bits above it before taking `mod sets`, spreading
    /// power-of-two strides over sets (in the spirit of GPGPU-Sim's `H`/`P` hashes; not
    /// bit-identical to either). Requires a power-of-two number of sets.
    XorFold,
}

/// Geometry of a sectored cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheGeometry {
    /// Number of sets.
    pub sets: u32,
    /// Ways per set.
    pub ways: u32,
    /// Set-index function.
    pub set_index: SetIndex,
}

impl CacheGeometry {
    /// Capacity in bytes (128 B lines).
    pub fn capacity_bytes(&self) -> u64 {
        self.sets as u64 * self.ways as u64 * LINE_BYTES
    }

    /// Checks sizes; `component` names the owner in errors.
    pub fn validate(&self, component: &'static str) -> Result<(), ConfigError> {
        check(self.sets >= 1, component, "sets", || "must be ≥ 1".into())?;
        check(
            self.ways >= 1 && self.ways <= 4096,
            component,
            "ways",
            || format!("{} must be in [1, 4096]", self.ways),
        )?;
        check(
            self.set_index == SetIndex::Linear || self.sets.is_power_of_two(),
            component,
            "set_index",
            || {
                format!(
                    "XorFold needs a power-of-two number of sets, got {}",
                    self.sets
                )
            },
        )
    }
}

/// State of one 32 B sector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectorState {
    /// Not present.
    Invalid,
    /// Being fetched (an MSHR entry exists).
    Reserved,
    /// Present.
    Valid,
}

#[derive(Clone, Debug)]
struct Line {
    allocated: bool,
    line_addr: u64,
    sectors: [SectorState; SECTORS_PER_LINE as usize],
    dirty: u8,
    last_use: u64,
}

impl Line {
    fn empty() -> Self {
        Line {
            allocated: false,
            line_addr: 0,
            sectors: [SectorState::Invalid; SECTORS_PER_LINE as usize],
            dirty: 0,
            last_use: 0,
        }
    }

    fn mask(&self, st: SectorState) -> u8 {
        let mut m = 0;
        for (i, s) in self.sectors.iter().enumerate() {
            if *s == st {
                m |= 1 << i;
            }
        }
        m
    }
}

/// A line evicted to make room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eviction {
    /// The evicted line's address.
    pub line_addr: u64,
    /// Its valid sectors.
    pub valid: u8,
    /// Its dirty sectors (to write back in a write-back cache).
    pub dirty: u8,
}

/// Result of looking a line up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lookup {
    /// Way holding the line, if present.
    pub way: Option<u32>,
    /// Requested sectors that are valid.
    pub valid: u8,
    /// Requested sectors that are reserved (being fetched).
    pub reserved: u8,
    /// Requested sectors that are invalid.
    pub invalid: u8,
}

/// The tag array: `sets × ways` lines with per-sector state and LRU order.
#[derive(Clone, Debug)]
pub struct TagArray {
    geom: CacheGeometry,
    lines: Vec<Line>,
    clock: u64,
}

impl TagArray {
    /// An empty (all-invalid) array; call [`CacheGeometry::validate`] first.
    pub fn new(geom: CacheGeometry) -> Self {
        let n = geom.sets.max(1) as usize * geom.ways.max(1) as usize;
        TagArray {
            geom,
            lines: vec![Line::empty(); n],
            clock: 0,
        }
    }

    /// The set a line maps to.
    pub fn set_of(&self, line_addr: u64) -> u32 {
        let idx = line_addr / LINE_BYTES;
        let sets = self.geom.sets.max(1) as u64;
        let h = match self.geom.set_index {
            SetIndex::Linear => idx,
            SetIndex::XorFold => {
                let bits = sets.trailing_zeros();
                let mut x = idx;
                let mut h = 0u64;
                while x != 0 {
                    h ^= x & (sets - 1);
                    x = if bits == 0 { 0 } else { x >> bits };
                }
                h
            }
        };
        (h % sets) as u32
    }

    fn slot(&self, set: u32, way: u32) -> usize {
        set as usize * self.geom.ways as usize + way as usize
    }

    /// Looks up `sectors` of `line_addr` without changing LRU state.
    pub fn lookup(&self, line_addr: u64, sectors: u8) -> Lookup {
        let set = self.set_of(line_addr);
        for w in 0..self.geom.ways {
            let l = &self.lines[self.slot(set, w)];
            if l.allocated && l.line_addr == line_addr {
                return Lookup {
                    way: Some(w),
                    valid: l.mask(SectorState::Valid) & sectors,
                    reserved: l.mask(SectorState::Reserved) & sectors,
                    invalid: l.mask(SectorState::Invalid) & sectors,
                };
            }
        }
        Lookup {
            way: None,
            valid: 0,
            reserved: 0,
            invalid: sectors,
        }
    }

    /// The way a new line would go to in its set: an unallocated way first, else the least
    /// recently used line without reserved sectors; `None` when every line is reserved.
    pub fn victim(&self, line_addr: u64) -> Option<u32> {
        let set = self.set_of(line_addr);
        let mut best: Option<(u64, u32)> = None;
        for w in 0..self.geom.ways {
            let l = &self.lines[self.slot(set, w)];
            if !l.allocated {
                return Some(w);
            }
            if l.mask(SectorState::Reserved) == 0 && best.is_none_or_lt(l.last_use) {
                best = Some((l.last_use, w));
            }
        }
        best.map(|(_, w)| w)
    }

    /// Installs `line_addr` in `way` of its set (all sectors invalid), returning what was evicted.
    pub fn allocate(&mut self, line_addr: u64, way: u32) -> Option<Eviction> {
        let set = self.set_of(line_addr);
        let s = self.slot(set, way);
        self.clock += 1;
        let old = std::mem::replace(&mut self.lines[s], Line::empty());
        let l = &mut self.lines[s];
        l.allocated = true;
        l.line_addr = line_addr;
        l.last_use = self.clock;
        old.allocated.then(|| Eviction {
            line_addr: old.line_addr,
            valid: old.mask(SectorState::Valid),
            dirty: old.dirty,
        })
    }

    /// Marks the line most recently used.
    pub fn touch(&mut self, line_addr: u64, way: u32) {
        let s = self.slot(self.set_of(line_addr), way);
        self.clock += 1;
        self.lines[s].last_use = self.clock;
    }

    /// Sets the state of `sectors` of the line in `way` (which must hold `line_addr`).
    pub fn set_sectors(&mut self, line_addr: u64, way: u32, sectors: u8, st: SectorState) {
        let s = self.slot(self.set_of(line_addr), way);
        for i in 0..SECTORS_PER_LINE {
            if sectors & (1 << i) != 0 {
                self.lines[s].sectors[i as usize] = st;
            }
        }
    }

    /// Marks `sectors` dirty (write-back caches).
    pub fn set_dirty(&mut self, line_addr: u64, way: u32, sectors: u8) {
        let s = self.slot(self.set_of(line_addr), way);
        self.lines[s].dirty |= sectors;
    }

    /// Marks `sectors` of `line_addr` valid if the line is present (a fill); returns whether it was.
    pub fn fill(&mut self, line_addr: u64, sectors: u8) -> bool {
        match self.lookup(line_addr, sectors).way {
            Some(w) => {
                self.set_sectors(line_addr, w, sectors, SectorState::Valid);
                true
            }
            None => false,
        }
    }
}

/// `Option<(u64, u32)>` helper: true when empty or when `v` is older than the held value.
trait OlderThan {
    fn is_none_or_lt(&self, v: u64) -> bool;
}

impl OlderThan for Option<(u64, u32)> {
    fn is_none_or_lt(&self, v: u64) -> bool {
        match self {
            None => true,
            Some((u, _)) => v < *u,
        }
    }
}

/// Miss-status holding registers: one entry per outstanding sector, each merging up to
/// `max_merge` requests (GPGPU-Sim `mshr_table`, `-gpgpu_cache:dl1 ...,A:<entries>:<max_merge>`).
#[derive(Clone, Debug)]
pub struct MshrTable {
    max_entries: usize,
    max_merge: usize,
    entries: BTreeMap<u64, Vec<u64>>,
}

/// Address of sector `s` of a line (the MSHR key).
pub fn sector_addr(line_addr: u64, s: u32) -> u64 {
    line_addr + s as u64 * SECTOR_BYTES
}

impl MshrTable {
    /// An empty table.
    pub fn new(max_entries: usize, max_merge: usize) -> Self {
        MshrTable {
            max_entries,
            max_merge,
            entries: BTreeMap::new(),
        }
    }

    /// Entries in use.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no entry is in use.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Free entries.
    pub fn free(&self) -> usize {
        self.max_entries.saturating_sub(self.entries.len())
    }

    /// Whether one more request can merge into the existing entry of `sector_addr`.
    pub fn can_merge(&self, sector_addr: u64) -> bool {
        self.entries
            .get(&sector_addr)
            .is_some_and(|v| v.len() < self.max_merge)
    }

    /// Adds request `id` to the entry of `sector_addr`, creating it if needed. Callers check
    /// [`free`](Self::free) / [`can_merge`](Self::can_merge) first.
    pub fn add(&mut self, sector_addr: u64, id: u64) {
        self.entries.entry(sector_addr).or_default().push(id);
    }

    /// Removes the entry of `sector_addr`, returning the merged request ids.
    pub fn release(&mut self, sector_addr: u64) -> Vec<u64> {
        self.entries.remove(&sector_addr).unwrap_or_default()
    }
}

/// Typed statistics of one cache (or the sum over L2 slices).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Requests accepted (not counting reservation failures).
    pub accesses: u64,
    /// Accepted loads.
    pub reads: u64,
    /// Accepted stores and write-backs.
    pub writes: u64,
    /// Accepted requests whose sectors were all valid.
    pub hits: u64,
    /// Accepted requests whose line was absent.
    pub misses: u64,
    /// Accepted requests whose line was present but some sectors were not valid.
    pub sector_misses: u64,
    /// Accepted loads whose missing sectors were all already being fetched.
    pub mshr_hits: u64,
    /// Sectors merged into an existing MSHR entry.
    pub mshr_merges: u64,
    /// Sectors requested.
    pub sectors_accessed: u64,
    /// Sectors requested that were not valid.
    pub sectors_missed: u64,
    /// Requests refused for lack of a resource (sum of the three below).
    pub reservation_fails: u64,
    /// ... because every line of the set has sectors in flight.
    pub fail_line_alloc: u64,
    /// ... because the MSHR table is full or an entry cannot merge more.
    pub fail_mshr: u64,
    /// ... because the miss queue is full.
    pub fail_miss_queue: u64,
    /// Lines evicted.
    pub evictions: u64,
    /// Write-back requests sent (write-back caches).
    pub writebacks: u64,
    /// Cycles a request waited at the input because of a busy port or a full queue.
    pub stall_cycles: u64,
    /// Fills received from the next level.
    pub fills: u64,
    /// Requests refused at the input because its queue was full (L2 slices).
    pub input_rejects: u64,
}

impl CacheStats {
    /// Adds another set of counters (e.g. to sum L2 slices).
    pub fn add(&mut self, o: &CacheStats) {
        self.accesses += o.accesses;
        self.reads += o.reads;
        self.writes += o.writes;
        self.hits += o.hits;
        self.misses += o.misses;
        self.sector_misses += o.sector_misses;
        self.mshr_hits += o.mshr_hits;
        self.mshr_merges += o.mshr_merges;
        self.sectors_accessed += o.sectors_accessed;
        self.sectors_missed += o.sectors_missed;
        self.reservation_fails += o.reservation_fails;
        self.fail_line_alloc += o.fail_line_alloc;
        self.fail_mshr += o.fail_mshr;
        self.fail_miss_queue += o.fail_miss_queue;
        self.evictions += o.evictions;
        self.writebacks += o.writebacks;
        self.stall_cycles += o.stall_cycles;
        self.fills += o.fills;
        self.input_rejects += o.input_rejects;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geom(sets: u32, ways: u32) -> CacheGeometry {
        CacheGeometry {
            sets,
            ways,
            set_index: SetIndex::Linear,
        }
    }

    #[test]
    fn lru_victim_skips_reserved_lines() {
        let mut t = TagArray::new(geom(1, 2));
        let w0 = t.victim(0).unwrap();
        assert!(t.allocate(0, w0).is_none());
        t.set_sectors(0, w0, 0xf, SectorState::Valid);
        let w1 = t.victim(128).unwrap();
        assert_ne!(w0, w1);
        t.allocate(128, w1);
        t.set_sectors(128, w1, 0x1, SectorState::Reserved);
        // Line 0 is LRU and evictable; line 128 is reserved.
        assert_eq!(t.victim(256), Some(w0));
        t.touch(0, w0);
        assert_eq!(t.victim(256), Some(w0)); // 128 still reserved
        t.set_sectors(128, w1, 0x1, SectorState::Valid);
        assert_eq!(t.victim(256), Some(w1)); // now 128 is LRU
        t.set_sectors(0, w0, 0x1, SectorState::Reserved);
        t.set_sectors(128, w1, 0x1, SectorState::Reserved);
        assert_eq!(t.victim(256), None);
    }

    #[test]
    fn lookup_reports_sector_states() {
        let mut t = TagArray::new(geom(4, 1));
        t.allocate(0x200, 0);
        t.set_sectors(0x200, 0, 0b0011, SectorState::Valid);
        t.set_sectors(0x200, 0, 0b0100, SectorState::Reserved);
        let l = t.lookup(0x200, 0b1111);
        assert_eq!(
            (l.way, l.valid, l.reserved, l.invalid),
            (Some(0), 0b0011, 0b0100, 0b1000)
        );
        assert_eq!(t.lookup(0x280, 1).way, None);
        // Linear: line 0x200/128 = 4 → set 0; 0x280 → set 1.
        assert_eq!(t.set_of(0x200), 0);
        assert_eq!(t.set_of(0x280), 1);
        let e = t.allocate(0x400, 0).unwrap(); // same set 0, evicts 0x200
        assert_eq!((e.line_addr, e.valid), (0x200, 0b0011));
    }

    #[test]
    fn xor_fold_spreads_power_of_two_strides() {
        let t = TagArray::new(CacheGeometry {
            sets: 64,
            ways: 1,
            set_index: SetIndex::XorFold,
        });
        let lin = TagArray::new(geom(64, 1));
        // Stride of 64 lines: all in set 0 under linear indexing, spread under XOR folding.
        let sets: std::collections::BTreeSet<u32> =
            (0..16u64).map(|i| t.set_of(i * 64 * 128)).collect();
        assert!(sets.len() >= 16);
        assert!((0..16u64).all(|i| lin.set_of(i * 64 * 128) == 0));
        assert!(CacheGeometry {
            sets: 48,
            ways: 1,
            set_index: SetIndex::XorFold
        }
        .validate("t")
        .is_err());
    }

    #[test]
    fn mshr_merge_limits() {
        let mut m = MshrTable::new(2, 2);
        assert_eq!(m.free(), 2);
        assert!(!m.can_merge(0));
        m.add(0, 1);
        assert!(m.can_merge(0));
        m.add(0, 2);
        assert!(!m.can_merge(0));
        m.add(32, 3);
        assert_eq!(m.free(), 0);
        assert_eq!(m.release(0), vec![1, 2]);
        assert_eq!(m.free(), 1);
        assert!(m.release(0).is_empty());
    }
}

/// Why a request was refused (GPGPU-Sim `RESERVATION_FAIL` causes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FailReason {
    /// Every line of the set has sectors in flight (`LINE_ALLOC_FAIL`).
    LineAlloc,
    /// No free MSHR entry, or an entry cannot merge more (`MSHR_ENRTY_FAIL` / `MSHR_MERGE_ENRTY_FAIL`).
    Mshr,
    /// The miss queue is full (`MISS_QUEUE_FULL`).
    MissQueue,
}

/// How an accepted request was served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Outcome {
    /// All sectors valid.
    Hit,
    /// Line absent: allocated, sectors requested from the next level.
    Miss,
    /// Line present, some sectors fetched from the next level.
    SectorMiss,
    /// Line present, the missing sectors were already in flight: merged into MSHRs.
    MshrHit,
}

/// The read/fill machinery common to the L1D and L2 slices: tag array, MSHRs, miss queue and
/// the requests waiting for fills (identified by caller tokens).
#[derive(Clone, Debug)]
pub struct CacheCore {
    /// Tag array.
    pub tags: TagArray,
    /// MSHR table.
    pub mshr: MshrTable,
    /// Requests to the next level, oldest first.
    pub miss_queue: std::collections::VecDeque<MemRequest>,
    /// Miss-queue capacity.
    pub miss_queue_size: usize,
    /// Tokens waiting for fills → number of sectors still awaited.
    pending: BTreeMap<u64, u32>,
    /// Statistics.
    pub stats: CacheStats,
}

use super::{AccessKind, MemRequest};

fn sectors_of(mask: u8) -> impl Iterator<Item = u32> {
    (0..SECTORS_PER_LINE).filter(move |s| mask & (1 << s) != 0)
}

impl CacheCore {
    /// An empty cache.
    pub fn new(
        geom: CacheGeometry,
        mshr_entries: usize,
        mshr_max_merge: usize,
        miss_queue_size: usize,
    ) -> Self {
        CacheCore {
            tags: TagArray::new(geom),
            mshr: MshrTable::new(mshr_entries, mshr_max_merge),
            miss_queue: std::collections::VecDeque::new(),
            miss_queue_size,
            pending: BTreeMap::new(),
            stats: CacheStats::default(),
        }
    }

    /// Whether `n` more requests fit in the miss queue.
    pub fn miss_queue_has_room(&self, n: usize) -> bool {
        self.miss_queue.len() + n <= self.miss_queue_size
    }

    fn fail(&mut self, r: FailReason) -> Result<Outcome, FailReason> {
        self.stats.reservation_fails += 1;
        match r {
            FailReason::LineAlloc => self.stats.fail_line_alloc += 1,
            FailReason::Mshr => self.stats.fail_mshr += 1,
            FailReason::MissQueue => self.stats.fail_miss_queue += 1,
        }
        Err(r)
    }

    /// Allocates `line_addr` (evicting the LRU line); returns the way and the eviction.
    /// The caller has checked that a victim exists.
    fn allocate(&mut self, line_addr: u64) -> Option<(u32, Option<Eviction>)> {
        let way = self.tags.victim(line_addr)?;
        let ev = self.tags.allocate(line_addr, way);
        if ev.is_some() {
            self.stats.evictions += 1;
        }
        Some((way, ev))
    }

    /// A load of `req.sectors` for `token`. On a miss the missing sectors are reserved, MSHR
    /// entries made and one request (`id = token`) queued to the next level; the token then
    /// completes through [`fill`](Self::fill). `extra_queue` reserves miss-queue room for
    /// write-backs the caller may need to send for an eviction.
    /// Returns the outcome and any eviction, or the refusal reason (no state changed).
    pub fn read(
        &mut self,
        req: &MemRequest,
        token: u64,
        extra_queue: usize,
    ) -> Result<(Outcome, Option<Eviction>), FailReason> {
        let lk = self.tags.lookup(req.line_addr, req.sectors);
        if lk.way.is_none() && self.tags.victim(req.line_addr).is_none() {
            return self.fail(FailReason::LineAlloc).map(|o| (o, None));
        }
        let new = lk.invalid;
        let merge = lk.reserved;
        if (new.count_ones() as usize) > self.mshr.free()
            || sectors_of(merge).any(|s| !self.mshr.can_merge(sector_addr(req.line_addr, s)))
        {
            return self.fail(FailReason::Mshr).map(|o| (o, None));
        }
        if new != 0 && !self.miss_queue_has_room(1 + extra_queue) {
            return self.fail(FailReason::MissQueue).map(|o| (o, None));
        }
        self.stats.accesses += 1;
        self.stats.reads += 1;
        self.stats.sectors_accessed += req.sectors.count_ones() as u64;
        self.stats.sectors_missed += (new | merge).count_ones() as u64;
        let (way, ev) = match lk.way {
            Some(w) => (w, None),
            // A victim exists (checked above).
            None => self.allocate(req.line_addr).unwrap_or((0, None)),
        };
        self.tags.touch(req.line_addr, way);
        if new == 0 && merge == 0 {
            self.stats.hits += 1;
            return Ok((Outcome::Hit, ev));
        }
        self.tags
            .set_sectors(req.line_addr, way, new, SectorState::Reserved);
        for s in sectors_of(new | merge) {
            self.mshr.add(sector_addr(req.line_addr, s), token);
        }
        self.stats.mshr_merges += merge.count_ones() as u64;
        *self.pending.entry(token).or_insert(0) += (new | merge).count_ones();
        if new != 0 {
            self.miss_queue.push_back(MemRequest {
                id: token,
                line_addr: req.line_addr,
                sectors: new,
                kind: AccessKind::Load,
            });
        }
        let o = if lk.way.is_none() {
            self.stats.misses += 1;
            Outcome::Miss
        } else if new != 0 {
            self.stats.sector_misses += 1;
            Outcome::SectorMiss
        } else {
            self.stats.mshr_hits += 1;
            Outcome::MshrHit
        };
        Ok((o, ev))
    }

    /// Installs `sectors` of `line_addr` as written (write-allocate without fetch, as GPGPU-Sim's
    /// lazy-fetch-on-read L2 does for sector writes): allocates the line if needed and marks the
    /// sectors valid and dirty. Returns the outcome and any eviction, or `LineAlloc`.
    pub fn write_allocate(
        &mut self,
        req: &MemRequest,
    ) -> Result<(Outcome, Option<Eviction>), FailReason> {
        let lk = self.tags.lookup(req.line_addr, req.sectors);
        if lk.way.is_none() && self.tags.victim(req.line_addr).is_none() {
            return self.fail(FailReason::LineAlloc).map(|o| (o, None));
        }
        self.count_write(req, &lk);
        let (way, ev) = match lk.way {
            Some(w) => (w, None),
            None => self.allocate(req.line_addr).unwrap_or((0, None)),
        };
        self.tags.touch(req.line_addr, way);
        // Reserved sectors stay reserved (their fill will arrive); the others become valid.
        self.tags.set_sectors(
            req.line_addr,
            way,
            req.sectors & !lk.reserved,
            SectorState::Valid,
        );
        self.tags.set_dirty(req.line_addr, way, req.sectors);
        Ok((write_outcome(&lk, req.sectors), ev))
    }

    /// A write that does not allocate (write-through, no write-allocate): counts it and refreshes
    /// LRU on a hit. The caller forwards the write to the next level.
    pub fn write_no_allocate(&mut self, req: &MemRequest) -> Outcome {
        let lk = self.tags.lookup(req.line_addr, req.sectors);
        self.count_write(req, &lk);
        if let Some(w) = lk.way {
            self.tags.touch(req.line_addr, w);
        }
        write_outcome(&lk, req.sectors)
    }

    fn count_write(&mut self, req: &MemRequest, lk: &Lookup) {
        self.stats.accesses += 1;
        self.stats.writes += 1;
        self.stats.sectors_accessed += req.sectors.count_ones() as u64;
        self.stats.sectors_missed += (req.sectors & !lk.valid).count_ones() as u64;
        match write_outcome(lk, req.sectors) {
            Outcome::Hit => self.stats.hits += 1,
            Outcome::Miss => self.stats.misses += 1,
            _ => self.stats.sector_misses += 1,
        }
    }

    /// A fill of `sectors` of `line_addr` from the next level: marks them valid, releases their
    /// MSHR entries and returns the tokens whose last awaited sector arrived, in token order.
    pub fn fill(&mut self, line_addr: u64, sectors: u8) -> Vec<u64> {
        self.stats.fills += 1;
        self.tags.fill(line_addr, sectors);
        let mut done = Vec::new();
        for s in sectors_of(sectors) {
            for token in self.mshr.release(sector_addr(line_addr, s)) {
                if let Some(n) = self.pending.get_mut(&token) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        self.pending.remove(&token);
                        done.push(token);
                    }
                }
            }
        }
        done.sort_unstable();
        done
    }

    /// Tokens waiting for fills.
    pub fn outstanding(&self) -> usize {
        self.pending.len()
    }
}

fn write_outcome(lk: &Lookup, sectors: u8) -> Outcome {
    if lk.way.is_none() {
        Outcome::Miss
    } else if lk.valid == sectors {
        Outcome::Hit
    } else {
        Outcome::SectorMiss
    }
}
