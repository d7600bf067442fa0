//! Power-managed register rows: `--power-mode always-on | subarray-gating |
//! register-gating | drowsy | tri-modal`, an axis every design can use.
//!
//! **Accounting.** A design creates its [`RegTracker`] with [`tracker`]; in any mode but
//! always-on the tracker counts, from transition timestamps, the cycles every register row and
//! sub-array spends in each state and the wake-ups
//! ([`regwatt_sim::timing::activity::PowerStateCycles`]). The design tells the tracker when
//! rows are allocated, accessed and freed; the state machine is the tracker's, not the
//! design's, so later designs get every mode by using it.
//!
//! **Energy.** Only the cells of the register rows change state; the banks' periphery
//! (decoders, sense amplifiers, H-trees) stays on. With `P` the cells' leakage of one row (every
//! slice of the row) in a state, `n` the row- (or sub-array-) cycles in it and `E` a wake-up:
//!
//! ```text
//! E_static,cells = Σ_states n_state × P_state / f_core + Σ_kinds wake-ups × E_wake
//! E_static(rf_banks) = E_static,always-on(rf_banks) − rows × P_on × cycles / f_core + E_static,cells
//! ```
//!
//! The per-state figures come from `regwatt_power::gating` (Retention::Off: the header's off
//! current; Retention::Vccmin: the cells at the node's retention voltage, DIBL-aware,
//! `regwatt_power::drowsy`):
//! * register gating: one header per slice row, sized for the row's write current with its
//!   rail allowed down to V_ccmin (`register_gating(.., Retention::Off)`, `row_header_width`);
//! * drowsy: the same header to V_dd plus the row's small switch to a V_ccmin rail
//!   (`register_gating(.., Retention::Vccmin)`, `drowsy_supply_switch`; Flautner et al.,
//!   ISCA 2002);
//! * tri-modal: the drowsy row's two switches, both off in the off state (Warped RF's
//!   tri-modal register: the off state needs no third device), so its hardware is drowsy's;
//!   its off row leaks through both;
//! * sub-array gating: one header per column of a sub-array of `rows_per_subarray` rows
//!   (`subarray_gating(.., Retention::Off)`, CACTI-P's `gating_perf_loss` budget), per slice.
//!
//! Area adds the headers and switches. Wake-ups are hidden in the operand-collector stage by default (seed
//! 002 §8.3: a one-cycle wake-up inside the 2–3-cycle collection), so cycles do not change.
//! With `power.wakeup_exposed`, a read of a row that is asleep under the mode's rule waits
//! `power.wakeup_cycles` ([`read_delay`], through the seam's `Delay`).

use regwatt_power::flipflop::{flipflop_array, FlipFlopSpec};
use regwatt_power::gating::{register_gating, subarray_gating, CellLeakage, GatingTech, Retention};
use regwatt_power::sram::SramResult;
use regwatt_sim::timing::activity::{PowerStateCycles, RegTracker, SleepRule};
use regwatt_sim::timing::rf::Delay;
use regwatt_tech::units::{Area, Energy, Power};
use regwatt_tech::DeviceFlavor;
use serde::Serialize;

use crate::config::{PowerMode, ResolvedConfig};
use crate::energy::{AreaSummary, EnergyError, EnergySummary};

/// The register tracker of a design of `regs` rows in sub-arrays of `rows_per_subarray`:
/// counting power states unless the mode is always-on (from the end of the kernel-launch
/// latency, where the energy window starts).
pub fn tracker(cfg: &ResolvedConfig, regs: usize, rows_per_subarray: u32) -> RegTracker {
    match cfg.power.mode {
        PowerMode::AlwaysOn => RegTracker::new(regs, rows_per_subarray),
        _ => {
            let mut t = RegTracker::with_power_states(
                regs,
                rows_per_subarray,
                cfg.power.drowsy_timeout,
                u64::from(cfg.gpu.kernel_launch_latency),
            );
            // idle-SM gating turns an idle SM's rows off whatever their state: the states'
            // idle share is counted apart (`PowerStateCycles::sm_idle`)
            if cfg.power.gating_release == crate::config::GatingRelease::Never {
                t.keep_gated_on();
            }
            if cfg.power.idle_sm_gating {
                t.count_sm_idle();
            }
            t
        }
    }
}

/// The sleep rule and wake-up latency a read of a sleeping row waits, when wake-ups are
/// exposed (`power.wakeup_exposed`) in a managed mode; `None` otherwise (always on, or the
/// wake-up hidden in the collector stage).
pub fn exposed_wakeup(cfg: &ResolvedConfig) -> Option<(SleepRule, u32)> {
    if !cfg.power.wakeup_exposed {
        return None;
    }
    let rule = match cfg.power.mode {
        PowerMode::AlwaysOn => return None,
        PowerMode::SubarrayGating => SleepRule::Subarray,
        PowerMode::RegisterGating => SleepRule::Register,
        PowerMode::Drowsy => SleepRule::Drowsy,
        PowerMode::TriModal => SleepRule::TriModal,
    };
    Some((rule, cfg.power.wakeup_cycles))
}

/// The delay of a read of row `i` at `now` ([`exposed_wakeup`]'s `wake`), before the read
/// touches the tracker.
#[inline]
pub fn read_delay(t: &RegTracker, wake: Option<(SleepRule, u32)>, i: usize, now: u64) -> Delay {
    match wake {
        Some((rule, c)) if t.asleep(i, now, rule) => Delay::Cycles(c),
        _ => Delay::None,
    }
}

/// What one register row and one sub-array leak in each state, and what a wake-up costs, for
/// a design whose register row is `slices` bank rows of `cols` cells each.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RowDomains {
    /// Cells of one register row at full supply (all slices).
    #[serde(rename = "row_on_w", serialize_with = "regwatt_tech::units::report::w")]
    pub row_on: Power,
    /// The row power-gated.
    #[serde(
        rename = "row_off_w",
        serialize_with = "regwatt_tech::units::report::w"
    )]
    pub row_off: Power,
    /// The row at the retention voltage.
    #[serde(
        rename = "row_drowsy_w",
        serialize_with = "regwatt_tech::units::report::w"
    )]
    pub row_drowsy: Power,
    /// Waking a gated row.
    #[serde(
        rename = "row_wake_from_off_pj",
        serialize_with = "regwatt_tech::units::report::pj"
    )]
    pub row_wake_from_off: Energy,
    /// Waking a drowsy row.
    #[serde(
        rename = "row_wake_from_drowsy_pj",
        serialize_with = "regwatt_tech::units::report::pj"
    )]
    pub row_wake_from_drowsy: Energy,
    /// Cells of one sub-array (all slices) at full supply.
    #[serde(
        rename = "subarray_on_w",
        serialize_with = "regwatt_tech::units::report::w"
    )]
    pub subarray_on: Power,
    /// The sub-array gated.
    #[serde(
        rename = "subarray_off_w",
        serialize_with = "regwatt_tech::units::report::w"
    )]
    pub subarray_off: Power,
    /// Waking a gated sub-array.
    #[serde(
        rename = "subarray_wake_pj",
        serialize_with = "regwatt_tech::units::report::pj"
    )]
    pub subarray_wake: Energy,
    /// Headers of one row for register gating (all slices).
    #[serde(
        rename = "row_gating_area_mm2",
        serialize_with = "regwatt_tech::units::report::mm2"
    )]
    pub row_gating_area: Area,
    /// The V_ccmin switches of one row, off (tri-modal's off state: both switches off), all
    /// slices: their subthreshold current at V_ccmin.
    #[serde(
        rename = "row_supply_switch_off_w",
        serialize_with = "regwatt_tech::units::report::w"
    )]
    pub row_supply_switch_off: Power,
    /// Switches of one drowsy row, all slices: the V_dd header and the V_ccmin switch (drowsy
    /// and tri-modal).
    #[serde(
        rename = "row_drowsy_area_mm2",
        serialize_with = "regwatt_tech::units::report::mm2"
    )]
    pub row_drowsy_area: Area,
    /// Headers of one sub-array (all slices).
    #[serde(
        rename = "subarray_gating_area_mm2",
        serialize_with = "regwatt_tech::units::report::mm2"
    )]
    pub subarray_gating_area: Area,
    /// One bit of state control (a McPAT `DFFCell` flip-flop, never gated): leakage,
    /// subthreshold + gate ([`control_bits_per_row`]).
    #[serde(
        rename = "control_bit_w",
        serialize_with = "regwatt_tech::units::report::w"
    )]
    pub control_bit: Power,
    /// Its area.
    #[serde(
        rename = "control_bit_area_mm2",
        serialize_with = "regwatt_tech::units::report::mm2"
    )]
    pub control_bit_area: Area,
}

/// Flip-flops of state control per register row in `mode` ("area adds the sleep
/// transistors and the state control"). Which rows are allocated the register file's
/// allocator already knows (the baseline's row admission, renaming's free list), so no mode
/// needs a bit for that; what each rule adds:
/// * register gating and sub-array gating: a "written since allocation" bit per row, which
///   drives the row's header (register gating) or, ORed over the sub-array's rows, the
///   sub-array's headers (sub-array gating, Jeon & Annavaram 2014 §8.3: on from the first write after
///   allocation until every register is free);
/// * drowsy: the row's drowsy bit, plus a counter of the cycles since its last access up to
///   `drowsy_timeout` (`⌈log2(timeout + 1)⌉` bits: none with timeout 0, where every access
///   ends in the drowsy state; Flautner et al., ISCA 2002, "noaccess" policy);
/// * tri-modal: the same as drowsy (off = not allocated comes from the allocator).
pub fn control_bits_per_row(mode: PowerMode, drowsy_timeout: u64) -> u32 {
    let counter = 64 - drowsy_timeout.leading_zeros();
    match mode {
        PowerMode::AlwaysOn => 0,
        PowerMode::RegisterGating | PowerMode::SubarrayGating => 1,
        PowerMode::Drowsy | PowerMode::TriModal => 1 + counter,
    }
}

impl RowDomains {
    /// From one bank slice's SRAM result (its cells' leakage, spread evenly over its `rows`
    /// rows of `cols` cells, data and ECC columns), `slices` slices per register row, and
    /// sub-arrays of `rows_per_subarray` register rows.
    pub fn new(
        cfg: &ResolvedConfig,
        bank: &SramResult,
        rows: u32,
        cols: u32,
        slices: u32,
        rows_per_subarray: u32,
    ) -> Result<RowDomains, EnergyError> {
        let tech = regwatt_tech::Technology::for_node(cfg.power.node.nm(), cfg.power.temperature)?;
        let gt = GatingTech::new(&tech, DeviceFlavor::ItrsHp, DeviceFlavor::ItrsHp)
            .map_err(gating_err)?;
        let cells = f64::from(rows.max(1)) * f64::from(cols.max(1));
        let leak = CellLeakage {
            subthreshold_per_cell: bank.data.leakage.cells / cells,
            gate_per_cell: bank.data.gate_leakage.cells / cells,
        };
        let pl = cfg.power.gating_perf_loss;
        let off = register_gating(&gt, cols, &leak, Retention::Off, pl).map_err(gating_err)?;
        let dro = register_gating(&gt, cols, &leak, Retention::Vccmin, pl).map_err(gating_err)?;
        let sub = subarray_gating(
            &gt,
            rows_per_subarray.max(1),
            cols,
            &leak,
            Retention::Off,
            pl,
        )
        .map_err(gating_err)?;
        let s = f64::from(slices);
        let logic = crate::energy::circuits::logic_tech(&tech)?;
        let ff = flipflop_array(
            &logic,
            &FlipFlopSpec {
                entries: 1,
                width_bits: 1,
                output_load: logic.cg(logic.wn() + logic.wp()),
            },
        )
        .map_err(|e| EnergyError::NoModel {
            component: "rf_banks".into(),
            message: format!("power-mode state control: {e}"),
        })?;
        Ok(RowDomains {
            row_on: off.active_leakage * s,
            row_off: off.gated_leakage * s,
            row_drowsy: dro.gated_leakage * s,
            row_wake_from_off: off.wakeup_energy * s,
            row_wake_from_drowsy: dro.wakeup_energy * s,
            subarray_on: sub.active_leakage * s,
            subarray_off: sub.gated_leakage * s,
            subarray_wake: sub.wakeup_energy * s,
            row_supply_switch_off: dro
                .supply_switch
                .map_or(Power::ZERO, |sw| sw.off_current * gt.vccmin)
                * s,
            row_gating_area: off.sleep_area * s,
            row_drowsy_area: dro.sleep_area * s,
            subarray_gating_area: sub.sleep_area * s,
            control_bit: ff.leakage + ff.gate_leakage,
            control_bit_area: ff.area,
        })
    }
}

impl RowDomains {
    /// A tri-modal row off: its V_dd header and its V_ccmin switch both off.
    pub fn tri_modal_off(&self) -> Power {
        self.row_off + self.row_supply_switch_off
    }
}

fn gating_err(e: regwatt_power::gating::GatingError) -> EnergyError {
    EnergyError::NoModel {
        component: "rf_banks".into(),
        message: format!("power gating model: {e}"),
    }
}

/// Energy of the cells in one state over a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateEnergy {
    /// State name (`on`, `off`, `awake`, `drowsy`).
    pub state: &'static str,
    /// Row-cycles (sub-array-cycles for sub-array gating) in the state.
    pub cycles: u64,
    /// Leakage energy of the cells in the state.
    #[serde(rename = "energy_j", serialize_with = "regwatt_tech::units::report::j")]
    pub energy: Energy,
}

/// Wake-ups of one kind over a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Wakeups {
    /// Kind (`off_to_on`, `drowsy_to_awake`).
    pub kind: &'static str,
    /// How many.
    pub count: u64,
    /// Their energy.
    #[serde(rename = "energy_j", serialize_with = "regwatt_tech::units::report::j")]
    pub energy: Energy,
}

/// The power mode's part of a run's energy and area (rf_banks' cells).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PowerManagement {
    /// The mode.
    pub mode: PowerMode,
    /// Drowsy timeout, cycles (drowsy and tri-modal).
    pub drowsy_timeout: u64,
    /// The cells in each state.
    pub states: Vec<StateEnergy>,
    /// The wake-ups.
    pub wakeups: Vec<Wakeups>,
    /// The cells' static energy always on, over the same cycles.
    #[serde(
        rename = "cells_always_on_j",
        serialize_with = "regwatt_tech::units::report::j"
    )]
    pub cells_always_on: Energy,
    /// The cells' static energy in this mode (states + wake-ups).
    #[serde(rename = "cells_j", serialize_with = "regwatt_tech::units::report::j")]
    pub cells: Energy,
    /// Leakage of the state control's flip-flops over the run ([`control_bits_per_row`];
    /// added to `rf_banks` with `cells_j`).
    #[serde(
        rename = "control_j",
        serialize_with = "regwatt_tech::units::report::j"
    )]
    pub control: Energy,
    /// The cells' static energy over the kernel-launch latency in this mode
    /// ([`launch_window`]; counted in `launch_latency.static_j`, not in `cells_j`). 0 with
    /// `power.idle_sm_gating` (no SM holds a CTA then: every SM is gated), as
    /// `launch_cells_always_on_j`.
    #[serde(
        rename = "launch_cells_j",
        serialize_with = "regwatt_tech::units::report::j"
    )]
    pub launch_cells: Energy,
    /// The same always on.
    #[serde(
        rename = "launch_cells_always_on_j",
        serialize_with = "regwatt_tech::units::report::j"
    )]
    pub launch_cells_always_on: Energy,
    /// Area the mode adds (headers of every row or sub-array, all SMs).
    #[serde(
        rename = "area_mm2",
        serialize_with = "regwatt_tech::units::report::mm2"
    )]
    pub area: Area,
    /// The state counts the energies come from.
    pub counts: PowerStateCycles,
    /// Per-state leakage and wake-up figures.
    pub domains: RowDomains,
}

/// The kernel-launch latency of a run: `cycles` in all, `per_launch` of them before each
/// launch (`gpu.kernel_launch_latency`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchWindow {
    /// Launch-latency cycles of the run.
    pub cycles: u64,
    /// Cycles before each launch.
    pub per_launch: u64,
}

/// The cells' static energy over the kernel-launch latency in `mode`, and always on. No
/// register is allocated or accessed while a launch waits, so every row is in the state the
/// mode gives an idle row: off under sub-array gating (every sub-array), register gating and
/// tri-modal; under drowsy, awake for `drowsy_timeout` cycles from the window's start (as the
/// tracker starts its count awake) and drowsy after, with a drowsy → awake wake-up per row at
/// the launch when the window outlasted the timeout. With a timeout past the window the
/// drowsy figure is the always-on one.
pub fn launch_window(
    mode: PowerMode,
    d: &RowDomains,
    c: &PowerStateCycles,
    w: LaunchWindow,
    core_clock_mhz: f64,
) -> (Energy, Energy) {
    let t = |cycles: u64| cycles as f64 / (core_clock_mhz * 1e6);
    let rows = c.rows as f64;
    let on = Energy::from_j(d.row_on.w() * rows * t(w.cycles));
    let control = Energy::from_j(
        d.control_bit.w()
            * f64::from(control_bits_per_row(mode, c.drowsy_timeout))
            * rows
            * t(w.cycles),
    );
    let in_mode = match mode {
        PowerMode::AlwaysOn => on,
        PowerMode::SubarrayGating => {
            Energy::from_j(d.subarray_off.w() * c.subarrays as f64 * t(w.cycles)) + control
        }
        PowerMode::RegisterGating => Energy::from_j(d.row_off.w() * rows * t(w.cycles)) + control,
        PowerMode::TriModal => Energy::from_j(d.tri_modal_off().w() * rows * t(w.cycles)) + control,
        PowerMode::Drowsy => {
            let launches = w.cycles.checked_div(w.per_launch).unwrap_or(0);
            let awake_each = c.drowsy_timeout.min(w.per_launch);
            if awake_each == w.per_launch {
                on
            } else {
                let awake = launches * awake_each;
                Energy::from_j(
                    rows * (d.row_on.w() * t(awake) + d.row_drowsy.w() * t(w.cycles - awake)),
                ) + d.row_wake_from_drowsy * (rows * launches as f64)
                    + control
            }
        }
    };
    (in_mode, on)
}

/// The mode's cells energy from the state counts (see the module docs).
pub fn evaluate(
    mode: PowerMode,
    d: &RowDomains,
    c: &PowerStateCycles,
    core_clock_mhz: f64,
) -> PowerManagement {
    let t = |cycles: u64| cycles as f64 / (core_clock_mhz * 1e6);
    let st = |state: &'static str, cycles: u64, p: Power| StateEnergy {
        state,
        cycles,
        energy: Energy::from_j(p.w() * t(cycles)),
    };
    let wk = |kind: &'static str, count: u64, e: Energy| Wakeups {
        kind,
        count,
        energy: e * count as f64,
    };
    let rest = |total: u64, part: u64| total.saturating_sub(part);
    let (states, wakeups, area) = match mode {
        PowerMode::AlwaysOn => (vec![st("on", c.row_cycles, d.row_on)], vec![], Area::ZERO),
        PowerMode::RegisterGating => (
            vec![
                st("on", c.register_on_cycles, d.row_on),
                st("off", rest(c.row_cycles, c.register_on_cycles), d.row_off),
            ],
            vec![wk("off_to_on", c.register_wakeups, d.row_wake_from_off)],
            d.row_gating_area * c.rows as f64,
        ),
        PowerMode::SubarrayGating => (
            vec![
                st("on", c.subarray_on_cycles, d.subarray_on),
                st(
                    "off",
                    rest(c.subarray_cycles, c.subarray_on_cycles),
                    d.subarray_off,
                ),
            ],
            vec![wk("off_to_on", c.subarray_wakeups, d.subarray_wake)],
            d.subarray_gating_area * c.subarrays as f64,
        ),
        PowerMode::Drowsy => (
            vec![
                st("awake", c.drowsy_awake_cycles, d.row_on),
                st(
                    "drowsy",
                    rest(c.row_cycles, c.drowsy_awake_cycles),
                    d.row_drowsy,
                ),
            ],
            vec![wk(
                "drowsy_to_awake",
                c.drowsy_wakeups,
                d.row_wake_from_drowsy,
            )],
            d.row_drowsy_area * c.rows as f64,
        ),
        PowerMode::TriModal => (
            vec![
                st("awake", c.tri_awake_cycles, d.row_on),
                st("drowsy", c.tri_drowsy_cycles, d.row_drowsy),
                st(
                    "off",
                    rest(c.row_cycles, c.tri_awake_cycles + c.tri_drowsy_cycles),
                    d.tri_modal_off(),
                ),
            ],
            vec![
                wk("off_to_on", c.tri_wakeups_from_off, d.row_wake_from_off),
                wk(
                    "drowsy_to_awake",
                    c.tri_wakeups_from_drowsy,
                    d.row_wake_from_drowsy,
                ),
            ],
            d.row_drowsy_area * c.rows as f64,
        ),
    };
    let cells: Energy = states.iter().map(|s| s.energy).sum::<Energy>()
        + wakeups.iter().map(|w| w.energy).sum::<Energy>();
    let bits = f64::from(control_bits_per_row(mode, c.drowsy_timeout));
    PowerManagement {
        mode,
        drowsy_timeout: c.drowsy_timeout,
        states,
        wakeups,
        cells_always_on: Energy::from_j(d.row_on.w() * t(c.row_cycles)),
        cells,
        control: Energy::from_j(d.control_bit.w() * bits * t(c.row_cycles)),
        launch_cells: Energy::ZERO,
        launch_cells_always_on: Energy::ZERO,
        area: area + d.control_bit_area * (bits * c.rows as f64),
        counts: c.clone(),
        domains: *d,
    }
}

/// Replaces the always-on static energy of `rf_banks`' cells in `energy` (evaluated always
/// on) by the mode's, and adds the mode's headers to its area. When the counts are the
/// always-on ones (a drowsy timeout longer than the run: every row awake, no wake-up) the
/// energy is left untouched, bit for bit; the headers are still there.
pub fn apply(pm: &PowerManagement, energy: &mut EnergySummary, area: &mut AreaSummary) {
    let always_on_counts = pm.wakeups.iter().all(|w| w.count == 0)
        && pm
            .states
            .iter()
            .all(|s| matches!(s.state, "on" | "awake") || s.cycles == 0);
    if !always_on_counts {
        replace_cells(energy, pm.cells + pm.control - pm.cells_always_on);
    }
    for c in energy
        .components
        .iter_mut()
        .filter(|c| c.name == "rf_banks")
    {
        c.area += pm.area;
    }
    if let Some(a) = area.components.get_mut("rf_banks") {
        *a += pm.area;
    }
    area.total = area.components.values().copied().sum();
}

/// [`apply`] for the energy over the kernel-launch latency (`idle`, evaluated always on):
/// the cells' always-on energy replaced by [`launch_window`]'s, untouched when they are equal.
pub fn apply_launch_window(pm: &PowerManagement, idle: &mut EnergySummary) {
    if pm.launch_cells != pm.launch_cells_always_on {
        replace_cells(idle, pm.launch_cells - pm.launch_cells_always_on);
    }
}

/// Adds `delta` to `rf_banks`' static energy and recomputes the totals.
fn replace_cells(energy: &mut EnergySummary, delta: Energy) {
    for c in energy
        .components
        .iter_mut()
        .filter(|c| c.name == "rf_banks")
    {
        c.static_energy += delta;
        c.total = c.dynamic + c.static_energy;
    }
    energy.static_energy = energy.components.iter().map(|c| c.static_energy).sum();
    energy.total = energy.dynamic + energy.static_energy;
    energy.average_power = if energy.time.s() > 0.0 {
        Power::from_w(energy.total.j() / energy.time.s())
    } else {
        Power::ZERO
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn domains() -> RowDomains {
        RowDomains {
            row_on: Power::from_uw(10.0),
            row_off: Power::from_uw(1.0),
            row_drowsy: Power::from_uw(3.0),
            row_wake_from_off: Energy::from_pj(2.0),
            row_wake_from_drowsy: Energy::from_pj(0.5),
            subarray_on: Power::from_uw(80.0),
            subarray_off: Power::from_uw(4.0),
            subarray_wake: Energy::from_pj(10.0),
            row_supply_switch_off: Power::from_uw(0.5),
            row_gating_area: Area::from_um2(1.0),
            row_drowsy_area: Area::from_um2(2.0),
            subarray_gating_area: Area::from_um2(5.0),
            control_bit: Power::from_uw(0.1),
            control_bit_area: Area::from_um2(0.5),
        }
    }

    /// The hand trace of `PowerStateCycles` (activity.rs, `hand_trace`): 2 rows, 1 sub-array,
    /// 20 cycles, drowsy timeout 3, every SM busy.
    fn hand_trace() -> PowerStateCycles {
        PowerStateCycles {
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
        }
    }

    /// The energies of the hand trace of `PowerStateCycles` (activity.rs,
    /// `hand_trace`: 2 rows, 1 sub-array, 20 cycles) by hand at 1000 MHz (1 ns per
    /// cycle), with round figures for the domains:
    /// * register gating: on 11 row-cycles × 10 µW = 110 fJ, off 29 × 1 µW = 29 fJ, 1 wake ×
    ///   2 pJ: 2.139 pJ;
    /// * sub-array gating: on 16 × 80 µW = 1.28 pJ, off 4 × 4 µW = 16 fJ, 1 wake × 10 pJ:
    ///   11.296 pJ;
    /// * drowsy: awake 14 × 10 µW = 140 fJ, drowsy 26 × 3 µW = 78 fJ, 2 wakes × 0.5 pJ:
    ///   1.218 pJ;
    /// * tri-modal: awake 13 × 10 = 130 fJ, drowsy 15 × 3 = 45 fJ, off 12 × (1 + 0.5) = 18 fJ
    ///   (header and V_ccmin switch both off), 2 wakes from off × 2 pJ, 1 from drowsy × 0.5 pJ:
    ///   4.693 pJ;
    /// * always on: 40 × 10 µW = 400 fJ.
    #[test]
    fn hand_trace_energies() {
        let c = hand_trace();
        let d = domains();
        let pj = |m: PowerMode| evaluate(m, &d, &c, 1000.0).cells.pj();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(pj(PowerMode::RegisterGating), 2.139));
        assert!(close(pj(PowerMode::SubarrayGating), 11.296));
        assert!(close(pj(PowerMode::Drowsy), 1.218));
        assert!(close(pj(PowerMode::TriModal), 4.693));
        assert!(close(pj(PowerMode::AlwaysOn), 0.4));
        let always = evaluate(PowerMode::Drowsy, &d, &c, 1000.0)
            .cells_always_on
            .pj();
        assert!(close(always, 0.4));
        // areas: tri-modal has drowsy's switches, 2 rows x 2 um2 (not the gating header on top),
        // plus its state control, 2 rows x 3 bits (drowsy bit + a counter to 3) x 0.5 um2;
        // 1 sub-array x 5 um2 plus 2 rows x 1 bit x 0.5 um2
        let area = |m: PowerMode| evaluate(m, &d, &c, 1000.0).area.um2();
        assert!((area(PowerMode::TriModal) - 7.0).abs() < 1e-12);
        assert_eq!(area(PowerMode::TriModal), area(PowerMode::Drowsy));
        assert!((area(PowerMode::RegisterGating) - 3.0).abs() < 1e-12);
        assert!(
            (evaluate(PowerMode::SubarrayGating, &d, &c, 1000.0)
                .area
                .um2()
                - 6.0)
                .abs()
                < 1e-12
        );
        // state control's leakage: 0.1 uW x bits per row x 40 row-cycles of 1 ns
        let control = |m: PowerMode| evaluate(m, &d, &c, 1000.0).control.pj();
        assert!(close(control(PowerMode::RegisterGating), 0.004));
        assert!(close(control(PowerMode::SubarrayGating), 0.004));
        assert!(close(control(PowerMode::Drowsy), 0.012));
        assert!(close(control(PowerMode::TriModal), 0.012));
        assert!(close(control(PowerMode::AlwaysOn), 0.0));
        assert_eq!(control_bits_per_row(PowerMode::Drowsy, 0), 1);
        assert_eq!(control_bits_per_row(PowerMode::Drowsy, 1), 2);
        assert_eq!(control_bits_per_row(PowerMode::TriModal, 1000), 11);
    }

    /// Idle-SM gating: the cells are charged their states over the SM's busy cycles only
    /// (`PowerStateCycles::busy`). The hand trace of [`hand_trace_energies`] with 4 of its 20
    /// cycles idle (8 row-cycles, 4 sub-array-cycles, 4 of the drowsy awake row-cycles), by
    /// hand at 1000 MHz:
    /// * register gating: on 11 × 10 µW = 110 fJ, off (32 − 11) × 1 µW = 21 fJ, 1 wake × 2 pJ:
    ///   2.131 pJ; its state control 1 bit × 32 row-cycles × 0.1 µW = 3.2 fJ;
    /// * sub-array gating: on 16 × 80 µW = 1.28 pJ, off 0, 1 wake × 10 pJ: 11.28 pJ;
    /// * drowsy: awake 10 × 10 µW = 100 fJ, drowsy 22 × 3 µW = 66 fJ, 2 wakes × 0.5 pJ:
    ///   1.166 pJ;
    /// * tri-modal: awake 13 × 10 = 130 fJ, drowsy 15 × 3 = 45 fJ, off 4 × 1.5 = 6 fJ, wakes
    ///   2 × 2 + 0.5 pJ: 4.681 pJ;
    /// * always on: 32 × 10 µW = 320 fJ.
    #[test]
    fn idle_sm_share_is_not_charged_in_any_mode() {
        let c = PowerStateCycles {
            sm_idle: Some(regwatt_sim::timing::activity::SmIdleCycles {
                row_cycles: 8,
                subarray_cycles: 4,
                drowsy_awake_cycles: 4,
                ..Default::default()
            }),
            ..hand_trace()
        };
        let d = domains();
        let busy = c.busy();
        let pm = |m: PowerMode| evaluate(m, &d, &busy, 1000.0);
        let close = |a: Energy, b: f64| (a.pj() - b).abs() < 1e-9;
        assert!(close(pm(PowerMode::RegisterGating).cells, 2.131));
        assert!(close(pm(PowerMode::RegisterGating).control, 0.0032));
        assert!(close(pm(PowerMode::SubarrayGating).cells, 11.28));
        assert!(close(pm(PowerMode::Drowsy).cells, 1.166));
        assert!(close(pm(PowerMode::TriModal).cells, 4.681));
        assert!(close(pm(PowerMode::AlwaysOn).cells, 0.32));
        assert!(close(pm(PowerMode::Drowsy).cells_always_on, 0.32));
        // the headers are the same hardware, gated or not
        for m in PowerMode::ALL {
            assert_eq!(pm(m).area, evaluate(m, &d, &c, 1000.0).area);
        }
    }

    /// The kernel-launch latency in a power mode, by hand at 1000 MHz: 2 rows, 1
    /// sub-array, 2 launches of 5 cycles (10 cycles), drowsy timeout 3.
    /// * always on: 2 rows × 10 cycles × 10 µW = 200 fJ;
    /// * sub-array gating: 1 × 10 × 4 µW = 40 fJ, register gating: 2 × 10 × 1 µW = 20 fJ, each
    ///   plus its state control, 2 rows × 1 bit × 10 × 0.1 µW = 2 fJ;
    /// * tri-modal: 2 × 10 × (1 + 0.5) µW = 30 fJ (both switches off) plus 2 rows × 3 bits
    ///   × 10 × 0.1 µW = 6 fJ;
    /// * drowsy: awake 2 launches × 3 cycles, drowsy 4: 2 rows × (6 × 10 + 4 × 3) fJ = 144 fJ,
    ///   plus 2 rows × 2 launches × 0.5 pJ of wake-ups and 6 fJ of control: 2.150 pJ; with a
    ///   timeout of 5 (the window) the always-on figure.
    #[test]
    fn launch_window_by_hand() {
        let mut c = PowerStateCycles {
            drowsy_timeout: 3,
            rows: 2,
            subarrays: 1,
            ..PowerStateCycles::default()
        };
        let d = domains();
        let w = LaunchWindow {
            cycles: 10,
            per_launch: 5,
        };
        let pj = |m: PowerMode, c: &PowerStateCycles| launch_window(m, &d, c, w, 1000.0);
        let close = |a: Energy, b: f64| (a.pj() - b).abs() < 1e-12;
        let (on, always) = pj(PowerMode::AlwaysOn, &c);
        assert!(close(on, 0.2) && close(always, 0.2));
        assert!(close(pj(PowerMode::SubarrayGating, &c).0, 0.042));
        assert!(close(pj(PowerMode::RegisterGating, &c).0, 0.022));
        assert!(close(pj(PowerMode::TriModal, &c).0, 0.036));
        assert!(close(pj(PowerMode::Drowsy, &c).0, 2.150));
        c.drowsy_timeout = 5;
        let (drowsy, always) = pj(PowerMode::Drowsy, &c);
        assert_eq!(drowsy, always);
        // no launch latency: nothing
        let none = launch_window(
            PowerMode::Drowsy,
            &d,
            &c,
            LaunchWindow {
                cycles: 0,
                per_launch: 0,
            },
            1000.0,
        );
        assert_eq!(none.0.j(), 0.0);
    }
}
