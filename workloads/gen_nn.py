#!/usr/bin/env python3
"""Generate the 12 `nn` workloads' CUDA sources and launch specs (seed 001's NN benchmark).

  python3 workloads/gen_nn.py        (gen_ptx.py runs it first; then compile the PTX)

Writes workloads/<name>/<name>.cu and the launch spec of every input size (<name>.toml at ci,
<name>.default.toml, <name>.paper.toml: the batch of SIZES) for every input x version:
  inputs   mnist29 (29x29), mnist33 (33x33), cifar32g (32x32, CIFAR-10-sized greyscale)
  versions <input>        baseline: direct global loads, the ISPASS-2009 NN benchmark's structure
           <input>_smem   conv blocks copy their input maps to shared memory first
           <input>_lreg   L-register version with corner-case handling (seed 001 Sec. 7.5):
                          annotated conv kernels, blocks enlarged to (X+2+N, Y+2+N) (rows cut
                          to MAX_CTA_THREADS: mnist33's conv1 is 32 x 16), worker threads with
                          clamped windows that do not store
           <input>_lskip  L-register version skipping the corner cases (Sec. 6.6): annotated
                          conv kernels, the last output row and column exit without loading
Each .cu is self-contained (NVRTC compiles one file, the crate embeds one file); this script is
the single source of the kernels, so edit it, never the generated files.

Network (all versions, a batch of images via blockIdx.y; SIZES): conv1 1 -> 6 maps, conv2 6 -> 50
maps (5x5 windows, stride 2, output side floor((H - 5) / 2) + 1), fc3 50 * C2^2 -> 100,
fc4 100 -> 10; every neuron out = 1.7159 tanh(0.66666667 (bias + sum in * w)), one fmaf chain in
the order: bias, then per window position (row-major) per input map. Weights are laid out per
output neuron as [bias, weights in that order] (conv2: 1 + 25 * 6 = 151 per map).
"""
import math
import os
from string import Template

HERE = os.path.dirname(os.path.abspath(__file__))

# Images per workload (blockIdx.y) at each input size, by spec file suffix. The kernels index the
# batch by blockIdx.y alone, so a size is a spec only (the same .cu and PTX at every size).
#  ci       1: keeps the largest version (mnist33_lreg) near 3 M thread instructions; the batch
#           indexing is tested with a rewritten spec (tests/nn_exec.rs).
#  default  the smallest batch with a million warp instructions and every SM of both presets busy
#           within about 2 s of `regwatt run` (SIZE_NOTES).
#  paper    28 (SIZE_NOTES).
SIZES = {"": 1, ".default": 3, ".paper": 28}

# The spec header's lines on the size (none at ci: its spec predates the sizes).
SIZE_NOTES = {
    "": [],
    ".default": [
        "# Size `default`: 3 images, the smallest batch that runs fc3 (86-95 % of the warp",
        "# instructions and most of the cycles: single-thread blocks looping over all inputs) in two",
        "# full waves on gtx480 (300 blocks at 8 per SM on 15 SMs: 2.5 waves), with over a million",
        "# warp instructions. On rtx2060 (16 blocks per SM, 30 SMs) that is 0.6 of a wave; two waves",
        "# there take 10 images (conv2: 20, conv1: 50), 7-36 M warp instructions, beyond the ~2 s a",
        "# `regwatt run` may take.",
    ],
    ".paper": [
        "# Size `paper`: 28 images, the ISPASS-2009 benchmark's own run command `../bin/release/NN 28`",
        "# (gpgpu-sim/ispass2009-benchmarks, NN/README.GPGPU-Sim; NN.cu: NUM, \"the number of images",
        "# to process in parallel\", is gridDim.y of all four layers). Seed 001 ran this benchmark on",
        "# GPGPU-Sim 3.2.1 (Sec. 8.1) with \"the images [...] given in batches of 10 and 28\" (Sec. 6.1);",
        "# its results (Ch. 8) do not name the batch, so the benchmark's standard one is taken.",
    ],
}

INPUTS = {"mnist29": 29, "mnist33": 33, "cifar32g": 32}
VERSIONS = ["", "_smem", "_lreg", "_lskip"]
MAPS1, MAPS2, HIDDEN, CLASSES = 6, 50, 100, 10

PRAGMA1 = 'regwatt.lreg kernel_dim=5 row_stride=2 col_stride=2 skip=2 lead=1 inputs=0'
PRAGMA2 = 'regwatt.lreg kernel_dim=5 row_stride=2 col_stride=2 skip=12 lead=1 inputs=0,2,4,6,8,10'


def out_side(h):
    """Output side of a 5x5 stride-2 valid convolution."""
    return (h - 5) // 2 + 1


def warp_unit(n):
    """Smallest of 8, 16, 32 or a multiple of 32 that is >= n (seed 001 Sec. 7.5.2)."""
    for u in (8, 16, 32):
        if n <= u:
            return u
    return -(-n // 32) * 32


# The most threads a CTA of the fully unrolled conv kernels may have on the gtx480 preset: at 63
# registers a thread (ptxas sm_75 counts 64; regwatt's estimate is capped at Fermi's 63), a warp
# takes 2048 of the SM's 32768 registers, so 16 warps.
MAX_CTA_THREADS = 512


def lreg_block(x):
    """The `_lreg` block for an X x X output: (X + 2 + N, Y + 2 + N) as the seed writes it,
    except that the rows are cut to what fits MAX_CTA_THREADS (mnist33's conv1: 32 x 16)."""
    bx = warp_unit(x + 2)
    by = min(bx, MAX_CTA_THREADS // bx)
    assert by > x, f"no worker row for a {x}-row output"
    return bx, by


def geometry(h):
    c1 = out_side(h)
    c2 = out_side(c1)
    return dict(IN=h, C1=c1, C2=c2, N3=MAPS2 * c2 * c2)


HEADER = Template("""\
// GENERATED by workloads/gen_nn.py -- do not edit; change the generator and rerun it.
// $name: seed 001's NN benchmark (the ISPASS-2009 GPGPU-Sim 4-layer MNIST CNN, own code), $what.
// Input $IN x $IN, batch = gridDim.y. conv1 1 -> 6 maps ($C1 x $C1), conv2 6 -> 50 maps
// ($C2 x $C2), fc3 $N3 -> 100, fc4 100 -> 10; 5x5 windows, stride 2. Every neuron:
// act(bias + sum in * w) as one fmaf chain (bias, then per window position row-major, per input
// map), act(z) = 1.7159 tanh(0.66666667 z). Weights per output neuron: [bias, weights in that
// order] (conv1 26, conv2 151, fc3 $N3P1, fc4 101 floats).
constexpr int IN = $IN;  // input side
constexpr int C1 = $C1;  // conv1 output side
constexpr int C2 = $C2;   // conv2 output side
constexpr int N3 = $N3; // fc3 inputs: 50 maps x C2 x C2

__device__ float act(float z) { return 1.7159f * tanhf(0.66666667f * z); }

// An empty asm that may touch memory: no instruction, but NVRTC keeps the loads on either side of
// it in this order (without it, it issues a weight load, whose address is ready first, before the
// pixel load of the same window position).
__device__ __forceinline__ void keep_order() { asm volatile("" ::: "memory"); }
""")

# The _lreg conv kernels' bias and weight loads (seed 001 Sec. 7.5.1: the worker threads fetch
# pixels for their neighbours and "do not perform any computations from that data").
OWN_WEIGHT = """
// The bias and weight loads only the output threads make (seed 001 Sec. 7.5.1: the worker
// threads fetch pixels for their neighbours and "do not perform any computations from that
// data"; here they multiply-add zeros, which they never store). The loads are predicated, not
// branched around, so that every
// warp issues them, even a warp of workers only (with no lane active): the warp's count of
// L-register loads, which names its L-registers, stays in step with its neighbours'.
// `own_predicate` sets the predicate once per thread (a kernel-scope PTX register); the weight's
// offset is an immediate of its load, as in the other versions' code, so the generator writes
// the window out position by position.
__device__ __forceinline__ void own_predicate(bool own)
{
    asm volatile(".reg .pred own;\\n\\tsetp.ne.u32 own, %0, 0;" ::"r"(static_cast<unsigned>(own)));
}

// v = w[K] in the output threads; a worker's v keeps its value (0: one register, set once, for
// every weight, so no copy per load).
template <int K>
__device__ __forceinline__ void own_weight(float& v, const float* w)
{
    asm volatile("@own ld.global.f32 %0, [%1+%2];" : "+f"(v) : "l"(__cvta_generic_to_global(w)), "n"(4 * K) : "memory");
}
"""

# ---- conv1, conv2: one block per output map (blockIdx.x), thread (x, y) = output pixel ------

# Per layer: (the input map side, its maps' floats per image, the output side, the outputs'
# floats per image, floats of weights per output map, the annotation).
LAYERS = {
    1: ("IN", "IN * IN", "C1", "6 * C1 * C1", 26, PRAGMA1),
    2: ("C1", "6 * C1 * C1", "C2", "N3", 151, PRAGMA2),
}

COMMENT = {
    "": "direct global loads",
    "_smem": "the block first copies the image's input maps to shared memory (weights stay global)",
    "_lreg": "L registers with corner-case handling: the block is larger than the outputs; the extra\n"
    "// (worker) threads load their windows clamped to the maps, load no weights, and do not store",
    "_lskip": "L registers skipping the corner cases: the last output row and column exit",
}


def conv_kernel(layer, version):
    """nn_conv<layer> of `version`: the bias, then per window position (row-major), per input map
    (conv2: 6, interleaved), the pixel and its weight, as one fmaf chain."""
    side, in_len, o, out_len, per_map, pragma = LAYERS[layer]
    chan = "" if layer == 1 else f"c * {side} * {side} + "
    lines = [
        "",
        f"// conv{layer}, {COMMENT[version]}.",
        f'extern "C" __global__ void nn_conv{layer}(const float* in, const float* w, float* out)',
        "{",
    ]
    if version in ("_lreg", "_lskip"):
        lines.append(f'    asm volatile(".pragma \\"{pragma}\\";");')
    if version == "_smem":
        lines.append(f"    __shared__ float s_in[{in_len}];")
    lines.append("    const int x = threadIdx.x, y = threadIdx.y, map = blockIdx.x, img = blockIdx.y;")
    if version == "_lskip":
        lines.append(f"    if (x == {o} - 1 || y == {o} - 1) return;  // the inverted L: no loads, output stays 0")
    if version == "_smem":
        lines += [
            f"    for (int i = y * blockDim.x + x; i < {in_len}; i += blockDim.x * blockDim.y)",
            f"        s_in[i] = in[img * {in_len} + i];",
            "    __syncthreads();",
            f"    const float* win = s_in + 2 * y * {side} + 2 * x;",
        ]
    elif version == "_lreg":
        lines.append(f"    const float* win = in + img * {in_len};")
    else:
        lines.append(f"    const float* win = in + img * {in_len} + 2 * y * {side} + 2 * x;")
    if version == "_lreg":
        return "\n".join(lines + lreg_body(layer) + ["}", ""])
    lines += [f"    const float* wm = w + map * {per_map};", "    float acc = wm[0];", "    keep_order();"]
    loops = [("ky", "        "), ("kx", "            ")] + ([("c", "                ")] if layer == 2 else [])
    indent = "    "
    for var, inner in loops:
        lines += ["#pragma unroll", f"{indent}for (int {var} = 0; {var} < {6 if var == 'c' else 5}; ++{var}) {{"]
        indent = inner
    pixel = f"{chan}ky * {side} + kx"
    weight = "1 + ky * 5 + kx" if layer == 1 else "1 + (ky * 5 + kx) * 6 + c"
    lines += [
        f"{indent}const float p = win[{pixel}];",
        f"{indent}keep_order();",
        f"{indent}const float q = wm[{weight}];",
        f"{indent}keep_order();",
        f"{indent}acc = fmaf(p, q, acc);",
    ]
    for _, inner in reversed(loops):
        lines.append(inner[4:] + "}")
    lines.append(f"    out[img * {out_len} + (map * {o} + y) * {o} + x] = act(acc);")
    return "\n".join(lines + ["}", ""])


def lreg_body(layer):
    """The _lreg conv kernel after its first line: the window written out position by position
    (ky, kx row-major, then the input map c), each the pixel load (every thread, clamped to the
    maps), the output threads' predicated weight load, and the multiply-add."""
    side, in_len, o, out_len, per_map, _ = LAYERS[layer]
    chans = 1 if layer == 1 else 6
    lines = [
        f"    const bool own = x < {o} && y < {o};  // an output thread, not a worker",
        "    own_predicate(own);",
        f"    const float* wm = w + map * {per_map};",
        "    float acc = 0.0f, q = 0.0f;",
        "    own_weight<0>(acc, wm);",
        "    keep_order();",
    ]
    for ky in range(5):
        lines.append(f"    const int row{ky} = min(2 * y + {ky}, {side} - 1);")
    for kx in range(5):
        lines.append(f"    const int col{kx} = min(2 * x + {kx}, {side} - 1);")
    for ky in range(5):
        for kx in range(5):
            for c in range(chans):
                chan = f"{c} * {side} * {side} + " if layer == 2 else ""
                k = 1 + (ky * 5 + kx) * chans + c
                lines += [
                    "    {",
                    f"        const float p = win[{chan}row{ky} * {side} + col{kx}];",
                    "        keep_order();",
                    f"        own_weight<{k}>(q, wm);",
                    "        keep_order();",
                    "        acc = fmaf(p, q, acc);",
                    "    }",
                ]
    lines += [
        "    const float r = act(acc);",
        '    asm volatile("" ::"f"(r));  // every thread computes r (NVRTC would branch around it all)',
        f"    if (own) out[img * {out_len} + (map * {o} + y) * {o} + x] = r;",
    ]
    return lines


# ---- fc3, fc4: one single-thread block per output neuron, looping over all inputs ----------

FC = """
// Fully connected: one single-thread block per output neuron (blockIdx.x), blockIdx.y = image.
template <int N, int M>
__device__ void fc_neuron(const float* in, const float* w, float* out)
{
    const int n = blockIdx.x, img = blockIdx.y;
    const float* v = in + img * N;
    const float* wn = w + n * (N + 1);
    float acc = wn[0];
    for (int i = 0; i < N; ++i) acc = fmaf(v[i], wn[1 + i], acc);
    out[img * M + n] = act(acc);
}

extern "C" __global__ void nn_fc3(const float* in, const float* w, float* out) { fc_neuron<N3, 100>(in, w, out); }

extern "C" __global__ void nn_fc4(const float* in, const float* w, float* out) { fc_neuron<100, 10>(in, w, out); }
"""

def cuda(name, version, g):
    what = {
        "": "baseline (direct global loads)",
        "_smem": "shared-memory version (conv input maps staged in shared memory)",
        "_lreg": "L-register version with corner-case handling (seed Sec. 7.5)",
        "_lskip": "L-register version skipping the corner cases (seed Sec. 6.6)",
    }[version]
    head = HEADER.substitute(dict(g, name=name, what=what, N3P1=g["N3"] + 1))
    if version == "_lreg":
        head += OWN_WEIGHT
    return head + conv_kernel(1, version) + conv_kernel(2, version) + FC


def bound(fan_in):
    """Weights uniform on +-sqrt(3 / fan_in): variance 1 / fan_in, so tanh does not saturate."""
    return f"{math.sqrt(3.0 / fan_in):.6g}"


def toml(name, version, g, size=""):
    b = SIZES[size]
    ih, c1, c2, n3 = g["IN"], g["C1"], g["C2"], g["N3"]
    blk1 = lreg_block(c1) if version == "_lreg" else (c1, c1)
    blk2 = lreg_block(c2) if version == "_lreg" else (c2, c2)
    same = "# +-sqrt(3 / fan_in). The same seeds in every version of every input"
    lines = [
        "# GENERATED by workloads/gen_nn.py -- do not edit.",
        f"# {name}: seed 001's NN benchmark on a {ih}x{ih} input, batch {b} (blockIdx.y).",
        f"# conv1 1 -> 6 ({c1}x{c1}), conv2 6 -> 50 ({c2}x{c2}), fc3 {n3} -> 100, fc4 100 -> 10.",
        "# Synthetic data: pixels uniform on [0, 1]; each layer's weights and biases uniform on",
        f"{same}" + (" and at every size" if size else "."),
        # (the uniform initialiser draws element i alike whatever the buffer's length)
        *(["# (a batch starts with the smaller batches' images)."] if size else []),
        *SIZE_NOTES[size],
        f'ptx = "{name}.ptx"',
        "",
    ]

    def buf(n, length, init):
        lines.extend([f"[buffers.{n}]", 'dtype = "f32"', f"len = {length}", f"init = {init}", ""])

    uni = lambda lo, hi, seed: f"{{ kind = \"uniform\", min = {lo}, max = {hi}, seed = {seed} }}"
    zero = '{ kind = "fill", value = 0 }'
    buf("img", b * ih * ih, uni("0.0", "1.0", 3201))
    buf("w1", MAPS1 * 26, uni("-" + bound(25), bound(25), 3202))
    buf("c1", b * MAPS1 * c1 * c1, zero)
    buf("w2", MAPS2 * 151, uni("-" + bound(150), bound(150), 3203))
    buf("c2", b * n3, zero)
    buf("w3", HIDDEN * (n3 + 1), uni("-" + bound(n3), bound(n3), 3204))
    buf("f3", b * HIDDEN, zero)
    buf("w4", CLASSES * (HIDDEN + 1), uni("-" + bound(HIDDEN), bound(HIDDEN), 3205))
    buf("out", b * CLASSES, zero)
    for kernel, grid, block, args in [
        ("nn_conv1", MAPS1, blk1, '"img", "w1", "c1"'),
        ("nn_conv2", MAPS2, blk2, '"c1", "w2", "c2"'),
        ("nn_fc3", HIDDEN, (1, 1), '"c2", "w3", "f3"'),
        ("nn_fc4", CLASSES, (1, 1), '"f3", "w4", "out"'),
    ]:
        lines.extend(
            [
                "[[launch]]",
                f'kernel = "{kernel}"',
                f"grid = [{grid}, {b}, 1]",
                f"block = [{block[0]}, {block[1]}, 1]",
                f"args = [{args}]",
                "",
            ]
        )
    return "\n".join(lines[:-1]) + "\n"


def main():
    for inp, h in INPUTS.items():
        g = geometry(h)
        for v in VERSIONS:
            name = inp + v
            os.makedirs(os.path.join(HERE, name), exist_ok=True)
            with open(os.path.join(HERE, name, f"{name}.cu"), "w") as f:
                f.write(cuda(name, v, g))
            for size in SIZES:
                with open(os.path.join(HERE, name, f"{name}{size}.toml"), "w") as f:
                    f.write(toml(name, v, g, size))


if __name__ == "__main__":
    main()
