//! Inlining of `.func` calls into kernels.
//!
//! regwatt executes a `call` to a defined `.func` by substituting the callee's body at the call
//! site, before any analysis runs, so that the CFG, liveness, register allocation, release flags,
//! the executor and the timing model all see one straight-line kernel (the approach ptxas itself
//! takes for most device functions; PTX ISA §9.7.11.2 defines `call` by parameter passing, which
//! inlining preserves). Per call site:
//!
//! * the callee's virtual registers are appended to the caller's (renamed `reg@callee#site`), its
//!   function-scope variables likewise (`.local` frames become part of the kernel's frame);
//! * the callee's own parameters (`Sym::Param(j)`) and return values (`Sym::Ret(j)`) are renamed
//!   to the caller's call-sequence `.param` variables passed in the call (`param0`, `retval0`);
//!   `.reg` parameters become `mov`s at entry / at the continuation;
//! * `ret` becomes a `bra` to the continuation (the final unguarded `ret` is dropped); a guarded
//!   call `@p call f` is skipped with `@!p bra` around the body; nested calls were already
//!   inlined into the callee's body.
//!
//! Afterwards [`promote_call_params`] turns the call-sequence `.param` variables into virtual
//! registers when every access is a scalar `ld.param`/`st.param` of a fixed slot with a register
//! (or immediate) of exactly the slot's width — the usual NVRTC pattern
//! `st.param.b64 [param0+0], %rd1; … ld.param.b64 %rd2, [param0+0]` then becomes two `mov`s, as
//! ptxas turns them into register moves. Any other use (vector accesses, overlapping slots,
//! sub-word slots, address taken) keeps the variable in memory as a per-call-site `.local`
//! variable (the "per-call param area").
//!
//! Calls that are not inlined stay `call` instructions, and the executor rejects them with an
//! error naming the function and file:line: recursion (direct or indirect: a function already on
//! the inlining stack), calls to functions without a body, indirect calls through a register, and
//! calls whose argument list does not match the callee's parameters.

use super::instr::{Addr, AddrBase, CallTarget, Guard, Instr, Mods, Opcode, Operand, Reg, Sym};
use super::types::{Space, Ty};
use super::{Cfg, Function, Module, RegDecl, Var};

/// Largest kernel (instructions) inlining may produce; beyond it inlining stops with an error.
/// Guards memory against exponential call trees in hostile input (own limit, no source).
pub const MAX_INLINED_INSTRS: usize = 1 << 20;

/// Why inlining failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineError {
    /// Source line of the call.
    pub line: u32,
    pub message: String,
}

/// Inlines every inlinable call in every defined kernel of `module` (see the module docs).
/// `.func` bodies are left as they are.
pub fn inline_calls(module: &mut Module) -> Result<(), InlineError> {
    let needs = |f: &Function| f.is_kernel && f.defined && f.instrs.iter().any(is_call);
    if !module.functions.iter().any(needs) {
        return Ok(());
    }
    let originals = module.functions.clone();
    for i in 0..module.functions.len() {
        if !needs(&originals[i]) {
            continue;
        }
        let mut stack = vec![i as u32];
        let mut f = flatten(&originals, i as u32, &mut stack)?;
        promote_call_params(&mut f);
        f.cfg = Cfg::build(&f.instrs);
        module.functions[i] = f;
    }
    Ok(())
}

fn is_call(i: &Instr) -> bool {
    i.op == Opcode::Call && i.call.is_some()
}

/// The callee of `ins` if it can be inlined (direct, defined, not recursive, arguments match).
fn inlinable(funcs: &[Function], ins: &Instr, stack: &[u32]) -> Option<u32> {
    let c = ins.call.as_ref()?;
    let CallTarget::Direct(g) = c.target else {
        return None;
    };
    let callee = funcs.get(g as usize)?;
    if !callee.defined || callee.is_kernel || stack.contains(&g) {
        return None;
    }
    if c.args.len() != callee.params.len() || c.rets.len() != callee.rets.len() {
        return None;
    }
    let ok = |p: &super::Param, o: &Operand| {
        if p.is_reg {
            matches!(o, Operand::Reg(_) | Operand::Imm(_))
                && callee.regs.iter().any(|r| r.name == p.name)
        } else {
            matches!(o, Operand::Sym(Sym::Local(_), 0))
        }
    };
    let rets_ok = callee.rets.iter().zip(&c.rets).all(|(p, o)| {
        if p.is_reg {
            matches!(o, Operand::Reg(_)) && callee.regs.iter().any(|r| r.name == p.name)
        } else {
            matches!(o, Operand::Sym(Sym::Local(_), 0))
        }
    });
    (callee.params.iter().zip(&c.args).all(|(p, o)| ok(p, o)) && rets_ok).then_some(g)
}

/// Function `fi` with all inlinable calls (transitively) substituted.
fn flatten(funcs: &[Function], fi: u32, stack: &mut Vec<u32>) -> Result<Function, InlineError> {
    let f = &funcs[fi as usize];
    if !f.instrs.iter().any(is_call) {
        return Ok(f.clone());
    }
    let mut out = f.clone();
    out.instrs = Vec::with_capacity(f.instrs.len());
    let n = f.instrs.len();
    let mut new_pc = vec![0u32; n + 1];
    // instructions of the caller itself, whose labels are caller PCs to remap at the end
    let mut caller_origin: Vec<bool> = Vec::with_capacity(n);
    let mut site = 0u32;
    let mut inlined_labels = Vec::new();
    for (pc, ins) in f.instrs.iter().enumerate() {
        new_pc[pc] = out.instrs.len() as u32;
        let Some(g) = inlinable(funcs, ins, stack) else {
            out.instrs.push(ins.clone());
            caller_origin.push(true);
            continue;
        };
        stack.push(g);
        let body = flatten(funcs, g, stack);
        stack.pop();
        let body = body?;
        splice(&mut out, ins, &body, site, &mut inlined_labels);
        site += 1;
        caller_origin.resize(out.instrs.len(), false);
        if out.instrs.len() > MAX_INLINED_INSTRS {
            return Err(InlineError {
                line: ins.line,
                message: format!(
                    "inlining `{}` into `{}` exceeds {MAX_INLINED_INSTRS} instructions",
                    body.name, f.name
                ),
            });
        }
    }
    new_pc[n] = out.instrs.len() as u32;
    for (ins, &mine) in out.instrs.iter_mut().zip(&caller_origin) {
        if mine {
            for o in ins.src.iter_mut() {
                if let Operand::Label(t) = o {
                    *t = new_pc.get(*t as usize).copied().unwrap_or(*t);
                }
            }
        }
    }
    for v in out.labels.values_mut() {
        if let Some(&p) = new_pc.get(*v as usize) {
            *v = p;
        }
    }
    out.labels.extend(inlined_labels);
    Ok(out)
}

/// Appends the body of `callee` (already flattened) for the call `call` to `out`.
fn splice(
    out: &mut Function,
    call: &Instr,
    callee: &Function,
    site: u32,
    labels: &mut Vec<(String, u32)>,
) {
    let Some(c) = call.call.as_ref() else {
        return;
    };
    let reg_base = out.regs.len() as u32;
    let var_base = out.vars.len() as u32;
    let tag = |name: &str| format!("{name}@{}#{site}", callee.name);
    out.regs.extend(callee.regs.iter().map(|r| RegDecl {
        name: tag(&r.name),
        ty: r.ty,
    }));
    out.vars.extend(callee.vars.iter().map(|v| Var {
        name: tag(&v.name),
        ..v.clone()
    }));
    let reg_of = |name: &str| {
        callee
            .regs
            .iter()
            .position(|r| r.name == name)
            .map(|i| Reg(reg_base + i as u32))
    };
    let sym_of = |o: &Operand| match o {
        Operand::Sym(s, _) => Some(*s),
        _ => None,
    };
    let pmap: Vec<Option<Sym>> = c.args.iter().map(sym_of).collect();
    let rmap: Vec<Option<Sym>> = c.rets.iter().map(sym_of).collect();
    let mov = |ty: Ty, dst: Reg, src: Operand, line: u32| {
        let mut m = Instr::new(Opcode::Mov);
        m.ty = bit_type(ty);
        m.dst = vec![Operand::Reg(dst)];
        m.src = vec![src];
        m.line = line;
        m
    };
    // guarded call: branch around the body when the guard is false
    let skip = call.guard.map(|g| {
        let mut b = Instr::new(Opcode::Bra);
        b.guard = Some(Guard {
            reg: g.reg,
            neg: !g.neg,
        });
        b.src = vec![Operand::Label(0)];
        b.line = call.line;
        out.instrs.push(b);
        out.instrs.len() - 1
    });
    for (p, a) in callee.params.iter().zip(&c.args) {
        if p.is_reg {
            if let Some(r) = reg_of(&p.name) {
                out.instrs.push(mov(p.ty, r, a.clone(), call.line));
            }
        }
    }
    let base = out.instrs.len() as u32;
    let drop_last = callee
        .instrs
        .last()
        .is_some_and(|l| l.op == Opcode::Ret && l.guard.is_none());
    let emitted = callee.instrs.len() - usize::from(drop_last);
    let cont = base + emitted as u32;
    let map_reg = |r: Reg| Reg(r.0 + reg_base);
    let map_sym = |s: Sym| match s {
        Sym::Local(j) => Sym::Local(j + var_base),
        Sym::Param(j) => pmap.get(j as usize).copied().flatten().unwrap_or(s),
        Sym::Ret(j) => rmap.get(j as usize).copied().flatten().unwrap_or(s),
        other => other,
    };
    for ins in &callee.instrs[..emitted] {
        let mut i = ins.clone();
        i.guard = i.guard.map(|g| Guard {
            reg: map_reg(g.reg),
            neg: g.neg,
        });
        for o in i.dst.iter_mut().chain(i.src.iter_mut()) {
            map_operand(o, &map_reg, &map_sym, base);
        }
        if let Some(ci) = i.call.as_mut() {
            if let CallTarget::Indirect(r) = ci.target {
                ci.target = CallTarget::Indirect(map_reg(r));
            }
            for o in ci.args.iter_mut().chain(ci.rets.iter_mut()) {
                map_operand(o, &map_reg, &map_sym, base);
            }
        }
        if i.op == Opcode::Ret {
            let mut b = Instr::new(Opcode::Bra);
            b.guard = i.guard;
            b.mods = Mods(i.mods.0 & Mods::UNI);
            b.src = vec![Operand::Label(cont)];
            b.line = i.line;
            i = b;
        }
        out.instrs.push(i);
    }
    for (p, r) in callee.rets.iter().zip(&c.rets) {
        if let (true, Operand::Reg(dst)) = (p.is_reg, r) {
            if let Some(src) = reg_of(&p.name) {
                out.instrs
                    .push(mov(p.ty, *dst, Operand::Reg(src), call.line));
            }
        }
    }
    let end = out.instrs.len() as u32;
    if let Some(k) = skip {
        out.instrs[k].src = vec![Operand::Label(end)];
    }
    for (name, &pc) in &callee.labels {
        labels.push((tag(name), (base + pc).min(end)));
    }
}

fn map_operand(
    o: &mut Operand,
    map_reg: &impl Fn(Reg) -> Reg,
    map_sym: &impl Fn(Sym) -> Sym,
    label_base: u32,
) {
    match o {
        Operand::Reg(r) | Operand::NegPred(r) => *r = map_reg(*r),
        Operand::Vec(v) => {
            for e in v {
                map_operand(e, map_reg, map_sym, label_base);
            }
        }
        Operand::Addr(Addr { base, .. }) => match base {
            AddrBase::Reg(r) => *r = map_reg(*r),
            AddrBase::Sym(s) => *s = map_sym(*s),
            AddrBase::Abs => {}
        },
        Operand::Sym(s, _) => *s = map_sym(*s),
        Operand::Label(t) => *t += label_base,
        Operand::Imm(_) | Operand::Special(_) | Operand::Sink => {}
    }
}

/// The untyped bit type of a width (`mov` copies raw bits).
fn bit_type(t: Ty) -> Ty {
    match t.size() {
        1 => Ty::B8,
        2 => Ty::B16,
        8 => Ty::B64,
        16 => Ty::B128,
        _ => Ty::B32,
    }
}

/// One scalar access of a call-sequence `.param` variable.
struct Access {
    pc: usize,
    offset: i64,
    size: u32,
}

/// Turns call-sequence `.param` variables (function-scope `Space::Param` vars) into registers
/// where possible and into `.local` variables otherwise (see the module docs). Instruction
/// indices do not change.
pub fn promote_call_params(f: &mut Function) {
    let nvars = f.vars.len();
    // per var: accesses, or None once it must stay in memory
    let mut acc: Vec<Option<Vec<Access>>> = f
        .vars
        .iter()
        .map(|v| (v.space == Space::Param).then(Vec::new))
        .collect();
    let width_ok = |regs: &[RegDecl], o: &Operand, size: u32, store: bool| match o {
        Operand::Reg(r) => regs
            .get(r.idx())
            .is_some_and(|d| d.ty != Ty::Pred && d.ty.size() == size),
        Operand::Imm(_) => store,
        _ => false,
    };
    for (pc, ins) in f.instrs.iter().enumerate() {
        let mut visit = |o: &Operand, role: Option<(bool, &Operand)>| {
            let (s, offset) = match o {
                Operand::Addr(Addr {
                    base: AddrBase::Sym(Sym::Local(s)),
                    offset,
                }) => (*s, *offset),
                Operand::Sym(Sym::Local(s), _) => (*s, i64::MIN),
                _ => return,
            };
            let Some(slot) = acc.get_mut(s as usize) else {
                return;
            };
            let Some(list) = slot.as_mut() else {
                return;
            };
            let size = ins.ty.size();
            let good = offset != i64::MIN
                && ins.space == Space::Param
                && ins.vec == 1
                && size >= 2
                && role.is_some_and(|(store, v)| width_ok(&f.regs, v, size, store));
            if good {
                list.push(Access { pc, offset, size });
            } else {
                *slot = None;
            }
        };
        let role = match ins.op {
            Opcode::Ld if ins.src.len() == 1 && ins.dst.len() == 1 => Some((false, &ins.dst[0])),
            Opcode::St if ins.src.len() == 2 => Some((true, &ins.src[1])),
            _ => None,
        };
        for (k, o) in ins.src.iter().enumerate() {
            visit(o, if k == 0 { role } else { None });
        }
        for o in &ins.dst {
            visit(o, None);
        }
        if let Some(c) = &ins.call {
            for o in c.args.iter().chain(&c.rets) {
                visit(o, None);
            }
        }
    }
    for (v, slot) in acc.into_iter().enumerate().take(nvars) {
        if f.vars[v].space != Space::Param {
            continue;
        }
        let slots = slot.and_then(|list| {
            let mut s: Vec<(i64, u32)> = list.iter().map(|a| (a.offset, a.size)).collect();
            s.sort_unstable();
            s.dedup();
            let disjoint = s.windows(2).all(|w| w[0].0 + i64::from(w[0].1) <= w[1].0);
            disjoint.then_some((list, s))
        });
        match slots {
            Some((list, s)) => {
                let regs: Vec<Reg> = s
                    .iter()
                    .map(|&(off, size)| {
                        let r = Reg(f.regs.len() as u32);
                        f.regs.push(RegDecl {
                            name: format!("{}+{off}", f.vars[v].name),
                            ty: bit_type(if size == 2 {
                                Ty::B16
                            } else if size == 8 {
                                Ty::B64
                            } else {
                                Ty::B32
                            }),
                        });
                        r
                    })
                    .collect();
                for a in list {
                    let k = s
                        .iter()
                        .position(|&x| x == (a.offset, a.size))
                        .unwrap_or_default();
                    let r = regs[k];
                    let ins = &mut f.instrs[a.pc];
                    let (dst, src) = if ins.op == Opcode::Ld {
                        (ins.dst[0].clone(), Operand::Reg(r))
                    } else {
                        (Operand::Reg(r), ins.src[1].clone())
                    };
                    let mut m = Instr::new(Opcode::Mov);
                    m.ty = bit_type(ins.ty);
                    m.guard = ins.guard;
                    m.dst = vec![dst];
                    m.src = vec![src];
                    m.line = ins.line;
                    *ins = m;
                }
            }
            None => {
                f.vars[v].space = Space::Local;
                for ins in f.instrs.iter_mut() {
                    if ins.space == Space::Param
                        && ins.src.iter().any(|o| {
                            matches!(o, Operand::Addr(Addr { base: AddrBase::Sym(Sym::Local(s)), .. }) if *s as usize == v)
                        })
                    {
                        ins.space = Space::Local;
                    }
                }
            }
        }
    }
}

/// True if `f` calls itself through the module's call graph (direct or indirect recursion).
pub fn is_recursive(module: &Module, f: u32) -> bool {
    let mut seen = vec![false; module.functions.len()];
    let mut stack = vec![f];
    while let Some(x) = stack.pop() {
        let Some(func) = module.functions.get(x as usize) else {
            continue;
        };
        for ins in &func.instrs {
            if let Some(c) = &ins.call {
                if let CallTarget::Direct(g) = c.target {
                    if g == f {
                        return true;
                    }
                    if let Some(s) = seen.get_mut(g as usize) {
                        if !*s {
                            *s = true;
                            stack.push(g);
                        }
                    }
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::super::instr::Opcode;
    use super::super::types::Space;

    const SRC: &str = ".version 7.5\n.target sm_75\n.address_size 64\n\
.func (.param .b32 r) twice(.param .b32 a)\n{\n.reg .b32 %t<3>;\nld.param.b32 %t1, [a];\n\
shl.b32 %t2, %t1, 1;\nst.param.b32 [r], %t2;\nret;\n}\n\
.func (.param .align 8 .b8 rv[8]) pair(.param .b32 a)\n{\n.reg .b32 %q<2>;\n\
ld.param.b32 %q1, [a];\nst.param.v2.b32 [rv], {%q1, %q1};\nret;\n}\n\
.visible .entry k()\n{\n.reg .b32 %r<6>;\nmov.u32 %r1, %tid.x;\n\
{\n.param .b32 p0;\nst.param.b32 [p0], %r1;\n.param .b32 q0;\ncall.uni (q0), twice, (p0);\n\
ld.param.b32 %r2, [q0];\n}\n\
{\n.param .b32 p1;\nst.param.b32 [p1], %r2;\n.param .align 8 .b8 q1[8];\ncall.uni (q1), pair, (p1);\n\
ld.param.b32 %r3, [q1+4];\n}\nret;\n}\n";

    /// Scalar call-sequence params become register moves; an aggregate return written
    /// with a vector store stays in memory as a `.local` variable; no `call` or `ret` inside.
    #[test]
    fn call_func_inlined_params_to_moves() {
        let m = crate::ptx::parse("t.ptx", SRC).unwrap();
        let k = m.function("k").unwrap();
        let ops: Vec<Opcode> = k.instrs.iter().map(|i| i.op).collect();
        assert!(!ops.contains(&Opcode::Call));
        assert_eq!(ops.iter().filter(|&&o| o == Opcode::Ret).count(), 1);
        assert_eq!(*ops.last().unwrap(), Opcode::Ret);
        // p0, q0, p1 promoted: every remaining param-space access is to q1 (now .local)
        assert!(k.instrs.iter().all(|i| i.space != Space::Param));
        let q1 = k.vars.iter().find(|v| v.name == "q1").unwrap();
        assert_eq!(q1.space, Space::Local);
        assert_eq!(k.local_bytes(), 8);
        assert!(k.regs.iter().any(|r| r.name == "%t1@twice#0"));
        // twice: st p0 → mov, ld a → mov, shl, st r → mov, ld q0 → mov (final ret dropped)
        assert!(ops.iter().filter(|&&o| o == Opcode::Mov).count() >= 5);
        assert_eq!(k.cfg.blocks.len(), 1);
    }
}
