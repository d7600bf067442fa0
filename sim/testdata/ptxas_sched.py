#!/usr/bin/env python3
"""Measures how ptxas's scheduler and unroller raise the register count on sm_75, for
sim/src/analysis/schedule.rs (issue 3).

1. unroll threshold: a synthetic single-block loop (2 loads, N fma, a counter stepped by an
   immediate) is compiled for N = 40..50; the SASS loop body has 4x the loads while the PTX body
   has at most 46 instructions besides its loads and 1x from 47 on (schedule::UNROLL,
   schedule::UNROLL_MAX_BODY). The same loop with a register step (grid-stride) or with
   `.pragma "nounroll"` is not unrolled.
1b. if-conversion: chains of 2, 4 and 8 blocks, each skipped by `@p bra`, holding one
   ld.global, N dependent fma and an add; the SASS predicates every block (no conditional BRA)
   up to N = 18 (20 instructions) and keeps every branch from N = 19 (schedule::IF_CONVERT_MAX).
   With memory: ld.global + st.global keeps the branches; ld.global.nc + st.global,
   ld.global + st.shared, ld.shared + st.global and a lone st.global are predicated
   (schedule::if_convertible).
1c. store data registers: k fma results of two loaded values, each then stored once
   (schedule::odd_registers, schedule::list_schedule). Through a per-thread 64-bit register
   address (st.global [%rd+4i], red.global.add) every stored value takes an odd register
   (R9, R11, R13, ...; 2k + 8 registers for k = 4, 8); through a uniform address
   (st.global [param+4i]: STG [UR4]) or to shared memory the registers are consecutive. The
   STG are issued as soon as their value is ready, between the remaining FFMA, not sunk to
   the end (the SASS of k = 8 is printed).
1d. IMAD.WIDE constants (schedule::imad_wide_constants): `mul.wide` by an immediate added to a
   kernel-parameter pointer (one pointer; three pointers at the same index; at different
   indices; element sizes 4 and 8; mul.wide.u32; a grid-stride loop; and the same with a
   per-thread base). The SASS sets the immediate with `MOV Rk, 0x4` (IMAD.WIDE R2, R0, R7,
   c[0x0][0x160]): one register per distinct value (8 and 4: R5 and R7), shared by every
   IMAD.WIDE, at the top of the block (before the S2R of the index; before the loop) and live
   to the last IMAD.WIDE. Against a per-thread base the immediate is folded (IMAD.WIDE R, R,
   0x4, R). The registers ptxas reports and the SASS are printed.
1e. compare-and-swap operands (schedule::cas_operands, schedule::cas_pairs): `atom.global.cas`
   on a kernel-parameter address and on a per-thread address, .b32 and .b64, against
   `atom.add` and `atom.exch` on the parameter address, and `atomicMax` on a float as a retry
   loop of `atom.cas` (parameter and per-thread address). The SASS reads the compare and new
   values from an aligned pair (`ATOMG.E.CAS.STRONG.GPU PT, R5, [R4], R6, R7`; .b64: R4:R5 and
   R6:R7) and the address from a register pair even when it is a parameter (`MOV R4, UR4;
   MOV R5, UR5`), where `atom.add`/`atom.exch` read `[UR4]`; in the retry loop the new value
   stays in the odd half for the whole loop and the compare value is moved into the even half
   before every try. The registers ptxas reports and the SASS are printed.
1f. warp-aggregated atomics (schedule::aggregated_atomics, schedule::AGGREGATE_TEMPS): a
   loaded value reduced into a shared or global word by every atomic operation (`red`, or
   `atom` with its result stored), at a uniform address (a symbol, a parameter pointer) and a
   per-thread one. The SASS of `add`, `and`, `or`, `xor`, `min`, `max` on 32-bit integers at a
   uniform address with an unused result is a warp-aggregated reduction (`VOTE.ANY`, five
   `SHFL.BFLY` stages, `S2R SR_LANEID`; marked *) and takes 12 registers where `inc` takes 8;
   no other case has it. The registers ptxas reports are printed, and the SASS of the
   shared `red.add`.
2. loops of the suite and held-out kernels: for every single-block PTX loop, its instruction and
   load counts, whether it carries `.pragma "nounroll"` and whether its counter is stepped by an
   immediate, next to the load counts of the SASS loops (backward branches) of the same kernel.
   Written to sim/testdata/ptxas_sched.csv.
3. --sass KERNEL FILE prints the SASS of one kernel (the examples cited in schedule.rs:
   matrixMul_naive's 32 hoisted LDG, bfs_commit's [R.64+UR] addresses, k21_fence_reduce's
   narrow volatile loads, k13_f2i_nan's sunk stores).

Needs ptxas (pip install nvidia-cuda-nvcc-cu12==12.9.86) and nvdisasm
(pip install nvidia-cuda-nvdisasm). Run: python3 sim/testdata/ptxas_sched.py
"""
import glob, os, re, subprocess, sys, tempfile
import nvidia
import nvidia.cuda_nvcc as m

PTXAS = os.path.join(list(m.__path__)[0], "bin", "ptxas")
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", ".."))


def find_nvdisasm():
    for p in nvidia.__path__:
        for c in glob.glob(os.path.join(p, "*", "bin", "nvdisasm")):
            return c
    sys.exit("nvdisasm not found (pip install nvidia-cuda-nvdisasm)")


NVDISASM = find_nvdisasm()


def compile_ptx(path):
    """(registers per kernel, SASS text) of a PTX file for sm_75."""
    with tempfile.TemporaryDirectory() as td:
        cubin = os.path.join(td, "k.cubin")
        out = subprocess.run([PTXAS, "-v", "-arch=sm_75", path, "-o", cubin],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        sass = subprocess.run([NVDISASM, "-c", cubin], capture_output=True, text=True).stdout
    regs, cur = {}, None
    for line in out.stderr.splitlines():
        mm = re.search(r"Compiling entry function '([^']+)'", line)
        if mm:
            cur = mm.group(1)
        mm = re.search(r"Used (\d+) registers", line)
        if mm and cur:
            regs[cur] = int(mm.group(1))
    return regs, sass


def sass_kernel(sass, k):
    mm = re.search(r"\.text\." + re.escape(k) + r"\s.*?(?=//-----|\Z)", sass, re.S)
    return mm.group(0) if mm else ""


def sass_loops(text):
    """Load counts of the SASS loop bodies (a backward BRA to a label)."""
    ins, addr = [], {}
    for line in text.split("\n"):
        mm = re.match(r"\s*(\.L_x_\d+):", line)
        if mm:
            addr[mm.group(1)] = len(ins)
        mm = re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?);", line)
        if mm:
            ins.append(mm.group(1))
    loops = []
    for i, x in enumerate(ins):
        mm = re.search(r"BRA\s+`\((\.L_x_\d+)\)", x)
        if mm and addr.get(mm.group(1), 1 << 30) < i:
            seg = ins[addr[mm.group(1)]:i + 1]
            loops.append(sum(1 for y in seg if re.search(r"\bLD(G|S|L|C)?\b|\bLD[GSLC]\.", y)))
    return loops


# ---------- 1. unroll threshold ----------
def synthetic(nfma, step="1", pragma=False):
    body = ["ld.global.f32 %f10, [%rd4];", "ld.global.f32 %f11, [%rd4+4096];"]
    body += [f"fma.rn.f32 %f1, %f1, %f{10 + j % 2}, %f2;" for j in range(nfma)]
    return f""".version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 n, .param .u32 s)
{{
.reg .pred %p<3>;
.reg .b32 %r<9>;
.reg .f32 %f<20>;
.reg .b64 %rd<9>;
ld.param.u64 %rd1, [p];
ld.param.u32 %r1, [n];
ld.param.u32 %r5, [s];
cvta.to.global.u64 %rd2, %rd1;
mov.u32 %r2, %tid.x;
mul.wide.u32 %rd3, %r2, 4;
add.s64 %rd4, %rd2, %rd3;
mov.f32 %f1, 0f00000000;
mov.f32 %f2, 0f3F800000;
mov.u32 %r3, 0;
L1:
{'.pragma "nounroll";' if pragma else ''}
{chr(10).join(body)}
add.s64 %rd4, %rd4, 1024;
add.s32 %r3, %r3, {step};
setp.lt.s32 %p1, %r3, %r1;
@%p1 bra L1;
st.global.f32 [%rd2], %f1;
ret;
}}
"""


def unroll_of(src):
    _, sass = compile_src(src)
    loops = sass_loops(sass_kernel(sass, "k"))
    return max(loops) // 2 if loops else 0


def hammocks(nh, body):
    """A kernel with `nh` blocks, each skipped by `@p bra` (p thread-dependent); `body` is the
    guarded block's PTX (format fields o, o2: byte offsets, f: a fresh %f register)."""
    s = (".version 7.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry k(.param .u64 p, .param .u64 q, .param .u32 n)\n{\n"
         ".reg .pred %p<20>; .reg .b32 %r<40>; .reg .f32 %f<4000>; .reg .b64 %rd<40>;\n"
         ".shared .align 4 .b8 sm[4096];\n"
         "ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n]; ld.param.u64 %rd11, [q];\n"
         "cvta.to.global.u64 %rd2, %rd1; cvta.to.global.u64 %rd12, %rd11;\n"
         "mov.u32 %r2, %tid.x;\n"
         "mul.wide.u32 %rd3, %r2, 4; add.s64 %rd4, %rd2, %rd3; add.s64 %rd14, %rd12, %rd3;\n"
         "mov.u64 %rd5, sm; add.s64 %rd6, %rd5, %rd3;\nmov.f32 %f1, 0f00000000;\n")
    for h in range(nh):
        s += f"add.s32 %r{10 + h}, %r2, {h * 7};\nsetp.ge.u32 %p{h + 1}, %r{10 + h}, %r1;\n"
        s += f"@%p{h + 1} bra L{h};\n" + body.format(o=h * 512, o2=h * 512 + 256, f=20 + h)
        s += f"L{h}:\n"
    return s + "st.global.f32 [%rd4], %f1;\nret;\n}\n"


def fma_chain(n):
    """A guarded block: ld.global, n dependent fma, add into %f1 (n + 2 instructions)."""
    b = "ld.global.f32 %f{f}0, [%rd4+{o}];\n"
    for j in range(n):
        b += f"fma.rn.f32 %f{{f}}{j + 1}, %f{{f}}{j}, %f{{f}}{j}, 0f3F800000;\n"
    return b + f"add.f32 %f1, %f1, %f{{f}}{n};\n"


def branches_left(src):
    """Conditional branches in the SASS of kernel k (0: every guarded block predicated)."""
    _, sass = compile_src(src)
    return len(re.findall(r"@!?P\d+ +BRA", sass_kernel(sass, "k")))


def stores(k, how):
    """k fma results of two loaded values, each stored once (`how`: st.global through a
    per-thread register address, red.global.add, st.global through the parameter's address,
    st.shared)."""
    s = (".version 7.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry k(.param .u64 p0, .param .u64 p1)\n{\n"
         ".reg .f32 %f<100>; .reg .b32 %r<10>; .reg .b64 %rd<40>;\n"
         ".shared .align 4 .b8 sm[4096];\n"
         "ld.param.u64 %rd1, [p0]; ld.param.u64 %rd2, [p1];\n"
         "cvta.to.global.u64 %rd3, %rd1; cvta.to.global.u64 %rd4, %rd2;\n"
         "mov.u32 %r1, %tid.x; mul.wide.u32 %rd5, %r1, 4;\n"
         "add.s64 %rd6, %rd3, %rd5; add.s64 %rd7, %rd4, %rd5;\n"
         "mov.u64 %rd20, sm; add.s64 %rd21, %rd20, %rd5;\n"
         "ld.global.f32 %f1, [%rd6]; ld.global.f32 %f2, [%rd6+4];\n")
    for i in range(k):
        s += f"fma.rn.f32 %f{10 + i}, %f1, %f2, 0f{0x3F800000 + i * 0x100000:08X};\n"
    for i in range(k):
        s += {"st": f"st.global.f32 [%rd7+{4 * i}], %f{10 + i};\n",
              "red": f"red.global.add.f32 [%rd7+{4 * i}], %f{10 + i};\n",
              "uniform": f"st.global.f32 [%rd4+{4 * i}], %f{10 + i};\n",
              "shared": f"st.shared.f32 [%rd21+{4 * i}], %f{10 + i};\n"}[how]
    return s + "ret;\n}\n"


def imad_wide(kind):
    """`mul.wide` by an immediate added to parameter pointers (section 1d)."""
    s = (".version 7.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry k(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u32 n)\n{\n"
         ".reg .pred %p<4>; .reg .f32 %f<10>; .reg .f64 %fd<4>; .reg .b32 %r<20>;"
         " .reg .b64 %rd<40>;\n"
         "ld.param.u64 %rd1, [p0]; ld.param.u64 %rd2, [p1]; ld.param.u64 %rd3, [p2];\n"
         "cvta.to.global.u64 %rd5, %rd1; cvta.to.global.u64 %rd6, %rd2;"
         " cvta.to.global.u64 %rd7, %rd3;\n"
         "mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;"
         " mad.lo.s32 %r4, %r2, %r3, %r1;\n")
    three = ("add.s64 %rd10, %rd5, %rd9; add.s64 %rd11, %rd6, %rd9; add.s64 %rd12, %rd7, %rd9;\n"
             "ld.global.f32 %f1, [%rd10]; ld.global.f32 %f2, [%rd11]; add.f32 %f3, %f1, %f2;"
             " st.global.f32 [%rd12], %f3;\n")
    s += {
        "one pointer": "mul.wide.s32 %rd9, %r4, 4; add.s64 %rd10, %rd5, %rd9;"
                       " ld.global.f32 %f1, [%rd10]; add.f32 %f2, %f1, 0f3F800000;"
                       " st.global.f32 [%rd10], %f2;\n",
        "three, same index": "mul.wide.s32 %rd9, %r4, 4;\n" + three,
        "three, different indices":
            "mul.wide.s32 %rd9, %r4, 4; add.s64 %rd10, %rd5, %rd9; add.s32 %r5, %r4, 7;"
            " mul.wide.s32 %rd13, %r5, 4; add.s64 %rd11, %rd6, %rd13;"
            " mul.lo.s32 %r6, %r4, 3; mul.wide.s32 %rd14, %r6, 4; add.s64 %rd12, %rd7, %rd14;\n"
            "ld.global.f32 %f1, [%rd10]; ld.global.f32 %f2, [%rd11]; add.f32 %f3, %f1, %f2;"
            " st.global.f32 [%rd12], %f3;\n",
        "sizes 4 and 8":
            "mul.wide.s32 %rd9, %r4, 4; add.s64 %rd10, %rd5, %rd9; mul.wide.s32 %rd13, %r4, 8;"
            " add.s64 %rd11, %rd6, %rd13; mul.lo.s32 %r6, %r4, 3; mul.wide.s32 %rd14, %r6, 4;"
            " add.s64 %rd12, %rd7, %rd14;\n"
            "ld.global.f32 %f1, [%rd10]; ld.global.f64 %fd1, [%rd11];"
            " cvt.rn.f32.f64 %f2, %fd1; add.f32 %f3, %f1, %f2; st.global.f32 [%rd12], %f3;\n",
        "mul.wide.u32": "mul.wide.u32 %rd9, %r4, 4;\n" + three,
        "grid-stride loop":
            "ld.param.u32 %r10, [n]; mov.u32 %r11, %nctaid.x; mul.lo.s32 %r12, %r11, %r3;\n"
            "setp.ge.s32 %p1, %r4, %r10; @%p1 bra DONE;\nLOOP:\n"
            "mul.wide.s32 %rd9, %r4, 4;\n" + three +
            "add.s32 %r4, %r4, %r12; setp.lt.s32 %p2, %r4, %r10; @%p2 bra LOOP;\nDONE:\n",
        "per-thread base":
            "ld.global.u64 %rd20, [%rd5]; mul.wide.s32 %rd9, %r4, 4; add.s64 %rd10, %rd20, %rd9;"
            " ld.global.f32 %f1, [%rd10]; add.f32 %f2, %f1, 0f3F800000;"
            " st.global.f32 [%rd10], %f2;\n",
    }[kind]
    return s + "ret;\n}\n"


def cas(kind):
    """`atom.global.cas` operands (section 1e)."""
    s = (".version 7.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry k(.param .u64 p0, .param .u64 p1, .param .u32 a, .param .u32 b)\n{\n"
         ".reg .pred %p<4>; .reg .f32 %f<10>; .reg .b32 %r<20>; .reg .b64 %rd<40>;\n"
         "ld.param.u64 %rd1, [p0]; ld.param.u64 %rd2, [p1]; cvta.to.global.u64 %rd3, %rd1;"
         " cvta.to.global.u64 %rd4, %rd2; ld.param.u32 %r1, [a]; ld.param.u32 %r2, [b];\n"
         "mov.u32 %r3, %tid.x; mul.wide.u32 %rd5, %r3, 4; add.s64 %rd6, %rd3, %rd5;\n")
    retry = ("mov.b32 %f2, %r9; setp.le.f32 %p1, %f1, %f2; @%p1 bra D;\n"
             "atom.global.cas.b32 %r10, [{a}], %r9, %r8; setp.ne.s32 %p2, %r10, %r9;"
             " mov.u32 %r9, %r10; @%p2 bra L;\nD:\n")
    s += {
        "add, parameter address":
            "atom.global.add.u32 %r5, [%rd3], %r1; st.global.u32 [%rd6], %r5;\n",
        "exch, parameter address":
            "atom.global.exch.b32 %r5, [%rd3], %r1; st.global.u32 [%rd6], %r5;\n",
        "cas.b32, parameter address":
            "atom.global.cas.b32 %r5, [%rd3], %r1, %r2; st.global.u32 [%rd6], %r5;\n",
        "cas.b32, parameter address, per-thread values":
            "add.s32 %r7, %r3, 1; atom.global.cas.b32 %r5, [%rd3], %r3, %r7;"
            " st.global.u32 [%rd6], %r5;\n",
        "cas.b32, per-thread address":
            "atom.global.cas.b32 %r5, [%rd6], %r1, %r2; st.global.u32 [%rd6+4], %r5;\n",
        "cas.b64, parameter address":
            "cvt.u64.u32 %rd10, %r1; cvt.u64.u32 %rd11, %r2;"
            " atom.global.cas.b64 %rd12, [%rd3], %rd10, %rd11; st.global.u64 [%rd6], %rd12;\n",
        "cas.b64, per-thread address":
            "cvt.u64.u32 %rd10, %r1; cvt.u64.u32 %rd11, %r2;"
            " atom.global.cas.b64 %rd12, [%rd6], %rd10, %rd11; st.global.u64 [%rd6+8], %rd12;\n",
        "atomicMax retry loop, parameter address":
            "ld.global.f32 %f1, [%rd6]; mov.b32 %r8, %f1; ld.global.u32 %r9, [%rd4];\nL:\n"
            + retry.format(a="%rd4"),
        "atomicMax retry loop, per-thread address":
            "ld.global.f32 %f1, [%rd6]; mov.b32 %r8, %f1; add.s64 %rd7, %rd4, %rd5;"
            " ld.global.u32 %r9, [%rd7];\nL:\n" + retry.format(a="%rd7"),
    }[kind]
    return s + "ret;\n}\n"


def aggregated(op, space, addr, used):
    """One atomic on a loaded value (section 1f): `op` at a `space` word, `addr` "uniform"
    (a symbol or a parameter pointer) or "per-thread", its result stored (`used`) or not
    (`red`)."""
    ty = {"add.u64": "u64", "add.f32": "f32", "min": "s32", "max": "s32"}.get(
        op, "u32" if op in ("add", "inc", "dec") else "b32")
    name = op.split(".")[0]
    s = (".version 7.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
         ".reg .pred %p<2>; .reg .b32 %r<9>; .reg .f32 %f<4>; .reg .b64 %rd<9>;\n"
         ".shared .align 8 .b32 s[64];\n"
         "ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1; ld.param.u64 %rd7, [q];"
         " cvta.to.global.u64 %rd7, %rd7;\n"
         "mov.u32 %r1, %tid.x; mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
         "ld.global.u32 %r2, [%rd3]; cvt.u64.u32 %rd5, %r2; mov.b32 %f1, %r2;\n")
    val = {"u64": "%rd5", "f32": "%f1"}.get(ty, "%r2")
    if space == "shared" and addr == "uniform":
        a = "[s]"
    elif space == "shared":
        s += ("mov.u32 %r5, s; shl.b32 %r6, %r1, 3; and.b32 %r6, %r6, 24;"
              " add.u32 %r5, %r5, %r6;\n")
        a = "[%r5]"
    else:
        a = "[%rd7]" if addr == "uniform" else "[%rd3]"
    if used:
        dst = {"u64": "%rd6", "f32": "%f2"}.get(ty, "%r3")
        s += f"atom.{space}.{name}.{ty} {dst}, {a}, {val};\n"
        s += f"st.global.{ty} [%rd3+8], {dst};\n"
    else:
        s += f"red.{space}.{name}.{ty} {a}, {val};\n"
    return s + "bar.sync 0; ld.shared.u32 %r4, [s]; st.global.u32 [%rd3], %r4;\nret;\n}\n"


def compile_src(src):
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as fh:
        fh.write(src)
    try:
        return compile_ptx(fh.name)
    finally:
        os.unlink(fh.name)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--sass":
        _, sass = compile_ptx(sys.argv[3])
        print(sass_kernel(sass, sys.argv[2]))
        return
    print("unroll threshold (non-load instructions = N fma + 4: add, add, setp, bra)")
    for nfma in range(38, 47):
        print(f"  N={nfma:2d} non-load={nfma + 4:2d} unroll x{unroll_of(synthetic(nfma))}")
    print("  register step (grid-stride), N=4: unroll x%d" % unroll_of(synthetic(4, "%r5")))
    print("  .pragma \"nounroll\", N=4: unroll x%d" % unroll_of(synthetic(4, pragma=True)))

    # ---------- if-conversion (schedule::IF_CONVERT_MAX, schedule::if_convertible) ----------
    print("if-conversion threshold (guarded block = ld.global + N fma + add; branches left)")
    for nh in (2, 4, 8):
        for n in range(16, 21):
            print(f"  {nh} blocks, N={n:2d} ({n + 2} instructions): "
                  f"{branches_left(hammocks(nh, fma_chain(n)))} branches")
    print("if-conversion and memory (4 guarded blocks; branches left)")
    for name, body in [
            ("ld.global + st.shared", "ld.global.f32 %f{f}, [%rd4+{o}];\n"
             "st.shared.f32 [%rd6+{o}], %f{f};\n"),
            ("ld.shared + st.global", "ld.shared.f32 %f{f}, [%rd6+{o}];\n"
             "st.global.f32 [%rd4+{o}], %f{f};\n"),
            ("ld.global + st.global (other pointer)", "ld.global.f32 %f{f}, [%rd4+{o}];\n"
             "st.global.f32 [%rd14+{o}], %f{f};\n"),
            ("ld.global + st.global (same pointer)", "ld.global.f32 %f{f}, [%rd4+{o}];\n"
             "st.global.f32 [%rd4+{o2}], %f{f};\n"),
            ("ld.global.nc + st.global", "ld.global.nc.f32 %f{f}, [%rd4+{o}];\n"
             "st.global.f32 [%rd14+{o2}], %f{f};\n"),
            ("st.global only", "st.global.f32 [%rd14+{o}], %f1;\n")]:
        print(f"  {name}: {branches_left(hammocks(4, body))} branches")

    # ---------- store data registers (schedule::odd_registers) ----------
    print("store data registers (k fma results, each stored once; registers ptxas reports)")
    for how in ("st", "red", "uniform", "shared"):
        counts = [compile_src(stores(k, how))[0]["k"] for k in (4, 8, 12)]
        print(f"  {how:8s} k=4,8,12: {counts}")
    print(sass_kernel(compile_src(stores(8, "st"))[1], "k"))

    # ---------- IMAD.WIDE constants (schedule::imad_wide_constants) ----------
    print("IMAD.WIDE constants (mul.wide by an immediate + parameter pointer)")
    for kind in ("one pointer", "three, same index", "three, different indices",
                 "sizes 4 and 8", "mul.wide.u32", "grid-stride loop", "per-thread base"):
        regs, sass = compile_src(imad_wide(kind))
        text = sass_kernel(sass, "k")
        ins = [re.sub(r"\s*/\*[0-9a-f]{4}\*/\s*", "", l).split(" ;")[0].strip()
               for l in text.splitlines() if re.search(r"/\*[0-9a-f]{4}\*/", l)]
        ins = [x for x in ins if re.search(r"MOV R\d+, 0x|IMAD\.WIDE|S2R|BRA|EXIT", x)]
        print(f"  {kind}: {regs['k']} registers; " + "; ".join(ins))

    # ---------- compare-and-swap operands (schedule::cas_operands, schedule::cas_pairs) ----------
    print("compare-and-swap operands (registers ptxas reports; SASS without NOP)")
    for kind in ("add, parameter address", "exch, parameter address",
                 "cas.b32, parameter address", "cas.b32, parameter address, per-thread values",
                 "cas.b32, per-thread address", "cas.b64, parameter address",
                 "cas.b64, per-thread address", "atomicMax retry loop, parameter address",
                 "atomicMax retry loop, per-thread address"):
        regs, sass = compile_src(cas(kind))
        text = sass_kernel(sass, "k")
        ins = [re.sub(r"\s*/\*[0-9a-f]{4}\*/\s*", "", l).split(" ;")[0].strip()
               for l in text.splitlines() if re.search(r"/\*[0-9a-f]{4}\*/", l)]
        print(f"  {kind}: {regs['k']} registers; "
              + "; ".join(x for x in ins if not x.startswith("NOP")))

    # ---------- warp-aggregated atomics (schedule::aggregated_atomics) ----------
    print("warp-aggregated atomics (registers ptxas reports; * = SHFL.BFLY reduction)")
    ops = ("add", "or", "and", "xor", "min", "max", "inc", "dec", "exch", "add.u64", "add.f32")
    for space in ("shared", "global"):
        for addr in ("uniform", "per-thread"):
            for used in (False, True):
                row = []
                for op in ops:
                    if op == "exch" and not used:
                        continue  # red has no exch
                    regs, sass = compile_src(aggregated(op, space, addr, used))
                    star = "*" if "SHFL.BFLY" in sass_kernel(sass, "k") else ""
                    row.append(f"{op}:{regs['k']}{star}")
                print(f"  {space} {addr} {'result stored' if used else 'red'}: " + " ".join(row))
    print(sass_kernel(compile_src(aggregated("add", "shared", "uniform", False))[1], "k"))

    # ---------- 2. loops of the suite and held-out kernels ----------
    files = sorted(glob.glob(os.path.join(root, "workloads", "*", "*.ptx"))) + sorted(
        glob.glob(os.path.join(here, "heldout", "*", "*.ptx")))
    rows = []
    for f in files:
        try:
            regs, sass = compile_ptx(f)
        except RuntimeError:
            continue  # needs a newer -arch than sm_75
        src = open(f).read()
        for mm in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\n\}", src, re.S):
            k, body = mm.group(1), mm.group(2)
            lines = [l.strip() for l in body.split("\n")]
            labels = {}
            for i, l in enumerate(lines):
                lm = re.match(r"(\$\w+):", l)
                if lm:
                    labels[lm.group(1)] = i
            sl = sass_loops(sass_kernel(sass, k))
            for i, l in enumerate(lines):
                bm = re.search(r"bra(?:\.uni)?\s+(\$\w+);", l)
                if not (bm and labels.get(bm.group(1), 1 << 30) < i):
                    continue
                seg = lines[labels[bm.group(1)] + 1:i + 1]
                if any(re.match(r"\$\w+:", x) for x in seg):
                    continue  # not a single block
                ins = [x for x in seg if x and not x.startswith((".", "//"))]
                loads = sum(1 for x in ins if re.match(r"(@\S+\s+)?ld\.(?!param)", x))
                nounroll = int(any('nounroll' in x for x in seg))
                const_step = int(any(re.match(r"add\.s32\s+(%r\d+),\s*\1,\s*-?\d+;", x)
                                     for x in ins))
                rows.append((os.path.relpath(f, root), k, regs.get(k, 0), len(ins) - loads,
                             loads, nounroll, const_step, " ".join(map(str, sl))))
    with open(os.path.join(here, "ptxas_sched.csv"), "w") as fh:
        fh.write("# ptxas -arch=sm_75 + nvdisasm -c; generated by sim/testdata/ptxas_sched.py\n")
        fh.write("# one row per single-block PTX loop; sass_loop_loads = loads of every SASS loop "
                 "body of the kernel\n")
        fh.write("file,kernel,registers,ptx_non_load_instrs,ptx_loads,nounroll,const_step,"
                 "sass_loop_loads\n")
        for r in rows:
            fh.write(",".join(str(x) for x in r) + "\n")
    print(len(rows), "single-block loops written to sim/testdata/ptxas_sched.csv")


if __name__ == "__main__":
    main()
