//! Unit tests of the caching collector units on hand-made sequences.

use super::tests_support::config;
use super::*;
use regwatt_sim::timing::activity::RfActivity;
use regwatt_sim::timing::rf::Delay;

fn rf(sets: &[&str]) -> MalekehRf {
    let c = config(sets);
    let p = crate::registry::params::<super::Malekeh>(&c)
        .expect("[design] of malekeh")
        .into_owned();
    MalekehRf::new(&c, &p, 0, Rc::new(RefCell::new(Sthld::new(&p, 0))))
}

fn w(slot: u16) -> WarpSlot {
    WarpSlot {
        slot,
        sub_core: (slot % 4) as u8,
    }
}

fn op(warp: WarpSlot, reg: RegId, collector: u16, reuse: Option<u32>) -> OperandRef {
    OperandRef {
        warp,
        reg,
        collector,
        func: 0,
        pc: 0,
        reuse,
        last_use: false,
    }
}

fn wr(warp: WarpSlot, reg: RegId, reuse: Option<u32>) -> WriteRef {
    WriteRef {
        warp,
        reg,
        collector: 0,
        func: 0,
        pc: 0,
        reuse,
        from_load: false,
    }
}

/// Issue, read the sources through the CCU, dispatch.
fn run_instr(
    rf: &mut MalekehRf,
    ctx: &mut RfCtx,
    warp: WarpSlot,
    srcs: &[(RegId, Option<u32>)],
) -> Option<(u16, Vec<[u32; 32]>)> {
    let c = match rf.choose_collector(ctx, warp, 0b11) {
        CollectorChoice::Use(c) => c,
        _ => return None,
    };
    rf.issued(ctx, warp, 0, 0);
    let mut vals = Vec::new();
    for &(r, reuse) in srcs {
        let o = op(warp, r, c, reuse);
        let _ = rf.route_read(ctx, &o);
        let out = rf.read(ctx, &o);
        assert_eq!(out.delay, Delay::None);
        vals.push(out.values);
    }
    rf.collector_released(ctx, warp, c);
    Some((c, vals))
}

#[test]
fn hits_return_the_latest_value_and_far_writes_invalidate() {
    let mut rf = rf(&[]);
    let mut act = RfActivity::default();
    let mut ctx = RfCtx {
        now: 1,
        sm: 0,
        act: &mut act,
    };
    let a = w(0);
    rf.allocate_warp(&mut ctx, a, 16).expect("fits");
    rf.write(&mut ctx, &wr(a, 1, None), &[10; 32], u32::MAX);
    rf.write(&mut ctx, &wr(a, 2, None), &[20; 32], u32::MAX);
    // first instruction: two misses (near reuse), filled from the banks
    let (c, v) = run_instr(&mut rf, &mut ctx, a, &[(1, Some(2)), (2, Some(3))]).expect("issue");
    assert_eq!(v, vec![[10; 32], [20; 32]]);
    assert_eq!((rf.stats.hits, rf.stats.fills), (0, 2));
    assert!(rf.has_data(a));
    // a near result updates the copy through port D
    ctx.now = 2;
    rf.write(&mut ctx, &wr(a, 1, Some(1)), &[11; 32], u32::MAX);
    assert_eq!(rf.stats.ccu_writes, 1);
    // a far result invalidates the other copy
    rf.write(&mut ctx, &wr(a, 2, Some(100)), &[21; 32], u32::MAX);
    assert_eq!((rf.stats.filtered_writes, rf.stats.invalidations), (1, 1));
    // the warp comes back to its CCU: R1 hits with the new value, R2 misses and refetches
    ctx.now = 3;
    let (c2, v) = run_instr(&mut rf, &mut ctx, a, &[(1, None), (2, None)]).expect("issue");
    assert_eq!(c2, c);
    assert_eq!(v, vec![[11; 32], [21; 32]]);
    assert_eq!(rf.stats.hits, 1);
    // write-through: the banks hold every result
    assert_eq!(rf.base.stats().writes, 4);
    assert_eq!(rf.base.peek(a, 1), [11; 32]);
    rf.check_invariants().expect("invariants");
}

#[test]
fn a_ccu_holds_one_warp_and_a_warp_one_ccu() {
    let mut rf = rf(&["design.sthld=0"]);
    let mut act = RfActivity::default();
    let mut ctx = RfCtx {
        now: 1,
        sm: 0,
        act: &mut act,
    };
    // warps 0, 4, 8 share sub-core 0 (2 CCUs)
    for s in [0, 4, 8] {
        rf.allocate_warp(&mut ctx, w(s), 8).expect("fits");
        rf.write(&mut ctx, &wr(w(s), 0, None), &[u32::from(s); 32], u32::MAX);
    }
    let (c0, _) = run_instr(&mut rf, &mut ctx, w(0), &[(0, Some(1))]).expect("issue");
    let (c4, _) = run_instr(&mut rf, &mut ctx, w(4), &[(0, Some(1))]).expect("issue");
    assert_ne!(c0, c4, "the far CCU is taken before flushing a near one");
    // warp 0's CCU busy: ④, no other CCU for it
    assert_eq!(
        rf.choose_collector(&mut ctx, w(0), 1 << c4),
        CollectorChoice::Wait
    );
    // warp 8: both CCUs hold near values; STHLD 0 lets it take one at once and flush it
    let (c8, v) = run_instr(&mut rf, &mut ctx, w(8), &[(0, None)]).expect("issue");
    assert_eq!(v, vec![[8; 32]]);
    assert_eq!(rf.stats.flushes, 1);
    assert!(!rf.has_data(if c8 == c0 { w(0) } else { w(4) }));
    rf.check_invariants().expect("invariants");
    // priority: warps with data in a CCU first
    assert_eq!(rf.warp_priority(w(8)), 1);
    // a freed slot's data is flushed (a new warp there must not hit the old values)
    rf.free_warp(&mut ctx, w(8));
    assert!(!rf.has_data(w(8)));
    rf.check_invariants().expect("invariants");
}

#[test]
fn sthld_wait_stalls_then_allocates() {
    let mut rf = rf(&["design.sthld=2"]);
    let mut act = RfActivity::default();
    let mut ctx = RfCtx {
        now: 1,
        sm: 0,
        act: &mut act,
    };
    for s in [0, 4, 8] {
        rf.allocate_warp(&mut ctx, w(s), 8).expect("fits");
    }
    run_instr(&mut rf, &mut ctx, w(0), &[(0, Some(1))]).expect("issue");
    run_instr(&mut rf, &mut ctx, w(4), &[(0, Some(1))]).expect("issue");
    assert_eq!(
        rf.choose_collector(&mut ctx, w(8), 0b11),
        CollectorChoice::Stall
    );
    assert_eq!(
        rf.choose_collector(&mut ctx, w(8), 0b11),
        CollectorChoice::Stall
    );
    assert!(matches!(
        rf.choose_collector(&mut ctx, w(8), 0b11),
        CollectorChoice::Use(_)
    ));
    assert_eq!(rf.stats.sthld_waits, 2);
    assert_eq!(rf.stats.alloc_after_wait, 1);
}

#[test]
fn locked_entries_are_never_replaced() {
    // 6 sources fill 6 of 8 entries; a second instruction with 8 new sources can replace
    // only the 2 free entries and the unlocked ones after dispatch
    let mut rf = rf(&[]);
    let mut act = RfActivity::default();
    let mut ctx = RfCtx {
        now: 1,
        sm: 0,
        act: &mut act,
    };
    let a = w(0);
    rf.allocate_warp(&mut ctx, a, 32).expect("fits");
    let c = match rf.choose_collector(&mut ctx, a, 0b11) {
        CollectorChoice::Use(c) => c,
        x => panic!("{x:?}"),
    };
    rf.issued(&mut ctx, a, 0, 0);
    for r in 0..10u16 {
        rf.route_read(&mut ctx, &op(a, r, c, Some(1)));
    }
    // 8 entries, all locked: the last two sources are read without a table entry
    let locked = rf.ccus[0][usize::from(c)]
        .entries
        .iter()
        .filter(|e| e.locked)
        .count();
    assert_eq!(locked, 8);
    for r in 0..10u16 {
        rf.read(&mut ctx, &op(a, r, c, Some(1)));
    }
    assert_eq!(rf.stats.uncached_reads, 2);
    assert_eq!(rf.stats.fills, 8);
    assert_eq!(
        rf.stats.source_reads,
        rf.stats.hits + rf.stats.fills + rf.stats.uncached_reads
    );
}

#[test]
fn profile_hints_override_the_static_estimate_and_are_counted() {
    use regwatt_sim::timing::profile::{ReuseProfile, WarpReuse};
    // one warp of the profile: pc 0 reads R1 and writes R5 and R7; pc 1 reads R5 and
    // overwrites R1 (R1 read at pc 0: next access d 1, but as a value overwritten: far)
    let mut prof = ReuseProfile::new(12);
    let mut t = WarpReuse::new();
    t.instruction(&mut prof, 0, 0, &[1], &[5, 7]);
    t.instruction(&mut prof, 0, 1, &[5], &[1]);
    t.finish(&mut prof);
    let prof = Rc::new(prof);
    for (sets, r1_near) in [
        (
            &[
                "design.reuse_hints=profile",
                "design.profile_distance=access",
            ][..],
            true,
        ),
        (&["design.reuse_hints=profile"][..], false),
    ] {
        let mut rf = rf(sets).with_profile(prof.clone());
        assert_eq!(
            (rf.stats.profiled_warps, rf.stats.profiled_instructions),
            (1, 2)
        );
        assert_eq!(rf.stats.profiled_operands, 5);
        let mut act = RfActivity::default();
        let mut ctx = RfCtx {
            now: 1,
            sm: 0,
            act: &mut act,
        };
        let a = w(0);
        rf.allocate_warp(&mut ctx, a, 16).expect("fits");
        // (no CCU yet: no hint needed, none counted)
        rf.write(&mut ctx, &wr(a, 1, None), &[10; 32], u32::MAX);
        assert_eq!(rf.stats.hints_profile + rf.stats.hints_static_fallback, 0);
        // pc 0's source R1, statically far
        run_instr(&mut rf, &mut ctx, a, &[(1, None)]).expect("issue");
        let e = rf.ccus[0].iter().flat_map(|c| &c.entries).find(|e| e.valid);
        assert_eq!(e.map(|e| e.near), Some(r1_near));
        // R5: near in the profile, far statically: written into the CCU
        ctx.now = 2;
        rf.write(&mut ctx, &wr(a, 5, None), &[5; 32], u32::MAX);
        assert_eq!(rf.stats.ccu_writes, 1);
        // R7: far in the profile (never read), near statically: filtered
        ctx.now = 3;
        rf.write(&mut ctx, &wr(a, 7, Some(1)), &[7; 32], u32::MAX);
        assert_eq!(rf.stats.filtered_writes, 1);
        // R9: not in the profile: the static estimate (near), counted as a fallback
        ctx.now = 4;
        rf.write(&mut ctx, &wr(a, 9, Some(1)), &[9; 32], u32::MAX);
        assert_eq!(rf.stats.ccu_writes, 2);
        let s = &rf.stats;
        assert_eq!((s.hints_profile, s.hints_static_fallback), (3, 1));
        assert_eq!(s.hints_profile_near_static_far, 1 + u64::from(r1_near));
        assert_eq!(s.hints_profile_far_static_near, 1);
        let agree = s.hint_agreement().expect("profile decisions");
        assert!((agree - if r1_near { 0.0 } else { 1.0 / 3.0 }).abs() < 1e-12);
    }
    // static hints: nothing counted
    let mut rf = rf(&[]);
    let mut act = RfActivity::default();
    let mut ctx = RfCtx {
        now: 1,
        sm: 0,
        act: &mut act,
    };
    rf.allocate_warp(&mut ctx, w(0), 16).expect("fits");
    run_instr(&mut rf, &mut ctx, w(0), &[(1, None)]).expect("issue");
    assert_eq!(rf.stats.hints_profile + rf.stats.hints_static_fallback, 0);
    assert_eq!(rf.stats.hint_agreement(), None);
}
