//! DRAM channels: a bounded request queue, a data bus moving at most `bytes_per_cycle` bytes per
//! cycle (one request at a time, in order), and a fixed latency after the transfer.
//!
//! This is deliberately simpler than GPGPU-Sim's FR-FCFS bank/row model: it captures the two
//! effects the SM timing needs (latency and the bandwidth ceiling) with parameters taken from the
//! same configuration files.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use serde::Serialize;

use super::{check, AccessKind, ConfigError, MemRequest};

/// One channel's parameters, in core cycles.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramConfig {
    /// Number of channels (memory controllers).
    pub channels: u32,
    /// Cycles from the end of a request's transfer to its response.
    pub latency: u32,
    /// Peak bytes per core cycle per channel.
    pub bytes_per_cycle: f64,
    /// Request-queue capacity per channel.
    pub queue_size: u32,
}

impl DramConfig {
    /// Turing RTX 2060, from `configs/tested-cfgs/SM75_RTX2060/gpgpusim.config`:
    /// `-gpgpu_n_mem 12` channels, `-dram_latency 100`, `-gpgpu_frfcfs_dram_sched_queue_size 64`;
    /// bandwidth from `-gpgpu_dram_buswidth 2` B × `-dram_data_command_freq_ratio 4` ×
    /// 3500 MHz (DRAM clock in `-gpgpu_clock_domains`) = 28 GB/s per channel (× 12 = 336 GB/s,
    /// the RTX 2060's rated bandwidth), divided by the 1365 MHz core clock = 20.51 B/cycle.
    pub fn rtx2060() -> Self {
        DramConfig {
            channels: 12,
            latency: 100,
            bytes_per_cycle: 2.0 * 4.0 * 3500.0 / 1365.0,
            queue_size: 64,
        }
    }

    /// Fermi GTX 480, from `configs/tested-cfgs/SM2_GTX480/gpgpusim.config`: `-gpgpu_n_mem 6`,
    /// `-dram_latency 100`, queue 64; `-gpgpu_n_mem_per_ctrlr 2` × `-gpgpu_dram_buswidth 4` B ×
    /// QDR 4 × 924 MHz / 700 MHz core = 42.24 B/cycle per channel.
    pub fn gtx480() -> Self {
        DramConfig {
            channels: 6,
            latency: 100,
            bytes_per_cycle: 2.0 * 4.0 * 4.0 * 924.0 / 700.0,
            queue_size: 64,
        }
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check(self.channels >= 1, "dram", "channels", || {
            "must be ≥ 1".into()
        })?;
        check(
            self.bytes_per_cycle.is_finite() && self.bytes_per_cycle > 0.0,
            "dram",
            "bytes_per_cycle",
            || format!("{} must be a positive number", self.bytes_per_cycle),
        )?;
        check(self.queue_size >= 1, "dram", "queue_size", || {
            "must be ≥ 1".into()
        })
    }
}

/// Typed DRAM statistics (per channel, or summed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct DramStats {
    /// Read requests accepted.
    pub reads: u64,
    /// Write and write-back requests accepted.
    pub writes: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// Cycles the data bus moved data.
    pub busy_cycles: u64,
    /// Cycles simulated.
    pub cycles: u64,
    /// Requests refused because the queue was full.
    pub queue_full_rejects: u64,
    /// Sum over completed requests of (response cycle − accept cycle).
    pub total_latency: u64,
    /// Completed requests.
    pub completed: u64,
}

impl DramStats {
    /// Adds another channel's counters.
    pub fn add(&mut self, o: &DramStats) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.bytes_read += o.bytes_read;
        self.bytes_written += o.bytes_written;
        self.busy_cycles += o.busy_cycles;
        self.cycles = self.cycles.max(o.cycles);
        self.queue_full_rejects += o.queue_full_rejects;
        self.total_latency += o.total_latency;
        self.completed += o.completed;
    }
}

/// One DRAM channel.
#[derive(Clone, Debug)]
pub struct DramChannel {
    cfg: DramConfig,
    queue: VecDeque<(MemRequest, u64)>,
    /// Bytes of the head request still to move.
    head_left: f64,
    done: BinaryHeap<Reverse<(u64, u64, MemRequest, u64)>>,
    seq: u64,
    stats: DramStats,
}

impl DramChannel {
    /// An idle channel; fails on an invalid configuration.
    pub fn new(cfg: DramConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        Ok(DramChannel {
            cfg,
            queue: VecDeque::new(),
            head_left: 0.0,
            done: BinaryHeap::new(),
            seq: 0,
            stats: DramStats::default(),
        })
    }

    /// Whether another request fits in the queue.
    pub fn can_accept(&self) -> bool {
        self.queue.len() < self.cfg.queue_size as usize
    }

    /// Queues a request at cycle `now`; gives it back when the queue is full.
    pub fn push(&mut self, now: u64, req: MemRequest) -> Result<(), MemRequest> {
        if !self.can_accept() {
            self.stats.queue_full_rejects += 1;
            return Err(req);
        }
        if req.kind == AccessKind::Load {
            self.stats.reads += 1;
        } else {
            self.stats.writes += 1;
        }
        if self.queue.is_empty() {
            self.head_left = req.bytes() as f64;
        }
        self.queue.push_back((req, now));
        Ok(())
    }

    /// Advances one cycle (`now` is the cycle being simulated): moves up to `bytes_per_cycle`
    /// bytes of queued requests, in order; a request whose last byte moves responds
    /// `latency` cycles later.
    pub fn cycle(&mut self, now: u64) {
        self.stats.cycles += 1;
        let mut budget = self.cfg.bytes_per_cycle;
        let mut moved = false;
        while budget > 0.0 {
            let Some(&(req, accepted)) = self.queue.front() else {
                break;
            };
            moved = true;
            let step = budget.min(self.head_left);
            budget -= step;
            self.head_left -= step;
            if self.head_left <= 1e-9 {
                self.queue.pop_front();
                if req.kind == AccessKind::Load {
                    self.stats.bytes_read += req.bytes();
                } else {
                    self.stats.bytes_written += req.bytes();
                }
                let ready = now + 1 + self.cfg.latency as u64;
                self.seq += 1;
                self.done.push(Reverse((ready, self.seq, req, accepted)));
                self.head_left = self.queue.front().map_or(0.0, |(r, _)| r.bytes() as f64);
            }
        }
        if moved {
            self.stats.busy_cycles += 1;
        }
    }

    /// A response ready by cycle `now` (loads, stores and write-backs alike), in completion order.
    pub fn pop_response(&mut self, now: u64) -> Option<MemRequest> {
        match self.done.peek() {
            Some(Reverse((c, ..))) if *c <= now => {
                let Reverse((c, _, req, accepted)) = self.done.pop()?;
                self.stats.completed += 1;
                self.stats.total_latency += c - accepted;
                Some(req)
            }
            _ => None,
        }
    }

    /// Requests queued or in flight.
    pub fn pending(&self) -> usize {
        self.queue.len() + self.done.len()
    }

    /// Statistics so far.
    pub fn stats(&self) -> &DramStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(bpc: f64, latency: u32, queue: u32) -> DramConfig {
        DramConfig {
            channels: 1,
            latency,
            bytes_per_cycle: bpc,
            queue_size: queue,
        }
    }

    fn ld(id: u64) -> MemRequest {
        MemRequest::new(id, id * 128, 0b0001, AccessKind::Load)
    }

    #[test]
    fn single_request_latency() {
        // 32 B at 32 B/cycle: transferred in cycle 0, response at 0 + 1 + 10.
        let mut d = DramChannel::new(cfg(32.0, 10, 4)).unwrap();
        d.push(0, ld(1)).unwrap();
        for t in 0..=11 {
            d.cycle(t);
            if t < 11 {
                assert_eq!(d.pop_response(t), None, "cycle {t}");
            }
        }
        assert_eq!(d.pop_response(11).map(|r| r.id), Some(1));
        assert_eq!(d.stats().total_latency, 11);
    }

    #[test]
    fn bandwidth_saturates() {
        // 8 B/cycle, 100 requests of 32 B: the bus needs 400 cycles whatever the queue depth.
        let mut d = DramChannel::new(cfg(8.0, 5, 8)).unwrap();
        let mut next = 0u64;
        let mut got = 0u64;
        let mut t = 0u64;
        while got < 100 {
            while next < 100 && d.push(t, ld(next)).is_ok() {
                next += 1;
            }
            d.cycle(t);
            while d.pop_response(t).is_some() {
                got += 1;
            }
            t += 1;
        }
        // Last transfer ends in cycle 399, response at 399 + 1 + 5 = 405, popped in cycle 405.
        assert_eq!(t, 406);
        assert_eq!(d.stats().bytes_read, 3200);
        assert_eq!(d.stats().busy_cycles, 400);
        assert!(d.stats().queue_full_rejects > 0);
    }

    #[test]
    fn fractional_bandwidth_and_full_queue() {
        // 20.5 B/cycle: two 32 B requests (64 B) finish in cycle 3 (64 / 20.5 = 3.12 → 4 cycles).
        let mut d = DramChannel::new(cfg(20.5, 0, 2)).unwrap();
        d.push(0, ld(1)).unwrap();
        d.push(0, ld(2)).unwrap();
        assert_eq!(d.push(0, ld(3)), Err(ld(3)));
        for t in 0..4 {
            d.cycle(t);
        }
        assert_eq!(d.pop_response(2).map(|r| r.id), Some(1)); // 32 B done in cycle 1 → ready 2
        assert_eq!(d.pop_response(3), None);
        assert_eq!(d.pop_response(4).map(|r| r.id), Some(2));
        assert!(DramChannel::new(cfg(0.0, 0, 1)).is_err());
        assert!(DramChannel::new(DramConfig::rtx2060()).is_ok());
        assert!((DramConfig::rtx2060().bytes_per_cycle - 20.512_820).abs() < 1e-5);
    }
}
