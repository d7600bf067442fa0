#!/usr/bin/env python3
"""Run regwatt's built-in workloads under GPGPU-Sim 4.2 (PTX mode) and write reference cycles.

Our own code; it contains nothing from GPGPU-Sim. It replays each workload's launch spec
(workloads/NAME/NAME.toml) through the generic host program gshost.cc and checks the simulated
output buffers against `regwatt exec`'s.

Prerequisites (all outside the repository; see calibrations/gpgpusim-keptback/README.md):

  # GPGPU-Sim dev at 667834cf, release build with gcc 12 and the CUDA 11.8 pieces from PyPI
  export GPGPUSIM_WORK=$HOME/gpgpusim   # any directory outside the repository
  mkdir -p $GPGPUSIM_WORK && cd $GPGPUSIM_WORK
  git clone --no-checkout https://github.com/accel-sim/gpgpu-sim_distribution src
  git -C src checkout 667834cf
  pip download --no-deps -d wheels nvidia-cuda-runtime-cu11==11.8.89 \\
      nvidia-cuda-nvcc-cu11==11.8.89 nvidia-cuda-profiler-api-cu11==11.8.86
  for w in wheels/*.whl; do python3 -m zipfile -e $w whx/; done
  mkdir -p cuda/bin cuda/include
  cp -r whx/nvidia/cuda_runtime/include/* whx/nvidia/cuda_nvcc/include/* \\
      whx/nvidia/cuda_profiler_api/include/* cuda/include/
  cp whx/nvidia/cuda_nvcc/bin/ptxas cuda/bin/ && chmod +x cuda/bin/ptxas
  python3 REPO/scripts/gpgpusim/run_keptback.py nvcc-shim $GPGPUSIM_WORK/cuda/bin/nvcc
  apt-get install bison flex zlib1g-dev xutils-dev
  (export CUDA_INSTALL_PATH=$GPGPUSIM_WORK/cuda PATH=$GPGPUSIM_WORK/cuda/bin:$PATH;
   cd src && source setup_environment && nice -n 10 make -j2)
  # -> src/lib/gcc-12.2.0/cuda-11080/release/libcudart.so,
  #    build gpgpu-sim_git-commit-667834cf_modified_0.0
  cd REPO && cargo build --release          # target/release/regwatt

  # then, from the repository root, with GPGPUSIM_WORK set as above:
  python3 scripts/gpgpusim/run_keptback.py setup     # stubs, overlay, gshost in $GPGPUSIM_WORK/keptback
  python3 scripts/gpgpusim/run_keptback.py run --out calibrations/gpgpusim-keptback/cycles.csv \\
      stream_triad atax bicg mvt mnist29 mnist33 cifar32g mnist29_lskip mnist29_smem gemm syrk \\
      mnist29_lreg dct8x8 cifarnet alexnet lud \\
      mnist33_smem mnist33_lskip cifar32g_smem cifar32g_lskip mnist33_lreg cifar32g_lreg
  python3 scripts/gpgpusim/compare_cycles.py calibrations/gpgpusim-keptback/cycles.csv

  Rows are replaced per (workload, config) and kept in KEPTBACK order. Options: --size
  (ci | default | paper: the workloads' NAME.toml or NAME.<size>.toml; one --out per size), --configs
  (default SM75_RTX2060,SM2_GTX480), --limit (kill limit, default 900 s), --launch-latency N
  (diagnostic: override -gpgpu_kernel_launch_latency). Diagnostic environment: GSHOST_SIMLIB
  (a directory whose libcudart.so.11.0 is another GPGPU-Sim build), GSHOST_TAG (run-directory
  suffix), GSHOST_ALLOC_ORDER=spec (cudaMalloc in spec-file order instead of name order),
  REGWATT (another regwatt binary). The suite check used the same command with vectorAdd
  matrixMul_tiled conv_mnist backprop and a scratch --out.

AccelWattch (--power; use a scratch --out, e.g. DIR/power.csv):
  python3 scripts/gpgpusim/run_keptback.py run --power --out DIR/power.csv stream_triad
  runs the same method with GPGPU-Sim's AccelWattch power model on, instead of the power-off
  edits (POWER_EDITS): both configs get -power_simulation_enabled 1 and -power_simulation_mode 0;
  SM75_RTX2060 keeps its latency edits and gets -accelwattch_xml_file accelwattch_ptx_sim.xml,
  copied from configs/tested-cfgs/SM75_RTX2060_S (SM75_RTX2060 has none; the file is
  byte-identical to SM7_QV100's); SM2_GTX480's -gpuwattch_xml_file gpuwattch_gtx480.xml line
  becomes -accelwattch_xml_file. The power model changes no timing: cycles, instruction counts
  and outputs equal the power-off rows. Run directories are CONFIG_power. Besides the usual rows
  in DIR/power.csv it writes DIR/power_power.csv (one row per launch, replaced per workload and
  config) and copies each run's report and edited gpgpusim.config into DIR/power_accelwattch/ as
  NAME.CONFIG.accelwattch_power_report.log and NAME.CONFIG.gpgpusim.config.

AccelWattch report (accelwattch_power_report.log in the run directory; src/accelwattch/
gpgpu_sim_wrapper.cc, src/gpgpu-sim/power_interface.cc at 667834cf):
  * Mode 0 ("Sim"): every P = -gpgpu_runtime_stat cycles (500 in both configs) of global cycle
    count, mcpat_cycle feeds the activity counted by the performance model since the previous
    sample (per-cycle counters, differenced) to McPAT, whose execution time is P core cycles.
    Each sample yields a power per component in watts (the component's McPAT energy over the
    window / window time, or an AccelWattch term: CONSTP = the XML's constant_power, STATICP =
    the XML's static power of the sample's instruction-mix category, first lane + (active
    threads per warp - 1) x per lane, x the active-SM fraction; IDLE_COREP = idle SMs x
    idle_core_power); the sample's total is their sum (checked by an assert). An XML without
    these parameters gets ParseXML::initialize's defaults: gpuwattch_gtx480.xml has no
    constant_power (CONSTP = 1 W) and no static_* (STATICP = 0).
  * At the end of each kernel one block is appended: `kernel_name = K`, `kernel_launch_uid = N`,
    `kernel_avg_power` and `gpu_avg_<C>, = ` = the mean over the kernel's samples of the total
    and of each component C; `gpu_avg_<counter>` = the mean activity count per sample and
    `gpu_tot_<counter>` its sum over the samples (TOT_INST, REG_RD, REG_WR, ... see
    perf_count_label in src/accelwattch/XML_Parse.cc); `kernel_max_power`/`gpu_max_*` and
    `kernel_min_power`/`gpu_min_*` = the sample with the highest/lowest total;
    `gpu_tot_avg_power` etc. = over all samples so far. Then all per-kernel sums are reset.
  * A kernel's samples are the multiples of P in its global cycle range (T0, T0 + gpu_sim_cycle]
    (column `samples`, cross-checked against gpu_tot_TOT_INST / gpu_avg_TOT_INST). Activity in
    the cycles after the last sample is counted in the next kernel's first sample, or in none
    for the last kernel; a launch shorter than P may have no sample (kernel_avg_power 0, the
    components NaN; column `note` says so). On SM75_RTX2060 the 5000-cycle launch latency is
    inside gpu_sim_cycle, so ~10 idle samples per launch are in every average.
  * Per-sample traces need -power_trace_enabled 1 (gzipped power and metric traces),
    -power_per_cycle_dump 1 prints McPAT's full tree at every sample; neither is needed for the
    per-kernel averages. -power_simulation_mode 1/2 read hardware counters from
    -hw_perf_file_name (-accelwattch_hybrid_perfsim_* pick the simulator's count instead, mode
    2 only) once per kernel; not used here.
  Power CSV columns: workload, config, launch (1-based, spec order), kernel, kernel_launch_uid,
  gpu_sim_cycle (the launch's cycles), samples, avg_power_W/max_power_W/min_power_W
  (kernel_avg/max/min_power), then <C>_W = gpu_avg_<C> for the 33 components in report order
  (POWER_COMPONENTS), note (no sample, components not summing to avg_power_W, sample count
  disagreement, crash/skipped).

Method per workload NAME and configuration, one run at a time:
  1. initial buffers: a copy of the spec whose launches are replaced by one 1x1 launch of a no-op
     kernel, run with `regwatt exec COPY --dump DIR` (writes every buffer's initial contents);
  2. reference outputs: `regwatt exec workloads/NAME/NAME.toml --dump DIR`;
  3. the PTX, edited (`.version 8.8` -> `.version 7.0`; `.loc` `function_name/inlined_at`
     suffixes and `.pragma "regwatt..."` lines dropped; no instruction changed), is served as
     NAME.1.sm_75.ptx by a stub cuobjdump; gshost registers the kernels by hand, cudaMallocs
     every buffer in name order and fills it, launches in spec order (a string arg = buffer
     pointer, a number packed as the kernel's PTX .param type), cudaDeviceSynchronize after
     each, copies buffers back;
  4. output check: integers exact, floats |a-b| <= 1e-5 * max(|a|,|b|) (NaN equals NaN).
"""
import argparse
import csv
import math
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import tomllib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
GS = os.environ.get("GPGPUSIM_WORK")
if not GS:
    sys.exit("run_keptback.py: set GPGPUSIM_WORK to the directory holding the GPGPU-Sim build "
             "(see the header of this file)")
SIM_ROOT = os.path.join(GS, "src")
SIM_LIB = os.path.join(SIM_ROOT, "lib", "gcc-12.2.0", "cuda-11080", "release")
CUDA = os.path.join(GS, "cuda")           # real ptxas 11.8 + headers (+ the nvcc shim)
WORK = os.path.join(GS, "keptback")       # stubs, overlay, dumps and run directories
REGWATT = os.environ.get("REGWATT", os.path.join(REPO, "target", "release", "regwatt"))

COLUMNS = ["workload", "config", "match", "mismatch", "float_err_scaled", "gpu_tot_sim_cycle",
           "launches", "launch_latency_cycles", "launch_cycles", "gpu_tot_sim_insn", "warp_insn",
           "gpu_tot_ipc", "ptxas_regs", "wall_s", "user_s", "max_rss_mb", "grid", "block",
           "ptx_edits", "config_edits"]

# Configuration edits, applied to configs/tested-cfgs/<config>/gpgpusim.config.
CONFIG_EDITS = {
    "SM75_RTX2060": (
        [("-ptx_opcode_latency_int 4,4,4,4,21\n", "-ptx_opcode_latency_int 4,4,4,4,21,32\n"),
         ("-ptx_opcode_initiation_int 2,2,2,2,2\n", "-ptx_opcode_initiation_int 2,2,2,2,2,4\n")],
        "-ptx_opcode_latency_int 4,4,4,4,21,32; -ptx_opcode_initiation_int 2,2,2,2,2,4"),
    "SM2_GTX480": (
        [("-power_simulation_enabled 1\n", "-power_simulation_enabled 0\n"),
         ("-gpuwattch_xml_file gpuwattch_gtx480.xml\n", "")],
        "-power_simulation_enabled 0; removed -gpuwattch_xml_file"),
}

# --power: the same runs with GPGPU-Sim's AccelWattch power model on, PTX-sim mode
# (-power_simulation_mode 0: activity from the performance model, no hardware counters). The
# RTX2060 latency edits are kept (they are part of the reference method); the power model
# changes no timing, so the cycles equal the power-off runs'. Per config: (edits, description,
# (tested-cfgs folder, AccelWattch XML) copied into the run directory).
# SM75_RTX2060's own folder has no XML: AccelWattch's Turing files are in SM75_RTX2060_S.
POWER_EDITS = {
    "SM75_RTX2060": (
        CONFIG_EDITS["SM75_RTX2060"][0]
        + [("-power_simulation_enabled 0\n",
            "-power_simulation_enabled 1\n-power_simulation_mode 0\n"
            "-accelwattch_xml_file accelwattch_ptx_sim.xml\n")],
        CONFIG_EDITS["SM75_RTX2060"][1] + "; -power_simulation_enabled 1; "
        "-power_simulation_mode 0; -accelwattch_xml_file accelwattch_ptx_sim.xml "
        "(from SM75_RTX2060_S)",
        ("SM75_RTX2060_S", "accelwattch_ptx_sim.xml")),
    "SM2_GTX480": (
        [("-power_simulation_enabled 1\n",
          "-power_simulation_enabled 1\n-power_simulation_mode 0\n"),
         ("-gpuwattch_xml_file gpuwattch_gtx480.xml\n",
          "-accelwattch_xml_file gpuwattch_gtx480.xml\n")],
        "-power_simulation_mode 0; -gpuwattch_xml_file renamed -accelwattch_xml_file "
        "(gpuwattch_gtx480.xml)",
        ("SM2_GTX480", "gpuwattch_gtx480.xml")),
}

# AccelWattch's per-kernel report, written in the run directory (power_config::init in
# gpu-sim.h) and appended to at the end of every kernel (print_power_kernel_stats).
POWER_REPORT = "accelwattch_power_report.log"
# AccelWattch's power components, in report order: pwr_cmp_label in
# src/accelwattch/gpgpu_sim_wrapper.cc (the report prints them as `gpu_avg_IBP, = ...`).
POWER_COMPONENTS = ["IBP", "ICP", "DCP", "TCP", "CCP", "SHRDP", "RFP", "INTP", "FPUP", "DPUP",
                    "INT_MUL24P", "INT_MUL32P", "INT_MULP", "INT_DIVP", "FP_MULP", "FP_DIVP",
                    "FP_SQRTP", "FP_LGP", "FP_SINP", "FP_EXP", "DP_MULP", "DP_DIVP", "TENSORP",
                    "TEXP", "SCHEDP", "L2CP", "MCP", "NOCP", "DRAMP", "PIPEP", "IDLE_COREP",
                    "CONSTP", "STATICP"]
POWER_COLUMNS = (["workload", "config", "launch", "kernel", "kernel_launch_uid", "gpu_sim_cycle",
                  "samples", "avg_power_W", "max_power_W", "min_power_W"]
                 + [c + "_W" for c in POWER_COMPONENTS] + ["note"])

NVCC_SHIM = """#!/bin/sh
# nvcc shim: GPGPU-Sim's build only reads the release string from `nvcc --version`.
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Cuda compilation tools, release 11.8, V11.8.89"
"""

# Stub cuobjdump: serves the PTX files listed (space-separated paths) in $SIM_PTX_FILES.
CUOBJDUMP_STUB = """#!/bin/sh
# stub cuobjdump (generated by run_keptback.py): -lptx lists, -xptx copies $SIM_PTX_FILES
case "$1" in
  -lptx)
    i=1
    for f in $SIM_PTX_FILES; do echo "PTX file $i: $(basename "$f")"; i=$((i+1)); done ;;
  -xptx)
    for f in $SIM_PTX_FILES; do
      if [ "$(basename "$f")" = "$2" ]; then cp "$f" "./$2"; exit 0; fi
    done
    echo "stub cuobjdump: no $2" >&2; exit 1 ;;
  *) echo "stub cuobjdump: unsupported: $*" >&2; exit 1 ;;
esac
"""

# Stub libcudart.so.11.0: the names gshost links against; never executed (LD_LIBRARY_PATH puts
# GPGPU-Sim's libcudart.so in its place at run time).
STUB_FUNCS = ["__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaRegisterFunction",
              "__cudaPushCallConfiguration", "cudaLaunchKernel", "cudaMalloc", "cudaMemcpy",
              "cudaDeviceSynchronize"]

NOOP_PTX = """.version 7.0
.target sm_75
.address_size 64

.visible .entry regwatt_init_noop()
{
\tret;
}
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def setup():
    """Stubs, overlay CUDA_INSTALL_PATH, library link and the gshost binary under WORK."""
    os.makedirs(WORK, exist_ok=True)
    stub = os.path.join(WORK, "stub")
    os.makedirs(stub, exist_ok=True)
    with open(os.path.join(stub, "cudart_stub.c"), "w") as f:
        f.write("/* stub libcudart.so.11.0 (generated by run_keptback.py) */\n")
        for fn in STUB_FUNCS:
            f.write(f"int {fn}(void) {{ return 999; }}\n")
    sh(["gcc", "-shared", "-fPIC", "-Wl,-soname,libcudart.so.11.0", "-o",
        os.path.join(stub, "libcudart.so.11.0"), os.path.join(stub, "cudart_stub.c")])
    ovl = os.path.join(WORK, "overlay", "bin")
    os.makedirs(ovl, exist_ok=True)
    write_exec(os.path.join(ovl, "cuobjdump"), CUOBJDUMP_STUB)
    write_exec(os.path.join(ovl, "nvcc"), NVCC_SHIM)
    relink(os.path.join(CUDA, "bin", "ptxas"), os.path.join(ovl, "ptxas"))
    simlib = os.path.join(WORK, "simlib")
    os.makedirs(simlib, exist_ok=True)
    relink(os.path.join(SIM_LIB, "libcudart.so"), os.path.join(simlib, "libcudart.so.11.0"))
    sh(["g++", "-O2", "-o", os.path.join(WORK, "gshost"), os.path.join(HERE, "gshost.cc"),
        "-L" + stub, "-l:libcudart.so.11.0", "-Wl,-rpath-link," + stub])
    with open(os.path.join(WORK, "noop.ptx"), "w") as f:
        f.write(NOOP_PTX)
    print("setup done in", WORK)


def write_exec(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)


def relink(target, link):
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(target, link)


# ---------------------------------------------------------------------------------------------
# Spec handling

# The workloads' input size (`--size`): ci is NAME.toml, the others NAME.<size>.toml.
SIZE = "ci"


def spec_path(name):
    stem = name if SIZE == "ci" else f"{name}.{SIZE}"
    return os.path.join(REPO, "workloads", name, stem + ".toml")


def load_spec(name):
    with open(spec_path(name), "rb") as f:
        return tomllib.load(f)


def ptx_params(ptx):
    """{kernel: [param type, ...]} from the .entry declarations."""
    out = {}
    for m in re.finditer(r"\.entry\s+([\w$]+)\s*\(([^)]*)\)", ptx):
        types = []
        for p in m.group(2).split(","):
            p = p.strip()
            if not p:
                continue
            pm = re.match(r"\.param\s+\.(\w+)\s+[\w$]+$", p)
            if not pm:
                raise SystemExit(f"unsupported parameter {p!r} of {m.group(1)}")
            types.append(pm.group(1))
        out[m.group(1)] = types
    return out


PACK = {"u8": "<B", "s8": "<b", "b8": "<B", "u16": "<H", "s16": "<h", "b16": "<H",
        "u32": "<I", "s32": "<i", "b32": "<I", "u64": "<Q", "s64": "<q", "b64": "<Q",
        "f32": "<f", "f64": "<d"}


def pack_arg(value, ty):
    fmt = PACK[ty]
    if ty.startswith("f"):
        return struct.pack(fmt, float(value))
    if isinstance(value, float):
        if value != int(value):
            raise SystemExit(f"non-integer {value} for .{ty}")
        value = int(value)
    if ty[0] in "ub":
        value &= (1 << (struct.calcsize(fmt) * 8)) - 1
    return struct.pack(fmt, value)


def init_spec_text(name):
    """The spec with ptx -> the no-op kernel, launches -> one 1x1 no-op launch, paths absolute."""
    src = spec_path(name)
    text = open(src).read()
    d = os.path.dirname(src)
    cut = text.find("[[launch]]")
    text = text[:cut]
    text = re.sub(r'(?m)^ptx\s*=\s*"[^"]*"', f'ptx = "{os.path.join(WORK, "noop.ptx")}"', text)

    def absolutise(m):
        p = m.group(2)
        return m.group(1) + '"' + (p if os.path.isabs(p) else os.path.join(d, p)) + '"'
    text = re.sub(r'(path\s*=\s*)"([^"]*)"', absolutise, text)
    return text + '\n[[launch]]\nkernel = "regwatt_init_noop"\ngrid = [1, 1, 1]\n' \
                  'block = [1, 1, 1]\nargs = []\n'


def prepare(name):
    """Initial and reference dumps, the edited PTX and the gshost plan for one workload."""
    wdir = os.path.join(WORK, "workloads", name if SIZE == "ci" else f"{name}@{SIZE}")
    if os.path.isdir(wdir):
        shutil.rmtree(wdir)
    os.makedirs(wdir)
    spec = load_spec(name)
    with open(os.path.join(wdir, "init.toml"), "w") as f:
        f.write(init_spec_text(name))
    sh([REGWATT, "exec", os.path.join(wdir, "init.toml"), "--dump", os.path.join(wdir, "init")],
       stdout=subprocess.DEVNULL)
    sh([REGWATT, "exec", spec_path(name), "--dump", os.path.join(wdir, "ref")],
       stdout=subprocess.DEVNULL)
    ptx = open(os.path.join(REPO, "workloads", name, spec["ptx"])).read()
    edits = []
    if ".version 8.8" in ptx:
        ptx = ptx.replace(".version 8.8", ".version 7.0", 1)
        edits.append(".version 8.8 -> 7.0")
    # `.loc F L C, function_name $L__info_stringN, inlined_at F L C` is a PTX 7.2+ debug form
    # that GPGPU-Sim's PTX grammar rejects (syntax error); keep `.loc F L C` (line info only).
    ptx, n = re.subn(r"(\.loc\s+\d+\s+\d+\s+\d+)\s*,\s*function_name\s+[\w$]+\s*,"
                     r"\s*inlined_at\s+\d+\s+\d+\s+\d+", r"\1", ptx)
    if n:
        edits.append(f"dropped ', function_name .., inlined_at ..' from {n} .loc lines")
    # regwatt's own annotations (`.pragma "regwatt.lreg ...";`, read by its L-register design
    # only): GPGPU-Sim ignores them, but ptxas 11.8 warns "Pragma '...' unsupported" and that
    # warning line crashes GPGPU-Sim's ptxas-output parser (SIGSEGV). Drop the lines.
    ptx, n = re.subn(r'(?m)^[ \t]*\.pragma[ \t]+"regwatt\.[^"]*";[ \t]*\n', "", ptx)
    if n:
        edits.append(f"dropped {n} '.pragma \"regwatt.lreg ...\"' lines")
    ptx_file = os.path.join(wdir, f"{name}.1.sm_75.ptx")
    with open(ptx_file, "w") as f:
        f.write(ptx)
    params = ptx_params(ptx)
    lines = []
    kernels = []
    for l in spec["launch"]:
        if l["kernel"] not in kernels:
            kernels.append(l["kernel"])
    for k in kernels:
        lines.append(f"kernel {k}")
    bufs = spec.get("buffers", {})
    dtypes = {}
    # cudaMalloc order (it sets every buffer's address, hence cache sets and partitions):
    # sorted by name, the order of regwatt's spec loader (a BTreeMap) and of its --dump files.
    for b in (sorted(bufs) if ALLOC_ORDER == "sorted" else list(bufs)):
        arr = np.load(os.path.join(wdir, "init", b + ".npy"))
        raw = os.path.join(wdir, "init", b + ".raw")
        arr.tofile(raw)
        dtypes[b] = arr.dtype
        lines.append(f"buffer {b} {arr.nbytes} {raw} @OUT@/{b}.raw")
    for l in spec["launch"]:
        g = l["grid"]
        bl = l["block"]
        shm = l.get("dynamic_shared_bytes", 0)
        types = params[l["kernel"]]
        args = l.get("args", [])
        if len(args) != len(types):
            raise SystemExit(f"{name}: {l['kernel']} takes {len(types)} args, spec has {len(args)}")
        lines.append(f"launch {l['kernel']} {g[0]} {g[1]} {g[2]} {bl[0]} {bl[1]} {bl[2]} "
                     f"{shm} {len(args)}")
        for a, ty in zip(args, types):
            if isinstance(a, str):
                if ty not in ("u64", "b64", "s64"):
                    raise SystemExit(f"{name}: buffer {a} passed as .{ty}")
                lines.append(f"arg buf {a}")
            else:
                lines.append(f"arg bytes {pack_arg(a, ty).hex()}")
    with open(os.path.join(wdir, "plan.in"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return spec, wdir, ptx_file, edits, dtypes


# ---------------------------------------------------------------------------------------------
# One simulation

def config_dir(cfg, rundir, latency_override=None, power=False):
    src = os.path.join(SIM_ROOT, "configs", "tested-cfgs", cfg)
    for fn in os.listdir(src):
        shutil.copy(os.path.join(src, fn), rundir)
    path = os.path.join(rundir, "gpgpusim.config")
    text = open(path).read()
    if power:
        edits, desc, (xml_dir, xml) = POWER_EDITS[cfg]
        shutil.copy(os.path.join(SIM_ROOT, "configs", "tested-cfgs", xml_dir, xml), rundir)
    else:
        edits, desc = CONFIG_EDITS[cfg]
    for old, new in edits:
        if old not in text:
            raise SystemExit(f"{cfg}: config line {old!r} not found")
        text = text.replace(old, new, 1)
    if latency_override is not None:
        text = re.sub(r"(?m)^-gpgpu_kernel_launch_latency.*\n", "", text)
        text += f"\n-gpgpu_kernel_launch_latency {latency_override}\n"
    with open(path, "w") as f:
        f.write(text)
    m = re.search(r"(?m)^-gpgpu_kernel_launch_latency\s+(\d+)", text)
    return desc, (int(m.group(1)) if m else 0)


def sample_period(rundir):
    """AccelWattch's sampling period in cycles: the first field of -gpgpu_runtime_stat."""
    text = open(os.path.join(rundir, "gpgpusim.config")).read()
    m = re.search(r"(?m)^-gpgpu_runtime_stat\s+(\d+)", text)
    if not m:
        raise SystemExit(f"{rundir}/gpgpusim.config: no -gpgpu_runtime_stat line")
    return int(m.group(1))


def parse_power_report(path, name, cfg, launches, per, period):
    """One row per launch from AccelWattch's report (see "AccelWattch report" in the header).

    The report has one block per completed kernel, in completion order; gshost synchronises
    after every launch, so block i is launch i. samples = the multiples of `period` in the
    launch's global cycle range (T0, T0 + gpu_sim_cycle], where mcpat_cycle takes a sample."""
    text = open(path).read()
    blocks = re.split(r"(?m)^(?=kernel_name = )", text)[1:]
    if len(blocks) != len(launches):
        raise SystemExit(f"{path}: {len(blocks)} kernel blocks for {len(launches)} launches")
    rows = []
    t0 = 0
    for i, (b, l, cyc) in enumerate(zip(blocks, launches, per)):
        head = re.match(r"kernel_name = (\S+)\s*\nkernel_launch_uid = (\d+)", b)
        if not head or head.group(1) != l["kernel"]:
            raise SystemExit(f"{path}: block {i + 1} is not a launch of {l['kernel']}")
        samples = (t0 + cyc) // period - t0 // period
        t0 += cyc
        avg_part = b.split("Kernel Maximum Power Data:")[0]

        def num(key, part=b):
            m = re.search(r"(?m)^" + re.escape(key) + r",? = (\S+)$", part)
            if not m:
                raise SystemExit(f"{path}: block {i + 1} has no {key}")
            return float(m.group(1))
        row = dict(workload=name, config=cfg, launch=i + 1, kernel=l["kernel"],
                   kernel_launch_uid=head.group(2), gpu_sim_cycle=cyc, samples=samples,
                   avg_power_W=num("kernel_avg_power"), max_power_W=num("kernel_max_power"),
                   min_power_W=num("kernel_min_power"))
        labels = re.findall(r"(?m)^gpu_avg_(\w+),? = ", avg_part)
        if labels[:len(POWER_COMPONENTS)] != POWER_COMPONENTS:
            raise SystemExit(f"{path}: block {i + 1} components {labels[:40]} are not "
                             f"AccelWattch's {POWER_COMPONENTS}")
        total = 0.0
        for c in POWER_COMPONENTS:
            row[c + "_W"] = num("gpu_avg_" + c, avg_part)
            total += row[c + "_W"]
        notes = []
        if samples == 0:
            notes.append(f"no sample: the launch spans no multiple of {period} cycles")
        # AccelWattch's own sample count: gpu_tot_X is the sum over samples, gpu_avg_X the mean
        avg_inst, tot_inst = num("gpu_avg_TOT_INST", avg_part), num("gpu_tot_TOT_INST")
        if avg_inst > 0 and abs(tot_inst / avg_inst - samples) > 1e-3 * samples:
            notes.append(f"gpu_tot_TOT_INST/gpu_avg_TOT_INST = {tot_inst / avg_inst:.4g} "
                         f"samples, not {samples}")
        elif not math.isclose(total, row["avg_power_W"], rel_tol=1e-4, abs_tol=1e-6):
            notes.append(f"components sum to {total:.6g} W, not avg_power_W")
        row["note"] = "; ".join(notes)
        rows.append(row)
    return rows


def compare(spec, wdir, outdir, dtypes):
    """(match, mismatch text, float_err_scaled)."""
    problems = []
    err_scaled = 0.0
    for b in sorted(spec.get("buffers", {})):
        ref = np.load(os.path.join(wdir, "ref", b + ".npy"))
        got = np.fromfile(os.path.join(outdir, b + ".raw"), dtype=dtypes[b])
        if got.shape != ref.shape:
            problems.append(f"{b}: size {got.size} vs {ref.size}")
            continue
        if ref.dtype.kind == "f":
            r = ref.astype(np.float64)
            g = got.astype(np.float64)
            both_nan = np.isnan(r) & np.isnan(g)
            diff = np.where(both_nan, 0.0, np.abs(g - r))
            scale = np.maximum(np.abs(g), np.abs(r))
            bad = ~both_nan & ~(diff <= 1e-5 * scale)
            mref = np.nanmax(np.abs(r)) if r.size else 0.0
            mdiff = float(np.nanmax(diff)) if diff.size else 0.0
            if mdiff > 0:
                err_scaled = max(err_scaled, mdiff / mref if mref > 0 else math.inf)
            if bad.any():
                rel = np.where(bad, diff / np.where(scale > 0, scale, 1.0), -1.0)
                i = int(np.nanargmax(rel))
                bdiff = float(diff[bad].max())
                problems.append(f"{b}: {int(bad.sum())}/{ref.size} differ (worst [{i}] "
                                f"{float(g[i])!r} vs {float(r[i])!r}, max|diff| {bdiff:.3g})")
        else:
            bad = got != ref
            if bad.any():
                i = int(np.argmax(bad))
                problems.append(f"{b}: {int(bad.sum())}/{ref.size} differ (first [{i}] "
                                f"{got[i]} vs {ref[i]})")
    fes = "0" if err_scaled == 0 else f"{err_scaled:.3g}"
    return ("no" if problems else "yes"), "; ".join(problems), fes


def parse_time(text):
    def get(key):
        m = re.search(re.escape(key) + r":\s*(\S+)", text)
        return m.group(1) if m else ""
    wall = get("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part or 0)
    rss = get("Maximum resident set size (kbytes)")
    return f"{secs:.2f}", get("User time (seconds)"), str(round(int(rss or 0) / 1024))


def simulate(name, cfg, limit, latency_override=None, power_dir=None):
    """The result row; with power_dir (--power), also AccelWattch's rows, its report and the
    edited gpgpusim.config copied into power_dir as NAME.CONFIG.*."""
    spec, wdir, ptx_file, ptx_edits, dtypes = PREPARED[name]
    tag = cfg if latency_override is None else f"{cfg}_lat{latency_override}"
    if power_dir is not None:
        tag += "_power"
    tag += os.environ.get("GSHOST_TAG", "")
    rundir = os.path.join(WORK, "runs", name if SIZE == "ci" else f"{name}@{SIZE}", tag)
    if os.path.isdir(rundir):
        shutil.rmtree(rundir)
    outdir = os.path.join(rundir, "out")
    os.makedirs(outdir)
    cfg_desc, latency = config_dir(cfg, rundir, latency_override, power_dir is not None)
    plan = open(os.path.join(wdir, "plan.in")).read().replace("@OUT@", outdir)
    with open(os.path.join(rundir, "plan.txt"), "w") as f:
        f.write(plan)
    env = dict(os.environ)
    env.update(CUDA_INSTALL_PATH=os.path.join(WORK, "overlay"),
               # GSHOST_SIMLIB: a directory whose libcudart.so.11.0 is another GPGPU-Sim build
               # (diagnostic runs only)
               LD_LIBRARY_PATH=os.environ.get("GSHOST_SIMLIB", os.path.join(WORK, "simlib")),
               SIM_PTX_FILES=ptx_file,
               # as GPGPU-Sim's setup_environment exports them for CUDA >= 6.0
               CUOBJDUMP_SIM_FILE="jj", PTX_SIM_USE_PTX_FILE="1.ptx",
               PTX_SIM_KERNELFILE="_1.ptx",
               PATH=os.path.join(WORK, "overlay", "bin") + ":" + env["PATH"])
    launches = spec["launch"]
    grid = (";".join("x".join(map(str, l["grid"])) for l in launches)
            if len(launches) <= 8 else f"{len(launches)} launches")
    blocks = []
    for l in launches:
        s = "x".join(map(str, l["block"]))
        if s not in blocks:
            blocks.append(s)
    row = dict(workload=name, config=cfg, launches=len(launches),
               launch_latency_cycles=latency * len(launches), grid=grid, block=";".join(blocks),
               ptx_edits="; ".join(ptx_edits), config_edits=cfg_desc
               + ("" if latency_override is None
                  else f"; -gpgpu_kernel_launch_latency {latency_override}"))
    power_rows = []

    def failed(note):
        if power_dir is not None:
            power_rows.append(dict(workload=name, config=cfg, note=note))
        return row, power_rows
    log = open(os.path.join(rundir, "stdout.txt"), "w")
    tfile = os.path.join(rundir, "time.txt")
    t0 = time.time()
    p = subprocess.Popen(["/usr/bin/time", "-v", "-o", tfile, os.path.join(WORK, "gshost"),
                          "plan.txt"], cwd=rundir, env=env, stdout=log,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        rc = p.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        row.update(match="skipped", mismatch=f"over the {limit} s limit")
        print(f"{name} {tag}: skipped after {time.time() - t0:.0f} s", flush=True)
        return failed("skipped")
    log.close()
    out = open(os.path.join(rundir, "stdout.txt"), errors="replace").read()
    wall, user, rss = parse_time(open(tfile).read()) if os.path.exists(tfile) else ("", "", "")
    row.update(wall_s=wall, user_s=user, max_rss_mb=rss)
    tm = re.search(r"Exit status:\s*(\d+)", open(tfile).read()) if os.path.exists(tfile) else None
    sig = re.search(r"Command terminated by signal (\d+)", open(tfile).read()) \
        if os.path.exists(tfile) else None
    regs = []
    for m in re.finditer(r"GPGPU-Sim PTX: Kernel '([\w$]+)' : regs=(\d+)", out):
        if f"{m.group(1)}={m.group(2)}" not in regs:
            regs.append(f"{m.group(1)}={m.group(2)}")
    row["ptxas_regs"] = ";".join(regs)
    if rc != 0 or "gshost: done" not in out:
        status = f"signal {sig.group(1)}" if sig else f"exit status {tm.group(1) if tm else rc}"
        tail = out.strip().splitlines()[-3:]
        row.update(match="crash", mismatch=f"{status}: " + " | ".join(tail)[:300])
        print(f"{name} {tag}: crash ({status})", flush=True)
        return failed("crash")
    per = [int(x) for x in re.findall(r"(?m)^gpu_sim_cycle = (\d+)", out)]
    tot = int(re.findall(r"(?m)^gpu_tot_sim_cycle = (\d+)", out)[-1])
    if len(per) != len(launches) or sum(per) != tot:
        raise SystemExit(f"{name} {tag}: {len(per)} kernel stats, sum {sum(per)} vs total {tot}")
    row.update(gpu_tot_sim_cycle=tot, launch_cycles=";".join(map(str, per)),
               gpu_tot_sim_insn=re.findall(r"(?m)^gpu_tot_sim_insn = (\d+)", out)[-1],
               warp_insn=re.findall(r"(?m)^gpgpu_n_tot_w_icount = (\d+)", out)[-1],
               gpu_tot_ipc=re.findall(r"(?m)^gpu_tot_ipc =\s*(\S+)", out)[-1])
    match, mismatch, fes = compare(spec, wdir, outdir, dtypes)
    row.update(match=match, mismatch=mismatch, float_err_scaled=fes)
    print(f"{name} {tag}: {tot} cycles, match={match}, wall {wall} s", flush=True)
    if power_dir is not None:
        report = os.path.join(rundir, POWER_REPORT)
        if not os.path.exists(report):
            raise SystemExit(f"{name} {tag}: no {POWER_REPORT} in the run directory")
        os.makedirs(power_dir, exist_ok=True)
        shutil.copy(report, os.path.join(power_dir, f"{name}.{cfg}.{POWER_REPORT}"))
        shutil.copy(os.path.join(rundir, "gpgpusim.config"),
                    os.path.join(power_dir, f"{name}.{cfg}.gpgpusim.config"))
        power_rows = parse_power_report(report, name, cfg, launches, per, sample_period(rundir))
    return row, power_rows


PREPARED = {}
ALLOC_ORDER = os.environ.get("GSHOST_ALLOC_ORDER", "sorted")  # or "spec" (file order)


KEPTBACK = ["atax", "bicg", "mvt", "gemm", "syrk", "stream_triad", "dct8x8", "lud", "alexnet",
            "cifarnet", "mnist29", "mnist29_smem", "mnist29_lskip", "mnist29_lreg", "mnist33",
            "cifar32g", "mnist33_smem", "mnist33_lskip", "mnist33_lreg", "cifar32g_smem",
            "cifar32g_lskip", "cifar32g_lreg"]
CONFIG_ORDER = ["SM75_RTX2060", "SM2_GTX480"]


def row_key(r):
    w = r["workload"]
    return (KEPTBACK.index(w) if w in KEPTBACK else len(KEPTBACK), w,
            CONFIG_ORDER.index(r["config"]) if r["config"] in CONFIG_ORDER else 9, r["config"])


def write_rows(path, rows, columns=COLUMNS):
    """Replace rows with the same (workload, config), keep the others; KEPTBACK order (a
    workload's power rows stay in launch order: the sort is stable)."""
    old = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            old = list(csv.DictReader(f))
    keys = {(r["workload"], r["config"]) for r in rows}
    merged = sorted([r for r in old if (r["workload"], r["config"]) not in keys] + rows,
                    key=row_key)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        for r in merged:
            w.writerow({c: r.get(c, "") for c in columns})


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("nvcc-shim", help="write the nvcc --version shim to PATH")
    s.add_argument("path")
    sub.add_parser("setup", help="stubs, overlay and gshost under $GPGPUSIM_WORK/keptback")
    r = sub.add_parser("run", help="simulate workloads, one run at a time")
    r.add_argument("workloads", nargs="+")
    r.add_argument("--configs", default="SM75_RTX2060,SM2_GTX480")
    r.add_argument("--out", required=True, help="CSV (rows replaced per workload and config)")
    r.add_argument("--limit", type=float, default=900, help="kill limit per run, seconds")
    r.add_argument("--launch-latency", type=int, default=None,
                   help="override -gpgpu_kernel_launch_latency (diagnostic runs)")
    r.add_argument("--size", default="ci", choices=["ci", "default", "paper"],
                   help="the workloads' input size (their NAME.<size>.toml specs); the CSV "
                        "has no size column: keep one --out per size")
    r.add_argument("--power", action="store_true",
                   help="AccelWattch on (see the header); writes OUT's stem + _power.csv and "
                        "copies the reports into OUT's stem + _accelwattch/")
    a = ap.parse_args()
    if a.cmd == "nvcc-shim":
        write_exec(a.path, NVCC_SHIM)
        return
    if a.cmd == "setup":
        setup()
        return
    global SIZE
    SIZE = a.size
    stem = a.out[:-4] if a.out.endswith(".csv") else a.out
    power_dir = stem + "_accelwattch" if a.power else None
    for name in a.workloads:
        PREPARED[name] = prepare(name)
        rows = []
        power_rows = []
        for cfg in a.configs.split(","):
            row, prows = simulate(name, cfg, a.limit, a.launch_latency, power_dir)
            rows.append(row)
            power_rows += prows
        write_rows(a.out, rows)
        if a.power:
            write_rows(stem + "_power.csv", power_rows, POWER_COLUMNS)


if __name__ == "__main__":
    main()
