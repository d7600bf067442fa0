//! Unit tests of the cerf design on hand-made access sequences (the acceptance: the
//! Fig. 6 transitions, the re-indexing bijection, LRU-fair spills and refills with the value
//! intact, LRU-prioritized never evicting a register for a line, a dropped dirty line caught).

use std::collections::HashMap;

use super::*;
use crate::config::{resolve, GpuPreset, Overrides};
use crate::registry::DesignParams;
use crate::registry::DesignSpec;
use regwatt_sim::timing::activity::RfActivity;

use crate::test_support::{ctx, mem_instr as info, op, w};

fn wref(warp: WarpSlot, reg: RegId) -> WriteRef {
    crate::test_support::wref(warp, reg, false)
}

/// Global memory for the tests: bytes by address, 0 elsewhere.
#[derive(Debug, Default)]
struct Mem(HashMap<u64, u8>);

impl Mem {
    fn put_word(&mut self, addr: u64, v: u32) {
        for (k, b) in v.to_le_bytes().into_iter().enumerate() {
            self.0.insert(addr + k as u64, b);
        }
    }
}

impl GlobalRead for Mem {
    fn read_global(&self, addr: u64, out: &mut [u8]) {
        for (k, b) in out.iter_mut().enumerate() {
            *b = self.0.get(&(addr + k as u64)).copied().unwrap_or(0);
        }
    }
}

fn cfg(sets: &[&str]) -> ResolvedConfig {
    let ov = Overrides {
        design: Some(DesignSpec::Cerf),
        sets: sets.iter().map(|s| s.to_string()).collect(),
        ..Overrides::default()
    };
    resolve(GpuPreset::Gtx480, &ov).expect("config")
}

fn rf(c: &ResolvedConfig) -> CerfRf {
    let Some(DesignParams::Cerf(p)) = &c.design else {
        panic!("no [design] of cerf");
    };
    CerfRf::new(c, p, 0, Rc::new(RefCell::new(StoreLog::new(c.gpu.sms))))
}

/// A full-warp 4-byte access of line `line` (lane `i` at word `i`).
fn access(kind: MemOpKind, line: u64) -> WarpMemAccess {
    WarpMemAccess {
        space: MemSpaceKind::Global,
        kind,
        bytes_per_lane: 4,
        mask: u32::MAX,
        addrs: std::array::from_fn(|i| line * ENTRY_BYTES + 4 * i as u64),
    }
}

/// Drives a global access through the design as the core does (LD/ST, then the fill time
/// for misses); returns the route.
fn global(
    d: &mut CerfRf,
    act: &mut RfActivity,
    now: u64,
    acc: &WarpMemAccess,
    mem: &Mem,
) -> MemRoute {
    let inf = info();
    let g = GlobalAccess {
        warp: w(0),
        access: acc,
        info: &inf,
        l1_hit: None,
        design_reads_free: true,
        memory: Some(mem),
    };
    let mut c = ctx(act, now);
    let r = d.global_access(&mut c, &g);
    if let MemRoute::Banks(BankAccesses { miss_lanes, .. }) = r {
        if miss_lanes != 0 {
            d.global_timed(&mut c, &g, now + 100);
        }
    }
    r
}

fn vals(seed: u32) -> [u32; 32] {
    std::array::from_fn(|i| seed * 1000 + i as u32)
}

/// State of the entry holding `key` in a line state, if any.
fn line_state(d: &CerfRf, line: u64) -> Option<State> {
    d.arr
        .find(line, State::is_line)
        .map(|i| d.arr.entry(i).state)
}

fn reg_state(d: &CerfRf, warp: WarpSlot, reg: RegId) -> RegAt {
    d.reg_at[d.addr(warp, reg).expect("owned")]
}

/// A line in the same set as register address `a`.
fn line_in_set_of(a: usize) -> u64 {
    100 * 256 + a as u64
}

#[test]
fn rgen_is_a_bijection_with_consecutive_registers_on_consecutive_tag_banks() {
    let c = cfg(&[]);
    let mut d = rf(&c);
    let mut act = RfActivity::default();
    let mut seen = std::collections::HashSet::new();
    let mut slot = 0u16;
    // 32 warps of 32 registers fill the 1024 entries exactly
    while d.can_allocate(&[w(slot)], 32) {
        d.allocate_warp(&mut ctx(&mut act, 0), w(slot), 32)
            .expect("fits");
        slot += 1;
    }
    assert_eq!(slot, 32);
    for s in 0..slot {
        for r in 0..32u16 {
            let a = d.addr(w(s), r).expect("owned");
            assert!(a < 1024);
            assert!(seen.insert(a), "two registers at address {a}");
            if r > 0 {
                let p = d.addr(w(s), r - 1).expect("owned");
                assert_eq!(
                    a % 4,
                    (p + 1) % 4,
                    "consecutive registers, consecutive banks"
                );
            }
        }
        assert_eq!(d.addr(w(s), 32), None);
    }
    assert_eq!(seen.len(), 1024);
    // each set receives exactly `ways` register addresses (LRU-prioritized never has to
    // evict a register for a register)
    let mut per_set: HashMap<usize, usize> = HashMap::new();
    for &a in &seen {
        *per_set.entry(d.arr.set_of(d.reg_key(a)).start).or_default() += 1;
    }
    assert!(per_set.values().all(|&n| n == 4), "{per_set:?}");
}

#[test]
fn fig6_transitions() {
    let c = cfg(&["design.replacement=lru-fair", "design.liveness=on"]);
    let mut d = rf(&c);
    let mut act = RfActivity::default();
    let mut mem = Mem::default();
    d.allocate_warp(&mut ctx(&mut act, 0), w(0), 32)
        .expect("fits");
    // inactive -> reg: a register write
    d.write(&mut ctx(&mut act, 1), &wref(w(0), 0), &vals(1), u32::MAX);
    assert_eq!(
        reg_state(&d, w(0), 0),
        RegAt::In(
            d.arr
                .find(d.reg_key(d.addr(w(0), 0).unwrap()), |s| s == State::Reg)
                .unwrap() as u32
        )
    );
    assert_eq!(d.peek(w(0), 0), vals(1));
    // reg -> inactive: the liveness bit
    let i0 = d.arr.count(State::Inactive);
    d.release(&mut ctx(&mut act, 2), w(0), 0, ReleaseCause::Pir);
    assert_eq!(reg_state(&d, w(0), 0), RegAt::Empty);
    assert_eq!(d.arr.count(State::Inactive), i0 + 1);
    // inactive -> cache: a load miss places the line
    let line = 7777;
    for k in 0..32 {
        mem.put_word(line * ENTRY_BYTES + 4 * k, 500 + k as u32);
    }
    let r = global(&mut d, &mut act, 3, &access(MemOpKind::Load, line), &mem);
    assert!(
        matches!(
            r,
            MemRoute::Banks(BankAccesses {
                miss_lanes: u32::MAX,
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(line_state(&d, line), Some(State::Cache));
    // a second load before the fill arrives waits for it (no new request)
    let r = global(&mut d, &mut act, 4, &access(MemOpKind::Load, line), &mem);
    assert!(
        matches!(
            r,
            MemRoute::Banks(BankAccesses {
                miss_lanes: 0,
                wait_until: 103,
                ..
            })
        ),
        "{r:?}"
    );
    // after the fill a load hits: one bank access, no request
    let r = global(&mut d, &mut act, 200, &access(MemOpKind::Load, line), &mem);
    let MemRoute::Banks(BankAccesses {
        per_bank: reads,
        miss_lanes,
        ..
    }) = r
    else {
        panic!("{r:?}");
    };
    assert_eq!(miss_lanes, 0);
    assert_eq!(reads.iter().map(|&n| u32::from(n)).sum::<u32>(), 1);
    assert_eq!(reads[(line % 4) as usize], 1);
    // cache -> dirty: a store hit (memory holds the stored bytes already)
    mem.put_word(line * ENTRY_BYTES, 42);
    global(&mut d, &mut act, 210, &access(MemOpKind::Store, line), &mem);
    assert_eq!(line_state(&d, line), Some(State::Dirty));
    assert_eq!(d.stats.store_hits, 1);
    // the lower level still has the old word until the write-back
    assert_eq!(d.below.get(&line).map(|b| b[0]), Some(500));
    // loads now see the stored word
    global(&mut d, &mut act, 220, &access(MemOpKind::Load, line), &mem);
    assert_eq!(d.stats.line_value_mismatches, 0);
    // dirty -> reg: registers of the line's set take it; the dirty line is written back
    let line2 = line_in_set_of(d.addr(w(0), 1).unwrap());
    for k in 0..32 {
        mem.put_word(line2 * ENTRY_BYTES + 4 * k, 900 + k as u32);
    }
    let mut d = rf(&c);
    let mut act = RfActivity::default();
    for s in 0..32 {
        d.allocate_warp(&mut ctx(&mut act, 0), w(s), 32)
            .expect("fits");
    }
    let a = d.addr(w(0), 1).unwrap();
    let set_regs: Vec<(u16, u16)> = (0..32u16)
        .flat_map(|s| (0..32u16).map(move |r| (s, r)))
        .filter(|&(s, r)| {
            d.arr.set_of(d.reg_key(d.addr(w(s), r).unwrap())) == d.arr.set_of(d.reg_key(a))
        })
        .collect();
    assert_eq!(set_regs.len(), 4);
    assert_eq!(d.arr.set_of(line2), d.arr.set_of(d.reg_key(a)));
    global(&mut d, &mut act, 10, &access(MemOpKind::Load, line2), &mem);
    mem.put_word(line2 * ENTRY_BYTES, 43);
    global(
        &mut d,
        &mut act,
        200,
        &access(MemOpKind::Store, line2),
        &mem,
    );
    assert_eq!(line_state(&d, line2), Some(State::Dirty));
    let mut spills = Vec::new();
    for (k, &(s, r)) in set_regs.iter().enumerate() {
        let out = d.write(
            &mut ctx(&mut act, 300 + k as u64),
            &wref(w(s), r),
            &vals(k as u32),
            u32::MAX,
        );
        spills.extend(out.spill);
    }
    assert_eq!(line_state(&d, line2), None, "the dirty line made room");
    assert_eq!(d.stats.dirty_writebacks, 1);
    assert_eq!(d.stats.evict_line_by_reg, 1);
    assert_eq!(
        spills,
        vec![MemFetch {
            addr: line2 * ENTRY_BYTES,
            bytes: 128,
            write: true
        }]
    );
    assert!(d.below.is_empty());
    for (k, &(s, r)) in set_regs.iter().enumerate() {
        assert_eq!(d.peek(w(s), r), vals(k as u32));
    }
}

/// Four registers fill a set; then a line of that set arrives.
fn set_full_of_registers(c: &ResolvedConfig) -> (CerfRf, RfActivity, Vec<(u16, u16)>, u64) {
    let mut d = rf(c);
    let mut act = RfActivity::default();
    for s in 0..32 {
        d.allocate_warp(&mut ctx(&mut act, 0), w(s), 32)
            .expect("fits");
    }
    let a = d.addr(w(3), 5).unwrap();
    let set = d.arr.set_of(d.reg_key(a));
    let regs: Vec<(u16, u16)> = (0..32u16)
        .flat_map(|s| (0..32u16).map(move |r| (s, r)))
        .filter(|&(s, r)| d.arr.set_of(d.reg_key(d.addr(w(s), r).unwrap())) == set)
        .collect();
    for (k, &(s, r)) in regs.iter().enumerate() {
        d.write(
            &mut ctx(&mut act, 1 + k as u64),
            &wref(w(s), r),
            &vals(10 + k as u32),
            u32::MAX,
        );
    }
    (d, act, regs, line_in_set_of(a))
}

#[test]
fn lru_fair_spills_the_oldest_register_and_fetches_it_back_intact() {
    let c = cfg(&["design.replacement=lru-fair"]);
    let (mut d, mut act, regs, line) = set_full_of_registers(&c);
    let mem = Mem::default();
    let r = global(&mut d, &mut act, 100, &access(MemOpKind::Load, line), &mem);
    assert!(matches!(r, MemRoute::Banks(BankAccesses { .. })));
    assert_eq!(d.take_writeback().map(|f| f.write), Some(true), "the spill");
    assert_eq!(d.stats.reg_spills, 1);
    assert_eq!(d.stats.evict_reg_by_line, 1);
    let (s, r0) = regs[0];
    assert_eq!(
        reg_state(&d, w(s), r0),
        RegAt::Spilled,
        "the least recently used"
    );
    // its read fetches it back (a memory access), the value intact; the line it displaces
    // is clean (no victim write)
    let out = d.read(&mut ctx(&mut act, 400), &op(w(s), r0));
    assert_eq!(out.values, vals(10));
    assert!(
        matches!(out.delay, Delay::Memory { fetch, .. } if !fetch.write),
        "{:?}",
        out.delay
    );
    assert_eq!(d.stats.reg_fills, 1);
    assert!(matches!(reg_state(&d, w(s), r0), RegAt::In(_)));
    for (k, &(s, r)) in regs.iter().enumerate() {
        assert_eq!(d.peek(w(s), r), vals(10 + k as u32));
    }
}

#[test]
fn lru_prioritized_never_evicts_a_register_for_a_line() {
    let c = cfg(&["design.replacement=lru-prioritized"]);
    let (mut d, mut act, regs, line) = set_full_of_registers(&c);
    let mem = Mem::default();
    let r = global(&mut d, &mut act, 100, &access(MemOpKind::Load, line), &mem);
    assert!(matches!(
        r,
        MemRoute::Banks(BankAccesses {
            miss_lanes: u32::MAX,
            ..
        })
    ));
    assert_eq!(d.stats.fills_bypassed, 1);
    assert_eq!(d.stats.reg_spills, 0);
    assert_eq!(line_state(&d, line), None);
    assert_eq!(d.take_writeback(), None);
    for (k, &(s, r)) in regs.iter().enumerate() {
        assert!(matches!(reg_state(&d, w(s), r), RegAt::In(_)));
        assert_eq!(d.peek(w(s), r), vals(10 + k as u32));
    }
    // a register does replace a line: free one register, let a line in, write it again
    let (s, r) = regs[1];
    d.release(&mut ctx(&mut act, 200), w(s), r, ReleaseCause::Pir);
    assert_eq!(
        d.stats.dead_releases, 1,
        "liveness is on with lru-prioritized"
    );
    global(&mut d, &mut act, 210, &access(MemOpKind::Load, line), &mem);
    assert_eq!(line_state(&d, line), Some(State::Cache));
    d.write(&mut ctx(&mut act, 400), &wref(w(s), r), &vals(99), u32::MAX);
    assert_eq!(line_state(&d, line), None);
    assert_eq!(d.stats.evict_line_by_reg, 1);
    assert_eq!(d.stats.reg_spills, 0);
}

#[test]
fn a_dirty_line_dropped_without_its_write_back_is_caught() {
    let c = cfg(&[]);
    let mut d = rf(&c);
    let mut act = RfActivity::default();
    let mut mem = Mem::default();
    let line = 4242;
    global(&mut d, &mut act, 1, &access(MemOpKind::Load, line), &mem);
    mem.put_word(line * ENTRY_BYTES + 8, 77);
    global(&mut d, &mut act, 200, &access(MemOpKind::Store, line), &mem);
    assert_eq!(line_state(&d, line), Some(State::Dirty));
    assert!(d.stats.integrity().is_ok());
    // a faulty replacement that forgets the write-back
    let i = d.arr.find(line, State::is_line).expect("present");
    d.arr.set_state(i, State::Inactive, 300);
    // the refill comes from the lower level, which never got the store: the load is served
    // stale bytes
    global(&mut d, &mut act, 400, &access(MemOpKind::Load, line), &mem);
    assert!(d.stats.line_value_mismatches > 0);
    d.finish(&mut ctx(&mut act, 500));
    assert!(d.stats().integrity().is_err());
}

#[test]
fn the_end_of_the_kernel_writes_dirty_lines_back() {
    let c = cfg(&[]);
    let mut d = rf(&c);
    let mut act = RfActivity::default();
    let mut mem = Mem::default();
    global(&mut d, &mut act, 1, &access(MemOpKind::Load, 9), &mem);
    mem.put_word(9 * ENTRY_BYTES, 1);
    global(&mut d, &mut act, 200, &access(MemOpKind::Store, 9), &mem);
    d.finish(&mut ctx(&mut act, 300));
    let s = d.stats();
    assert_eq!(s.flush_writebacks, 1);
    assert_eq!(s.lost_dirty_lines, 0);
    assert!(s.integrity().is_ok());
    // state-cycles add up to entries x cycles
    assert_eq!(s.state_cycles.iter().sum::<u64>(), 1024 * 300);
}

#[test]
fn configuration_is_checked() {
    for (set, key) in [
        ("design.ways=3", "design.ways"),
        ("design.hit_latency=0", "design.hit_latency"),
        ("design.replacement=lru", "design.replacement"),
        ("design.liveness=maybe", "design.liveness"),
    ] {
        let ov = Overrides {
            design: Some(DesignSpec::Cerf),
            sets: vec![set.to_string()],
            ..Overrides::default()
        };
        let e = resolve(GpuPreset::Gtx480, &ov).expect_err(set).to_string();
        assert!(e.contains(key), "{set}: {e}");
    }
    let ov = Overrides {
        design: Some(DesignSpec::Cerf),
        ..Overrides::default()
    };
    let e = resolve(GpuPreset::Rtx2060, &ov)
        .expect_err("rtx2060")
        .to_string();
    assert!(e.contains("sub-cores"), "{e}");
    assert!(!DesignSpec::Cerf.supports(GpuPreset::Rtx2060));
    assert!(DesignSpec::Cerf.supports(GpuPreset::Gtx480));
}

/// A tag-bank row is written when a tag is installed or an entry's state bits change, not
/// when an entry is set to the state it has or only touched.
#[test]
fn tag_writes_count_installs_and_state_changes() {
    let mut a = Array::new(64, 4, 4);
    a.install(0, State::Reg, 7, 0, 0);
    assert_eq!(a.tag_writes, 1);
    a.set_state(0, State::Reg, 1);
    a.touch(0);
    assert_eq!(a.tag_writes, 1);
    a.set_state(0, State::Inactive, 2);
    assert_eq!(a.tag_writes, 2);
    // reinstalling in the same state still writes the new tag
    a.install(0, State::Inactive, 9, 0, 3);
    assert_eq!(a.tag_writes, 3);
}

/// The tag bank of gtx480's array (1024 entries, 4 ways, 4 tag banks): 64 rows of 4 tags of
/// CACTI's default width plus 2 state bits.
#[test]
fn tag_bank_geometry_follows_table3_organisation() {
    let c = cfg(&[]);
    let tech =
        regwatt_tech::Technology::for_node(c.power.node.nm(), c.power.temperature).expect("tech");
    let geo = hardware::tag_geometry(&c, 4);
    assert_eq!((geo.sets, geo.ways), (256, 4));
    let t = hardware::tag_bank(&c, &tech, &geo, 4).expect("tag bank");
    assert_eq!(t.sets_per_bank, 64);
    assert_eq!(
        t.tag_bits,
        regwatt_power::sram::tag_bits_default(128 * 1024, 4, 1)
    );
    assert!(t.ram);
    assert!(t.lookup.si() > 0.0 && t.area.si() > 0.0);
    // 32 ways leave 8 sets per bank, too few rows for a RAM: one CAM per set
    let geo = hardware::tag_geometry(&c, 32);
    let t = hardware::tag_bank(&c, &tech, &geo, 4).expect("tag bank");
    assert_eq!((t.sets_per_bank, t.ram), (8, false));
    assert!(t.lookup.si() > 0.0 && t.area.si() > 0.0);
}
