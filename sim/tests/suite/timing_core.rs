//! Timing-core integration tests with the value-checking synthetic executor
//! (`timing::functional::SyntheticModel`): bank conflicts, collector stalls, scheduler
//! policies, occupancy, release flags, value integrity through the RF design, determinism.

use crate::support;

use regwatt_sim::timing::activity::Activity;
use regwatt_sim::timing::config::{GpuConfig, SchedulerPolicy};
use regwatt_sim::timing::functional::SyntheticModel;
use regwatt_sim::timing::rf::{
    NoStats, OperandRef, ReadOutcome, RegId, RegisterFileDesign, ReleaseCause, RfCtx, RfError,
    RfLayout, Route, WarpSlot, WriteOutcome, WriteRef,
};
use regwatt_sim::timing::{run, RunOptions, TimingError, MAX_CYCLES};
use support::FlatRf;

const HEADER: &str = ".version 7.0\n.target sm_75\n.address_size 64\n";

/// `chains` independent accumulators, each updated `rounds` times by an FMA reading three
/// registers: operand-read bandwidth bound.
fn fma_kernel(chains: usize, rounds: usize) -> String {
    let mut s = format!(
        "{HEADER}.visible .entry k()\n{{\n.reg .f32 %f<{}>;\n",
        chains + 8
    );
    s += "mov.f32 %f0, 0f3F800000;\nmov.f32 %f1, 0f40000000;\nmov.f32 %f2, 0f40400000;\n";
    for c in 0..chains {
        s += &format!("mov.f32 %f{}, 0f3F000000;\n", c + 3);
    }
    for _ in 0..rounds {
        for c in 0..chains {
            s += &format!("fma.rn.f32 %f{0}, %f0, %f1, %f{0};\n", c + 3);
        }
    }
    // keep everything live to the end
    for c in 1..chains {
        s += &format!("add.f32 %f3, %f3, %f{};\n", c + 3);
    }
    s += "ret;\n}\n";
    s
}

/// Loads through a pointer parameter, dependent arithmetic and a store: latency bound.
fn mem_kernel(loads: usize) -> String {
    let mut s = format!(
        "{HEADER}.visible .entry k(.param .u64 p)\n{{\n.reg .f32 %f<{}>;\n.reg .b64 %rd<4>;\n",
        loads + 4
    );
    s += "ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\nmov.f32 %f0, 0f00000000;\n";
    for i in 0..loads {
        s += &format!("ld.global.f32 %f{}, [%rd2+{}];\n", i + 1, i * 4);
        s += &format!("add.f32 %f0, %f0, %f{};\n", i + 1);
    }
    s += "st.global.f32 [%rd2], %f0;\nret;\n}\n";
    s
}

fn model(src: &str, ctas: u32, threads: u32) -> SyntheticModel {
    let m = regwatt_sim::ptx::parse("test.ptx", src).expect("PTX parses");
    SyntheticModel::new(&m, "k", ctas, threads).expect("model")
}

fn cfg() -> GpuConfig {
    let mut c = GpuConfig::rtx2060_like().expect("preset");
    c.sms = 2;
    c
}

fn run_base(c: &GpuConfig, m: &mut SyntheticModel) -> Activity<NoStats> {
    run(c, m, |_| FlatRf::new(c), &RunOptions::default()).expect("timed run")
}

/// The flat design with test knobs, each off in [`Tweak::new`].
struct Tweak {
    base: FlatRf,
    /// Route every read and write to bank 0.
    one_bank: bool,
    /// Flip a bit of lane 5 in every value read: must be caught by the checksum comparison.
    corrupt: bool,
    /// Wake-up delay added to every read.
    wake: u32,
    /// Serve reads of even-numbered registers from a (pretend) collector cache.
    bypass_even: bool,
    /// Scheduling priority: `None` the trait's default, `Some(true)` `255 - slot` (older =
    /// higher while no slot is reused), `Some(false)` a constant 7.
    priority: Option<bool>,
    /// Every write also evicts a value into bank 0 (`WriteOutcome::evict_to_bank`).
    evict: bool,
    /// Where the two-level scheduler's active-set events go (`warp_scheduled`).
    log: Option<ActiveSetEvents>,
    /// Instructions of the design's own decoded with every issued one (`issued`).
    decode: u32,
}

impl Tweak {
    fn new(c: &GpuConfig) -> Tweak {
        Tweak {
            base: FlatRf::new(c),
            one_bank: false,
            corrupt: false,
            wake: 0,
            bypass_even: false,
            priority: None,
            evict: false,
            log: None,
            decode: 0,
        }
    }
}

impl RegisterFileDesign for Tweak {
    type Stats = NoStats;
    const SCHEDULER_EVENTS: bool = true;
    fn name(&self) -> String {
        match (
            self.one_bank,
            self.corrupt,
            self.wake > 0 || self.bypass_even,
        ) {
            (true, _, _) => "one-bank".into(),
            (_, true, _) => "lossy".into(),
            (_, _, true) => "tweak".into(),
            _ => self.base.name(),
        }
    }
    fn layout(&self) -> RfLayout {
        self.base.layout()
    }
    fn can_allocate(&self, w: &[WarpSlot], r: u32) -> bool {
        self.base.can_allocate(w, r)
    }
    fn allocate_warp(&mut self, c: &mut RfCtx, w: WarpSlot, r: u32) -> Result<(), RfError> {
        self.base.allocate_warp(c, w, r)
    }
    fn free_warp(&mut self, c: &mut RfCtx, w: WarpSlot) {
        self.base.free_warp(c, w)
    }
    fn warp_priority(&self, w: WarpSlot) -> u8 {
        match self.priority {
            None => 0,
            Some(true) => 255 - w.slot.min(255) as u8,
            Some(false) => 7,
        }
    }
    fn route_read(&mut self, c: &mut RfCtx, o: &OperandRef) -> Route {
        if self.one_bank {
            Route::Bank(0)
        } else if self.bypass_even && o.reg.is_multiple_of(2) {
            Route::Bypass
        } else {
            self.base.route_read(c, o)
        }
    }
    fn read(&mut self, c: &mut RfCtx, o: &OperandRef) -> ReadOutcome {
        let mut r = self.base.read(c, o);
        if self.corrupt {
            r.values[5] ^= 1;
        }
        if self.wake > 0 {
            r.delay = regwatt_sim::timing::rf::Delay::Cycles(self.wake);
        }
        r
    }
    fn route_write(&mut self, c: &mut RfCtx, w: &WriteRef) -> Route {
        if self.one_bank {
            Route::Bank(0)
        } else {
            self.base.route_write(c, w)
        }
    }
    fn write(&mut self, c: &mut RfCtx, w: &WriteRef, v: &[u32; 32], m: u32) -> WriteOutcome {
        WriteOutcome {
            evict_to_bank: self.evict.then_some(0),
            ..self.base.write(c, w, v, m)
        }
    }
    fn issued(&mut self, _c: &mut RfCtx, _w: WarpSlot, _func: u32, _pc: u32) -> u32 {
        self.decode
    }
    fn warp_scheduled(&mut self, c: &mut RfCtx, w: WarpSlot, active: bool) {
        if let Some(log) = &self.log {
            log.borrow_mut().push((c.sm, w.sub_core, w.slot, active));
        }
    }
    fn release(&mut self, c: &mut RfCtx, w: WarpSlot, r: RegId, k: ReleaseCause) {
        self.base.release(c, w, r, k)
    }
    fn peek(&self, w: WarpSlot, r: RegId) -> [u32; 32] {
        self.base.peek(w, r)
    }
    fn finish(&mut self, c: &mut RfCtx) {
        self.base.finish(c)
    }
    fn stats(&self) -> NoStats {
        NoStats
    }
}

/// GTO reads the age list in place when every design priority is equal and sorts otherwise.
/// With priorities that follow age (every CTA resident at once, slots handed out lowest
/// first) the sort gives the same order, so both paths must give the same run, and a constant
/// non-zero priority must change nothing.
#[test]
fn gto_in_place_order_matches_the_sorted_order() {
    let src = mem_kernel(6);
    let c = cfg();
    let base = toml::to_string(&run_base(&c, &mut model(&src, 8, 128))).expect("ser");
    for by_age in [true, false] {
        let a = run(
            &c,
            &mut model(&src, 8, 128),
            |_| Tweak {
                priority: Some(by_age),
                ..Tweak::new(&c)
            },
            &RunOptions::default(),
        )
        .expect("timed run");
        assert_eq!(toml::to_string(&a).expect("ser"), base, "by_age = {by_age}");
    }
}

/// The GTO scheduler finds its warp from per-sub-core ready masks when every warp slot fits a
/// 64-bit mask, and scans the age list otherwise. An SM with 96 warp slots whose thread limit
/// keeps the same warps resident (slots are handed out lowest first) takes the scan path and
/// must give the same cycles, stalls and core activity (the RF statistics differ: the flat
/// test design sizes itself by the warp slots), for a latency-bound and a compute kernel.
#[test]
fn ready_mask_scheduler_matches_the_scan() {
    for (src, ctas, threads) in [(mem_kernel(6), 8, 128), (fma_kernel(8, 16), 8, 256)] {
        let c = cfg();
        let mut wide = cfg();
        wide.sm.limits.max_warps = 96;
        let a = run_base(&c, &mut model(&src, ctas, threads));
        let b = run_base(&wide, &mut model(&src, ctas, threads));
        assert_eq!(a.cycles, b.cycles);
        assert_eq!(
            toml::to_string(&a.core).expect("ser"),
            toml::to_string(&b.core).expect("ser")
        );
        assert_eq!(
            toml::to_string(&a.memory).expect("ser"),
            toml::to_string(&b.memory).expect("ser")
        );
    }
}

#[test]
fn one_bank_design_is_slower_than_its_banked_twin() {
    let c = cfg();
    let src = fma_kernel(8, 16);
    let mut m1 = model(&src, 8, 256);
    let base = run_base(&c, &mut m1);
    let mut m2 = model(&src, 8, 256);
    let one = run(
        &c,
        &mut m2,
        |_| Tweak {
            one_bank: true,
            ..Tweak::new(&c)
        },
        &RunOptions::default(),
    )
    .expect("run");
    assert_eq!(base.core.warp_instructions, one.core.warp_instructions);
    assert!(
        one.cycles > base.cycles,
        "one bank {} cycles vs banked {}",
        one.cycles,
        base.cycles
    );
    assert!(one.core.bank_conflict_cycles > base.core.bank_conflict_cycles);
    // all reads on bank 0 of each sub-core
    let banks = c.sm.register_file.banks_per_sub_core as usize;
    for (i, r) in one.core.bank_reads.iter().enumerate() {
        if i % banks != 0 {
            assert_eq!(*r, 0);
        }
    }
    // values still correct
    assert_eq!(m2.checksums, m1.checksums);
}

/// FMA chains `fma acc, B, C, acc` whose three source registers all have the same parity
/// (`one_bank`) or not. `%f0` comes from `%tid.x` and every further value from the previous
/// one, all live to the end, so the greedy allocator lays them out in order (the test checks
/// the parities it relies on). With `banks_per_sub_core = 2`, the warp-interleaved mapping
/// `(reg + warp) % 2` and every warp of a sub-core having the same slot parity (slot `w` →
/// sub-core `w % 4`), the one-bank kernel reads a single bank three times per FMA; its twin
/// reads one bank twice and the other once.
const LEAD: usize = 6;

fn parity_fma_kernel(one_bank: bool, chains: usize, rounds: usize) -> (String, [usize; 3]) {
    let n = LEAD + 2 * chains;
    let mut s = format!("{HEADER}.visible .entry k()\n{{\n.reg .f32 %f<{n}>;\n");
    // distinct computed values (not constants the allocator could rematerialise)
    s += ".reg .b32 %r<2>;\nmov.u32 %r0, %tid.x;\ncvt.rn.f32.u32 %f0, %r0;\n";
    for i in 1..n {
        s += &format!("add.f32 %f{i}, %f{}, 0f3F800000;\n", i - 1);
    }
    let (b, c) = if one_bank { (2, 4) } else { (1, 3) };
    for _ in 0..rounds {
        for j in 0..chains {
            let acc = LEAD + 2 * j;
            s += &format!("fma.rn.f32 %f{acc}, %f{b}, %f{c}, %f{acc};\n");
        }
    }
    // keep every value live to the end
    for i in 0..n {
        if i != LEAD {
            s += &format!("add.f32 %f{LEAD}, %f{LEAD}, %f{i};\n");
        }
    }
    s += "ret;\n}\n";
    (s, [b, c, LEAD])
}

/// Parity of the architectural registers of `%f<i>` for the listed `i`.
fn parities(m: &SyntheticModel, vregs: [usize; 3]) -> [u16; 3] {
    use regwatt_sim::analysis::regalloc::ArchReg;
    use regwatt_sim::timing::functional::FunctionalWarpModel;
    let a = m.analyses()[0].as_ref().expect("kernel analysis");
    vregs.map(|v| match a.alloc.map[v] {
        Some(ArchReg::R(r)) => r % 2,
        other => panic!("%f{v} allocated to {other:?}"),
    })
}

#[test]
fn kernel_hitting_one_bank_is_slower_than_its_twin() {
    let c = cfg();
    assert_eq!(c.sm.register_file.banks_per_sub_core, 2);
    let (one_src, one_regs) = parity_fma_kernel(true, 6, 24);
    let (two_src, two_regs) = parity_fma_kernel(false, 6, 24);
    let mut m1 = model(&one_src, 8, 256);
    let mut m2 = model(&two_src, 8, 256);
    let p1 = parities(&m1, one_regs);
    let p2 = parities(&m2, two_regs);
    assert!(p1.iter().all(|&p| p == p1[0]), "one-bank kernel: {p1:?}");
    assert!(p2.iter().any(|&p| p != p2[0]), "twin: {p2:?}");
    let one = run_base(&c, &mut m1);
    let two = run_base(&c, &mut m2);
    assert_eq!(one.core.warp_instructions, two.core.warp_instructions);
    let reads = |a: &Activity<NoStats>| a.core.bank_reads.iter().sum::<u64>();
    assert_eq!(reads(&one), reads(&two));
    // 3 reads per FMA on one single-ported bank (3 cycles) against the SP unit's initiation
    // interval of 2: the one-bank kernel is bank-bound, its twin (2 + 1 reads) is not
    assert!(
        one.cycles > two.cycles,
        "one bank {} cycles vs twin {}",
        one.cycles,
        two.cycles
    );
    assert!(one.core.bank_conflict_cycles > two.core.bank_conflict_cycles);
    // the one-bank kernel's reads pile up on one bank of each sub-core
    let skew = |a: &Activity<NoStats>| {
        a.core
            .bank_reads
            .chunks(2)
            .map(|b| b[0].max(b[1]) as f64 / b[0].min(b[1]).max(1) as f64)
            .fold(0.0, f64::max)
    };
    assert!(skew(&one) > skew(&two), "{} vs {}", skew(&one), skew(&two));
    // the computation is the same
    assert_eq!(m1.checksums.len(), m2.checksums.len());
}

#[test]
fn more_banks_fewer_conflict_cycles() {
    let src = fma_kernel(8, 16);
    let mut c1 = cfg();
    c1.sm.register_file.banks_per_sub_core = 1;
    c1.sm.register_file.crossbar_width = 1;
    let mut c4 = cfg();
    c4.sm.register_file.banks_per_sub_core = 4;
    c4.sm.register_file.crossbar_width = 4;
    let a1 = run_base(&c1, &mut model(&src, 8, 256));
    let a4 = run_base(&c4, &mut model(&src, 8, 256));
    assert!(a1.cycles > a4.cycles, "{} vs {}", a1.cycles, a4.cycles);
    assert!(a1.core.bank_conflict_cycles > a4.core.bank_conflict_cycles);
}

#[test]
fn one_collector_stalls_issue_more_than_four() {
    let src = fma_kernel(8, 16);
    let mut c1 = cfg();
    c1.sm.collectors.units_per_sub_core = 1;
    let mut c4 = cfg();
    c4.sm.collectors.units_per_sub_core = 4;
    let a1 = run_base(&c1, &mut model(&src, 8, 256));
    let a4 = run_base(&c4, &mut model(&src, 8, 256));
    assert!(a1.cycles > a4.cycles, "{} vs {}", a1.cycles, a4.cycles);
    assert!(a1.core.stalls.collector_full > a4.core.stalls.collector_full);
}

#[test]
fn scheduler_policy_changes_cycles() {
    let src = mem_kernel(6);
    let mut out = Vec::new();
    for p in [
        SchedulerPolicy::Gto,
        SchedulerPolicy::Lrr,
        SchedulerPolicy::TwoLevel { active_warps: 1 },
    ] {
        let mut c = cfg();
        c.sm.scheduler.policy = p;
        let a = run_base(&c, &mut model(&src, 16, 256));
        out.push(a.cycles);
    }
    // the order in which warps issue changes when their loads reach the memory system and
    // how they merge there (MSHR merging makes the followers of a missing warp wait for its
    // fill), so each policy takes its own number of cycles
    assert_ne!(out[0], out[1], "GTO and LRR: {out:?}");
    assert_ne!(out[2], out[0], "two-level(1) vs GTO: {out:?}");
}

#[test]
fn timed_values_match_untimed_run() {
    for src in [fma_kernel(4, 8), mem_kernel(4)] {
        let mut reference = model(&src, 12, 96);
        let want = reference.run_untimed().expect("untimed");
        let mut m = model(&src, 12, 96);
        let a = run_base(&cfg(), &mut m);
        assert_eq!(m.checksums, want);
        assert_eq!(a.core.uncollected_reads, 0);
        assert_eq!(a.core.warp_instructions, a.core.collector_allocations);
    }
}

#[test]
fn a_value_losing_design_is_caught() {
    let src = fma_kernel(4, 8);
    let mut reference = model(&src, 4, 64);
    let want = reference.run_untimed().expect("untimed");
    let c = cfg();
    let mut m = model(&src, 4, 64);
    run(
        &c,
        &mut m,
        |_| Tweak {
            corrupt: true,
            ..Tweak::new(&c)
        },
        &RunOptions::default(),
    )
    .expect("run");
    assert_ne!(m.checksums, want);
}

#[test]
fn runs_are_deterministic() {
    let src = mem_kernel(5);
    let c = cfg();
    let a = toml::to_string(&run_base(&c, &mut model(&src, 10, 128))).expect("ser");
    let b = toml::to_string(&run_base(&c, &mut model(&src, 10, 128))).expect("ser");
    assert_eq!(a, b);
}

#[test]
fn instruction_counts_and_activity_are_consistent() {
    let src = fma_kernel(4, 4);
    let c = cfg();
    let mut m = model(&src, 3, 48); // second warp of each CTA half full
    let a = run_base(&c, &mut m);
    let per_warp = regwatt_sim::ptx::parse("t", &src).expect("parse").functions[0]
        .instrs
        .len() as u64;
    assert_eq!(a.core.warp_instructions, per_warp * 6);
    assert_eq!(a.core.thread_instructions, per_warp * 3 * 48);
    let reads: u64 = a.core.bank_reads.iter().sum();
    assert_eq!(reads + a.core.bypassed_reads, a.core.collector_writes);
    assert_eq!(reads, a.core.crossbar_transfers);
    assert!(a.core.releases_pir > 0);
    assert!(a.rf.allocated_register_cycles > 0);
    assert!(a.rf.live_register_cycles <= a.rf.allocated_register_cycles);
    assert!(a.rf.access_intervals.count > 0);
    let s = &a.core.stalls;
    let slots = s.issued
        + s.idle
        + s.no_instruction
        + s.scoreboard
        + s.memory
        + s.collector_full
        + s.barrier;
    assert_eq!(slots, a.cycles * u64::from(c.sms * c.sm.sub_cores));
    assert_eq!(s.issued, a.core.warp_instructions);
}

#[test]
fn idle_cycles_are_skipped_for_memory_bound_kernels() {
    let a = run_base(&cfg(), &mut model(&mem_kernel(3), 2, 32));
    assert!(
        a.simulated_cycles < a.cycles / 2,
        "{} of {}",
        a.simulated_cycles,
        a.cycles
    );
    assert!(a.core.stalls.memory > 0);
    assert!(a.memory.l1d_sector_reads > 0);
}

#[test]
fn barriers_complete() {
    let src = format!(
        "{HEADER}.visible .entry k()\n{{\n.reg .b32 %r<4>;\nmov.u32 %r1, 7;\nbar.sync 0;\nadd.u32 %r2, %r1, 1;\nbar.sync 0;\nret;\n}}\n"
    );
    let a = run_base(&cfg(), &mut model(&src, 4, 256));
    assert_eq!(a.core.warp_instructions, 5 * 8 * 4);
    assert!(a.core.stalls.barrier > 0);
}

#[test]
fn occupancy_limits_and_oversized_ctas() {
    // 1024-thread CTAs: one per SM at a time
    let src = fma_kernel(2, 2);
    let c = cfg();
    let a = run_base(&c, &mut model(&src, 4, 1024));
    assert_eq!(a.core.ctas_launched, 4);
    let mut small = c.clone();
    small.sm.limits.max_threads = 512;
    small.sm.limits.max_warps = 16;
    let e = run(
        &small,
        &mut model(&src, 1, 1024),
        |_| FlatRf::new(&small),
        &RunOptions::default(),
    );
    assert!(matches!(e, Err(TimingError::CtaTooLarge { .. })), "{e:?}");
}

/// The memory kernel (4 warps, 64 threads per CTA) on the flat RF with cycle limit `max`.
fn run_mem_kernel(max: u64) -> Result<Activity<NoStats>, TimingError> {
    let c = cfg();
    run(
        &c,
        &mut model(&mem_kernel(4), 4, 64),
        |_| FlatRf::new(&c),
        &RunOptions {
            max_cycles: max,
            ..RunOptions::default()
        },
    )
}

#[test]
fn cycle_limit_is_an_error_not_a_hang() {
    let e = run_mem_kernel(50);
    assert!(matches!(e, Err(TimingError::CycleLimit { .. })));
}

/// Event times are kept in 41 bits: a cycle limit above `MAX_CYCLES` is refused up front,
/// and the largest accepted one runs normally.
#[test]
fn cycle_limit_above_the_supported_range_is_an_error() {
    let e = run_mem_kernel(MAX_CYCLES + 1);
    assert!(
        matches!(e, Err(TimingError::CycleLimitTooLarge { limit, max })
            if limit == MAX_CYCLES + 1 && max == MAX_CYCLES),
        "{e:?}"
    );
    let ok = run_mem_kernel(MAX_CYCLES);
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn design_read_delays_cost_cycles_and_bypasses_save_bank_reads() {
    let c = cfg();
    let src = fma_kernel(8, 8);
    let mut reference = model(&src, 8, 256);
    let want = reference.run_untimed().expect("untimed");
    let mk = |wake, bypass_even| {
        let c2 = c.clone();
        move |_| Tweak {
            wake,
            bypass_even,
            ..Tweak::new(&c2)
        }
    };
    let base = run_base(&c, &mut model(&src, 8, 256));
    let mut m = model(&src, 8, 256);
    let slow = run(&c, &mut m, mk(3, false), &RunOptions::default()).expect("run");
    assert!(
        slow.cycles > base.cycles,
        "{} vs {}",
        slow.cycles,
        base.cycles
    );
    assert_eq!(m.checksums, want);
    let mut m = model(&src, 8, 256);
    let cached = run(&c, &mut m, mk(0, true), &RunOptions::default()).expect("run");
    assert_eq!(m.checksums, want);
    assert!(cached.core.bypassed_reads > 0);
    let reads = |a: &Activity<NoStats>| a.core.bank_reads.iter().sum::<u64>();
    assert!(reads(&cached) < reads(&base));
    assert_eq!(
        reads(&cached) + cached.core.bypassed_reads,
        reads(&base) + base.core.bypassed_reads
    );
}

/// (SM, sub-core, slot, active) of each active-set event, in order.
type ActiveSetEvents = std::rc::Rc<std::cell::RefCell<Vec<(u32, u8, u16, bool)>>>;

/// Under the two-level scheduler a design hears each warp enter and leave the active set: at
/// no time are more than `active_warps` warps of a sub-core active, every warp that ran was
/// active, each leave follows an enter, and listening changes no cycle.
#[test]
fn two_level_active_set_events_reach_the_design() {
    let src = mem_kernel(6);
    let mut c = cfg();
    c.sm.scheduler.policy = SchedulerPolicy::TwoLevel { active_warps: 2 };
    let quiet = toml::to_string(&run_base(&c, &mut model(&src, 8, 128))).expect("ser");
    let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let a = run(
        &c,
        &mut model(&src, 8, 128),
        |_| Tweak {
            log: Some(log.clone()),
            ..Tweak::new(&c)
        },
        &RunOptions::default(),
    )
    .expect("timed run");
    assert_eq!(toml::to_string(&a).expect("ser"), quiet);
    let log = log.borrow();
    assert!(!log.is_empty());
    let mut state: std::collections::BTreeMap<(u32, u8, u16), bool> = Default::default();
    let mut active_now: std::collections::BTreeMap<(u32, u8), u32> = Default::default();
    for &(sm, sc, slot, active) in log.iter() {
        let was = state.insert((sm, sc, slot), active).unwrap_or(false);
        assert_ne!(
            was, active,
            "SM {sm} sub-core {sc} slot {slot}: the same event twice"
        );
        let n = active_now.entry((sm, sc)).or_default();
        if active {
            *n += 1;
        } else {
            *n -= 1;
        }
        assert!(*n <= 2, "SM {sm} sub-core {sc}: {n} warps active");
    }
    let entered = log.iter().filter(|e| e.3).count();
    assert!(entered >= 8 * 4, "{entered} enters for 32 warps");
}

/// An eviction a write causes (`WriteOutcome::evict_to_bank`) is a bank write: every write
/// adds one at bank 0 of its sub-core, the values stay right, and the busier bank-0 write
/// port never makes the run faster.
#[test]
fn evictions_take_bank_write_ports() {
    let src = fma_kernel(4, 8);
    let want = model(&src, 8, 128).run_untimed().expect("untimed");
    let c = cfg();
    let base = run_base(&c, &mut model(&src, 8, 128));
    let mut m = model(&src, 8, 128);
    let a = run(
        &c,
        &mut m,
        |_| Tweak {
            evict: true,
            ..Tweak::new(&c)
        },
        &RunOptions::default(),
    )
    .expect("timed run");
    assert_eq!(m.checksums, want);
    let writes = |a: &Activity<NoStats>| a.core.bank_writes.iter().sum::<u64>();
    assert_eq!(writes(&a), 2 * writes(&base));
    let banks = usize::from(FlatRf::new(&c).layout().banks_per_sub_core);
    let bank0: u64 = a.core.bank_writes.iter().step_by(banks).sum();
    let base0: u64 = base.core.bank_writes.iter().step_by(banks).sum();
    assert_eq!(bank0 - base0, writes(&base));
    assert!(a.cycles >= base.cycles);
}

/// Instructions a design decodes with each issued one (release-flag instructions, Jeon &
/// Annavaram 2014 §6.2) hold the warp's next issue: a lone warp of independent FMAs, which
/// issues back to back, takes longer by at most that many cycles per instruction, and a
/// design that decodes none runs exactly as the flat one.
#[test]
fn decoded_design_instructions_hold_the_next_issue() {
    let src = fma_kernel(8, 8);
    let c = cfg();
    let at = |decode: u32| {
        run(
            &c,
            &mut model(&src, 1, 32),
            |_| Tweak {
                decode,
                ..Tweak::new(&c)
            },
            &RunOptions::default(),
        )
        .expect("timed run")
    };
    let base = run_base(&c, &mut model(&src, 1, 32));
    let none = at(0);
    assert_eq!((none.cycles, &none.core), (base.cycles, &base.core));
    let held = at(2);
    assert_eq!(held.core.warp_instructions, base.core.warp_instructions);
    assert!(
        held.cycles > base.cycles,
        "{} vs {}",
        held.cycles,
        base.cycles
    );
    assert!(
        held.cycles <= base.cycles + 2 * held.core.warp_instructions,
        "{} vs {} + 2 x {}",
        held.cycles,
        base.cycles,
        held.core.warp_instructions
    );
}
