//! Loading a PTX module for execution ([`Program`]), launching a kernel over a grid
//! ([`run_launch`]) and running a whole launch spec ([`run_spec`]).

use std::collections::BTreeMap;

use super::cta::CtaExec;
use super::error::ExecError;
use super::lower::{lower_function, ExecInstr, SymbolMap};
use super::regs::{FlatRegisterFile, RegisterAccess};
use crate::analysis::{self, AllocTarget};
use crate::ir::{CallTarget, Function, Instr, Module, Opcode, Space, Tuning, Ty};
use crate::launch::{HostData, LaunchSpec, ParamDesc};
use crate::mem::{self, ConstSpace, GlobalMemory, ParamSpace};

/// Where a kernel's register count comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RegisterSource {
    /// regwatt's ptxas-style estimate ([`crate::analysis::Allocation::registers`]).
    #[default]
    Estimated,
    /// The spec's `[registers]` table (e.g. `ptxas -v`'s count).
    Given,
}

impl RegisterSource {
    /// `estimated` or `given`, as in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            RegisterSource::Estimated => "estimated",
            RegisterSource::Given => "given",
        }
    }
}

/// A kernel in executor form.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    /// PTX file name (for messages).
    pub file: String,
    /// Lowered instructions; PCs index this.
    pub instrs: Vec<ExecInstr>,
    /// General registers per thread as ptxas would report them ([`Allocation::registers`]:
    /// the mapping plus ptxas's scheduling pressure); what occupancy and RF sizing use.
    ///
    /// [`Allocation::registers`]: crate::analysis::Allocation::registers
    pub gprs: u32,
    /// Registers the executor's mapping itself uses ([`Allocation::span`], <= `gprs`): a
    /// target with a lower per-thread limit than `gprs` can still run the kernel with
    /// `gprs.min(limit).max(span)` registers (ptxas backs off to the limit).
    ///
    /// [`Allocation::span`]: crate::analysis::Allocation::span
    pub span: u32,
    /// Whether `gprs` is regwatt's estimate or given by the spec's `[registers]` table.
    pub registers_source: RegisterSource,
    /// Predicate registers per thread.
    pub preds: u32,
    /// Uniform registers per warp ([`Allocation::uniform`]; 0 when the kernel was loaded for a
    /// target without a uniform file). Not part of `gprs` nor of occupancy.
    ///
    /// [`Allocation::uniform`]: crate::analysis::Allocation::uniform
    pub uregs: u32,
    /// The allocation target the kernel was lowered for.
    pub target: AllocTarget,
    /// Bytes of static shared memory; the dynamic area starts at `dynamic_offset`.
    pub static_shared: usize,
    pub dynamic_offset: u64,
    /// Per-thread `.local` bytes.
    pub local_bytes: usize,
    /// Kernel parameters: `(name, type, size, align)`.
    pub params: Vec<(String, Ty, u32, u32)>,
    /// The kernel's performance-tuning directives (`.maxntid`, `.reqntid`, ...), which bound
    /// the blocks it may be launched with ([`Kernel::check_block`]).
    pub tuning: Tuning,
}

impl Kernel {
    /// Refuses a block the kernel's directives exclude (PTX ISA §11.4, performance-tuning
    /// directives): more threads than `.maxntid` allows (§11.4.2: the maximum number of
    /// threads of a CTA, the product of the extents given), or other extents than `.reqntid`
    /// declares (§11.4.3: the CTA's extents; ptxas may compile `%ntid` to those constants).
    /// The ISA makes exceeding these limits a launch failure or runtime error; the message
    /// names the directive's line.
    pub fn check_block(&self, block: [u32; 3]) -> Result<(), ExecError> {
        let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
        let [x, y, z] = block;
        if let Some(m) = self.tuning.maxntid {
            let max: u64 = m.iter().map(|&d| u64::from(d)).product();
            if threads > max {
                return Err(ExecError::Setup(format!(
                    "{}:{}: kernel {}: block ({x}, {y}, {z}) has {threads} threads, more than \
                     the {max} its `.maxntid {}, {}, {}` allows (PTX ISA §11.4.2): the launch \
                     would fail on a GPU",
                    self.file, self.tuning.maxntid_line, self.name, m[0], m[1], m[2]
                )));
            }
        }
        if let Some(r) = self.tuning.reqntid {
            if r != block {
                return Err(ExecError::Setup(format!(
                    "{}:{}: kernel {}: block ({x}, {y}, {z}) differs from its `.reqntid {}, {}, \
                     {}` (PTX ISA §11.4.3: the block must have exactly these extents): the \
                     launch would fail on a GPU",
                    self.file, self.tuning.reqntid_line, self.name, r[0], r[1], r[2]
                )));
            }
        }
        Ok(())
    }

    /// Shared bytes of one CTA with `dynamic` bytes of dynamic shared memory.
    pub fn shared_bytes(&self, dynamic: u32) -> usize {
        (self.dynamic_offset as usize).max(self.static_shared) + dynamic as usize
    }

    /// Parameter descriptions for [`crate::launch::build_params`].
    pub fn param_descs(&self) -> Vec<ParamDesc<'_>> {
        self.params
            .iter()
            .map(|(n, t, s, a)| ParamDesc {
                name: n,
                ty: ty_name(*t),
                size: *s as usize,
                align: *a as usize,
            })
            .collect()
    }
}

/// The PTX spelling of a type (`.u32`).
pub fn ty_name(t: Ty) -> &'static str {
    match t {
        Ty::None => "",
        Ty::Pred => ".pred",
        Ty::B8 => ".b8",
        Ty::B16 => ".b16",
        Ty::B32 => ".b32",
        Ty::B64 => ".b64",
        Ty::B128 => ".b128",
        Ty::U8 => ".u8",
        Ty::U16 => ".u16",
        Ty::U32 => ".u32",
        Ty::U64 => ".u64",
        Ty::S8 => ".s8",
        Ty::S16 => ".s16",
        Ty::S32 => ".s32",
        Ty::S64 => ".s64",
        Ty::F16 => ".f16",
        Ty::F16x2 => ".f16x2",
        Ty::BF16 => ".bf16",
        Ty::BF16x2 => ".bf16x2",
        Ty::TF32 => ".tf32",
        Ty::F32 => ".f32",
        Ty::F64 => ".f64",
    }
}

/// Grid and block shape of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared_bytes: u32,
}

impl LaunchConfig {
    /// Threads per CTA.
    pub fn threads_per_cta(&self) -> u32 {
        self.block.iter().product()
    }

    /// CTAs in the grid.
    pub fn ctas(&self) -> u64 {
        self.grid.iter().map(|&g| u64::from(g)).product()
    }

    /// The `i`-th CTA id in launch order (x fastest, then y, then z).
    pub fn ctaid(&self, i: u64) -> [u32; 3] {
        let [gx, gy, _] = self.grid.map(u64::from);
        [
            (i % gx) as u32,
            ((i / gx) % gy) as u32,
            (i / (gx * gy)) as u32,
        ]
    }
}

/// A parsed and lowered PTX module: every kernel in executor form plus the constant bank.
/// Module-scope `.global` variables are allocated in the [`GlobalMemory`] passed to
/// [`Program::load`].
#[derive(Clone, Debug)]
pub struct Program {
    pub file: String,
    pub kernels: Vec<Kernel>,
    pub consts: ConstSpace,
}

impl Program {
    /// Parses `src` (named `file` in messages) and loads it with [`Program::load`].
    pub fn from_ptx(
        file: &str,
        src: &str,
        global: &mut GlobalMemory,
    ) -> Result<Program, ExecError> {
        let module = crate::ptx::parse(file, src)?;
        // a program is run for its kernels (a file without one is an error)
        crate::ptx::check::require_kernel(file, &module, src)?;
        Program::load(file, &module, global)
    }

    /// Lowers every kernel of `module` with the register allocation of
    /// [`analysis::analyze`] (no uniform register file); allocates module-scope `.global`
    /// variables in `global` (named after the variable) and `.const` variables in the
    /// constant bank.
    pub fn load(
        file: &str,
        module: &Module,
        global: &mut GlobalMemory,
    ) -> Result<Program, ExecError> {
        Program::load_for(file, module, global, AllocTarget::NO_UNIFORM)
    }

    /// [`Program::load`] with the register allocation for `target`
    /// ([`analysis::analyze_for`]): on a target with a uniform register file, warp-uniform
    /// values are held in the executor's per-warp uniform registers.
    pub fn load_for(
        file: &str,
        module: &Module,
        global: &mut GlobalMemory,
        target: AllocTarget,
    ) -> Result<Program, ExecError> {
        let mut consts = ConstSpace::new();
        let mut globals: Vec<Option<(mem::Space, u64)>> = vec![None; module.globals.len()];
        // module-scope shared variables: laid out per kernel below
        for (i, g) in module.globals.iter().enumerate() {
            match g.space {
                Space::Global => {
                    let a = match &g.init {
                        Some(b) => global.alloc_host(&g.name, &HostData::U8(b.clone()))?,
                        None => global.alloc(&g.name, g.size as usize)?,
                    };
                    globals[i] = Some((mem::Space::Global, a));
                }
                Space::Const => {
                    let init = g.init.clone().unwrap_or_else(|| vec![0; g.size as usize]);
                    let a = consts.add(&g.name, g.size as usize, g.align as usize, &init)?;
                    globals[i] = Some((mem::Space::Const, a));
                }
                _ => {}
            }
        }
        let mut kernels = Vec::new();
        for f in module.functions.iter().filter(|f| f.is_kernel && f.defined) {
            kernels.push(lower_kernel(file, module, f, &globals, target)?);
        }
        Ok(Program {
            file: file.to_string(),
            kernels,
            consts,
        })
    }

    /// Loads the module of `spec` for `target` as [`Program::load_for`] does, writes the
    /// spec's `[constants]` tables into the constant bank (as `cudaMemcpyToSymbol` before the
    /// first launch) and checks that every launch names one of its kernels.
    pub fn for_spec(
        spec: &LaunchSpec,
        module: &Module,
        global: &mut GlobalMemory,
        target: AllocTarget,
    ) -> Result<Program, ExecError> {
        let mut program = Program::load_for(&spec.ptx_path, module, global, target)?;
        spec.write_constants(&mut program.consts)?;
        let names: Vec<&str> = program.kernels.iter().map(|k| k.name.as_str()).collect();
        // the spec names its kernels: `check_kernels` says which launch (or `[registers]`
        // entry) asks for a missing one
        spec.check_kernels(&names)?;
        for k in &mut program.kernels {
            if let Some(n) = spec.given_registers(&k.name, k.span)? {
                k.gprs = n;
                k.registers_source = RegisterSource::Given;
            }
        }
        Ok(program)
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

fn lower_kernel(
    file: &str,
    module: &Module,
    f: &Function,
    globals: &[Option<(mem::Space, u64)>],
    target: AllocTarget,
) -> Result<Kernel, ExecError> {
    if let Some(ins) = f.instrs.iter().find(|i| i.op == Opcode::Call) {
        return Err(call_error(file, module, f, ins));
    }
    let a = analysis::analyze_for(f, target);
    // shared layout: module-scope .shared variables (all, declaration order), then the
    // kernel's function-scope ones; extern .shared arrays share the dynamic area
    let mut syms = SymbolMap {
        globals: globals.to_vec(),
        locals: vec![None; f.vars.len()],
    };
    let mut off: u64 = 0;
    let mut dyn_align: u64 = 16;
    let mut externs: Vec<(bool, usize)> = Vec::new();
    let place = |off: &mut u64, size: u32, align: u32| -> u64 {
        let al = u64::from(align.max(1));
        let at = off.div_ceil(al) * al;
        *off = at + u64::from(size);
        at
    };
    for (i, g) in module.globals.iter().enumerate() {
        if g.space == Space::Shared {
            if g.is_extern || g.size == 0 {
                dyn_align = dyn_align.max(u64::from(g.align));
                externs.push((true, i));
            } else {
                syms.globals[i] = Some((mem::Space::Shared, place(&mut off, g.size, g.align)));
            }
        }
    }
    let mut local_off: u64 = 0;
    for (i, v) in f.vars.iter().enumerate() {
        match v.space {
            Space::Shared if v.is_extern || v.size == 0 => {
                dyn_align = dyn_align.max(u64::from(v.align));
                externs.push((false, i));
            }
            Space::Shared => {
                syms.locals[i] = Some((mem::Space::Shared, place(&mut off, v.size, v.align)));
            }
            Space::Local => {
                syms.locals[i] = Some((mem::Space::Local, place(&mut local_off, v.size, v.align)));
            }
            _ => {}
        }
    }
    let dynamic_offset = off.div_ceil(dyn_align) * dyn_align;
    for (is_global, i) in externs {
        let s = Some((mem::Space::Shared, dynamic_offset));
        if is_global {
            syms.globals[i] = s;
        } else {
            syms.locals[i] = s;
        }
    }
    let instrs = lower_function(f, &a.alloc, &syms, file)?;
    Ok(Kernel {
        name: f.name.clone(),
        file: file.to_string(),
        instrs,
        gprs: a.alloc.registers,
        span: a.alloc.span,
        registers_source: RegisterSource::Estimated,
        preds: a.alloc.predicates,
        uregs: a.alloc.uniform,
        target,
        static_shared: off as usize,
        dynamic_offset,
        local_bytes: local_off as usize,
        params: f
            .params
            .iter()
            .map(|p| (p.name.clone(), p.ty, p.size, p.align))
            .collect(),
        tuning: f.tuning.clone(),
    })
}

/// The error for a `call` the parser could not inline (`ir::inline`): names the callee and why.
fn call_error(file: &str, module: &Module, f: &Function, ins: &Instr) -> ExecError {
    let what = match ins.call.as_ref().map(|c| (c.target, c.args.len())) {
        Some((CallTarget::Direct(g), nargs)) => match module.functions.get(g as usize) {
            Some(callee) if !callee.defined => format!(
                "call to `{}`, which has no body in this module (.extern .func / prototype only)",
                callee.name
            ),
            Some(callee) if crate::ir::inline::is_recursive(module, g) => format!(
                "recursive call to `{}`: regwatt executes .func calls by inlining them, and \
                 recursion (direct or indirect) cannot be inlined",
                callee.name
            ),
            Some(callee) => format!(
                "call to `{}` with {nargs} argument(s) does not match its {} parameter(s) and \
                 {} return value(s); it was not inlined",
                callee.name,
                callee.params.len(),
                callee.rets.len()
            ),
            None => "call to an unknown function".to_string(),
        },
        Some((CallTarget::Indirect(_), _)) => {
            "indirect call through a register (function pointer with a .callprototype) is not \
             supported: only direct calls to .func are (they are inlined)"
                .to_string()
        }
        None => "malformed call".to_string(),
    };
    ExecError::Unsupported {
        file: file.to_string(),
        line: ins.line,
        function: f.name.clone(),
        what,
    }
}

/// Default warp-instruction limit of a functional launch (`regwatt exec
/// --max-warp-instructions`): a runaway kernel stops within seconds. The executor runs
/// 12–14 M warp instructions/s on a spin loop on the 2-core development machine (one warp:
/// 12 M/s; 4096 CTAs of 1024 threads: 14 M/s), so 10^8 take 7–9 s. The largest
/// built-in workload needs under 10^7.
pub const DEFAULT_MAX_WARP_INSTRUCTIONS: u64 = 100_000_000;

/// Options of a functional run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Maximum warp instructions per launch before [`ExecError::InstructionLimit`].
    pub max_warp_instructions: u64,
    /// Instructions a warp runs before the CTA scheduler moves to the next warp (≥ 1).
    pub quantum: u32,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            max_warp_instructions: DEFAULT_MAX_WARP_INSTRUCTIONS,
            quantum: 64,
        }
    }
}

/// Statistics of one launch.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LaunchStats {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub ctas: u64,
    pub warps: u64,
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Thread instructions (active lanes of every issued warp instruction).
    pub thread_instructions: u64,
    /// Divergent branches executed.
    pub divergent_branches: u64,
    /// CTA barriers completed.
    pub barriers: u64,
    /// Architectural registers per thread (the allocation's count, or the spec's).
    pub registers: u32,
    /// Whether `registers` is regwatt's estimate or the spec's `[registers]` entry.
    pub registers_source: RegisterSource,
    /// Shared bytes per CTA.
    pub shared_bytes: u64,
}

/// Runs `kernel` over the whole grid functionally with a [`FlatRegisterFile`]: CTAs one after
/// another in launch order, the warps of a CTA round-robin (each for up to `opts.quantum`
/// instructions, or until it waits at a barrier or exits). `params` are the param-space bytes.
pub fn run_launch(
    program: &Program,
    kernel: &Kernel,
    launch: &LaunchConfig,
    params: &ParamSpace,
    global: &mut GlobalMemory,
    gridid: u64,
    opts: &RunOptions,
) -> Result<LaunchStats, ExecError> {
    let warps = launch.threads_per_cta().div_ceil(32) as usize;
    let mut regs = FlatRegisterFile::new(warps, kernel.gprs as usize, kernel.preds as usize);
    run_launch_with(
        program, kernel, launch, params, global, gridid, opts, &mut regs,
    )
}

/// [`run_launch`] with a caller-supplied register file (cleared before every CTA is *not*
/// done: registers are written before they are read in well-formed kernels).
#[allow(clippy::too_many_arguments)]
pub fn run_launch_with<R: RegisterAccess>(
    program: &Program,
    kernel: &Kernel,
    launch: &LaunchConfig,
    params: &ParamSpace,
    global: &mut GlobalMemory,
    gridid: u64,
    opts: &RunOptions,
    regs: &mut R,
) -> Result<LaunchStats, ExecError> {
    run_launch_watched(
        program,
        kernel,
        launch,
        params,
        global,
        gridid,
        opts,
        regs,
        &|_, _| {},
    )
}

/// Warp instructions between two calls of a run's progress callback.
pub const PROGRESS_EVERY: u64 = 1 << 22;

/// [`run_launch_with`] that calls `progress(kernel, warp instructions so far)` about every
/// [`PROGRESS_EVERY`] warp instructions (the CLI shows a long run's progress).
#[allow(clippy::too_many_arguments)]
pub fn run_launch_watched<R: RegisterAccess>(
    program: &Program,
    kernel: &Kernel,
    launch: &LaunchConfig,
    params: &ParamSpace,
    global: &mut GlobalMemory,
    gridid: u64,
    opts: &RunOptions,
    regs: &mut R,
    progress: &dyn Fn(&str, u64),
) -> Result<LaunchStats, ExecError> {
    let mut next_report = PROGRESS_EVERY;
    let threads = launch.threads_per_cta();
    if threads == 0 || launch.ctas() == 0 {
        return Err(ExecError::Setup(format!(
            "kernel {}: empty launch (grid {:?}, block {:?})",
            kernel.name, launch.grid, launch.block
        )));
    }
    if threads > 1024 {
        return Err(ExecError::Setup(format!(
            "kernel {}: {threads} threads per block exceed 1024",
            kernel.name
        )));
    }
    kernel.check_block(launch.block)?;
    let mut st = LaunchStats {
        kernel: kernel.name.clone(),
        grid: launch.grid,
        block: launch.block,
        ctas: launch.ctas(),
        registers: kernel.gprs,
        registers_source: kernel.registers_source,
        shared_bytes: kernel.shared_bytes(launch.dynamic_shared_bytes) as u64,
        ..LaunchStats::default()
    };
    let quantum = opts.quantum.max(1);
    for i in 0..launch.ctas() {
        let ctaid = launch.ctaid(i);
        let mut cta = CtaExec::new(kernel, launch, params, &program.consts, ctaid, 0, gridid);
        let nw = cta.num_warps();
        st.warps += nw as u64;
        while !cta.done() {
            let mut progressed = false;
            for w in 0..nw {
                let mut n = 0;
                while n < quantum && cta.next_instr(w).is_some() {
                    let info = cta.step(w, regs, global)?;
                    n += 1;
                    st.warp_instructions += 1;
                    st.thread_instructions += u64::from(info.active_mask.count_ones());
                    st.divergent_branches += u64::from(info.diverged);
                    if info.barrier == super::cta::BarrierEvent::Released {
                        st.barriers += 1;
                    }
                    if info.barrier != super::cta::BarrierEvent::None || info.warp_done {
                        break;
                    }
                }
                progressed |= n > 0;
            }
            if st.warp_instructions >= next_report {
                progress(&kernel.name, st.warp_instructions);
                next_report = st.warp_instructions + PROGRESS_EVERY;
            }
            if st.warp_instructions > opts.max_warp_instructions {
                return Err(ExecError::InstructionLimit {
                    kernel: kernel.name.clone(),
                    limit: opts.max_warp_instructions,
                });
            }
            if !progressed && !cta.done() {
                return Err(cta.stall_error());
            }
        }
    }
    Ok(st)
}

/// Result of [`run_spec`].
#[derive(Clone, Debug)]
pub struct SpecRun {
    /// Final contents of every spec buffer, by name.
    pub buffers: BTreeMap<String, HostData>,
    /// Per-launch statistics, in launch order.
    pub launches: Vec<LaunchStats>,
}

/// Runs every launch of `spec` in order on one global memory (buffers persist across
/// launches) and returns the final buffers. Arguments are converted with the spec's own
/// [`LaunchSpec::param_block`], so a mismatch names the parameter.
pub fn run_spec(spec: &LaunchSpec, opts: &RunOptions) -> Result<SpecRun, ExecError> {
    run_spec_watched(spec, opts, &|_, _| {})
}

/// [`run_spec`] with a progress callback (see [`run_launch_watched`]).
pub fn run_spec_watched(
    spec: &LaunchSpec,
    opts: &RunOptions,
    progress: &dyn Fn(&str, u64),
) -> Result<SpecRun, ExecError> {
    let mut global = GlobalMemory::new();
    global.alloc_spec_buffers(spec)?;
    let module = crate::ptx::parse(&spec.ptx_path, &spec.ptx_source)?;
    let program = Program::for_spec(spec, &module, &mut global, AllocTarget::NO_UNIFORM)?;
    let mut launches = Vec::new();
    for (i, l) in spec.launches.iter().enumerate() {
        let kernel = program
            .kernel(&l.kernel)
            .ok_or_else(|| ExecError::Setup(format!("no kernel {}", l.kernel)))?;
        let descs = kernel.param_descs();
        let pb = spec.param_block(i, &descs, &|n| global.address_of(n))?;
        let params = ParamSpace::new(pb.bytes);
        let cfg = LaunchConfig {
            grid: l.grid,
            block: l.block,
            dynamic_shared_bytes: l.dynamic_shared_bytes,
        };
        let warps = cfg.threads_per_cta().div_ceil(32) as usize;
        let mut regs = FlatRegisterFile::new(warps, kernel.gprs as usize, kernel.preds as usize);
        launches.push(run_launch_watched(
            &program,
            kernel,
            &cfg,
            &params,
            &mut global,
            i as u64,
            opts,
            &mut regs,
            progress,
        )?);
    }
    let buffers = spec
        .buffers
        .keys()
        .filter_map(|n| Some((n.clone(), global.take_back(n)?)))
        .collect();
    Ok(SpecRun { buffers, launches })
}
