//! The address mapping table (AMT) of Jeon et al. 2019 §3 (Fig. 3): which physical register holds
//! the data of which warp-unit load.
//!
//! An entry describes one warp-unit load by its **pattern** (§3: "the base address (the
//! address of the first thread), the stride, and the active lane count"): lane `i < count`
//! read the 4-byte word at `base + i·stride`. regwatt adds what the seed's 38-bit entry has no
//! room for: the physical register (or, while the producing load is in flight, the producer
//! and the cycle its fill arrives), a valid bit, and the sub-core whose banks hold the row
//! (see the design README).
//!
//! Lookups:
//! * [`Amt::find`]: an entry with the same pattern (perfect sharing, §2.1);
//! * [`Amt::cover`]: at most two entries with the same stride whose lanes, shifted, cover the
//!   requested lanes (partial sharing, §2.2);
//! * [`Amt::overlapping`]: the entries whose words a store's address range touches (§3: "the
//!   address is checked from the address mapping table and the corresponding entry is
//!   deleted").
//!
//! Replacement when full (the seed is silent): least recently used (an entry is used when it
//! is inserted or hit).

use std::collections::{BTreeSet, HashMap};

use regwatt_sim::timing::functional::WarpMemAccess;
use regwatt_sim::timing::rf::RegId;

/// Largest lane stride an entry records: the seed's 9-bit stride field (§4.2), in bytes.
pub const MAX_STRIDE: u64 = (1 << 9) - 1;

/// Bytes of the highest word an entry can describe past its base: 31 strides plus a word.
const MAX_EXTENT: u64 = 31 * MAX_STRIDE + 4;

/// The addresses of a warp-unit load of 4-byte words (§3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pattern {
    /// Address of lane 0.
    pub base: u64,
    /// Bytes between consecutive lanes (0: every lane reads the same word).
    pub stride: u64,
    /// Active lanes: `0..count`.
    pub count: u8,
}

impl Pattern {
    /// The pattern of `acc`, if the AMT can describe it: one 4-byte word per lane, the active
    /// lanes a prefix of the warp (`0..count`), and lane `i` at `base + i·stride` with
    /// `0 ≤ stride ≤` [`MAX_STRIDE`].
    pub fn of(acc: &WarpMemAccess) -> Option<Pattern> {
        Self::word(acc, 1, 0)
    }

    /// The pattern of word `k` of a load of `words` 4-byte words per lane (a vector load's
    /// `k`-th destination register: `ld.global.v2`/`.v4` of 32-bit elements), if the AMT can
    /// describe the load: the lane addresses are affine as for [`Pattern::of`], and word `k`
    /// of lane `i` is at `base + 4k + i·stride`. `words = 1` is [`Pattern::of`].
    pub fn word(acc: &WarpMemAccess, words: u32, k: u32) -> Option<Pattern> {
        let m = acc.mask;
        if !matches!(words, 1 | 2 | 4)
            || k >= words
            || acc.bytes_per_lane != 4 * words
            || m == 0
            || m & m.wrapping_add(1) != 0
        {
            return None;
        }
        let count = m.count_ones() as usize;
        let base = acc.addrs[0];
        let stride = if count > 1 {
            acc.addrs[1].checked_sub(base)?
        } else {
            0
        };
        if stride > MAX_STRIDE {
            return None;
        }
        let affine = acc.addrs[..count]
            .iter()
            .enumerate()
            .all(|(i, &a)| base.checked_add(i as u64 * stride) == Some(a));
        affine.then_some(Pattern {
            base: base.checked_add(4 * u64::from(k))?,
            stride,
            count: count as u8,
        })
    }

    /// Address of lane `i`.
    #[inline]
    pub fn addr(&self, i: u64) -> u64 {
        self.base + i * self.stride
    }

    /// One past the last byte the pattern reads.
    pub fn end(&self) -> u64 {
        self.addr(u64::from(self.count.max(1)) - 1) + 4
    }
}

/// Where an entry's data is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// The producing load of (warp slot, register) is in flight; its data arrives at
    /// `fill_at` (0: not timed yet).
    Pending { slot: u16, reg: RegId, fill_at: u64 },
    /// Physical row `t` holds it.
    Row(usize),
}

/// One AMT entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub pattern: Pattern,
    /// Sub-core whose banks hold (or will hold) the row.
    pub sub_core: u8,
    pub holder: Holder,
    /// Last use (insert or hit), for LRU replacement.
    stamp: u64,
}

/// How at most two entries build a requested pattern (§2.2): lane `i < split` is lane
/// `i + first.1` of the first entry's row, lane `split ≤ i < count` lane `i + second.1` of
/// the second's (a shift by whole lanes, then an OR).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cover {
    /// (entry, lane shift ≥ 0).
    pub first: (u32, i64),
    /// Lanes taken from the first entry.
    pub split: u8,
    /// (entry, lane shift) of the rest, if the first does not cover every lane.
    pub second: Option<(u32, i64)>,
}

/// The AMT of one SM.
#[derive(Clone, Debug)]
pub struct Amt {
    /// Capacity (`None`: unbounded, Fig. 4's "infinite mappings").
    cap: Option<usize>,
    slots: Vec<Option<Entry>>,
    free: Vec<u32>,
    exact: HashMap<(u8, Pattern), u32>,
    /// (sub-core, stride, base, slot): the entries a cover search scans.
    by_stride: BTreeSet<(u8, u64, u64, u32)>,
    /// (base, slot): the entries a store's range search scans.
    by_base: BTreeSet<(u64, u32)>,
    /// (stamp, slot): recency order.
    lru: BTreeSet<(u64, u32)>,
    tick: u64,
}

/// Candidates a cover search examines per side (a bound on the comparators' work: 2 × 32
/// entries, the lanes of one warp).
const COVER_SCAN: usize = 32;

impl Amt {
    /// An empty AMT of `cap` entries (`None`: unbounded).
    pub fn new(cap: Option<usize>) -> Amt {
        Amt {
            cap,
            slots: Vec::new(),
            free: Vec::new(),
            exact: HashMap::new(),
            by_stride: BTreeSet::new(),
            by_base: BTreeSet::new(),
            lru: BTreeSet::new(),
            tick: 0,
        }
    }

    /// Valid entries.
    pub fn len(&self) -> usize {
        self.lru.len()
    }

    /// No valid entry.
    pub fn is_empty(&self) -> bool {
        self.lru.is_empty()
    }

    pub fn get(&self, i: u32) -> Option<&Entry> {
        self.slots.get(i as usize).and_then(Option::as_ref)
    }

    pub fn get_mut(&mut self, i: u32) -> Option<&mut Entry> {
        self.slots.get_mut(i as usize).and_then(Option::as_mut)
    }

    /// The entry with exactly this pattern in this sub-core.
    pub fn find(&self, sub_core: u8, p: &Pattern) -> Option<u32> {
        self.exact.get(&(sub_core, *p)).copied()
    }

    /// Marks entry `i` most recently used.
    pub fn touch(&mut self, i: u32) {
        self.tick += 1;
        let t = self.tick;
        if let Some(e) = self.slots.get_mut(i as usize).and_then(Option::as_mut) {
            self.lru.remove(&(e.stamp, i));
            e.stamp = t;
            self.lru.insert((t, i));
        }
    }

    /// The entry an insert would replace now: the least recently used one when full.
    pub fn victim(&self) -> Option<u32> {
        if self.cap.is_some_and(|c| self.len() >= c) {
            self.lru.iter().next().map(|&(_, v)| v)
        } else {
            None
        }
    }

    /// Inserts an entry (there is none with this pattern in this sub-core); returns its
    /// index and the entry evicted to make room ([`Amt::victim`]), if any.
    pub fn insert(
        &mut self,
        sub_core: u8,
        pattern: Pattern,
        holder: Holder,
    ) -> (u32, Option<Entry>) {
        let evicted = self.victim().and_then(|v| self.remove(v));
        self.tick += 1;
        let e = Entry {
            pattern,
            sub_core,
            holder,
            stamp: self.tick,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(e);
                i
            }
            None => {
                self.slots.push(Some(e));
                (self.slots.len() - 1) as u32
            }
        };
        self.exact.insert((sub_core, pattern), i);
        self.by_stride
            .insert((sub_core, pattern.stride, pattern.base, i));
        self.by_base.insert((pattern.base, i));
        self.lru.insert((e.stamp, i));
        (i, evicted)
    }

    /// Removes entry `i`; returns it.
    pub fn remove(&mut self, i: u32) -> Option<Entry> {
        let e = self.slots.get_mut(i as usize)?.take()?;
        self.exact.remove(&(e.sub_core, e.pattern));
        self.by_stride
            .remove(&(e.sub_core, e.pattern.stride, e.pattern.base, i));
        self.by_base.remove(&(e.pattern.base, i));
        self.lru.remove(&(e.stamp, i));
        self.free.push(i);
        Some(e)
    }

    /// The entries that read any byte of `lo..hi` (ascending by base, then index).
    pub fn overlapping(&self, lo: u64, hi: u64) -> Vec<u32> {
        let from = lo.saturating_sub(MAX_EXTENT);
        self.by_base
            .range((from, 0)..(hi, 0))
            .filter(|&&(_, i)| {
                self.get(i)
                    .is_some_and(|e| e.pattern.base < hi && e.pattern.end() > lo)
            })
            .map(|&(_, i)| i)
            .collect()
    }

    /// The best entry of `sub_core` with stride `s` holding lane addresses `a, a + s, …` for
    /// lanes `from..count` of `p` in a row (`Holder::Row`): the one covering the most of
    /// those lanes. Returns (entry, lane shift, lanes covered from `from`).
    fn best_from(&self, sub_core: u8, p: &Pattern, from: u64) -> Option<(u32, i64, u64)> {
        let s = p.stride;
        let a = p.addr(from);
        let want = u64::from(p.count) - from;
        let lo = a.saturating_sub(31 * s);
        let mut best: Option<(u32, i64, u64)> = None;
        for &(_, _, b, i) in self
            .by_stride
            .range((sub_core, s, lo, 0)..=(sub_core, s, a, u32::MAX))
            .rev()
            .take(COVER_SCAN)
        {
            let Some(e) = self.get(i) else { continue };
            if !matches!(e.holder, Holder::Row(_)) || !(a - b).is_multiple_of(s) {
                continue;
            }
            // lane j of the entry holds lane `from + (j − k)` of the request
            let k = (a - b) / s;
            let c = u64::from(e.pattern.count);
            if k >= c {
                continue;
            }
            let n = (c - k).min(want);
            if best.is_none_or(|(_, _, bn)| n > bn) {
                best = Some((i, k as i64 - from as i64, n));
            }
            if n == want {
                break;
            }
        }
        best
    }

    /// At most two entries (with rows, in `sub_core`) that together hold every lane of `p`
    /// (§3: "it finds up to two entries that together cover the requested data"), other than
    /// an exact match. `None` for a broadcast (stride 0) or when no two entries cover it.
    pub fn cover(&self, sub_core: u8, p: &Pattern) -> Option<Cover> {
        if p.stride == 0 {
            return None;
        }
        let n = u64::from(p.count);
        let (e1, k1, c1) = self.best_from(sub_core, p, 0)?;
        if c1 == n {
            return Some(Cover {
                first: (e1, k1),
                split: n as u8,
                second: None,
            });
        }
        let (e2, k2, c2) = self.best_from(sub_core, p, c1)?;
        (c1 + c2 == n).then_some(Cover {
            first: (e1, k1),
            split: c1 as u8,
            second: Some((e2, k2)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regwatt_sim::timing::functional::{MemOpKind, MemSpaceKind};

    fn load(base: u64, stride: u64, lanes: u32) -> WarpMemAccess {
        let mut a = WarpMemAccess {
            space: MemSpaceKind::Global,
            kind: MemOpKind::Load,
            bytes_per_lane: 4,
            mask: if lanes == 32 {
                u32::MAX
            } else {
                (1 << lanes) - 1
            },
            addrs: [0; 32],
        };
        for (i, x) in a.addrs.iter_mut().enumerate() {
            *x = base + i as u64 * stride;
        }
        a
    }

    #[test]
    fn patterns_are_prefix_affine_scalar_loads() {
        let p = Pattern::of(&load(0x1000, 4, 32)).expect("unit stride");
        assert_eq!((p.base, p.stride, p.count), (0x1000, 4, 32));
        assert_eq!(p.end(), 0x1000 + 32 * 4);
        assert_eq!(Pattern::of(&load(0x1000, 0, 32)).map(|p| p.stride), Some(0));
        assert_eq!(Pattern::of(&load(0x1000, 4, 7)).map(|p| p.count), Some(7));
        // the 9-bit stride field: 511 bytes at most
        assert!(Pattern::of(&load(0, 511, 32)).is_some());
        assert!(Pattern::of(&load(0, 512, 32)).is_none());
        // a mask with a hole, a scattered lane, an 8-byte load
        let mut a = load(0x1000, 4, 32);
        a.mask = 0xFFFF_FFFD;
        assert!(Pattern::of(&a).is_none());
        let mut a = load(0x1000, 4, 32);
        a.addrs[9] += 4;
        assert!(Pattern::of(&a).is_none());
        let mut a = load(0x1000, 8, 32);
        a.bytes_per_lane = 8;
        assert!(Pattern::of(&a).is_none());
        // descending addresses are not described
        let mut a = load(0x1000, 4, 32);
        a.addrs.reverse();
        assert!(Pattern::of(&a).is_none());
    }

    #[test]
    fn lru_replacement_and_exact_lookup() {
        let mut amt = Amt::new(Some(2));
        let p = |b| Pattern {
            base: b,
            stride: 4,
            count: 32,
        };
        let (a, _) = amt.insert(0, p(0), Holder::Row(1));
        let (b, _) = amt.insert(0, p(128), Holder::Row(2));
        assert_eq!(amt.find(0, &p(0)), Some(a));
        assert_eq!(amt.find(1, &p(0)), None, "another sub-core's entry");
        amt.touch(a);
        // full: the least recently used (b) goes
        let (_, ev) = amt.insert(0, p(256), Holder::Row(3));
        assert_eq!(ev.map(|e| e.pattern.base), Some(128));
        assert_eq!(amt.find(0, &p(128)), None);
        assert_eq!(amt.len(), 2);
        // b's slot is reused by the new entry
        assert_eq!(amt.get(b).map(|e| e.pattern.base), Some(256));
        let mut u = Amt::new(None);
        for k in 0..1000 {
            u.insert(0, p(k * 128), Holder::Row(k as usize));
        }
        assert_eq!(u.len(), 1000, "unbounded never replaces");
    }

    #[test]
    fn cover_finds_two_shifted_entries() {
        let mut amt = Amt::new(None);
        let p = |b, c| Pattern {
            base: b,
            stride: 4,
            count: c,
        };
        let (e1, _) = amt.insert(0, p(0x1000, 32), Holder::Row(5));
        let (e2, _) = amt.insert(0, p(0x1080, 32), Holder::Row(6));
        // shifted by 3 lanes: 29 lanes from the first, 3 from the second
        let c = amt.cover(0, &p(0x100C, 32)).expect("cover");
        assert_eq!(c.first, (e1, 3));
        assert_eq!(c.split, 29);
        assert_eq!(c.second, Some((e2, -29)));
        // lane 31 of the request = 0x100C + 124 = 0x1088 = lane 2 of the second entry
        assert_eq!(31 + c.second.map_or(0, |s| s.1), 2);
        // a subset of one entry: one read
        let c = amt.cover(0, &p(0x1004, 8)).expect("cover");
        assert_eq!((c.first, c.split, c.second), ((e1, 1), 8, None));
        // a pending entry cannot serve; a gap cannot be covered
        let mut amt2 = Amt::new(None);
        amt2.insert(0, p(0x1000, 32), Holder::Row(5));
        amt2.insert(
            0,
            p(0x1080, 32),
            Holder::Pending {
                slot: 0,
                reg: 1,
                fill_at: 9,
            },
        );
        assert!(amt2.cover(0, &p(0x100C, 32)).is_none());
        assert!(amt.cover(0, &p(0x1102, 32)).is_none(), "misaligned");
        assert!(amt.cover(1, &p(0x100C, 32)).is_none(), "other sub-core");
    }

    #[test]
    fn stores_find_every_overlapping_entry() {
        let mut amt = Amt::new(None);
        let (a, _) = amt.insert(
            0,
            Pattern {
                base: 0x1000,
                stride: 4,
                count: 32,
            },
            Holder::Row(1),
        );
        let (b, _) = amt.insert(
            0,
            Pattern {
                base: 0x2000,
                stride: 0,
                count: 32,
            },
            Holder::Row(2),
        );
        let (c, _) = amt.insert(
            1,
            Pattern {
                base: 0x0F00,
                stride: 256,
                count: 2,
            },
            Holder::Row(3),
        );
        assert_eq!(amt.overlapping(0x107C, 0x1080), vec![a]);
        assert!(amt.overlapping(0x1080, 0x1100).is_empty());
        assert_eq!(amt.overlapping(0x2000, 0x2001), vec![b]);
        // the second word of c is at 0x1000: a store there hits both
        let mut both = amt.overlapping(0x1000, 0x1004);
        both.sort_unstable();
        assert_eq!(both, vec![a, c]);
        // between c's two words: the search compares extents (base to last word), so it is
        // conservative and drops c too
        assert_eq!(amt.overlapping(0x0F04, 0x1000), vec![c]);
    }
}
