#!/usr/bin/env python3
"""Compare regwatt's PTX checker with ptxas on a corpus of valid and invalid instruction forms.

Usage (from anywhere):
    python3 scripts/ptx_check_vs_ptxas.py [--per-kind N] [--seed S] [--out FILE.csv] [--jobs J]

* The corpus: every PTX file of the repository that ptxas accepts (workloads/*/*.ptx,
  sim/testdata/**/*.ptx) unchanged ("valid"), and mutants of them with one change each:
  operand count, register class, type-suffix swap, predicate, address, immediate, vector
  width, barrier operands, `.version` / `.target` (kinds below, N per kind per file, drawn with
  a seeded RNG: the same seed gives the same corpus); plus single-instruction programs: every
  instruction form regwatt decodes with every type suffix ("forms@sm_XX", at three targets)
  and hand-picked valid and invalid forms ("cases@sm_XX").
* ptxas comes from the PyPI wheel `nvidia-cuda-nvcc-cu12` (bin/ptxas, as workloads/gen_ptx.py
  finds it), or `--ptxas PATH`; it runs with `-arch` = the file's original `.target`.
* regwatt's verdict comes from `cargo run -p regwatt-sim --example ptx_check` (built once;
  `--checker PATH` to use a built binary): the parser plus `regwatt_sim::ptx::check`.
* Prints the agreement (both accept, both reject) and the disagreements by mutation kind and
  rule, with an example of each; `--out` writes every mutant's verdicts as CSV.

CI does not run this (it needs ptxas); its figures are recorded in sim/README.md.
"""
import argparse
import collections
import concurrent.futures as cf
import csv
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

TYPES = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32", "b64",
         "f16", "f32", "f64", "pred"]
KINDS = ["operand_count", "register_class", "type_swap", "predicate", "address", "immediate",
         "vector", "barrier", "header"]


def find_ptxas(arg):
    if arg:
        return arg
    try:
        import nvidia  # namespace package of the nvidia-* wheels

        for p in nvidia.__path__:
            cand = os.path.join(p, "cuda_nvcc", "bin", "ptxas")
            if os.path.exists(cand):
                return cand
    except ImportError:
        pass
    found = shutil.which("ptxas")
    if found:
        return found
    raise SystemExit("ptxas not found: pip install nvidia-cuda-nvcc-cu12, or pass --ptxas PATH")


def build_checker(arg):
    if arg:
        return arg
    subprocess.run(["cargo", "build", "--quiet", "-p", "regwatt-sim", "--example", "ptx_check"],
                   cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "debug", "examples", "ptx_check")


def base_files():
    out = []
    for top in ["workloads", os.path.join("sim", "testdata")]:
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith(".ptx"):
                    out.append(os.path.join(dirpath, f))
    return sorted(out)


# ---------------------------------------------------------------- PTX text helpers

INSTR_RE = re.compile(r"^(\s*)(@!?%\w+\s+)?([a-z][\w.:]*)(\s+)?(.*?);\s*(//.*)?$")


def split_operands(s):
    out, depth, cur = [], 0, ""
    for c in s:
        if c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


class Instr:
    def __init__(self, lineno, m):
        self.lineno = lineno
        self.indent, self.guard, self.opcode = m.group(1), m.group(2) or "", m.group(3)
        self.ops = split_operands(m.group(5) or "")

    def render(self):
        ops = ", ".join(self.ops)
        return f"{self.indent}{self.guard}{self.opcode}{' ' + ops if ops else ''};"


def parse_file(text):
    """Instructions (with line numbers) and the declared registers per type."""
    lines = text.split("\n")
    instrs, regs = [], collections.defaultdict(list)
    for i, line in enumerate(lines):
        s = line.strip()
        m = re.match(r"\.reg\s+\.(\w+)\s+(%\w+?)<(\d+)>;", s)
        if m:
            regs[m.group(1)].append((m.group(2), int(m.group(3))))
            continue
        if s.startswith(".") or s.startswith("//") or s in ("{", "}") or s.endswith(":"):
            continue
        if "call" in s.split(".")[0] or "(" in s:
            continue
        m = INSTR_RE.match(line)
        if m and m.group(3).split(".")[0] not in ("call",):
            instrs.append(Instr(i, m))
    return lines, instrs, regs


def reg_of(regs, ty, rng):
    if not regs.get(ty):
        return None
    name, n = rng.choice(regs[ty])
    return f"{name}{rng.randrange(1, max(2, n))}" if n > 1 else f"{name}0"


def decl_type(regs, name):
    m = re.match(r"(%[a-zA-Z_]+)(\d+)$", name)
    if not m:
        return None
    for ty, lst in regs.items():
        for base, n in lst:
            if base == m.group(1) and int(m.group(2)) < n:
                return ty
    return None


def is_reg(op):
    return re.fullmatch(r"%[a-zA-Z_]+\d+", op) is not None


# ---------------------------------------------------------------- mutations

def mutate(kind, text, rng):
    """One mutant of `kind` (the new text and a description), or None if none applies."""
    lines, instrs, regs = parse_file(text)
    if kind == "header":
        return mutate_header(lines, rng)
    cands = [i for i in instrs if applies(kind, i, regs)]
    if not cands:
        return None
    ins = rng.choice(cands)
    old = ins.render()
    desc = globals()["mut_" + kind](ins, regs, rng)
    if desc is None:
        return None
    new = ins.render()
    if new.strip() == old.strip():
        return None
    lines[ins.lineno] = new
    return "\n".join(lines), f"{desc}: `{old.strip()}` -> `{new.strip()}`"


def applies(kind, ins, regs):
    op = ins.opcode.split(".")[0]
    if kind == "operand_count":
        return len(ins.ops) >= 1 and op not in ("bra",)
    if kind == "register_class":
        return any(is_reg(o) for o in ins.ops)
    if kind == "type_swap":
        return any(p in TYPES for p in ins.opcode.split(".")[1:])
    if kind == "predicate":
        return any(is_reg(o) for o in ins.ops)
    if kind == "address":
        return len(ins.ops) >= 2
    if kind == "immediate":
        return any(is_reg(o) for o in ins.ops[1:]) and op not in ("st", "ld")
    if kind == "vector":
        return op in ("ld", "st")
    if kind == "barrier":
        return op in ("bar", "barrier") and ".warp" not in ins.opcode
    return False


def mut_operand_count(ins, regs, rng):
    r = rng.random()
    if r < 0.4 or len(ins.ops) == 1:
        ins.ops.append(ins.ops[-1])
        return "extra operand"
    if r < 0.8:
        ins.ops.pop()
        return "missing last operand"
    ins.ops.pop(rng.randrange(1, len(ins.ops)))
    return "missing middle operand"


def mut_register_class(ins, regs, rng):
    idx = [k for k, o in enumerate(ins.ops) if is_reg(o)]
    k = rng.choice(idx)
    have = decl_type(regs, ins.ops[k])
    others = [t for t in regs if t != have and t != "pred"]
    if not others:
        return None
    ty = rng.choice(others)
    new = reg_of(regs, ty, rng)
    if new is None:
        return None
    ins.ops[k] = new
    return f"register class .{have} -> .{ty}"


def mut_type_swap(ins, regs, rng):
    parts = ins.opcode.split(".")
    idx = [k for k, p in enumerate(parts) if k > 0 and p in TYPES]
    k = rng.choice(idx)
    old = parts[k]
    parts[k] = rng.choice([t for t in TYPES if t != old])
    ins.opcode = ".".join(parts)
    return f"type suffix .{old} -> .{parts[k]}"


def mut_predicate(ins, regs, rng):
    idx = [k for k, o in enumerate(ins.ops) if is_reg(o)]
    k = rng.choice(idx)
    have = decl_type(regs, ins.ops[k])
    if have == "pred":
        new = reg_of(regs, "b32", rng) or reg_of(regs, "f32", rng)
        if new is None:
            return None
        ins.ops[k] = new
        return "predicate operand -> data register"
    if rng.random() < 0.25 and k > 0:
        ins.ops[k] = "!" + ins.ops[k]
        return "negated data register"
    new = reg_of(regs, "pred", rng)
    if new is None:
        return None
    ins.ops[k] = new
    return "data operand -> predicate register"


def mut_address(ins, regs, rng):
    addr = [k for k, o in enumerate(ins.ops) if o.startswith("[")]
    if addr and rng.random() < 0.5:
        k = rng.choice(addr)
        inner = ins.ops[k][1:-1].split("+")[0]
        if rng.random() < 0.5:
            ins.ops[k] = inner
            return "address -> plain operand"
        new = reg_of(regs, rng.choice(["b32", "f32", "pred", "f64"]), rng)
        if new is None:
            return None
        ins.ops[k] = f"[{new}]"
        return "address register of another class"
    idx = [k for k, o in enumerate(ins.ops) if not o.startswith("[") and not o.startswith("{")]
    if not idx:
        return None
    k = rng.choice(idx)
    base = reg_of(regs, "b64", rng) or reg_of(regs, "u64", rng)
    if base is None:
        return None
    ins.ops[k] = f"[{base}]"
    return "operand -> address"


def mut_immediate(ins, regs, rng):
    idx = [k for k, o in enumerate(ins.ops) if is_reg(o) and k > 0]
    k = rng.choice(idx)
    lit = rng.choice(["1", "-1", "1.0", "0f3F800000", "0d3FF0000000000000", "0x10"])
    ins.ops[k] = lit
    return f"register -> constant {lit}"


def mut_vector(ins, regs, rng):
    parts = ins.opcode.split(".")
    vec = [k for k, p in enumerate(parts) if p in ("v2", "v4", "v8")]
    choices = ["v2", "v4", "v8"]
    if vec:
        k = vec[0]
        old = parts[k]
        if rng.random() < 0.2:
            parts.pop(k)
            ins.opcode = ".".join(parts)
            return f"dropped .{old}"
        parts[k] = rng.choice([c for c in choices if c != old])
        ins.opcode = ".".join(parts)
        if rng.random() < 0.5:
            # keep the operand list consistent with the new width
            n = int(parts[k][1:])
            vk = next((j for j, o in enumerate(ins.ops) if o.startswith("{")), None)
            if vk is not None:
                elems = split_operands(ins.ops[vk][1:-1])
                elems = (elems * 8)[:n]
                ins.ops[vk] = "{" + ", ".join(elems) + "}"
            return f".{old} -> .{parts[k]} (operands resized)"
        return f".{old} -> .{parts[k]}"
    k = rng.choice([c for c in choices])
    parts.insert(len(parts) - 1, k)
    ins.opcode = ".".join(parts)
    return f"added .{k}"


def mut_barrier(ins, regs, rng):
    choice = rng.choice(["id16", "id15", "count33", "count64", "count0", "arrive", "id_reg64"])
    if choice == "id16":
        ins.ops[0] = "16"
    elif choice == "id15":
        ins.ops[0] = "15"
    elif choice in ("count33", "count64", "count0"):
        c = {"count33": "33", "count64": "64", "count0": "0"}[choice]
        if "red" in ins.opcode:
            ins.ops.insert(2, c)
        else:
            ins.ops = ins.ops[:1] + [c]
    elif choice == "arrive":
        if "red" in ins.opcode:
            return None
        ins.opcode = "bar.arrive"
        ins.ops = ins.ops[:1]
    else:
        r = reg_of(regs, "b64", rng)
        if r is None:
            return None
        ins.ops[0 if "red" not in ins.opcode else 1] = r
    return f"barrier {choice}"


def mutate_header(lines, rng):
    vi = next((i for i, l in enumerate(lines) if l.startswith(".version")), None)
    ti = next((i for i, l in enumerate(lines) if l.startswith(".target")), None)
    if vi is None or ti is None:
        return None
    choice = rng.choice(["no_version", "no_target", "swap", "v1.4", "v6.0", "v6.3", "v7.0",
                         "v9.9", "dup_version", "sm_10", "sm_13", "sm_20", "sm_30", "sm_32",
                         "sm_50", "sm_61", "sm_70", "compute_75", "sm_99", "empty"])
    out = list(lines)
    if choice == "empty":
        return "", "empty file"
    if choice == "no_version":
        out[vi] = "// .version removed"
    elif choice == "no_target":
        out[ti] = "// .target removed"
    elif choice == "swap":
        out[vi], out[ti] = out[ti], out[vi]
    elif choice == "dup_version":
        out.insert(vi + 1, out[vi])
    elif choice.startswith("v"):
        out[vi] = f".version {choice[1:]}"
    else:
        out[ti] = f".target {choice}"
    return "\n".join(out), f"header {choice}"



# ---------------------------------------------------------------- instruction forms

# Single-instruction programs over registers of every type (`%TYPE_N`): every instruction form
# regwatt decodes crossed with every type suffix (FORMS), and hand-picked valid and invalid
# forms (CASES: operand counts, register classes, constants, special registers, predicates,
# addresses, vectors, barriers, modifiers, state spaces).
FORM_TYPES = ["pred", "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16",
              "f16x2", "bf16", "bf16x2", "f32", "f64"]
REG_TYPES = ["pred", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
             "s64", "f16", "f32", "f64"]
FORMS = {
 "add": "add{M}.{T} {d}, {a}, {b};",
 "sub": "sub{M}.{T} {d}, {a}, {b};",
 "add.cc": "add.cc.{T} {d}, {a}, {b};",
 "mul.lo": "mul.lo.{T} {d}, {a}, {b};",
 "mul.hi": "mul.hi.{T} {d}, {a}, {b};",
 "mul": "mul{M}.{T} {d}, {a}, {b};",
 "mad.lo": "mad.lo.{T} {d}, {a}, {b}, {c};",
 "mad": "mad{M}.{T} {d}, {a}, {b}, {c};",
 "mad.rn": "mad.rn.{T} {d}, {a}, {b}, {c};",
 "mul24.lo": "mul24.lo.{T} {d}, {a}, {b};",
 "mad24.lo": "mad24.lo.{T} {d}, {a}, {b}, {c};",
 "sad": "sad.{T} {d}, {a}, {b}, {c};",
 "div": "div.{T} {d}, {a}, {b};",
 "div.rn": "div.rn.{T} {d}, {a}, {b};",
 "div.approx": "div.approx.{T} {d}, {a}, {b};",
 "div.full": "div.full.{T} {d}, {a}, {b};",
 "rem": "rem.{T} {d}, {a}, {b};",
 "abs": "abs.{T} {d}, {a};",
 "neg": "neg.{T} {d}, {a};",
 "min": "min.{T} {d}, {a}, {b};",
 "max": "max.{T} {d}, {a}, {b};",
 "brev": "brev.{T} {d}, {a};",
 "bfe": "bfe.{T} {d}, {a}, %u32_1, %u32_2;",
 "bfi": "bfi.{T} {d}, {a}, {b}, %u32_1, %u32_2;",
 "fma": "fma.{T} {d}, {a}, {b}, {c};",
 "fma.rn": "fma.rn.{T} {d}, {a}, {b}, {c};",
 "rcp": "rcp.{T} {d}, {a};",
 "rcp.rn": "rcp.rn.{T} {d}, {a};",
 "rcp.approx": "rcp.approx.{T} {d}, {a};",
 "rcp.approx.ftz": "rcp.approx.ftz.{T} {d}, {a};",
 "sqrt": "sqrt.{T} {d}, {a};",
 "sqrt.rn": "sqrt.rn.{T} {d}, {a};",
 "sqrt.approx": "sqrt.approx.{T} {d}, {a};",
 "rsqrt.approx": "rsqrt.approx.{T} {d}, {a};",
 "rsqrt.approx.ftz": "rsqrt.approx.ftz.{T} {d}, {a};",
 "sin.approx": "sin.approx.{T} {d}, {a};",
 "sin": "sin.{T} {d}, {a};",
 "lg2.approx": "lg2.approx.{T} {d}, {a};",
 "ex2.approx": "ex2.approx.{T} {d}, {a};",
 "tanh.approx": "tanh.approx.{T} {d}, {a};",
 "copysign": "copysign.{T} {d}, {a}, {b};",
 "setp.eq": "setp.eq.{T} %pred_1, {a}, {b};",
 "setp.lt": "setp.lt.{T} %pred_1, {a}, {b};",
 "setp.lo": "setp.lo.{T} %pred_1, {a}, {b};",
 "setp.ltu": "setp.ltu.{T} %pred_1, {a}, {b};",
 "selp": "selp.{T} {d}, {a}, {b}, %pred_1;",
 "and": "and.{T} {d}, {a}, {b};",
 "not": "not.{T} {d}, {a};",
 "cnot": "cnot.{T} {d}, {a};",
 "shl": "shl.{T} {d}, {a}, %u32_1;",
 "shr": "shr.{T} {d}, {a}, %u32_1;",
 "mov": "mov.{T} {d}, {a};",
 "ld": "ld.global.{T} {d}, [%rd1];",
 "st": "st.global.{T} [%rd1], {a};",
 "atom.add": "atom.global.add.{T} {d}, [%rd1], {a};",
 "atom.min": "atom.global.min.{T} {d}, [%rd1], {a};",
 "atom.inc": "atom.global.inc.{T} {d}, [%rd1], {a};",
 "atom.and": "atom.global.and.{T} {d}, [%rd1], {a};",
 "atom.exch": "atom.global.exch.{T} {d}, [%rd1], {a};",
 "atom.cas": "atom.global.cas.{T} {d}, [%rd1], {a}, {b};",
 "red.add": "red.global.add.{T} [%rd1], {a};",
 "match.any": "match.any.sync.{T} %b32_1, {a}, -1;",
 "redux.add": "redux.sync.add.{T} {d}, {a}, -1;",
 "redux.and": "redux.sync.and.{T} {d}, {a}, -1;",
 "cvta": "cvta.global.{T} {d}, {a};",
 "cvta.to": "cvta.to.global.{T} {d}, {a};",
 "shfl": "shfl.sync.bfly.{T} {d}, {a}, 1, 31, -1;",
 "prmt": "prmt.{T} {d}, {a}, {b}, {c};",
 "lop3": "lop3.{T} {d}, {a}, {b}, {c}, 0x96;",
 "shf.l.wrap": "shf.l.wrap.{T} {d}, {a}, {b}, {c};",
 "popc": "popc.{T} %u32_1, {a};",
 "clz": "clz.{T} %u32_1, {a};",
 "bfind": "bfind.{T} %u32_1, {a};",
 "vote.ballot": "vote.sync.ballot.{T} {d}, %pred_1, -1;",
 "vote.all": "vote.sync.all.{T} {d}, %pred_1, -1;",
 "activemask": "activemask.{T} {d};",
 "nanosleep": "nanosleep.{T} 100;",
 "bar.sync": "bar.sync.{T} 0;",
 "set.eq.u32": "set.eq.u32.{T} %u32_1, {a}, {b};",
 "set.eq.X.s32": "set.eq.{T}.s32 {d}, %s32_1, %s32_2;",
 "slct.X.s32": "slct.{T}.s32 {d}, {a}, {b}, %s32_1;",
 "isspacep": "isspacep.global %pred_1, {a};",
 "fns": "fns.{T} %u32_1, {a}, %u32_1, %s32_1;",
}
CASES = [
    'add.f32 %f32_1, %f32_1, 1;',
    'add.f32 %f32_1, %f32_1, 1.0;',
    'add.f32 %f32_1, %f32_1, 0f3F800000;',
    'add.f32 %f32_1, %f32_1, 0d3FF0000000000000;',
    'add.f64 %f64_1, %f64_1, 0f3F800000;',
    'add.f64 %f64_1, %f64_1, 1;',
    'add.s32 %s32_1, %s32_1, 1.0;',
    'add.s32 %s32_1, %s32_1, 0f3F800000;',
    'add.s32 %s32_1, %s32_1, 0x7fffffffff;',
    'add.u16 %u16_1, %u16_1, 70000;',
    'add.s32 %s32_1, %s32_1, -1;',
    'mov.pred %pred_1, 1;',
    'mov.pred %pred_1, 0;',
    'mov.pred %pred_1, 2;',
    'mov.b32 %b32_1, 1.0;',
    'mov.b32 %b32_1, 0f3F800000;',
    'mov.b64 %b64_1, 1.0;',
    'mov.f32 %f32_1, 1;',
    'mov.b16 %b16_1, 1;',
    'mov.u32 %u32_1, %tid.x;',
    'mov.u16 %u16_1, %tid.x;',
    'mov.u64 %u64_1, %tid.x;',
    'mov.s32 %s32_1, %tid.x;',
    'mov.b32 %b32_1, %tid.x;',
    'mov.f32 %f32_1, %tid.x;',
    'mov.pred %pred_1, %tid.x;',
    'mov.u64 %u64_1, %clock64;',
    'mov.u32 %u32_1, %clock64;',
    'mov.u32 %u32_1, %clock;',
    'mov.u32 %u32_1, %laneid;',
    'mov.u32 %u32_1, %lanemask_lt;',
    'mov.u64 %u64_1, %globaltimer;',
    'mov.u32 %u32_1, %dynamic_smem_size;',
    'add.u32 %u32_1, %tid.x, 1;',
    'add.u64 %u64_1, %tid.x, 1;',
    'cvt.u64.u32 %u64_1, %tid.x;',
    'cvt.u32.u16 %u32_1, %tid.x;',
    'cvt.u16.u32 %u16_1, %tid.x;',
    'st.global.u32 [%rd1], 5;',
    'st.global.f32 [%rd1], 1.0;',
    'st.global.f32 [%rd1], 1;',
    'st.global.u32 [%rd1], %tid.x;',
    'ld.global.u32 %u32_1, %rd1;',
    'st.global.u32 %rd1, %u32_1;',
    'add.u64 %u64_1, [%rd1], 1;',
    'add.u64 %u64_1, %u64_1, [%rd1];',
    'mov.u64 %u64_1, [%rd1];',
    'mov.u64 %u64_1, p;',
    'add.u64 %u64_1, p, 4;',
    'mov.u32 %u32_1, p;',
    'cvta.to.global.u64 %u64_1, p;',
    'cvta.to.global.u64 %u64_1, %u64_1;',
    'cvta.to.global.u32 %u32_1, %u32_1;',
    'cvta.global.u64 %u64_1, %u64_1;',
    'cvta.to.global.u64 %u64_1, [%rd1];',
    'ld.param.u64 %u64_1, [p];',
    'ld.param.u64 %u64_1, [p+8];',
    'ld.param.u32 %u64_1, [p];',
    'ld.param.u64 %u32_1, [p];',
    'ld.global.u32 %u32_1, [%u32_1];',
    'ld.global.u32 %u32_1, [%s64_1];',
    'ld.global.u32 %u32_1, [%f64_1];',
    'ld.global.u32 %u32_1, [%b64_1+4];',
    'ld.global.u32 %u32_1, [4];',
    'ld.global.u32 %u32_1, [%pred_1];',
    'setp.eq.s32 %pred_1, %s32_1, 1;',
    'setp.eq.s32 %pred_1, 1, 2;',
    'setp.eq.s32 %pred_1|%pred_2, %s32_1, 1;',
    'setp.eq.and.s32 %pred_1, %s32_1, 1, %pred_2;',
    'setp.eq.and.s32 %pred_1, %s32_1, 1, !%pred_2;',
    'setp.eq.and.s32 %pred_1, %s32_1, 1, 1;',
    'setp.eq.s32 %pred_1, %s32_1, 1, %pred_2;',
    'setp.eq.and.s32 %pred_1, %s32_1, 1;',
    'setp.eq.s32 %pred_1, !%pred_2, 1;',
    'add.s32 %s32_1, !%pred_2, 1;',
    'selp.s32 %s32_1, 1, 2, %pred_1;',
    'selp.s32 %s32_1, 1, 2, !%pred_1;',
    'selp.s32 %s32_1, 1, 2, 1;',
    'selp.f32 %f32_1, 1.0, 2.0, %pred_1;',
    'selp.s32 %s32_1, 1, 2;',
    'not.pred %pred_1, %pred_2;',
    'not.pred %pred_1, !%pred_2;',
    'and.pred %pred_1, %pred_2, !%pred_2;',
    'or.pred %pred_1, %pred_2, 1;',
    'xor.b32 %b32_1, %b32_1, 1;',
    'mov.b64 %b64_1, {%b32_1, %b32_2};',
    'mov.b64 {%b32_1, %b32_2}, %b64_1;',
    'mov.b32 {%b16_1, %b16_2}, %b32_1;',
    'mov.b32 %b32_1, {%b16_1, %b16_2};',
    'mov.b64 %b64_1, {%b16_1, %b16_2, %b16_1, %b16_2};',
    'mov.b64 %b64_1, {%b16_1, %b16_2};',
    'mov.u64 %u64_1, {%u32_1, %u32_2};',
    'mov.b64 %b64_1, {%f32_1, %f32_2};',
    'mov.b64 {%b32_1, _}, %b64_1;',
    'mov.b32 %b32_1, _;',
    'mov.b64 %b64_1, {%b32_1, 1};',
    'mov.u32 %u32_1;',
    'mov.u32 %u32_1, %u32_1, %u32_1;',
    'ld.global.v2.u32 {%u32_1, %u32_2}, [%rd1];',
    'ld.global.v2.u32 {%u32_1, %u32_2, %u32_1}, [%rd1];',
    'ld.global.v4.u32 {%u32_1, %u32_2}, [%rd1];',
    'ld.global.v2.u32 %u64_1, [%rd1];',
    'ld.global.u32 {%u32_1}, [%rd1];',
    'ld.global.v2.u32 {%u32_1, %u64_1}, [%rd1];',
    'ld.global.v2.u32 {%u32_1, %f32_1}, [%rd1];',
    'ld.global.v2.f64 {%f64_1, %f64_2}, [%rd1];',
    'ld.global.v4.f64 {%f64_1, %f64_2, %f64_1, %f64_2}, [%rd1];',
    'ld.global.v4.u64 {%u64_1, %u64_2, %u64_1, %u64_2}, [%rd1];',
    'ld.global.v4.u16 {%u16_1, %u16_2, %u16_1, %u16_2}, [%rd1];',
    'ld.global.v4.u8 {%u16_1, %u16_2, %u16_1, %u16_2}, [%rd1];',
    'ld.global.v2.b64 {%u64_1, _}, [%rd1];',
    'st.global.v2.u32 [%rd1], {%u32_1, %u32_2};',
    'st.global.v2.u32 [%rd1], {%u32_1, 1};',
    'st.global.v2.u32 [%rd1], {%u32_1, _};',
    'st.global.v2.u32 [%rd1], %u32_1;',
    'st.global.u32 [%rd1], {%u32_1};',
    'bar.sync 0;',
    'bar.sync 15;',
    'bar.sync 16;',
    'bar.sync 0, 32;',
    'bar.sync 0, 33;',
    'bar.sync 0, 0;',
    'bar.sync 0, 1024;',
    'bar.sync 0, 2048;',
    'bar.sync %u32_1;',
    'bar.sync %u32_1, %u32_2;',
    'bar.sync %u64_1;',
    'bar.sync %f32_1;',
    'bar.sync %b16_1;',
    'bar.sync -1;',
    'bar.sync 0, -32;',
    'bar.sync;',
    'bar.sync 0, 32, 1;',
    'barrier.sync 0;',
    'barrier.sync.aligned 0, 64;',
    'bar.arrive 0, 64;',
    'bar.arrive 0;',
    'bar.red.popc.u32 %u32_1, 0, %pred_1;',
    'bar.red.popc.u32 %u32_1, 0, 64, %pred_1;',
    'bar.red.and.pred %pred_1, 0, %pred_2;',
    'bar.red.and.pred %pred_1, 0, !%pred_2;',
    'bar.red.popc.u32 %u32_1, 16, %pred_1;',
    'bar.red.popc.u32 %u32_1, 0, 33, %pred_1;',
    'bar.red.popc.u32 %u64_1, 0, %pred_1;',
    'bar.red.or.pred %u32_1, 0, %pred_1;',
    'bar.red.popc.u32 %u32_1, 0, %u32_1;',
    'bar.warp.sync -1;',
    'bar.warp.sync %u32_1;',
    'bar.warp.sync %u64_1;',
    'bar.warp.sync 0xffffffff;',
    'membar.gl;',
    'membar.gl %u32_1;',
    'fence.acq_rel.gpu;',
    'ret;',
    'exit;',
    'exit %u32_1;',
    'trap;',
    'nanosleep.u32 100;',
    'nanosleep.u32 %u32_1;',
    'nanosleep.u32 %u64_1;',
    'activemask.b32 %b32_1;',
    'activemask.b32 %b64_1;',
    'activemask.b32 %b32_1, %b32_1;',
    'cvt.f32.s32 %f32_1, %s32_1;',
    'cvt.rn.f32.s32 %f32_1, %s32_1;',
    'cvt.rzi.f32.s32 %f32_1, %s32_1;',
    'cvt.s32.f32 %s32_1, %f32_1;',
    'cvt.rzi.s32.f32 %s32_1, %f32_1;',
    'cvt.rn.s32.f32 %s32_1, %f32_1;',
    'cvt.f64.f32 %f64_1, %f32_1;',
    'cvt.rn.f64.f32 %f64_1, %f32_1;',
    'cvt.f32.f64 %f32_1, %f64_1;',
    'cvt.rn.f32.f64 %f32_1, %f64_1;',
    'cvt.rzi.f32.f64 %f32_1, %f64_1;',
    'cvt.rni.f32.f32 %f32_1, %f32_1;',
    'cvt.rn.f32.f32 %f32_1, %f32_1;',
    'cvt.f32.f32 %f32_1, %f32_1;',
    'cvt.ftz.f32.f32 %f32_1, %f32_1;',
    'cvt.sat.f32.f32 %f32_1, %f32_1;',
    'cvt.s32.s32 %s32_1, %s32_1;',
    'cvt.rn.s32.s32 %s32_1, %s32_1;',
    'cvt.sat.s32.u32 %s32_1, %u32_1;',
    'cvt.u32.u32 %u32_1, %u32_1;',
    'cvt.f16.f32 %f16_1, %f32_1;',
    'cvt.rn.f16.f32 %f16_1, %f32_1;',
    'cvt.f32.f16 %f32_1, %f16_1;',
    'cvt.rn.f32.f16 %f32_1, %f16_1;',
    'cvt.pred.s32 %pred_1, %s32_1;',
    'cvt.s32.pred %s32_1, %pred_1;',
    'cvt.s32.s32 %s32_1, 5;',
    'cvt.rn.f32.s32 %f32_1, 5;',
    'cvt.rn.f32.s32 %f32_1, 5.0;',
    'cvt.rzi.s32.f32 %s32_1, 1.0;',
    'cvt.u32.u64 %u32_1, %u64_1, %u64_1;',
    'cvt.b32.u64 %u32_1, %u64_1;',
    'cvt.u32.b64 %u32_1, %u64_1;',
    'mul.u32 %u32_1, %u32_1, %u32_1;',
    'mul.wide.u32 %u64_1, %u32_1, %u32_1;',
    'mul.wide.u32 %u32_1, %u32_1, %u32_1;',
    'mul.wide.s32 %f32_1, %s32_1, %s32_1;',
    'mul.wide.u64 %u64_1, %u64_1, %u64_1;',
    'mul.wide.u16 %u32_1, %u16_1, %u16_1;',
    'mad.wide.u32 %u64_1, %u32_1, %u32_1, %u64_1;',
    'mad.wide.u32 %u64_1, %u32_1, %u32_1, %u32_1;',
    'mad.hi.u32 %u32_1, %u32_1, %u32_1, %u32_1;',
    'mad.lo.cc.u32 %u32_1, %u32_1, %u32_1, %u32_1;',
    'madc.lo.u32 %u32_1, %u32_1, %u32_1, %u32_1;',
    'addc.u32 %u32_1, %u32_1, %u32_1;',
    'addc.cc.u32 %u32_1, %u32_1, %u32_1;',
    'mul.wide.f32 %f64_1, %f32_1, %f32_1;',
    'mul.lo.f32 %f32_1, %f32_1, %f32_1;',
    'add.sat.s32 %s32_1, %s32_1, %s32_1;',
    'add.sat.u32 %u32_1, %u32_1, %u32_1;',
    'add.sat.f32 %f32_1, %f32_1, %f32_1;',
    'add.rn.f32 %f32_1, %f32_1, %f32_1;',
    'add.rn.s32 %s32_1, %s32_1, %s32_1;',
    'add.ftz.f32 %f32_1, %f32_1, %f32_1;',
    'add.ftz.f64 %f64_1, %f64_1, %f64_1;',
    'add.rni.f32 %f32_1, %f32_1, %f32_1;',
    'shl.b32 %b32_1, %b32_1, %b32_1;',
    'shl.b32 %b32_1, %b32_1, %u16_1;',
    'shl.b64 %b64_1, %b64_1, %u64_1;',
    'shl.b64 %b64_1, %b64_1, %s32_1;',
    'bfe.u32 %u32_1, %u32_1, %b32_1, 8;',
    'shfl.sync.bfly.b32 %b32_1|%pred_1, %b32_1, 1, 31, -1;',
    'shfl.sync.bfly.b32 %b32_1, %b32_1, 1, 31;',
    'shfl.bfly.b32 %b32_1, %b32_1, 1, 31;',
    'shfl.sync.bfly.b32 %b32_1, %b32_1, %u64_1, 31, -1;',
    'vote.sync.ballot.b32 %b32_1, %pred_1, -1;',
    'vote.sync.ballot.b32 %b32_1, !%pred_1, -1;',
    'vote.sync.ballot.b32 %b32_1, %b32_1, -1;',
    'vote.sync.ballot.b32 %b32_1, 1, -1;',
    'vote.ballot.b32 %b32_1, %pred_1;',
    'vote.sync.any.pred %pred_1, %pred_1, -1;',
    'vote.sync.any.pred %b32_1, %pred_1, -1;',
    'vote.sync.any.pred %pred_1, %pred_1;',
    'match.all.sync.b32 %b32_1|%pred_1, %b32_1, -1;',
    'match.all.sync.b32 %b32_1, %b32_1, -1;',
    'match.any.sync.b64 %b32_1, %b64_1, -1;',
    'match.any.sync.b64 %b64_1, %b64_1, -1;',
    'redux.sync.add.s32 %s32_1, %s32_1, -1;',
    'redux.sync.min.u32 %u32_1, %u32_1, %u32_1;',
    'atom.global.add.u32 %u32_1, [%rd1], 1;',
    'atom.global.add.u32 %u64_1, [%rd1], 1;',
    'atom.global.add.u32 [%rd1], 1;',
    'atom.global.cas.b32 %b32_1, [%rd1], 1;',
    'atom.global.add.u32 %u32_1, [%rd1], 1, 2;',
    'atom.add.u32 %u32_1, [%rd1], 1;',
    'atom.global.add.f32 %f32_1, [%rd1], 1.0;',
    'atom.global.add.f32 %f32_1, [%rd1], %b32_1;',
    'atom.global.add.u32 %u32_1, %rd1, 1;',
    'red.global.add.u32 [%rd1], 1;',
    'red.global.add.u32 [%rd1], %u64_1;',
    'red.global.add.u32 %u32_1, [%rd1], 1;',
    'atom.shared.add.u32 %u32_1, [%u32_1], 1;',
    'ld.shared.u32 %u32_1, [%u32_1];',
    'ld.shared.u32 %u32_1, [%u64_1];',
    'st.shared.u32 [%u32_1], %u32_1;',
    'ld.local.u32 %u32_1, [%u32_1];',
    'ld.local.u32 %u32_1, [4];',
    'ld.u32 %u32_1, [4];',
    'ld.u32 %u32_1, [%u32_1];',
    'cvta.to.shared.u32 %u32_1, %u64_1;',
    'cvta.to.shared.u64 %u64_1, %u64_1;',
    'cvta.shared.u64 %u64_1, %u64_1;',
    'cvta.shared.u64 %u64_1, %u32_1;',
    'cvta.to.global.u64 %u64_1, %u32_1;',
    'cvta.to.global.u64 %u32_1, %u64_1;',
    'isspacep.global %pred_1, %u64_1;',
    'isspacep.global %u32_1, %u64_1;',
    'prefetch.global.L2 [%rd1];',
    'prefetch.global.L2 %rd1;',
    'prefetch.global.L2 [%rd1], 1;',
    'popc.b32 %u64_1, %b32_1;',
    'popc.b64 %u32_1, %b64_1;',
    'popc.b64 %b32_1, %b64_1;',
    'popc.b64 %s32_1, %b64_1;',
    'clz.b32 %s32_1, %b32_1;',
    'bfind.u64 %u32_1, %u64_1;',
    'bfind.shiftamt.u32 %u32_1, %u32_1;',
    'dp4a.u32.u32 %u32_1, %u32_1, %u32_1, %u32_1;',
    'dp4a.s32.u32 %s32_1, %u32_1, %u32_1, %s32_1;',
    'dp4a.s32.u32 %u32_1, %u32_1, %u32_1, %u32_1;',
    'dp4a.u32.u32 %u64_1, %u32_1, %u32_1, %u32_1;',
    'dp2a.lo.u32.u32 %u32_1, %u32_1, %u32_1, %u32_1;',
    'prmt.b32.f4e %b32_1, %b32_1, %b32_1, %b32_1;',
    'slct.s32.s32 %s32_1, %s32_1, %s32_1, %s32_1;',
    'slct.f32.f32 %f32_1, %f32_1, %f32_1, %f32_1;',
    'slct.s32.u32 %s32_1, %s32_1, %s32_1, %u32_1;',
    'set.eq.and.u32.s32 %u32_1, %s32_1, %s32_1, %pred_1;',
    'set.eq.u32.s32 %u32_1, %s32_1, %s32_1, %pred_1;',
    'set.eq.f32.s32 %f32_1, %s32_1, %s32_1;',
    'set.eq.u32.s32 %pred_1, %s32_1, %s32_1;',
    'testp.finite.f32 %pred_1, %f32_1;',
    'copysign.f32 %f32_1, %f32_1, %f32_1;',
    'vabsdiff4.u32.u32.u32.add %u32_1, %u32_1, %u32_1, %u32_1;',
    'vabsdiff4.u32.u32.u32 %u32_1, %u32_1, %u32_1, %u32_1;',
    'vadd2.u32.u32.u32 %u32_1, %u32_1, %u32_1, %u32_1;',
    'vadd2.s32.s32.s32.sat %u32_1, %u32_1, %u32_1, %u32_1;',
    'vadd2.u32.u32.u32 %u64_1, %u32_1, %u32_1, %u32_1;',
    'vadd2.u32.u32.u32 %u32_1, %u32_1, %u32_1;',
    'vset2.u32.u32.eq %u32_1, %u32_1, %u32_1, %u32_1;',
    'vset4.u32.u32.eq.add %u32_1, %u32_1, %u32_1, %u32_1;',
    'mov.u32 %u32_1, 0f3F800000;',
    'mov.f32 %f32_1, 0d3FF0000000000000;',
    'mov.f64 %f64_1, 0f3F800000;',
    'selp.b32 %b32_1, 0f3F800000, 1, %pred_1;',
    'selp.u32 %u32_1, 1, 0f3F800000, %pred_1;',
    'mov.f32 %f32_1, -1.5;',
    'ld.global.nc.f32 %f32_1, [%rd1];',
    'st.global.nc.f32 [%rd1], %f32_1;',
    'ld.volatile.global.f32 %f32_1, [%rd1];',
    'ld.relaxed.gpu.global.f32 %f32_1, [%rd1];',
    'ld.global.L1::evict_last.f32 %f32_1, [%rd1];',
    'ld.global.v2.f32 {%f32_1, %f32_2}, [%rd1];',
    'ld.global.v4.b32 {%b32_1, %b32_2, %b32_1, %b32_2}, [%rd1];',
    'ld.global.v8.b32 {%b32_1, %b32_2, %b32_1, %b32_2, %b32_1, %b32_2, %b32_1, %b32_2}, [%rd1];',
    'ld.shared.v4.f64 {%f64_1, %f64_2, %f64_1, %f64_2}, [%rd1];',
    'ld.param.v2.u32 {%u32_1, %u32_2}, [p];',
    'ld.global.v8.u8 {%u16_1, %u16_2, %u16_1, %u16_2, %u16_1, %u16_2, %u16_1, %u16_2}, [%rd1];',
    'ld.global.v8.u16 {%u16_1, %u16_2, %u16_1, %u16_2, %u16_1, %u16_2, %u16_1, %u16_2}, [%rd1];',
    'ld.shared.v8.u16 {%u16_1, %u16_2, %u16_1, %u16_2, %u16_1, %u16_2, %u16_1, %u16_2}, [%rd1];',
    'ld.global.v8.u32 {%u32_1, %u32_2, %u32_1, %u32_2, %u32_1, %u32_2, %u32_1, %u32_2}, [%rd1];',
    'ld.shared.v8.u32 {%u32_1, %u32_2, %u32_1, %u32_2, %u32_1, %u32_2, %u32_1, %u32_2}, [%rd1];',
    'ld.v8.u32 {%u32_1, %u32_2, %u32_1, %u32_2, %u32_1, %u32_2, %u32_1, %u32_2}, [%rd1];',
    'ld.shared.v4.u64 {%u64_1, %u64_2, %u64_1, %u64_2}, [%rd1];',
    'ld.global.v8.f64 {%f64_1, %f64_2, %f64_1, %f64_2, %f64_1, %f64_2, %f64_1, %f64_2}, [%rd1];',
    'ld.global.v2.u32 {%u64_1, %u64_2}, [%rd1];',
    'ld.global.v2.u8 {%u32_1, %u32_2}, [%rd1];',
    'mov.v2.u32 {%u32_1, %u32_2}, {%u32_1, %u32_2};',
    'add.v2.u32 %u32_1, %u32_1, %u32_1;',
    'cvt.ftz.f32.f64 %f32_1, %f64_1;',
    'cvt.rn.ftz.f32.f64 %f32_1, %f64_1;',
    'cvt.ftz.f64.f32 %f64_1, %f32_1;',
    'cvt.rzi.ftz.s32.f32 %s32_1, %f32_1;',
    'cvt.rzi.ftz.s32.f64 %s32_1, %f64_1;',
    'setp.eq.ftz.f32 %pred_1, %f32_1, %f32_1;',
    'setp.eq.ftz.f64 %pred_1, %f64_1, %f64_1;',
    'setp.eq.ftz.s32 %pred_1, %s32_1, %s32_1;',
    'mul.ftz.f64 %f64_1, %f64_1, %f64_1;',
    'min.ftz.f32 %f32_1, %f32_1, %f32_1;',
    'abs.ftz.f32 %f32_1, %f32_1;',
    'abs.ftz.f64 %f64_1, %f64_1;',
    'ex2.approx.ftz.f32 %f32_1, %f32_1;',
    'div.full.ftz.f32 %f32_1, %f32_1, %f32_1;',
    'div.rn.ftz.f64 %f64_1, %f64_1, %f64_1;',
    'rcp.approx.ftz.f64 %f64_1, %f64_1;',
    'sqrt.approx.ftz.f32 %f32_1, %f32_1;',
    'add.sat.f64 %f64_1, %f64_1, %f64_1;',
    'cvt.sat.u8.s32 %u16_1, %s32_1;',
    'mul.approx.f32 %f32_1, %f32_1, %f32_1;',
    'add.approx.f32 %f32_1, %f32_1, %f32_1;',
    'fma.rn.sat.f32 %f32_1, %f32_1, %f32_1, %f32_1;',
    'mad.sat.s32 %s32_1, %s32_1, %s32_1, %s32_1;',
    'mad.hi.sat.s32 %s32_1, %s32_1, %s32_1, %s32_1;',
    'mul.lo.sat.s32 %s32_1, %s32_1, %s32_1;',
    'add.uni.s32 %s32_1, %s32_1, %s32_1;',
    'ld.global.ca.u32 %u32_1, [%rd1];',
    'st.global.ca.u32 [%rd1], %u32_1;',
    'st.global.wb.u32 [%rd1], %u32_1;',
    'ld.global.wb.u32 %u32_1, [%rd1];',
    'ld.volatile.shared.u32 %u32_1, [%rd1];',
    'ld.param.u32 %u32_1, [%rd1];',
    'ld.const.u32 %u32_1, [%rd1];',
    'st.const.u32 [%rd1], %u32_1;',
    'st.param.u32 [%rd1], %u32_1;',
    'ld.global.nc.u32 %u32_1, [%rd1];',
    'ld.shared.nc.u32 %u32_1, [%rd1];',
    'ld.nc.u32 %u32_1, [%rd1];',
    'atom.global.add.u32 %u32_1, [p], 1;',
    'atom.param.add.u32 %u32_1, [%rd1], 1;',
    'atom.local.add.u32 %u32_1, [%rd1], 1;',
    'atom.const.add.u32 %u32_1, [%rd1], 1;',
    'red.const.add.u32 [%rd1], 1;',
    'atom.global.add.noftz.f32 %f32_1, [%rd1], %f32_1;',
    'atom.global.inc.u32 %u32_1, [%rd1], 1;',
    'atom.global.dec.u32 %u32_1, [%rd1], 1;',
    'atom.global.add.s64 %s64_1, [%rd1], 1;',
    'atom.global.exch.b32 %b32_1, [%rd1], 1;',
    'atom.global.exch.u32 %u32_1, [%rd1], 1;',
    'atom.global.cas.u32 %u32_1, [%rd1], 1, 2;',
    'atom.global.max.f32 %f32_1, [%rd1], %f32_1;',
    'atom.global.sys.add.u32 %u32_1, [%rd1], 1;',
    'atom.acq_rel.gpu.global.add.u32 %u32_1, [%rd1], 1;',
    'red.global.cas.b32 [%rd1], 1;',
    'prefetch.global.L1 [%rd1];',
    'prefetch.L1 [%rd1];',
    'prefetch.shared.L1 [%rd1];',
    'prefetchu.L1 [%rd1];',
    'membar.cta;',
    'membar.sys;',
    'fence.sc.cta;',
    'bar.cta.sync 0;',
    'bar.sync.aligned 0;',
    'barrier.sync 0, 64;',
    'barrier.arrive 1, 64;',
    'barrier.red.popc.u32 %u32_1, 0, %pred_1;',
    'bar.red.popc.u32 %u32_1, %u32_1, %pred_1;',
    'bar.red.or.pred %pred_1, 0, 1;',
    'bar.red.and.pred %pred_1, 0, 32, %pred_2;',
    'vote.sync.uni.pred %pred_1, %pred_2, -1;',
    'vote.sync.ballot.b32 %b32_1, %pred_2, %u32_1;',
    'vote.sync.ballot.b32 %b32_1, %pred_2, %u64_1;',
    'shfl.sync.up.b32 %b32_1, %b32_1, 1, 0, -1;',
    'shfl.sync.idx.b32 %f32_1, %f32_1, 1, 31, -1;',
    'shfl.sync.idx.b32 %u32_1|%pred_1, %s32_1, %u32_1, %s32_1, %b32_1;',
    'mov.u32 %u32_1, %envreg1;',
    'mov.u32 %u32_1, %pm1;',
    'mov.u32 %u32_1, %smid;',
    'mov.u32 %u32_1, %nsmid;',
    'mov.u64 %u64_1, %gridid;',
    'mov.u32 %u32_1, %gridid;',
    'mov.u32 %u32_1, %clock_hi;',
    'mov.u32 %u32_1, %globaltimer_lo;',
    'mov.u32 %u32_1, %warpid;',
    'mov.u32 %u32_1, %nwarpid;',
    'mov.u32 %u32_1, %total_smem_size;',
    'mov.u32 %u32_1, %aggr_smem_size;',
    'mov.u16 %u16_1, %laneid;',
    'mov.u16 %u16_1, %ntid.y;',
    'mov.b16 %b16_1, %ctaid.x;',
    'mov.s16 %s16_1, %nctaid.x;',
    'mov.u64 %u64_1, k;',
    'cvta.global.u64 %u64_1, k;',
    'ld.global.u32 %u32_1, [k];',
    'mov.b32 %b32_1, {%b16_1, 1};',
    'mov.b64 {%b16_1, %b16_2, %b16_1, %b16_2}, %b64_1;',
    'mov.b64 {%u32_1, %f32_1}, %b64_1;',
    'mov.b32 {%u8_1, %u8_2, %u8_1, %u8_2}, %b32_1;',
    'mov.b16 {%b8_1, %b8_2}, %b16_1;',
    'mov.f64 %f64_1, {%b32_1, %b32_2};',
    'mov.b64 %b64_1, {%b32_1};',
    'cvt.u8.u32 %u8_1, %u32_1;',
    'cvt.u32.u8 %u32_1, %u8_1;',
    'add.u8 %u8_1, %u8_1, %u8_1;',
    'mov.u8 %u8_1, %u8_2;',
    'mov.b8 %b8_1, %b8_2;',
    'ld.global.u8 %u8_1, [%rd1];',
    'st.global.b8 [%rd1], %b8_1;',
    'setp.eq.u8 %pred_1, %u8_1, %u8_2;',
    'bra LBL; LBL:',
    '@%pred_1 bra.uni LBL2; LBL2:',
    'ret.uni;',
    '@!%pred_1 ret;',
]


def form_reg(t, i=1):
    m = {"bf16": "b16", "bf16x2": "b32", "f16x2": "b32"}
    return f"%{m.get(t, t)}_{i}"


def form_program(body, target):
    half2 = int(re.sub(r"\D", "", target) or 0) >= 53
    regs = "".join(f".reg .{t} %{t}_<3>;\n" for t in REG_TYPES + (["f16x2"] if half2 else []))
    return (f".version 8.8\n.target {target}\n.address_size 64\n"
            f".visible .entry k(.param .u64 p)\n{{\n{regs}.reg .b64 %rd<3>;\n{body}\nret;\n}}\n")


def form_corpus(work):
    """(path, kind, description, arch) of the single-instruction programs."""
    out, seen = [], set()
    jobs = [("forms", t) for t in ("sm_90", "sm_75", "sm_30")] + [("cases", "sm_75"), ("cases", "sm_100")]
    for kind, target in jobs:
        if kind == "forms":
            bodies = [f.replace("{M}", "").format(T=t, d=form_reg(t), a=form_reg(t), b=form_reg(t, 2),
                                                  c=form_reg(t))
                      for f in FORMS.values() for t in FORM_TYPES]
        else:
            bodies = [c.replace("; LBL", ";\nLBL") for c in CASES]
        arch = target if int(target[3:]) >= 75 else "sm_75"
        for i, b in enumerate(bodies):
            if (b, target) in seen:
                continue
            seen.add((b, target))
            p = os.path.join(work, f"{kind}_{target}_{i:04d}.ptx")
            open(p, "w").write(form_program(b, target))
            out.append((p, f"{kind}@{target}", b, arch))
    return out

# ---------------------------------------------------------------- running

def original_target(text):
    m = re.search(r"^\.target\s+(sm_\d+)", text, re.M)
    return m.group(1) if m else "sm_75"


def run_ptxas(ptxas, path, arch):
    r = subprocess.run([ptxas, f"-arch={arch}", "-o", os.devnull, path],
                       capture_output=True, text=True, timeout=300)
    if r.returncode < 0 or r.returncode in (134, 136, 139):  # killed by a signal (255 = errors)
        return None, f"ptxas crashed (exit status {r.returncode})"
    msg = (r.stdout + r.stderr).strip().splitlines()
    first = next((m for m in msg if "error" in m or "fatal" in m), msg[0] if msg else "")
    first = re.sub(r"^ptxas [^,]*, line \d+; ", "", first)
    return r.returncode == 0, first


def run_checker(checker, paths):
    out = {}
    for i in range(0, len(paths), 200):
        chunk = paths[i:i + 200]
        r = subprocess.run([checker] + chunk, capture_output=True, text=True, check=True)
        for line in r.stdout.splitlines():
            path, kind, msg = (line.split("\t") + ["", ""])[:3]
            out[path] = (kind, msg)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--per-kind", type=int, default=3, help="mutants per kind per base file")
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--ptxas")
    ap.add_argument("--checker")
    ap.add_argument("--out", help="CSV of every mutant's verdicts")
    ap.add_argument("--keep", help="directory to keep the corpus in (default: a temporary one)")
    ap.add_argument("--no-forms", action="store_true",
                    help="mutants of the repository's PTX only (no single-instruction forms)")
    args = ap.parse_args()

    ptxas = find_ptxas(args.ptxas)
    checker = build_checker(args.checker)
    work = args.keep or tempfile.mkdtemp(prefix="ptx_corpus_")
    os.makedirs(work, exist_ok=True)
    rng = random.Random(args.seed)

    corpus = []  # (path, kind, desc, arch)
    bases = base_files()
    base_ok = {}
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        futs = {b: ex.submit(run_ptxas, ptxas, b, original_target(open(b).read())) for b in bases}
        for b, fu in futs.items():
            base_ok[b] = bool(fu.result()[0])
    base_verdict = run_checker(checker, bases)
    unsupported = [b for b in bases if base_ok[b] and base_verdict[b][0] == "syntax"]
    for b in unsupported:
        print(f"not in the corpus (regwatt's parser does not support it): "
              f"{os.path.relpath(b, ROOT)}: {base_verdict[b][1]}", file=sys.stderr)
    for bi, b in enumerate(bases):
        text = open(b).read()
        if not base_ok[b] or b in unsupported:
            continue  # ptxas rejects the original (a deliberately broken test file)
        arch = original_target(text)
        stem = f"{bi:03d}_{os.path.splitext(os.path.basename(b))[0]}"
        p = os.path.join(work, f"{stem}__valid.ptx")
        open(p, "w").write(text)
        corpus.append((p, "valid", os.path.relpath(b, ROOT), arch))
        for kind in KINDS:
            seen = set()
            for j in range(args.per_kind * 4):
                if sum(1 for c in corpus if c[0].startswith(os.path.join(work, stem + "__" + kind))) >= args.per_kind:
                    break
                m = mutate(kind, text, rng)
                if m is None or m[1] in seen:
                    continue
                seen.add(m[1])
                p = os.path.join(work, f"{stem}__{kind}_{j}.ptx")
                open(p, "w").write(m[0])
                corpus.append((p, kind, f"{os.path.relpath(b, ROOT)}: {m[1]}", arch))

    if not args.no_forms:
        corpus.extend(form_corpus(work))
    print(f"corpus: {len(corpus)} files ({sum(1 for c in corpus if c[1] == 'valid')} originals) "
          f"in {work}", file=sys.stderr)
    verdicts = run_checker(checker, [c[0] for c in corpus])
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        px = list(ex.map(lambda c: run_ptxas(ptxas, c[0], c[3]), corpus))

    rows = []
    crashed = []
    for (path, kind, desc, arch), (p_ok, p_msg) in zip(corpus, px):
        r_kind, r_msg = verdicts.get(path, ("missing", ""))
        if p_ok is None:
            crashed.append((desc, p_msg))
            continue
        rows.append({
            "file": os.path.basename(path), "kind": kind, "mutation": desc,
            "ptxas": "accept" if p_ok else "reject", "ptxas_message": p_msg,
            "regwatt": "accept" if r_kind == "ok" else "reject", "regwatt_rule": r_kind,
            "regwatt_message": r_msg,
        })
    if args.out:
        with open(args.out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)

    for desc, msg in crashed:
        print(f"left out, {msg}: {desc[:120]}")
    n = len(rows)
    both_acc = sum(1 for r in rows if r["ptxas"] == r["regwatt"] == "accept")
    both_rej = sum(1 for r in rows if r["ptxas"] == r["regwatt"] == "reject")
    print(f"\n{n} files: agreement {both_acc + both_rej}/{n} = {100.0 * (both_acc + both_rej) / n:.1f} %"
          f" (both accept {both_acc}, both reject {both_rej})")
    print("\nby kind: files, both accept, both reject, regwatt-only reject, ptxas-only reject")
    for kind in ["valid"] + KINDS + sorted({r["kind"] for r in rows if "@" in r["kind"]}):
        rs = [r for r in rows if r["kind"] == kind]
        if not rs:
            continue
        c = collections.Counter((r["ptxas"], r["regwatt"]) for r in rs)
        print(f"  {kind:<15} {len(rs):>5} {c[('accept', 'accept')]:>5} {c[('reject', 'reject')]:>5}"
              f" {c[('accept', 'reject')]:>5} {c[('reject', 'accept')]:>5}")
    dis = [r for r in rows if r["ptxas"] != r["regwatt"]]
    print(f"\ndisagreements: {len(dis)}")
    classes = collections.defaultdict(list)
    for r in dis:
        if r["regwatt"] == "reject":
            key = ("regwatt rejects, ptxas accepts", r["regwatt_rule"])
        else:
            key = ("ptxas rejects, regwatt accepts", re.sub(r"'[^']*'|\d+", "_", r["ptxas_message"])[:90])
        classes[key].append(r)
    for (side, why), rs in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        ex = rs[0]
        print(f"  [{len(rs):>3}] {side}: {why}")
        print(f"        e.g. {ex['mutation'][:160]}")
        msg = ex["regwatt_message"] if ex["regwatt"] == "reject" else ex["ptxas_message"]
        print(f"        {msg[:160]}")


if __name__ == "__main__":
    main()
