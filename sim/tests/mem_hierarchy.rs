//! Integration test of the timing-model memory hierarchy: coalescer → L1D → L2 → DRAM and back.

use regwatt_sim::timing::mem::cache::Outcome;
use regwatt_sim::timing::mem::coalesce::{coalesce, strided};
use regwatt_sim::timing::mem::l1d::{L1Config, L1D};
use regwatt_sim::timing::mem::system::MemSystem;
use regwatt_sim::timing::mem::{AccessKind, MemRequest};

/// Runs one warp load (`addrs` from `strided`) through L1D + L2 + DRAM until every line request
/// completes; returns (cycles taken, L1 outcomes).
fn warp_load(
    l1: &mut L1D,
    mem: &mut MemSystem,
    base: u64,
    stride: u64,
    next_id: &mut u64,
) -> (u64, Vec<Outcome>) {
    let c = coalesce(&strided(base, stride, 4, u32::MAX));
    let start = mem.now();
    let mut todo: Vec<MemRequest> = c
        .lines
        .iter()
        .map(|l| {
            *next_id += 1;
            MemRequest::new(*next_id, l.line_addr, l.sectors, AccessKind::Load)
        })
        .collect();
    todo.reverse();
    let mut outstanding = todo.len();
    let mut outcomes = Vec::new();
    while outstanding > 0 {
        let now = mem.now();
        assert!(now - start < 100_000, "deadlock");
        // One L1 access per cycle.
        if let Some(r) = todo.last().copied() {
            if let Ok(o) = l1.access(now, r) {
                outcomes.push(o);
                todo.pop();
            }
        }
        while let Some(m) = l1.peek_miss().copied() {
            if mem.push(m).is_err() {
                break;
            }
            l1.pop_miss();
        }
        mem.cycle();
        while let Some(r) = mem.pop_response() {
            if r.kind == AccessKind::Load {
                l1.fill(mem.now(), r.line_addr, r.sectors);
            }
        }
        while l1.pop_ready(mem.now()).is_some() {
            outstanding -= 1;
        }
    }
    (mem.now() - start, outcomes)
}

#[test]
fn cold_then_warm_warp_loads() {
    let mut l1 = L1D::new(L1Config::rtx2060()).unwrap();
    let mut mem = MemSystem::rtx2060().unwrap();
    let mut id = 0;
    let (cold, o1) = warp_load(&mut l1, &mut mem, 0x10_0000, 4, &mut id);
    assert_eq!(o1, vec![Outcome::Miss]);
    // L2 hit latency 160 + DRAM 100 + transfer: a cold miss takes well over 260 cycles.
    assert!(cold > 260, "{cold}");
    let (warm, o2) = warp_load(&mut l1, &mut mem, 0x10_0000, 4, &mut id);
    assert_eq!(o2, vec![Outcome::Hit]);
    // An L1 hit: 20 cycles (+1 for the cycle the access is presented in).
    assert!(warm <= 21, "{warm}");
    // Strided by 128 B: 32 lines, all cold misses, one L1 access per cycle.
    let (strided_cold, o3) = warp_load(&mut l1, &mut mem, 0x20_0000, 128, &mut id);
    assert_eq!(o3.len(), 32);
    assert!(o3.iter().all(|o| *o == Outcome::Miss));
    assert!(strided_cold > cold, "{strided_cold} vs {cold}");
    let s = mem.stats();
    assert_eq!(s.dram.bytes_read, 128 + 32 * 32);
    assert_eq!(l1.stats().hits, 1);
    assert_eq!(l1.stats().misses, 33);
}
