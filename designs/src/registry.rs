//! The register-file designs: the [`Design`] trait each design folder implements, and the one
//! list ([`designs!`] at the end of this file) that generates [`DesignSpec`],
//! [`DesignParams`], [`DesignStats`] and every dispatch over them.
//!
//! Adding a design is one folder `designs/src/<name>/` (its register file, its hardware
//! inventory, `defaults.toml` if it has parameters, a README) with one `impl Design`, plus one
//! line in the list below. Nothing else names designs: the CLI's help and errors, the report's
//! design list, the tests and the benches all read [`DesignSpec::ALL`] and the trait's
//! constants. [`crate::example_design`] (a test) adds one more design this way.

use std::fmt::Debug;

use regwatt_sim::timing::activity::{Activity, CoreActivity, MemActivity};
use regwatt_sim::timing::functional::FunctionalWarpModel;
use regwatt_sim::timing::rf::RfStats;
use regwatt_sim::timing::{RunOptions, TimingError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::config::{GpuPreset, ResolvedConfig};
use crate::energy::{EnergyError, EventCounts, Inventory};
use crate::power_modes::RowDomains;

/// A register-file design: what regwatt needs to simulate it and to cost its hardware.
///
/// The simulation side is the design's [`regwatt_sim::timing::rf::RegisterFileDesign`], one
/// instance per SM, which [`Design::simulate`] builds and runs through
/// [`regwatt_sim::timing::run`]; the energy side is its hardware [`Inventory`] at a node and
/// its statistics turned into events of that inventory.
pub trait Design {
    /// The design's `[design]` parameters ([`NoParams`] for a design without any).
    type Params: Parameters;
    /// The design's statistics (`activity.design_stats.<name>` in the run JSON).
    type Stats: RfStats + Clone + Debug + PartialEq + Serialize;

    /// Name on the command line, in reports and as `[design].name`.
    const NAME: &'static str;
    /// One line for `--help` and the report: what the design does and whose paper it is.
    const SUMMARY: &'static str;
    /// File name and text of the `[design]` defaults (`None` when `Params` is [`NoParams`]).
    const DEFAULTS: Option<(&'static str, &'static str)>;
    /// The design's README (path in the repository, text), embedded: `regwatt report` shows
    /// its "Seed versus regwatt" table. `None` for a design documented elsewhere.
    const README: Option<(&'static str, &'static str)>;
    /// Name prefixes of the components beyond the register file (`--scope sm|gpu`,
    /// [`crate::beyond_rf`]) that the design's own inventory replaces: they are dropped from
    /// the scope's inventory so that nothing is counted twice.
    const REPLACES: &'static [&'static str] = &[];

    /// Whether the design runs on the GPU preset `gpu` (`report` skips the pairs it does not
    /// support; `run` refuses them through [`Design::check_pipeline`]). Default: every preset.
    fn supports(_gpu: GpuPreset) -> bool {
        true
    }

    /// What the design needs of the pipeline (sub-cores, scheduler policy, L1D), checked
    /// when a configuration is resolved with the design: `Err((key, message))` names the
    /// configuration key that does not suit it. Default: nothing.
    fn check_pipeline(_cfg: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        Ok(())
    }

    /// Simulates one launch (the functional model `model`) on `cfg` with parameters `p`.
    /// `carry` holds what the design's hardware kept from the run's earlier launches (empty
    /// before the first); a design whose state a launch resets leaves it alone.
    fn simulate<F: FunctionalWarpModel>(
        cfg: &ResolvedConfig,
        p: &Self::Params,
        model: &mut F,
        opts: &RunOptions,
        carry: &mut LaunchCarry,
    ) -> Result<Activity<Self::Stats>, TimingError>;

    /// The design's hardware at `cfg.power.node`.
    fn inventory(cfg: &ResolvedConfig) -> Result<Inventory, EnergyError>;

    /// The power-managed domains of the design's register rows ([`crate::power_modes`]).
    /// Default: the baseline's rows (a design whose registers live in the baseline's banks).
    fn power_domains(cfg: &ResolvedConfig) -> Result<RowDomains, EnergyError> {
        crate::baseline::hardware::power_domains(cfg)
    }

    /// A run's activity as events of the design's inventory.
    fn events(
        cfg: &ResolvedConfig,
        core: &CoreActivity,
        memory: &MemActivity,
        stats: &Self::Stats,
    ) -> EventCounts;

    /// Accesses to registers a warp does not own (a design bug if non-zero).
    fn unallocated_accesses(stats: &Self::Stats) -> u64;
}

/// A design's `[design]` parameters.
pub trait Parameters: Sized + Clone + Debug + PartialEq + Serialize + DeserializeOwned {
    /// Range checks against the whole configuration: `Err((key, message))`.
    fn validate(&self, cfg: &ResolvedConfig) -> Result<(), (&'static str, String)>;

    /// The parameters of a configuration without a `[design]` table: `Some` only for a design
    /// without parameters ([`NoParams`]).
    fn without_table() -> Option<Self> {
        None
    }
}

/// The parameters of a design that has none: the configuration has no `[design]` table, and a
/// `[design]` table naming such a design is refused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NoParams;

impl<'de> Deserialize<'de> for NoParams {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Err(serde::de::Error::custom(
            "this design has no `[design]` parameters (remove the table)",
        ))
    }
}

impl Parameters for NoParams {
    fn validate(&self, _: &ResolvedConfig) -> Result<(), (&'static str, String)> {
        Ok(())
    }
    fn without_table() -> Option<Self> {
        Some(NoParams)
    }
}

/// What a design's hardware keeps from one launch of a run to the next. A kernel launch
/// starts every SM's register file empty, but not every controller: Malekeh's GPU-wide STHLD
/// (§IV-B3) adapts across the application's phases. One per run, empty before its first
/// launch; a design stores one value of its own type in it.
#[derive(Default)]
pub struct LaunchCarry(Option<Box<dyn std::any::Any>>);

impl LaunchCarry {
    /// The value the run's previous launch left, if it was a `T` (taking it out).
    pub fn take<T: 'static>(&mut self) -> Option<T> {
        self.0
            .take()
            .and_then(|b| b.downcast::<T>().ok())
            .map(|b| *b)
    }

    /// Leaves `value` for the run's next launch.
    pub fn put<T: 'static>(&mut self, value: T) {
        self.0 = Some(Box::new(value));
    }
}

/// Generates, from one list of `Variant => DesignType`:
/// * [`DesignSpec`] (a closed, ordered set of tags; `ALL` in report order), with the trait's
///   constants as methods and [`DesignSpec::visit`];
/// * [`DesignParams`] (the `[design]` table tagged by `name`) and its checks;
/// * [`DesignStats`] (statistics tagged by design) with merging and events;
/// * [`Registered`] for every listed design.
macro_rules! designs {
    ($( $(#[$doc:meta])* $variant:ident => $design:ty ),+ $(,)?) => {
        #[allow(unused_imports)]
        use ::regwatt_sim::timing::activity::{Activity, CoreActivity, MemActivity};
        use ::regwatt_sim::timing::functional::FunctionalWarpModel;
        use ::regwatt_sim::timing::rf::{RfError, RfStats};
        use ::regwatt_sim::timing::{RunOptions, TimingError};
        use ::serde::de::DeserializeOwned;
        use ::serde::{Deserialize, Serialize};
        use $crate::config::{GpuPreset, ResolvedConfig};
        use $crate::energy::{EnergyError, EventCounts, Inventory};
        use $crate::power_modes::RowDomains;
        use $crate::registry::{Design, Parameters};

/// A design in the registry: how its parameters and statistics sit in the tagged enums
/// (implemented by [`designs!`] for every listed design).
pub trait Registered: $crate::registry::Design {
    /// Its parameters, if `p` holds this design's.
    fn params_in(p: &DesignParams) -> Option<&Self::Params>;
    /// Its statistics, tagged.
    fn tag_stats(s: Self::Stats) -> DesignStats;
}

/// The parameters of design `D` in `cfg`: its `[design]` table, or none for a design without
/// parameters; an error for a configuration resolved without the design.
pub fn params<D: Registered>(cfg: &ResolvedConfig) -> Result<::std::borrow::Cow<'_, D::Params>, RfError> {
    // `cfg.design` holds the crate's registry's parameters; a registry of its own (a test's)
    // finds only designs without parameters there
    let table = cfg
        .design
        .as_ref()
        .and_then(|p| (p as &dyn ::std::any::Any).downcast_ref::<DesignParams>());
    if let Some(p) = table.and_then(D::params_in) {
        return Ok(::std::borrow::Cow::Borrowed(p));
    }
    match (&cfg.design, <D::Params as $crate::registry::Parameters>::without_table()) {
        (None, Some(p)) => Ok(::std::borrow::Cow::Owned(p)),
        _ => Err(RfError::Other(format!(
            "design `{}`: the configuration has no `[design]` table of this design (resolve it with the design)",
            D::NAME
        ))),
    }
}

/// The parameters of design `D` in `cfg` for its inventory, owned (an error names the
/// component that needs them).
pub fn inventory_params<D: Registered>(
    cfg: &ResolvedConfig,
    component: &str,
) -> Result<D::Params, EnergyError> {
    params::<D>(cfg)
        .map(::std::borrow::Cow::into_owned)
        .map_err(|e| EnergyError::NoModel {
            component: component.to_string(),
            message: e.to_string(),
        })
}

/// A computation generic over the design, run by [`DesignSpec::visit`] for one design.
pub trait DesignVisitor {
    type Out;
    fn visit<D: Registered>(self) -> Self::Out;
}

/// Activity of a run of any design.
pub type DesignActivity = Activity<DesignStats>;

/// Simulates one launch with design `D` and tags its statistics.
fn simulate_as<D: Registered, F: FunctionalWarpModel>(
    cfg: &ResolvedConfig,
    model: &mut F,
    opts: &RunOptions,
    carry: &mut $crate::registry::LaunchCarry,
) -> Result<DesignActivity, TimingError> {
    let p = params::<D>(cfg).map_err(TimingError::Rf)?;
    let a = D::simulate(cfg, &p, model, opts, carry)?;
    Ok(Activity {
        gpu: a.gpu,
        design: a.design,
        cycles: a.cycles,
        simulated_cycles: a.simulated_cycles,
        core: a.core,
        rf: a.rf,
        memory: a.memory,
        design_stats: D::tag_stats(a.design_stats),
    })
}

/// Simulates one launch (the functional model `model`) on `cfg` with `design`, as the first
/// (or only) launch of a run.
pub fn simulate<F: FunctionalWarpModel>(
    design: DesignSpec,
    cfg: &ResolvedConfig,
    model: &mut F,
    opts: &RunOptions,
) -> Result<DesignActivity, TimingError> {
    simulate_in_run(design, cfg, model, opts, &mut $crate::registry::LaunchCarry::default())
}

/// Simulates one launch of a run whose earlier launches left `carry` (one per run, passed to
/// every launch in order).
pub fn simulate_in_run<F: FunctionalWarpModel>(
    design: DesignSpec,
    cfg: &ResolvedConfig,
    model: &mut F,
    opts: &RunOptions,
    carry: &mut $crate::registry::LaunchCarry,
) -> Result<DesignActivity, TimingError> {
    struct Sim<'a, F> {
        cfg: &'a ResolvedConfig,
        model: &'a mut F,
        opts: &'a RunOptions,
        carry: &'a mut $crate::registry::LaunchCarry,
    }
    impl<F: FunctionalWarpModel> DesignVisitor for Sim<'_, F> {
        type Out = Result<DesignActivity, TimingError>;
        fn visit<D: Registered>(self) -> Self::Out {
            simulate_as::<D, F>(self.cfg, self.model, self.opts, self.carry)
        }
    }
    design.visit(Sim {
        cfg,
        model,
        opts,
        carry,
    })
}

/// The design's hardware at `cfg.power.node`.
pub fn inventory(design: DesignSpec, cfg: &ResolvedConfig) -> Result<Inventory, EnergyError> {
    struct Inv<'a>(&'a ResolvedConfig);
    impl DesignVisitor for Inv<'_> {
        type Out = Result<Inventory, EnergyError>;
        fn visit<D: Registered>(self) -> Self::Out {
            D::inventory(self.0)
        }
    }
    design.visit(Inv(cfg))
}

/// The power-managed domains of the design's register rows ([`crate::power_modes`]).
pub fn power_domains(design: DesignSpec, cfg: &ResolvedConfig) -> Result<RowDomains, EnergyError> {
    struct Dom<'a>(&'a ResolvedConfig);
    impl DesignVisitor for Dom<'_> {
        type Out = Result<RowDomains, EnergyError>;
        fn visit<D: Registered>(self) -> Self::Out {
            D::power_domains(self.0)
        }
    }
    design.visit(Dom(cfg))
}

/// Unknown design name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown design `{0}` (known: {known})", known = DesignSpec::names().join(", "))]
pub struct UnknownDesign(pub String);

impl DesignSpec {
    /// Every design's name, in report order.
    pub fn names() -> Vec<&'static str> {
        DesignSpec::ALL.iter().map(|d| d.name()).collect()
    }
}

impl std::fmt::Display for DesignSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DesignSpec {
    type Err = UnknownDesign;
    fn from_str(s: &str) -> Result<Self, UnknownDesign> {
        DesignSpec::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownDesign(s.to_string()))
    }
}

        /// A register-file design (generated by the registry, `designs/src/registry.rs`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum DesignSpec {
            $( $(#[$doc])* $variant, )+
        }

        impl DesignSpec {
            /// Every design, in report order.
            pub const ALL: [DesignSpec; [$(stringify!($variant)),+].len()] =
                [$(DesignSpec::$variant),+];

            /// Runs `v` with the design's type.
            pub fn visit<V: DesignVisitor>(self, v: V) -> V::Out {
                match self {
                    $( DesignSpec::$variant => v.visit::<$design>(), )+
                }
            }

            /// Name on the command line and in reports.
            pub fn name(self) -> &'static str {
                match self {
                    $( DesignSpec::$variant => <$design as Design>::NAME, )+
                }
            }

            /// One line: what the design does and whose paper it is.
            pub fn summary(self) -> &'static str {
                match self {
                    $( DesignSpec::$variant => <$design as Design>::SUMMARY, )+
                }
            }

            /// Whether the design can run on `gpu`.
            pub fn supports(self, gpu: GpuPreset) -> bool {
                match self {
                    $( DesignSpec::$variant => <$design as Design>::supports(gpu), )+
                }
            }

            /// File name and text of the design's `[design]` defaults (`None`: no parameters).
            pub fn defaults(self) -> Option<(&'static str, &'static str)> {
                match self {
                    $( DesignSpec::$variant => <$design as Design>::DEFAULTS, )+
                }
            }

            /// Components beyond the register file the design's inventory replaces
            /// ([`Design::REPLACES`]).
            pub fn replaces(self) -> &'static [&'static str] {
                match self {
                    $( DesignSpec::$variant => <$design as Design>::REPLACES, )+
                }
            }

            /// What the design needs of the pipeline ([`Design::check_pipeline`]).
            pub fn check_pipeline(
                self,
                cfg: &ResolvedConfig,
            ) -> Result<(), (&'static str, String)> {
                match self {
                    $( DesignSpec::$variant => <$design as Design>::check_pipeline(cfg), )+
                }
            }

            /// The design's README (path in the repository, text), embedded.
            pub fn readme(self) -> Option<(&'static str, &'static str)> {
                match self {
                    $( DesignSpec::$variant => <$design as Design>::README, )+
                }
            }
        }

        /// A design's `[design]` table, tagged by its `name` (the defaults of each design:
        /// `designs/src/<name>/defaults.toml`).
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "name", rename_all = "snake_case")]
        pub enum DesignParams {
            $( $variant(<$design as Design>::Params), )+
        }

        impl DesignParams {
            /// The design these parameters belong to.
            pub fn spec(&self) -> DesignSpec {
                match self {
                    $( DesignParams::$variant(_) => DesignSpec::$variant, )+
                }
            }

            /// Range checks against the configuration (`key`, message).
            pub fn validate(&self, cfg: &ResolvedConfig) -> Result<(), (&'static str, String)> {
                match self {
                    $( DesignParams::$variant(p) => Parameters::validate(p, cfg), )+
                }
            }

            /// The key inside the `[design]` table `t` that fails to deserialize, with the
            /// message: the table read as its design's own parameters (the tagged enum hides
            /// the inner path). `None` when the table reads, or names no known design.
            pub(crate) fn field_error(t: &toml::Value) -> Option<(String, String)> {
                fn inner<T: DeserializeOwned>(mut t: toml::Table) -> Option<(String, String)> {
                    t.remove("name");
                    let e = serde_path_to_error::deserialize::<_, T>(toml::Value::Table(t)).err()?;
                    let path = e.path().to_string();
                    Some((path, e.inner().message().trim().to_string()))
                }
                let t = t.as_table()?.clone();
                let name = t.get("name")?.as_str()?;
                $(
                    if name == <$design as Design>::NAME {
                        return inner::<<$design as Design>::Params>(t);
                    }
                )+
                None
            }
        }

        /// The design-specific statistics of a run, tagged by design.
        #[derive(Clone, Debug, PartialEq, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum DesignStats {
            $( $variant(<$design as Design>::Stats), )+
        }

        impl DesignStats {
            /// The design these statistics belong to.
            pub fn spec(&self) -> DesignSpec {
                match self {
                    $( DesignStats::$variant(_) => DesignSpec::$variant, )+
                }
            }

            /// Adds another launch's statistics of the same design. Launches of one run all
            /// use one design; statistics of another design are a caller's bug (checked in
            /// debug builds) and add nothing.
            pub fn merge(&mut self, o: &DesignStats) {
                debug_assert_eq!(self.spec(), o.spec(), "merging two designs' statistics");
                match self {
                    $(
                        DesignStats::$variant(a) => {
                            if let DesignStats::$variant(b) = o {
                                a.merge(b);
                            }
                        }
                    )+
                }
            }

            /// Accesses to registers a warp does not own (a design bug if non-zero).
            pub fn unallocated_accesses(&self) -> u64 {
                match self {
                    $( DesignStats::$variant(s) => <$design as Design>::unallocated_accesses(s), )+
                }
            }

            /// The run's activity as events of the design's inventory.
            pub fn events(
                &self,
                cfg: &ResolvedConfig,
                core: &CoreActivity,
                memory: &MemActivity,
            ) -> EventCounts {
                match self {
                    $( DesignStats::$variant(s) => <$design as Design>::events(cfg, core, memory, s), )+
                }
            }
        }

        $(
            impl Registered for $design {
                fn params_in(p: &DesignParams) -> Option<&Self::Params> {
                    if let DesignParams::$variant(x) = p {
                        Some(x)
                    } else {
                        None
                    }
                }
                fn tag_stats(s: Self::Stats) -> DesignStats {
                    DesignStats::$variant(s)
                }
            }
        )+
    };
}

// used by a test's registry (`crate::example_design`)
#[allow(unused_imports)]
pub(crate) use designs;

/// The designs, in report order: one line per design.
mod list {
    designs! {
        /// Statically allocated banked RF with operand collectors ([`crate::baseline`]).
        Baseline => crate::baseline::Baseline,
        /// Registers renamed across warps with compiler release flags ([`crate::renaming`]).
        Renaming => crate::renaming::Renaming,
        /// Caching collector units with compiler reuse hints ([`crate::malekeh`]).
        Malekeh => crate::malekeh::Malekeh,
        /// Renaming plus inter-warp sharing of loaded values through the register mapping
        /// ([`crate::sharing`]).
        Sharing => crate::sharing::Sharing,
        /// The register file and the L1D as one tagged, set-associative array ([`crate::cerf`]).
        Cerf => crate::cerf::Cerf,
        /// L-registers: convolution loads turned into shuffles from neighbouring lanes
        /// ([`crate::lreg`]).
        Lreg => crate::lreg::Lreg,
        /// The register file and the L1D in one array split at each launch, cerf's comparator
        /// ([`crate::unified`]).
        Unified => crate::unified::Unified,
    }
}

pub use list::{
    inventory, inventory_params, params, power_domains, simulate, simulate_in_run, DesignActivity,
    DesignParams, DesignSpec, DesignStats, DesignVisitor, Registered, UnknownDesign,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch takes what the run's previous launch left, once, and only as the type it was
    /// left as; a new run starts empty.
    #[test]
    fn launch_carry_hands_one_value_on() {
        let mut c = LaunchCarry::default();
        assert_eq!(c.take::<u32>(), None);
        c.put(7u32);
        assert_eq!(c.take::<u32>(), Some(7));
        assert_eq!(c.take::<u32>(), None);
        c.put(7u32);
        assert_eq!(c.take::<u64>(), None, "another type is not handed on");
        assert_eq!(c.take::<u32>(), None);
    }

    /// Every design's tag, `[design].name` and statistics key is its `NAME`, and names are
    /// unique: the generated enums and the trait agree.
    #[test]
    fn generated_names_agree_with_each_design() {
        let mut seen = std::collections::BTreeSet::new();
        for d in DesignSpec::ALL {
            assert!(seen.insert(d.name()), "{} listed twice", d.name());
            let tag = serde_json::to_value(d).expect("serialize");
            assert_eq!(tag.as_str(), Some(d.name()));
            assert_eq!(d.name().parse::<DesignSpec>(), Ok(d));
            assert!(!d.summary().is_empty());
            // a design with parameters has defaults, and one without has none
            if let Some((file, text)) = d.defaults() {
                let v: toml::Value = toml::from_str(text).expect(file);
                assert_eq!(
                    v.get("name").and_then(|n| n.as_str()),
                    Some(d.name()),
                    "{file}"
                );
            }
        }
        let e = "nope".parse::<DesignSpec>().unwrap_err().to_string();
        for d in DesignSpec::ALL {
            assert!(e.contains(d.name()), "{e}");
        }
    }

    /// A `[design]` table naming a design without parameters is refused with a message.
    #[test]
    fn design_without_parameters_refuses_a_table() {
        let t: toml::Value = toml::from_str("name = \"baseline\"").expect("toml");
        let e = t.try_into::<DesignParams>().unwrap_err().to_string();
        assert!(e.contains("no `[design]` parameters"), "{e}");
    }
}
