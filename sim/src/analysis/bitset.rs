//! A fixed-width bit set over dense indices.

/// Fixed-size bit set.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BitSet {
    words: Vec<u64>,
    len: usize,
}

impl BitSet {
    /// An empty set able to hold `len` elements.
    pub fn new(len: usize) -> BitSet {
        BitSet {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// Capacity in elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if the capacity is zero.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Membership (false when out of range).
    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    /// Inserts `i` (ignored when out of range).
    #[inline]
    pub fn insert(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w |= 1u64 << (i % 64);
        }
    }

    /// Removes `i`.
    #[inline]
    pub fn remove(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1u64 << (i % 64));
        }
    }

    /// `self |= other`; returns true if `self` changed.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }

    /// Removes every member (the capacity is kept).
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// `self = other` without reallocating when the capacities agree.
    pub fn copy_from(&mut self, other: &BitSet) {
        if self.words.len() == other.words.len() {
            self.words.copy_from_slice(&other.words);
            self.len = other.len;
        } else {
            self.clone_from(other);
        }
    }

    /// `self = gen ∪ (out − kill)`, the backward dataflow transfer of a block (all four sets of
    /// the same capacity; words missing from `kill` or `gen` count as empty).
    pub fn assign_transfer(&mut self, out: &BitSet, kill: &BitSet, gen: &BitSet) {
        self.copy_from(out);
        for (i, w) in self.words.iter_mut().enumerate() {
            let k = kill.words.get(i).copied().unwrap_or(0);
            let g = gen.words.get(i).copied().unwrap_or(0);
            *w = (*w & !k) | g;
        }
    }

    /// Number of members.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Iterates the members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + b)
            })
        })
    }

    /// The raw words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_ops() {
        let mut a = BitSet::new(130);
        a.insert(0);
        a.insert(129);
        a.insert(500); // ignored
        assert!(a.contains(129) && !a.contains(128) && !a.contains(500));
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![0, 129]);
        let mut b = BitSet::new(130);
        b.insert(64);
        assert!(b.union_with(&a));
        assert!(!b.union_with(&a));
        assert_eq!(b.count(), 3);
        b.remove(64);
        assert_eq!(b.count(), 2);
    }

    #[test]
    fn transfer_and_copy() {
        let (mut out, mut kill, mut gen) = (BitSet::new(70), BitSet::new(70), BitSet::new(70));
        out.insert(1);
        out.insert(65);
        kill.insert(65);
        kill.insert(3);
        gen.insert(3);
        gen.insert(69);
        let mut x = BitSet::new(70);
        x.insert(2);
        x.assign_transfer(&out, &kill, &gen);
        assert_eq!(x.iter().collect::<Vec<_>>(), vec![1, 3, 69]);
        x.clear();
        assert_eq!((x.count(), x.len()), (0, 70));
        x.copy_from(&out);
        assert_eq!(x, out);
        let mut y = BitSet::new(3);
        y.copy_from(&out);
        assert_eq!(y, out);
    }
}
