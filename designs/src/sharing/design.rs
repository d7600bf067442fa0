//! Inter-warp register sharing as a [`Design`]: the registry's entry point to this folder.

use std::cell::RefCell;
use std::rc::Rc;

use regwatt_sim::timing::activity::{Activity, CoreActivity, MemActivity};
use regwatt_sim::timing::functional::FunctionalWarpModel;
use regwatt_sim::timing::{RunOptions, TimingError};

use super::{hardware, plan, SharingParams, SharingRf, SharingStats};
use crate::common::StoreLog;
use crate::config::ResolvedConfig;
use crate::energy::{EnergyError, EventCounts, Inventory};
use crate::registry::{Design, LaunchCarry, Parameters};

/// Renaming plus inter-warp sharing of loaded values through the register mapping
/// ([`crate::sharing`]).
pub struct Sharing;

impl Parameters for SharingParams {
    fn validate(&self, _: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        SharingParams::validate(self)
    }
}

impl Design for Sharing {
    type Params = SharingParams;
    type Stats = SharingStats;
    const NAME: &'static str = "sharing";
    const SUMMARY: &'static str = "renaming plus warps sharing loaded values through the register mapping (Jeon et al., IEEE CAL 2019)";
    const DEFAULTS: Option<(&'static str, &'static str)> = Some((
        "designs/src/sharing/defaults.toml",
        include_str!("defaults.toml"),
    ));
    const README: Option<(&'static str, &'static str)> =
        Some(("designs/src/sharing/README.md", include_str!("README.md")));

    fn simulate<F: FunctionalWarpModel>(
        cfg: &ResolvedConfig,
        p: &SharingParams,
        model: &mut F,
        opts: &RunOptions,
        _: &mut LaunchCarry,
    ) -> Result<Activity<SharingStats>, TimingError> {
        let plan = plan(cfg, p, model);
        // every SM's stores reach every SM's address mapping table
        let log = Rc::new(RefCell::new(StoreLog::new(cfg.gpu.sms)));
        regwatt_sim::timing::run(
            &cfg.gpu,
            model,
            |sm| SharingRf::new(cfg, p, &plan, sm, log.clone()),
            opts,
        )
    }

    fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
        hardware::inventory(cfg)
    }

    fn events(
        cfg: &ResolvedConfig,
        core: &CoreActivity,
        _: &MemActivity,
        s: &SharingStats,
    ) -> EventCounts {
        hardware::events(cfg, core, s)
    }

    fn unallocated_accesses(s: &SharingStats) -> u64 {
        s.renaming.unallocated_accesses
    }
}
