//! The cache-emulated register file as a [`Design`]: the registry's entry point to this
//! folder.

use std::cell::RefCell;
use std::rc::Rc;

use regwatt_sim::timing::activity::{Activity, CoreActivity, MemActivity};
use regwatt_sim::timing::functional::FunctionalWarpModel;
use regwatt_sim::timing::rf::RfError;
use regwatt_sim::timing::{RunOptions, TimingError};

use super::{hardware, CerfParams, CerfRf, CerfStats};
use crate::common::StoreLog;
use crate::config::{GpuPreset, ResolvedConfig};
use crate::energy::{EnergyError, EventCounts, Inventory};
use crate::registry::{Design, LaunchCarry, Parameters};

/// The register file and the L1D as one tagged, set-associative array ([`crate::cerf`]).
pub struct Cerf;

impl Parameters for CerfParams {
    fn validate(&self, cfg: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        CerfParams::validate(self, cfg)
    }
}

impl Design for Cerf {
    type Params = CerfParams;
    type Stats = CerfStats;
    const NAME: &'static str = "cerf";
    const SUMMARY: &'static str =
        "register file and L1D merged into one tagged array (Jing et al., 2016; gtx480 only)";
    const DEFAULTS: Option<(&'static str, &'static str)> = Some((
        "designs/src/cerf/defaults.toml",
        include_str!("defaults.toml"),
    ));
    const README: Option<(&'static str, &'static str)> =
        Some(("designs/src/cerf/README.md", include_str!("README.md")));
    const REPLACES: &'static [&'static str] = &["l1d_"];

    /// The merged array needs one register file per SM (Jing et al. 2016, Table I: a Fermi
    /// SM): the gtx480 preset.
    fn supports(gpu: GpuPreset) -> bool {
        gpu == GpuPreset::Gtx480
    }

    /// One register file per SM, merged with the SM's L1D (Jing et al. 2016, Table I).
    fn check_pipeline(cfg: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        crate::common::one_register_file_per_sm(
            cfg,
            "cerf",
            "merges one register file with the SM's L1D",
            "Table I",
        )
    }

    fn simulate<F: FunctionalWarpModel>(
        cfg: &ResolvedConfig,
        p: &CerfParams,
        model: &mut F,
        opts: &RunOptions,
        _: &mut LaunchCarry,
    ) -> Result<Activity<CerfStats>, TimingError> {
        // every SM's stores and atomics reach every SM's array
        let log = Rc::new(RefCell::new(StoreLog::new(cfg.gpu.sms)));
        let a = regwatt_sim::timing::run(
            &cfg.gpu,
            model,
            |sm| CerfRf::new(cfg, p, sm, log.clone()),
            opts,
        )?;
        // a lost store or a stale line fails the run like a wrong result
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
        memory: &MemActivity,
        s: &CerfStats,
    ) -> EventCounts {
        hardware::events(cfg, core, memory, s)
    }

    fn unallocated_accesses(s: &CerfStats) -> u64 {
        s.unallocated_accesses
    }
}
