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
        let k = log2_bucket(v);
        if self.buckets.len() <= k {
            self.grow(k);
        }
        self.buckets[k] += 1;
        self.count += 1;
        self.sum = self.sum.saturating_add(v);
    }

    /// Counts `n` values of bucket `k` (the buckets and count of `n` calls of [`Self::add`]
    /// with values of that bucket; the caller adds their sum).
    fn add_bucket(&mut self, k: usize, n: u64) {
        if n == 0 {
            return;
        }
        if self.buckets.len() <= k {
            self.grow(k);
        }
        self.buckets[k] += n;
        self.count += n;
    }

    /// Makes bucket `k` exist (kept out of line: the buckets only grow a few times a run).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, k: usize) {
        self.buckets.resize(k + 1, 0);
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

/// Bucket of `v` in a [`Log2Histogram`]: its bit length, `0..=64`.
#[inline(always)]
fn log2_bucket(v: u64) -> usize {
    (64 - v.leading_zeros()) as usize
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

/// A share kept as its numerator and denominator, so that merging launches (adding both)
/// gives the share of the whole run; written in JSON as the number `num / den` (0 when
/// `den` is 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ratio {
    pub num: u64,
    pub den: u64,
}

impl Ratio {
    /// `num / den`, 0 for an empty denominator.
    pub fn value(self) -> f64 {
        if self.den == 0 {
            0.0
        } else {
            self.num as f64 / self.den as f64
        }
    }

    /// Adds both parts.
    pub fn merge(&mut self, o: Ratio) {
        self.num += o.num;
        self.den += o.den;
    }
}

impl Serialize for Ratio {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.value())
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
    /// Thread operations (active lanes) per datapath operation (`OpKind` debug name → count;
    /// kinds without a datapath are left out).
    pub thread_ops_by_kind: std::collections::BTreeMap<String, u64>,
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
    /// 32-bit uniform-register reads (`UR` operands, sm_75's uniform datapath, one value per
    /// warp): not register-file accesses, so no design's banks see them. Written only when
    /// non-zero (a GPU without a uniform file has none).
    #[serde(skip_serializing_if = "is_zero")]
    pub uniform_reads: u64,
    /// 32-bit uniform-register writes.
    #[serde(skip_serializing_if = "is_zero")]
    pub uniform_writes: u64,
    /// How busy the GPU was: the share of the kernels' SM-cycles in which the SM held at least
    /// one CTA (mean over SMs of the share of kernel cycles with a resident warp; the launch
    /// latencies are not kernel cycles).
    pub sm_busy_frac: Ratio,
    /// Warp instructions issued per issue slot: warp instructions / (kernel cycles × issue
    /// slots per SM × SMs), the slots being `sm.sub_cores × sm.scheduler.issue_width` (4 × 1
    /// on rtx2060's four schedulers; 1 × 2 on gtx480, whose two schedulers are modelled as one
    /// dual-issue sub-core). At most 1.
    pub issue_utilisation_frac: Ratio,
}

impl CoreActivity {
    pub fn merge(&mut self, o: &CoreActivity) {
        self.warp_instructions += o.warp_instructions;
        self.thread_instructions += o.thread_instructions;
        for (k, v) in &o.instructions_by_class {
            *self.instructions_by_class.entry(k.clone()).or_insert(0) += v;
        }
        for (k, v) in &o.thread_ops_by_kind {
            *self.thread_ops_by_kind.entry(k.clone()).or_insert(0) += v;
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
        self.uniform_reads += o.uniform_reads;
        self.uniform_writes += o.uniform_writes;
        self.sm_busy_frac.merge(o.sm_busy_frac);
        self.issue_utilisation_frac.merge(o.issue_utilisation_frac);
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
    /// The most warp registers the architected allocation held at once on one SM: resident
    /// warps × registers reserved per warp (allocation granularity applied), maximum over
    /// SMs and time (Jeon & Annavaram 2014 Fig. 9, "Architecture Registers").
    pub architected_peak: u64,
    /// The most physical registers allocated at once on one SM (holding a mapping, or
    /// reserved for a warp), maximum over SMs and time (Jeon & Annavaram 2014 Fig. 9, "Physical
    /// Registers"). Equal to `architected_peak` for a design that allocates at warp launch.
    pub allocated_peak: u64,
    /// Cycles in each power state, when the design tracks them (a power mode other than
    /// always-on; absent otherwise, so always-on records are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_states: Option<PowerStateCycles>,
    /// Register occupancy per window of cycles, summed over SMs, when asked for
    /// (`RunOptions::series_window`; empty otherwise). Jeon & Annavaram 2014 Fig. 2.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub register_series: Vec<RegisterWindow>,
}

/// Register occupancy of one window of cycles, summed over SMs: Σ registers × cycles, so
/// that the mean over the window is `…_register_cycles / cycles` (divide by SMs for a per-SM
/// mean). Registers are warp registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RegisterWindow {
    /// First cycle of the window (from the start of the run; later launches continue).
    pub start_cycle: u64,
    /// Length of the window, cycles.
    pub cycles: u64,
    /// The architected allocation: resident warps × registers reserved per warp.
    pub architected_register_cycles: u64,
    /// Physical registers allocated (holding a mapping or reserved).
    pub allocated_register_cycles: u64,
    /// Registers holding a live value (written and not yet released: the register is read
    /// later).
    pub live_register_cycles: u64,
}

/// Adds `count × cycles` of the span `[from, to)` into per-window accumulators of `window`
/// cycles (window `k` covers `[k·window, (k+1)·window)`), growing `acc` as needed.
pub fn add_span(acc: &mut Vec<u64>, window: u64, from: u64, to: u64, count: u64) {
    if count == 0 || to <= from || window == 0 {
        return;
    }
    let mut t = from;
    while t < to {
        let k = (t / window) as usize;
        let end = ((k as u64 + 1) * window).min(to);
        if acc.len() <= k {
            acc.resize(k + 1, 0);
        }
        acc[k] += count * (end - t);
        t = end;
    }
}

/// Occupancy integrals of one counter over time ([`add_span`]), kept lazily: the count is
/// added for the span since its last change whenever it changes.
#[derive(Clone, Debug, Default)]
pub struct SeriesCounter {
    window: u64,
    since: u64,
    now_count: u64,
    acc: Vec<u64>,
}

impl SeriesCounter {
    /// A counter integrated over windows of `window` cycles (0: off).
    pub fn new(window: u64) -> SeriesCounter {
        SeriesCounter {
            window,
            ..SeriesCounter::default()
        }
    }

    /// The count changes by `delta` at `now`.
    #[inline]
    pub fn change(&mut self, now: u64, delta: i64) {
        add_span(&mut self.acc, self.window, self.since, now, self.now_count);
        self.since = self.since.max(now);
        self.now_count = self.now_count.saturating_add_signed(delta);
    }

    /// Closes the integral at `now` and returns the per-window sums.
    pub fn finish(&mut self, now: u64) -> Vec<u64> {
        self.change(now, 0);
        std::mem::take(&mut self.acc)
    }
}

/// Adds per-window sums into `series` (windows of `window` cycles from cycle 0) with `set`.
pub fn fold_series(
    series: &mut Vec<RegisterWindow>,
    window: u64,
    sums: &[u64],
    set: impl Fn(&mut RegisterWindow, u64),
) {
    if series.len() < sums.len() {
        let n = series.len();
        series.extend((n..sums.len()).map(|k| RegisterWindow {
            start_cycle: k as u64 * window,
            cycles: window,
            ..RegisterWindow::default()
        }));
    }
    for (w, &v) in series.iter_mut().zip(sums) {
        set(w, v);
    }
}

impl RegisterWindow {
    /// Adds another SM's integrals of the same window.
    pub fn add(&mut self, o: &RegisterWindow) {
        self.architected_register_cycles += o.architected_register_cycles;
        self.allocated_register_cycles += o.allocated_register_cycles;
        self.live_register_cycles += o.live_register_cycles;
    }
}

/// Exact power-state accounting of a design's register rows and sub-arrays, from
/// the timestamps of allocations, frees and accesses (never a histogram): for every mode the
/// cycles each row (or sub-array) spends in each state and the number of wake-ups, summed
/// over rows, sub-arrays and SMs. Every state total adds up to `row_cycles` (or
/// `subarray_cycles`) exactly: the off / drowsy cycles are the rest.
///
/// * Register gating: a row is on from the first write after its allocation until it is
///   freed (Jeon & Annavaram 2014 §8.3's per-register sleep transistor without lifetime knowledge);
///   `register_wakeups` counts the on periods.
/// * Sub-array gating: a sub-array is on from the first write to an allocated register in it
///   until every register in it is free (Jeon & Annavaram 2014 §8.3, Fig. 10a).
/// * Drowsy: a row is awake for `drowsy_timeout` cycles after each access (and after the
///   start of the count), drowsy otherwise; an access to a drowsy row wakes it (Flautner et al., ISCA 2002;
///   Abdel-Majeed & Annavaram, HPCA 2013, with timeout 0: drowsy right after every access).
/// * Tri-modal: off while unallocated; allocated rows follow the drowsy rule, starting awake
///   at their allocation (a wake-up from off).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PowerStateCycles {
    /// The drowsy timeout the drowsy and tri-modal figures were counted with, cycles.
    pub drowsy_timeout: u64,
    /// Register rows tracked: the physical rows of every SM (summed over SMs; a later launch
    /// runs on the same rows, [`Self::merge_launch`]).
    pub rows: u64,
    /// Sub-arrays tracked (summed over SMs, like `rows`).
    pub subarrays: u64,
    /// Σ over rows of the cycles tracked (rows × cycles of the launch).
    pub row_cycles: u64,
    /// Σ over sub-arrays of the cycles tracked.
    pub subarray_cycles: u64,
    /// Register gating: row-cycles on.
    pub register_on_cycles: u64,
    /// Register gating: off → on transitions.
    pub register_wakeups: u64,
    /// Sub-array gating: sub-array-cycles on.
    pub subarray_on_cycles: u64,
    /// Sub-array gating: off → on transitions.
    pub subarray_wakeups: u64,
    /// Drowsy: row-cycles awake (the rest drowsy).
    pub drowsy_awake_cycles: u64,
    /// Drowsy: drowsy → awake transitions.
    pub drowsy_wakeups: u64,
    /// Tri-modal: row-cycles awake (allocated).
    pub tri_awake_cycles: u64,
    /// Tri-modal: row-cycles drowsy (allocated); off = `row_cycles` − awake − drowsy.
    pub tri_drowsy_cycles: u64,
    /// Tri-modal: off → on transitions (allocations).
    pub tri_wakeups_from_off: u64,
    /// Tri-modal: drowsy → awake transitions.
    pub tri_wakeups_from_drowsy: u64,
    /// The share of the cycle counts above that fell while the SM held no CTA, when asked
    /// for ([`RegTracker::count_sm_idle`]: idle-SM gating); absent otherwise, so records
    /// without it are unchanged. Wake-ups need no share: no row is accessed on an idle SM.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sm_idle: Option<SmIdleCycles>,
}

/// The row- and sub-array-cycles of [`PowerStateCycles`] that fell in the windows in which
/// the SM held no CTA (its cycles outside `CoreActivity::sm_busy_frac`'s busy stretches),
/// state by state, summed over rows, sub-arrays and SMs like the totals. The busy share of a
/// count is the total minus this ([`PowerStateCycles::busy`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SmIdleCycles {
    /// Σ over rows of the idle cycles tracked (rows × idle cycles).
    pub row_cycles: u64,
    /// Σ over sub-arrays of the idle cycles tracked.
    pub subarray_cycles: u64,
    /// Register gating: row-cycles on while idle (a row allocated and written before the SM
    /// emptied; none when every register is freed with its warp).
    pub register_on_cycles: u64,
    /// Sub-array gating: sub-array-cycles on while idle.
    pub subarray_on_cycles: u64,
    /// Drowsy: row-cycles awake while idle (within `drowsy_timeout` of the row's last access,
    /// or of the start of the count).
    pub drowsy_awake_cycles: u64,
    /// Tri-modal: row-cycles awake while idle (allocated rows only).
    pub tri_awake_cycles: u64,
    /// Tri-modal: row-cycles drowsy while idle (allocated rows only).
    pub tri_drowsy_cycles: u64,
}

impl SmIdleCycles {
    fn add(&mut self, o: &SmIdleCycles) {
        self.row_cycles += o.row_cycles;
        self.subarray_cycles += o.subarray_cycles;
        self.register_on_cycles += o.register_on_cycles;
        self.subarray_on_cycles += o.subarray_on_cycles;
        self.drowsy_awake_cycles += o.drowsy_awake_cycles;
        self.tri_awake_cycles += o.tri_awake_cycles;
        self.tri_drowsy_cycles += o.tri_drowsy_cycles;
    }
}

impl PowerStateCycles {
    /// The counts of the cycles in which the SM held a CTA: every cycle count less its
    /// [`Self::sm_idle`] share, the wake-ups unchanged (none happens on an idle SM), and no
    /// `sm_idle` record. Without a record, the counts themselves.
    pub fn busy(&self) -> PowerStateCycles {
        let mut b = self.clone();
        if let Some(i) = self.sm_idle {
            let less = |x: u64, y: u64| x.saturating_sub(y);
            b.row_cycles = less(self.row_cycles, i.row_cycles);
            b.subarray_cycles = less(self.subarray_cycles, i.subarray_cycles);
            b.register_on_cycles = less(self.register_on_cycles, i.register_on_cycles);
            b.subarray_on_cycles = less(self.subarray_on_cycles, i.subarray_on_cycles);
            b.drowsy_awake_cycles = less(self.drowsy_awake_cycles, i.drowsy_awake_cycles);
            b.tri_awake_cycles = less(self.tri_awake_cycles, i.tri_awake_cycles);
            b.tri_drowsy_cycles = less(self.tri_drowsy_cycles, i.tri_drowsy_cycles);
        }
        b.sm_idle = None;
        b
    }

    /// Adds a later launch's record: the cycles and transitions add, the rows and sub-arrays
    /// are the same hardware (adding them would count a 16-launch workload's header area 16
    /// times).
    pub fn merge_launch(&mut self, o: &PowerStateCycles) {
        let (rows, subarrays) = (self.rows.max(o.rows), self.subarrays.max(o.subarrays));
        self.merge(o);
        self.rows = rows;
        self.subarrays = subarrays;
    }

    /// Adds another SM's record (same timeout).
    pub fn merge(&mut self, o: &PowerStateCycles) {
        self.drowsy_timeout = self.drowsy_timeout.max(o.drowsy_timeout);
        self.rows += o.rows;
        self.subarrays += o.subarrays;
        self.row_cycles += o.row_cycles;
        self.subarray_cycles += o.subarray_cycles;
        self.register_on_cycles += o.register_on_cycles;
        self.register_wakeups += o.register_wakeups;
        self.subarray_on_cycles += o.subarray_on_cycles;
        self.subarray_wakeups += o.subarray_wakeups;
        self.drowsy_awake_cycles += o.drowsy_awake_cycles;
        self.drowsy_wakeups += o.drowsy_wakeups;
        self.tri_awake_cycles += o.tri_awake_cycles;
        self.tri_drowsy_cycles += o.tri_drowsy_cycles;
        self.tri_wakeups_from_off += o.tri_wakeups_from_off;
        self.tri_wakeups_from_drowsy += o.tri_wakeups_from_drowsy;
        match (&mut self.sm_idle, &o.sm_idle) {
            (Some(a), Some(b)) => a.add(b),
            (None, Some(b)) => self.sm_idle = Some(*b),
            _ => {}
        }
    }
}

/// Which state machine decides whether a row is asleep ([`RegTracker::asleep`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SleepRule {
    /// Register gating: off until its first write after allocation, and after its free.
    Register,
    /// Sub-array gating: the row's sub-array is off.
    Subarray,
    /// Drowsy: more than the timeout since the row's last access.
    Drowsy,
    /// Tri-modal: unallocated (off), or drowsy by the drowsy rule.
    TriModal,
}

/// Power-state timestamps of one register row.
#[derive(Clone, Copy, Debug)]
struct PowerRow {
    /// Last access (or cycle 0): the drowsy timer starts here.
    last_touch: u64,
    /// Tri-modal: last access or allocation while allocated; `NONE` while unallocated.
    tri_last: u64,
    /// Register gating: start of the current on period; `NONE` while off.
    on_since: u64,
}

/// The power-state side of a [`RegTracker`] (kept apart: always-on runs never touch it).
#[derive(Clone, Debug)]
struct PowerTrack {
    timeout: u64,
    /// First cycle counted.
    start: u64,
    rows: Vec<PowerRow>,
    sub_on_since: Vec<u64>,
    counts: PowerStateCycles,
    /// Idle-SM accounting ([`RegTracker::count_sm_idle`]): the first cycle of the current
    /// idle window (`NONE` while the SM holds a CTA) and the idle counts so far.
    idle: Option<(u64, SmIdleCycles)>,
    /// Register and sub-array gating keep a row (a sub-array) on from its first write to the
    /// end of the launch ([`RegTracker::keep_gated_on`]).
    kept_on: bool,
}

impl PowerTrack {
    /// Adds the window `[from, to)` in which the SM held no CTA to the idle counts. No row is
    /// allocated, accessed or freed in it (no warp is resident), so every row keeps the state
    /// it had at `from` except for the drowsy timers, which run on: a row is awake in
    /// `[last access, last access + timeout)` (tri-modal: from its last access or allocation).
    fn idle_window(&mut self, from: u64, to: u64) {
        let t = self.timeout;
        let Some((_, c)) = &mut self.idle else {
            return;
        };
        let len = to.saturating_sub(from);
        if len == 0 {
            return;
        }
        // cycles of [from, to) within [since, since + timeout)
        let awake = |since: u64| {
            to.min(since.saturating_add(t))
                .saturating_sub(from.max(since))
        };
        for r in &self.rows {
            c.row_cycles += len;
            if r.on_since != NONE {
                c.register_on_cycles += len;
            }
            c.drowsy_awake_cycles += awake(r.last_touch);
            if r.tri_last != NONE {
                let a = awake(r.tri_last);
                c.tri_awake_cycles += a;
                c.tri_drowsy_cycles += len - a;
            }
        }
        for &since in &self.sub_on_since {
            c.subarray_cycles += len;
            if since != NONE {
                c.subarray_on_cycles += len;
            }
        }
    }

    /// The SM received its first CTA (`occupied`) at `now`, or its last CTA finished at
    /// `now` (busy through `now`, idle from `now + 1`).
    fn sm_occupied(&mut self, now: u64, occupied: bool) {
        let Some((since, _)) = self.idle else {
            return;
        };
        if occupied {
            if since != NONE {
                self.idle_window(since, now);
            }
            if let Some((s, _)) = &mut self.idle {
                *s = NONE;
            }
        } else if let Some((s, _)) = &mut self.idle {
            *s = now + 1;
        }
    }

    /// An access (read or write) to row `i` at `now`.
    #[inline]
    fn access(&mut self, i: usize, now: u64) {
        let t = self.timeout;
        let Some(r) = self.rows.get_mut(i) else {
            return;
        };
        let d = now.saturating_sub(r.last_touch);
        self.counts.drowsy_awake_cycles += d.min(t);
        self.counts.drowsy_wakeups += u64::from(d > t);
        r.last_touch = now;
        if r.tri_last != NONE {
            let d = now.saturating_sub(r.tri_last);
            self.counts.tri_awake_cycles += d.min(t);
            self.counts.tri_drowsy_cycles += d - d.min(t);
            self.counts.tri_wakeups_from_drowsy += u64::from(d > t);
            r.tri_last = now;
        }
    }

    /// A write to row `i` (in sub-array `s`) at `now`: turns the gated row and sub-array on
    /// if the row is allocated.
    #[inline]
    fn written(&mut self, i: usize, s: usize, now: u64) {
        let Some(r) = self.rows.get_mut(i) else {
            return;
        };
        if r.tri_last == NONE {
            return; // not allocated
        }
        if r.on_since == NONE {
            r.on_since = now;
            self.counts.register_wakeups += 1;
        }
        if let Some(since) = self.sub_on_since.get_mut(s) {
            if *since == NONE {
                *since = now;
                self.counts.subarray_wakeups += 1;
            }
        }
    }

    fn allocate(&mut self, i: usize, now: u64) {
        if let Some(r) = self.rows.get_mut(i) {
            r.tri_last = now;
            self.counts.tri_wakeups_from_off += 1;
        }
    }

    /// Row `i` is freed at `now`; `sub_empty`: its sub-array has no allocated row left.
    fn free(&mut self, i: usize, s: usize, now: u64, sub_empty: bool) {
        let t = self.timeout;
        if let Some(r) = self.rows.get_mut(i) {
            if r.tri_last != NONE {
                let d = now.saturating_sub(r.tri_last);
                self.counts.tri_awake_cycles += d.min(t);
                self.counts.tri_drowsy_cycles += d - d.min(t);
                r.tri_last = NONE;
            }
            if r.on_since != NONE && !self.kept_on {
                self.counts.register_on_cycles += now.saturating_sub(r.on_since);
                r.on_since = NONE;
            }
        }
        if sub_empty && !self.kept_on {
            if let Some(since) = self.sub_on_since.get_mut(s) {
                if *since != NONE {
                    self.counts.subarray_on_cycles += now.saturating_sub(*since);
                    *since = NONE;
                }
            }
        }
    }

    /// Closes the drowsy timers at `now` (after every row was freed), and the gated rows and
    /// sub-arrays kept on, and returns the counts.
    fn finish(&mut self, now: u64) -> PowerStateCycles {
        let t = self.timeout;
        if self.kept_on {
            for r in &mut self.rows {
                if r.on_since != NONE {
                    self.counts.register_on_cycles += now.saturating_sub(r.on_since);
                    r.on_since = NONE;
                }
            }
            for since in &mut self.sub_on_since {
                if *since != NONE {
                    self.counts.subarray_on_cycles += now.saturating_sub(*since);
                    *since = NONE;
                }
            }
        }
        for r in &mut self.rows {
            self.counts.drowsy_awake_cycles += now.saturating_sub(r.last_touch).min(t);
            r.last_touch = now;
        }
        let rows = self.rows.len() as u64;
        let subs = self.sub_on_since.len() as u64;
        self.counts.rows += rows;
        self.counts.subarrays += subs;
        let span = now.saturating_sub(self.start);
        self.counts.row_cycles += rows * span;
        self.counts.subarray_cycles += subs * span;
        if let Some((since, idle)) = &mut self.idle {
            self.counts.sm_idle = Some(std::mem::take(idle));
            // a later launch starts idle at its own start
            *since = self.start;
        }
        std::mem::replace(
            &mut self.counts,
            PowerStateCycles {
                drowsy_timeout: t,
                ..PowerStateCycles::default()
            },
        )
    }
}

impl RfActivity {
    /// Adds a later launch's activity ([`PowerStateCycles::merge_launch`]; everything else
    /// as [`Self::merge`]).
    pub fn merge_launch(&mut self, o: &RfActivity) {
        let mine = self.power_states.take();
        self.merge(o);
        match (mine, &o.power_states) {
            (Some(mut a), Some(b)) => {
                a.merge_launch(b);
                self.power_states = Some(a);
            }
            (Some(a), None) => self.power_states = Some(a),
            _ => {}
        }
    }

    /// Adds another SM's activity.
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
        self.architected_peak = self.architected_peak.max(o.architected_peak);
        self.allocated_peak = self.allocated_peak.max(o.allocated_peak);
        // the same launch's windows (another SM): added window by window
        if self.register_series.len() < o.register_series.len() {
            let n = self.register_series.len();
            self.register_series
                .extend_from_slice(&o.register_series[n..]);
            for (a, b) in self.register_series[..n].iter_mut().zip(&o.register_series) {
                a.add(b);
            }
        } else {
            for (a, b) in self.register_series.iter_mut().zip(&o.register_series) {
                a.add(b);
            }
        }
        match (&mut self.power_states, &o.power_states) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.power_states = Some(b.clone()),
            _ => {}
        }
    }
}

/// Occupancy and access-interval bookkeeping for a design's physical registers, charged
/// lazily (timestamps), so skipped idle cycles cost nothing. Physical register `i` belongs to
/// sub-array `i / rows_per_subarray` (the design numbers registers so that this holds).
///
/// Occupancy and live cycles reach the [`RfActivity`] record when a register is freed or
/// released; access intervals are counted in the tracker (a fixed array of the
/// [`Log2Histogram`] buckets, so a read or write touches no heap data but the register's
/// timestamps) and added to [`RfActivity::access_intervals`] by [`Self::finish`] (or
/// [`Self::flush_intervals`]), with the same buckets, count and sum as adding each interval.
#[derive(Clone, Debug)]
pub struct RegTracker {
    rows_per_subarray: u32,
    /// Per-access timestamps (touched by every read and write), kept apart from the
    /// allocation times so that the access path touches 16 bytes per register.
    regs: Vec<RegTimes>,
    /// Access intervals not yet added to `RfActivity::access_intervals`: count per number
    /// of leading zero bits of the interval (`0..=64`; [`Log2Histogram`] bucket `64 - lz`),
    /// and their sum (128 bits: no saturation test per access; saturated at the flush).
    intervals_by_lz: [u64; 65],
    interval_sum: u128,
    /// Allocation timestamps (touched at allocation and free only).
    alloc: Vec<AllocTimes>,
    sub_alloc_count: Vec<u32>,
    sub_active_since: Vec<u64>,
    sub_active: Vec<u64>,
    sub_alloc_cycles: Vec<u64>,
    /// Power-state accounting ([`PowerStateCycles`]), when asked for.
    power: Option<PowerTrack>,
    /// Registers allocated now, and the most at once.
    allocated_now: u64,
    allocated_peak: u64,
    /// Occupancy over time (allocated, live), when asked for ([`Self::record_series`]).
    series: Option<Box<(SeriesCounter, SeriesCounter)>>,
}

/// Access timestamps of one physical register (16-byte aligned: never split across two
/// host cache lines, so one prefetch covers it).
#[derive(Clone, Copy, Debug)]
#[repr(align(16))]
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
            intervals_by_lz: [0; 65],
            interval_sum: 0,
            sub_alloc_count: vec![0; subs],
            sub_active_since: vec![NONE; subs],
            sub_active: vec![0; subs],
            sub_alloc_cycles: vec![0; subs],
            power: None,
            allocated_now: 0,
            allocated_peak: 0,
            series: None,
        }
    }

    /// [`Self::new`], also counting the cycles of every power state ([`PowerStateCycles`])
    /// from cycle `start` (the end of the kernel-launch latency: the energy accounting window
    /// begins there) with a drowsy timeout of `drowsy_timeout` cycles; the registers start
    /// awake at `start`.
    pub fn with_power_states(
        regs: usize,
        rows_per_subarray: u32,
        drowsy_timeout: u64,
        start: u64,
    ) -> RegTracker {
        let mut t = RegTracker::new(regs, rows_per_subarray);
        let subs = t.sub_alloc_count.len();
        t.power = Some(PowerTrack {
            timeout: drowsy_timeout,
            start,
            rows: vec![
                PowerRow {
                    last_touch: start,
                    tri_last: NONE,
                    on_since: NONE,
                };
                regs
            ],
            sub_on_since: vec![NONE; subs],
            counts: PowerStateCycles {
                drowsy_timeout,
                ..PowerStateCycles::default()
            },
            idle: None,
            kept_on: false,
        });
        t
    }

    /// Register and sub-array gating turn a row (a sub-array) on at its first write and never
    /// off again within the launch: the basic power gating Jeon & Annavaram 2014 §8.3 compare
    /// against, which "does not know the register lifetime" ("once a register is turned on,
    /// it cannot be turned off"). Without it, a row goes off when it is freed and a sub-array
    /// when its last row is. Nothing without power-state tracking.
    pub fn keep_gated_on(&mut self) {
        if let Some(p) = &mut self.power {
            p.kept_on = true;
        }
    }

    /// Also counts the share of every power state's cycles that falls while the SM holds no
    /// CTA ([`PowerStateCycles::sm_idle`]), from the SM's [`Self::sm_occupied`] calls; the SM
    /// starts idle. For idle-SM gating, which turns an idle SM's register file off whatever
    /// the power mode. Nothing without power-state tracking.
    pub fn count_sm_idle(&mut self) {
        if let Some(p) = &mut self.power {
            p.idle = Some((p.start, SmIdleCycles::default()));
        }
    }

    /// The SM received its first CTA (`occupied`) or its last CTA finished (busy through
    /// `now`) at `now`: the idle windows [`Self::count_sm_idle`] counts. Call it before the
    /// first CTA's registers are allocated and after the last CTA's are freed.
    pub fn sm_occupied(&mut self, now: u64, occupied: bool) {
        if let Some(p) = &mut self.power {
            p.sm_occupied(now, occupied);
        }
    }

    fn sub(&self, i: usize) -> usize {
        i / self.rows_per_subarray as usize
    }

    /// Also integrates the allocated and live register counts over windows of `window`
    /// cycles ([`RfActivity::register_series`]; 0: off).
    pub fn record_series(&mut self, window: u64) {
        self.series = (window > 0)
            .then(|| Box::new((SeriesCounter::new(window), SeriesCounter::new(window))));
    }

    /// Whether row `i` is asleep at `now` under `rule` (before an access at `now` wakes it):
    /// the states [`PowerStateCycles`] counts. Always false without power-state tracking.
    #[inline]
    pub fn asleep(&self, i: usize, now: u64, rule: SleepRule) -> bool {
        let Some(p) = &self.power else {
            return false;
        };
        let Some(r) = p.rows.get(i) else {
            return false;
        };
        match rule {
            SleepRule::Register => r.on_since == NONE,
            SleepRule::Subarray => p.sub_on_since.get(self.sub(i)).is_some_and(|&s| s == NONE),
            SleepRule::Drowsy => now.saturating_sub(r.last_touch) > p.timeout,
            SleepRule::TriModal => r.tri_last == NONE || now.saturating_sub(r.tri_last) > p.timeout,
        }
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
        self.allocated_now += 1;
        if let Some(s) = &mut self.series {
            s.0.change(now, 1);
        }
        self.allocated_peak = self.allocated_peak.max(self.allocated_now);
        let s = self.sub(i);
        if self.sub_alloc_count[s] == 0 {
            self.sub_active_since[s] = now;
        }
        self.sub_alloc_count[s] += 1;
        if let Some(p) = &mut self.power {
            p.allocate(i, now);
        }
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
        self.allocated_now -= 1;
        if let Some(s) = &mut self.series {
            s.0.change(now, -1);
        }
        r.allocated += d;
        h.last_access = NONE;
        act.allocated_register_cycles += d;
        self.sub_alloc_cycles[s] += d;
        self.sub_alloc_count[s] -= 1;
        let empty = self.sub_alloc_count[s] == 0;
        if empty {
            self.sub_active[s] += now.saturating_sub(self.sub_active_since[s]);
            self.sub_active_since[s] = NONE;
        }
        if let Some(p) = &mut self.power {
            p.free(i, s, now, empty);
        }
    }

    /// A value is written into `i` (starts a live range if none is open). The access
    /// interval is added to `act` at [`Self::finish`] (the argument stays for designs that
    /// call through a generic `act`).
    #[inline]
    pub fn write(&mut self, i: usize, now: u64, _act: &mut RfActivity) {
        if let Some(r) = self.regs.get_mut(i) {
            let last = std::mem::replace(&mut r.last_access, now);
            if r.live_since == NONE {
                r.live_since = now;
                if let Some(s) = &mut self.series {
                    s.1.change(now, 1);
                }
            }
            if last != NONE {
                self.note_interval(now.saturating_sub(last));
            }
        }
        if self.power.is_some() {
            let s = self.sub(i);
            if let Some(p) = &mut self.power {
                p.access(i, now);
                p.written(i, s, now);
            }
        }
    }

    /// Counts one access interval (see [`Self::flush_intervals`]).
    #[inline(always)]
    fn note_interval(&mut self, d: u64) {
        // `leading_zeros` is at most 64: no bounds check
        self.intervals_by_lz[d.leading_zeros() as usize] += 1;
        self.interval_sum += u128::from(d);
    }

    /// Adds the access intervals counted since the last flush to `act.access_intervals`
    /// (called by [`Self::finish`]; call it earlier to read the intervals mid-run). The
    /// result equals adding each interval with [`Log2Histogram::add`] when it happened.
    pub fn flush_intervals(&mut self, act: &mut RfActivity) {
        let h = &mut act.access_intervals;
        // bucket k = 64 - lz, in increasing order (the buckets grow as `add` grows them)
        for (k, n) in self.intervals_by_lz.iter_mut().rev().enumerate() {
            h.add_bucket(k, std::mem::take(n));
        }
        // a sum of non-negative values saturates the same way all at once or one by one
        let sum = u64::try_from(std::mem::take(&mut self.interval_sum)).unwrap_or(u64::MAX);
        h.sum = h.sum.saturating_add(sum);
    }

    /// Prefetch hint for register `i`'s timestamps (see [`super::rf::prefetch_element`]).
    #[inline]
    pub fn prefetch(&self, i: usize) {
        super::rf::prefetch_element(&self.regs, i);
    }

    /// `i` is read (the interval since the last access reaches `act` at [`Self::finish`]).
    #[inline]
    pub fn read(&mut self, i: usize, now: u64, _act: &mut RfActivity) {
        if let Some(r) = self.regs.get_mut(i) {
            let last = std::mem::replace(&mut r.last_access, now);
            if last != NONE {
                self.note_interval(now.saturating_sub(last));
            }
        }
        if let Some(p) = &mut self.power {
            p.access(i, now);
        }
    }

    /// The value in `i` is dead (released) at `now`.
    pub fn dead(&mut self, i: usize, now: u64, act: &mut RfActivity) {
        if let Some(r) = self.regs.get_mut(i) {
            if r.live_since != NONE {
                act.live_register_cycles += now.saturating_sub(r.live_since);
                r.live_since = NONE;
                if let Some(s) = &mut self.series {
                    s.1.change(now, -1);
                }
            }
        }
    }

    /// Closes every open interval at `now` and adds the totals to `act`.
    pub fn finish(&mut self, now: u64, act: &mut RfActivity) {
        // an idle window open at the end closes with the rows as they were in it
        if let Some(p) = &mut self.power {
            if let Some((since, _)) = p.idle {
                if since != NONE {
                    p.idle_window(since, now);
                }
            }
        }
        for i in 0..self.regs.len() {
            self.free(i, now, act);
        }
        self.flush_intervals(act);
        add_vec(&mut act.subarray_allocated_cycles, &self.sub_alloc_cycles);
        add_vec(&mut act.subarray_active_cycles, &self.sub_active);
        for r in &self.alloc {
            act.per_register_allocated_cycles.add(r.allocated);
        }
        act.physical_registers += self.regs.len() as u64;
        act.allocated_peak = act.allocated_peak.max(self.allocated_peak);
        self.allocated_peak = 0;
        if let Some(s) = &mut self.series {
            let w = s.0.window;
            let alloc = s.0.finish(now);
            let live = s.1.finish(now);
            fold_series(&mut act.register_series, w, &alloc, |x, v| {
                x.allocated_register_cycles += v
            });
            fold_series(&mut act.register_series, w, &live, |x, v| {
                x.live_register_cycles += v
            });
        }
        if let Some(p) = &mut self.power {
            let c = p.finish(now);
            match &mut act.power_states {
                Some(a) => a.merge(&c),
                None => act.power_states = Some(c),
            }
        }
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
    /// Cycles the LD/ST unit was held because an L1D miss queue was full (GPGPU-Sim's
    /// `MISS_QUEUE_FULL` reservation failures).
    #[serde(skip_serializing_if = "is_zero")]
    pub l1d_miss_queue_stall_cycles: u64,
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
    /// Instruction fetches that missed the SM's instruction cache (read from the L2; zero
    /// with `perfect_inst_const_cache`).
    #[serde(skip_serializing_if = "is_zero")]
    pub inst_fetch_misses: u64,
    /// Param/const lines that missed the SM's constant cache (zero with
    /// `perfect_inst_const_cache`).
    #[serde(skip_serializing_if = "is_zero")]
    pub const_cache_misses: u64,
    /// Accesses issued on behalf of the RF design (Jing et al. 2016 spills/fills).
    pub rf_design_fetches: u64,
    /// Global accesses the RF design served itself (Jeon et al. 2019/001 sharing, Jing et al. 2016 hits).
    pub rf_design_served: u64,
    /// Line accesses of the RF design's tagged array that took a bank port (Jing et al. 2016 hits).
    #[serde(skip_serializing_if = "is_zero")]
    pub rf_design_array_accesses: u64,
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
        self.inst_fetch_misses += o.inst_fetch_misses;
        self.const_cache_misses += o.const_cache_misses;
        self.l1d_mshr_stall_cycles += o.l1d_mshr_stall_cycles;
        self.l1d_miss_queue_stall_cycles += o.l1d_miss_queue_stall_cycles;
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
        self.rf_design_array_accesses += o.rf_design_array_accesses;
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

    #[test]
    fn deferred_intervals_equal_direct_histogram() {
        // a deterministic access pattern with intervals from 0 up to 2^40 cycles, over
        // several registers, frees and re-allocations
        let mut t = RegTracker::new(8, 4);
        let mut a = RfActivity::default();
        let mut direct = Log2Histogram::default();
        let mut last = [None::<u64>; 8];
        for i in 0..8 {
            t.allocate(i, 0);
        }
        let mut now = 0u64;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for step in 0..5000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            now += match x % 7 {
                0 => 0,
                1 => 1,
                2 => x % 5,
                3 => 1 << (x % 41),
                _ => x % 300,
            };
            let i = (x >> 8) as usize % 8;
            let kind = (x >> 16) % 10;
            match kind {
                0 => {
                    t.free(i, now, &mut a);
                    last[i] = None;
                    t.allocate(i, now);
                }
                1..=4 => t.write(i, now, &mut a),
                _ => t.read(i, now, &mut a),
            }
            if kind != 0 {
                if let Some(l) = last[i] {
                    direct.add(now - l);
                }
                last[i] = Some(now);
            }
            if step == 2500 {
                // a mid-run flush adds to what is there
                t.flush_intervals(&mut a);
            }
        }
        t.finish(now, &mut a);
        assert_eq!(a.access_intervals, direct);
        assert!(
            direct.buckets.len() > 30,
            "the pattern reaches long intervals"
        );
        // nothing is counted twice
        t.finish(now, &mut a);
        assert_eq!(a.access_intervals, direct);
    }

    #[test]
    fn no_intervals_leave_the_histogram_empty() {
        let mut t = RegTracker::new(2, 1);
        let mut a = RfActivity::default();
        t.allocate(0, 0);
        t.write(0, 3, &mut a);
        t.finish(9, &mut a);
        assert_eq!(a.access_intervals, Log2Histogram::default());
    }
}

#[cfg(test)]
mod power_state_tests {
    use super::*;
    use proptest::prelude::*;

    /// Exposed wake-ups: the sleep state a read would find, on the same trace as
    /// [`hand_trace`] (timeout 3, 2 rows in 1 sub-array).
    #[test]
    fn asleep_follows_the_counted_states() {
        let mut t = RegTracker::with_power_states(2, 2, 3, 0);
        let mut act = RfActivity::default();
        let on = |t: &RegTracker, now, r| (t.asleep(0, now, r), t.asleep(1, now, r));
        // nothing allocated: gated and tri-modal rows are off; drowsy rows start awake
        assert_eq!(on(&t, 1, SleepRule::Register), (true, true));
        assert_eq!(on(&t, 1, SleepRule::Subarray), (true, true));
        assert_eq!(on(&t, 1, SleepRule::TriModal), (true, true));
        assert_eq!(on(&t, 1, SleepRule::Drowsy), (false, false));
        assert_eq!(on(&t, 4, SleepRule::Drowsy), (true, true));
        t.allocate(0, 2);
        // allocated but not written: gated off, tri-modal awake for 3 cycles
        assert_eq!(on(&t, 3, SleepRule::Register), (true, true));
        assert_eq!(on(&t, 3, SleepRule::TriModal), (false, true));
        t.write(0, 4, &mut act);
        assert_eq!(on(&t, 5, SleepRule::Register), (false, true));
        // the sub-array is on for both rows once r0 is written
        assert_eq!(on(&t, 5, SleepRule::Subarray), (false, false));
        assert!(!on(&t, 7, SleepRule::Drowsy).0);
        assert!(on(&t, 8, SleepRule::Drowsy).0);
        assert!(on(&t, 8, SleepRule::TriModal).0);
        t.read(0, 8, &mut act);
        assert!(!on(&t, 9, SleepRule::TriModal).0);
        t.free(0, 15, &mut act);
        assert!(on(&t, 16, SleepRule::Register).0);
        assert_eq!(on(&t, 16, SleepRule::Subarray), (true, true));
        // without power-state tracking nothing is ever asleep
        let plain = RegTracker::new(2, 2);
        assert!(!plain.asleep(0, 100, SleepRule::Drowsy));
    }

    /// [`hand_trace`]'s steps up to r0's free at 15.
    fn hand_trace_to_free(t: &mut RegTracker, act: &mut RfActivity) {
        t.allocate(0, 2);
        t.write(0, 4, act);
        t.allocate(1, 5);
        t.read(0, 6, act);
        t.read(0, 12, act);
        t.free(0, 15, act);
    }

    /// A hand-made trace, every count by hand (timeout 3; 2 rows in 1 sub-array):
    /// t=2 alloc r0; t=4 write r0; t=5 alloc r1; t=6 read r0; t=12 read r0; t=15 free r0;
    /// finish at 20 (frees r1, never written).
    /// * drowsy, r0: awake [0,3) [4,6) [6,9) [12,15) = 11, wakes at 4 and 12; r1: [0,3) = 3.
    /// * tri-modal, r0: awake [2,4) [4,6) [6,9) [12,15) = 10, drowsy [9,12) = 3, woken from
    ///   drowsy at 12; r1: awake [5,8) = 3, drowsy [8,20) = 12; 2 wakes from off.
    /// * register gating: r0 on [4,15) = 11 (1 wake); r1 never written, never on.
    /// * sub-array gating: on from r0's first write (4) until both rows are free (20) = 16.
    #[test]
    fn hand_trace() {
        let mut t = RegTracker::with_power_states(2, 2, 3, 0);
        let mut act = RfActivity::default();
        hand_trace_to_free(&mut t, &mut act);
        t.finish(20, &mut act);
        let p = act.power_states.expect("tracked");
        let want = PowerStateCycles {
            drowsy_timeout: 3,
            rows: 2,
            subarrays: 1,
            row_cycles: 40,
            subarray_cycles: 20,
            register_on_cycles: 11,
            register_wakeups: 1,
            subarray_on_cycles: 16,
            subarray_wakeups: 1,
            drowsy_awake_cycles: 14,
            drowsy_wakeups: 2,
            tri_awake_cycles: 13,
            tri_drowsy_cycles: 15,
            tri_wakeups_from_off: 2,
            tri_wakeups_from_drowsy: 1,
            sm_idle: None,
        };
        assert_eq!(p, want);
        // the allocated row-cycles are exactly the tri-modal awake + drowsy ones
        assert_eq!(act.allocated_register_cycles, 13 + 15);
    }

    /// [`hand_trace`]'s trace with the gated rows kept on ([`RegTracker::keep_gated_on`]):
    /// r0 is on from its first write (4) to the end (20) = 16 though freed at 15, r1 never
    /// written stays off; the sub-array is on [4, 20) = 16 as before; a re-allocated and
    /// rewritten r0 wakes no more. Every other count is [`hand_trace`]'s.
    #[test]
    fn gated_rows_kept_on_until_the_end() {
        let mut t = RegTracker::with_power_states(2, 2, 3, 0);
        t.keep_gated_on();
        let mut act = RfActivity::default();
        hand_trace_to_free(&mut t, &mut act);
        assert!(
            !t.asleep(0, 16, SleepRule::Register),
            "kept on after its free"
        );
        t.finish(20, &mut act);
        let p = act.power_states.expect("tracked");
        assert_eq!((p.register_on_cycles, p.register_wakeups), (16, 1));
        assert_eq!((p.subarray_on_cycles, p.subarray_wakeups), (16, 1));
        assert_eq!((p.drowsy_awake_cycles, p.tri_awake_cycles), (14, 13));
        // without power-state tracking the call does nothing
        let mut plain = RegTracker::new(2, 2);
        plain.keep_gated_on();
        assert!(!plain.asleep(0, 1, SleepRule::Register));
    }

    /// Idle-SM accounting by hand (timeout 3; 2 rows in 1 sub-array; counted from cycle 0):
    /// the SM's first CTA arrives at 2 (r0 allocated), r0 is written at 4 and read at 14,
    /// freed at 15 when the SM empties (busy through 15), finish at 20. Idle windows [0, 2)
    /// and [16, 20):
    /// * rows: 2 × (2 + 4) = 12 row-cycles, sub-array 6;
    /// * drowsy: both rows awake [0, 2) from the start of the count (4), r0 awake
    ///   [14, 17) ∩ [16, 20) = 1 after its last access: 5;
    /// * gated and tri-modal rows: nothing allocated while idle, so no on/awake/drowsy share.
    ///
    /// The busy counts are the totals less these: 28 row-cycles = 2 rows × busy [2, 16); drowsy
    /// awake 12 − 5 = 7 = r0 [2, 3) [4, 7) [14, 16) + r1 [2, 3).
    #[test]
    fn idle_sm_windows_by_hand() {
        let mut t = RegTracker::with_power_states(2, 2, 3, 0);
        t.count_sm_idle();
        let mut act = RfActivity::default();
        t.sm_occupied(2, true);
        t.allocate(0, 2);
        t.write(0, 4, &mut act);
        t.read(0, 14, &mut act);
        t.free(0, 15, &mut act);
        t.sm_occupied(15, false);
        t.finish(20, &mut act);
        let first = act.clone();
        let p = act.power_states.expect("tracked");
        let idle = p.sm_idle.expect("idle counted");
        assert_eq!(
            idle,
            SmIdleCycles {
                row_cycles: 12,
                subarray_cycles: 6,
                register_on_cycles: 0,
                subarray_on_cycles: 0,
                drowsy_awake_cycles: 5,
                tri_awake_cycles: 0,
                tri_drowsy_cycles: 0,
            }
        );
        assert_eq!((p.row_cycles, p.drowsy_awake_cycles), (40, 12));
        let b = p.busy();
        assert_eq!(b.sm_idle, None);
        assert_eq!((b.row_cycles, b.subarray_cycles), (28, 14));
        assert_eq!(b.drowsy_awake_cycles, 7);
        // on / awake periods lie in the busy window: unchanged
        assert_eq!(b.register_on_cycles, 11);
        assert_eq!(b.subarray_on_cycles, 11);
        assert_eq!((b.tri_awake_cycles, b.tri_drowsy_cycles), (6, 7));
        assert_eq!(b.drowsy_wakeups, p.drowsy_wakeups);
        // an SM busy for the whole count has no idle share: the busy counts are the totals
        let mut t = RegTracker::with_power_states(2, 2, 3, 0);
        t.count_sm_idle();
        let mut act = RfActivity::default();
        t.sm_occupied(0, true);
        t.allocate(1, 0);
        t.write(1, 1, &mut act);
        t.finish(9, &mut act);
        let p = act.power_states.expect("tracked");
        assert_eq!(p.sm_idle, Some(SmIdleCycles::default()));
        let mut same = p.clone();
        same.sm_idle = None;
        assert_eq!(p.busy(), same);
        // a second SM adds its idle share
        let mut two = first.clone();
        two.merge(&first);
        let idle = two.power_states.and_then(|p| p.sm_idle).expect("idle");
        assert_eq!((idle.row_cycles, idle.drowsy_awake_cycles), (24, 10));
    }

    /// Area of multi-launch workloads: a second launch on the same SMs adds its
    /// row-cycles and wake-ups, not its rows; a second SM adds its rows.
    #[test]
    fn a_later_launch_runs_on_the_same_rows() {
        let launch = || {
            let mut t = RegTracker::with_power_states(2, 2, 3, 0);
            let mut act = RfActivity::default();
            t.allocate(0, 2);
            t.write(0, 4, &mut act);
            t.free(0, 15, &mut act);
            t.finish(20, &mut act);
            act
        };
        let one = launch().power_states.expect("tracked");
        let mut two = launch();
        two.merge_launch(&launch());
        let two = two.power_states.expect("tracked");
        assert_eq!((two.rows, two.subarrays), (one.rows, one.subarrays));
        assert_eq!(two.row_cycles, 2 * one.row_cycles);
        assert_eq!(two.register_wakeups, 2 * one.register_wakeups);
        let mut sms = launch();
        sms.merge(&launch());
        let sms = sms.power_states.expect("tracked");
        assert_eq!(sms.rows, 2 * one.rows);
        // a launch without a record keeps the one there is
        let mut first = launch();
        first.merge_launch(&RfActivity::default());
        assert_eq!(first.power_states.expect("kept"), one);
    }

    /// Without a power mode nothing is tracked and the record is unchanged.
    #[test]
    fn no_power_states_unless_asked() {
        let mut t = RegTracker::new(4, 2);
        let mut act = RfActivity::default();
        t.allocate(1, 0);
        t.write(1, 3, &mut act);
        t.finish(10, &mut act);
        assert!(act.power_states.is_none());
    }

    #[derive(Clone, Debug)]
    enum Op {
        Alloc(usize),
        Free(usize),
        Read(usize),
        Write(usize),
    }

    fn op() -> impl Strategy<Value = (u64, Op)> {
        (
            0u64..20,
            prop_oneof![
                (0usize..8).prop_map(Op::Alloc),
                (0usize..8).prop_map(Op::Free),
                (0usize..8).prop_map(Op::Read),
                (0usize..8).prop_map(Op::Write),
            ],
        )
    }

    /// Runs `ops` (time steps and operations) on 8 rows in sub-arrays of 3 with `timeout`.
    fn run(ops: &[(u64, Op)], timeout: u64) -> (RfActivity, u64, u64) {
        let mut t = RegTracker::with_power_states(8, 3, timeout, 0);
        let mut act = RfActivity::default();
        let (mut now, mut accesses) = (0u64, 0u64);
        for (dt, o) in ops {
            now += dt;
            match *o {
                Op::Alloc(i) => t.allocate(i, now),
                Op::Free(i) => t.free(i, now, &mut act),
                Op::Read(i) => {
                    accesses += 1;
                    t.read(i, now, &mut act)
                }
                Op::Write(i) => {
                    accesses += 1;
                    t.write(i, now, &mut act)
                }
            }
        }
        let end = now + 7;
        t.finish(end, &mut act);
        (act, end, accesses)
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 256,
            rng_seed: proptest::test_runner::RngSeed::Fixed(27001),
            ..ProptestConfig::default()
        })]

        /// Every row is in exactly one state at every moment (the state totals add
        /// up to the rows' cycles), and each transition is counted once.
        #[test]
        fn states_partition_every_row_cycle(
            ops in prop::collection::vec(op(), 0..60),
            timeout in 0u64..12,
        ) {
            let (act, end, accesses) = run(&ops, timeout);
            let p = act.power_states.clone().expect("tracked");
            prop_assert_eq!(p.rows, 8);
            prop_assert_eq!(p.subarrays, 3);
            prop_assert_eq!(p.row_cycles, 8 * end);
            prop_assert_eq!(p.subarray_cycles, 3 * end);
            // tri-modal: awake + drowsy = allocated row-cycles; off is the rest
            prop_assert_eq!(p.tri_awake_cycles + p.tri_drowsy_cycles, act.allocated_register_cycles);
            // gating: a row or sub-array is on only while allocated
            prop_assert!(p.register_on_cycles <= act.allocated_register_cycles);
            let active: u64 = act.subarray_active_cycles.iter().sum();
            prop_assert!(p.subarray_on_cycles <= active);
            // drowsy: awake at most the timeout after each access and after cycle 0
            prop_assert!(p.drowsy_awake_cycles <= p.row_cycles);
            prop_assert!(p.drowsy_awake_cycles <= timeout * (accesses + 8));
            prop_assert!(p.drowsy_wakeups <= accesses);
            prop_assert!(p.tri_wakeups_from_drowsy <= accesses);
            prop_assert!(p.register_wakeups <= p.tri_wakeups_from_off);
            // a timeout past the end: always awake, never woken
            let (late, end2, _) = run(&ops, end + 1);
            let q = late.power_states.expect("tracked");
            prop_assert_eq!(q.drowsy_awake_cycles, 8 * end2);
            prop_assert_eq!(q.drowsy_wakeups, 0);
            prop_assert_eq!(q.tri_drowsy_cycles, 0);
        }
    }
}
