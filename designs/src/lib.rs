//! regwatt-designs: register-file designs, GPU presets and energy/area accounting — where the
//! timing simulator (`regwatt-sim`) and the power models (`regwatt-power`) meet.
//!
//! * [`config`]: GPU presets (`designs/presets/*.toml`) + overrides → [`config::ResolvedConfig`].
//! * [`spec`]: [`spec::DesignSpec`], the closed set of designs; one folder per design
//!   ([`baseline`], [`renaming`]).
//! * [`energy`]: hardware inventories and the energy/area accounting.
//! * [`gpu_side`]: the GPU beyond the register file (L1D, shared memory, execution units, L2,
//!   interconnect, DRAM) for `--scope sm|gpu`.
//! * [`run`]: simulate a launch with a design, evaluate energy at a node, typed reports.
//!
//! See `designs/README.md`.

pub mod baseline;
pub mod cerf;
pub mod config;
pub mod energy;
pub mod exec_model;
pub mod gpu_side;
pub mod lreg;
pub mod malekeh;
pub mod power_modes;
pub mod renaming;
pub mod run;
pub mod sharing;
pub mod spec;
#[cfg(test)]
pub(crate) mod test_support;

pub use config::{GpuPreset, Node, Overrides, ResolvedConfig, Scope};
pub use run::{DesignStats, RunReport};
pub use spec::DesignSpec;
