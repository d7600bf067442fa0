//! The memory side of the timing core: the [`MemoryTiming`] seam and [`StubMemory`], a
//! compact latency/bandwidth model used until the cycle-level components of
//! [`crate::timing::mem`] (coalescer, L1D with MSHRs, sliced L2, DRAM) are wired in behind the
//! same trait.
//!
//! `StubMemory` model (all parameters from [`MemoryConfig`]):
//! * **Coalescing** (sm_70+ rules, NVIDIA CUDA C++ Programming Guide, "Device Memory
//!   Accesses"): a warp's lanes are grouped into 128 B lines and 32 B sectors; the LD/ST unit
//!   spends `ceil(lines / l1d_lines_per_cycle)` cycles on the instruction.
//! * **L1D**: sectored set-associative tags with LRU, allocate on load miss, write-through
//!   without allocation for stores (Accel-Sim `-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L`).
//! * **L2**: `l2_slices` slices, line-interleaved, write-back with allocation, each slice
//!   serving `l2_sectors_per_cycle_per_slice` sectors per cycle (a bandwidth server).
//! * **DRAM**: `dram_channels` channels, line-interleaved, each a bandwidth server of
//!   `dram_bytes_per_cycle / dram_channels` bytes per cycle; unloaded latency `dram_latency`.
//! * **Shared memory**: `banks` banks of `bank_bytes`; lanes reading the same word broadcast;
//!   the access takes `latency + degree − 1` cycles, `degree` = the largest number of distinct
//!   words in one bank (GPGPU-Sim `shared_cycle`).
//! * **Atomics** are performed at the L2 (GPGPU-Sim), param/const loads take `const_latency`.
//!
//! Not modelled by the stub: MSHR limits and merging, interconnect contention, DRAM row
//! buffers and scheduling. Fills are instantaneous in the tag state (a later access to a line
//! whose fill is still in flight counts as a hit).

use super::activity::MemActivity;
use super::config::{CacheConfig, MemoryConfig};
use super::functional::{MemOpKind, MemSpaceKind, WarpMemAccess};
use super::rf::MemFetch;

/// Timing of one warp memory instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemTiming {
    /// Cycle the data is back (loads) or the store has been accepted.
    pub ready_at: u64,
    /// Cycles the LD/ST unit is busy with the instruction (its initiation interval).
    pub ldst_cycles: u32,
}

/// The memory hierarchy as the SM pipeline sees it.
pub trait MemoryTiming {
    /// Times a warp memory instruction of SM `sm` dispatched at `now`. `skip_l1`: the RF
    /// design replaces the L1D (seed 004).
    fn access(
        &mut self,
        now: u64,
        sm: u32,
        acc: &WarpMemAccess,
        skip_l1: bool,
        act: &mut MemActivity,
    ) -> MemTiming;
    /// Times a transfer requested by an RF design (fill or spill below the L1D).
    fn fetch(&mut self, now: u64, sm: u32, f: &MemFetch, act: &mut MemActivity) -> u64;
}

/// Sectored set-associative tag array with LRU (tags only).
#[derive(Clone, Debug)]
struct Tags {
    cfg: CacheConfig,
    tags: Vec<u64>,
    valid: Vec<u32>,
    stamp: Vec<u64>,
    clock: u64,
}

const INVALID: u64 = u64::MAX;

impl Tags {
    fn new(cfg: CacheConfig) -> Tags {
        let n = (cfg.sets * cfg.ways) as usize;
        Tags {
            cfg,
            tags: vec![INVALID; n],
            valid: vec![0; n],
            stamp: vec![0; n],
            clock: 0,
        }
    }

    /// Looks up `sectors` of `line` (line number = addr / line_bytes). Returns the hit sectors.
    /// With `allocate`, missing sectors become valid (the line is allocated, LRU victim).
    fn access(&mut self, line: u64, sectors: u32, allocate: bool) -> u32 {
        self.clock += 1;
        let set = (line % u64::from(self.cfg.sets)) as usize;
        let ways = self.cfg.ways as usize;
        let base = set * ways;
        for i in base..base + ways {
            if self.tags[i] == line {
                let hit = self.valid[i] & sectors;
                self.stamp[i] = self.clock;
                if allocate {
                    self.valid[i] |= sectors;
                }
                return hit;
            }
        }
        let victim = (base..base + ways)
            .find(|&i| self.tags[i] == INVALID)
            .or_else(|| (base..base + ways).min_by_key(|&i| self.stamp[i]))
            .unwrap_or(base);
        if allocate {
            self.tags[victim] = line;
            self.valid[victim] = sectors;
            self.stamp[victim] = self.clock;
        }
        0
    }

    /// Updates present sectors only (write-through, no allocate).
    fn update(&mut self, line: u64, sectors: u32) {
        let set = (line % u64::from(self.cfg.sets)) as usize;
        let ways = self.cfg.ways as usize;
        for i in set * ways..(set + 1) * ways {
            if self.tags[i] == line {
                self.valid[i] |= sectors;
                self.stamp[i] = self.clock;
                return;
            }
        }
    }
}

/// The stub memory system of a whole GPU (see the module documentation).
#[derive(Clone, Debug)]
pub struct StubMemory {
    cfg: MemoryConfig,
    const_latency: u32,
    l1: Vec<Tags>,
    l2: Vec<Tags>,
    l2_free: Vec<u64>,
    dram_free: Vec<f64>,
    scratch: Vec<(u64, u32)>,
}

impl StubMemory {
    /// A stub for `sms` SMs. `const_latency` times param/const loads.
    pub fn new(cfg: &MemoryConfig, sms: u32, const_latency: u32) -> StubMemory {
        StubMemory {
            cfg: cfg.clone(),
            const_latency,
            l1: (0..sms).map(|_| Tags::new(cfg.l1d)).collect(),
            l2: (0..cfg.l2_slices)
                .map(|_| Tags::new(cfg.l2_slice))
                .collect(),
            l2_free: vec![0; cfg.l2_slices as usize],
            dram_free: vec![0.0; cfg.dram_channels as usize],
            scratch: Vec::with_capacity(64),
        }
    }

    /// Groups the lanes into (line, sector mask) pairs, sorted by line.
    fn coalesce(&mut self, acc: &WarpMemAccess) {
        let lb = u64::from(self.cfg.l1d.line_bytes);
        let sb = u64::from(self.cfg.l1d.sector_bytes);
        self.scratch.clear();
        let size = u64::from(acc.bytes_per_lane.max(1));
        for l in 0..32 {
            if acc.mask >> l & 1 == 0 {
                continue;
            }
            let a = acc.addrs[l];
            let mut b = a;
            let end = a.saturating_add(size);
            while b < end {
                let line = b / lb;
                let sec = 1u32 << ((b % lb) / sb);
                match self.scratch.iter_mut().find(|(x, _)| *x == line) {
                    Some(e) => e.1 |= sec,
                    None => self.scratch.push((line, sec)),
                }
                b = (b / sb + 1) * sb;
            }
        }
        self.scratch.sort_unstable();
    }

    /// Sends `sectors` of `line` to the L2 at `t`; returns when the data is back.
    fn l2_access(
        &mut self,
        t: u64,
        line: u64,
        sectors: u32,
        write: bool,
        act: &mut MemActivity,
    ) -> u64 {
        let slices = self.l2.len().max(1);
        let s = (line % slices as u64) as usize;
        let n = u64::from(sectors.count_ones());
        let per = u64::from(self.cfg.l2_sectors_per_cycle_per_slice.max(1));
        let start = t.max(self.l2_free[s]);
        self.l2_free[s] = start + n.div_ceil(per);
        if write {
            act.l2_sector_writes += n;
            self.l2[s].access(line / slices as u64, sectors, true);
            return start + u64::from(self.cfg.l2_hit_latency);
        }
        act.l2_sector_reads += n;
        let hit = self.l2[s].access(line / slices as u64, sectors, true);
        act.l2_sector_read_hits += u64::from(hit.count_ones());
        let miss = sectors & !hit;
        if miss == 0 {
            return start + u64::from(self.cfg.l2_hit_latency);
        }
        let m = u64::from(miss.count_ones());
        act.dram_sector_reads += m;
        let ch = self.dram_free.len().max(1);
        let c = ((line / slices as u64) % ch as u64) as usize;
        let bpc = self.cfg.dram_bytes_per_cycle / ch as f64;
        let bytes = (m * u64::from(self.cfg.l2_slice.sector_bytes)) as f64;
        let dstart = (start as f64).max(self.dram_free[c]);
        self.dram_free[c] = dstart + bytes / bpc;
        (dstart.ceil() as u64) + u64::from(self.cfg.dram_latency)
    }
}

impl MemoryTiming for StubMemory {
    fn access(
        &mut self,
        now: u64,
        sm: u32,
        acc: &WarpMemAccess,
        skip_l1: bool,
        act: &mut MemActivity,
    ) -> MemTiming {
        match acc.space {
            MemSpaceKind::Param | MemSpaceKind::Const => {
                act.param_const_instructions += 1;
                return MemTiming {
                    ready_at: now + u64::from(self.const_latency),
                    ldst_cycles: 1,
                };
            }
            MemSpaceKind::Shared => {
                act.shared_instructions += 1;
                act.shared_accesses += 1;
                let banks = self.cfg.shared.banks.max(1) as usize;
                let bb = u64::from(self.cfg.shared.bank_bytes.max(1));
                let mut words: Vec<Vec<u64>> = vec![Vec::new(); banks];
                let size = u64::from(acc.bytes_per_lane.max(1));
                for l in 0..32 {
                    if acc.mask >> l & 1 == 0 {
                        continue;
                    }
                    let mut w = acc.addrs[l] / bb;
                    let end = (acc.addrs[l] + size).div_ceil(bb);
                    while w < end {
                        let b = (w % banks as u64) as usize;
                        if !words[b].contains(&w) {
                            words[b].push(w);
                        }
                        w += 1;
                    }
                }
                let degree = words.iter().map(|v| v.len()).max().unwrap_or(0).max(1) as u32;
                act.shared_bank_conflict_cycles += u64::from(degree - 1);
                return MemTiming {
                    ready_at: now + u64::from(self.cfg.shared.latency) + u64::from(degree - 1),
                    ldst_cycles: degree,
                };
            }
            MemSpaceKind::Local => act.local_instructions += 1,
            MemSpaceKind::Global => act.global_instructions += 1,
        }
        self.coalesce(acc);
        let lines = std::mem::take(&mut self.scratch);
        let lpc = u64::from(self.cfg.l1d_lines_per_cycle.max(1));
        let ldst_cycles = (lines.len() as u64).div_ceil(lpc).max(1) as u32;
        let l1_lat = u64::from(self.cfg.l1d_hit_latency);
        let mut ready = now + l1_lat;
        let sm = (sm as usize).min(self.l1.len().saturating_sub(1));
        for (i, &(line, secs)) in lines.iter().enumerate() {
            let t = now + i as u64 / lpc;
            let n = u64::from(secs.count_ones());
            match acc.kind {
                MemOpKind::Atomic => {
                    act.atomic_instructions += u64::from(i == 0);
                    let r = self.l2_access(t, line, secs, false, act);
                    act.l2_sector_writes += n;
                    ready = ready.max(r);
                }
                MemOpKind::Store => {
                    if !skip_l1 {
                        act.l1d_line_lookups += 1;
                        act.l1d_sector_writes += n;
                        if let Some(l1) = self.l1.get_mut(sm) {
                            l1.update(line, secs);
                        }
                    }
                    self.l2_access(t, line, secs, true, act);
                }
                MemOpKind::Load => {
                    let hit = if skip_l1 {
                        0
                    } else {
                        act.l1d_line_lookups += 1;
                        act.l1d_sector_reads += n;
                        let h = self
                            .l1
                            .get_mut(sm)
                            .map_or(0, |l1| l1.access(line, secs, true));
                        act.l1d_sector_read_hits += u64::from(h.count_ones());
                        h
                    };
                    let miss = secs & !hit;
                    let r = if miss == 0 {
                        t + l1_lat
                    } else {
                        self.l2_access(t, line, miss, false, act)
                    };
                    ready = ready.max(r);
                }
            }
        }
        self.scratch = lines;
        MemTiming {
            ready_at: ready,
            ldst_cycles,
        }
    }

    fn fetch(&mut self, now: u64, _sm: u32, f: &MemFetch, act: &mut MemActivity) -> u64 {
        act.rf_design_fetches += 1;
        let lb = u64::from(self.cfg.l2_slice.line_bytes.max(1));
        let sb = u64::from(self.cfg.l2_slice.sector_bytes.max(1));
        let mut ready = now;
        let mut b = f.addr;
        let end = f.addr.saturating_add(u64::from(f.bytes.max(1)));
        while b < end {
            let line = b / lb;
            let sec = 1u32 << ((b % lb) / sb);
            ready = ready.max(self.l2_access(now, line, sec, f.write, act));
            b = (b / sb + 1) * sb;
        }
        ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::config::GpuConfig;

    fn acc(space: MemSpaceKind, kind: MemOpKind, stride: u64) -> WarpMemAccess {
        WarpMemAccess {
            space,
            kind,
            bytes_per_lane: 4,
            mask: u32::MAX,
            addrs: std::array::from_fn(|l| 0x1000 + l as u64 * stride),
        }
    }

    #[test]
    fn coalesced_load_misses_then_hits_in_l1() {
        let c = GpuConfig::rtx2060_like().expect("preset");
        let mut m = StubMemory::new(&c.memory, 1, 4);
        let mut act = MemActivity::default();
        let a = acc(MemSpaceKind::Global, MemOpKind::Load, 4);
        let t1 = m.access(0, 0, &a, false, &mut act);
        assert_eq!(t1.ldst_cycles, 1);
        assert_eq!(act.l1d_sector_reads, 4);
        assert_eq!(act.dram_sector_reads, 4);
        assert!(t1.ready_at >= u64::from(c.memory.dram_latency));
        let t2 = m.access(1000, 0, &a, false, &mut act);
        assert_eq!(t2.ready_at, 1000 + u64::from(c.memory.l1d_hit_latency));
        assert_eq!(act.l1d_sector_read_hits, 4);
    }

    #[test]
    fn strided_load_takes_more_ldst_cycles() {
        let c = GpuConfig::rtx2060_like().expect("preset");
        let mut m = StubMemory::new(&c.memory, 1, 4);
        let mut act = MemActivity::default();
        let t = m.access(
            0,
            0,
            &acc(MemSpaceKind::Global, MemOpKind::Load, 128),
            false,
            &mut act,
        );
        assert_eq!(t.ldst_cycles, 32 / c.memory.l1d_lines_per_cycle);
        assert_eq!(act.l1d_sector_reads, 32);
    }

    #[test]
    fn shared_bank_conflicts_add_cycles() {
        let c = GpuConfig::rtx2060_like().expect("preset");
        let mut m = StubMemory::new(&c.memory, 1, 4);
        let mut act = MemActivity::default();
        let free = m.access(
            0,
            0,
            &acc(MemSpaceKind::Shared, MemOpKind::Load, 4),
            false,
            &mut act,
        );
        let conf = m.access(
            0,
            0,
            &acc(MemSpaceKind::Shared, MemOpKind::Load, 128),
            false,
            &mut act,
        );
        let bcast = m.access(
            0,
            0,
            &acc(MemSpaceKind::Shared, MemOpKind::Load, 0),
            false,
            &mut act,
        );
        assert_eq!(free.ready_at, u64::from(c.memory.shared.latency));
        assert_eq!(conf.ready_at, u64::from(c.memory.shared.latency) + 31);
        assert_eq!(conf.ldst_cycles, 32);
        assert_eq!(bcast.ready_at, u64::from(c.memory.shared.latency));
    }
}
