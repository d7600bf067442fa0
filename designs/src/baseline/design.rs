//! The baseline as a [`Design`]: the registry's entry point to this folder.

use regwatt_sim::timing::activity::{Activity, CoreActivity, MemActivity};
use regwatt_sim::timing::functional::FunctionalWarpModel;
use regwatt_sim::timing::{RunOptions, TimingError};

use super::{hardware, BaselineRf, BaselineStats};
use crate::config::ResolvedConfig;
use crate::energy::{EnergyError, EventCounts, Inventory};
use crate::registry::{Design, LaunchCarry, NoParams};

/// The baseline banked register file ([`crate::baseline`]).
pub struct Baseline;

impl Design for Baseline {
    type Params = NoParams;
    type Stats = BaselineStats;
    const NAME: &'static str = "baseline";
    const SUMMARY: &'static str =
        "banked register file with operand collectors, as GPGPU-Sim and Accel-Sim model it";
    const DEFAULTS: Option<(&'static str, &'static str)> = None;
    // documented in designs/README.md
    const README: Option<(&'static str, &'static str)> = None;

    fn simulate<F: FunctionalWarpModel>(
        cfg: &ResolvedConfig,
        _: &NoParams,
        model: &mut F,
        opts: &RunOptions,
        _: &mut LaunchCarry,
    ) -> Result<Activity<BaselineStats>, TimingError> {
        regwatt_sim::timing::run(&cfg.gpu, model, |_| BaselineRf::new(cfg), opts)
    }

    fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
        hardware::inventory(cfg)
    }

    fn events(
        cfg: &ResolvedConfig,
        core: &CoreActivity,
        _: &MemActivity,
        s: &BaselineStats,
    ) -> EventCounts {
        hardware::events(cfg, core, s)
    }

    fn unallocated_accesses(s: &BaselineStats) -> u64 {
        s.unallocated_accesses
    }
}
