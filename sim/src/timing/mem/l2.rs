//! Sliced L2: addresses are interleaved over slices (GPGPU-Sim memory sub-partitions); each slice
//! is a sectored set-associative write-back cache with write-allocate-without-fetch for writes,
//! MSHRs, a miss queue to DRAM, a bounded input queue, a data port of `port_bytes_per_cycle`
//! and a fixed hit latency.
//!
//! A request pushed at cycle `t` spends `latency` cycles in the slice's input pipeline (GPGPU-Sim's
//! ROP delay, `-gpgpu_l2_rop_latency`, applied to every request before the L2 lookup). Per cycle
//! ([`L2::cycle`]) each slice whose port is free then looks up the request at the head of its
//! input queue once that delay has passed; a request of `n` bytes keeps the port busy
//! `ceil(n / port_bytes_per_cycle)` cycles. A request refused for lack of a resource stays at the
//! head and is retried (counted in `stall_cycles` and the reservation-fail counters). Hits and
//! writes respond in the lookup cycle; load misses in the cycle their fill arrives
//! ([`L2::fill`]). Dirty evictions queue a `Writeback` request to DRAM.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use super::cache::{CacheCore, CacheGeometry, CacheStats, Outcome, SetIndex};
use super::{check, AccessKind, ConfigError, MemRequest, LINE_BYTES};

/// How an address chooses its slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SliceHash {
    /// `(addr / interleave_bytes) mod slices`.
    Linear,
    /// `(c ^ (c >> b) ^ (c >> 2b)) mod slices` with `c = addr / interleave_bytes` and
    /// `b = ceil(log2(slices))`: spreads power-of-two strides over slices.
    XorFold,
}

/// L2 parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct L2Config {
    /// Number of slices.
    pub slices: u32,
    /// Slices per DRAM channel (slice `s` uses channel `s / slices_per_channel`).
    pub slices_per_channel: u32,
    /// Address-interleaving granularity in bytes (multiple of the 128 B line).
    pub interleave_bytes: u64,
    /// Slice-selection function.
    pub slice_hash: SliceHash,
    /// Per-slice sets, ways and set-index function.
    pub geometry: CacheGeometry,
    /// Cycles a request spends in the slice's input pipeline before its lookup (so the hit
    /// latency seen from the interconnect).
    pub latency: u32,
    /// Bytes per cycle through a slice's data port.
    pub port_bytes_per_cycle: u32,
    /// MSHR entries per slice.
    pub mshr_entries: u32,
    /// Requests one MSHR entry can merge.
    pub mshr_max_merge: u32,
    /// Per-slice queue of requests to DRAM.
    pub miss_queue_size: u32,
    /// Per-slice input queue (from the interconnect).
    pub input_queue_size: u32,
}

impl L2Config {
    /// Turing RTX 2060, from `configs/tested-cfgs/SM75_RTX2060/gpgpusim.config`:
    /// `-gpgpu_n_mem 12` × `-gpgpu_n_sub_partition_per_mchannel 2` = 24 slices;
    /// `-gpgpu_cache:dl2 S:64:128:16,L:B:m:L:P,A:192:4,32:0,32` (64 sets × 16 ways × 128 B =
    /// 128 KiB per slice, 3 MiB total, write-back, hashed index `P`, 192 MSHRs merging 4, miss
    /// queue 32, 32 B data port); `-gpgpu_l2_rop_latency 160`; the 256 B interleave is the
    /// `dramid@8` of `-gpgpu_mem_addr_mapping`; input queue 64 from
    /// `-gpgpu_dram_partition_queues 64:64:64:64`.
    pub fn rtx2060() -> Self {
        L2Config {
            slices: 24,
            slices_per_channel: 2,
            interleave_bytes: 256,
            slice_hash: SliceHash::XorFold,
            geometry: CacheGeometry {
                sets: 64,
                ways: 16,
                set_index: SetIndex::XorFold,
            },
            latency: 160,
            port_bytes_per_cycle: 32,
            mshr_entries: 192,
            mshr_max_merge: 4,
            miss_queue_size: 32,
            input_queue_size: 64,
        }
    }

    /// Fermi GTX 480, from `configs/tested-cfgs/SM2_GTX480/gpgpusim.config`: 6 channels × 2
    /// sub-partitions = 12 slices; `-gpgpu_cache:dl2 S:64:128:8,L:B:m:L:L,A:256:4,4:0,32`
    /// (64 sets × 8 ways × 128 B = 64 KiB per slice, 768 KiB total, linear index, 256 MSHRs
    /// merging 4, miss queue 4, 32 B port); `-gpgpu_l2_rop_latency 120`; `dramid@8`; queues 64.
    pub fn gtx480() -> Self {
        L2Config {
            slices: 12,
            slices_per_channel: 2,
            interleave_bytes: 256,
            slice_hash: SliceHash::Linear,
            geometry: CacheGeometry {
                sets: 64,
                ways: 8,
                set_index: SetIndex::Linear,
            },
            latency: 120,
            port_bytes_per_cycle: 32,
            mshr_entries: 256,
            mshr_max_merge: 4,
            miss_queue_size: 4,
            input_queue_size: 64,
        }
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check(self.slices >= 1, "l2", "slices", || "must be ≥ 1".into())?;
        check(
            self.slices_per_channel >= 1 && self.slices.is_multiple_of(self.slices_per_channel),
            "l2",
            "slices_per_channel",
            || {
                format!(
                    "{} must be ≥ 1 and divide slices ({})",
                    self.slices_per_channel, self.slices
                )
            },
        )?;
        check(
            self.interleave_bytes >= LINE_BYTES && self.interleave_bytes.is_power_of_two(),
            "l2",
            "interleave_bytes",
            || {
                format!(
                    "{} must be a power of two ≥ {LINE_BYTES}",
                    self.interleave_bytes
                )
            },
        )?;
        self.geometry.validate("l2")?;
        check(
            self.port_bytes_per_cycle >= 1,
            "l2",
            "port_bytes_per_cycle",
            || "must be ≥ 1".into(),
        )?;
        check(self.mshr_entries >= 1, "l2", "mshr_entries", || {
            "must be ≥ 1".into()
        })?;
        check(self.mshr_max_merge >= 1, "l2", "mshr_max_merge", || {
            "must be ≥ 1".into()
        })?;
        // A miss may need a fill request plus a write-back of the victim.
        check(self.miss_queue_size >= 2, "l2", "miss_queue_size", || {
            "must be ≥ 2".into()
        })?;
        check(self.input_queue_size >= 1, "l2", "input_queue_size", || {
            "must be ≥ 1".into()
        })
    }

    /// Number of DRAM channels the slices feed.
    pub fn channels(&self) -> u32 {
        self.slices / self.slices_per_channel.max(1)
    }
}

#[derive(Clone, Debug)]
struct Slice {
    core: CacheCore,
    input: VecDeque<(MemRequest, u64)>,
    busy_until: u64,
    responses: BinaryHeap<Reverse<(u64, u64, MemRequest)>>,
    waiting: BTreeMap<u64, MemRequest>,
}

/// The sliced L2.
#[derive(Clone, Debug)]
pub struct L2 {
    cfg: L2Config,
    slices: Vec<Slice>,
    next_token: u64,
    seq: u64,
}

impl L2 {
    /// An empty L2; fails on an invalid configuration.
    pub fn new(cfg: L2Config) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let slice = Slice {
            core: CacheCore::new(
                cfg.geometry,
                cfg.mshr_entries as usize,
                cfg.mshr_max_merge as usize,
                cfg.miss_queue_size as usize,
            ),
            input: VecDeque::new(),
            busy_until: 0,
            responses: BinaryHeap::new(),
            waiting: BTreeMap::new(),
        };
        Ok(L2 {
            cfg,
            slices: vec![slice; cfg.slices as usize],
            next_token: 0,
            seq: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &L2Config {
        &self.cfg
    }

    /// The slice serving `addr`.
    pub fn slice_of(&self, addr: u64) -> usize {
        let n = self.cfg.slices.max(1) as u64;
        let c = addr / self.cfg.interleave_bytes.max(1);
        let h = match self.cfg.slice_hash {
            SliceHash::Linear => c,
            SliceHash::XorFold => {
                let b = 64 - (n - 1).leading_zeros();
                if b == 0 {
                    c
                } else {
                    c ^ (c >> b) ^ (c >> (2 * b).min(63))
                }
            }
        };
        (h % n) as usize
    }

    /// The DRAM channel slice `slice` feeds.
    pub fn channel_of_slice(&self, slice: usize) -> usize {
        slice / self.cfg.slices_per_channel.max(1) as usize
    }

    /// Offers a request at cycle `now` to its slice's input queue; gives it back when the queue
    /// is full.
    pub fn push(&mut self, now: u64, req: MemRequest) -> Result<(), MemRequest> {
        let s = self.slice_of(req.line_addr);
        let cap = self.cfg.input_queue_size as usize;
        let sl = &mut self.slices[s];
        if sl.input.len() >= cap {
            sl.core.stats.input_rejects += 1;
            return Err(req);
        }
        sl.input.push_back((req, now + self.cfg.latency as u64));
        Ok(())
    }

    fn respond(&mut self, s: usize, at: u64, req: MemRequest) {
        self.seq += 1;
        self.slices[s].responses.push(Reverse((at, self.seq, req)));
    }

    /// Simulates cycle `now` for every slice.
    pub fn cycle(&mut self, now: u64) {
        for s in 0..self.slices.len() {
            self.slice_cycle(s, now);
        }
    }

    fn slice_cycle(&mut self, s: usize, now: u64) {
        let port = self.cfg.port_bytes_per_cycle.max(1) as u64;
        let token = self.next_token;
        let sl = &mut self.slices[s];
        let Some(&(req, ready)) = sl.input.front() else {
            return;
        };
        if now < ready {
            return;
        }
        if now < sl.busy_until {
            sl.core.stats.stall_cycles += 1;
            return;
        }
        let result = match req.kind {
            AccessKind::Load => sl.core.read(&req, token, 1),
            AccessKind::Store | AccessKind::Writeback => {
                if sl.core.miss_queue_has_room(1) {
                    sl.core.write_allocate(&req)
                } else {
                    sl.core.stats.reservation_fails += 1;
                    sl.core.stats.fail_miss_queue += 1;
                    Err(super::cache::FailReason::MissQueue)
                }
            }
        };
        let (outcome, ev) = match result {
            Ok(x) => x,
            Err(_) => {
                sl.core.stats.stall_cycles += 1;
                return;
            }
        };
        sl.input.pop_front();
        sl.busy_until = now + req.bytes().div_ceil(port);
        if let Some(ev) = ev {
            if ev.dirty != 0 {
                sl.core.stats.writebacks += 1;
                sl.core.miss_queue.push_back(MemRequest {
                    id: token,
                    line_addr: ev.line_addr,
                    sectors: ev.dirty,
                    kind: AccessKind::Writeback,
                });
            }
        }
        self.next_token += 1;
        let waits = req.kind == AccessKind::Load && outcome != Outcome::Hit;
        if waits {
            self.slices[s].waiting.insert(token, req);
        } else {
            self.respond(s, now, req);
        }
    }

    /// Slice `slice`'s oldest request for DRAM, left in place.
    pub fn peek_miss(&self, slice: usize) -> Option<&MemRequest> {
        self.slices.get(slice)?.core.miss_queue.front()
    }

    /// Slice `slice`'s oldest request for DRAM, removed.
    pub fn pop_miss(&mut self, slice: usize) -> Option<MemRequest> {
        self.slices.get_mut(slice)?.core.miss_queue.pop_front()
    }

    /// DRAM returns a load at cycle `now` (write-back completions need no call).
    pub fn fill(&mut self, now: u64, resp: &MemRequest) {
        let s = self.slice_of(resp.line_addr);
        let done = self.slices[s].core.fill(resp.line_addr, resp.sectors);
        for t in done {
            if let Some(req) = self.slices[s].waiting.remove(&t) {
                self.respond(s, now, req);
            }
        }
    }

    /// A response (the original request) ready by cycle `now`; slices are scanned in index order.
    pub fn pop_response(&mut self, now: u64) -> Option<MemRequest> {
        for sl in &mut self.slices {
            if let Some(Reverse((c, _, _))) = sl.responses.peek() {
                if *c <= now {
                    return sl.responses.pop().map(|Reverse((_, _, r))| r);
                }
            }
        }
        None
    }

    /// Number of slices.
    pub fn num_slices(&self) -> usize {
        self.slices.len()
    }

    /// Statistics of one slice.
    pub fn slice_stats(&self, slice: usize) -> Option<&CacheStats> {
        self.slices.get(slice).map(|s| &s.core.stats)
    }

    /// Statistics summed over slices.
    pub fn stats(&self) -> CacheStats {
        let mut t = CacheStats::default();
        for s in &self.slices {
            t.add(&s.core.stats);
        }
        t
    }

    /// Requests queued, in service or waiting for DRAM.
    pub fn pending(&self) -> usize {
        self.slices
            .iter()
            .map(|s| s.input.len() + s.responses.len() + s.waiting.len() + s.core.miss_queue.len())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_slice() -> L2Config {
        L2Config {
            slices: 1,
            slices_per_channel: 1,
            interleave_bytes: 256,
            slice_hash: SliceHash::Linear,
            geometry: CacheGeometry {
                sets: 1,
                ways: 2,
                set_index: SetIndex::Linear,
            },
            latency: 10,
            port_bytes_per_cycle: 32,
            mshr_entries: 8,
            mshr_max_merge: 2,
            miss_queue_size: 4,
            input_queue_size: 2,
        }
    }

    fn ld(id: u64, addr: u64, sectors: u8) -> MemRequest {
        MemRequest::new(id, addr, sectors, AccessKind::Load)
    }

    #[test]
    fn slice_interleaving() {
        let mut c = one_slice();
        c.slices = 4;
        c.slices_per_channel = 2;
        let l2 = L2::new(c).unwrap();
        assert_eq!(
            (0..6u64).map(|i| l2.slice_of(i * 256)).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 0, 1]
        );
        assert_eq!(l2.slice_of(0x80), 0); // same 256 B chunk
        assert_eq!(l2.channel_of_slice(3), 1);
        let x = L2::new(L2Config::rtx2060()).unwrap();
        // XorFold: a 24-slice stride of 24 chunks does not pile onto one slice.
        let used: std::collections::BTreeSet<usize> =
            (0..24u64).map(|i| x.slice_of(i * 24 * 256)).collect();
        assert!(used.len() > 4, "{used:?}");
        assert_eq!(L2Config::rtx2060().geometry.capacity_bytes() * 24, 3 << 20);
        assert_eq!(L2Config::rtx2060().channels(), 12);
    }

    /// Runs cycles `from..=to`.
    fn run(l2: &mut L2, from: u64, to: u64) {
        for t in from..=to {
            l2.cycle(t);
        }
    }

    #[test]
    fn miss_then_fill_then_hit() {
        let mut l2 = L2::new(one_slice()).unwrap();
        l2.push(0, ld(7, 0x1000, 0b0011)).unwrap();
        // Pipeline latency 10: no lookup before cycle 10.
        run(&mut l2, 0, 9);
        assert!(l2.pop_miss(0).is_none());
        l2.cycle(10);
        let m = l2.pop_miss(0).unwrap();
        assert_eq!(
            (m.line_addr, m.sectors, m.kind),
            (0x1000, 0b0011, AccessKind::Load)
        );
        assert_eq!(l2.pop_response(1000), None);
        l2.fill(40, &m);
        assert_eq!(l2.pop_response(39), None);
        assert_eq!(l2.pop_response(40).map(|r| r.id), Some(7));
        // A hit pushed at 41 is looked up and answered at 51.
        l2.push(41, ld(8, 0x1020, 0b0010)).unwrap();
        run(&mut l2, 41, 51);
        assert_eq!(l2.pop_response(50), None);
        assert_eq!(l2.pop_response(51).map(|r| r.id), Some(8));
        let s = l2.stats();
        assert_eq!((s.accesses, s.hits, s.misses), (2, 1, 1));
    }

    #[test]
    fn port_bandwidth_limits_throughput() {
        // 128 B requests through a 32 B/cycle port: one lookup every 4 cycles.
        let mut l2 = L2::new(one_slice()).unwrap();
        l2.push(0, ld(1, 0x0000, 0xf)).unwrap();
        l2.push(0, ld(2, 0x0080, 0xf)).unwrap();
        assert!(l2.push(0, ld(3, 0x0100, 0xf)).is_err()); // input queue of 2
        run(&mut l2, 0, 10);
        assert!(l2.pop_miss(0).is_some());
        for t in 11..14 {
            l2.cycle(t);
            assert!(l2.pop_miss(0).is_none(), "cycle {t}");
        }
        l2.cycle(14);
        assert!(l2.pop_miss(0).is_some());
        let s = l2.stats();
        assert_eq!((s.stall_cycles, s.input_rejects), (3, 1));
    }

    #[test]
    fn write_back_on_dirty_eviction() {
        let mut l2 = L2::new(one_slice()).unwrap();
        // Two stores fill both ways (allocate without fetch, dirty), a third line evicts the LRU.
        l2.push(0, MemRequest::new(1, 0x000, 0b0001, AccessKind::Store))
            .unwrap();
        l2.push(1, MemRequest::new(2, 0x080, 0b0001, AccessKind::Store))
            .unwrap();
        run(&mut l2, 0, 11);
        assert!(l2.pop_miss(0).is_none()); // no fetch for writes
                                           // Store acks at lookup: 10 and 11.
        assert_eq!(l2.pop_response(10).map(|r| r.id), Some(1));
        assert_eq!(l2.pop_response(10), None);
        assert_eq!(l2.pop_response(11).map(|r| r.id), Some(2));
        l2.push(2, ld(3, 0x100, 0b0001)).unwrap();
        run(&mut l2, 12, 12);
        // The fill request is queued first, then the victim's write-back.
        assert_eq!(l2.pop_miss(0).map(|m| m.line_addr), Some(0x100));
        let wb = l2.pop_miss(0).unwrap();
        assert_eq!(
            (wb.kind, wb.line_addr, wb.sectors),
            (AccessKind::Writeback, 0x000, 0b0001)
        );
        let s = l2.stats();
        assert_eq!((s.writes, s.writebacks, s.evictions), (2, 1, 1));
        // The written line reads as a hit.
        l2.push(3, ld(4, 0x080, 0b0001)).unwrap();
        run(&mut l2, 13, 13);
        assert_eq!(l2.stats().hits, 1);
    }
}
