//! The integration tests of the simulator crate (PTX front end, analyses, launch specs,
//! functional executor, timing model), one module per concern, in one test binary: the modules
//! share one build and link and the helpers in [`support`]. Run one module with
//! `cargo test -p regwatt-sim --test suite <module>::`.

mod support;

mod analysis_scaling;
mod exec_spec;
mod exec_workloads;
mod gpu_faults;
mod launch_spec;
mod mem_model;
mod param_inference;
mod ptx_check;
mod ptx_fuzz;
mod ptx_liveness;
mod ptx_parse;
mod ptx_regcount;
mod reuse_profile;
mod timing_core;
mod timing_exec;
mod timing_mem;
