//! The unified RF/L1D array as a [`Design`]: the registry's entry point to this folder.

use regwatt_sim::timing::activity::{Activity, CoreActivity, MemActivity};
use regwatt_sim::timing::functional::FunctionalWarpModel;
use regwatt_sim::timing::{RunOptions, TimingError};

use super::{hardware, partition, rows_per_way, UnifiedRf, UnifiedStats};
use crate::config::{GpuPreset, ResolvedConfig};
use crate::energy::{EnergyError, EventCounts, Inventory};
use crate::registry::{Design, LaunchCarry, NoParams};

/// The register file and the L1D as one array split at each launch ([`crate::unified`]).
pub struct Unified;

impl Design for Unified {
    type Params = NoParams;
    type Stats = UnifiedStats;
    const NAME: &'static str = "unified";
    const SUMMARY: &'static str = "register file and L1D in one array split at each launch (Gebhart et al., 2012, as cerf's comparator; gtx480 only)";
    const DEFAULTS: Option<(&'static str, &'static str)> = None;
    const README: Option<(&'static str, &'static str)> =
        Some(("designs/src/unified/README.md", include_str!("README.md")));
    const REPLACES: &'static [&'static str] = &["l1d_"];

    /// The comparator of Jing et al. 2016 (Fig. 10): a Fermi SM's 128 KB RF with its L1D, the
    /// gtx480 preset, as cerf.
    fn supports(gpu: GpuPreset) -> bool {
        gpu == GpuPreset::Gtx480
    }

    /// One register file per SM holding the SM's L1D in whole ways of its rows.
    fn check_pipeline(cfg: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        crate::common::one_register_file_per_sm(
            cfg,
            "unified",
            "holds the SM's L1D in its one register file",
            "§V-A",
        )?;
        let l1 = &cfg.gpu.memory.l1d;
        if l1.sector_bytes != l1.line_bytes {
            return Err((
                "memory.l1d.sector_bytes",
                format!(
                    "`unified` keeps whole L1D lines in register rows; the L1D has {} B sectors in {} B lines",
                    l1.sector_bytes, l1.line_bytes
                ),
            ));
        }
        if rows_per_way(cfg).is_none() {
            return Err((
                "memory.l1d.sets",
                format!(
                    "`unified` needs an L1D way ({} sets x {} B) to fill whole rows of the {} register banks (128 B each)",
                    l1.sets, l1.line_bytes, cfg.gpu.sm.register_file.banks_per_sub_core
                ),
            ));
        }
        Ok(())
    }

    fn simulate<F: FunctionalWarpModel>(
        cfg: &ResolvedConfig,
        _: &NoParams,
        model: &mut F,
        opts: &RunOptions,
        _: &mut LaunchCarry,
    ) -> Result<Activity<UnifiedStats>, TimingError> {
        let p = partition(cfg, &model.grid());
        // the launch's L1D: the ways the split left (at least one way is built, and bypassed
        // by every access, when none is left)
        let mut gpu = cfg.gpu.clone();
        gpu.memory.l1d.ways = p.ways.max(1);
        regwatt_sim::timing::run(&gpu, model, |_| UnifiedRf::new(cfg, &p), opts)
    }

    fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
        hardware::inventory(cfg)
    }

    fn events(
        cfg: &ResolvedConfig,
        core: &CoreActivity,
        memory: &MemActivity,
        s: &UnifiedStats,
    ) -> EventCounts {
        hardware::events(cfg, core, memory, s)
    }

    fn unallocated_accesses(s: &UnifiedStats) -> u64 {
        s.registers.unallocated_accesses
    }
}
