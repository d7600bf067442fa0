#!/usr/bin/env python3
"""Regenerates the PTX test inputs in this folder from their .cu sources with NVRTC.

Command used (from this folder):
    pip install nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-nvcc-cu12==12.9.86
    python3 gen.py
Each NAME.cu is compiled with options: --gpu-architecture=compute_75 -std=c++17 and, for files
whose name starts with `fm_`, additionally --use_fast_math. Output: NAME.ptx.
`unrolled_10k.cu` is the benchmark input of benches/ptx_frontend.rs (~10k instructions).
"""
import ctypes, glob, os, sys
import nvidia.cuda_nvrtc as m

lib = ctypes.CDLL(os.path.join(list(m.__path__)[0], "lib", "libnvrtc.so.12"))


def compile_cu(src, name, opts):
    prog = ctypes.c_void_p()
    r = lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), 0, None, None)
    assert r == 0, r
    copts = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    r = lib.nvrtcCompileProgram(prog, len(opts), copts)
    logsz = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(logsz))
    log = ctypes.create_string_buffer(logsz.value)
    lib.nvrtcGetProgramLog(prog, log)
    if r != 0:
        sys.exit(f"{name}: {log.value.decode()}")
    sz = ctypes.c_size_t()
    lib.nvrtcGetPTXSize(prog, ctypes.byref(sz))
    buf = ctypes.create_string_buffer(sz.value)
    lib.nvrtcGetPTX(prog, buf)
    return buf.value.decode()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for cu in sorted(glob.glob(os.path.join(here, "*.cu"))):
        name = os.path.basename(cu)[:-3]
        opts = ["--gpu-architecture=compute_75", "-std=c++17"]
        if name.startswith("fm_"):
            opts.append("--use_fast_math")
        with open(cu) as f:
            ptx = compile_cu(f.read(), name + ".cu", opts)
        with open(os.path.join(here, name + ".ptx"), "w") as f:
            f.write(ptx)
        print("wrote", name + ".ptx")


if __name__ == "__main__":
    main()
