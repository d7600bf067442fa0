//! Unit tests of the sharing design on hand-made access sequences (the acceptance:
//! a perfect hit makes no memory request and no register write; a partial hit costs exactly
//! two register reads and one write, and only after an L1D miss; no hit after a store to an
//! overlapping address).

use super::*;
use crate::config::{resolve, GpuPreset, Overrides};
use crate::registry::DesignSpec;
use crate::test_support::{op, w, wref};
use regwatt_sim::timing::activity::RfActivity;
use regwatt_sim::timing::functional::{InstrInfo, RegList, WarpMemAccess};

fn cfg(sets: &[&str]) -> ResolvedConfig {
    let ov = Overrides {
        design: Some(DesignSpec::Sharing),
        sets: sets.iter().map(|s| s.to_string()).collect(),
        ..Overrides::default()
    };
    resolve(GpuPreset::Gtx480, &ov).expect("config")
}

fn params(c: &ResolvedConfig) -> SharingParams {
    crate::registry::params::<super::Sharing>(c)
        .expect("[design] of sharing")
        .into_owned()
}

fn rf(c: &ResolvedConfig, regs: u32) -> SharingRf {
    let plan = KernelPlan {
        func: 0,
        registers: regs,
        warps: 8,
        entry_bits: 10,
        exempt: vec![false; regs as usize],
        ..KernelPlan::default()
    };
    let log = Rc::new(RefCell::new(StoreLog::new(c.gpu.sms)));
    SharingRf::new(c, &params(c), &plan, 0, log)
}

fn info(dst: Option<RegId>) -> InstrInfo {
    let mut dsts = RegList::default();
    if let Some(d) = dst {
        dsts.push(d);
    }
    InstrInfo {
        dsts,
        ..crate::test_support::mem_instr()
    }
}

fn access(kind: MemOpKind, base: u64, stride: u64) -> WarpMemAccess {
    WarpMemAccess {
        space: MemSpaceKind::Global,
        kind,
        bytes_per_lane: 4,
        mask: u32::MAX,
        addrs: std::array::from_fn(|i| base + i as u64 * stride),
    }
}

/// The LD/ST stage of a load of `warp` (with the L1D outcome `l1_hit`), and the memory timing
/// (its fill 100 cycles later) when the design sends it to the hierarchy.
fn ldst(
    d: &mut SharingRf,
    ctx: &mut RfCtx,
    warp: WarpSlot,
    acc: &WarpMemAccess,
    inf: &InstrInfo,
    l1_hit: bool,
) -> MemRoute {
    let g = GlobalAccess {
        warp,
        access: acc,
        info: inf,
        l1_hit: Some(l1_hit),
        design_reads_free: true,
        memory: None,
    };
    let r = d.global_access(ctx, &g);
    if r == MemRoute::Hierarchy {
        d.global_timed(ctx, &g, ctx.now + 100);
    }
    r
}

/// Drives one load through the design as the core does: LD/ST (with the L1D outcome), the
/// memory timing for a load sent to the hierarchy, then writeback of `values` unless the
/// route skips the register write. Returns the route and whether a bank write happened.
fn load(
    d: &mut SharingRf,
    act: &mut RfActivity,
    now: u64,
    (warp, dst): (WarpSlot, RegId),
    acc: &WarpMemAccess,
    l1_hit: bool,
    values: &[u32; 32],
) -> (MemRoute, bool) {
    let mut ctx = RfCtx { now, sm: 0, act };
    let r = ldst(d, &mut ctx, warp, acc, &info(Some(dst)), l1_hit);
    if let MemRoute::Banks(a) = r {
        for (b, &n) in a.per_bank.iter().enumerate() {
            for _ in 0..n {
                d.read(&mut ctx, &op(warp, DESIGN_READ + b as RegId));
            }
        }
    }
    let wr = wref(warp, dst, true);
    let route = d.route_write(&mut ctx, &wr);
    d.write(&mut ctx, &wr, values, u32::MAX);
    (r, route != Route::Bypass)
}

fn setup(sets: &[&str]) -> (SharingRf, RfActivity) {
    let c = cfg(sets);
    let mut d = rf(&c, 8);
    let mut act = RfActivity::default();
    for s in 0..4 {
        let mut ctx = RfCtx {
            now: 0,
            sm: 0,
            act: &mut act,
        };
        d.allocate_warp(&mut ctx, w(s), 8).expect("room");
    }
    (d, act)
}

fn vals(base: u32) -> [u32; 32] {
    std::array::from_fn(|i| base + i as u32)
}

#[test]
fn defaults_parse_and_bad_keys_are_named() {
    let p = params(&cfg(&[]));
    assert_eq!(p.amt_entries, AmtCap::Entries(200));
    assert_eq!(p.renaming().table_bytes, TableCap::Bytes(1024));
    assert_eq!(
        params(&cfg(&["design.amt_entries=unbounded"])).amt_entries,
        AmtCap::Unbounded
    );
    assert_eq!(
        params(&cfg(&["design.amt_entries=0"])).amt_entries,
        AmtCap::Entries(0)
    );
    for (set, key) in [
        ("design.amt_entries=-1", "-1"),
        ("design.amt_entries=lots", "lots"),
        ("design.amt_entries=100000", "amt_entries"),
        ("design.merge_cycles=0", "merge_cycles"),
        ("design.amt_lookup_cycles=100", "amt_lookup_cycles"),
        ("design.table_banks=0", "table_banks"),
        ("design.bogus=1", "bogus"),
    ] {
        let ov = Overrides {
            design: Some(DesignSpec::Sharing),
            sets: vec![set.into()],
            ..Overrides::default()
        };
        let e = resolve(GpuPreset::Gtx480, &ov).expect_err(set).to_string();
        assert!(e.contains(key), "{set}: {e}");
    }
}

#[test]
fn perfect_hit_makes_no_memory_request_and_no_register_write() {
    let (mut d, mut act) = setup(&[]);
    let a = access(MemOpKind::Load, 0x1000, 4);
    // warp 0 loads: a miss, to memory, its write binds the entry
    let (r, wrote) = load(&mut d, &mut act, 10, (w(0), 3), &a, false, &vals(7));
    assert_eq!(r, MemRoute::Hierarchy);
    assert!(wrote);
    let writes0 = d.stats().renaming.writes;
    let allocs0 = d.renaming().physical_in_use();
    // warp 1 loads the same addresses into R5: served, no register write, one row shared
    let (r, wrote) = load(&mut d, &mut act, 200, (w(1), 5), &a, false, &vals(999));
    assert_eq!(r, MemRoute::Served { latency: 1 });
    assert!(!wrote, "a perfect hit writes no register");
    let s = d.stats();
    assert_eq!(s.perfect_hits, 1);
    assert_eq!(s.renaming.writes, writes0);
    assert_eq!(d.renaming().physical_in_use(), allocs0, "no new row");
    // the values are the producer's (the design ignores what memory would give)
    assert_eq!(d.peek(w(1), 5), vals(7));
    d.renaming().check_invariants(4).expect("invariants");
    // a later write by warp 1 to R5 moves it off the shared row: warp 0 keeps its value
    let mut ctx = RfCtx {
        now: 300,
        sm: 0,
        act: &mut act,
    };
    d.write(&mut ctx, &wref(w(1), 5, false), &vals(50), 0xFFFF);
    let mut want = vals(7);
    want[..16].copy_from_slice(&vals(50)[..16]);
    assert_eq!(
        d.peek(w(1), 5),
        want,
        "lanes 16.. copied from the shared row"
    );
    assert_eq!(d.peek(w(0), 3), vals(7));
    assert_eq!(d.stats().renaming.unshares, 1);
    d.renaming().check_invariants(4).expect("invariants");
}

#[test]
fn fill_waiters_map_onto_the_producer_row() {
    let (mut d, mut act) = setup(&[]);
    let a = access(MemOpKind::Load, 0x1000, 0);
    let inf = info(Some(3));
    let g = GlobalAccess {
        warp: w(0),
        access: &a,
        info: &inf,
        l1_hit: Some(false),
        design_reads_free: true,
        memory: None,
    };
    let mut ctx = RfCtx {
        now: 10,
        sm: 0,
        act: &mut act,
    };
    assert_eq!(d.global_access(&mut ctx, &g), MemRoute::Hierarchy);
    d.global_timed(&mut ctx, &g, 110);
    // warp 1 asks while the fill is in flight: it waits for it (100 cycles + lookup)
    let inf1 = info(Some(4));
    let g1 = GlobalAccess {
        warp: w(1),
        info: &inf1,
        ..g
    };
    ctx.now = 20;
    assert_eq!(
        d.global_access(&mut ctx, &g1),
        MemRoute::Served { latency: 91 }
    );
    // the producer writes back first: the waiter maps onto its row, no register write
    ctx.now = 110;
    d.write(&mut ctx, &wref(w(0), 3, true), &vals(1), u32::MAX);
    ctx.now = 111;
    let wr = wref(w(1), 4, true);
    assert_eq!(d.route_write(&mut ctx, &wr), Route::Bypass);
    d.write(&mut ctx, &wr, &vals(1), u32::MAX);
    assert_eq!(d.peek(w(1), 4), vals(1));
    assert_eq!(d.stats().renaming.writes, 1);
    assert_eq!(d.stats().fill_waits, 1);
    assert_eq!(d.stats().fill_copies, 0);
    d.renaming().check_invariants(4).expect("invariants");
}

#[test]
fn partial_hit_costs_two_reads_and_one_write_only_after_an_l1_miss() {
    let (mut d, mut act) = setup(&[]);
    // two neighbouring warp-unit loads (lanes at 4-byte stride), held by warps 0 and 1
    let a0 = access(MemOpKind::Load, 0x1000, 4);
    let a1 = access(MemOpKind::Load, 0x1080, 4);
    load(&mut d, &mut act, 10, (w(0), 1), &a0, false, &vals(0));
    load(&mut d, &mut act, 20, (w(1), 1), &a1, false, &vals(32));
    let before = d.stats();
    // the window shifted by 3 lanes (words 3..34), on an L1 hit: to memory
    let a = access(MemOpKind::Load, 0x100C, 4);
    let (r, _) = load(&mut d, &mut act, 30, (w(2), 2), &a, true, &vals(3));
    assert_eq!(r, MemRoute::Hierarchy, "partial sharing only on an L1 miss");
    assert_eq!(d.stats().partial_hits, 0);
    // a window shifted by 5 lanes on an L1 miss (warp 3): merged from both rows
    let a = access(MemOpKind::Load, 0x1014, 4);
    let reads = d.stats().renaming.reads;
    let writes = d.stats().renaming.writes;
    let (r, wrote) = load(&mut d, &mut act, 40, (w(3), 2), &a, false, &[0xDEAD; 32]);
    let MemRoute::Banks(a) = r else {
        panic!("{r:?}")
    };
    assert_eq!(a.count(), 2);
    assert_eq!(a.kind, BankAccessKind::RegisterReads);
    assert!(wrote);
    let s = d.stats();
    assert_eq!(s.partial_hits, 1);
    assert_eq!(s.renaming.reads - reads, 2, "two register reads");
    assert_eq!(s.renaming.writes - writes, 1, "one register write");
    // the merged value is words 5..36 of the two rows, not what memory would give
    assert_eq!(d.peek(w(3), 2), vals(5));
    assert!(s.renaming.reads > before.renaming.reads);
    d.renaming().check_invariants(4).expect("invariants");
}

#[test]
fn no_hit_after_a_store_to_an_overlapping_address() {
    let (mut d, mut act) = setup(&[]);
    let a = access(MemOpKind::Load, 0x1000, 4);
    load(&mut d, &mut act, 10, (w(0), 3), &a, false, &vals(7));
    // a one-lane store to the last word the entry reads
    let mut st = access(MemOpKind::Store, 0x107C, 4);
    st.mask = 1;
    let mut ctx = RfCtx {
        now: 20,
        sm: 0,
        act: &mut act,
    };
    let r = ldst(&mut d, &mut ctx, w(2), &st, &info(None), false);
    assert_eq!(r, MemRoute::Hierarchy);
    assert_eq!(d.stats().amt_invalidations, 1);
    let (r, _) = load(&mut d, &mut act, 30, (w(1), 5), &a, false, &vals(8));
    assert_eq!(r, MemRoute::Hierarchy, "the entry is gone");
    assert_eq!(d.stats().perfect_hits, 0);
}

#[test]
fn another_sms_store_invalidates_and_volatile_never_shares() {
    let c = cfg(&[]);
    let plan = KernelPlan {
        func: 0,
        registers: 8,
        warps: 8,
        entry_bits: 10,
        exempt: vec![false; 8],
        ..KernelPlan::default()
    };
    let log = Rc::new(RefCell::new(StoreLog::new(c.gpu.sms)));
    let p = params(&c);
    let mut sm0 = SharingRf::new(&c, &p, &plan, 0, log.clone());
    let mut sm1 = SharingRf::new(&c, &p, &plan, 1, log);
    let mut act = RfActivity::default();
    for d in [&mut sm0, &mut sm1] {
        let mut ctx = RfCtx {
            now: 0,
            sm: 0,
            act: &mut act,
        };
        d.allocate_warp(&mut ctx, w(0), 8).expect("room");
        d.allocate_warp(&mut ctx, w(1), 8).expect("room");
    }
    let a = access(MemOpKind::Load, 0x1000, 4);
    load(&mut sm0, &mut act, 10, (w(0), 3), &a, false, &vals(7));
    // SM 1 stores into the range
    let st = access(MemOpKind::Store, 0x1040, 4);
    let inf = info(None);
    let mut ctx = RfCtx {
        now: 20,
        sm: 1,
        act: &mut act,
    };
    let g = GlobalAccess {
        warp: w(0),
        access: &st,
        info: &inf,
        l1_hit: None,
        design_reads_free: true,
        memory: None,
    };
    sm1.global_access(&mut ctx, &g);
    let (r, _) = load(&mut sm0, &mut act, 30, (w(1), 5), &a, false, &vals(8));
    assert_eq!(r, MemRoute::Hierarchy, "SM 0 saw SM 1's store");
    assert_eq!(sm0.stats().amt_remote_searches, 1);
    // a volatile load never looks the AMT up
    let mut v = info(Some(6));
    v.coherent = true;
    let mut ctx = RfCtx {
        now: 40,
        sm: 0,
        act: &mut act,
    };
    let g = GlobalAccess {
        warp: w(1),
        access: &a,
        info: &v,
        l1_hit: Some(false),
        design_reads_free: true,
        memory: None,
    };
    assert_eq!(sm0.global_access(&mut ctx, &g), MemRoute::Hierarchy);
    assert_eq!(sm0.stats().coherent_loads, 1);
}

#[test]
fn amt_of_zero_entries_is_renaming() {
    let (mut d, mut act) = setup(&["design.amt_entries=0"]);
    let a = access(MemOpKind::Load, 0x1000, 4);
    load(&mut d, &mut act, 10, (w(0), 3), &a, false, &vals(7));
    let (r, wrote) = load(&mut d, &mut act, 200, (w(1), 5), &a, false, &vals(7));
    assert_eq!(r, MemRoute::Hierarchy);
    assert!(wrote);
    assert!(!d.probes_l1());
    let s = d.stats();
    assert_eq!(s.amt_searches, 0);
    assert_eq!(s.perfect_hits + s.partial_hits + s.fill_waits, 0);
}

#[test]
fn freed_rows_drop_their_entries() {
    let (mut d, mut act) = setup(&[]);
    let a = access(MemOpKind::Load, 0x1000, 4);
    load(&mut d, &mut act, 10, (w(0), 3), &a, false, &vals(7));
    let mut ctx = RfCtx {
        now: 20,
        sm: 0,
        act: &mut act,
    };
    d.release(&mut ctx, w(0), 3, ReleaseCause::Pir);
    assert_eq!(d.stats().amt_dropped_freed, 1);
    let (r, _) = load(&mut d, &mut act, 30, (w(1), 5), &a, false, &vals(7));
    assert_eq!(r, MemRoute::Hierarchy);
}

/// A replaced entry's waiting loads must not follow its slot to the entry that reuses it:
/// with one entry, B waits for A's fill, C's miss replaces A's entry (same slot) and C's fill
/// binds it; B then copies A's fill instead of mapping onto C's row.
#[test]
fn waiters_of_a_replaced_entry_keep_their_own_fill() {
    let (mut d, mut act) = setup(&["design.amt_entries=1"]);
    let a = access(MemOpKind::Load, 0x1000, 4);
    let c = access(MemOpKind::Load, 0x8000, 4);
    let mut ctx = RfCtx {
        now: 10,
        sm: 0,
        act: &mut act,
    };
    let (ia, ib, ic) = (info(Some(1)), info(Some(2)), info(Some(3)));
    let ga = GlobalAccess {
        warp: w(0),
        access: &a,
        info: &ia,
        l1_hit: Some(false),
        design_reads_free: true,
        memory: None,
    };
    assert_eq!(d.global_access(&mut ctx, &ga), MemRoute::Hierarchy);
    d.global_timed(&mut ctx, &ga, 100);
    let gb = GlobalAccess {
        warp: w(1),
        info: &ib,
        ..ga
    };
    ctx.now = 11;
    assert!(matches!(
        d.global_access(&mut ctx, &gb),
        MemRoute::Served { .. }
    ));
    let gc = GlobalAccess {
        warp: w(2),
        access: &c,
        info: &ic,
        ..ga
    };
    ctx.now = 12;
    assert_eq!(d.global_access(&mut ctx, &gc), MemRoute::Hierarchy);
    assert_eq!(d.stats().amt_replacements, 1);
    d.global_timed(&mut ctx, &gc, 50);
    ctx.now = 50;
    d.write(&mut ctx, &wref(w(2), 3, true), &vals(800), u32::MAX);
    ctx.now = 100;
    d.write(&mut ctx, &wref(w(0), 1, true), &vals(1), u32::MAX);
    let wr = wref(w(1), 2, true);
    assert_ne!(d.route_write(&mut ctx, &wr), Route::Bypass);
    d.write(&mut ctx, &wr, &vals(1), u32::MAX);
    assert_eq!(d.peek(w(1), 2), vals(1), "B holds A's data, not C's");
    assert_eq!(d.stats().fill_copies, 1);
    d.renaming().check_invariants(4).expect("invariants");
}

/// A `.v4` load (nbody's float4 tile load: 16-byte elements, one destination register per
/// word): each word is an entry of its own, and a second warp's identical load is served for
/// all four words (no memory request, no register write, the first warp's values); the
/// components are patterns at `base + 4k` with the element's stride.
#[test]
fn vector_loads_share_word_by_word() {
    let (mut d, mut act) = setup(&[]);
    let mut a = access(MemOpKind::Load, 0x2000, 16);
    a.bytes_per_lane = 16;
    for k in 0..4u32 {
        let p = Pattern::word(&a, 4, k).expect("component");
        assert_eq!(
            (p.base, p.stride, p.count),
            (0x2000 + 4 * u64::from(k), 16, 32)
        );
    }
    assert!(Pattern::word(&a, 2, 0).is_none(), "16 bytes are four words");
    assert!(Pattern::of(&a).is_none());
    let drive = |d: &mut SharingRf, act: &mut RfActivity, now: u64, warp: WarpSlot, base: RegId| {
        let mut inf = info(None);
        for k in 0..4 {
            inf.dsts.push(base + k);
        }
        let mut ctx = RfCtx { now, sm: 0, act };
        let r = ldst(d, &mut ctx, warp, &a, &inf, false);
        let mut wrote = 0;
        for k in 0..4 {
            let wr = wref(warp, base + k, true);
            if d.route_write(&mut ctx, &wr) != Route::Bypass {
                wrote += 1;
            }
            d.write(&mut ctx, &wr, &vals(100 * u32::from(k)), u32::MAX);
        }
        (r, wrote)
    };
    assert_eq!(
        drive(&mut d, &mut act, 10, w(0), 0),
        (MemRoute::Hierarchy, 4)
    );
    assert_eq!(d.stats().amt_inserts, 4);
    let (r, wrote) = drive(&mut d, &mut act, 300, w(1), 4);
    assert_eq!(r, MemRoute::Served { latency: 1 });
    assert_eq!(wrote, 0, "a shared vector load writes no register");
    for k in 0..4 {
        assert_eq!(d.peek(w(1), 4 + k), vals(100 * u32::from(k)), "word {k}");
    }
    let s = d.stats();
    assert_eq!((s.vector_loads, s.vector_hits, s.perfect_hits), (2, 1, 1));
    assert_eq!(s.undescribed_loads, 0);
    // a store to the third word of lane 5 drops that word's entry: the next load misses
    let mut st = access(MemOpKind::Store, 0x2000 + 5 * 16 + 8, 0);
    st.mask = 1;
    let mut ctx = RfCtx {
        now: 400,
        sm: 0,
        act: &mut act,
    };
    ldst(&mut d, &mut ctx, w(2), &st, &info(None), false);
    let (r, _) = drive(&mut d, &mut act, 500, w(2), 0);
    assert_eq!(r, MemRoute::Hierarchy);
}
