//! One more design in two steps, compile-checked: the smallest design there is, a
//! pass-through register file (the baseline's banks under another name), and a registry that
//! lists it beside the baseline. The generated dispatch (`simulate`, `inventory`, parameters,
//! statistics, `DesignSpec::ALL`) then serves it like every listed design.
//!
//! A real design does the same in its own folder `designs/src/<name>/`: a `design.rs` with
//! the `impl Design` (as below), its register file (a
//! [`regwatt_sim::timing::rf::RegisterFileDesign`]), `hardware.rs` (inventory and events),
//! `defaults.toml` if it has parameters (a `Params` type that implements
//! [`crate::registry::Parameters`]), a README, and one line in the list at the end of
//! `designs/src/registry.rs`.

use regwatt_sim::timing::activity::{Activity, CoreActivity, MemActivity};
use regwatt_sim::timing::functional::FunctionalWarpModel;
use regwatt_sim::timing::{RunOptions, TimingError};

use crate::baseline::{hardware, BaselineRf, BaselineStats};
use crate::config::ResolvedConfig;
use crate::energy::{EnergyError, EventCounts, Inventory};
use crate::registry::{Design, LaunchCarry, NoParams};

/// Step 1: the design. It has no parameters, holds register values in the baseline's banks,
/// and costs the baseline's hardware.
pub struct PassThrough;

impl Design for PassThrough {
    type Params = NoParams;
    type Stats = BaselineStats;
    const NAME: &'static str = "pass_through";
    const SUMMARY: &'static str = "the baseline's banks under another name (an example)";
    const DEFAULTS: Option<(&'static str, &'static str)> = None;
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

/// Step 2: one line in a registry (here a registry of its own, beside the baseline).
#[cfg(test)]
// the test below uses part of what the registry generates
#[allow(dead_code)]
mod registry_with_it {
    crate::registry::designs! {
        /// The baseline.
        Baseline => crate::baseline::Baseline,
        /// The example.
        PassThrough => super::PassThrough,
    }
}

#[cfg(test)]
mod tests {
    use super::registry_with_it::{inventory, simulate, DesignSpec};
    use crate::config::{preset, GpuPreset};
    use regwatt_sim::timing::functional::SyntheticModel;
    use regwatt_sim::timing::RunOptions;

    /// A straight-line FMA kernel for the synthetic value-checking model.
    fn model() -> SyntheticModel {
        let mut s = String::from(
            ".version 7.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n.reg .f32 %f<16>;\n",
        );
        for i in 0..4 {
            s.push_str(&format!("mov.f32 %f{i}, 0f3F800000;\n"));
        }
        for i in 4..16 {
            s.push_str(&format!(
                "fma.rn.f32 %f{i}, %f{}, %f{}, %f{};\n",
                i - 1,
                i - 2,
                i - 3
            ));
        }
        s.push_str("ret;\n}\n");
        let m = regwatt_sim::ptx::parse("k.ptx", &s).expect("parses");
        SyntheticModel::new(&m, "k", 8, 64).expect("model")
    }

    /// The registry's one line is all the new design needs: it is listed, named, parsed, and
    /// simulated and costed through the generated dispatch, and as a pass-through it computes
    /// the right values with the baseline's cycles, statistics and hardware.
    #[test]
    fn one_registry_line_adds_a_design() {
        assert_eq!(
            DesignSpec::ALL,
            [DesignSpec::Baseline, DesignSpec::PassThrough]
        );
        assert_eq!("pass_through".parse(), Ok(DesignSpec::PassThrough));
        assert!(DesignSpec::PassThrough.supports(GpuPreset::Rtx2060));
        let cfg = preset(GpuPreset::Rtx2060).expect("preset");
        let opts = RunOptions::default();
        let untimed = model().run_untimed().expect("untimed");
        let mut runs = Vec::new();
        for d in DesignSpec::ALL {
            let mut m = model();
            let a = simulate(d, &cfg, &mut m, &opts).expect("simulates");
            assert_eq!(m.checksums, untimed, "{d}: register values lost");
            assert_eq!(a.design_stats.unallocated_accesses(), 0);
            assert_eq!(a.design_stats.spec(), d);
            let inv = inventory(d, &cfg).expect("inventory");
            runs.push((a.cycles, a.core.warp_instructions, inv.components.len()));
        }
        assert_eq!(runs[0], runs[1]);
        assert!(runs[0].0 > 0);
    }
}
