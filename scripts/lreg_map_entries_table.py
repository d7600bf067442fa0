#!/usr/bin/env python3
"""Design `lreg`'s map size against what it removes: the table of designs/src/lreg/README.md
("`map_entries`: sensitivity").

    cargo build --release
    python3 scripts/lreg_map_entries_table.py [--gpu gtx480] [--size ci]

For both L-register versions of the NN benchmark's MNIST network (mnist29_lskip: corners
skipped; mnist29_lreg: corners handled) and `design.map_entries` in 8, 16, 32, 64 (the
default) and 128, it runs

    target/release/regwatt run --workload W --gpu G --size S --design lreg \\
        --set design.map_entries=N --json

and prints from `activity.design_stats.lreg`: the global load lanes that still reach memory
(`memory_load_lanes`) and the load instructions that do (`memory_load_instructions`), the
lanes that fell back to their own load (`fallback_lanes`), the L-registers refused because
the warp's map was full (`refused_map_full`), and the kernel cycles (`cycles` minus the launch
latency). Every run's output is checked against the workload's reference.
"""
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

WORKLOADS = ["mnist29_lskip", "mnist29_lreg"]
ENTRIES = [8, 16, 32, 64, 128]


def run(args):
    w, gpu, size, n = args
    out = subprocess.run(["target/release/regwatt", "run", "--workload", w, "--gpu", gpu,
                          "--size", size, "--design", "lreg", "--set",
                          f"design.map_entries={n}", "--json"],
                         check=True, capture_output=True, text=True).stdout
    d = json.loads(out)
    if d.get("output_check") is not True:
        sys.exit(f"{w}, map_entries {n}: output not checked correct")
    s = d["activity"]["design_stats"]["lreg"]
    return args, (s["memory_load_lanes"], s["memory_load_instructions"], s["fallback_lanes"],
                  s["refused_map_full"], d["cycles"] - d["launch_latency"]["cycles"])


def main():
    argv = sys.argv[1:]
    gpu, size = "gtx480", "ci"
    while argv[:1] in (["--gpu"], ["--size"]):
        gpu, size = (argv[1], size) if argv[0] == "--gpu" else (gpu, argv[1])
        argv = argv[2:]
    jobs = [(w, gpu, size, n) for w in WORKLOADS for n in ENTRIES]
    with ThreadPoolExecutor(2) as ex:
        got = dict(ex.map(run, jobs))
    print(f"gpu {gpu}, size {size}, design lreg")
    print()
    print("| workload | map_entries | memory load lanes | memory load instructions "
          "| fallback lanes | refused (map full) | kernel cycles |")
    print("|---|---|---|---|---|---|---|")
    for w in WORKLOADS:
        for n in ENTRIES:
            lanes, instrs, fb, refused, cycles = got[(w, gpu, size, n)]
            print(f"| {w} | {n} | {lanes:,} | {instrs:,} | {fb:,} | {refused:,} | {cycles:,} |")


if __name__ == "__main__":
    main()
