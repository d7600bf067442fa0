//! L-registers as a [`Design`]: the registry's entry point to this folder.

use regwatt_sim::timing::activity::{Activity, CoreActivity, MemActivity};
use regwatt_sim::timing::functional::FunctionalWarpModel;
use regwatt_sim::timing::rf::RfError;
use regwatt_sim::timing::{RunOptions, TimingError};

use super::{hardware, LregParams, LregPlan, LregRf, LregStats};
use crate::config::ResolvedConfig;
use crate::energy::{EnergyError, EventCounts, Inventory};
use crate::registry::{Design, LaunchCarry, Parameters};

/// L-registers: convolution loads turned into shuffles from neighbouring lanes
/// ([`crate::lreg`]).
pub struct Lreg;

impl Parameters for LregParams {
    fn validate(&self, _: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        LregParams::validate(self)
    }
}

impl Design for Lreg {
    type Params = LregParams;
    type Stats = LregStats;
    const NAME: &'static str = "lreg";
    const SUMMARY: &'static str = "L-registers: convolution loads served by shuffles from neighbouring lanes (Elango, MS thesis 2017)";
    const DEFAULTS: Option<(&'static str, &'static str)> = Some((
        "designs/src/lreg/defaults.toml",
        include_str!("defaults.toml"),
    ));
    const README: Option<(&'static str, &'static str)> =
        Some(("designs/src/lreg/README.md", include_str!("README.md")));

    fn simulate<F: FunctionalWarpModel>(
        cfg: &ResolvedConfig,
        p: &LregParams,
        model: &mut F,
        opts: &RunOptions,
        _: &mut LaunchCarry,
    ) -> Result<Activity<LregStats>, TimingError> {
        let plan = LregPlan::for_launch(model)
            .map_err(|e| TimingError::Rf(RfError::Other(format!("design `lreg`: {e}"))))?;
        let a = regwatt_sim::timing::run(&cfg.gpu, model, |_| LregRf::new(cfg, p, &plan), opts)?;
        // a shuffled value that memory does not hold fails the run like a wrong result
        a.design_stats
            .integrity()
            .map_err(|m| TimingError::Rf(RfError::Other(m)))?;
        Ok(a)
    }

    fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
        hardware::inventory(cfg)
    }

    fn events(
        cfg: &ResolvedConfig,
        core: &CoreActivity,
        _: &MemActivity,
        s: &LregStats,
    ) -> EventCounts {
        hardware::events(cfg, core, s)
    }

    fn unallocated_accesses(s: &LregStats) -> u64 {
        s.banks.unallocated_accesses
    }
}
