#!/usr/bin/env python3
"""Held-out kernel corpus generator: .cu -> .ptx (NVRTC), input .npy files, expected outputs.

  python3 sim/testdata/heldout/gen.py [--ptx-only] [NAME ...]
  python3 sim/testdata/heldout/gen.py --repro      (only repro/*.cu -> repro/*.ptx)

For every sim/testdata/heldout/<name>/<name>.cu (or the NAMEs given):
1. compiles it to <name>.ptx with NVRTC 12.9 (pip nvidia-cuda-nvrtc-cu12, libnvrtc via ctypes)
   with the options of OPTS[name] (recorded in the .ptx header); the NVRTC program name is the
   repository-relative source path, kept relative in the `.file` directive;
2. writes the structured inputs (<name>/*.npy, numpy default_rng with fixed seeds);
3. computes every buffer's initial contents from <name>.toml exactly as the documented init
   contract says (fill / iota / uniform = SplitMix64 / npy) -- independently of regwatt's loader;
4. computes the expected final contents of every buffer with a host (g++) emulation of CUDA
   (cuda_host.h: OS threads per block, barriers, warp rendezvous for shuffles/votes, GCC atomics),
   or, for kernels the emulation cannot express (divergent __activemask, struct by value), with a
   Python model (PY_REFS); writes <name>/expected/<buffer>.npy.
   The host emulation's work files go to a temporary directory, removed at the end.
The Rust test tests/suite/heldout_kernels.rs compares `regwatt exec <name>.toml --dump DIR` against
these files with the tolerances in tolerances.toml.
"""
import ctypes
import os
import re
import struct
import subprocess
import sys
import tempfile
import tomllib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "workloads"))
from gen_ptx import relative_file_directives  # noqa: E402  (one copy, in the suite's generator)
BASE_OPTS = ["-default-device", "-std=c++17", "-lineinfo"]
# per-kernel architecture / precision options
OPTS = {
    "k02_tile2d": ["--gpu-architecture=compute_75", "--use_fast_math"],
    "k05_atomics_float": ["--gpu-architecture=compute_86", "--use_fast_math"],
    "k10_fastmath": ["--gpu-architecture=compute_80", "--use_fast_math"],
    "k17_grid3d": ["--gpu-architecture=compute_80"],
    "k22_block_scan": ["--gpu-architecture=compute_86"],
    "k23_matmul_rect": ["--gpu-architecture=compute_80"],
    "k25_redux": ["--gpu-architecture=compute_80"],
    "k35_simd_int": ["--gpu-architecture=compute_86"],
    "k26_ftz": ["--gpu-architecture=compute_75", "--use_fast_math"],
    "k29_sync_votes": ["--gpu-architecture=compute_86"],
    "k30_atomics_64": ["--gpu-architecture=compute_80"],
}
DEFAULT_OPTS = ["--gpu-architecture=compute_75"]
NP = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "u8": np.uint8, "i16": np.int16,
      "u16": np.uint16, "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64}


def opts(name):
    return OPTS.get(name, DEFAULT_OPTS) + BASE_OPTS


# ---------------------------------------------------------------- NVRTC
def nvidia_dir():
    import nvidia
    for p in nvidia.__path__:
        if os.path.isdir(os.path.join(p, "cuda_nvrtc")):
            return p
    raise SystemExit("pip install nvidia-cuda-nvrtc-cu12==12.9.86")


def compile_ptx(lib, src, name, options):
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None) == 0
    o = (ctypes.c_char_p * len(options))(*[x.encode() for x in options])
    rc = lib.nvrtcCompileProgram(prog, len(options), o)
    n = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc != 0:
        raise SystemExit(f"NVRTC failed on {name}:\n{log.value.decode()}")
    lib.nvrtcGetPTXSize(prog, ctypes.byref(n))
    ptx = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetPTX(prog, ptx)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value.decode()


def compile_file(lib, cu, options):
    """Compiles the .cu at path `cu` under its repository-relative name."""
    rel = os.path.relpath(cu, ROOT)
    return relative_file_directives(compile_ptx(lib, open(cu).read(), rel, options), rel)


# ---------------------------------------------------------------- structured inputs
def inputs(name):
    """Returns {file: array} of the .npy inputs a spec names."""
    r = np.random.default_rng(abs(hash(name)) % 1 if False else sum(map(ord, name)))
    if name == "k01_gridstride":
        return {"y.npy": r.uniform(-10, 10, 5000).astype(np.float32),
                "yi.npy": r.integers(-2**40, 2**40, 3000, dtype=np.int64)}
    if name == "k02_tile2d":
        return {"inp.npy": r.uniform(-1, 1, 1665).astype(np.float32)}
    if name == "k04_atomics_int":
        return {"gbits.npy": np.array([0x12340001, 0xffffffff, 0xdeadbeef], dtype=np.uint32),
                "gminmax.npy": np.array([0, 0], dtype=np.int32)}
    if name == "k07_vote":
        return {"inp.npy": r.integers(-50, 100, 96, dtype=np.int32)}
    if name == "k08_bitops":
        a = r.integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32)
        a[:8] = [0, 1, 0x80000000, 0xffffffff, 0x00ff00ff, 0x7fffffff, 0x00800000, 0x00ffffff]
        return {"a.npy": a}
    if name == "k12_int64_divmod":
        a = r.integers(-2**31, 2**31, 160, dtype=np.int64).astype(np.int32)
        b = r.integers(-1000, 1000, 160, dtype=np.int64).astype(np.int32)
        b[b == 0] = 7
        a[:6] = [-7, 7, -7, 7, -2147483647, 100]
        b[:6] = [2, -2, -2, 3, -1, -100]
        b[10:20] = r.integers(-2**31, 2**31, 10, dtype=np.int64).astype(np.int32)
        b[b == 0] = -3
        c = r.integers(-2**62, 2**62, 160, dtype=np.int64)
        d = r.integers(-2**33, 2**33, 160, dtype=np.int64)
        d[20:30] = r.integers(-100, 100, 10, dtype=np.int64)
        d[d == 0] = -9
        c[:4] = [-9, 9, -(2**63) + 1, 2**63 - 1]
        d[:4] = [4, -4, -1, 2**62]
        return {"a.npy": a, "b.npy": b, "c.npy": c, "d.npy": d}
    if name == "k13_f2i_nan":
        special = [np.nan, np.inf, -np.inf, 0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3e9, -3e9, 5e9,
                   2147483520.0, -2147483648.0, 1e20, -1e20, 4294967040.0, 0.99999994, -0.99999994,
                   1.0000001, 123.456, -123.456, 0.25, 0.75, -0.75, 1e-30, -1e-30, 16777217.0, 8.5e18,
                   -9.3e18, 1.0]
        x = np.array(special + list(r.uniform(-1e4, 1e4, 32)), dtype=np.float32)
        y = np.array(list(r.uniform(-3, 3, 32)) + special[::-1], dtype=np.float32)
        return {"x.npy": x, "y.npy": y}
    if name == "k26_ftz":
        x = np.array([1e-39, -1e-39, 1e-45, 1.2e-38, 1.1754942e-38, 2e-38, 0.0, -3.0, 1.0, -1.0, 3e38, 1e-20,
                      5.9e-39, 1e-30, -2.5e-38, 1e-38] * 4, dtype=np.float32)
        y = np.array([1.0, 0.5, 1e-20, 1e-39, 4.0, 0.5, 1e-39, -1e-40, 1e-39, 2.0, 1e-38, 1e-20,
                      -1.0, 1e-10, 2.0, 0.5] * 4, dtype=np.float32)
        y[16:32] = -y[16:32]
        y[32:48] = y[32:48] * 3
        x[48:64] = np.where(x[48:64] == 0, np.float32(7.0), -x[48:64])
        return {"x.npy": x, "y.npy": y}
    if name == "k30_atomics_64":
        return {"gmm.npy": np.array([2**62, -2**62], dtype=np.int64),
                "umm.npy": np.array([2**64 - 1, 0], dtype=np.uint64)}
    if name == "k15_noinline":
        return {"coef.npy": np.array([0.5, -1.25, 2.0, 0.75, -0.125], dtype=np.float32)}
    return {}


# ---------------------------------------------------------------- init contract (independent)
M64 = (1 << 64) - 1


def splitmix(seed):
    s = seed & M64
    while True:
        s = (s + 0x9E3779B97F4A7C15) & M64
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        yield z ^ (z >> 31)


def initial(name, b):
    dt, n, init = b["dtype"], b["len"], b["init"]
    t = NP[dt]
    k = init["kind"]
    if k == "fill":
        return np.full(n, init["value"], dtype=t)
    if k == "iota":
        if dt in ("f32", "f64"):
            return np.array([float(init["start"] + i * init["step"]) for i in range(n)], dtype=np.float64).astype(t)
        return np.array([init["start"] + i * init["step"] for i in range(n)], dtype=t)
    if k == "uniform":
        g = splitmix(init["seed"])
        lo, hi = init["min"], init["max"]
        if dt == "f32":
            return np.array([lo + (hi - lo) * ((next(g) >> 40) / 2.0**24) for _ in range(n)], dtype=np.float64).astype(np.float32)
        if dt == "f64":
            return np.array([lo + (hi - lo) * ((next(g) >> 11) / 2.0**53) for _ in range(n)], dtype=np.float64)
        return np.array([lo + ((next(g) * (hi - lo + 1)) >> 64) for _ in range(n)], dtype=t)
    if k == "npy":
        a = np.load(os.path.join(HERE, name, init["path"]))
        assert a.dtype == t and a.shape == (n,), (name, init)
        return a
    raise ValueError(k)


# ---------------------------------------------------------------- host emulation
def arg_expr(a):
    if isinstance(a, dict):  # { struct = [ { TYPE = VALUE }, ... ] }: brace-initialised aggregate
        fields = [(t, v) for f in a["struct"] for t, v in f.items() if t != "pad"]
        return "{" + ", ".join(f"DevPtr{{buf_{v}}}" if t == "ptr" else arg_expr(v) for t, v in fields) + "}"
    if isinstance(a, str):
        return f"DevPtr{{buf_{a}}}"
    if isinstance(a, int):
        return f"(long long){a}LL" if -2**63 <= a < 2**63 else f"{a}ULL"
    return f"(double){a!r}"


def host_run(name, spec, init, work):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    src = open(os.path.join(HERE, name, name + ".cu")).read()
    # extern __shared__ T x[];  ->  T* x = (T*)__dyn_smem();
    src = re.sub(r"extern\s+__shared__\s+(\w+)\s+(\w+)\s*\[\s*\]\s*;", r"\1* \2 = (\1*)__dyn_smem();", src)
    open(os.path.join(d, name + ".host.cu"), "w").write(src)
    lines = (["#define HOST_FTZ 1"] if name in HOST_FTZ else []) + [f'#include "{HERE}/cuda_host.h"', f'#include "{d}/{name}.host.cu"', "#include <cstdio>", "#include <cstdlib>",
             "static void* load(const char* p, size_t n) { size_t c = (n + 255) / 256 * 256; void* b = std::aligned_alloc(256, c);",
             '  FILE* f = std::fopen(p, "rb"); if (!f || std::fread(b, 1, n, f) != n) std::exit(2); std::fclose(f); return b; }',
             'static void save(const char* p, const void* b, size_t n) { FILE* f = std::fopen(p, "wb"); std::fwrite(b, 1, n, f); std::fclose(f); }',
             "int main() {"]
    for b, a in init.items():
        a.tofile(f"{d}/{b}.in")
        lines.append(f'  void* buf_{b} = load("{d}/{b}.in", {a.nbytes});')
    for l in spec["launch"]:
        g, bl = l["grid"], l["block"]
        args = ", ".join(arg_expr(a) for a in l["args"])
        lines.append(f"  launch(dim3{{{g[0]}, {g[1]}, {g[2]}}}, dim3{{{bl[0]}, {bl[1]}, {bl[2]}}}, {l.get('dynamic_shared_bytes', 0)}, [&] {{ {l['kernel']}({args}); }});")
    for b, a in init.items():
        lines.append(f'  save("{d}/{b}.out", buf_{b}, {a.nbytes});')
    lines += ["  return 0;", "}"]
    open(f"{d}/main.cpp", "w").write("\n".join(lines) + "\n")
    cc = ["g++", "-std=c++20", "-O1", "-ffp-contract=off", "-pthread", "-w", f"{d}/main.cpp", "-o", f"{d}/main"]
    subprocess.run(cc, check=True)
    subprocess.run([f"{d}/main"], check=True)
    return {b: np.fromfile(f"{d}/{b}.out", dtype=a.dtype) for b, a in init.items()}


# ---------------------------------------------------------------- Python models
def ref_vote(init):
    inp = init["inp"]
    out = np.zeros(576, dtype=np.uint32)
    for blk in range(2):
        for w in range(2):
            lanes = list(range(32)) if w == 0 else list(range(16))
            present = 0xffffffff if w == 0 else 0xffff
            tid = [blk * 48 + w * 32 + l for l in lanes]
            v = [int(inp[t]) for t in tid]
            ballot = sum(1 << l for l, x in zip(lanes, v) if x > 0)
            anyv = int(any(x > 90 for x in v))
            allv = int(all(x > -100 for x in v))
            odd = [l for l, x in zip(lanes, v) if x & 1]
            odd_ballot = sum(1 << l for l in odd if v[l] > 10)
            for l, t in zip(lanes, tid):
                o = [ballot, anyv, allv, present, bin(ballot).count("1"), 0]
                if v[l] & 1:
                    o[5] = odd_ballot | 0x80000000
                out[t * 6:t * 6 + 6] = o
    return {"out": out}


def ref_struct(init):
    inp = init["inp"]
    out = init["out"].copy()
    for i in range(60):
        out[i] = np.float32(np.float64(np.float32(inp[i] * np.float32(0.5))) + 0.25) + np.float32(3 * -2)
    return {"out": out}


HOST_FTZ = {"k26_ftz"}  # run the host threads with MXCSR FTZ|DAZ (PTX .ftz)
PY_REFS = {"k07_vote": ref_vote, "k18_struct": ref_struct}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    ptx_only = "--ptx-only" in sys.argv
    repro = "--repro" in sys.argv
    names = args or sorted(n for n in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, n, n + ".cu")))
    lib = ctypes.CDLL(os.path.join(nvidia_dir(), "cuda_nvrtc", "lib", "libnvrtc.so.12"))
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    if repro:  # the bug reproductions: default options, header as in the committed files
        rd = os.path.join(HERE, "repro")
        o = DEFAULT_OPTS + BASE_OPTS
        for cu in sorted(f for f in os.listdir(rd) if f.endswith(".cu")):
            ptx = compile_file(lib, os.path.join(rd, cu), o)
            hdr = f"//\n// Generated from {cu} with NVRTC {major.value}.{minor.value}, options: {' '.join(o)}\n//\n"
            open(os.path.join(rd, cu[:-3] + ".ptx"), "w").write(hdr + ptx)
            print(f"repro/{cu}: {' '.join(o)}")
        return
    with tempfile.TemporaryDirectory(prefix="regwatt-heldout-") as work:
        for name in names:
            o = opts(name)
            ptx = compile_file(lib, os.path.join(HERE, name, name + ".cu"), o)
            hdr = f"//\n// Generated by sim/testdata/heldout/gen.py from {name}.cu with NVRTC {major.value}.{minor.value}\n// options: {' '.join(o)}\n//\n"
            open(os.path.join(HERE, name, name + ".ptx"), "w").write(hdr + ptx)
            if ptx_only:
                continue
            for f, a in inputs(name).items():
                np.save(os.path.join(HERE, name, f), a)
            spec = tomllib.load(open(os.path.join(HERE, name, name + ".toml"), "rb"))
            init = {b: initial(name, info) for b, info in spec["buffers"].items()}
            if name in PY_REFS:
                out = dict(init)
                out.update(PY_REFS[name]({k: v.copy() for k, v in init.items()}))
            else:
                out = host_run(name, spec, init, work)
            ed = os.path.join(HERE, name, "expected")
            os.makedirs(ed, exist_ok=True)
            for f in os.listdir(ed):
                os.remove(os.path.join(ed, f))
            for b, a in out.items():
                np.save(os.path.join(ed, b + ".npy"), a)
            print(f"{name}: {' '.join(o)}; buffers {', '.join(sorted(out))}")


if __name__ == "__main__":
    main()
