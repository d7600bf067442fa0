//! Register renaming as a [`Design`]: the registry's entry point to this folder.

use regwatt_sim::timing::activity::{Activity, CoreActivity, MemActivity};
use regwatt_sim::timing::functional::FunctionalWarpModel;
use regwatt_sim::timing::{RunOptions, TimingError};

use super::{hardware, KernelPlan, RenamingParams, RenamingRf, RenamingStats};
use crate::config::ResolvedConfig;
use crate::energy::{EnergyError, EventCounts, Inventory};
use crate::registry::{Design, LaunchCarry, Parameters};

/// Registers renamed across warps with compiler release flags ([`crate::renaming`]).
pub struct Renaming;

impl Parameters for RenamingParams {
    fn validate(&self, _: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        RenamingParams::validate(self)
    }
}

impl Design for Renaming {
    type Params = RenamingParams;
    type Stats = RenamingStats;
    const NAME: &'static str = "renaming";
    const SUMMARY: &'static str = "registers renamed across warps with compiler release flags (Jeon & Annavaram, USC TR 2014)";
    const DEFAULTS: Option<(&'static str, &'static str)> = Some((
        "designs/src/renaming/defaults.toml",
        include_str!("defaults.toml"),
    ));
    const README: Option<(&'static str, &'static str)> =
        Some(("designs/src/renaming/README.md", include_str!("README.md")));

    fn simulate<F: FunctionalWarpModel>(
        cfg: &ResolvedConfig,
        p: &RenamingParams,
        model: &mut F,
        opts: &RunOptions,
        _: &mut LaunchCarry,
    ) -> Result<Activity<RenamingStats>, TimingError> {
        let plan = KernelPlan::for_launch(cfg, p, model);
        regwatt_sim::timing::run(&cfg.gpu, model, |_| RenamingRf::new(cfg, p, &plan), opts)
    }

    fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
        hardware::inventory(cfg)
    }

    fn events(
        cfg: &ResolvedConfig,
        core: &CoreActivity,
        _: &MemActivity,
        s: &RenamingStats,
    ) -> EventCounts {
        hardware::events(cfg, core, s)
    }

    fn unallocated_accesses(s: &RenamingStats) -> u64 {
        s.unallocated_accesses
    }
}
