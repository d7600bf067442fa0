//! Design `malekeh` (Malekeh): each operand collector unit of a sub-core becomes a small
//! register cache, a caching collector unit (CCU), managed with compiler reuse hints, a
//! CCU-aware warp priority and CCU allocation, and an adaptive issue wait (STHLD). See
//! `designs/src/malekeh/README.md` for the mechanism, the parameters and the decisions.
//!
//! Storage: every value lives in the baseline's banks ([`BaselineRf`], write-through, §IV-A2);
//! a CCU's cache table holds copies, which it returns on a hit. A copy is updated by a near
//! result of its register (port D) and invalidated by any other result of it, so a hit never
//! returns a stale value.

mod design;
pub use design::Malekeh;
pub mod hardware;
pub mod seed_figures;
pub mod sthld;

use std::cell::RefCell;
use std::rc::Rc;

use regwatt_sim::timing::profile::{NextUse, ReuseProfile};
use regwatt_sim::timing::rf::{
    CollectorChoice, OperandRef, ReadOutcome, RegId, RegisterFileDesign, ReleaseCause, RfCtx,
    RfError, RfLayout, RfStats, Route, WarpSlot, WriteOutcome, WriteRef,
};
use serde::{Deserialize, Serialize};

use crate::baseline::{BaselineRf, BaselineStats};
use crate::config::{number_or_keyword, NumberOr, ResolvedConfig};
use sthld::{Sthld, SthldInterval};

/// Cache and scheduling policy (`design.policy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Malekeh: reuse-aware replacement and write filter, CCU-aware priority and
    /// allocation, STHLD wait (§IV).
    #[default]
    Malekeh,
    /// The §VI-C comparator: GTO priority, the lowest free CCU, LRU replacement, every result
    /// of a warp with data in a CCU written into it (Fig. 17).
    GtoLru,
}

/// Where the reuse hints come from (`design.reuse_hints`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReuseHints {
    /// The static reuse distance of every operand (`regwatt_sim::analysis::reuse`): the
    /// instructions to the next read along the straight-line code.
    #[default]
    Static,
    /// §III-A: each operand's majority class over the first `profile_warps` warps of the
    /// launch (`FunctionalWarpModel::profile_reuse`); the static estimate for an operand the
    /// profile never executed.
    Profile,
}

/// `[design]` parameters of `malekeh` (defaults and sources: `defaults.toml`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MalekehParams {
    /// Cache-table entries per CCU (§III-C: 8).
    pub entries: u32,
    /// Reuse distances below this are near (§III-A: 12).
    pub rthld: u32,
    /// Cache and scheduling policy.
    pub policy: Policy,
    /// Write only near results into a CCU (§IV-A2); false: every result of a warp with data
    /// in the CCU.
    pub write_filter: bool,
    /// Malekeh_PR (§VI-B): one private CCU per warp slot of the sub-core.
    pub private_ccus: bool,
    /// STHLD: `"adaptive"` (§IV-B3) or a fixed count of issue waits.
    pub sthld: SthldMode,
    /// Cycles per STHLD interval (§IV-B3: 10,000).
    pub sthld_interval: u64,
    /// Relative IPC change between intervals counted as large (§IV-B3: 0.02).
    pub sthld_ipc_threshold: f64,
    /// STHLD at the start of a run (not in the seed's text).
    pub sthld_initial: u32,
    /// Step of the state machine's regular moves (not in the seed's text).
    pub sthld_step: u32,
    /// Step of its speculative move after a large IPC change (not in the seed's text).
    pub sthld_speculative_step: u32,
    /// Upper bound of STHLD.
    pub sthld_max: u32,
    /// Source of the near/far hints.
    pub reuse_hints: ReuseHints,
    /// Warps profiled per launch with `reuse_hints = "profile"` (§III-A: "only a few warps
    /// (around 0.01%)").
    pub profile_warps: u32,
    /// What the profile counts as the reuse of an access: the next read or write of the
    /// register (`"access"`), or the next read of the value (`"read"`).
    pub profile_distance: NextUse,
}

/// STHLD: adaptive or fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SthldMode {
    Adaptive,
    Fixed(u32),
}

impl Serialize for SthldMode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SthldMode::Adaptive => s.serialize_str("adaptive"),
            SthldMode::Fixed(n) => s.serialize_u32(*n),
        }
    }
}

impl<'de> Deserialize<'de> for SthldMode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match number_or_keyword(d, "adaptive", "a wait count")? {
            NumberOr::Number(n) => u32::try_from(n).map(SthldMode::Fixed).map_err(|_| {
                serde::de::Error::custom(format!("{n}: expected 0..2^32 or \"adaptive\""))
            }),
            NumberOr::Keyword => Ok(SthldMode::Adaptive),
        }
    }
}

impl MalekehParams {
    /// Range checks (`key`, message).
    pub fn validate(&self, cfg: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        if !(1..=64).contains(&self.entries) {
            return Err(("design.entries", "must be in 1..=64".into()));
        }
        if self.entries < cfg.rf.collector_operands {
            return Err((
                "design.entries",
                format!(
                    "{} entries cannot hold the {} source operands of one instruction (rf.collector_operands)",
                    self.entries, cfg.rf.collector_operands
                ),
            ));
        }
        if self.rthld > 1_000_000 {
            return Err(("design.rthld", "must be at most 10^6".into()));
        }
        if !(1..=1024).contains(&self.profile_warps) {
            return Err(("design.profile_warps", "must be in 1..=1024".into()));
        }
        if !(100..=1 << 30).contains(&self.sthld_interval) {
            return Err((
                "design.sthld_interval",
                "must be in 100..=2^30 cycles".into(),
            ));
        }
        let t = self.sthld_ipc_threshold;
        if !(t.is_finite() && t > 0.0 && t < 1.0) {
            return Err((
                "design.sthld_ipc_threshold",
                format!("{t}: must be in (0, 1)"),
            ));
        }
        if self.sthld_max > 1 << 20 {
            return Err(("design.sthld_max", "must be at most 2^20".into()));
        }
        if self.sthld_initial > self.sthld_max {
            return Err((
                "design.sthld_initial",
                format!(
                    "{} is above design.sthld_max {}",
                    self.sthld_initial, self.sthld_max
                ),
            ));
        }
        if self.sthld_step == 0 || self.sthld_step > self.sthld_max.max(1) {
            return Err(("design.sthld_step", "must be in 1..=sthld_max".into()));
        }
        if self.sthld_speculative_step == 0 || self.sthld_speculative_step > self.sthld_max.max(1) {
            return Err((
                "design.sthld_speculative_step",
                "must be in 1..=sthld_max".into(),
            ));
        }
        if self.private_ccus {
            let s = &cfg.gpu.sm;
            let per_sub = s.limits.max_warps.div_ceil(s.sub_cores.max(1));
            if s.collectors.units_per_sub_core < per_sub {
                return Err((
                    "design.private_ccus",
                    format!(
                        "a private CCU per warp needs gpu.sm.collectors.units_per_sub_core >= {per_sub} (warps per sub-core), not {}",
                        s.collectors.units_per_sub_core
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Event counts of the Malekeh design (summed over SMs).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MalekehStats {
    /// The banks' counts (write-through: `writes` = every result; `reads` = misses).
    pub banks: BaselineStats,
    /// Source operand reads (hits + bank reads + uncached).
    pub source_reads: u64,
    /// Source operands found in the CCU.
    pub hits: u64,
    /// Sources read from a bank into the cache table.
    pub fills: u64,
    /// Sources read from a bank without a cache-table entry (every entry locked).
    pub uncached_reads: u64,
    /// Results written into a CCU through port D.
    pub ccu_writes: u64,
    /// Results of a warp with data in a CCU not written there: far (write filter), or port D
    /// already used this cycle.
    pub filtered_writes: u64,
    pub port_busy_writes: u64,
    /// Cached copies invalidated by a result not written into the CCU.
    pub invalidations: u64,
    /// Tag checks (one per source at CCU allocation, one per result of a warp with data in a
    /// CCU).
    pub tag_checks: u64,
    /// Cache tables flushed (a CCU allocated to another warp).
    pub flushes: u64,
    /// Replacements: a far entry chosen at random, an LRU entry.
    pub far_replacements: u64,
    pub lru_replacements: u64,
    /// CCU allocations by the Fig. 6 path: the warp's own CCU ③, a far CCU ⑤, a near CCU
    /// after the wait ⑨ (GTO + LRU: `lowest`).
    pub alloc_own: u64,
    pub alloc_far: u64,
    pub alloc_after_wait: u64,
    pub alloc_lowest: u64,
    /// Issue attempts refused: the warp's own CCU busy ④ (the scheduler tries the next warp),
    /// and STHLD waits ⑦ (the scheduler stalls for the cycle).
    pub own_ccu_busy: u64,
    pub sthld_waits: u64,
    /// STHLD per interval closed in the launch (SM 0 only: one STHLD for the whole GPU); a
    /// run's merged statistics hold its intervals once each, in order, on the run's clock.
    pub sthld_trace: Vec<SthldInterval>,
    /// Reuse hints with `reuse_hints = "profile"` (zero with `"static"`): near/far decisions
    /// (one per source read, one per result of a warp with data in a CCU) taken from the
    /// profile, and taken from the static estimate because the profile never executed the
    /// operand.
    pub hints_profile: u64,
    pub hints_static_fallback: u64,
    /// Profile decisions that differ from the static estimate: near in the profile and far
    /// statically, and the reverse.
    pub hints_profile_near_static_far: u64,
    pub hints_profile_far_static_near: u64,
    /// Size of the profiles (SM 0 only; summed over launches): warps run to completion,
    /// their warp instructions, static operands with a tally, of which near, and profiles
    /// stopped early.
    pub profiled_warps: u64,
    pub profiled_instructions: u64,
    pub profiled_operands: u64,
    pub profiled_near_operands: u64,
    pub profiles_truncated: u64,
}

impl RfStats for MalekehStats {
    fn merge(&mut self, o: &Self) {
        self.banks.merge(&o.banks);
        self.source_reads += o.source_reads;
        self.hits += o.hits;
        self.fills += o.fills;
        self.uncached_reads += o.uncached_reads;
        self.ccu_writes += o.ccu_writes;
        self.filtered_writes += o.filtered_writes;
        self.port_busy_writes += o.port_busy_writes;
        self.invalidations += o.invalidations;
        self.tag_checks += o.tag_checks;
        self.flushes += o.flushes;
        self.far_replacements += o.far_replacements;
        self.lru_replacements += o.lru_replacements;
        self.alloc_own += o.alloc_own;
        self.alloc_far += o.alloc_far;
        self.alloc_after_wait += o.alloc_after_wait;
        self.alloc_lowest += o.alloc_lowest;
        self.own_ccu_busy += o.own_ccu_busy;
        self.sthld_waits += o.sthld_waits;
        self.sthld_trace.extend_from_slice(&o.sthld_trace);
        self.hints_profile += o.hints_profile;
        self.hints_static_fallback += o.hints_static_fallback;
        self.hints_profile_near_static_far += o.hints_profile_near_static_far;
        self.hints_profile_far_static_near += o.hints_profile_far_static_near;
        self.profiled_warps += o.profiled_warps;
        self.profiled_instructions += o.profiled_instructions;
        self.profiled_operands += o.profiled_operands;
        self.profiled_near_operands += o.profiled_near_operands;
        self.profiles_truncated += o.profiles_truncated;
    }
}

impl MalekehStats {
    /// Hit ratio of source reads.
    pub fn hit_ratio(&self) -> f64 {
        if self.source_reads == 0 {
            0.0
        } else {
            self.hits as f64 / self.source_reads as f64
        }
    }

    /// Of the decisions taken from the profile, the share where the static estimate agrees
    /// (`None`: no profile decision).
    pub fn hint_agreement(&self) -> Option<f64> {
        let d = self.hints_profile_near_static_far + self.hints_profile_far_static_near;
        (self.hints_profile > 0).then(|| 1.0 - d as f64 / self.hints_profile as f64)
    }
}

/// One cache-table entry (§III-C, Fig. 5).
#[derive(Clone, Copy, Debug)]
struct Entry {
    valid: bool,
    tag: RegId,
    locked: bool,
    near: bool,
    /// The value arrived (a fill in flight is not ready).
    ready: bool,
    /// LRU stamp (larger = more recent; the hardware's 3-bit order).
    used: u64,
    value: [u32; 32],
}

const EMPTY: Entry = Entry {
    valid: false,
    tag: 0,
    locked: false,
    near: false,
    ready: false,
    used: 0,
    value: [0; 32],
};

/// One CCU: its cache table and whose data it holds.
#[derive(Clone, Debug)]
struct Ccu {
    /// Warp slot whose registers the table holds (`None`: empty).
    owner: Option<u16>,
    /// An instruction occupies the CCU (between issue and dispatch).
    busy: bool,
    entries: Vec<Entry>,
    /// Last cycle port D wrote this CCU.
    port_d_cycle: u64,
}

/// The Malekeh register file of one SM.
#[derive(Debug)]
pub struct MalekehRf {
    p: MalekehParams,
    base: BaselineRf,
    sm: u32,
    /// CCUs per sub-core.
    ccus: Vec<Vec<Ccu>>,
    /// Sub-core collector chosen by the last `choose_collector` (consumed by `issued`).
    chosen: Vec<Option<u16>>,
    /// Per warp slot: the CCU holding its data (sub-core is the slot's).
    home: Vec<Option<u16>>,
    /// STHLD wait counter of the SM (§IV-B2: "a per-core counter").
    wait_counter: u32,
    sthld: Rc<RefCell<Sthld>>,
    /// Deterministic random numbers (xorshift64) for the random choices.
    rng: u64,
    tick: u64,
    stats: MalekehStats,
    /// The launch's reuse profile (`reuse_hints = "profile"`), shared by the SMs.
    profile: Option<Rc<ReuseProfile>>,
}

impl MalekehRf {
    /// The Malekeh RF of SM `sm`, sharing the GPU's STHLD controller `sthld`.
    pub fn new(
        cfg: &ResolvedConfig,
        p: &MalekehParams,
        sm: u32,
        sthld: Rc<RefCell<Sthld>>,
    ) -> MalekehRf {
        let s = &cfg.gpu.sm;
        let subs = s.sub_cores.max(1) as usize;
        let n = s.collectors.units_per_sub_core.max(1) as usize;
        let ccu = Ccu {
            owner: None,
            busy: false,
            entries: vec![EMPTY; p.entries as usize],
            port_d_cycle: u64::MAX,
        };
        MalekehRf {
            p: p.clone(),
            base: BaselineRf::new(cfg),
            sm,
            ccus: vec![vec![ccu; n]; subs],
            chosen: vec![None; subs],
            home: vec![None; s.limits.max_warps as usize],
            wait_counter: 0,
            sthld,
            rng: 0x9E37_79B9_7F4A_7C15 ^ (u64::from(sm) + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9),
            tick: 0,
            stats: MalekehStats::default(),
            profile: None,
        }
    }

    /// Takes the near/far hints from `profile` (§III-A), falling back to the static estimate
    /// for operands it never executed.
    pub fn with_profile(mut self, profile: Rc<ReuseProfile>) -> MalekehRf {
        if self.sm == 0 {
            let s = &mut self.stats;
            s.profiled_warps = u64::from(profile.warps());
            s.profiled_instructions = profile.instructions();
            s.profiled_operands = profile.operands() as u64;
            s.profiled_near_operands = profile.near_operands(self.p.profile_distance) as u64;
            s.profiles_truncated = u64::from(profile.truncated());
        }
        self.profile = Some(profile);
        self
    }

    fn random(&mut self) -> u64 {
        // xorshift64 (Marsaglia, J. Stat. Softw. 8(14), 2003)
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng = x;
        x
    }

    /// A uniformly random set bit of `mask` (not 0).
    fn random_bit(&mut self, mask: u64) -> usize {
        let k = self.random() % u64::from(mask.count_ones().max(1));
        let mut m = mask;
        for _ in 0..k {
            m &= m - 1;
        }
        m.trailing_zeros() as usize
    }

    fn near(&self, reuse: Option<u32>) -> bool {
        reuse.is_some_and(|d| d < self.p.rthld)
    }

    /// The near/far hint of an operand: the profile's class if there is a profile and it
    /// executed the operand, else the static estimate `reuse`. `profiled` is the profile's
    /// answer (`ReuseProfile::near_src` / `near_dst`).
    fn hint(
        &mut self,
        reuse: Option<u32>,
        profiled: impl FnOnce(&ReuseProfile) -> Option<bool>,
    ) -> bool {
        let st = self.near(reuse);
        let Some(p) = self.profile.as_deref() else {
            return st;
        };
        let s = &mut self.stats;
        match profiled(p) {
            Some(near) => {
                s.hints_profile += 1;
                if near && !st {
                    s.hints_profile_near_static_far += 1;
                } else if !near && st {
                    s.hints_profile_far_static_near += 1;
                }
                near
            }
            None => {
                s.hints_static_fallback += 1;
                st
            }
        }
    }

    /// A CCU holding no near value (or nothing).
    fn is_far(c: &Ccu) -> bool {
        !c.entries.iter().any(|e| e.valid && e.near)
    }

    fn ccu_of(&self, warp: WarpSlot) -> Option<usize> {
        self.home
            .get(usize::from(warp.slot))
            .copied()
            .flatten()
            .map(usize::from)
    }

    fn flush(&mut self, sc: usize, c: usize) {
        if let Some(owner) = self.ccus[sc][c].owner.take() {
            if let Some(h) = self.home.get_mut(usize::from(owner)) {
                *h = None;
            }
            self.stats.flushes += 1;
        }
        for e in &mut self.ccus[sc][c].entries {
            *e = EMPTY;
        }
    }

    /// A free entry of CCU (sc, c) for a new value: invalid first, then (Malekeh) a random
    /// unlocked far entry, then the least recently used unlocked one. None: all locked.
    fn victim(&mut self, sc: usize, c: usize) -> Option<usize> {
        let entries = &self.ccus[sc][c].entries;
        if let Some(i) = entries.iter().position(|e| !e.valid) {
            return Some(i);
        }
        if self.p.policy == Policy::Malekeh {
            let far = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| !e.locked && !e.near)
                .fold(0u64, |m, (i, _)| m | 1 << i);
            if far != 0 {
                self.stats.far_replacements += 1;
                return Some(self.random_bit(far));
            }
        }
        let entries = &self.ccus[sc][c].entries;
        let lru = (0..entries.len())
            .filter(|&i| !entries[i].locked)
            .min_by_key(|&i| entries[i].used)?;
        self.stats.lru_replacements += 1;
        Some(lru)
    }

    fn find(&self, sc: usize, c: usize, reg: RegId) -> Option<usize> {
        self.ccus[sc][c]
            .entries
            .iter()
            .position(|e| e.valid && e.tag == reg)
    }

    /// Checks the invariants: a CCU holds one warp's data, a warp has data in at most one
    /// CCU, and `home` agrees with the owners.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for (sc, v) in self.ccus.iter().enumerate() {
            for (c, ccu) in v.iter().enumerate() {
                if let Some(o) = ccu.owner {
                    if !seen.insert(o) {
                        return Err(format!("warp slot {o} owns two CCUs"));
                    }
                    if self.home.get(usize::from(o)).copied().flatten() != Some(c as u16) {
                        return Err(format!("warp slot {o}: home != CCU {c} of sub-core {sc}"));
                    }
                } else if ccu.entries.iter().any(|e| e.valid) {
                    return Err(format!("CCU {c} of sub-core {sc} has data but no owner"));
                }
            }
        }
        Ok(())
    }

    /// Whether a warp has data in a CCU (for tests).
    pub fn has_data(&self, warp: WarpSlot) -> bool {
        self.ccu_of(warp).is_some()
    }
}

impl RegisterFileDesign for MalekehRf {
    type Stats = MalekehStats;

    fn name(&self) -> String {
        "malekeh".into()
    }

    fn layout(&self) -> RfLayout {
        self.base.layout()
    }

    fn can_allocate(&self, warps: &[WarpSlot], regs_per_thread: u32) -> bool {
        self.base.can_allocate(warps, regs_per_thread)
    }

    fn allocate_warp(
        &mut self,
        ctx: &mut RfCtx,
        warp: WarpSlot,
        regs_per_thread: u32,
    ) -> Result<(), RfError> {
        self.base.allocate_warp(ctx, warp, regs_per_thread)
    }

    fn free_warp(&mut self, ctx: &mut RfCtx, warp: WarpSlot) {
        // a new warp in this slot must not find the old warp's values
        if let Some(c) = self.ccu_of(warp) {
            self.flush(usize::from(warp.sub_core), c);
        }
        self.base.free_warp(ctx, warp);
    }

    fn choose_collector(&mut self, ctx: &mut RfCtx, warp: WarpSlot, free: u64) -> CollectorChoice {
        let sc = usize::from(warp.sub_core);
        let n = self.ccus.get(sc).map_or(0, Vec::len);
        let pick = |me: &mut Self, c: usize| {
            if let Some(x) = me.chosen.get_mut(sc) {
                *x = Some(c as u16);
            }
            CollectorChoice::Use(c as u16)
        };
        if self.p.private_ccus {
            // Malekeh_PR: the warp's own CCU, always
            let c = (usize::from(warp.slot) / self.ccus.len().max(1)) % n.max(1);
            if free >> c & 1 != 0 {
                self.stats.alloc_own += 1;
                return pick(self, c);
            }
            self.stats.own_ccu_busy += 1;
            return CollectorChoice::Wait;
        }
        if self.p.policy == Policy::GtoLru {
            self.stats.alloc_lowest += 1;
            return pick(self, free.trailing_zeros() as usize);
        }
        // ③ / ④: the warp's own CCU, only that one
        if let Some(c) = self.ccu_of(warp) {
            if free >> c & 1 != 0 {
                self.stats.alloc_own += 1;
                return pick(self, c);
            }
            self.stats.own_ccu_busy += 1;
            return CollectorChoice::Wait;
        }
        let frees = free & if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        if frees == 0 {
            return CollectorChoice::Wait; // ⑥
        }
        // ⑤: a free far CCU, at random
        let mut far = 0u64;
        let mut m = frees;
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            if Self::is_far(&self.ccus[sc][c]) {
                far |= 1 << c;
            }
        }
        if far != 0 {
            self.stats.alloc_far += 1;
            let c = self.random_bit(far);
            return pick(self, c);
        }
        // ⑦–⑨: only near CCUs are free: wait STHLD times, then take one at random
        let sthld = self.sthld.borrow_mut().current(ctx.now);
        if self.wait_counter < sthld {
            self.wait_counter += 1;
            self.stats.sthld_waits += 1;
            return CollectorChoice::Stall;
        }
        self.wait_counter = 0;
        self.stats.alloc_after_wait += 1;
        let c = self.random_bit(frees);
        pick(self, c)
    }

    fn warp_priority(&self, warp: WarpSlot) -> u8 {
        // §IV-B1: after the last issued warp (the core's greedy choice), warps with data in
        // a CCU, by age
        match self.p.policy {
            Policy::Malekeh => u8::from(self.ccu_of(warp).is_some()),
            Policy::GtoLru => 0,
        }
    }

    fn issued(&mut self, ctx: &mut RfCtx, warp: WarpSlot, _func: u32, _pc: u32) -> u32 {
        self.sthld.borrow_mut().count_instruction(ctx.now);
        let sc = usize::from(warp.sub_core);
        let Some(c) = self.chosen.get_mut(sc).and_then(Option::take) else {
            return 0;
        };
        let c = usize::from(c);
        // a warp moving to another CCU (GTO + LRU allocates the lowest free one) leaves
        // nothing behind: a warp has data in one CCU at most
        if let Some(old) = self.ccu_of(warp).filter(|&o| o != c) {
            self.flush(sc, old);
        }
        // §III-C1 allocation, first step: flush when the warp changes
        if self.ccus[sc][c].owner != Some(warp.slot) {
            self.flush(sc, c);
            self.ccus[sc][c].owner = Some(warp.slot);
            if let Some(h) = self.home.get_mut(usize::from(warp.slot)) {
                *h = Some(c as u16);
            }
        }
        self.ccus[sc][c].busy = true;
        debug_assert!(
            self.check_invariants().is_ok(),
            "{:?}",
            self.check_invariants()
        );
        0
    }

    fn collector_released(&mut self, _ctx: &mut RfCtx, warp: WarpSlot, collector: u16) {
        let sc = usize::from(warp.sub_core);
        if let Some(ccu) = self
            .ccus
            .get_mut(sc)
            .and_then(|v| v.get_mut(usize::from(collector)))
        {
            ccu.busy = false;
            for e in &mut ccu.entries {
                e.locked = false;
            }
        }
    }

    fn route_read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> Route {
        let sc = usize::from(op.warp.sub_core);
        let c = usize::from(op.collector);
        self.stats.source_reads += 1;
        self.stats.tag_checks += 1;
        self.tick += 1;
        let next = self.p.profile_distance;
        let near = self.hint(op.reuse, |p| p.near_src(op.func, op.pc, op.reg, next));
        let tick = self.tick;
        if self.ccus.get(sc).and_then(|v| v.get(c)).is_none() {
            return self.base.route_read(ctx, op);
        }
        if let Some(i) = self.find(sc, c, op.reg) {
            let e = &mut self.ccus[sc][c].entries[i];
            e.locked = true;
            e.near = near;
            e.used = tick;
            if e.ready {
                return Route::Bypass;
            }
            return self.base.route_read(ctx, op);
        }
        if let Some(i) = self.victim(sc, c) {
            self.ccus[sc][c].entries[i] = Entry {
                valid: true,
                tag: op.reg,
                locked: true,
                near,
                ready: false,
                used: tick,
                value: [0; 32],
            };
        }
        self.base.route_read(ctx, op)
    }

    fn read(&mut self, ctx: &mut RfCtx, op: &OperandRef) -> ReadOutcome {
        let sc = usize::from(op.warp.sub_core);
        let c = usize::from(op.collector);
        let slot = self
            .ccus
            .get(sc)
            .and_then(|v| v.get(c))
            .and_then(|_| self.find(sc, c, op.reg));
        match slot {
            Some(i) if self.ccus[sc][c].entries[i].ready => {
                self.stats.hits += 1;
                ReadOutcome {
                    values: self.ccus[sc][c].entries[i].value,
                    delay: regwatt_sim::timing::rf::Delay::None,
                }
            }
            Some(i) => {
                let out = self.base.read(ctx, op);
                let e = &mut self.ccus[sc][c].entries[i];
                e.value = out.values;
                e.ready = true;
                self.stats.fills += 1;
                out
            }
            None => {
                self.stats.uncached_reads += 1;
                self.base.read(ctx, op)
            }
        }
    }

    fn prefetch(&self, warp: WarpSlot, reg: RegId) {
        self.base.prefetch(warp, reg);
    }

    fn route_write(&mut self, ctx: &mut RfCtx, w: &WriteRef) -> Route {
        self.base.route_write(ctx, w)
    }

    fn write(
        &mut self,
        ctx: &mut RfCtx,
        w: &WriteRef,
        values: &[u32; 32],
        mask: u32,
    ) -> WriteOutcome {
        // write-through: the banks always get the result (§IV-A2)
        let out = self.base.write(ctx, w, values, mask);
        let sc = usize::from(w.warp.sub_core);
        let Some(c) = self.ccu_of(w.warp) else {
            return out;
        };
        self.stats.tag_checks += 1;
        let next = self.p.profile_distance;
        let near = self.hint(w.reuse, |p| p.near_dst(w.func, w.pc, w.reg, next));
        let wanted = near || !self.p.write_filter;
        let port_free = self.ccus[sc][c].port_d_cycle != ctx.now;
        let present = self.find(sc, c, w.reg);
        if wanted && port_free {
            // port D: update the copy, or allocate for a full result
            let i = match present {
                Some(i) => Some(i),
                None if mask == u32::MAX => self.victim(sc, c),
                None => None,
            };
            if let Some(i) = i {
                self.tick += 1;
                let tick = self.tick;
                let e = &mut self.ccus[sc][c].entries[i];
                if present.is_none() {
                    *e = Entry {
                        valid: true,
                        tag: w.reg,
                        locked: false,
                        near,
                        ready: true,
                        used: tick,
                        value: *values,
                    };
                } else {
                    for (k, (d, v)) in e.value.iter_mut().zip(values).enumerate() {
                        if mask >> k & 1 != 0 {
                            *d = *v;
                        }
                    }
                    e.near = near;
                    e.used = tick;
                }
                self.ccus[sc][c].port_d_cycle = ctx.now;
                self.stats.ccu_writes += 1;
                return out;
            }
        }
        if wanted {
            self.stats.port_busy_writes += 1;
        } else {
            self.stats.filtered_writes += 1;
        }
        // not written into the CCU: its copy (if any) is stale now
        if let Some(i) = present {
            let e = &mut self.ccus[sc][c].entries[i];
            if e.locked {
                // a source of the instruction in the CCU: keep the slot, refetch is not
                // needed (the scoreboard orders this write before that read), so update it
                for (k, (d, v)) in e.value.iter_mut().zip(values).enumerate() {
                    if mask >> k & 1 != 0 {
                        *d = *v;
                    }
                }
            } else {
                *e = EMPTY;
                self.stats.invalidations += 1;
            }
        }
        out
    }

    fn release(&mut self, ctx: &mut RfCtx, warp: WarpSlot, reg: RegId, cause: ReleaseCause) {
        self.base.release(ctx, warp, reg, cause);
    }

    fn peek(&self, warp: WarpSlot, reg: RegId) -> [u32; 32] {
        self.base.peek(warp, reg)
    }

    fn record_series(&mut self, window: u64) {
        self.base.record_series(window);
    }

    fn sm_occupied(&mut self, ctx: &mut RfCtx, occupied: bool) {
        self.base.sm_occupied(ctx, occupied);
    }

    fn finish(&mut self, ctx: &mut RfCtx) {
        self.base.finish(ctx);
        // the intervals that ended within the launch belong to its trace (the launch's
        // `Activity::cycles` is `now + 1`)
        self.sthld.borrow_mut().current(ctx.now + 1);
    }

    fn stats(&self) -> MalekehStats {
        let mut s = self.stats.clone();
        s.banks = self.base.stats();
        if self.sm == 0 {
            s.sthld_trace = self.sthld.borrow().trace().to_vec();
        }
        s
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    use super::MalekehParams;
    use crate::config::{resolve, GpuPreset, Overrides, ResolvedConfig};
    use crate::registry::DesignSpec;

    pub fn config(sets: &[&str]) -> ResolvedConfig {
        resolve(
            GpuPreset::Rtx2060,
            &Overrides {
                design: Some(DesignSpec::Malekeh),
                sets: sets.iter().map(|s| s.to_string()).collect(),
                ..Overrides::default()
            },
        )
        .expect("config")
    }

    pub fn params() -> MalekehParams {
        crate::registry::params::<super::Malekeh>(&config(&[]))
            .expect("[design] of malekeh")
            .into_owned()
    }
}

#[cfg(test)]
mod tests;
