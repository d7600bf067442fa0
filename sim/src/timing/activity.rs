//! Activity statistics of a timed run: counts only, no energy (the designs crate multiplies
//! them by per-event energies from `regwatt-power`).
//!
//! The tree mirrors the model: [`Activity`] → [`CoreActivity`] (issue, stalls, collectors,
//! banks), [`RfActivity`] (register occupancy and access intervals, filled by the RF design
//! through [`RegTracker`]), [`MemActivity`], and the design's own typed record `D::Stats`.
//! Everything is a plain serde struct with `Vec`/`BTreeMap` only (deterministic output).

use serde::Serialize;

/// Power-of-two histogram: bucket `k` counts values `v` with `2^(k-1) <= v < 2^k`
/// (bucket 0 holds `v == 0`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Log2Histogram {
    pub buckets: Vec<u64>,
    pub count: u64,
    pub sum: u64,
}

impl Log2Histogram {
    /// Records one value.
    #[inline]
    pub fn add(&mut self, v: u64) {
        let k = (64 - v.leading_zeros()) as usize;
        if self.buckets.len() <= k {
            self.buckets.resize(k + 1, 0);
        }
        self.buckets[k] += 1;
        self.count += 1;
        self.sum = self.sum.saturating_add(v);
    }

    /// Adds another histogram into this one.
    pub fn merge(&mut self, o: &Log2Histogram) {
        if self.buckets.len() < o.buckets.len() {
            self.buckets.resize(o.buckets.len(), 0);
        }
        for (a, b) in self.buckets.iter_mut().zip(&o.buckets) {
            *a += b;
        }
        self.count += o.count;
        self.sum = self.sum.saturating_add(o.sum);
    }
}

fn add_vec(a: &mut Vec<u64>, b: &[u64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// Why a scheduler did not issue in a cycle (one count per scheduler per cycle).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StallBreakdown {
    /// Cycles with an issue.
    pub issued: u64,
    /// No warp resident on the sub-core.
    pub idle: u64,
    /// Warps resident but none has an instruction available (previous one still in the
    /// collector stage, or branch resolution).
    pub no_instruction: u64,
    /// Oldest blocker: a register/predicate written by a non-memory instruction in flight.
    pub scoreboard: u64,
    /// Oldest blocker: a register written by a load still in the memory system.
    pub memory: u64,
    /// A warp could issue but no collector unit was free (or the design's collector
    /// allocation policy made it wait).
    pub collector_full: u64,
    /// All candidate warps wait at a CTA barrier.
    pub barrier: u64,
}

impl StallBreakdown {
    pub fn merge(&mut self, o: &StallBreakdown) {
        self.issued += o.issued;
        self.idle += o.idle;
        self.no_instruction += o.no_instruction;
        self.scoreboard += o.scoreboard;
        self.memory += o.memory;
        self.collector_full += o.collector_full;
        self.barrier += o.barrier;
    }
}

/// Pipeline activity, summed over SMs. Per-bank vectors are indexed
/// `sub_core * banks_per_sub_core + bank`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CoreActivity {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    /// Instructions per unit class (`UnitClass` debug name → count).
    pub instructions_by_class: std::collections::BTreeMap<String, u64>,
    pub ctas_launched: u64,
    pub warps_launched: u64,
    pub bank_reads: Vec<u64>,
    pub bank_writes: Vec<u64>,
    /// (bank, cycle) pairs where a read request waited because the bank's ports were taken.
    pub bank_conflict_cycles: u64,
    /// Write requests delayed one cycle by write-port contention.
    pub write_port_stalls: u64,
    /// Operands moved bank → collector through the crossbar.
    pub crossbar_transfers: u64,
    /// Operand values written into collector units (from banks or bypasses).
    pub collector_writes: u64,
    /// Operand values read out of collector units to the execution units.
    pub collector_reads: u64,
    /// Operands served without a bank access (design bypass, e.g. a collector-cache hit).
    pub bypassed_reads: u64,
    /// Collector units allocated.
    pub collector_allocations: u64,
    /// Cycles ready collectors waited because their execution unit was busy.
    pub exec_unit_busy_cycles: u64,
    /// Collector-cycles spent waiting for operands (includes bank conflicts and delays).
    pub operand_wait_cycles: u64,
    /// Issue-slot stall breakdown, all schedulers.
    pub stalls: StallBreakdown,
    /// Releases applied (pir / pbr / dead destinations).
    pub releases_pir: u64,
    pub releases_pbr: u64,
    pub releases_dead_dst: u64,
    /// Operand reads the functional step made that were not collected (must stay 0: a
    /// non-zero value means the executor read a register the instruction info did not list).
    pub uncollected_reads: u64,
}

impl CoreActivity {
    pub fn merge(&mut self, o: &CoreActivity) {
        self.warp_instructions += o.warp_instructions;
        self.thread_instructions += o.thread_instructions;
        for (k, v) in &o.instructions_by_class {
            *self.instructions_by_class.entry(k.clone()).or_insert(0) += v;
        }
        self.ctas_launched += o.ctas_launched;
        self.warps_launched += o.warps_launched;
        add_vec(&mut self.bank_reads, &o.bank_reads);
        add_vec(&mut self.bank_writes, &o.bank_writes);
        self.bank_conflict_cycles += o.bank_conflict_cycles;
        self.write_port_stalls += o.write_port_stalls;
        self.crossbar_transfers += o.crossbar_transfers;
        self.collector_writes += o.collector_writes;
        self.collector_reads += o.collector_reads;
        self.bypassed_reads += o.bypassed_reads;
        self.collector_allocations += o.collector_allocations;
        self.exec_unit_busy_cycles += o.exec_unit_busy_cycles;
        self.operand_wait_cycles += o.operand_wait_cycles;
        self.stalls.merge(&o.stalls);
        self.releases_pir += o.releases_pir;
        self.releases_pbr += o.releases_pbr;
        self.releases_dead_dst += o.releases_dead_dst;
        self.uncollected_reads += o.uncollected_reads;
    }
}

/// Register-storage activity common to all designs, summed over SMs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RfActivity {
    /// Σ over physical registers of cycles allocated (what per-register power gating of
    /// unallocated registers saves against).
    pub allocated_register_cycles: u64,
    /// Σ over physical registers of cycles holding a live value (written, not yet released).
    pub live_register_cycles: u64,
    /// Allocated-register-cycles per sub-array, indexed as the design's
    /// [`RegTracker`] lays sub-arrays out (`sub_core, bank, sub-array`).
    pub subarray_allocated_cycles: Vec<u64>,
    /// Cycles each sub-array held at least one allocated register (sub-array gating).
    pub subarray_active_cycles: Vec<u64>,
    /// Cycles between consecutive accesses (read or write) to the same physical register.
    pub access_intervals: Log2Histogram,
    /// Per physical register: allocated cycles (one sample per register per SM at the end).
    pub per_register_allocated_cycles: Log2Histogram,
    /// Physical registers (warp-wide, 32 lanes) per SM tracked.
    pub physical_registers: u64,
}

impl RfActivity {
    pub fn merge(&mut self, o: &RfActivity) {
        self.allocated_register_cycles += o.allocated_register_cycles;
        self.live_register_cycles += o.live_register_cycles;
        add_vec(
            &mut self.subarray_allocated_cycles,
            &o.subarray_allocated_cycles,
        );
        add_vec(&mut self.subarray_active_cycles, &o.subarray_active_cycles);
        self.access_intervals.merge(&o.access_intervals);
        self.per_register_allocated_cycles
            .merge(&o.per_register_allocated_cycles);
        self.physical_registers += o.physical_registers;
    }
}

/// Occupancy and access-interval bookkeeping for a design's physical registers, charged
/// lazily (timestamps), so skipped idle cycles cost nothing. Physical register `i` belongs to
/// sub-array `i / rows_per_subarray` (the design numbers registers so that this holds).
#[derive(Clone, Debug)]
pub struct RegTracker {
    rows_per_subarray: u32,
    /// Per-access timestamps (touched by every read and write), kept apart from the
    /// allocation times so that the access path touches 16 bytes per register.
    regs: Vec<RegTimes>,
    /// Allocation timestamps (touched at allocation and free only).
    alloc: Vec<AllocTimes>,
    sub_alloc_count: Vec<u32>,
    sub_active_since: Vec<u64>,
    sub_active: Vec<u64>,
    sub_alloc_cycles: Vec<u64>,
}

/// Access timestamps of one physical register.
#[derive(Clone, Copy, Debug)]
struct RegTimes {
    live_since: u64,
    last_access: u64,
}

/// Allocation timestamps of one physical register.
#[derive(Clone, Copy, Debug)]
struct AllocTimes {
    alloc_since: u64,
    allocated: u64,
}

const NONE: u64 = u64::MAX;

impl RegTracker {
    /// Tracks `regs` physical registers in sub-arrays of `rows_per_subarray`.
    pub fn new(regs: usize, rows_per_subarray: u32) -> RegTracker {
        let rps = rows_per_subarray.max(1);
        let subs = regs.div_ceil(rps as usize);
        RegTracker {
            rows_per_subarray: rps,
            regs: vec![
                RegTimes {
                    live_since: NONE,
                    last_access: NONE,
                };
                regs
            ],
            alloc: vec![
                AllocTimes {
                    alloc_since: NONE,
                    allocated: 0,
                };
                regs
            ],
            sub_alloc_count: vec![0; subs],
            sub_active_since: vec![NONE; subs],
            sub_active: vec![0; subs],
            sub_alloc_cycles: vec![0; subs],
        }
    }

    fn sub(&self, i: usize) -> usize {
        i / self.rows_per_subarray as usize
    }

    /// Physical register `i` becomes allocated at `now`.
    pub fn allocate(&mut self, i: usize, now: u64) {
        let Some(r) = self.alloc.get_mut(i) else {
            return;
        };
        if r.alloc_since != NONE {
            return;
        }
        r.alloc_since = now;
        let s = self.sub(i);
        if self.sub_alloc_count[s] == 0 {
            self.sub_active_since[s] = now;
        }
        self.sub_alloc_count[s] += 1;
    }

    /// Physical register `i` is freed at `now`.
    pub fn free(&mut self, i: usize, now: u64, act: &mut RfActivity) {
        self.dead(i, now, act);
        let s = self.sub(i);
        let (Some(r), Some(h)) = (self.alloc.get_mut(i), self.regs.get_mut(i)) else {
            return;
        };
        if r.alloc_since == NONE {
            return;
        }
        let d = now.saturating_sub(r.alloc_since);
        r.alloc_since = NONE;
        r.allocated += d;
        h.last_access = NONE;
        act.allocated_register_cycles += d;
        self.sub_alloc_cycles[s] += d;
        self.sub_alloc_count[s] -= 1;
        if self.sub_alloc_count[s] == 0 {
            self.sub_active[s] += now.saturating_sub(self.sub_active_since[s]);
            self.sub_active_since[s] = NONE;
        }
    }

    /// A value is written into `i` (starts a live range if none is open).
    #[inline]
    pub fn write(&mut self, i: usize, now: u64, act: &mut RfActivity) {
        if let Some(r) = self.regs.get_mut(i) {
            if r.last_access != NONE {
                act.access_intervals.add(now.saturating_sub(r.last_access));
            }
            r.last_access = now;
            if r.live_since == NONE {
                r.live_since = now;
            }
        }
    }

    /// Prefetch hint for register `i`'s timestamps (see [`super::rf::prefetch_slice`]).
    #[inline]
    pub fn prefetch(&self, i: usize) {
        super::rf::prefetch_slice(&self.regs, i, 1);
    }

    /// `i` is read.
    #[inline]
    pub fn read(&mut self, i: usize, now: u64, act: &mut RfActivity) {
        if let Some(r) = self.regs.get_mut(i) {
            if r.last_access != NONE {
                act.access_intervals.add(now.saturating_sub(r.last_access));
            }
            r.last_access = now;
        }
    }

    /// The value in `i` is dead (released) at `now`.
    pub fn dead(&mut self, i: usize, now: u64, act: &mut RfActivity) {
        if let Some(r) = self.regs.get_mut(i) {
            if r.live_since != NONE {
                act.live_register_cycles += now.saturating_sub(r.live_since);
                r.live_since = NONE;
            }
        }
    }

    /// Closes every open interval at `now` and adds the totals to `act`.
    pub fn finish(&mut self, now: u64, act: &mut RfActivity) {
        for i in 0..self.regs.len() {
            self.free(i, now, act);
        }
        add_vec(&mut act.subarray_allocated_cycles, &self.sub_alloc_cycles);
        add_vec(&mut act.subarray_active_cycles, &self.sub_active);
        for r in &self.alloc {
            act.per_register_allocated_cycles.add(r.allocated);
        }
        act.physical_registers += self.regs.len() as u64;
        self.sub_alloc_cycles.fill(0);
        self.sub_active.fill(0);
        for r in self.alloc.iter_mut() {
            r.allocated = 0;
        }
    }
}

/// Memory-system activity, summed over SMs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemActivity {
    /// Warp-level memory instructions per space.
    pub global_instructions: u64,
    pub shared_instructions: u64,
    pub local_instructions: u64,
    pub param_const_instructions: u64,
    pub atomic_instructions: u64,
    /// 32 B sector accesses looked up in the L1D (loads) / written through (stores).
    pub l1d_sector_reads: u64,
    pub l1d_sector_read_hits: u64,
    /// Sector reads that found their sector's fill in flight and merged with its MSHR entry
    /// (serialised only when non-zero, like the other hierarchy-only counters below, so
    /// that memory models without MSHRs keep their records unchanged).
    #[serde(skip_serializing_if = "is_zero")]
    pub l1d_sector_read_merges: u64,
    /// Cycles L1D misses waited for a free MSHR entry (the LD/ST unit waits with them).
    #[serde(skip_serializing_if = "is_zero")]
    pub l1d_mshr_stall_cycles: u64,
    pub l1d_sector_writes: u64,
    /// 128 B line tag lookups in the L1D.
    pub l1d_line_lookups: u64,
    /// Shared-memory accesses: warp instructions and bank-conflict extra cycles.
    pub shared_accesses: u64,
    pub shared_bank_conflict_cycles: u64,
    pub l2_sector_reads: u64,
    pub l2_sector_read_hits: u64,
    /// L2 sector reads merged with a DRAM fill in flight.
    #[serde(skip_serializing_if = "is_zero")]
    pub l2_sector_read_merges: u64,
    /// Cycles L2 misses waited for a free L2 MSHR entry.
    #[serde(skip_serializing_if = "is_zero")]
    pub l2_mshr_stall_cycles: u64,
    pub l2_sector_writes: u64,
    pub dram_sector_reads: u64,
    pub dram_sector_writes: u64,
    /// DRAM accesses (reads and writes) that found their row open.
    #[serde(skip_serializing_if = "is_zero")]
    pub dram_row_hits: u64,
    /// Accesses issued on behalf of the RF design (seed 004 spills/fills).
    pub rf_design_fetches: u64,
    /// Global accesses the RF design served itself (seed 000/001 sharing, seed 004 hits).
    pub rf_design_served: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl MemActivity {
    pub fn merge(&mut self, o: &MemActivity) {
        self.global_instructions += o.global_instructions;
        self.shared_instructions += o.shared_instructions;
        self.local_instructions += o.local_instructions;
        self.param_const_instructions += o.param_const_instructions;
        self.atomic_instructions += o.atomic_instructions;
        self.l1d_sector_reads += o.l1d_sector_reads;
        self.l1d_sector_read_hits += o.l1d_sector_read_hits;
        self.l1d_sector_read_merges += o.l1d_sector_read_merges;
        self.l1d_mshr_stall_cycles += o.l1d_mshr_stall_cycles;
        self.l2_sector_read_merges += o.l2_sector_read_merges;
        self.l2_mshr_stall_cycles += o.l2_mshr_stall_cycles;
        self.dram_row_hits += o.dram_row_hits;
        self.l1d_sector_writes += o.l1d_sector_writes;
        self.l1d_line_lookups += o.l1d_line_lookups;
        self.shared_accesses += o.shared_accesses;
        self.shared_bank_conflict_cycles += o.shared_bank_conflict_cycles;
        self.l2_sector_reads += o.l2_sector_reads;
        self.l2_sector_read_hits += o.l2_sector_read_hits;
        self.l2_sector_writes += o.l2_sector_writes;
        self.dram_sector_reads += o.dram_sector_reads;
        self.dram_sector_writes += o.dram_sector_writes;
        self.rf_design_fetches += o.rf_design_fetches;
        self.rf_design_served += o.rf_design_served;
    }
}

/// Everything a timed run reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Activity<S: Serialize> {
    /// GPU preset name.
    pub gpu: String,
    /// RF design name.
    pub design: String,
    /// Core cycles from the kernel launch (including `kernel_launch_latency`, as GPGPU-Sim's
    /// `gpu_sim_cycle`) to the last warp's completion.
    pub cycles: u64,
    /// Cycles the simulator actually stepped (the rest were skipped as idle).
    pub simulated_cycles: u64,
    pub core: CoreActivity,
    pub rf: RfActivity,
    pub memory: MemActivity,
    /// The design's own typed event counts (summed over SMs).
    pub design_stats: S,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_powers_of_two() {
        let mut h = Log2Histogram::default();
        for v in [0, 1, 2, 3, 4, 7, 8] {
            h.add(v);
        }
        assert_eq!(h.buckets, vec![1, 1, 2, 2, 1]);
        assert_eq!(h.count, 7);
        assert_eq!(h.sum, 25);
    }

    #[test]
    fn tracker_integrates_occupancy_and_intervals() {
        let mut t = RegTracker::new(4, 2);
        let mut a = RfActivity::default();
        t.allocate(0, 10);
        t.allocate(3, 20);
        t.write(0, 12, &mut a);
        t.read(0, 15, &mut a);
        t.read(0, 19, &mut a);
        t.dead(0, 19, &mut a);
        t.free(0, 30, &mut a);
        t.finish(40, &mut a);
        // reg 0: 20 cycles allocated, reg 3: 20 cycles
        assert_eq!(a.allocated_register_cycles, 40);
        assert_eq!(a.live_register_cycles, 7);
        assert_eq!(a.subarray_allocated_cycles, vec![20, 20]);
        assert_eq!(a.subarray_active_cycles, vec![20, 20]);
        assert_eq!(a.access_intervals.count, 2); // 3 and 4 cycles
        assert_eq!(a.access_intervals.sum, 7);
        assert_eq!(a.physical_registers, 4);
    }
}
