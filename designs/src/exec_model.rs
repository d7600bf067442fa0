//! [`simulate_spec`]: every launch of a launch spec through the timing model with a design,
//! real values and real addresses. The executor-to-timing coupling itself is the sim crate's
//! [`regwatt_sim::timing::ExecModel`]; this module only adds the design choice and the energy
//! side's activity merging.

use std::collections::BTreeMap;

use regwatt_sim::exec::{ExecError, LaunchConfig, Program};
use regwatt_sim::launch::{HostData, LaunchSpec};
use regwatt_sim::mem::{GlobalMemory, ParamSpace};
use regwatt_sim::timing::functional::ModelError;
use regwatt_sim::timing::{ExecModel, RunOptions, TimingError};

use crate::config::ResolvedConfig;
use crate::run::{merge_activity, simulate, DesignActivity};
use crate::spec::DesignSpec;

/// Why a launch spec could not be simulated.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("{0}")]
    Exec(Box<ExecError>),
    #[error("{file}: {message}")]
    Setup { file: String, message: String },
    #[error("launch {index} ({kernel}): {source}")]
    Model {
        index: usize,
        kernel: String,
        #[source]
        source: ModelError,
    },
    #[error("launch {index} ({kernel}): {source}")]
    Timing {
        index: usize,
        kernel: String,
        #[source]
        source: Box<TimingError>,
    },
}

impl From<ExecError> for SimError {
    fn from(e: ExecError) -> Self {
        SimError::Exec(Box::new(e))
    }
}

/// Result of [`simulate_spec`].
#[derive(Clone, Debug)]
pub struct SpecSimulation {
    /// Activity of all launches, back to back.
    pub activity: DesignActivity,
    /// Final contents of every spec buffer.
    pub buffers: BTreeMap<String, HostData>,
    /// Of `activity.cycles`, the cycles of the launch latencies ([`launch_cycles`]).
    pub launch_cycles: u64,
}

/// Cycles of `spec`'s launches spent in the preset's launch latencies before any CTA runs:
/// per launch `kernel_launch_latency + cta_launch_latency × CTAs` (GPGPU-Sim
/// `-gpgpu_kernel_launch_latency`, `-gpgpu_TB_launch_latency`; the timing model counts them
/// in `cycles`, as GPGPU-Sim's `gpu_sim_cycle` does).
pub fn launch_cycles(spec: &LaunchSpec, cfg: &ResolvedConfig) -> u64 {
    spec.launches
        .iter()
        .map(|l| {
            let ctas: u64 = l.grid.iter().map(|&d| u64::from(d)).product();
            u64::from(cfg.gpu.kernel_launch_latency) + u64::from(cfg.gpu.cta_launch_latency) * ctas
        })
        .sum()
}

/// Runs every launch of `spec` in order through the timing model with `design` on `cfg`
/// (buffers persist across launches, as `regwatt exec`).
pub fn simulate_spec(
    spec: &LaunchSpec,
    design: DesignSpec,
    cfg: &ResolvedConfig,
    opts: &RunOptions,
) -> Result<SpecSimulation, SimError> {
    let (launches, buffers) = for_each_launch(spec, |model| simulate(design, cfg, model, opts))?;
    let mut total: Option<DesignActivity> = None;
    for a in launches {
        match &mut total {
            None => total = Some(a),
            Some(t) => merge_activity(t, &a),
        }
    }
    let activity = total.ok_or_else(|| SimError::Setup {
        file: spec.file.clone(),
        message: "the spec has no launches".into(),
    })?;
    Ok(SpecSimulation {
        activity,
        buffers,
        launch_cycles: launch_cycles(spec, cfg),
    })
}

/// Builds the functional model of every launch of `spec` in order (buffers persist across
/// launches, as `regwatt exec`) and hands it to `run_launch`, which times it (any design,
/// any [`regwatt_sim::timing::memory::MemoryTiming`]). Returns the per-launch results and the
/// final contents of every spec buffer.
pub fn for_each_launch<A>(
    spec: &LaunchSpec,
    mut run_launch: impl FnMut(&mut ExecModel<'_>) -> Result<A, TimingError>,
) -> Result<(Vec<A>, BTreeMap<String, HostData>), SimError> {
    let mut global = GlobalMemory::new();
    global.alloc_spec_buffers(spec).map_err(ExecError::from)?;
    let module =
        regwatt_sim::ptx::parse(&spec.ptx_path, &spec.ptx_source).map_err(ExecError::from)?;
    let program = Program::load(&spec.ptx_path, &module, &mut global)?;
    let names: Vec<&str> = program.kernels.iter().map(|k| k.name.as_str()).collect();
    spec.check_kernels(&names).map_err(ExecError::from)?;
    let mut out = Vec::with_capacity(spec.launches.len());
    for (i, l) in spec.launches.iter().enumerate() {
        let setup = |message: String| SimError::Setup {
            file: spec.file.clone(),
            message,
        };
        let kernel = program
            .kernel(&l.kernel)
            .ok_or_else(|| setup(format!("launch {i}: no kernel {}", l.kernel)))?;
        let func_index = module
            .function_index(&l.kernel)
            .ok_or_else(|| setup(format!("launch {i}: no function {}", l.kernel)))?;
        let descs = kernel.param_descs();
        let pb = spec
            .param_block(i, &descs, &|n| global.address_of(n))
            .map_err(ExecError::from)?;
        let params = ParamSpace::new(pb.bytes);
        let launch = LaunchConfig {
            grid: l.grid,
            block: l.block,
            dynamic_shared_bytes: l.dynamic_shared_bytes,
        };
        let func = module
            .functions
            .get(func_index as usize)
            .ok_or_else(|| setup(format!("launch {i}: no function {}", l.kernel)))?;
        let mut model = ExecModel::new(
            func,
            func_index,
            module.functions.len(),
            kernel,
            &launch,
            &params,
            &program.consts,
            &mut global,
            i as u64,
        )
        .map_err(|source| SimError::Model {
            index: i,
            kernel: l.kernel.clone(),
            source,
        })?;
        let a = run_launch(&mut model).map_err(|source| SimError::Timing {
            index: i,
            kernel: l.kernel.clone(),
            source: Box::new(source),
        })?;
        out.push(a);
    }
    let buffers = spec
        .buffers
        .keys()
        .filter_map(|n| Some((n.clone(), global.take_back(n)?)))
        .collect();
    Ok((out, buffers))
}
