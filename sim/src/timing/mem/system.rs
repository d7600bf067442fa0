//! The memory side below the SMs: the sliced L2 and its DRAM channels, advanced together one
//! cycle at a time. (The interconnect between SMs and L2 is not modelled here: requests reach
//! the L2 input queues in the cycle they are pushed.)

use serde::Serialize;

use super::cache::CacheStats;
use super::dram::{DramChannel, DramConfig, DramStats};
use super::l2::{L2Config, L2};
use super::{check, AccessKind, ConfigError, MemRequest};

/// Statistics of the memory side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MemSystemStats {
    /// L2, summed over slices.
    pub l2: CacheStats,
    /// DRAM, summed over channels.
    pub dram: DramStats,
}

/// L2 + DRAM.
#[derive(Clone, Debug)]
pub struct MemSystem {
    l2: L2,
    dram: Vec<DramChannel>,
    now: u64,
}

impl MemSystem {
    /// Builds the L2 and `dram.channels` channels; the L2's slices must map onto exactly that many
    /// channels.
    pub fn new(l2: L2Config, dram: DramConfig) -> Result<Self, ConfigError> {
        let l2m = L2::new(l2)?;
        dram.validate()?;
        check(l2.channels() == dram.channels, "dram", "channels", || {
            format!(
                "{} channels, but the L2's {} slices at {} per channel need {}",
                dram.channels,
                l2.slices,
                l2.slices_per_channel,
                l2.channels()
            )
        })?;
        let chans = (0..dram.channels)
            .map(|_| DramChannel::new(dram))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(MemSystem {
            l2: l2m,
            dram: chans,
            now: 0,
        })
    }

    /// RTX 2060 presets for both parts.
    pub fn rtx2060() -> Result<Self, ConfigError> {
        MemSystem::new(L2Config::rtx2060(), DramConfig::rtx2060())
    }

    /// The current cycle (the next one [`cycle`](Self::cycle) simulates).
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Offers a request from an SM; gives it back when its L2 slice's input queue is full.
    pub fn push(&mut self, req: MemRequest) -> Result<(), MemRequest> {
        self.l2.push(self.now, req)
    }

    /// Simulates one cycle: L2 slices serve their inputs, L2 misses move to DRAM queues with
    /// room, DRAM moves data, and DRAM loads fill the L2.
    pub fn cycle(&mut self) {
        let now = self.now;
        self.l2.cycle(now);
        for s in 0..self.l2.num_slices() {
            let ch = self.l2.channel_of_slice(s);
            while self.l2.peek_miss(s).is_some() && self.dram[ch].can_accept() {
                if let Some(m) = self.l2.pop_miss(s) {
                    // can_accept was checked, so push succeeds.
                    let _ = self.dram[ch].push(now, m);
                }
            }
        }
        for d in &mut self.dram {
            d.cycle(now);
            while let Some(r) = d.pop_response(now) {
                if r.kind == AccessKind::Load {
                    self.l2.fill(now, &r);
                }
            }
        }
        self.now += 1;
    }

    /// A completed request (the original), if one is ready by the current cycle.
    pub fn pop_response(&mut self) -> Option<MemRequest> {
        self.l2.pop_response(self.now)
    }

    /// Requests anywhere below the SMs.
    pub fn pending(&self) -> usize {
        self.l2.pending() + self.dram.iter().map(|d| d.pending()).sum::<usize>()
    }

    /// The L2.
    pub fn l2(&self) -> &L2 {
        &self.l2
    }

    /// Statistics so far.
    pub fn stats(&self) -> MemSystemStats {
        let mut dram = DramStats::default();
        for d in &self.dram {
            dram.add(d.stats());
        }
        MemSystemStats {
            l2: self.l2.stats(),
            dram,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::mem::cache::{CacheGeometry, SetIndex};
    use crate::timing::mem::l2::SliceHash;

    fn small() -> (L2Config, DramConfig) {
        let l2 = L2Config {
            slices: 2,
            slices_per_channel: 2,
            interleave_bytes: 256,
            slice_hash: SliceHash::Linear,
            geometry: CacheGeometry {
                sets: 4,
                ways: 2,
                set_index: SetIndex::Linear,
            },
            latency: 20,
            port_bytes_per_cycle: 32,
            mshr_entries: 16,
            mshr_max_merge: 4,
            miss_queue_size: 8,
            input_queue_size: 8,
        };
        let dram = DramConfig {
            channels: 1,
            latency: 50,
            bytes_per_cycle: 16.0,
            queue_size: 8,
        };
        (l2, dram)
    }

    fn run_until_response(m: &mut MemSystem, limit: u64) -> Option<(u64, MemRequest)> {
        for _ in 0..limit {
            if let Some(r) = m.pop_response() {
                return Some((m.now(), r));
            }
            m.cycle();
        }
        None
    }

    #[test]
    fn miss_latency_then_hit_latency() {
        let (l2, dram) = small();
        let mut m = MemSystem::new(l2, dram).unwrap();
        m.push(MemRequest::new(1, 0x4000, 0b0001, AccessKind::Load))
            .unwrap();
        // Lookup at cycle 20 (pipeline latency), miss moved to DRAM the same cycle; DRAM moves
        // 16 of 32 B in cycle 20 and the rest in 21, response ready at 21 + 1 + 50 = 72, filled
        // in cycle 72 and visible from cycle 73.
        let (t, r) = run_until_response(&mut m, 1000).unwrap();
        assert_eq!((t, r.id), (73, 1));
        let start = m.now();
        m.push(MemRequest::new(2, 0x4000, 0b0001, AccessKind::Load))
            .unwrap();
        let (t, r) = run_until_response(&mut m, 1000).unwrap();
        // Looked up (a hit) in cycle start + 20, visible from the next cycle.
        assert_eq!((t - start, r.id), (21, 2));
        let s = m.stats();
        assert_eq!(
            (s.l2.hits, s.l2.misses, s.dram.reads, s.dram.bytes_read),
            (1, 1, 1, 32)
        );
        assert_eq!(m.pending(), 0);
    }

    #[test]
    fn streaming_misses_are_dram_bandwidth_bound() {
        let (l2, dram) = small();
        let mut m = MemSystem::new(l2, dram).unwrap();
        let n = 64u64;
        let mut next = 0u64;
        let mut done = 0u64;
        while done < n && m.now() < 100_000 {
            while next < n
                && m.push(MemRequest::new(next, next * 128, 0xf, AccessKind::Load))
                    .is_ok()
            {
                next += 1;
            }
            m.cycle();
            while m.pop_response().is_some() {
                done += 1;
            }
        }
        assert_eq!(done, n);
        // 64 × 128 B at 16 B/cycle = 512 cycles of transfer, plus 20 + 50 cycles of latency.
        let s = m.stats();
        assert_eq!(s.dram.bytes_read, n * 128);
        assert_eq!(s.dram.busy_cycles, 512);
        assert!(m.now() >= 512 + 70 && m.now() < 600, "{}", m.now());
    }

    #[test]
    fn channel_count_must_match() {
        let (l2, mut dram) = small();
        dram.channels = 2;
        assert_eq!(MemSystem::new(l2, dram).unwrap_err().field, "channels");
        assert!(MemSystem::rtx2060().is_ok());
    }
}
