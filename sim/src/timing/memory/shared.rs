//! Shared memory: bank conflicts (the largest number of distinct words in one bank)
//! serialise an access.

use super::{Divisor, MemTiming, MemoryHierarchy};
use crate::timing::activity::MemActivity;
use crate::timing::functional::WarpMemAccess;

impl MemoryHierarchy {
    /// Shared memory: bank conflicts serialise the distinct words of the busiest bank.
    pub(super) fn shared(
        &mut self,
        now: u64,
        acc: &WarpMemAccess,
        act: &mut MemActivity,
    ) -> MemTiming {
        act.shared_instructions += 1;
        act.shared_accesses += 1;
        let degree = if self.shared_conflict_free(acc) {
            1
        } else {
            self.shared_degree(acc)
        };
        act.shared_bank_conflict_cycles += u64::from(degree - 1);
        MemTiming {
            ready_at: now + u64::from(self.cfg.shared.latency) + u64::from(degree - 1),
            ldst_cycles: degree,
        }
    }

    /// Whether every bank the access touches holds a single distinct word (degree 1, the
    /// common case: unit stride, broadcasts), found without sorting: each bank remembers the
    /// first word seen in it. Only for at most 64 banks (a bit mask of the banks seen);
    /// `false` also means "not checked". Same answer as [`Self::shared_degree`] `== 1`
    /// (tested).
    fn shared_conflict_free(&mut self, acc: &WarpMemAccess) -> bool {
        let banks = self.d.shared_banks;
        if banks.d > 64 {
            return false;
        }
        let mut seen = 0u64;
        let bank_word = &mut self.bank_word;
        shared_words(acc, self.d.shared_bank_bytes, |w| {
            let b = banks.rem(w) as usize;
            let bit = 1u64 << b;
            if seen & bit == 0 {
                seen |= bit;
                bank_word[b] = w;
                true
            } else {
                bank_word[b] == w
            }
        })
    }

    /// Bank-conflict degree of a shared-memory access: the largest number of distinct
    /// words in one bank (at least 1). Up to 64 banks, the distinct words of each bank are
    /// chained in `words` as (word, previous entry + 1) and counted; more banks sort
    /// (see [`Self::shared_degree_sorted`]). Same degree either way (tested).
    fn shared_degree(&mut self, acc: &WarpMemAccess) -> u32 {
        let banks = self.d.shared_banks;
        if banks.d > 64 {
            return self.shared_degree_sorted(acc);
        }
        let mut seen = 0u64;
        // last entry + 1 of each bank's chain, and its length
        let mut head = [0u64; 64];
        let mut count = [0u32; 64];
        let mut degree = 1u32;
        let words = &mut self.words;
        words.clear();
        shared_words(acc, self.d.shared_bank_bytes, |w| {
            let b = banks.rem(w) as usize;
            let bit = 1u64 << b;
            let mut known = false;
            if seen & bit == 0 {
                seen |= bit;
                head[b] = 0;
                count[b] = 0;
            } else {
                let mut i = head[b];
                while let Some(&(x, prev)) = words.get((i as usize).wrapping_sub(1)) {
                    if x == w {
                        known = true;
                        break;
                    }
                    i = prev;
                }
            }
            if !known {
                words.push((w, head[b]));
                head[b] = words.len() as u64;
                count[b] += 1;
                degree = degree.max(count[b]);
            }
            true
        });
        degree
    }

    /// [`Self::shared_degree`] for any number of banks: sorts the (bank, word) pairs and
    /// takes the longest run of one bank.
    fn shared_degree_sorted(&mut self, acc: &WarpMemAccess) -> u32 {
        let banks = u64::from(self.cfg.shared.banks.max(1));
        let bb = u64::from(self.cfg.shared.bank_bytes.max(1));
        let size = u64::from(acc.bytes_per_lane.max(1));
        self.words.clear();
        let mut m = acc.mask;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let mut w = acc.addrs[l] / bb;
            let end = acc.addrs[l].saturating_add(size).div_ceil(bb);
            while w < end {
                self.words.push((w % banks, w));
                w += 1;
            }
        }
        self.words.sort_unstable();
        self.words.dedup();
        let mut degree = 1u32;
        let mut run = 0u32;
        let mut prev = u64::MAX;
        for &(b, _) in &self.words {
            run = if b == prev { run + 1 } else { 1 };
            prev = b;
            degree = degree.max(run);
        }
        degree
    }
}

/// Calls `f(w)` for every shared-memory word `w` (address / `bank_bytes`) the active lanes of
/// `acc` touch, lanes in order and each lane's words `a / bb ..= ⌈(a + size) / bb⌉ − 1` in
/// order, until `f` returns `false`; whether it ran to the end.
#[inline(always)]
fn shared_words(acc: &WarpMemAccess, bb: Divisor, mut f: impl FnMut(u64) -> bool) -> bool {
    let size = u64::from(acc.bytes_per_lane.max(1));
    let mut m = acc.mask;
    while m != 0 {
        let a = acc.addrs[m.trailing_zeros() as usize];
        m &= m - 1;
        let end = a.saturating_add(size);
        let last = bb.div(end) + u64::from(bb.rem(end) != 0);
        let mut w = bb.div(a);
        while w < last {
            if !f(w) {
                return false;
            }
            w += 1;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::timing::config::SharedMemConfig;
    use crate::timing::functional::{MemOpKind, MemSpaceKind};
    use crate::timing::memory::tests::{acc, small, Lcg};
    use crate::timing::memory::Derived;
    /// The conflict-free check and the chained per-bank count give the bank
    /// conflict degree of sorting the (bank, word) pairs, for 32 banks of 4 B and 16 banks
    /// of 8 B, narrow and wide lanes, broadcasts, strides and random addresses.
    #[test]
    fn shared_fast_paths_match_the_sorted_degree() {
        for (banks, bank_bytes) in [(32u32, 4u32), (16, 8), (3, 4)] {
            let mut m = small(4);
            m.cfg.shared = SharedMemConfig {
                banks,
                bank_bytes,
                latency: 5,
            };
            m.d = Derived::new(&m.cfg, 1.0);
            let mut rng = Lcg(u64::from(banks));
            for case in 0..4000 {
                let mut a = acc(MemSpaceKind::Shared, MemOpKind::Load, 0, 0);
                a.bytes_per_lane = [1, 2, 4, 4, 8, 16][(rng.next() % 6) as usize];
                a.mask = if case % 3 == 0 {
                    rng.next() as u32
                } else {
                    u32::MAX
                };
                let base = rng.next() % 512;
                let stride = [0u64, 1, 4, 8, 12, 128, 132][(rng.next() % 7) as usize];
                for (l, x) in a.addrs.iter_mut().enumerate() {
                    *x = if case % 5 == 4 {
                        rng.next() % 1024
                    } else {
                        base + l as u64 * stride
                    };
                }
                let sorted = m.shared_degree_sorted(&a);
                assert_eq!(
                    m.shared_degree(&a),
                    sorted,
                    "{banks}x{bank_bytes} {case}: {a:?}"
                );
                if m.shared_conflict_free(&a) {
                    assert_eq!(sorted, 1, "{banks}x{bank_bytes} {case}: {a:?}");
                } else {
                    assert!(sorted > 1, "{banks}x{bank_bytes} {case}: {a:?}");
                }
            }
        }
    }
}
