//! The integration tests of the `regwatt` binary and of the workspace's libraries working
//! together, one module per concern, in one test binary: the modules share one build and link
//! (CI's time budget) and the helpers in [`common`]. Run one module with
//! `cargo test --test suite <module>::`, e.g. `cargo test --test suite renaming::`.

mod common;

mod byok;
mod cacti_cfg_reference;
mod cerf;
mod default_size_fills_gpu;
mod designs_workloads;
mod exec_cli;
mod gating_props;
mod given_registers;
mod gpu_faults_cli;
mod heldout_kernels;
mod heldout_timed;
mod hostile_inputs;
mod idle_sm_gating;
mod input_mutations;
mod lreg;
mod malekeh;
mod own_kernel_in_studies;
mod power_modes;
mod refused_configs_and_specs;
mod renaming;
mod report_charts;
mod report_cli;
mod report_studies;
mod repository_hygiene;
mod reproduce;
mod run_cli;
mod scope_beyond_rf;
mod sharing;
mod sram_cli_cfg;
mod sram_estimate;
mod sweep_cli;
mod unified;
