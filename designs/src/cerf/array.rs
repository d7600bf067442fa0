//! The integrated array of Jing et al. 2016 (§III-B, Fig. 4): `banks` tag banks of `sets_per_bank`
//! sets × `ways` ways, one 128-byte entry per way holding a warp register or a cached line,
//! each entry in one of the four states of Fig. 6, exact LRU within a set (§III-D1).
//!
//! The array knows nothing of timing beyond each entry's `ready_at` (a fill in flight) and
//! of registers beyond their re-indexed address; [`super::CerfRf`] drives it.

use serde::Serialize;

/// Entry states of Fig. 6 (§III-D2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Vacant.
    Inactive,
    /// Holds a warp register.
    Reg,
    /// Holds a clean cached line.
    Cache,
    /// Holds a cached line a store updated (written back before the entry is reused).
    Dirty,
}

impl State {
    /// Index into per-state counters.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether the entry holds cache data.
    pub const fn is_line(self) -> bool {
        matches!(self, State::Cache | State::Dirty)
    }
}

/// Replacement policy (§III-D1, `design.replacement`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
pub enum Replacement {
    /// Exact LRU over everything in the set: a register may be evicted (spilled).
    #[serde(rename = "lru-fair")]
    LruFair,
    /// A register may replace cache data; cache data never replaces a register.
    #[serde(rename = "lru-prioritized")]
    LruPrioritized,
}

/// What is being placed, for the victim choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Incoming {
    Register,
    Line,
}

/// One entry's tag-side state (the 128 data bytes are kept apart, in [`Array::data`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub state: State,
    /// The register address (`Reg`) or line number (`Cache`, `Dirty`).
    pub key: u64,
    /// LRU stamp: larger is more recent.
    pub lru: u64,
    /// Cycle the entry's data is present (a fill in flight until then; `u64::MAX`: not yet
    /// timed).
    pub ready_at: u64,
    /// Cycle the entry entered its state (state-cycle accounting).
    pub since: u64,
}

impl Entry {
    const EMPTY: Entry = Entry {
        state: State::Inactive,
        key: 0,
        lru: 0,
        ready_at: 0,
        since: 0,
    };
}

/// The array of one SM.
#[derive(Clone, Debug)]
pub struct Array {
    banks: u64,
    sets_per_bank: u64,
    ways: usize,
    entries: Vec<Entry>,
    /// 32 words per entry: a register's lanes or a line's bytes (little-endian words).
    pub data: Vec<[u32; 32]>,
    clock: u64,
    /// Σ entry-cycles per [`State`], closed at each transition and by [`Array::close`].
    pub state_cycles: [u64; 4],
    /// Writes of a tag-bank row: an entry's tag installed, or its state bits changed
    /// (Jing et al. 2016 §III-E: 2 state bits per entry beside its tag).
    pub tag_writes: u64,
}

impl Array {
    /// `entries` entries in `banks` tag banks of `ways` ways (`entries` divisible by
    /// `banks × ways`, checked by the configuration).
    pub fn new(entries: usize, banks: usize, ways: usize) -> Array {
        let banks = banks.max(1);
        let ways = ways.max(1);
        let sets_per_bank = (entries / banks / ways).max(1);
        let n = banks * sets_per_bank * ways;
        Array {
            banks: banks as u64,
            sets_per_bank: sets_per_bank as u64,
            ways,
            entries: vec![Entry::EMPTY; n],
            data: vec![[0; 32]; n],
            clock: 0,
            state_cycles: [0; 4],
            tag_writes: 0,
        }
    }

    /// Entries in all.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the array has no entry (never: at least one bank, set and way).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Tag bank of an address (register address or line number): its low bits (§III-C: "the
    /// lowest 2 bits next to the block offset select which tag bank to access").
    pub fn bank_of(&self, key: u64) -> usize {
        (key % self.banks) as usize
    }

    /// First entry index of the set of `key`: tag bank, then the next bits (§III-C: "the
    /// next 6 bits index to the set location in the bank").
    fn set_base(&self, key: u64) -> usize {
        let bank = key % self.banks;
        let set = (key / self.banks) % self.sets_per_bank;
        ((bank * self.sets_per_bank + set) as usize) * self.ways
    }

    /// The entries of `key`'s set.
    pub fn set_of(&self, key: u64) -> std::ops::Range<usize> {
        let b = self.set_base(key);
        b..b + self.ways
    }

    pub fn entry(&self, i: usize) -> &Entry {
        &self.entries[i]
    }

    /// The way of `key`'s set holding `key` in a state `want` accepts.
    pub fn find(&self, key: u64, want: impl Fn(State) -> bool) -> Option<usize> {
        self.set_of(key)
            .find(|&i| want(self.entries[i].state) && self.entries[i].key == key)
    }

    /// Marks entry `i` most recently used.
    pub fn touch(&mut self, i: usize) {
        self.clock += 1;
        self.entries[i].lru = self.clock;
    }

    /// Moves entry `i` to `state` at `now`, closing its time in the old state.
    pub fn set_state(&mut self, i: usize, state: State, now: u64) {
        if self.entries[i].state != state {
            self.tag_writes += 1;
        }
        self.move_state(i, state, now);
    }

    /// [`Array::set_state`] without counting a tag write.
    fn move_state(&mut self, i: usize, state: State, now: u64) {
        let e = &mut self.entries[i];
        self.state_cycles[e.state.index()] += now.saturating_sub(e.since);
        e.state = state;
        e.since = now;
    }

    /// Fills entry `i` with `key` in `state`, data present at `ready_at`, most recently used.
    pub fn install(&mut self, i: usize, state: State, key: u64, ready_at: u64, now: u64) {
        self.tag_writes += 1;
        self.move_state(i, state, now);
        self.entries[i].key = key;
        self.entries[i].ready_at = ready_at;
        self.touch(i);
    }

    /// Sets when entry `i`'s data arrives.
    pub fn set_ready(&mut self, i: usize, at: u64) {
        self.entries[i].ready_at = at;
    }

    /// The way to place `incoming` for `key` in at `now`, if any (§III-D1):
    /// * an inactive way first;
    /// * `LruFair`: else the least recently used way whose data is present, whatever it
    ///   holds (a register is spilled, a dirty line written back);
    /// * `LruPrioritized`: else the least recently used line whose data is present; a line
    ///   never replaces a register, and a register replaces only lines;
    /// * a register must always be placed: failing the above, the least recently used line
    ///   even if its fill is in flight (the fill is then not installed), and last the least
    ///   recently used way of any kind.
    ///
    /// `None` only for a line with no eligible way (it then bypasses the array).
    pub fn victim(
        &self,
        key: u64,
        incoming: Incoming,
        policy: Replacement,
        now: u64,
    ) -> Option<usize> {
        let set = self.set_of(key);
        if let Some(i) = set
            .clone()
            .find(|&i| self.entries[i].state == State::Inactive)
        {
            return Some(i);
        }
        let lru = |ok: &dyn Fn(&Entry) -> bool| {
            set.clone()
                .filter(|&i| ok(&self.entries[i]))
                .min_by_key(|&i| self.entries[i].lru)
        };
        let present = |e: &Entry| e.ready_at <= now;
        let first = match policy {
            Replacement::LruFair => lru(&|e| present(e)),
            Replacement::LruPrioritized => lru(&|e| e.state.is_line() && present(e)),
        };
        match (first, incoming) {
            (Some(i), _) => Some(i),
            (None, Incoming::Line) => None,
            (None, Incoming::Register) => lru(&|e| e.state.is_line()).or_else(|| lru(&|_| true)),
        }
    }

    /// Closes the state-cycle accounting of every entry at `now` (end of the run).
    pub fn close(&mut self, now: u64) {
        for e in &mut self.entries {
            self.state_cycles[e.state.index()] += now.saturating_sub(e.since);
            e.since = now;
        }
    }

    /// Entries per state now.
    pub fn count(&self, s: State) -> usize {
        self.entries.iter().filter(|e| e.state == s).count()
    }

    /// Indices of every entry in state `s`.
    pub fn all(&self, s: State) -> Vec<usize> {
        (0..self.entries.len())
            .filter(|&i| self.entries[i].state == s)
            .collect()
    }
}
