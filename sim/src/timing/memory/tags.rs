//! Sectored set-associative tag arrays with LRU replacement ([`Tags`]), used by the L1D, the
//! L2 slices and the instruction and constant caches.

use crate::timing::config::{CacheConfig, SetIndex};

pub(super) const INVALID: u64 = u64::MAX;
/// No way / empty slot in the 32-bit way links and the line index.
pub(super) const NIL: u32 = u32::MAX;

/// Sectored set-associative tags with LRU; every valid sector knows the cycle its data
/// arrives (in the future while its fill is in flight).
///
/// Ways are never invalidated, so a set fills its ways in index order (`used` counts them)
/// and the victim of a full set is its least recently used way. Recency is kept as a
/// doubly-linked list per set (most recent at `mru`), and lines are found through a hash
/// index, so neither a lookup nor a replacement scans the ways: the same way is chosen as by
/// a scan for the first invalid way, else the oldest access stamp. Everything a hit reads
/// or writes of a way (tag, valid and dirty sectors, recency links, latest fill) shares one
/// 32-byte [`Way`] record.
#[derive(Clone, Debug)]
pub(super) struct Tags {
    sets: u64,
    /// `sets − 1` when `sets` is a power of two (set = line & mask), else `u64::MAX`.
    set_mask: u64,
    /// The set-index function ([`SetHash`]).
    hash: SetHash,
    ways: usize,
    spl: usize,
    pub(super) way: Vec<Way>,
    /// Fill cycle of every sector (`spl` per way).
    fill: Vec<u64>,
    set: Vec<SetState>,
    pub(super) index: LineIndex,
}

/// One way of a [`Tags`] set.
#[derive(Clone, Copy, Debug)]
pub(super) struct Way {
    /// Line held (`INVALID`: none).
    tag: u64,
    /// At least the latest fill cycle of the valid sectors (0 after allocation): at any
    /// cycle `>= ready` every valid sector is present, without reading `fill`.
    ready: u64,
    valid: u32,
    pub(super) dirty: u32,
    /// Recency links between the ways of a set (global way numbers, `NIL` at the ends).
    newer: u32,
    older: u32,
}

/// How a [`Tags`] maps a line to its set.
#[derive(Clone, Copy, Debug)]
enum SetHash {
    /// `line mod sets`.
    Linear,
    /// The IPOLY parity masks of the set-index bits ([`ipoly_masks`]; 16, 32 or 64 sets).
    Ipoly(&'static [u64]),
    /// The Fermi hash ([`fermi_set`]); `true`: 64 sets.
    Fermi(bool),
}

/// Per-set state of a [`Tags`].
#[derive(Clone, Copy, Debug)]
pub(super) struct SetState {
    /// Valid ways.
    used: u32,
    /// Most and least recently used way (`NIL`: empty set).
    mru: u32,
    lru: u32,
}

/// Line → way index of a [`Tags`]: open addressing with linear probing over way numbers
/// (the key is the way's tag), Fibonacci hashing, at most half full, backward-shift
/// deletion. Only answers "which way holds this line", so iteration order never reaches any
/// output.
#[derive(Clone, Debug)]
pub(super) struct LineIndex {
    slots: Vec<u32>,
    shift: u32,
}

impl LineIndex {
    fn new(lines: usize) -> LineIndex {
        let n = lines.saturating_mul(2).max(2).next_power_of_two();
        LineIndex {
            slots: vec![NIL; n],
            shift: 64 - n.trailing_zeros(),
        }
    }

    /// Home slot of `line` (Knuth's multiplicative hashing, 2^64 / golden ratio).
    #[inline(always)]
    fn home(&self, line: u64) -> usize {
        (line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline(always)]
    pub(super) fn find(&self, ways: &[Way], line: u64) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(line);
        loop {
            let w = *self.slots.get(i)?;
            if w == NIL {
                return None;
            }
            if ways.get(w as usize)?.tag == line {
                return Some(w as usize);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `way` (holding `ways[way].tag`, not yet indexed).
    fn insert(&mut self, ways: &[Way], way: usize) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(ways[way].tag);
        while self.slots[i] != NIL {
            i = (i + 1) & mask;
        }
        self.slots[i] = way as u32;
    }

    /// Removes `way` (still holding its indexed line in `ways[way].tag`).
    fn remove(&mut self, ways: &[Way], way: usize) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(ways[way].tag);
        while self.slots[i] != way as u32 {
            if self.slots[i] == NIL {
                return;
            }
            i = (i + 1) & mask;
        }
        // backward-shift deletion: move later entries of the probe run into the hole when
        // their home slot does not lie cyclically in (hole, their slot]
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            let w = self.slots[j];
            if w == NIL {
                break;
            }
            let k = self.home(ways[w as usize].tag);
            let stays = if i <= j {
                i < k && k <= j
            } else {
                i < k || k <= j
            };
            if !stays {
                self.slots[i] = w;
                i = j;
            }
        }
        self.slots[i] = NIL;
    }
}

/// State of the sectors of one line at a lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Lookup {
    pub(super) way: usize,
    /// Sectors whose data is present at the lookup cycle.
    pub(super) present: u32,
    /// Latest fill cycle among the requested sectors still in flight (0: none).
    pub(super) inflight_until: u64,
    pub(super) inflight: u32,
    /// Requested sectors not in the cache.
    pub(super) missing: u32,
    /// A line evicted to make room: (line, dirty sectors).
    pub(super) victim: Option<(u64, u32)>,
}

/// Bit mask of the listed bit positions.
const fn mask(bits: &[u32]) -> u64 {
    let mut m = 0;
    let mut i = 0;
    while i < bits.len() {
        m |= 1 << bits[i];
        i += 1;
    }
    m
}

/// GPGPU-Sim's IPOLY set-index equations (`ipoly_hash_function`, `src/gpgpu-sim/hashing.cc`,
/// gpgpu-sim_distribution 667834cf; Rau, "Pseudo-randomly interleaved memory", ISCA 1991):
/// entry `i` lists the bits `a[..]` of the line number above the set-index bits
/// (`higher_bits = addr >> (line_sz_log2 + nset_log2)`) whose parity flips set-index bit `i`.
/// 16 sets: IPOLY(5); 32 sets: IPOLY(37); 64 sets: IPOLY(67).
const IPOLY_16: [u64; 4] = [
    mask(&[11, 10, 9, 8, 6, 4, 3, 0]),
    mask(&[12, 8, 7, 6, 5, 3, 1, 0]),
    mask(&[9, 8, 7, 6, 4, 2, 1]),
    mask(&[10, 9, 8, 7, 5, 3, 2]),
];
const IPOLY_32: [u64; 5] = [
    mask(&[13, 12, 11, 10, 9, 6, 5, 3, 0]),
    mask(&[14, 13, 12, 11, 10, 7, 6, 4, 1]),
    mask(&[14, 10, 9, 8, 7, 6, 3, 2, 0]),
    mask(&[11, 10, 9, 8, 7, 4, 3, 1]),
    mask(&[12, 11, 10, 9, 8, 5, 4, 2]),
];
const IPOLY_64: [u64; 6] = [
    mask(&[18, 17, 16, 15, 12, 10, 6, 5, 0]),
    mask(&[15, 13, 12, 11, 10, 7, 5, 1, 0]),
    mask(&[16, 14, 13, 12, 11, 8, 6, 2, 1]),
    mask(&[17, 15, 14, 13, 12, 9, 7, 3, 2]),
    mask(&[18, 16, 15, 14, 13, 10, 8, 4, 3]),
    mask(&[17, 16, 15, 14, 11, 9, 5, 4]),
];

/// The set a line (`address / line_bytes`) falls in, in a cache of configuration `c`, as the
/// simulator's tags index it ([`Tags`]): IPOLY or the Fermi hash where the configuration
/// allows them, otherwise `line mod sets`. For a design that keeps lines in storage of its own
/// and needs to know where a line of the L1D lives.
pub fn set_of_line(c: &CacheConfig, line: u64) -> usize {
    let sets = u64::from(c.sets.max(1));
    match c.set_index {
        SetIndex::Ipoly => {
            if let Some(m) = ipoly_masks(sets) {
                return ipoly_set(line, m) as usize;
            }
        }
        SetIndex::Fermi if matches!(sets, 32 | 64) && c.line_bytes == 128 => {
            return fermi_set(line, sets == 64) as usize;
        }
        _ => {}
    }
    (line % sets) as usize
}

/// The IPOLY equations of a cache of `sets` sets (`None`: GPGPU-Sim has none for it; the
/// configuration check allows IPOLY only with 16, 32 or 64 sets).
fn ipoly_masks(sets: u64) -> Option<&'static [u64]> {
    match sets {
        16 => Some(&IPOLY_16),
        32 => Some(&IPOLY_32),
        64 => Some(&IPOLY_64),
        _ => None,
    }
}

/// IPOLY set of `line` (GPGPU-Sim `cache_config::hash_function`, case `HASH_IPOLY_FUNCTION`,
/// `gpu-cache.cc`, and `ipoly_hash_function`, `hashing.cc`): set-index bit `i` = bit `i` of
/// `index = line mod sets` XOR the parity of `higher & masks[i]`, `higher = line / sets`.
/// For the L2, `line` is the line number inside its slice, which is GPGPU-Sim's partition
/// address over the line size (`l2_cache_config::set_index` hashes
/// `linear_to_raw_address_translation::partition_address`, `addrdec.cc`: for the rtx2060
/// mapping, `((addr >> 8) / 12) << 7 | addr & 0x7f`, i.e. line `addr / 3072` of its slice).
#[inline(always)]
fn ipoly_set(line: u64, masks: &[u64]) -> u64 {
    let n = masks.len() as u32;
    let higher = line >> n;
    let mut set = line & ((1 << n) - 1);
    for (i, &m) in masks.iter().enumerate() {
        set ^= u64::from((higher & m).count_ones() & 1) << i;
    }
    set
}

/// Fermi-hash set of the 128-byte `line` (GPGPU-Sim `cache_config::hash_function`, case
/// `FERMI_HASH_SET_FUNCTION`, `gpu-cache.cc` at 667834cf, after Nugteren et al., HPCA 2014):
/// address bits 7-11 (the line's low five bits) XOR the five bits gathered from address bits
/// 13, 14, 15, 17 and 19; a 64-set cache takes address bit 12 as set bit 5. The configuration
/// check allows it only for 32 or 64 sets of 128-byte lines.
#[inline(always)]
fn fermi_set(line: u64, sets64: bool) -> u64 {
    let addr = line << 7;
    let lower = line & 0x1f;
    let upper = ((addr >> 13) & 0x7) | (((addr >> 17) & 1) << 3) | (((addr >> 19) & 1) << 4);
    let mut set = lower ^ upper;
    if sets64 {
        set |= ((addr >> 12) & 1) << 5;
    }
    set
}

impl Tags {
    pub(super) fn new(cfg: CacheConfig) -> Tags {
        let sets = cfg.sets.max(1) as usize;
        let ways = cfg.ways.max(1) as usize;
        let n = sets * ways;
        let spl = (cfg.line_bytes / cfg.sector_bytes.max(1)).max(1) as usize;
        Tags {
            sets: sets as u64,
            set_mask: if sets.is_power_of_two() {
                sets as u64 - 1
            } else {
                u64::MAX
            },
            hash: match cfg.set_index {
                SetIndex::Linear => SetHash::Linear,
                SetIndex::Ipoly => ipoly_masks(sets as u64).map_or(SetHash::Linear, SetHash::Ipoly),
                SetIndex::Fermi if matches!(sets, 32 | 64) && cfg.line_bytes == 128 => {
                    SetHash::Fermi(sets == 64)
                }
                SetIndex::Fermi => SetHash::Linear,
            },
            ways,
            spl,
            way: vec![
                Way {
                    tag: INVALID,
                    ready: 0,
                    valid: 0,
                    dirty: 0,
                    newer: NIL,
                    older: NIL,
                };
                n
            ],
            fill: vec![0; n * spl],
            set: vec![
                SetState {
                    used: 0,
                    mru: NIL,
                    lru: NIL,
                };
                sets
            ],
            index: LineIndex::new(n),
        }
    }

    /// Set of `line`: `line mod sets`, its IPOLY hash ([`ipoly_set`]) or its Fermi hash
    /// ([`fermi_set`]).
    #[inline(always)]
    fn set_of(&self, line: u64) -> usize {
        match self.hash {
            SetHash::Ipoly(masks) => ipoly_set(line, masks) as usize,
            SetHash::Fermi(sets64) => fermi_set(line, sets64) as usize,
            SetHash::Linear if self.set_mask != u64::MAX => (line & self.set_mask) as usize,
            SetHash::Linear => (line % self.sets) as usize,
        }
    }

    /// Makes `way` (of `set`) the most recently used way; `linked`: it is in the list already.
    #[inline(always)]
    fn touch(&mut self, set: usize, way: usize, linked: bool) {
        let w = way as u32;
        let m = self.set[set].mru;
        if m == w {
            return;
        }
        if linked {
            // unlink (not the MRU, so it has a newer neighbour)
            let (n, o) = (self.way[way].newer, self.way[way].older);
            self.way[n as usize].older = o;
            if o == NIL {
                self.set[set].lru = n;
            } else {
                self.way[o as usize].newer = n;
            }
        }
        self.way[way].older = m;
        self.way[way].newer = NIL;
        if m == NIL {
            self.set[set].lru = w;
        } else {
            self.way[m as usize].newer = w;
        }
        self.set[set].mru = w;
    }

    /// Looks `sectors` of `line` up at cycle `t`. With `allocate` a missing line takes the LRU
    /// way (its sectors invalid) and a dirty victim is reported; without, `way` is
    /// `usize::MAX` when the line is absent.
    #[inline(always)]
    pub(super) fn lookup(&mut self, line: u64, sectors: u32, t: u64, allocate: bool) -> Lookup {
        let (way, victim) = match self.index.find(&self.way, line) {
            Some(w) => {
                self.touch(self.set_of(line), w, true);
                (w, None)
            }
            None if allocate => self.allocate(line),
            None => {
                return Lookup {
                    way: usize::MAX,
                    present: 0,
                    inflight_until: 0,
                    inflight: 0,
                    missing: sectors,
                    victim: None,
                }
            }
        };
        let mut r = self.sectors(way, sectors, t);
        r.victim = victim;
        r
    }

    /// State of `sectors` of the line in `way` at cycle `t` (no recency update, no victim).
    #[inline(always)]
    pub(super) fn sectors(&self, way: usize, sectors: u32, t: u64) -> Lookup {
        let w = &self.way[way];
        let valid = w.valid & sectors;
        let mut r = Lookup {
            way,
            present: valid,
            inflight_until: 0,
            inflight: 0,
            missing: sectors & !valid,
            victim: None,
        };
        if w.ready > t {
            // some valid sector may still be in flight: check them one by one
            r.present = 0;
            let fills = &self.fill[way * self.spl..];
            let mut v = valid;
            while v != 0 {
                let s = v.trailing_zeros() as usize;
                v &= v - 1;
                let f = fills[s];
                if f > t {
                    r.inflight |= 1 << s;
                    r.inflight_until = r.inflight_until.max(f);
                } else {
                    r.present |= 1 << s;
                }
            }
        }
        r
    }

    /// Places absent `line` in the first unused way of its set, else in the LRU way, with
    /// no valid sectors; returns the way and the evicted line with its dirty sectors, if any.
    #[inline(never)]
    fn allocate(&mut self, line: u64) -> (usize, Option<(u64, u32)>) {
        let set = self.set_of(line);
        let n = self.set[set].used as usize;
        let mut victim = None;
        let w = if n < self.ways {
            self.set[set].used += 1;
            set * self.ways + n
        } else {
            let w = self.set[set].lru as usize;
            if self.way[w].dirty != 0 {
                victim = Some((self.way[w].tag, self.way[w].dirty));
            }
            self.index.remove(&self.way, w);
            w
        };
        let way = &mut self.way[w];
        way.tag = line;
        way.valid = 0;
        way.dirty = 0;
        way.ready = 0;
        self.index.insert(&self.way, w);
        self.touch(set, w, n >= self.ways);
        (w, victim)
    }

    /// Makes every valid sector present from cycle 0 (a new launch's time base).
    pub(super) fn settle(&mut self) {
        for w in &mut self.way {
            w.ready = 0;
        }
        self.fill.fill(0);
    }

    /// Marks `sectors` of the line in `way` valid with data from cycle `at`.
    #[inline]
    pub(super) fn fill(&mut self, way: usize, sectors: u32, at: u64) {
        let w = &mut self.way[way];
        w.valid |= sectors;
        // the largest cycle filled since the allocation bounds every valid sector's
        w.ready = w.ready.max(at);
        let mut v = sectors;
        while v != 0 {
            let s = v.trailing_zeros() as usize;
            v &= v - 1;
            self.fill[way * self.spl + s] = at;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::memory::bits;
    use crate::timing::memory::tests::Lcg;
    /// The tag model of the original implementation (scan for the line; allocate the first
    /// invalid way, else the way with the oldest stamp): the reference for [`Tags`].
    struct ScanTags {
        sets: u64,
        ways: usize,
        tags: Vec<u64>,
        stamp: Vec<u64>,
        dirty: Vec<u32>,
        clock: u64,
    }

    impl ScanTags {
        /// (way or `usize::MAX`, victim) of a lookup.
        fn lookup(&mut self, line: u64, allocate: bool) -> (usize, Option<(u64, u32)>) {
            self.clock += 1;
            let base = (line % self.sets) as usize * self.ways;
            let mut victim = None;
            let way = match (base..base + self.ways).find(|&i| self.tags[i] == line) {
                Some(w) => w,
                None if allocate => {
                    let w = (base..base + self.ways)
                        .find(|&i| self.tags[i] == INVALID)
                        .or_else(|| (base..base + self.ways).min_by_key(|&i| self.stamp[i]))
                        .unwrap_or(base);
                    if self.tags[w] != INVALID && self.dirty[w] != 0 {
                        victim = Some((self.tags[w], self.dirty[w]));
                    }
                    self.tags[w] = line;
                    self.dirty[w] = 0;
                    w
                }
                None => return (usize::MAX, None),
            };
            self.stamp[way] = self.clock;
            (way, victim)
        }
    }

    /// The hashed, linked-LRU tags choose the same ways and victims as a scan of the
    /// set with access stamps (power-of-two and other set counts, one and many ways, hits,
    /// non-allocating probes, dirty victims).
    #[test]
    fn tags_match_the_scanning_lru() {
        for (sets, ways) in [(4u32, 4u32), (3, 5), (1, 1), (2, 16), (4, 128), (1, 3)] {
            let cfg = CacheConfig {
                sets,
                ways,
                line_bytes: 128,
                sector_bytes: 32,
                set_index: SetIndex::Linear,
            };
            let mut t = Tags::new(cfg);
            let n = (sets * ways) as usize;
            let mut r = ScanTags {
                sets: u64::from(sets),
                ways: ways as usize,
                tags: vec![INVALID; n],
                stamp: vec![0; n],
                dirty: vec![0; n],
                clock: 0,
            };
            let mut rng = Lcg(u64::from(sets * 1000 + ways));
            let span = u64::from(sets * ways) * 3;
            for step in 0..20_000u64 {
                let line = rng.next() % span;
                let sectors = (rng.next() % 15 + 1) as u32;
                let allocate = !rng.next().is_multiple_of(4);
                let now = step;
                let look = t.lookup(line, sectors, now, allocate);
                let (way, victim) = r.lookup(line, allocate);
                assert_eq!(
                    (look.way, look.victim),
                    (way, victim),
                    "{sets}x{ways} {step}"
                );
                if way != usize::MAX {
                    t.fill(look.way, look.missing, now + rng.next() % 8);
                    if rng.next().is_multiple_of(3) {
                        let d = (rng.next() % 15 + 1) as u32;
                        t.way[way].dirty |= d;
                        r.dirty[way] |= d;
                    }
                }
            }
        }
    }

    /// The per-way `ready` bound only skips the per-sector scan when it cannot
    /// change the answer: `sectors` agrees with a scan of every sector's fill cycle.
    #[test]
    fn way_ready_bound_keeps_sector_states() {
        let cfg = CacheConfig {
            sets: 2,
            ways: 4,
            line_bytes: 128,
            sector_bytes: 32,
            set_index: SetIndex::Linear,
        };
        let mut t = Tags::new(cfg);
        let mut rng = Lcg(9);
        for step in 0..20_000u64 {
            let line = rng.next() % 24;
            let req = (rng.next() % 15 + 1) as u32;
            let at = step + rng.next() % 50;
            let look = t.lookup(line, req, at, true);
            // the reference: every valid requested sector by its fill cycle
            let w = look.way;
            let (mut present, mut inflight, mut until) = (0u32, 0u32, 0u64);
            for s in bits(t.way[w].valid & req) {
                let f = t.fill[w * t.spl + s as usize];
                if f > at {
                    inflight |= 1 << s;
                    until = until.max(f);
                } else {
                    present |= 1 << s;
                }
            }
            assert_eq!(
                (look.present, look.inflight, look.inflight_until),
                (present, inflight, until),
                "step {step}"
            );
            assert_eq!(look.missing, req & !t.way[w].valid, "step {step}");
            let fill = (rng.next() % 16) as u32;
            t.fill(w, fill, at + rng.next() % 100);
        }
    }

    /// IPOLY sets computed by hand from GPGPU-Sim's equations (`hashing.cc`): a line number
    /// is `higher << log2(sets) | index`, and set bit `i` is `index[i]` XOR the parity of the
    /// `a[..]` bits listed for it.
    #[test]
    fn ipoly_sets_follow_the_gpgpusim_equations() {
        let set = |sets: u64, line: u64| ipoly_set(line, ipoly_masks(sets).expect("sets"));
        // 64 sets, IPOLY(67)
        assert_eq!(set(64, 0), 0);
        assert_eq!(set(64, 37), 37); // no higher bits: the linear index
        assert_eq!(set(64, 1 << 6), 0b000011); // a[0] is in bits 0 and 1
        assert_eq!(set(64, 2 << 6), 0b000110); // a[1]: bits 1, 2
        assert_eq!(set(64, 1 << (6 + 5)), 0b100011); // a[5]: bits 0, 1, 5
        assert_eq!(set(64, 1 << (6 + 18)), 0b010001); // a[18]: bits 0, 4
        assert_eq!(set(64, 1 << (6 + 19)), 0); // a[19] is in no equation
        assert_eq!(set(64, (1 << 6) | 5), 0b000110); // 5 ^ 3
        assert_eq!(set(64, (3 << 6) | 1), 0b000100); // a[0], a[1]: 0b101, ^ 1
                                                     // rtx2060 L2: address 64 x 3072 is line 64 of its slice (partition address 64 << 7)
        assert_eq!(set(64, (64 * 3072u64) / 3072), 3);
        // 32 sets, IPOLY(37)
        assert_eq!(set(32, 1 << 5), 0b00101); // a[0]: bits 0, 2
        assert_eq!(set(32, 1 << (5 + 14)), 0b00110); // a[14]: bits 1, 2
        assert_eq!(set(32, (1 << (5 + 8)) | 0b11111), 0b11111 ^ 0b11100); // a[8]: bits 2, 3, 4
                                                                          // 16 sets, IPOLY(5)
        assert_eq!(set(16, 1 << 4), 0b0011); // a[0]: bits 0, 1
        assert_eq!(set(16, 1 << (4 + 12)), 0b0010); // a[12]: bit 1
        assert_eq!(set(16, 1 << (4 + 6)), 0b0111); // a[6]: bits 0, 1, 2
        assert!(ipoly_masks(128).is_none());
    }

    /// IPOLY's point (Rau 1991): `sets` lines at any power-of-two stride fall in distinct sets
    /// (within the address bits the equations cover), where `line mod sets` puts every line of a
    /// stride of `sets` lines or more in one set.
    #[test]
    fn ipoly_spreads_power_of_two_strides() {
        for (sets, top) in [(16u64, 12u32), (32, 14), (64, 18)] {
            let masks = ipoly_masks(sets).expect("sets");
            let n = sets.trailing_zeros();
            // strides 2^k lines whose `sets` multiples stay within bit `n + top`
            for k in 0..=top + 1 {
                let mut seen: Vec<u64> = (0..sets).map(|j| ipoly_set(j << k, masks)).collect();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len() as u64, sets, "{sets} sets, stride 2^{k}");
                if k >= n {
                    assert!((0..sets).all(|j| (j << k) % sets == 0));
                }
            }
        }
    }

    /// Misses of a second pass over `n` lines at a stride of `stride` lines through a fresh
    /// tag array of `sets` x `ways` 128-byte lines with `set_index` (the first pass fills).
    fn second_pass_misses(sets: u32, ways: u32, set_index: SetIndex, stride: u64, n: u64) -> usize {
        let mut t = Tags::new(CacheConfig {
            sets,
            ways,
            line_bytes: 128,
            sector_bytes: 32,
            set_index,
        });
        for j in 0..n {
            let look = t.lookup(j * stride, 1, 0, true);
            t.fill(look.way, look.missing, 0);
        }
        (0..n)
            .filter(|j| t.lookup(j * stride, 1, 1, true).missing != 0)
            .count()
    }

    /// A hashed tag array keeps `sets` lines at a stride of `sets` lines, all of which
    /// conflict in one set under `line mod sets`.
    #[test]
    fn ipoly_tags_hold_a_set_stride() {
        for (set_index, misses) in [(SetIndex::Linear, 64), (SetIndex::Ipoly, 0)] {
            assert_eq!(
                second_pass_misses(64, 2, set_index, 64, 64),
                misses,
                "{set_index:?}"
            );
        }
    }

    /// Fermi-hash sets computed by hand from GPGPU-Sim's `FERMI_HASH_SET_FUNCTION`: address
    /// bits 7-11 XOR (bits 13, 14, 15, 17, 19), bit 12 on top with 64 sets; bits 16 and 18
    /// take no part.
    #[test]
    fn fermi_sets_follow_the_gpgpusim_function() {
        let set = |sets64: bool, addr: u64| fermi_set(addr / 128, sets64);
        assert_eq!(set(false, 0), 0);
        assert_eq!(set(false, 0x80), 1); // line 1: the linear index
        assert_eq!(set(false, 0x2000), 1); // bit 13 -> set bit 0
        assert_eq!(set(false, 0x8000), 4); // bit 15 -> set bit 2
        assert_eq!(set(false, 0x20000), 8); // bit 17 -> set bit 3
        assert_eq!(set(false, 0x80000), 16); // bit 19 -> set bit 4
        assert_eq!(set(false, 0x4100), 0); // bit 14 cancels bit 8 (set bit 1 twice)
        assert_eq!(set(false, 0x10000 | 0x40000), 0); // bits 16 and 18 ignored
        assert_eq!(set(false, 0x1000), 0); // bit 12: only a 64-set cache uses it
        assert_eq!(set(true, 0x1000), 32);
        assert_eq!(set(true, 0x1000 | 0x2000 | 0x180), 32 | (3 ^ 1));
    }

    /// The public set function is the tags' own, for every set-index kind and set count.
    #[test]
    fn set_of_line_is_the_tags_set() {
        let mut rng = Lcg(7);
        for (sets, set_index) in [
            (32, SetIndex::Fermi),
            (64, SetIndex::Fermi),
            (16, SetIndex::Fermi),
            (32, SetIndex::Ipoly),
            (64, SetIndex::Ipoly),
            (12, SetIndex::Ipoly),
            (32, SetIndex::Linear),
            (48, SetIndex::Linear),
        ] {
            let c = CacheConfig {
                sets,
                ways: 4,
                line_bytes: 128,
                sector_bytes: 128,
                set_index,
            };
            let t = Tags::new(c);
            for _ in 0..2000 {
                let line = (rng.next() << 12) ^ rng.next();
                assert_eq!(set_of_line(&c, line), t.set_of(line), "{c:?} line {line}");
            }
        }
    }

    /// The gtx480 L1D (32 sets x 4 ways) under the Fermi hash keeps 32 lines at a 4 KB stride
    /// (they fall in 8 sets, 4 each), which `line mod sets` puts all in set 0, where 4 ways
    /// hold 4 of them.
    #[test]
    fn fermi_tags_hold_a_4kb_stride() {
        for (set_index, misses) in [(SetIndex::Linear, 32), (SetIndex::Fermi, 0)] {
            assert_eq!(
                second_pass_misses(32, 4, set_index, 32, 32),
                misses,
                "{set_index:?}"
            );
        }
    }
}
