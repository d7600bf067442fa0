#!/usr/bin/env python3
"""Compile every workloads/<name>/<name>.cu to PTX with NVRTC and record ptxas register use.

Usage (from anywhere):  python3 workloads/gen_ptx.py [name ...]

* NVRTC comes from the PyPI wheel `nvidia-cuda-nvrtc-cu12` (libnvrtc.so.12 loaded with ctypes),
  ptxas from `nvidia-cuda-nvcc-cu12` (bin/ptxas).  No GPU and no nvcc front-end are needed.
* The NVRTC program name is the repository-relative source path (workloads/<name>/<name>.cu),
  and the `.file` directive keeps it relative (NVRTC would prefix the current directory).
* Writes workloads/<name>/<name>.ptx and workloads/ptxas_sm75.csv
  (columns: workload, kernel, registers, shared_bytes, spill, cmd).
* Also runs workloads/gen_inputs.py, workloads/gen_nn.py and workloads/gen_cnn_sizes.py first so
  structured inputs (.npy, generated .toml) and the generated nn sources (.cu) are current.
"""
import csv
import ctypes
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NVRTC_OPTS = ["--gpu-architecture=compute_75", "-default-device", "-std=c++17", "-lineinfo"]
PTXAS_ARCH = "sm_75"


def nvidia_dir():
    import nvidia  # namespace package installed by the nvidia-* wheels

    for p in nvidia.__path__:
        if os.path.isdir(os.path.join(p, "cuda_nvrtc")):
            return p
    raise SystemExit("nvidia-cuda-nvrtc-cu12 is not installed (pip install nvidia-cuda-nvrtc-cu12)")


def load_nvrtc():
    lib = ctypes.CDLL(os.path.join(nvidia_dir(), "cuda_nvrtc", "lib", "libnvrtc.so.12"))
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    return lib


def nvrtc_version(lib):
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return f"{major.value}.{minor.value}"


def compile_ptx(lib, src, name, extra_opts=()):
    """PTX of CUDA source `src` compiled as program `name` with NVRTC_OPTS (then `extra_opts`,
    e.g. include paths for scripts/cu2ptx.py)."""
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None)
    if rc != 0:
        raise SystemExit(f"nvrtcCreateProgram({name}): {lib.nvrtcGetErrorString(rc).decode()}")
    all_opts = NVRTC_OPTS + list(extra_opts)
    opts = (ctypes.c_char_p * len(all_opts))(*[o.encode() for o in all_opts])
    rc = lib.nvrtcCompileProgram(prog, len(all_opts), opts)
    log_size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(log_size))
    log = ctypes.create_string_buffer(log_size.value)
    lib.nvrtcGetProgramLog(prog, log)
    if rc != 0:
        raise SystemExit(f"NVRTC failed on {name}:\n{log.value.decode()}")
    if log.value.strip():
        print(log.value.decode(), file=sys.stderr)
    size = ctypes.c_size_t()
    lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetPTX(prog, ptx)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value.decode()


def relative_file_directives(ptx, name, allow_absolute=False):
    """NVRTC joins the current directory to a relative program name in the `.file` directive
    (-lineinfo); write the repository-relative name back so the PTX names no path of this machine.
    Any other absolute path is an error unless `allow_absolute` (scripts/cu2ptx.py: a user's
    headers)."""
    out = []
    for line in ptx.splitlines(keepends=True):
        m = re.match(r'(\s*\.file\s+\d+\s+")([^"]*)(".*)', line, re.S)
        if m and m.group(2).endswith("/" + name):
            line = m.group(1) + name + m.group(3)
        elif m and os.path.isabs(m.group(2)) and not allow_absolute:
            raise SystemExit(f"{name}: absolute path in the PTX: {line.strip()}")
        out.append(line)
    return "".join(out)


def ptxas_info(ptx_path):
    ptxas = os.path.join(nvidia_dir(), "cuda_nvcc", "bin", "ptxas")
    cmd = [ptxas, "-v", f"-arch={PTXAS_ARCH}", ptx_path, "-o", "/dev/null"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"ptxas failed on {ptx_path}:\n{out.stderr}")
    shown = f"ptxas -v -arch={PTXAS_ARCH} {os.path.relpath(ptx_path, HERE)} -o /dev/null"
    rows, kernel = [], None
    for line in out.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            kernel = m.group(1)
            rows.append({"kernel": kernel, "registers": 0, "shared_bytes": 0, "spill": 0})
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and rows:
            rows[-1]["spill"] = int(m.group(1)) + int(m.group(2))
        m = re.search(r"Used (\d+) registers", line)
        if m and rows:
            rows[-1]["registers"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            rows[-1]["shared_bytes"] = int(s.group(1)) if s else 0
    for r in rows:
        r["cmd"] = shown
    return rows


def main():
    subprocess.run([sys.executable, os.path.join(HERE, "gen_inputs.py")], check=True)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_nn.py")], check=True)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_cnn_sizes.py")], check=True)
    lib = load_nvrtc()
    print(f"NVRTC {nvrtc_version(lib)}; options: {' '.join(NVRTC_OPTS)}")
    names = sys.argv[1:] or sorted(
        d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, f"{d}.cu"))
    )
    csv_path = os.path.join(HERE, "ptxas_sm75.csv")
    table = {}
    if sys.argv[1:] and os.path.exists(csv_path):
        with open(csv_path) as f:
            for r in csv.DictReader(f):
                table.setdefault(r["workload"], []).append(r)
    for name in names:
        cu = os.path.join(HERE, name, f"{name}.cu")
        with open(cu) as f:
            src = f.read()
        rel = os.path.relpath(cu, ROOT)  # program name: workloads/<name>/<name>.cu
        ptx = relative_file_directives(compile_ptx(lib, src, rel), rel)
        header = (
            f"//\n// Generated by workloads/gen_ptx.py from {name}.cu with NVRTC {nvrtc_version(lib)}\n"
            f"// options: {' '.join(NVRTC_OPTS)}\n//\n"
        )
        ptx_path = os.path.join(HERE, name, f"{name}.ptx")
        with open(ptx_path, "w") as f:
            f.write(header + ptx)
        rows = ptxas_info(ptx_path)
        table[name] = [dict(workload=name, **r) for r in rows]
        print(f"{name}: " + ", ".join(f"{r['kernel']}={r['registers']} regs" for r in rows))
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["workload", "kernel", "registers", "shared_bytes", "spill", "cmd"])
        w.writeheader()
        for name in sorted(table):
            for r in table[name]:
                w.writerow(r)


if __name__ == "__main__":
    main()
