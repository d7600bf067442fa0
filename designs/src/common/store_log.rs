//! A log of global stores shared by the SMs of one launch: designs that keep copies of
//! global data in register structures (sharing's address mapping table, cerf's merged array)
//! drop the copies another SM's store makes stale.

/// The global stores and atomics of every SM of a launch, so that each SM's AMT drops the
/// entries another SM's store makes stale (the per-SM AMT cannot see them otherwise). Each
/// SM reads the log from its own cursor before every AMT search; entries every SM has read
/// are discarded.
#[derive(Debug, Default)]
pub struct StoreLog {
    /// (first byte, one past the last byte, SM) of each store, from `start`.
    ranges: Vec<(u64, u64, u32)>,
    start: u64,
    cursors: Vec<u64>,
}

impl StoreLog {
    /// A log for `sms` SMs.
    pub fn new(sms: u32) -> StoreLog {
        StoreLog {
            ranges: Vec::new(),
            start: 0,
            cursors: vec![0; sms as usize],
        }
    }

    pub(crate) fn push(&mut self, lo: u64, hi: u64, sm: u32) {
        self.ranges.push((lo, hi, sm));
        // drop what every SM has read, in large steps
        if self.ranges.len() >= 8192 {
            let done = self.cursors.iter().copied().min().unwrap_or(0);
            let n = done.saturating_sub(self.start) as usize;
            if n >= 4096 {
                self.ranges.drain(..n);
                self.start += n as u64;
            }
        }
    }

    /// The other SMs' stores SM `sm` has not seen yet; advances its cursor.
    pub(crate) fn unseen(&mut self, sm: u32) -> Vec<(u64, u64)> {
        let Some(c) = self.cursors.get_mut(sm as usize) else {
            return Vec::new();
        };
        let from = (*c).max(self.start) - self.start;
        let out = self.ranges[from as usize..]
            .iter()
            .filter(|r| r.2 != sm)
            .map(|r| (r.0, r.1))
            .collect();
        *c = self.start + self.ranges.len() as u64;
        out
    }
}
