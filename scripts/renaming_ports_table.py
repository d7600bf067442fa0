#!/usr/bin/env python3
"""The renaming table's lookup ports against cycles: the table of designs/src/renaming/README.md
("Table ports: sensitivity").

    cargo build --release
    python3 scripts/renaming_ports_table.py [--gpu gtx480] [--size ci] [WORKLOAD ...]

Seed 002 §6.1 gives the renaming table four banks, serialises a bank conflict, and times a
lookup at 0.22 ns in a 1.25 ns cycle; `design.table_lookups_per_cycle` (default 5 =
floor(1.25 / 0.22)) is how many lookups a bank serves in one cycle. For every workload (default:
one of each kind, the design suites' sample) it runs

    target/release/regwatt run --workload W --gpu G --size S --design renaming \\
        --set design.table_lookups_per_cycle=N --json

for N in 1, 2, 3 and 5, and `--design baseline` once, and prints per workload the renaming
cycles at each N over the baseline's, and the table conflicts
(`activity.design_stats.renaming.table_conflicts`: lookups that waited for their bank) at each
N. The last line is the geometric mean of the cycle ratios per N.
"""
import json
import math
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

WORKLOADS = ["vectorAdd", "reduction", "matrixMul_tiled", "histogram", "kmeans", "bfs",
             "mandelbrot", "conv_mnist", "backprop"]
PORTS = [1, 2, 3, 5]


def run(args):
    w, gpu, size, ports = args
    cmd = ["target/release/regwatt", "run", "--workload", w, "--gpu", gpu, "--size", size, "--json"]
    if ports is None:
        cmd += ["--design", "baseline"]
    else:
        cmd += ["--design", "renaming", "--set", f"design.table_lookups_per_cycle={ports}"]
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    if d.get("output_check") is False:
        sys.exit(f"{w} {ports}: wrong output")
    stats = d["activity"]["design_stats"].get("renaming", {})
    return args, (d["cycles"], stats.get("table_conflicts", 0))


def main():
    argv = sys.argv[1:]
    gpu, size = "gtx480", "ci"
    while argv[:1] in (["--gpu"], ["--size"]):
        if argv[0] == "--gpu":
            gpu = argv[1]
        else:
            size = argv[1]
        argv = argv[2:]
    workloads = argv or WORKLOADS
    jobs = [(w, gpu, size, p) for w in workloads for p in [None] + PORTS]
    with ThreadPoolExecutor(2) as ex:
        got = dict(ex.map(run, jobs))
    print(f"gpu {gpu}, size {size}; renaming cycles / baseline cycles, and table conflicts, "
          "at N lookups per bank per cycle")
    print()
    print("| workload | " + " | ".join(f"cycles N={p}" for p in PORTS) + " | "
          + " | ".join(f"conflicts N={p}" for p in PORTS) + " |")
    print("|---|" + "---|" * (2 * len(PORTS)))
    logs = {p: [] for p in PORTS}
    for w in workloads:
        base = got[(w, gpu, size, None)][0]
        ratios, conflicts = [], []
        for p in PORTS:
            c, k = got[(w, gpu, size, p)]
            logs[p].append(math.log(c / base))
            ratios.append(f"{c / base:.3f}")
            conflicts.append(f"{k:,}")
        print(f"| {w} | " + " | ".join(ratios) + " | " + " | ".join(conflicts) + " |")
    print()
    print("geometric mean of the cycle ratios: " + ", ".join(
        f"N={p} {math.exp(sum(v) / len(v)):.3f}" for p, v in logs.items()))


if __name__ == "__main__":
    main()
