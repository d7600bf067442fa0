//! Unit tests of the renaming design on hand-made access sequences.

use super::*;
use crate::config::{resolve, GpuPreset, Overrides};
use crate::registry::DesignSpec;
use crate::test_support::{op, w};
use regwatt_sim::timing::activity::RfActivity;

fn cfg(gpu: GpuPreset, sets: &[&str]) -> ResolvedConfig {
    let ov = Overrides {
        design: Some(DesignSpec::Renaming),
        sets: sets.iter().map(|s| s.to_string()).collect(),
        ..Overrides::default()
    };
    resolve(gpu, &ov).expect("config")
}

fn params(c: &ResolvedConfig) -> RenamingParams {
    crate::registry::params::<super::Renaming>(c)
        .expect("[design] of renaming")
        .into_owned()
}

fn plan(regs: u32, exempt: &[u32]) -> KernelPlan {
    KernelPlan {
        func: 0,
        registers: regs,
        warps: 8,
        entry_bits: 10,
        exempt: (0..regs).map(|r| exempt.contains(&r)).collect(),
        ..KernelPlan::default()
    }
}

#[test]
fn defaults_parse_and_bad_keys_are_named() {
    let c = cfg(GpuPreset::Gtx480, &[]);
    let p = params(&c);
    assert_eq!(p.table_bytes, TableCap::Bytes(1024));
    assert_eq!(p.table_banks, 4);
    assert_eq!(p.mapping, MappingPolicy::Consolidate);
    let c = cfg(GpuPreset::Gtx480, &["design.table_bytes=unbounded"]);
    assert_eq!(params(&c).table_bytes, TableCap::Unbounded);
    let bad = |sets: &[&str]| {
        let ov = Overrides {
            design: Some(DesignSpec::Renaming),
            sets: sets.iter().map(|s| s.to_string()).collect(),
            ..Overrides::default()
        };
        resolve(GpuPreset::Gtx480, &ov)
            .expect_err("must fail")
            .to_string()
    };
    assert!(bad(&["design.table_banks=0"]).contains("design.table_banks"));
    assert!(bad(&["design.nope=1"]).contains("design.nope"));
    assert!(bad(&["design.table_bytes=-5"]).contains("table"));
    assert!(bad(&["design.mapping=random"]).contains("random"));
    // the baseline has no [design] table
    let ov = Overrides {
        sets: vec!["design.table_banks=2".into()],
        ..Overrides::default()
    };
    let e = resolve(GpuPreset::Gtx480, &ov).expect_err("baseline has no design keys");
    assert!(e.to_string().contains("design.table_banks"), "{e}");
}

#[test]
fn first_write_maps_release_frees_and_values_survive() {
    let c = cfg(GpuPreset::Gtx480, &[]);
    let mut rf = RenamingRf::new(&c, &params(&c), &plan(20, &[]));
    let mut act = RfActivity::default();
    let mut ctx = RfCtx {
        now: 0,
        sm: 0,
        act: &mut act,
    };
    rf.allocate_warp(&mut ctx, w(0), 20).expect("fits");
    rf.allocate_warp(&mut ctx, w(1), 20).expect("fits");
    assert_eq!(rf.physical_in_use(), 0, "nothing mapped before a write");
    let v0 = [7u32; 32];
    let v1 = [9u32; 32];
    rf.write(&mut ctx, &wr(w(0), 3), &v0, u32::MAX);
    rf.write(&mut ctx, &wr(w(1), 3), &v1, u32::MAX);
    assert_eq!(rf.physical_in_use(), 2);
    assert_eq!(rf.read(&mut ctx, &op(w(0), 3)).values, v0);
    assert_eq!(rf.read(&mut ctx, &op(w(1), 3)).values, v1);
    // both paths of a divergent region share one mapping
    let half = [5u32; 32];
    rf.write(&mut ctx, &wr(w(0), 4), &half, 0x0000_ffff);
    rf.write(&mut ctx, &wr(w(0), 4), &half, 0xffff_0000);
    assert_eq!(rf.physical_in_use(), 3);
    assert_eq!(rf.stats().allocations, 3);
    rf.check_invariants(2).expect("invariants");
    // release: the row is free again and a read finds nothing
    rf.release(&mut ctx, w(0), 3, ReleaseCause::Pir);
    assert_eq!(rf.physical_in_use(), 2);
    assert_eq!(rf.peek(w(0), 3), [0; 32]);
    assert_eq!(
        rf.read(&mut ctx, &op(w(1), 3)).values,
        v1,
        "other warp intact"
    );
    // a release of an unmapped register does nothing
    rf.release(&mut ctx, w(0), 3, ReleaseCause::Pbr);
    assert_eq!(rf.stats().releases, 1);
    assert_eq!(rf.stats().releases_unmapped, 1);
    // dead destinations are kept by default (the seed's flags cover sources)
    rf.release(&mut ctx, w(0), 4, ReleaseCause::DeadDst);
    assert_eq!(rf.physical_in_use(), 2);
    rf.check_invariants(2).expect("invariants");
    // warp exit frees everything it holds
    rf.free_warp(&mut ctx, w(0));
    rf.free_warp(&mut ctx, w(1));
    assert_eq!(rf.physical_in_use(), 0);
    assert_eq!(rf.stats().freed_at_exit, 2);
    rf.check_invariants(0).expect("invariants");
}

#[test]
fn consolidation_packs_rows_into_one_subarray_per_bank() {
    let c = cfg(GpuPreset::Gtx480, &[]);
    let rps = c.gpu.sm.register_file.rows_per_subarray as usize;
    let mut rf = RenamingRf::new(&c, &params(&c), &plan(16, &[]));
    let mut act = RfActivity::default();
    let mut ctx = RfCtx {
        now: 0,
        sm: 0,
        act: &mut act,
    };
    // 8 warps write 16 registers each: 128 registers, 32 per bank
    for s in 0..8 {
        rf.allocate_warp(&mut ctx, w(s), 16).expect("fits");
        for r in 0..16 {
            rf.write(&mut ctx, &wr(w(s), r), &[u32::from(s); 32], u32::MAX);
        }
    }
    let used: Vec<usize> = (0..rf.sub_taken.len())
        .filter(|&k| rf.sub_taken[k] > 0)
        .collect();
    // 4 banks x 32 rows: one sub-array each when a sub-array holds >= 32 rows
    let per_bank = 32usize.div_ceil(rps);
    assert_eq!(used.len(), 4 * per_bank, "{used:?}");
    // the static policy spreads the same registers as the baseline does (8 warps x 4 rows
    // per bank in consecutive warp allocations: the same sub-arrays here), and wear
    // levelling spreads them over every sub-array
    let c = cfg(GpuPreset::Gtx480, &["design.mapping=wear_level"]);
    let mut rf = RenamingRf::new(&c, &params(&c), &plan(16, &[]));
    for s in 0..8 {
        rf.allocate_warp(&mut ctx, w(s), 16).expect("fits");
        for r in 0..16 {
            rf.write(&mut ctx, &wr(w(s), r), &[1; 32], u32::MAX);
        }
    }
    let spread = rf.sub_taken.iter().filter(|&&n| n > 0).count();
    assert_eq!(
        spread,
        rf.sub_taken.len(),
        "wear levelling touches every sub-array"
    );
    rf.check_invariants(8).expect("invariants");
}

#[test]
fn exempt_registers_are_reserved_at_launch_and_never_released() {
    let c = cfg(GpuPreset::Gtx480, &[]);
    let mut rf = RenamingRf::new(&c, &params(&c), &plan(8, &[1, 5]));
    let mut act = RfActivity::default();
    let mut ctx = RfCtx {
        now: 0,
        sm: 0,
        act: &mut act,
    };
    rf.allocate_warp(&mut ctx, w(2), 8).expect("fits");
    assert_eq!(rf.physical_in_use(), 2);
    rf.write(&mut ctx, &wr(w(2), 5), &[3; 32], u32::MAX);
    rf.release(&mut ctx, w(2), 5, ReleaseCause::Pir);
    assert_eq!(rf.peek(w(2), 5), [3; 32]);
    let st = rf.stats();
    assert_eq!(st.table_lookups, 0, "exempt registers are never looked up");
    assert_eq!(st.exempt_reserved, 2);
    rf.free_warp(&mut ctx, w(2));
    assert_eq!(rf.physical_in_use(), 0);
    assert_eq!(rf.stats().freed_at_exit, 0);
}

#[test]
fn table_bank_conflicts_serialise_beyond_the_lookups_per_cycle() {
    let c = cfg(
        GpuPreset::Gtx480,
        &["design.table_banks=1", "design.table_lookups_per_cycle=2"],
    );
    let mut rf = RenamingRf::new(&c, &params(&c), &plan(8, &[]));
    let mut act = RfActivity::default();
    let mut ctx = RfCtx {
        now: 10,
        sm: 0,
        act: &mut act,
    };
    rf.allocate_warp(&mut ctx, w(0), 8).expect("fits");
    for r in 0..3 {
        rf.write(&mut ctx, &wr(w(0), r), &[1; 32], u32::MAX);
    }
    for r in 0..3 {
        rf.route_read(&mut ctx, &op(w(0), r));
    }
    // the third lookup in one cycle of a 2-lookup bank waits a cycle
    assert_eq!(rf.read(&mut ctx, &op(w(0), 0)).delay, Delay::None);
    assert_eq!(rf.read(&mut ctx, &op(w(0), 2)).delay, Delay::Cycles(1));
    let st = rf.stats();
    assert_eq!((st.table_conflicts, st.table_delay_cycles), (1, 1));
    // a new cycle starts afresh
    ctx.now = 11;
    rf.route_read(&mut ctx, &op(w(0), 1));
    assert_eq!(rf.read(&mut ctx, &op(w(0), 1)).delay, Delay::None);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    /// One step of a random access sequence on 4 warp slots of 12 registers.
    #[derive(Clone, Debug)]
    enum Op {
        Launch(u16),
        Exit(u16),
        Write(u16, u16, u32),
        Read(u16, u16),
        Release(u16, u16, bool),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u16..4).prop_map(Op::Launch),
            (0u16..4).prop_map(Op::Exit),
            (0u16..4, 0u16..12, any::<u32>()).prop_map(|(w, r, m)| Op::Write(w, r, m)),
            (0u16..4, 0u16..12).prop_map(|(w, r)| Op::Read(w, r)),
            (0u16..4, 0u16..12, any::<bool>()).prop_map(|(w, r, b)| Op::Release(w, r, b)),
        ]
    }

    proptest! {
        /// The design's invariants under any sequence, for every mapping policy and with exempt
        /// registers: one row per mapping, flag popcount = mappings + exempt reservations,
        /// mappings ≤ resident warps × registers, a value read back is the last one written
        /// to that (warp, register) while it stays mapped, and nothing is left after every
        /// warp exits.
        #[test]
        fn invariants_hold_for_any_access_sequence(
            ops in proptest::collection::vec(op(), 1..120),
            policy in 0usize..3,
        ) {
            let mapping = ["consolidate", "wear_level", "static"][policy];
            let c = cfg(GpuPreset::Rtx2060, &[&format!("design.mapping={mapping}")]);
            let mut rf = RenamingRf::new(&c, &params(&c), &plan(12, &[7]));
            let mut act = RfActivity::default();
            let mut shadow: std::collections::HashMap<(u16, u16), u32> = Default::default();
            let mut live = [false; 4];
            for (k, o) in ops.iter().enumerate() {
                let mut ctx = RfCtx { now: k as u64, sm: 0, act: &mut act };
                let ws = |s: u16| WarpSlot { slot: s * 4, sub_core: 0 };
                match *o {
                    Op::Launch(s) if !live[s as usize] => {
                        rf.allocate_warp(&mut ctx, ws(s), 12).expect("fits");
                        live[s as usize] = true;
                    }
                    Op::Exit(s) if live[s as usize] => {
                        rf.free_warp(&mut ctx, ws(s));
                        live[s as usize] = false;
                        shadow.retain(|(w, _), _| *w != s);
                    }
                    Op::Write(s, r, v) if live[s as usize] => {
                        rf.write(&mut ctx, &wr(ws(s), r), &[v; 32], u32::MAX);
                        shadow.insert((s, r), v);
                    }
                    Op::Read(s, r) if live[s as usize] => {
                        if let Some(v) = shadow.get(&(s, r)) {
                            prop_assert_eq!(rf.read(&mut ctx, &op_ref(ws(s), r)).values[5], *v);
                        }
                    }
                    Op::Release(s, r, pir) if live[s as usize] => {
                        let cause = if pir { ReleaseCause::Pir } else { ReleaseCause::Pbr };
                        rf.release(&mut ctx, ws(s), r, cause);
                        // an exempt register (R7) keeps its value
                        if r != 7 {
                            shadow.remove(&(s, r));
                        }
                    }
                    _ => {}
                }
                let resident = live.iter().filter(|l| **l).count() as u64;
                prop_assert!(rf.check_invariants(resident).is_ok(), "{:?}", rf.check_invariants(resident));
                // the exempt register is reserved for every resident warp
                prop_assert!(rf.physical_in_use() >= resident);
            }
            let mut ctx = RfCtx { now: 1000, sm: 0, act: &mut act };
            for s in 0..4u16 {
                if live[s as usize] {
                    rf.free_warp(&mut ctx, WarpSlot { slot: s * 4, sub_core: 0 });
                }
            }
            prop_assert_eq!(rf.physical_in_use(), 0);
            let st = rf.stats();
            prop_assert_eq!(st.allocations, st.releases + st.freed_at_exit + st.exempt_reserved);
            prop_assert_eq!(st.unallocated_accesses, 0);
            prop_assert_eq!(st.allocation_failures, 0);
        }
    }

    fn op_ref(warp: WarpSlot, reg: RegId) -> OperandRef {
        super::op(warp, reg)
    }
}

fn wr(warp: WarpSlot, reg: RegId) -> WriteRef {
    crate::test_support::wref(warp, reg, false)
}

/// §6.2, Fig. 8: the flag instructions a warp decodes with an instruction are the pir it
/// fetched on a release-flag cache miss and the pbrs of the block it enters; with
/// `flag_fetch = false` (or the flags off) they are still counted but hold no decode slot.
#[test]
fn flag_instructions_fetched_with_an_instruction_take_decode_slots() {
    let mut p = plan(8, &[]);
    p.flags.pir_group = vec![Some(0), Some(0), None];
    p.flags.pbr_instructions = vec![2, 0, 1];
    let mut act = RfActivity::default();
    for (sets, want) in [
        (&[][..], [3, 0, 1]),
        (&["design.flag_fetch=false"][..], [0, 0, 0]),
        (&["design.release_flags=false"][..], [0, 0, 0]),
    ] {
        let c = cfg(GpuPreset::Gtx480, sets);
        let mut rf = RenamingRf::new(&c, &params(&c), &p);
        let mut ctx = RfCtx {
            now: 0,
            sm: 0,
            act: &mut act,
        };
        // pc 0: the pir misses (1) and two pbrs; pc 1: the pir hits; pc 2: one pbr
        let got: Vec<u32> = (0..3).map(|pc| rf.issued(&mut ctx, w(0), 0, pc)).collect();
        assert_eq!(got, want, "{sets:?}");
        let s = rf.stats();
        if sets.is_empty() || sets[0].contains("flag_fetch") {
            assert_eq!(
                (s.flag_cache_misses, s.pbr_instructions),
                (1, 3),
                "{sets:?}"
            );
        }
    }
}
