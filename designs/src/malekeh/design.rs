//! Malekeh as a [`Design`]: the registry's entry point to this folder.

use std::cell::RefCell;
use std::rc::Rc;

use regwatt_sim::timing::activity::{Activity, CoreActivity, MemActivity};
use regwatt_sim::timing::functional::FunctionalWarpModel;
use regwatt_sim::timing::profile::ReuseProfile;
use regwatt_sim::timing::{RunOptions, TimingError};

use super::sthld::Sthld;
use super::{hardware, MalekehParams, MalekehRf, MalekehStats, ReuseHints};
use crate::config::ResolvedConfig;
use crate::energy::{EnergyError, EventCounts, Inventory};
use crate::registry::{Design, LaunchCarry, Parameters};

/// Caching collector units with compiler reuse hints ([`crate::malekeh`]).
pub struct Malekeh;

impl Parameters for MalekehParams {
    fn validate(&self, cfg: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        MalekehParams::validate(self, cfg)
    }
}

impl Design for Malekeh {
    type Params = MalekehParams;
    type Stats = MalekehStats;
    const NAME: &'static str = "malekeh";
    const SUMMARY: &'static str =
        "operand collectors turned into a register-file cache with compiler reuse hints (Malekeh)";
    const DEFAULTS: Option<(&'static str, &'static str)> = Some((
        "designs/src/malekeh/defaults.toml",
        include_str!("defaults.toml"),
    ));
    const README: Option<(&'static str, &'static str)> =
        Some(("designs/src/malekeh/README.md", include_str!("README.md")));

    fn simulate<F: FunctionalWarpModel>(
        cfg: &ResolvedConfig,
        p: &MalekehParams,
        model: &mut F,
        opts: &RunOptions,
        carry: &mut LaunchCarry,
    ) -> Result<Activity<MalekehStats>, TimingError> {
        // one STHLD controller for the whole GPU: the one the run's previous launch left
        // (§IV-B3 adapts across the application's phases; a launch does not reset it), or a
        // new one counting from the end of the first launch's latency
        let sthld =
            Rc::new(RefCell::new(carry.take::<Sthld>().unwrap_or_else(|| {
                Sthld::new(p, u64::from(cfg.gpu.kernel_launch_latency))
            })));
        // §III-A: profile the launch's first warps before the timed run (on a copy of its
        // memory: the run is the same with or without)
        let profile = match p.reuse_hints {
            ReuseHints::Static => None,
            // a model that cannot profile: every hint falls back to the static estimate
            // (counted as such)
            ReuseHints::Profile => Some(Rc::new(
                model
                    .profile_reuse(p.profile_warps, p.rthld)
                    .unwrap_or_else(|| ReuseProfile::new(p.rthld)),
            )),
        };
        let a = regwatt_sim::timing::run(
            &cfg.gpu,
            model,
            |sm| {
                let rf = MalekehRf::new(cfg, p, sm, sthld.clone());
                match &profile {
                    Some(pr) => rf.with_profile(pr.clone()),
                    None => rf,
                }
            },
            opts,
        )?;
        // the SMs' designs are gone with the run: the controller is the only holder left
        let mut next =
            Rc::try_unwrap(sthld).map_or_else(|rc| rc.borrow().clone(), RefCell::into_inner);
        next.end_launch(a.cycles);
        carry.put(next);
        Ok(a)
    }

    fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
        hardware::inventory(cfg)
    }

    fn events(
        cfg: &ResolvedConfig,
        core: &CoreActivity,
        _: &MemActivity,
        s: &MalekehStats,
    ) -> EventCounts {
        hardware::events(cfg, core, s)
    }

    fn unallocated_accesses(s: &MalekehStats) -> u64 {
        s.banks.unallocated_accesses
    }
}
