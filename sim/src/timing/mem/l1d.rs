//! Per-SM L1 data cache (sectored, LRU, write-through with no write-allocate for global stores,
//! MSHRs with merging, a miss queue and a fixed hit latency).
//!
//! Protocol, one call per request the LD/ST unit presents (at most one per cycle per port, the
//! caller's choice):
//! 1. [`L1D::access`] — `Ok(outcome)` when accepted, `Err(reason)` (a reservation failure: the
//!    caller retries later; nothing changed) otherwise.
//! 2. The next level takes requests with [`L1D::pop_miss`] (loads for missing sectors with
//!    `id` = the first requester's id; stores forwarded write-through with the store's id).
//! 3. It answers loads with [`L1D::fill`].
//! 4. Completed request ids come out of [`L1D::pop_ready`]: hits and stores `hit_latency` cycles
//!    after acceptance, misses in the cycle their last sector is filled.
//!
//! Request ids must be unique among a cache's outstanding requests.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::cache::{CacheCore, CacheGeometry, CacheStats, FailReason, Outcome, SetIndex};
use super::{check, AccessKind, ConfigError, MemRequest};

/// L1D parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct L1Config {
    /// Sets, ways and set-index function (128 B lines, 32 B sectors).
    pub geometry: CacheGeometry,
    /// Cycles from acceptance to data for a hit.
    pub hit_latency: u32,
    /// MSHR entries (one per outstanding sector).
    pub mshr_entries: u32,
    /// Requests one MSHR entry can merge.
    pub mshr_max_merge: u32,
    /// Miss-queue capacity (requests waiting to go to the next level).
    pub miss_queue_size: u32,
}

impl L1Config {
    /// Turing RTX 2060, from Accel-Sim/GPGPU-Sim `configs/tested-cfgs/SM75_RTX2060/gpgpusim.config`:
    /// `-gpgpu_cache:dl1 S:1:128:512,L:L:m:N:L,A:256:8,16:0,32` (sectored, 1 set × 512 ways ×
    /// 128 B = 64 KiB, LRU, linear index, 256 MSHRs merging 8, miss queue 16) and
    /// `-gpgpu_l1_latency 20`.
    pub fn rtx2060() -> Self {
        L1Config {
            geometry: CacheGeometry {
                sets: 1,
                ways: 512,
                set_index: SetIndex::Linear,
            },
            hit_latency: 20,
            mshr_entries: 256,
            mshr_max_merge: 8,
            miss_queue_size: 16,
        }
    }

    /// Fermi GTX 480, from `configs/tested-cfgs/SM2_GTX480/gpgpusim.config`:
    /// `-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H,S:64:8,8` (32 sets × 4 ways × 128 B = 16 KiB, hashed
    /// index, 64 MSHRs merging 8, miss queue 8) and `-gpgpu_l1_latency 35`. That cache is not
    /// sectored (`N`); modelled here as sectored, so send whole-line requests to mimic it.
    pub fn gtx480() -> Self {
        L1Config {
            geometry: CacheGeometry {
                sets: 32,
                ways: 4,
                set_index: SetIndex::XorFold,
            },
            hit_latency: 35,
            mshr_entries: 64,
            mshr_max_merge: 8,
            miss_queue_size: 8,
        }
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.geometry.validate("l1d")?;
        check(self.mshr_entries >= 1, "l1d", "mshr_entries", || {
            "must be ≥ 1".into()
        })?;
        check(self.mshr_max_merge >= 1, "l1d", "mshr_max_merge", || {
            "must be ≥ 1".into()
        })?;
        check(self.miss_queue_size >= 1, "l1d", "miss_queue_size", || {
            "must be ≥ 1".into()
        })
    }
}

/// The L1 data cache.
#[derive(Clone, Debug)]
pub struct L1D {
    cfg: L1Config,
    core: CacheCore,
    ready: BinaryHeap<Reverse<(u64, u64, u64)>>,
    seq: u64,
}

impl L1D {
    /// An empty cache; fails on an invalid configuration.
    pub fn new(cfg: L1Config) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(L1D {
            cfg,
            core: CacheCore::new(
                cfg.geometry,
                cfg.mshr_entries as usize,
                cfg.mshr_max_merge as usize,
                cfg.miss_queue_size as usize,
            ),
            ready: BinaryHeap::new(),
            seq: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &L1Config {
        &self.cfg
    }

    fn complete_at(&mut self, cycle: u64, id: u64) {
        self.seq += 1;
        self.ready.push(Reverse((cycle, self.seq, id)));
    }

    /// Presents a request at cycle `now`.
    pub fn access(&mut self, now: u64, req: MemRequest) -> Result<Outcome, FailReason> {
        match req.kind {
            AccessKind::Load => {
                let (o, _ev) = self.core.read(&req, req.id, 0)?;
                if o == Outcome::Hit {
                    self.complete_at(now + self.cfg.hit_latency as u64, req.id);
                }
                Ok(o)
            }
            AccessKind::Store | AccessKind::Writeback => {
                // Write-through: the write must fit in the miss queue; no allocation on a miss.
                if !self.core.miss_queue_has_room(1) {
                    self.core.stats.reservation_fails += 1;
                    self.core.stats.fail_miss_queue += 1;
                    return Err(FailReason::MissQueue);
                }
                let o = self.core.write_no_allocate(&req);
                self.core.miss_queue.push_back(req);
                self.complete_at(now + self.cfg.hit_latency as u64, req.id);
                Ok(o)
            }
        }
    }

    /// The oldest request for the next level, removed.
    pub fn pop_miss(&mut self) -> Option<MemRequest> {
        self.core.miss_queue.pop_front()
    }

    /// The oldest request for the next level, left in place.
    pub fn peek_miss(&self) -> Option<&MemRequest> {
        self.core.miss_queue.front()
    }

    /// The next level returns `sectors` of `line_addr` at cycle `now`.
    pub fn fill(&mut self, now: u64, line_addr: u64, sectors: u8) {
        for id in self.core.fill(line_addr, sectors) {
            self.complete_at(now, id);
        }
    }

    /// A request id completed by cycle `now`, oldest completion first.
    pub fn pop_ready(&mut self, now: u64) -> Option<u64> {
        match self.ready.peek() {
            Some(Reverse((c, _, _))) if *c <= now => self.ready.pop().map(|Reverse((_, _, id))| id),
            _ => None,
        }
    }

    /// Loads waiting for fills.
    pub fn outstanding(&self) -> usize {
        self.core.outstanding()
    }

    /// Statistics so far.
    pub fn stats(&self) -> &CacheStats {
        &self.core.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> L1Config {
        L1Config {
            geometry: CacheGeometry {
                sets: 2,
                ways: 2,
                set_index: SetIndex::Linear,
            },
            hit_latency: 3,
            mshr_entries: 4,
            mshr_max_merge: 2,
            miss_queue_size: 2,
        }
    }

    fn ld(id: u64, addr: u64, sectors: u8) -> MemRequest {
        MemRequest::new(id, addr, sectors, AccessKind::Load)
    }

    #[test]
    fn miss_fill_then_hit_with_latency() {
        let mut c = L1D::new(small()).unwrap();
        assert_eq!(c.access(0, ld(1, 0x000, 0b0001)), Ok(Outcome::Miss));
        let m = c.pop_miss().unwrap();
        assert_eq!(
            (m.id, m.line_addr, m.sectors, m.kind),
            (1, 0, 0b0001, AccessKind::Load)
        );
        assert_eq!(c.pop_ready(100), None);
        c.fill(50, 0, 0b0001);
        assert_eq!(c.pop_ready(49), None);
        assert_eq!(c.pop_ready(50), Some(1));
        assert_eq!(c.access(60, ld(2, 0x010, 0b0001)), Ok(Outcome::Hit));
        assert_eq!(c.pop_ready(62), None);
        assert_eq!(c.pop_ready(63), Some(2));
        // Other sector of the same line: sector miss.
        assert_eq!(c.access(64, ld(3, 0x000, 0b0110)), Ok(Outcome::SectorMiss));
        assert_eq!(c.pop_miss().unwrap().sectors, 0b0110);
        let s = c.stats();
        assert_eq!(
            (s.accesses, s.hits, s.misses, s.sector_misses),
            (3, 1, 1, 1)
        );
        assert_eq!((s.sectors_accessed, s.sectors_missed), (4, 3));
    }

    #[test]
    fn mshr_merge_and_merge_limit() {
        let mut c = L1D::new(small()).unwrap();
        assert_eq!(c.access(0, ld(1, 0x80, 0b0001)), Ok(Outcome::Miss));
        assert_eq!(c.access(1, ld(2, 0x80, 0b0001)), Ok(Outcome::MshrHit));
        // Entry already merges 2 requests: a third fails.
        assert_eq!(c.access(2, ld(3, 0x80, 0b0001)), Err(FailReason::Mshr));
        assert_eq!(c.pop_miss().map(|m| m.id), Some(1));
        assert!(c.pop_miss().is_none()); // merged request sent nothing
        c.fill(10, 0x80, 0b0001);
        assert_eq!(c.pop_ready(10), Some(1));
        assert_eq!(c.pop_ready(10), Some(2));
        let s = c.stats();
        assert_eq!(
            (s.mshr_merges, s.mshr_hits, s.reservation_fails, s.fail_mshr),
            (1, 1, 1, 1)
        );
    }

    #[test]
    fn reservation_fails_leave_state_unchanged() {
        let mut c = L1D::new(small()).unwrap();
        // Miss queue holds 2.
        assert!(c.access(0, ld(1, 0x000, 1)).is_ok());
        assert!(c.access(0, ld(2, 0x100, 1)).is_ok());
        // Set 1 has room, but the miss queue is full.
        assert_eq!(c.access(0, ld(3, 0x080, 1)), Err(FailReason::MissQueue));
        c.pop_miss();
        c.pop_miss();
        // Set 0 (lines 0x000, 0x100, 0x200 with 2 sets) has both ways reserved → line alloc fail
        // (checked before MSHRs and the miss queue, as in GPGPU-Sim).
        assert_eq!(c.access(0, ld(3, 0x200, 1)), Err(FailReason::LineAlloc));
        // MSHRs: 4 entries, 2 used; a 4-sector miss in set 1 needs 4 → fail.
        assert_eq!(c.access(0, ld(4, 0x080, 0xf)), Err(FailReason::Mshr));
        assert_eq!(c.stats().reservation_fails, 3);
        assert_eq!(c.stats().accesses, 2);
        c.fill(5, 0x000, 1);
        c.fill(5, 0x100, 1);
        assert_eq!(c.outstanding(), 0);
        // Now 0x200 evicts the LRU line 0x000.
        assert_eq!(c.access(6, ld(3, 0x200, 1)), Ok(Outcome::Miss));
        assert_eq!(c.stats().evictions, 1);
        c.pop_miss();
        c.fill(7, 0x200, 1);
        assert_eq!(c.access(8, ld(5, 0x100, 1)), Ok(Outcome::Hit));
        assert_eq!(c.access(9, ld(6, 0x000, 1)), Ok(Outcome::Miss));
    }

    #[test]
    fn stores_write_through_without_allocating() {
        let mut c = L1D::new(small()).unwrap();
        let st = MemRequest::new(9, 0x300, 0b1000, AccessKind::Store);
        assert_eq!(c.access(0, st), Ok(Outcome::Miss));
        assert_eq!(c.pop_miss(), Some(st));
        assert_eq!(c.pop_ready(3), Some(9));
        // Not allocated: a load still misses.
        assert_eq!(c.access(4, ld(10, 0x300, 0b1000)), Ok(Outcome::Miss));
        c.pop_miss();
        c.fill(5, 0x300, 0b1000);
        // Store hit: forwarded too, line stays valid.
        assert_eq!(
            c.access(6, MemRequest::new(11, 0x300, 0b1000, AccessKind::Store)),
            Ok(Outcome::Hit)
        );
        assert_eq!(c.pop_miss().map(|m| m.kind), Some(AccessKind::Store));
        assert_eq!(c.access(7, ld(12, 0x300, 0b1000)), Ok(Outcome::Hit));
        let s = c.stats();
        assert_eq!((s.writes, s.reads), (2, 2));
    }

    #[test]
    fn presets_validate() {
        assert!(L1D::new(L1Config::rtx2060()).is_ok());
        assert!(L1D::new(L1Config::gtx480()).is_ok());
        assert_eq!(L1Config::rtx2060().geometry.capacity_bytes(), 64 * 1024);
        assert_eq!(L1Config::gtx480().geometry.capacity_bytes(), 16 * 1024);
        let mut bad = small();
        bad.mshr_entries = 0;
        assert_eq!(L1D::new(bad).unwrap_err().field, "mshr_entries");
    }

    #[test]
    fn config_round_trips_through_toml_and_rejects_unknown_keys() {
        let text = toml::to_string(&L1Config::rtx2060()).unwrap();
        let back: L1Config = toml::from_str(&text).unwrap();
        assert_eq!(back, L1Config::rtx2060());
        let bad = format!("{text}\nhit_latncy = 3\n");
        let e = toml::from_str::<L1Config>(&bad).unwrap_err().to_string();
        assert!(e.contains("hit_latncy"), "{e}");
        let missing = text.replace("hit_latency = 20", "");
        assert!(toml::from_str::<L1Config>(&missing).is_err());
    }
}
