#!/usr/bin/env python3
"""Design `cerf`'s speed-up against the latency of a hit in its array: the table of
designs/src/cerf/README.md ("Hit latency: sensitivity").

    cargo build --release
    python3 scripts/cerf_hit_latency_table.py [--size ci] [WORKLOAD ...]

The seed reads a line from the integrated array through the RF's banks after a tagging stage
(Jing et al. 2016 §III); regwatt's default `design.hit_latency` is the L1D's load path it
replaces (GPGPU-Sim SM2_GTX480 `-gpgpu_l1_latency 35`). For the seed's cache-sensitive kernels
(default: atax bicg mvt gemm syrk stream_triad) and hit latencies 4, 10, 20 and 35 it runs

    target/release/regwatt run --workload W --gpu gtx480 --size S --design cerf \\
        --set design.hit_latency=L --json

and `--design baseline` once, and prints the speed-up (baseline kernel cycles over cerf's,
the launch latency taken out of both; gtx480 has none) per workload and latency, and their
geometric mean. Every run's output is checked against the workload's reference.
"""
import json
import math
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

WORKLOADS = ["atax", "bicg", "mvt", "gemm", "syrk", "stream_triad"]
LATENCIES = [4, 10, 20, 35]


def run(args):
    w, size, lat = args
    cmd = ["target/release/regwatt", "run", "--workload", w, "--gpu", "gtx480", "--size", size,
           "--json"]
    cmd += ["--design", "baseline"] if lat is None else [
        "--design", "cerf", "--set", f"design.hit_latency={lat}"]
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    if d.get("output_check") is not True:
        sys.exit(f"{w}, hit latency {lat}: output not checked correct")
    return args, d["cycles"] - d["launch_latency"]["cycles"]


def main():
    argv = sys.argv[1:]
    size = "ci"
    if argv[:1] == ["--size"]:
        size, argv = argv[1], argv[2:]
    workloads = argv or WORKLOADS
    with ThreadPoolExecutor(2) as ex:
        got = dict(ex.map(run, [(w, size, l) for w in workloads for l in [None] + LATENCIES]))
    print(f"gpu gtx480, size {size}; speed-up of cerf over the baseline (baseline cycles / cerf cycles)")
    print()
    print("| workload | " + " | ".join(f"hit latency {l}" for l in LATENCIES) + " |")
    print("|---|" + "---|" * len(LATENCIES))
    logs = {l: [] for l in LATENCIES}
    for w in workloads:
        base = got[(w, size, None)]
        cells = []
        for l in LATENCIES:
            s = base / got[(w, size, l)]
            logs[l].append(math.log(s))
            cells.append(f"{s:.3f}")
        print(f"| {w} | " + " | ".join(cells) + " |")
    print("| geometric mean | " + " | ".join(
        f"{math.exp(sum(v) / len(v)):.3f}" for v in logs.values()) + " |")


if __name__ == "__main__":
    main()
