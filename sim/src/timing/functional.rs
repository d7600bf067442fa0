//! The functional side of a timed run: what the timing core needs from a SIMT executor.
//!
//! The timing core drives a [`FunctionalWarpModel`]: it asks for the next instruction of a
//! warp (static facts: registers, unit class, PC), times its issue and operand collection,
//! then calls [`FunctionalWarpModel::step`] at dispatch with a [`WarpRegisters`] adapter that
//! serves the *collected* operand values and buffers the results until writeback. All the
//! coupling with the executor of `crate::exec` lives in this file (see the adapter notes in
//! `README.md`).
//!
//! [`SyntheticModel`] is a value-checking stand-in executor for tests: it walks straight-line
//! PTX, computes every destination as a hash of its sources (so a register file that loses or
//! mixes up a value changes the final checksum) and produces synthetic, fully coalesced
//! addresses.

use serde::Serialize;

use super::memory::CarriedCaches;
use super::profile::ReuseProfile;
use crate::analysis::{analyze, Analysis, ArchReg};
use crate::barrier::Arrival;
use crate::ir::{Function, Mods, Module, Opcode, Space, Ty};

/// A warp as the functional model names it: `cta * warps_per_cta + warp_in_cta`.
pub type WarpKey = u32;

/// Execution resource an instruction needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum UnitClass {
    /// FP32/FP16 pipeline.
    Sp,
    /// Integer pipeline (also moves, logic, comparisons, warp-level data exchange).
    Int,
    /// Special-function unit (transcendentals).
    Sfu,
    /// FP64 pipeline.
    Dp,
    /// Tensor cores.
    Tensor,
    /// Integer division / remainder (on the SFU).
    IntDiv,
    /// FP32 division (on the SFU).
    FpDiv,
    /// FP64 division (on the DP unit).
    DpDiv,
    /// Loads, stores, atomics (LD/ST unit).
    Mem,
    /// Branches, calls, returns.
    Branch,
    /// `bar.sync` and friends.
    Barrier,
    /// `exit` / `ret` of the kernel.
    Exit,
    /// No execution resource (fences, prefetches).
    Nop,
}

/// Up to 16 general registers of one instruction, inline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegList {
    regs: [u16; 16],
    len: u8,
}

impl RegList {
    /// Adds `r` unless already present. Returns false if the list is full.
    pub fn push(&mut self, r: u16) -> bool {
        if self.as_slice().contains(&r) {
            return true;
        }
        if usize::from(self.len) >= self.regs.len() {
            return false;
        }
        self.regs[usize::from(self.len)] = r;
        self.len += 1;
        true
    }
    pub fn as_slice(&self) -> &[u16] {
        &self.regs[..usize::from(self.len)]
    }
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The datapath operation an instruction performs for each active thread, for its energy
/// (`CoreActivity::thread_ops_by_kind`). Finer than [`UnitClass`]: a unit's operations cost
/// differently (an integer multiply-add costs about 30 integer adds, Horowitz, ISSCC 2014,
/// Fig. 1.1.9), and the timing model's classes follow issue ports, not datapaths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum OpKind {
    /// No execution datapath (memory, control, barriers, fences): charged elsewhere or not at all.
    None,
    /// 32-bit integer add, logic, shift, compare, move, select, conversion, bit manipulation.
    IntAlu,
    /// Integer multiply or multiply-add (`mul`, `mad`, `mul24`, `mad24`, `sad`, `dp4a`, `dp2a`).
    IntMul,
    /// FP16/BF16 scalar operation.
    Fp16,
    /// FP16x2/BF16x2 packed operation: two FP16 operations per thread.
    Fp16x2,
    /// FP32 add-class operation (add, sub, min, max, abs, neg, compare, conversion).
    Fp32Add,
    /// FP32 multiply.
    Fp32Mul,
    /// FP32 fused multiply-add (`fma`, `mad`).
    Fp32Fma,
    /// FP64 add-class operation (everything on the FP64 unit but multiplies and FMAs).
    Fp64Add,
    /// FP64 multiply.
    Fp64Mul,
    /// FP64 fused multiply-add.
    Fp64Fma,
    /// Special-function operation (transcendentals, reciprocal, square root).
    Sfu,
    /// Integer division or remainder (on the SFU).
    IntDiv,
    /// FP32 division (on the SFU).
    FpDiv,
    /// FP64 division, reciprocal or square root (on the FP64 unit).
    DpDiv,
    /// Tensor-core operation.
    Tensor,
}

/// Number of [`OpKind`] variants.
pub const N_OP_KINDS: usize = OpKind::Tensor as usize + 1;

/// Every [`OpKind`], in discriminant order.
pub const OP_KINDS: [OpKind; N_OP_KINDS] = [
    OpKind::None,
    OpKind::IntAlu,
    OpKind::IntMul,
    OpKind::Fp16,
    OpKind::Fp16x2,
    OpKind::Fp32Add,
    OpKind::Fp32Mul,
    OpKind::Fp32Fma,
    OpKind::Fp64Add,
    OpKind::Fp64Mul,
    OpKind::Fp64Fma,
    OpKind::Sfu,
    OpKind::IntDiv,
    OpKind::FpDiv,
    OpKind::DpDiv,
    OpKind::Tensor,
];

/// The [`OpKind`] of an IR instruction: its [`UnitClass`] refined by opcode and type (PTX ISA
/// §9.7.1 integer, §9.7.3-4 floating point).
pub fn op_kind(op: Opcode, ty: Ty) -> OpKind {
    use Opcode::*;
    match classify(op, ty) {
        UnitClass::Int => match op {
            Mul | Mad | Mul24 | Mad24 | Sad | Dp4a | Dp2a => OpKind::IntMul,
            _ => OpKind::IntAlu,
        },
        UnitClass::Sp => match ty {
            Ty::F16 | Ty::BF16 => OpKind::Fp16,
            Ty::F16x2 | Ty::BF16x2 => OpKind::Fp16x2,
            _ => match op {
                Fma | Mad => OpKind::Fp32Fma,
                Mul => OpKind::Fp32Mul,
                _ => OpKind::Fp32Add,
            },
        },
        UnitClass::Dp => match op {
            Fma | Mad => OpKind::Fp64Fma,
            Mul => OpKind::Fp64Mul,
            _ => OpKind::Fp64Add,
        },
        UnitClass::Sfu => OpKind::Sfu,
        UnitClass::IntDiv => OpKind::IntDiv,
        UnitClass::FpDiv => OpKind::FpDiv,
        UnitClass::DpDiv => OpKind::DpDiv,
        UnitClass::Tensor => OpKind::Tensor,
        UnitClass::Mem
        | UnitClass::Branch
        | UnitClass::Barrier
        | UnitClass::Exit
        | UnitClass::Nop => OpKind::None,
    }
}

/// Static facts about the next instruction of a warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstrInfo {
    /// Function index in the module (for release flags and reuse distances).
    pub func: u32,
    pub pc: u32,
    pub class: UnitClass,
    /// Datapath operation per active thread (energy only; timing follows `class`).
    pub kind: OpKind,
    /// General registers read (guard and address registers included).
    pub srcs: RegList,
    /// General registers written.
    pub dsts: RegList,
    /// Predicates read (bit `p` = `P<p>`).
    pub src_preds: u32,
    /// Predicates written.
    pub dst_preds: u32,
    /// Uniform registers read (bit `k` = `UR<k>`, sm_75's uniform file): the scoreboard
    /// tracks them like predicates; they are not register-file operands (`srcs`), so no
    /// design sees them.
    pub src_uniform: u64,
    /// Uniform registers written.
    pub dst_uniform: u64,
    /// 32-bit uniform-register reads of one execution (activity `uniform_reads`).
    pub uniform_reads: u8,
    /// 32-bit uniform-register writes of one execution (activity `uniform_writes`).
    pub uniform_writes: u8,
    /// Lanes that will execute.
    pub active_mask: u32,
    /// A memory instruction that must see memory itself: `.volatile`, a memory order
    /// (`.relaxed`/`.acquire`/…) or the `.cv` cache operator (PTX ISA §8, §9.7.9.1). A design
    /// must not serve such a load from a copy it holds (Jeon et al. 2019 §3).
    pub coherent: bool,
}

/// State space of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum MemSpaceKind {
    Global,
    Shared,
    Local,
    Param,
    Const,
}

/// Direction of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum MemOpKind {
    Load,
    Store,
    Atomic,
}

/// The per-lane addresses of one warp memory instruction, as executed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpMemAccess {
    pub space: MemSpaceKind,
    pub kind: MemOpKind,
    /// Bytes each lane accesses.
    pub bytes_per_lane: u32,
    /// Lanes that accessed memory.
    pub mask: u32,
    /// Address of each lane (undefined outside `mask`).
    pub addrs: [u64; 32],
}

impl Default for WarpMemAccess {
    /// An empty access (no lanes): the initial content of a step's memory buffer.
    fn default() -> Self {
        WarpMemAccess {
            space: MemSpaceKind::Global,
            kind: MemOpKind::Load,
            bytes_per_lane: 0,
            mask: 0,
            addrs: [0; 32],
        }
    }
}

/// What executing one instruction did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct StepInfo {
    pub active_mask: u32,
    /// The instruction accessed memory; its lanes' addresses are in the `mem` buffer handed
    /// to [`FunctionalWarpModel::step`] (written in place: no 256-byte address array is
    /// moved through return values per instruction).
    pub mem: bool,
    /// The warp arrived at a CTA barrier ([`Arrival::wait`]: it waits for the barrier to
    /// complete); the timing core counts it in its own [`crate::barrier::CtaBarriers`].
    pub barrier: Option<Arrival>,
    /// The warp has finished.
    pub exited: bool,
}

/// Register access of one warp during one `step` (the executor's `RegisterAccess` without the
/// warp argument: the adapter is bound to the stepping warp).
pub trait WarpRegisters {
    fn read(&mut self, reg: u16) -> [u32; 32];
    /// [`Self::read`] into `out` (the same read, counted the same way): lets an implementation
    /// copy the value straight into the executor's buffer instead of returning it by value
    /// through a dynamic call.
    fn read_into(&mut self, reg: u16, out: &mut [u32; 32]) {
        *out = self.read(reg);
    }
    fn write(&mut self, reg: u16, values: &[u32; 32], mask: u32);
    fn read_pred(&mut self, p: u16) -> u32;
    fn write_pred(&mut self, p: u16, bits: u32, mask: u32);
}

/// Shape and resources of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GridShape {
    pub ctas: u32,
    pub threads_per_cta: u32,
    /// CTA dimensions (x, y, z) in threads; thread `t` of a CTA has `threadIdx.x = t % x`,
    /// `threadIdx.y = (t / x) % y` (CUDA C++ Programming Guide, "Thread Hierarchy").
    pub block: [u32; 3],
    pub warps_per_cta: u32,
    /// Architectural registers per thread (allocator count, before rounding).
    pub regs_per_thread: u32,
    /// Predicate registers per thread.
    pub preds_per_thread: u32,
    /// Static + dynamic shared memory per CTA.
    pub shared_bytes_per_cta: u32,
}

/// A functional executor failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ModelError(pub String);

/// The functional executor as the timing core drives it.
pub trait FunctionalWarpModel {
    fn grid(&self) -> GridShape;
    /// Creates the warps of CTA `cta` (linear index), keys `cta * warps_per_cta + i`.
    fn start_cta(&mut self, cta: u32) -> Result<(), ModelError>;
    /// Drops the state of a finished CTA.
    fn finish_cta(&mut self, cta: u32);
    /// The instruction warp `warp` executes next; `None` once it has exited. For one
    /// (`func`, `pc`) every field but `active_mask` must be the same on every call: the core
    /// derives per-instruction tables from the first instance (debug builds check this).
    fn next_instr(&self, warp: WarpKey) -> Option<InstrInfo>;
    /// The (`func`, `pc`) of [`Self::next_instr`]'s instruction, `None` exactly when it is
    /// `None`: the core asks for the full facts only the first time it meets a (function, pc).
    /// Default: from `next_instr`; a model can answer without assembling the facts.
    fn next_pc(&self, warp: WarpKey) -> Option<(u32, u32)> {
        self.next_instr(warp).map(|i| (i.func, i.pc))
    }
    /// Executes that instruction. All register values go through `regs`; a memory access
    /// is written into `mem` (and `StepInfo::mem` set).
    fn step(
        &mut self,
        warp: WarpKey,
        regs: &mut dyn WarpRegisters,
        mem: &mut WarpMemAccess,
    ) -> Result<StepInfo, ModelError>;
    /// Analyses of the module's functions (index = function index) for release flags and
    /// reuse distances; `None` entries for declarations.
    fn analyses(&self) -> &[Option<Analysis>];
    /// If `pc` is the first instruction of a basic block of function `func`, its block index
    /// (for per-branch release lists, `Release::pbr`).
    fn block_start(&self, func: u32, pc: u32) -> Option<u32>;
    /// Global-memory ranges `(address, bytes)` the host wrote before the launch (`cudaMemcpy`
    /// of the launch spec's buffers). The memory model may start with them in the L2, as
    /// Accel-Sim does with `-gpgpu_perf_sim_memcpy 1`. Default: none.
    fn host_written(&self) -> Vec<(u64, u64)> {
        Vec::new()
    }
    /// Profiles the reuse distances of the launch's first `warps` warps (warp keys `0..`,
    /// CTAs in order) with near threshold `rthld` (Malekeh §III-A, see
    /// [`super::profile`]), executing them functionally **without changing** anything a
    /// later timed run sees (memory, CTAs, warps). `None`: the model cannot profile.
    /// Default: `None`.
    fn profile_reuse(&self, warps: u32, rthld: u32) -> Option<ReuseProfile> {
        let _ = (warps, rthld);
        None
    }
    /// Byte offset of instruction `pc` of function `func` in the module's code, where an
    /// instruction cache finds it (GPGPU-Sim `function_info::ptx_assemble`: 8 bytes per PTX
    /// instruction, `MAX_INST_SIZE`, the module's functions one after the other).
    /// Default: `8 × pc` (the function at offset 0).
    fn code_offset(&self, func: u32, pc: u32) -> u64 {
        let _ = func;
        u64::from(pc) * 8
    }
    /// The instruction and constant caches an earlier launch of the same spec left
    /// ([`super::memory::CarriedCaches`]), which [`super::run`] starts from and hands on.
    /// Default: none (every launch starts cold).
    fn carried_caches(&mut self) -> Option<&mut CarriedCaches> {
        None
    }
    /// Global memory's current contents, for a design that checks the lines it holds
    /// ([`super::rf::GlobalAccess::memory`]). Default: none.
    fn global_reader(&self) -> Option<&dyn super::rf::GlobalRead> {
        None
    }
    /// The `.pragma` strings of the launched kernel's body ([`crate::ir::Function::pragmas`]),
    /// for a design that reads annotations (Elango 2017's L-register directive). Default: none.
    fn kernel_pragmas(&self) -> &[String] {
        &[]
    }
}

/// Unit class of an IR instruction (PTX ISA §9.7; division placement as GPGPU-Sim: "All Div
/// operations are executed on SFU unit", except FP64 which runs on the DP unit).
pub fn classify(op: Opcode, ty: Ty) -> UnitClass {
    use Opcode::*;
    let f64_ = ty == Ty::F64;
    let fp = ty.is_float();
    match op {
        Ld | Ldu | St | Atom | Red | Prefetch | Prefetchu => match op {
            Prefetch | Prefetchu => UnitClass::Nop,
            _ => UnitClass::Mem,
        },
        Div | Rem if f64_ => UnitClass::DpDiv,
        Div if fp => UnitClass::FpDiv,
        Div | Rem => UnitClass::IntDiv,
        Rcp | Sqrt | Rsqrt if f64_ => UnitClass::DpDiv,
        Rcp | Sqrt | Rsqrt | Sin | Cos | Lg2 | Ex2 | Tanh => UnitClass::Sfu,
        Bra | Call | Brkpt | Trap => UnitClass::Branch,
        Ret | Exit => UnitClass::Exit,
        Bar | BarWarp => UnitClass::Barrier,
        Membar | Fence | Nanosleep | Pmevent => UnitClass::Nop,
        _ if f64_ => UnitClass::Dp,
        Add | Sub | Mul | Mad | Fma | Abs | Neg | Min | Max | Setp | Set | Testp | Copysign
            if fp =>
        {
            UnitClass::Sp
        }
        Cvt if fp => UnitClass::Sp,
        _ => UnitClass::Int,
    }
}

/// Splits analysis units of `pc` into general registers and a predicate mask.
fn arch_lists(a: &Analysis, units: &[u32]) -> Result<(RegList, u32), ModelError> {
    let mut regs = RegList::default();
    let mut preds = 0u32;
    for &u in units {
        match a.alloc.arch_of_unit(u) {
            ArchReg::R(r) => {
                if !regs.push(r) {
                    return Err(ModelError(
                        "more than 16 registers in one instruction".into(),
                    ));
                }
            }
            ArchReg::P(p) => {
                if p >= 32 {
                    return Err(ModelError(format!("predicate P{p} out of range (max P31)")));
                }
                preds |= 1 << p;
            }
            ArchReg::U(u) => {
                return Err(ModelError(format!("UR{u} is not a register-file unit")));
            }
        }
    }
    Ok((regs, preds))
}

/// Value-checking stand-in executor over straight-line PTX (see the module doc).
///
/// Semantics: every destination register lane gets `mix(pc, lane, sources)`; predicates get
/// bit 0 of another mix. Loads/stores access `base(pc) + (global warp × 32 + lane) × size`,
/// i.e. fully coalesced, distinct per warp. Unguarded `bra` jumps; a guarded `bra` is an error
/// (no real values to decide it). `bar` is a barrier, `ret`/`exit` end the warp.
pub struct SyntheticModel {
    func: Function,
    func_index: u32,
    analyses: Vec<Option<Analysis>>,
    infos: Vec<InstrInfo>,
    grid: GridShape,
    /// Per warp: current PC (`u32::MAX` = exited or not started) and checksum.
    pc: Vec<u32>,
    /// Fold of every value written, per warp, in program order.
    pub checksums: Vec<u64>,
}

fn mix(mut h: u64, v: u64) -> u64 {
    // SplitMix64 finaliser (Steele, Lea & Flood, OOPSLA 2014).
    h ^= v.wrapping_add(0x9E37_79B9_7F4A_7C15);
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

impl SyntheticModel {
    /// Builds the model for kernel `kernel` of `module`, launched with `ctas` CTAs of
    /// `threads_per_cta` threads.
    pub fn new(
        module: &Module,
        kernel: &str,
        ctas: u32,
        threads_per_cta: u32,
    ) -> Result<SyntheticModel, ModelError> {
        let func_index = module
            .function_index(kernel)
            .ok_or_else(|| ModelError(format!("kernel `{kernel}` not found")))?;
        let func = module
            .functions
            .get(func_index as usize)
            .cloned()
            .ok_or_else(|| ModelError(format!("kernel `{kernel}` not found")))?;
        if ctas == 0 || threads_per_cta == 0 || threads_per_cta > 1024 {
            return Err(ModelError(format!(
                "bad launch shape: {ctas} CTAs of {threads_per_cta} threads"
            )));
        }
        let a = analyze(&func);
        let mut infos = Vec::with_capacity(func.instrs.len());
        for (pc, ins) in func.instrs.iter().enumerate() {
            let (srcs, src_preds) = arch_lists(&a, &a.arch_ud.uses[pc])?;
            let (dsts, dst_preds) = arch_lists(&a, &a.arch_ud.defs[pc])?;
            infos.push(InstrInfo {
                func: func_index,
                pc: pc as u32,
                class: classify(ins.op, ins.ty),
                kind: op_kind(ins.op, ins.ty),
                srcs,
                dsts,
                src_preds,
                dst_preds,
                src_uniform: 0,
                dst_uniform: 0,
                uniform_reads: 0,
                uniform_writes: 0,
                active_mask: 0,
                coherent: ins.mods.has(Mods::VOLATILE | Mods::ORDERED | Mods::CV),
            });
        }
        let warps_per_cta = threads_per_cta.div_ceil(32);
        let grid = GridShape {
            ctas,
            threads_per_cta,
            block: [threads_per_cta, 1, 1],
            warps_per_cta,
            regs_per_thread: a.alloc.registers,
            preds_per_thread: a.alloc.predicates,
            shared_bytes_per_cta: func.shared_bytes(),
        };
        let mut analyses: Vec<Option<Analysis>> = vec![None; module.functions.len()];
        if let Some(s) = analyses.get_mut(func_index as usize) {
            *s = Some(a);
        }
        let n = (ctas * warps_per_cta) as usize;
        Ok(SyntheticModel {
            func,
            func_index,
            analyses,
            infos,
            grid,
            pc: vec![u32::MAX; n],
            checksums: vec![0; n],
        })
    }

    fn lane_mask(&self, warp: WarpKey) -> u32 {
        let w = warp % self.grid.warps_per_cta;
        let threads = self.grid.threads_per_cta - w * 32;
        if threads >= 32 {
            u32::MAX
        } else {
            (1u32 << threads) - 1
        }
    }

    /// Runs every warp to completion without timing, registers in a flat array. Returns the
    /// per-warp checksums a timed run must reproduce.
    pub fn run_untimed(&mut self) -> Result<Vec<u64>, ModelError> {
        struct Flat {
            r: Vec<[u32; 32]>,
            p: Vec<u32>,
        }
        impl WarpRegisters for Flat {
            fn read(&mut self, reg: u16) -> [u32; 32] {
                self.r.get(usize::from(reg)).copied().unwrap_or([0; 32])
            }
            fn write(&mut self, reg: u16, values: &[u32; 32], mask: u32) {
                if let Some(s) = self.r.get_mut(usize::from(reg)) {
                    for (l, (d, v)) in s.iter_mut().zip(values).enumerate() {
                        if mask >> l & 1 != 0 {
                            *d = *v;
                        }
                    }
                }
            }
            fn read_pred(&mut self, p: u16) -> u32 {
                self.p.get(usize::from(p)).copied().unwrap_or(0)
            }
            fn write_pred(&mut self, p: u16, bits: u32, mask: u32) {
                if let Some(s) = self.p.get_mut(usize::from(p)) {
                    *s = (*s & !mask) | (bits & mask);
                }
            }
        }
        let g = self.grid;
        for cta in 0..g.ctas {
            self.start_cta(cta)?;
            for w in 0..g.warps_per_cta {
                let key = cta * g.warps_per_cta + w;
                let mut regs = Flat {
                    r: vec![[0; 32]; g.regs_per_thread as usize],
                    p: vec![0; 32],
                };
                let mut guard = 0u64;
                let mut mem = WarpMemAccess::default();
                while self.next_instr(key).is_some() {
                    let s = self.step(key, &mut regs, &mut mem)?;
                    guard += 1;
                    if s.barrier.is_some() {
                        // straight-line code: barriers are no-ops for a lone warp
                    }
                    if guard > 10_000_000 {
                        return Err(ModelError("instruction limit".into()));
                    }
                }
            }
            self.finish_cta(cta);
        }
        Ok(self.checksums.clone())
    }
}

impl FunctionalWarpModel for SyntheticModel {
    fn grid(&self) -> GridShape {
        self.grid
    }

    fn start_cta(&mut self, cta: u32) -> Result<(), ModelError> {
        if cta >= self.grid.ctas {
            return Err(ModelError(format!("CTA {cta} out of range")));
        }
        for w in 0..self.grid.warps_per_cta {
            let k = (cta * self.grid.warps_per_cta + w) as usize;
            self.pc[k] = 0;
            self.checksums[k] = 0;
        }
        Ok(())
    }

    fn finish_cta(&mut self, _cta: u32) {}

    fn next_instr(&self, warp: WarpKey) -> Option<InstrInfo> {
        let pc = *self.pc.get(warp as usize)?;
        let mut i = *self.infos.get(pc as usize)?;
        i.active_mask = self.lane_mask(warp);
        Some(i)
    }

    fn step(
        &mut self,
        warp: WarpKey,
        regs: &mut dyn WarpRegisters,
        mem: &mut WarpMemAccess,
    ) -> Result<StepInfo, ModelError> {
        let w = warp as usize;
        let pc = *self
            .pc
            .get(w)
            .ok_or_else(|| ModelError(format!("warp {warp} out of range")))?;
        let info = *self
            .infos
            .get(pc as usize)
            .ok_or_else(|| ModelError(format!("warp {warp} has exited")))?;
        let ins = &self.func.instrs[pc as usize];
        let mask = self.lane_mask(warp);
        // read every source, hash per lane
        let mut lane_h = [mix(u64::from(pc), u64::from(self.func_index)); 32];
        for &r in info.srcs.as_slice() {
            let v = regs.read(r);
            for (h, x) in lane_h.iter_mut().zip(v) {
                *h = mix(*h, u64::from(x));
            }
        }
        for p in 0..32u16 {
            if info.src_preds >> p & 1 != 0 {
                let b = regs.read_pred(p);
                for (l, h) in lane_h.iter_mut().enumerate() {
                    *h = mix(*h, u64::from(b >> l & 1));
                }
            }
        }
        let mut cs = self.checksums[w];
        for (k, &r) in info.dsts.as_slice().iter().enumerate() {
            let v: [u32; 32] = std::array::from_fn(|l| mix(lane_h[l], k as u64) as u32);
            regs.write(r, &v, mask);
            for (l, x) in v.iter().enumerate() {
                if mask >> l & 1 != 0 {
                    cs = mix(cs, u64::from(*x));
                }
            }
        }
        for p in 0..32u16 {
            if info.dst_preds >> p & 1 != 0 {
                let bits = (0..32).fold(0u32, |acc, l| {
                    acc | (((mix(lane_h[l], 99 + u64::from(p)) & 1) as u32) << l)
                });
                regs.write_pred(p, bits, mask);
                cs = mix(cs, u64::from(bits & mask));
            }
        }
        self.checksums[w] = cs;
        let mut out = StepInfo {
            active_mask: mask,
            ..StepInfo::default()
        };
        let mut next = pc + 1;
        match info.class {
            UnitClass::Mem => {
                let space = match ins.space {
                    Space::Shared | Space::SharedCluster => MemSpaceKind::Shared,
                    Space::Local => MemSpaceKind::Local,
                    Space::Param => MemSpaceKind::Param,
                    Space::Const => MemSpaceKind::Const,
                    _ => MemSpaceKind::Global,
                };
                let kind = match ins.op {
                    Opcode::St => MemOpKind::Store,
                    Opcode::Atom | Opcode::Red => MemOpKind::Atomic,
                    _ => MemOpKind::Load,
                };
                let size = ins.ty.size().max(1) * u32::from(ins.vec.max(1));
                let base: u64 = match space {
                    MemSpaceKind::Shared => 0,
                    _ => 0x7f00_0000_0000 + u64::from(pc) * (1 << 24),
                };
                let gw = match space {
                    MemSpaceKind::Shared => u64::from(warp % self.grid.warps_per_cta),
                    _ => u64::from(warp),
                };
                let addrs: [u64; 32] =
                    std::array::from_fn(|l| base + (gw * 32 + l as u64) * u64::from(size));
                *mem = WarpMemAccess {
                    space,
                    kind,
                    bytes_per_lane: size,
                    mask,
                    addrs,
                };
                out.mem = true;
            }
            UnitClass::Branch if ins.op == Opcode::Bra => {
                if ins.guard.is_some() {
                    return Err(ModelError(format!(
                        "line {}: the synthetic model cannot evaluate a guarded branch",
                        ins.line
                    )));
                }
                next = ins.branch_target().unwrap_or(pc + 1);
            }
            UnitClass::Branch => {
                return Err(ModelError(format!(
                    "line {}: the synthetic model does not execute {:?}",
                    ins.line, ins.op
                )))
            }
            // every warp at barrier 0 (the synthetic model does not evaluate operands)
            UnitClass::Barrier => {
                out.barrier = (ins.op == Opcode::Bar).then_some(Arrival {
                    id: 0,
                    warps: 0,
                    wait: true,
                })
            }
            UnitClass::Exit => {
                out.exited = true;
                next = u32::MAX;
            }
            _ => {}
        }
        self.pc[w] = next;
        Ok(out)
    }

    fn analyses(&self) -> &[Option<Analysis>] {
        &self.analyses
    }

    fn block_start(&self, func: u32, pc: u32) -> Option<u32> {
        if func != self.func_index {
            return None;
        }
        let cfg = &self.func.cfg;
        let b = *cfg.block_of.get(pc as usize)?;
        (cfg.blocks.get(b as usize)?.start == pc).then_some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind from a PTX opcode and type by hand (PTX ISA §9.7).
    #[test]
    fn op_kinds_refine_unit_classes() {
        use Opcode::*;
        let cases = [
            (Add, Ty::S32, OpKind::IntAlu),
            (Shl, Ty::B32, OpKind::IntAlu),
            (Mov, Ty::U64, OpKind::IntAlu),
            (Mad, Ty::S32, OpKind::IntMul),
            (Mul24, Ty::U32, OpKind::IntMul),
            (Dp4a, Ty::S32, OpKind::IntMul),
            (Fma, Ty::F32, OpKind::Fp32Fma),
            (Mad, Ty::F32, OpKind::Fp32Fma),
            (Mul, Ty::F32, OpKind::Fp32Mul),
            (Add, Ty::F32, OpKind::Fp32Add),
            (Setp, Ty::F32, OpKind::Fp32Add),
            (Fma, Ty::F16, OpKind::Fp16),
            (Fma, Ty::F16x2, OpKind::Fp16x2),
            (Add, Ty::BF16x2, OpKind::Fp16x2),
            (Fma, Ty::F64, OpKind::Fp64Fma),
            (Mul, Ty::F64, OpKind::Fp64Mul),
            (Add, Ty::F64, OpKind::Fp64Add),
            (Div, Ty::F64, OpKind::DpDiv),
            (Div, Ty::F32, OpKind::FpDiv),
            (Rem, Ty::U32, OpKind::IntDiv),
            (Ex2, Ty::F32, OpKind::Sfu),
            (Ld, Ty::F32, OpKind::None),
            (Bra, Ty::None, OpKind::None),
        ];
        for (op, ty, kind) in cases {
            assert_eq!(op_kind(op, ty), kind, "{op:?}.{ty:?}");
        }
        for (i, k) in OP_KINDS.iter().enumerate() {
            assert_eq!(*k as usize, i);
        }
    }
}
