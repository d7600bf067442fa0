//! regwatt-designs: register-file designs, GPU presets and energy/area accounting — where the
//! timing simulator (`regwatt-sim`) and the power models (`regwatt-power`) meet.
//!
//! * [`config`]: GPU presets (`designs/presets/*.toml`) + overrides → [`config::ResolvedConfig`].
//! * [`registry`]: the [`registry::Design`] trait each design folder implements and the one
//!   list of designs ([`DesignSpec`]): [`baseline`], [`renaming`], [`malekeh`], [`sharing`],
//!   [`cerf`], [`lreg`], [`unified`].
//! * [`energy`]: hardware inventories and the energy/area accounting.
//! * [`beyond_rf`]: the GPU beyond the register file (L1D, shared memory, execution units, L2,
//!   interconnect, DRAM) for `--scope sm|gpu`.
//! * [`run`]: simulate a launch with a design, evaluate energy at a node, typed reports.
//!
//! See `designs/README.md`.

pub mod baseline;
pub mod beyond_rf;
pub mod cerf;
pub mod common;
pub mod config;
pub mod energy;
pub mod example_design;
pub mod exec_model;
pub mod lreg;
pub mod malekeh;
pub mod power_modes;
pub mod registry;
pub mod renaming;
pub mod reproduce;
pub mod run;
pub mod sharing;
#[cfg(test)]
pub(crate) mod test_support;
pub mod unified;

pub use config::{GpuPreset, Node, Overrides, ResolvedConfig, Scope};
pub use registry::{Design, DesignParams, DesignSpec, DesignStats};
pub use run::RunReport;
