#!/usr/bin/env python3
"""Design `malekeh`'s adaptive STHLD at work: the table of designs/src/malekeh/README.md
("The adaptive STHLD at work").

    cargo build --release
    python3 scripts/malekeh_sthld_table.py [--size default] [WORKLOAD ...]

Malekeh §IV-B2 makes a warp wait (⑦) when the only free collector units hold near-reuse
values, STHLD times per SM before it takes one (⑨); §IV-B3 sets STHLD for the whole GPU every
10,000 cycles from the change of IPC. For each workload (default: the seed's Rodinia kernels
that regwatt has, the workloads of its seed table) it runs on rtx2060

    target/release/regwatt run --workload W --gpu rtx2060 --size S --design malekeh --json
    ... --set design.sthld=0 --json

and prints, for the adaptive run: the intervals closed, the highest STHLD set,
the allocations that found only near CCUs free (⑦–⑨, `alloc_after_wait`: the collector units
ran short of far ones) and the waits (`sthld_waits`); and for both runs the RF cache hit ratio
and the kernel IPC (warp instructions per cycle, the launch latency taken out), with the
adaptive run's change against STHLD 0. Every run's output is checked against the workload's
reference.
"""
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

WORKLOADS = ["backprop", "bfs", "gaussian", "hotspot", "kmeans", "lud", "pathfinder", "srad"]


def run(args):
    w, size, fixed = args
    cmd = ["target/release/regwatt", "run", "--workload", w, "--gpu", "rtx2060", "--size", size,
           "--design", "malekeh", "--json"]
    if fixed:
        cmd += ["--set", "design.sthld=0"]
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    if d.get("output_check") is not True:
        sys.exit(f"{w}, sthld {'0' if fixed else 'adaptive'}: output not checked correct")
    m = d["activity"]["design_stats"]["malekeh"]
    kernel_cycles = d["cycles"] - d["launch_latency"]["cycles"]
    return args, {
        "intervals": len(m["sthld_trace"]),
        "top": max((t["sthld"] for t in m["sthld_trace"]), default=0),
        "short": m["alloc_after_wait"],
        "waits": m["sthld_waits"],
        "hit": m["hits"] / max(1, m["source_reads"]),
        "ipc": d["warp_instructions"] / kernel_cycles,
    }


def main():
    argv = sys.argv[1:]
    size = "default"
    if argv[:1] == ["--size"]:
        size, argv = argv[1], argv[2:]
    workloads = argv or WORKLOADS
    with ThreadPoolExecutor(2) as ex:
        got = dict(ex.map(run, [(w, size, f) for w in workloads for f in (False, True)]))
    print(f"gpu rtx2060, size {size}; design malekeh, adaptive STHLD against STHLD 0")
    print()
    print("| workload | intervals | highest STHLD | near-only allocations | waits "
          "| hit ratio, STHLD 0 | hit ratio, adaptive | kernel IPC, adaptive vs STHLD 0 |")
    print("|---|---|---|---|---|---|---|---|")
    for w in workloads:
        a, z = got[(w, size, False)], got[(w, size, True)]
        print(f"| {w} | {a['intervals']} | {a['top']} | {a['short']:,} | {a['waits']:,} "
              f"| {100 * z['hit']:.1f} % | {100 * a['hit']:.1f} % "
              f"| {100 * (a['ipc'] / z['ipc'] - 1):+.2f} % |")


if __name__ == "__main__":
    main()
