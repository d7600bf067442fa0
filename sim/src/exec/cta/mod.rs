//! One CTA in execution: warps with SIMT reconvergence stacks, shared and local memory, the
//! CTA barrier, and [`CtaExec::step`], which executes one warp instruction.
//!
//! SIMT reconvergence follows the immediate-post-dominator stack of Fung et al. (MICRO 2007):
//! each warp keeps a stack of `(pc, reconvergence pc, lane mask)` entries; the top entry
//! executes; a divergent branch turns the top entry into the reconvergence entry and pushes the
//! not-taken and taken paths; an entry is popped when its PC reaches its reconvergence PC.
//!
//! Files: this one holds the public types, [`CtaExec`] with its construction, accessors,
//! uniform register file and error helpers, and the step: [`CtaExec::step`] and its timed
//! form, and the dispatch of one instruction by opcode (`step_body`); `operands.rs` reads
//! and writes register, immediate, uniform and special-register operands; `arith.rs` the
//! ALU instructions (the general per-lane path, the whole-warp kernels, `setp`/`set`,
//! vector `mov`); `memory.rs` `ld`/`st`/`atom`/`red` with their address and fast paths;
//! `control.rs` the SIMT stack and the CTA barriers; `warp_ops.rs` `shfl`, `vote`,
//! `activemask`, `match` and `redux`.

use super::error::{ExecError, ThreadId};
use super::lower::{ExecInstr, FastOp, OpClass, RegList, XOp, NO_RECONV};
use super::program::{Kernel, LaunchConfig};
use super::regs::{ArchReg, RegisterAccess, WarpId};
use crate::barrier::{Arrival, CtaBarriers, BARRIERS};
use crate::ir::{AtomOp, Mode, Opcode};
use crate::mem::{ConstSpace, GlobalMemory, LocalMemory, MemError, ParamSpace, SharedMemory};

mod arith;
mod control;
mod memory;
mod operands;
mod warp_ops;
/// One SIMT stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimtEntry {
    /// Next PC of this path.
    pub pc: u32,
    /// Where the path reconverges ([`NO_RECONV`]: at exit).
    pub rpc: u32,
    /// Lanes on this path.
    pub mask: u32,
}

/// Per-warp execution state.
#[derive(Clone, Debug, Default)]
pub struct WarpState {
    /// SIMT reconvergence stack (top = last).
    pub stack: Vec<SimtEntry>,
    /// Carry flag per lane (`CC.CF` of `add.cc`/`addc`, PTX ISA §9.7.2); a condition code, not
    /// a general register.
    pub cc: u32,
    /// Waiting at a CTA barrier.
    pub at_barrier: bool,
    /// PTX line of the barrier instruction the warp waits at (for deadlock messages).
    pub barrier_line: u32,
    /// Lanes that exist (threads of the CTA in this warp).
    pub valid: u32,
    /// Warp instructions executed (also `%clock`).
    pub instructions: u64,
    /// Thread instructions executed (active lanes summed).
    pub thread_instructions: u64,
    /// Waiting at a `bar.red` barrier (its contribution is in the CTA's accumulator).
    pub red_waiting: bool,
    /// Result of a completed `bar.red`, written to the destination when the warp issues the
    /// instruction a second time (see [`CtaExec::step`]).
    pub red_result: Option<BarRedAcc>,
}

/// Running reduction of a `bar.red` (PTX ISA §9.7.12.1 `barrier.red`): over every thread of the
/// CTA that executes it, the number of true predicates (`.popc`), whether all were true
/// (`.and`) and whether any was (`.or`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarRedAcc {
    pub count: u32,
    pub all: bool,
    pub any: bool,
}

impl Default for BarRedAcc {
    fn default() -> Self {
        BarRedAcc {
            count: 0,
            all: true,
            any: false,
        }
    }
}

impl WarpState {
    /// True when every lane has exited.
    pub fn done(&self) -> bool {
        self.stack.is_empty()
    }

    /// The lanes that would execute the next instruction (before its guard).
    pub fn active_mask(&self) -> u32 {
        self.stack.last().map_or(0, |e| e.mask)
    }
}

/// Load, store or atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum MemKind {
    Load,
    Store,
    Atomic,
}

/// The memory side of one warp instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemAccess {
    pub kind: MemKind,
    /// State space as written (`Generic`: classify each address with [`mem::classify_generic`]).
    ///
    /// [`mem::classify_generic`]: crate::mem::classify_generic
    pub space: crate::ir::Space,
    /// Bytes per lane (element size × vector width).
    pub size: u32,
    /// Address of each lane in `mask` (first byte).
    pub addrs: [u64; 32],
    /// Lanes that accessed memory.
    pub mask: u32,
}

/// Barrier outcome of a step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BarrierEvent {
    #[default]
    None,
    /// The warp arrived and waits.
    Arrived,
    /// The warp's arrival (or exit) completed a barrier: its waiting warps are released.
    Released,
}

/// What the timing model needs to know about one executed warp instruction.
#[derive(Clone, Copy, Debug)]
pub struct StepInfo {
    /// PC of the instruction.
    pub pc: u32,
    /// PTX source line.
    pub line: u32,
    pub op: Opcode,
    pub class: OpClass,
    /// Lanes active on the SIMT stack when it issued.
    pub active_mask: u32,
    /// Active lanes whose guard predicate was true (the lanes that had an effect).
    pub exec_mask: u32,
    /// Architectural registers read (guard first).
    pub src_regs: RegList,
    /// Architectural registers written.
    pub dst_regs: RegList,
    /// Memory access, for ld/st/atom/red.
    pub mem: Option<MemAccess>,
    /// A branch split the warp.
    pub diverged: bool,
    /// After this step one or more paths reconverged (stack entries popped at their
    /// reconvergence PC).
    pub reconverged: bool,
    pub barrier: BarrierEvent,
    /// The warp's arrival at a barrier (`bar.sync`, `bar.arrive`, the first issue of
    /// `bar.red`), with the barrier's number and expected warps.
    pub arrival: Option<Arrival>,
    /// Lanes that exited at this instruction.
    pub exited_lanes: u32,
    /// The warp has finished (every lane exited).
    pub warp_done: bool,
}

/// The memory side of a [`TimedStep`]: [`MemAccess`] without the addresses, which
/// [`CtaExec::step_timed`] writes into the caller's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemMeta {
    pub kind: MemKind,
    /// State space as written (`Generic`: classify each address with [`mem::classify_generic`]).
    ///
    /// [`mem::classify_generic`]: crate::mem::classify_generic
    pub space: crate::ir::Space,
    /// Bytes per lane (element size × vector width).
    pub size: u32,
    /// Lanes that accessed memory.
    pub mask: u32,
}

/// What [`CtaExec::step_timed`] reports: the part of [`StepInfo`] the timing model uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedStep {
    /// Lanes active on the SIMT stack when it issued.
    pub active_mask: u32,
    /// Memory access of a ld/st/atom/red (lane addresses in the caller's buffer).
    pub mem: Option<MemMeta>,
    pub barrier: BarrierEvent,
    /// The warp's arrival at a barrier ([`StepInfo::arrival`]).
    pub arrival: Option<Arrival>,
    /// The warp has finished (every lane exited).
    pub warp_done: bool,
}

/// Outcome of one step apart from its register and memory effects (the fields of
/// [`StepInfo`] that depend on execution).
#[derive(Clone, Copy, Debug, Default)]
struct Outcome {
    active: u32,
    exec: u32,
    mem: Option<MemMeta>,
    diverged: bool,
    reconverged: bool,
    barrier: BarrierEvent,
    arrival: Option<Arrival>,
    exited_lanes: u32,
    warp_done: bool,
    /// The step read no register (second issue of `bar.red`).
    no_src: bool,
    /// The step wrote no register (first issue of `bar.red`).
    no_dst: bool,
}

/// Where a step puts the lane addresses of a memory instruction.
trait AddrBuf {
    fn buf(&mut self) -> &mut [u64; 32];
}

impl AddrBuf for [u64; 32] {
    #[inline(always)]
    fn buf(&mut self) -> &mut [u64; 32] {
        self
    }
}

/// The [`StepInfo::mem`] record, created (zeroed) when a memory instruction needs it.
impl AddrBuf for Option<MemAccess> {
    #[inline]
    fn buf(&mut self) -> &mut [u64; 32] {
        &mut self
            .get_or_insert(MemAccess {
                kind: MemKind::Load,
                space: crate::ir::Space::Generic,
                size: 0,
                addrs: [0; 32],
                mask: 0,
            })
            .addrs
    }
}

/// Lane buffers reused by every step: the whole-warp kernels read their operands
/// into these instead of into freshly zeroed arrays. Every use writes a buffer completely
/// before reading it, so no value passes from one step to the next. A caller that steps in a
/// loop ([`CtaExec::step_timed`]) keeps one.
#[derive(Clone, Debug)]
pub struct Scratch {
    v: [[u32; 32]; 5],
}

impl Scratch {
    /// Fresh (zeroed) buffers.
    pub fn new() -> Box<Scratch> {
        Box::new(Scratch { v: [[0; 32]; 5] })
    }
}

/// One CTA of a launch in execution.
pub struct CtaExec<'a> {
    kernel: &'a Kernel,
    launch: &'a LaunchConfig,
    params: &'a ParamSpace,
    consts: &'a ConstSpace,
    /// `%ctaid`.
    pub ctaid: [u32; 3],
    /// Register-file warp index of warp 0 of this CTA.
    pub warp_base: WarpId,
    warps: Vec<WarpState>,
    shared: SharedMemory,
    local: Vec<LocalMemory>,
    gridid: u64,
    /// Reduction of the `bar.red` collecting arrivals at each barrier.
    red_acc: [BarRedAcc; BARRIERS],
    /// Which warps wait at which of the CTA's 16 barriers.
    barriers: CtaBarriers,
    /// Operand buffers of the whole-warp kernels for [`CtaExec::step_into`] (taken for a step,
    /// then put back).
    scratch: Option<Box<Scratch>>,
    /// The uniform register file: [`Kernel::uregs`] 32-bit values per warp (warp `w`'s `URk`
    /// at `w * uregs + k`), one value for all the warp's lanes. Turing's uniform datapath has
    /// its own register file beside the vector register file (Jia et al., "Dissecting the
    /// NVIDIA Turing T4 GPU via Microbenchmarking", 2019), so these values never pass through
    /// [`RegisterAccess`] (the register-file designs). Interior mutability: operand reads and
    /// writes take `&self`.
    uniform: Vec<std::cell::Cell<u32>>,
}

impl<'a> CtaExec<'a> {
    /// A fresh CTA `ctaid` of `kernel` launched with `launch`; its warps use register-file warp
    /// ids `warp_base..warp_base + warps`.
    pub fn new(
        kernel: &'a Kernel,
        launch: &'a LaunchConfig,
        params: &'a ParamSpace,
        consts: &'a ConstSpace,
        ctaid: [u32; 3],
        warp_base: WarpId,
        gridid: u64,
    ) -> Self {
        let threads = launch.threads_per_cta() as usize;
        let nw = threads.div_ceil(32);
        let warps = (0..nw)
            .map(|w| {
                let n = (threads - w * 32).min(32);
                let valid = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
                WarpState {
                    stack: vec![SimtEntry {
                        pc: 0,
                        rpc: NO_RECONV,
                        mask: valid,
                    }],
                    valid,
                    ..WarpState::default()
                }
            })
            .collect();
        let shared = SharedMemory::new(kernel.shared_bytes(launch.dynamic_shared_bytes));
        let local = (0..threads)
            .map(|_| LocalMemory::new(kernel.local_bytes))
            .collect();
        CtaExec {
            kernel,
            launch,
            params,
            consts,
            ctaid,
            warp_base,
            warps,
            shared,
            local,
            gridid,
            red_acc: [BarRedAcc::default(); BARRIERS],
            barriers: CtaBarriers::new(nw),
            scratch: Some(Scratch::new()),
            uniform: vec![std::cell::Cell::new(0); nw * kernel.uregs as usize],
        }
    }

    /// Uniform register `UR<k>` of warp `w` (`None` outside the file).
    pub fn uniform_reg(&self, w: usize, k: u16) -> Option<u32> {
        self.ur_cell(w, k).map(std::cell::Cell::get)
    }

    #[inline]
    fn ur_cell(&self, w: usize, k: u16) -> Option<&std::cell::Cell<u32>> {
        let n = self.kernel.uregs as usize;
        if usize::from(k) >= n {
            return None;
        }
        self.uniform.get(w * n + usize::from(k))
    }

    /// The value of uniform register (pair) `reg`, `slots` registers, of warp `w`.
    fn read_ur(&self, w: usize, reg: u16, slots: u8) -> Result<u64, String> {
        let get = |k: u16| {
            self.ur_cell(w, k)
                .map(std::cell::Cell::get)
                .ok_or_else(|| format!("uniform register UR{k} outside the kernel's file"))
        };
        let lo = get(reg)?;
        let hi = if slots >= 2 {
            get(reg.saturating_add(1))?
        } else {
            0
        };
        Ok(u64::from(lo) | u64::from(hi) << 32)
    }

    /// Writes uniform register (pair) `reg` of warp `w` for the whole warp: the value of the
    /// lowest lane of `m` (every lane that runs a uniform definition computes the same value
    /// from uniform operands, `analysis::uniform`); nothing when `m` is empty.
    fn write_ur(
        &self,
        w: usize,
        reg: u16,
        slots: u8,
        vals: &[u64; 32],
        m: u32,
    ) -> Result<(), String> {
        if m == 0 {
            return Ok(());
        }
        self.write_ur_value(w, reg, slots, vals[m.trailing_zeros() as usize])
    }

    /// Writes `v` to uniform register (pair) `reg` of warp `w` ([`Self::write_ur`] of one
    /// lane's value).
    fn write_ur_value(&self, w: usize, reg: u16, slots: u8, v: u64) -> Result<(), String> {
        let set = |k: u16, x: u32| {
            self.ur_cell(w, k)
                .map(|c| c.set(x))
                .ok_or_else(|| format!("uniform register UR{k} outside the kernel's file"))
        };
        set(reg, v as u32)?;
        if slots >= 2 {
            set(reg.saturating_add(1), (v >> 32) as u32)?;
        }
        Ok(())
    }

    /// Number of warps.
    pub fn num_warps(&self) -> usize {
        self.warps.len()
    }

    /// State of warp `w`.
    pub fn warp(&self, w: usize) -> Option<&WarpState> {
        self.warps.get(w)
    }

    /// True when every warp has exited.
    pub fn done(&self) -> bool {
        self.warps.iter().all(WarpState::done)
    }

    /// The CTA's shared memory.
    pub fn shared(&self) -> &SharedMemory {
        &self.shared
    }

    /// What warp `w` would issue next: its PC and instruction, or `None` if it has exited or
    /// waits at a barrier.
    pub fn next_instr(&self, w: usize) -> Option<(u32, &'a ExecInstr)> {
        let ws = self.warps.get(w)?;
        if ws.at_barrier {
            return None;
        }
        let e = ws.stack.last()?;
        self.kernel.instrs.get(e.pc as usize).map(|i| (e.pc, i))
    }

    fn thread(&self, w: usize, lane: u32) -> ThreadId {
        let lin = w as u32 * 32 + lane;
        let [bx, by, _] = self.launch.block;
        ThreadId {
            ctaid: self.ctaid,
            tid: [lin % bx, (lin / bx) % by, lin / (bx * by)],
            warp: w as u32,
        }
    }

    fn rt_err(&self, w: usize, lane: u32, pc: u32, ins: &ExecInstr, message: String) -> ExecError {
        ExecError::Runtime {
            file: self.kernel.file.clone(),
            line: ins.line,
            kernel: self.kernel.name.clone(),
            pc,
            thread: self.thread(w, lane),
            message,
        }
    }

    /// The memory error of lane `lane` of warp `w` at address `addr`.
    #[cold]
    fn mem_err(
        &self,
        w: usize,
        lane: u32,
        pc: u32,
        ins: &ExecInstr,
        addr: u64,
        source: MemError,
    ) -> ExecError {
        ExecError::Memory {
            file: self.kernel.file.clone(),
            line: ins.line,
            kernel: self.kernel.name.clone(),
            pc,
            thread: self.thread(w, lane),
            addr,
            source,
        }
    }

    /// The error of a failed lane operation of warp `w` (message `msg`; an `unsupported:`
    /// prefix makes it [`ExecError::Unsupported`]), reported for the first lane of `exec`.
    #[cold]
    fn lane_err(&self, w: usize, pc: u32, ins: &ExecInstr, exec: u32, msg: String) -> ExecError {
        let lane = if exec == 0 { 0 } else { exec.trailing_zeros() };
        if msg.starts_with("unsupported:") {
            self.unsupported(
                ins,
                msg.trim_start_matches("unsupported:").trim().to_string(),
            )
        } else {
            self.rt_err(w, lane, pc, ins, msg)
        }
    }

    fn unsupported(&self, ins: &ExecInstr, what: String) -> ExecError {
        ExecError::Unsupported {
            file: self.kernel.file.clone(),
            line: ins.line,
            function: self.kernel.name.clone(),
            what,
        }
    }

    /// Executes one instruction of warp `w`. Errors leave the CTA in an unspecified state.
    pub fn step<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
    ) -> Result<StepInfo, ExecError> {
        let mut slot = None;
        self.step_into(w, regs, global, &mut slot)?;
        slot.ok_or_else(|| ExecError::Setup(format!("warp {w}: step produced no result")))
    }

    /// [`CtaExec::step`] writing its [`StepInfo`] into `slot`, so a caller that steps in a
    /// loop reuses one buffer instead of moving the ~0.4 KB record out of every step
    ///. On error `slot` holds nothing meaningful.
    pub fn step_into<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        slot: &mut Option<StepInfo>,
    ) -> Result<(), ExecError> {
        let kernel = self.kernel;
        let info = slot.get_or_insert_with(|| StepInfo {
            pc: 0,
            line: 0,
            op: Opcode::Exit,
            class: OpClass::Control,
            active_mask: 0,
            exec_mask: 0,
            src_regs: RegList::default(),
            dst_regs: RegList::default(),
            mem: None,
            diverged: false,
            reconverged: false,
            barrier: BarrierEvent::None,
            arrival: None,
            exited_lanes: 0,
            warp_done: false,
        });
        info.mem = None;
        let mut o = Outcome::default();
        let mut sc = self.scratch.take().unwrap_or_else(Scratch::new);
        let r = self.step_impl(w, regs, global, &mut info.mem, &mut sc, &mut o);
        self.scratch = Some(sc);
        let pc = r?;
        let Some(ins) = kernel.instrs.get(pc as usize) else {
            return Err(ExecError::Setup(format!("pc {pc} out of range")));
        };
        info.pc = pc;
        info.line = ins.line;
        info.op = ins.op;
        info.class = ins.class;
        info.active_mask = o.active;
        info.exec_mask = o.exec;
        info.src_regs = if o.no_src {
            RegList::default()
        } else {
            ins.src_regs
        };
        info.dst_regs = if o.no_dst {
            RegList::default()
        } else {
            ins.dst_regs
        };
        match (o.mem, info.mem.as_mut()) {
            (Some(m), Some(a)) => {
                a.kind = m.kind;
                a.space = m.space;
                a.size = m.size;
                a.mask = m.mask;
            }
            _ => info.mem = None,
        }
        info.diverged = o.diverged;
        info.reconverged = o.reconverged;
        info.barrier = o.barrier;
        info.arrival = o.arrival;
        info.exited_lanes = o.exited_lanes;
        info.warp_done = o.warp_done;
        Ok(())
    }

    /// [`CtaExec::step`] for the timing model: returns only what the timing model uses
    /// ([`TimedStep`]; it takes the register lists from [`ExecInstr::src_regs`]/
    /// [`ExecInstr::dst_regs`] itself) and writes the lane addresses of a memory instruction
    /// straight into `addrs` (no ~0.4 KB record, no zeroing and copying of an
    /// address array per step). `addrs` is left untouched by other instructions. `scratch`
    /// holds work buffers only (any [`Scratch`] will do).
    #[inline]
    pub fn step_timed<R: RegisterAccess>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        addrs: &mut [u64; 32],
        scratch: &mut Scratch,
    ) -> Result<TimedStep, ExecError> {
        let mut o = Outcome::default();
        self.step_impl(w, regs, global, addrs, scratch, &mut o)?;
        Ok(TimedStep {
            active_mask: o.active,
            mem: o.mem,
            barrier: o.barrier,
            arrival: o.arrival,
            warp_done: o.warp_done,
        })
    }

    /// The step of [`CtaExec::step_into`] and [`CtaExec::step_timed`]: executes the next
    /// instruction of warp `w`, recording its outcome in `out` and the lane addresses of a
    /// memory instruction in `abuf`. Returns the instruction's PC. A step after which every
    /// live warp of the CTA waits at a barrier that cannot complete (its arrival, or its
    /// exit) fails with [`ExecError::Deadlock`]: a GPU would hang there.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn step_impl<R: RegisterAccess, B: AddrBuf>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        abuf: &mut B,
        sc: &mut Scratch,
        out: &mut Outcome,
    ) -> Result<u32, ExecError> {
        let pc = self.step_body(w, regs, global, abuf, sc, out)?;
        if (out.barrier == BarrierEvent::Arrived || out.warp_done) && self.barriers.deadlocked() {
            return Err(self.deadlock_error(w, pc, out.warp_done));
        }
        Ok(pc)
    }

    /// [`Self::step_impl`] without the deadlock check.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn step_body<R: RegisterAccess, B: AddrBuf>(
        &mut self,
        w: usize,
        regs: &mut R,
        global: &mut GlobalMemory,
        abuf: &mut B,
        sc: &mut Scratch,
        out: &mut Outcome,
    ) -> Result<u32, ExecError> {
        let kernel = self.kernel;
        let Some(ws) = self.warps.get_mut(w) else {
            return Err(ExecError::Setup(format!("no warp {w} in this CTA")));
        };
        let Some(&top) = ws.stack.last() else {
            return Err(ExecError::Setup(format!("warp {w} has exited")));
        };
        if ws.at_barrier {
            return Err(ExecError::Setup(format!("warp {w} waits at a barrier")));
        }
        let pc = top.pc;
        let Some(ins) = kernel.instrs.get(pc as usize) else {
            return Err(ExecError::Setup(format!(
                "kernel {}: pc {pc} out of range",
                kernel.name
            )));
        };
        let active = top.mask;
        ws.instructions += 1;
        // a full warp needs no population count (no `popcnt` in the baseline x86-64 target)
        ws.thread_instructions += if active == u32::MAX {
            32
        } else {
            u64::from(active.count_ones())
        };
        let wid = self.warp_base + w as u32;
        let exec = match ins.guard {
            Some((p, neg)) => {
                let b = regs.read_pred(wid, ArchReg::P(p));
                active & if neg { !b } else { b }
            }
            None => active,
        };
        out.active = active;
        out.exec = exec;
        // the whole-warp kernels first: no opcode dispatch for the commonest
        // instructions (`fast` is only set on plain ALU instructions of the right arity)
        if ins.fast != FastOp::None {
            if exec != 0 {
                self.exec_fast(w, regs, ins, exec, sc)
                    .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
            }
            self.advance(w, pc + 1, out);
            return Ok(pc);
        }
        let mut next_pc = pc + 1;
        match ins.op {
            // §9.7.11.1 bra
            Opcode::Bra => {
                let taken = exec;
                let not_taken = active & !exec;
                let ws = &mut self.warps[w];
                if not_taken == 0 {
                    next_pc = ins.target;
                } else if taken != 0 {
                    // divergence: the top entry waits at the reconvergence point
                    out.diverged = true;
                    let rpc = ins.reconv;
                    let t = ws.stack.len() - 1;
                    ws.stack[t].pc = rpc;
                    ws.stack.push(SimtEntry {
                        pc: pc + 1,
                        rpc,
                        mask: not_taken,
                    });
                    ws.stack.push(SimtEntry {
                        pc: ins.target,
                        rpc,
                        mask: taken,
                    });
                    self.normalize(w, out);
                    return Ok(pc);
                }
            }
            // §9.7.11.3 ret / §9.7.11.4 exit (kernels only: ret of the entry ends the thread)
            Opcode::Ret | Opcode::Exit => {
                if exec != 0 {
                    out.exited_lanes = exec;
                    let ws = &mut self.warps[w];
                    for e in ws.stack.iter_mut() {
                        e.mask &= !exec;
                    }
                }
            }
            Opcode::Trap | Opcode::Brkpt => {
                if exec != 0 {
                    return Err(self.lane_err(w, pc, ins, exec, format!("{:?} executed", ins.op)));
                }
            }
            // §9.7.13.1 bar.sync / barrier.sync a{, b} waits at barrier a (for every warp of
            // the CTA, or b threads); bar.arrive a, b counts towards it without waiting
            Opcode::Bar => match ins.mode {
                Mode::BarSync | Mode::None if exec != 0 => {
                    let counted = ins.src.len() >= 2;
                    let a = self.bar_arrival(regs, w, pc, ins, exec, counted, true)?;
                    if let Some(e) = self.warps[w].stack.last_mut() {
                        e.pc = next_pc;
                    }
                    self.arrive(w, a, ins.line, out);
                    self.normalize(w, out);
                    return Ok(pc);
                }
                Mode::BarArrive if exec != 0 => {
                    let a = self.bar_arrival(regs, w, pc, ins, exec, true, false)?;
                    self.arrive(w, a, ins.line, out);
                }
                Mode::BarArrive | Mode::BarSync | Mode::None => {}
                // §9.7.13.1 barrier.red.{popc.u32,and.pred,or.pred} d, a{, b}, {!}c: the
                // barrier of bar.sync plus a reduction of `c` over the CTA's threads. Issued in
                // two steps, as the SASS does (BAR.RED, then B2R.RESULT reading the barrier's
                // result): the first step contributes and waits; after the release the second
                // step writes `d`.
                Mode::BarRed => {
                    if let Some(res) = self.warps[w].red_result.take() {
                        out.no_src = true;
                        let d = ins.dst.first().ok_or_else(|| {
                            self.unsupported(ins, "bar.red without a destination".into())
                        })?;
                        let v: u64 = match ins.atom {
                            AtomOp::Popc => u64::from(res.count),
                            AtomOp::And => u64::from(res.all),
                            _ => u64::from(res.any),
                        };
                        self.store(regs, w, d, &[v; 32], exec)
                            .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
                    } else if exec != 0 {
                        out.no_dst = true;
                        let c = ins.src.last().ok_or_else(|| {
                            self.unsupported(ins, "bar.red without a predicate".into())
                        })?;
                        let counted = ins.src.len() >= 3;
                        let a = self.bar_arrival(regs, w, pc, ins, exec, counted, true)?;
                        let mut vals = [0u64; 32];
                        self.fetch_into(regs, w, c, &mut vals)
                            .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
                        let bits = (0..32).fold(0u32, |b, l| b | (((vals[l] & 1) as u32) << l));
                        let t = bits & exec;
                        if let Some(acc) = self.red_acc.get_mut(usize::from(a.id)) {
                            acc.count += t.count_ones();
                            acc.all &= t == exec;
                            acc.any |= t != 0;
                        }
                        self.warps[w].red_waiting = true;
                        // the pc stays here: the warp issues the instruction again for the result
                        self.arrive(w, a, ins.line, out);
                        self.normalize(w, out);
                        return Ok(pc);
                    }
                }
                _ => return Err(self.unsupported(ins, format!("bar mode {:?}", ins.mode))),
            },
            Opcode::BarWarp
            | Opcode::Membar
            | Opcode::Fence
            | Opcode::Prefetch
            | Opcode::Prefetchu
            | Opcode::Nanosleep
            | Opcode::Pmevent => {}
            Opcode::Ld | Opcode::Ldu | Opcode::St => {
                out.mem = Some(if ins.ld32 {
                    self.exec_ld32(w, regs, global, ins, pc, exec, abuf.buf(), sc)?
                } else {
                    self.exec_ld_st(w, regs, global, ins, pc, exec, abuf.buf())?
                });
            }
            Opcode::Atom | Opcode::Red => {
                out.mem = Some(self.exec_atom(w, regs, global, ins, pc, exec, abuf.buf())?);
            }
            Opcode::Shfl | Opcode::Vote | Opcode::Activemask | Opcode::Match | Opcode::Redux => {
                self.exec_warp_op(w, regs, ins, exec)
                    .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
            }
            Opcode::Setp | Opcode::Set => {
                self.exec_setp(w, regs, ins, exec, sc)
                    .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
            }
            Opcode::Mov
                if matches!(ins.dst.first(), Some(XOp::Vec(_)))
                    || matches!(ins.src.first(), Some(XOp::Vec(_))) =>
            {
                self.exec_mov_vec(w, regs, ins, exec)
                    .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
            }
            Opcode::Call => return Err(self.unsupported(ins, "call".into())),
            _ => {
                if exec != 0 {
                    self.exec_alu(w, regs, ins, exec)
                        .map_err(|m| self.lane_err(w, pc, ins, exec, m))?;
                }
            }
        }
        self.advance(w, next_pc, out);
        Ok(pc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::program::Program;
    use crate::launch::HostData;
    /// A kernel whose address arithmetic is warp-uniform (parameters, `%ctaid`,
    /// `%ntid`, a uniform loop bound), with a per-thread part, a uniform 64-bit pointer and a
    /// uniform loop counter; 2 CTAs of 64 threads.
    const UR_KERNEL: &str = ".version 7.5\n.target sm_75\n.address_size 64\n\
.visible .entry k(.param .u64 out, .param .u32 n)\n{\n.reg .pred %p<3>;\n.reg .b32 %r<12>;\n\
.reg .b64 %rd<6>;\n\
ld.param.u64 %rd0, [out];\ncvta.to.global.u64 %rd1, %rd0;\nld.param.u32 %r1, [n];\n\
mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmul.lo.s32 %r4, %r2, %r3;\n\
mov.u32 %r5, %tid.x;\nadd.s32 %r6, %r4, %r5;\nmul.wide.u32 %rd2, %r4, 4;\n\
add.s64 %rd3, %rd1, %rd2;\nmov.u32 %r7, 0;\nmov.u32 %r8, 0;\n$LOOP:\n\
add.s32 %r7, %r7, %r6;\nadd.s32 %r8, %r8, 1;\nsetp.lt.u32 %p1, %r8, %r1;\n@%p1 bra.uni $LOOP;\n\
mul.wide.u32 %rd4, %r5, 4;\nadd.s64 %rd5, %rd3, %rd4;\nadd.s32 %r9, %r7, %r8;\n\
st.global.u32 [%rd5], %r9;\nret;\n}\n";

    fn run_ur_kernel(target: crate::analysis::AllocTarget) -> (Vec<u32>, u32, usize) {
        let mut g = GlobalMemory::new();
        let out = g
            .alloc_host("out", &HostData::U32(vec![0; 128]))
            .unwrap_or(0);
        let module = crate::ptx::parse("t.ptx", UR_KERNEL).unwrap_or_else(|e| panic!("{e}"));
        let p =
            Program::load_for("t.ptx", &module, &mut g, target).unwrap_or_else(|e| panic!("{e}"));
        let k = &p.kernels[0];
        let ur_instrs = k
            .instrs
            .iter()
            .filter(|i| i.src_ur != 0 || i.dst_ur != 0)
            .count();
        // Uniform operands take the whole-warp kernels too (the loop counter's
        // `add.s32` and the address `add.s64` read and write uniform registers), and the
        // outputs the callers check come through them
        if ur_instrs > 0 {
            assert!(k
                .instrs
                .iter()
                .any(|i| i.fast != FastOp::None && i.src_ur != 0 && i.dst_ur != 0));
        }
        // UR operands never appear in the register-file lists the designs see
        assert!(k.instrs.iter().all(|i| i
            .src_regs
            .as_slice()
            .iter()
            .chain(i.dst_regs.as_slice())
            .all(|r| !matches!(r, ArchReg::U(_)))));
        let mut pb = out.to_le_bytes().to_vec();
        pb.extend_from_slice(&3u32.to_le_bytes());
        let launch = LaunchConfig {
            grid: [2, 1, 1],
            block: [64, 1, 1],
            dynamic_shared_bytes: 0,
        };
        crate::exec::program::run_launch(
            &p,
            k,
            &launch,
            &ParamSpace::new(pb),
            &mut g,
            0,
            &crate::exec::program::RunOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let Some(HostData::U32(v)) = g.read_back("out") else {
            panic!("no output");
        };
        (v, k.uregs, ur_instrs)
    }

    #[test]
    fn uniform_registers_hold_the_values_and_give_the_same_outputs() {
        let (no_ur, n0, i0) = run_ur_kernel(crate::analysis::AllocTarget::NO_UNIFORM);
        let (ur, n1, i1) = run_ur_kernel(crate::analysis::AllocTarget::SM75);
        // thread t of CTA c: 3 * (64c + t) + 3
        let want: Vec<u32> = (0..128).map(|g| 3 * g + 3).collect();
        assert_eq!(no_ur, want);
        assert_eq!(ur, want);
        assert_eq!((n0, i0), (0, 0));
        assert!(
            n1 >= 2 && i1 >= 5,
            "uniform registers {n1}, instructions using them {i1}"
        );
    }

    #[test]
    fn uniform_registers_are_per_warp() {
        let mut g = GlobalMemory::new();
        let module = crate::ptx::parse("t.ptx", UR_KERNEL).unwrap_or_else(|e| panic!("{e}"));
        let p = Program::load_for("t.ptx", &module, &mut g, crate::analysis::AllocTarget::SM75)
            .unwrap_or_else(|e| panic!("{e}"));
        let k = &p.kernels[0];
        let launch = LaunchConfig {
            grid: [1, 1, 1],
            block: [64, 1, 1],
            dynamic_shared_bytes: 0,
        };
        let params = ParamSpace::new(vec![0; 16]);
        let consts = ConstSpace::new();
        let cta = CtaExec::new(k, &launch, &params, &consts, [0, 0, 0], 0, 0);
        assert!(k.uregs >= 1);
        // a whole-warp write of warp 0 (the lowest lane of the mask gives the value)
        let vals: [u64; 32] = std::array::from_fn(|l| 0x1_0000_0000 * 7 + 40 + l as u64);
        cta.write_ur(0, 0, 1, &vals, 0b1100)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cta.uniform_reg(0, 0), Some(42));
        assert_eq!(cta.uniform_reg(1, 0), Some(0), "warp 1 keeps its own UR0");
        cta.write_ur(1, 0, 1, &[9; 32], u32::MAX)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (cta.uniform_reg(0, 0), cta.uniform_reg(1, 0)),
            (Some(42), Some(9))
        );
        // an empty mask writes nothing; a register outside the file is an error, not a panic
        cta.write_ur(0, 0, 1, &[5; 32], 0)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cta.uniform_reg(0, 0), Some(42));
        let outside = u16::try_from(k.uregs).unwrap_or(u16::MAX);
        assert!(cta.write_ur(0, outside, 1, &[5; 32], 1).is_err());
        assert!(cta.read_ur(0, outside, 1).is_err());
        assert_eq!(cta.uniform_reg(2, 0), None);
    }
}
