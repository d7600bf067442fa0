#!/usr/bin/env python3
"""regwatt's cycles beside GPGPU-Sim's: the tables of docs/timing.md ("Against GPGPU-Sim 4.2 on
the suite", "... on a kept-back set").

    cargo build --release
    python3 scripts/gpgpusim_table.py [--size ci|default] [calibrations/gpgpusim-suite/cycles.csv] [WORKLOAD ...]

For every workload of the CSV (or those named) and both presets it runs
`target/release/regwatt run --workload W --size SIZE --gpu G --node 40nm --json` (SIZE: ci
unless given; the CSV's GPGPU-Sim runs must be of the same size) and takes `cycles` minus
`launch_latency.cycles`; GPGPU-Sim's `gpu_tot_sim_cycle` minus `launch_latency_cycles`
(5 000 per launch on SM75_RTX2060, none on SM2_GTX480). Prints a Markdown table with the
ratios and, per preset, the mean |ratio - 1| over the rows GPGPU-Sim completed
(`tests/suite/designs_workloads.rs` recomputes the suite's and bounds it).
"""
import csv
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

CONFIGS = {"rtx2060": "SM75_RTX2060", "gtx480": "SM2_GTX480"}


SIZE = "ci"


def regwatt(args):
    w, gpu = args
    out = subprocess.run(["target/release/regwatt", "run", "--workload", w, "--size", SIZE,
                          "--gpu", gpu, "--node", "40nm", "--json"], check=True,
                         capture_output=True, text=True).stdout
    d = json.loads(out)
    return args, d["cycles"] - d["launch_latency"]["cycles"]


def main():
    global SIZE
    path = "calibrations/gpgpusim-suite/cycles.csv"
    names = sys.argv[1:]
    if names[:1] == ["--size"]:
        SIZE, names = names[1], names[2:]
    if names and names[0].endswith(".csv"):
        path, names = names[0], names[1:]
    ref = {}
    order = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["workload"] not in order:
                order.append(r["workload"])
            ok = r["match"] != "crash" and r["gpu_tot_sim_cycle"] not in ("", None)
            ref[(r["workload"], r["config"])] = (
                int(r["gpu_tot_sim_cycle"]) - int(r["launch_latency_cycles"] or 0) if ok else None)
    workloads = names or order
    with ThreadPoolExecutor(2) as ex:
        got = dict(ex.map(regwatt, [(w, g) for w in workloads for g in CONFIGS]))
    print("| workload | rtx2060 regwatt | rtx2060 GPGPU-Sim | ratio "
          "| gtx480 regwatt | gtx480 GPGPU-Sim | ratio |")
    print("|---|---|---|---|---|---|---|")
    errs = {g: [] for g in CONFIGS}
    fmt = lambda n: f"{n:,}".replace(",", " ")
    for w in workloads:
        cells = []
        for g, cfg in CONFIGS.items():
            r = got[(w, g)]
            gs = ref.get((w, cfg))
            if gs:
                errs[g].append(abs(r / gs - 1))
                cells += [fmt(r), fmt(gs), f"{r / gs:.2f}"]
            else:
                cells += [fmt(r), "—", "—"]
        print(f"| {w} | " + " | ".join(cells) + " |")
    for g, e in errs.items():
        if e:
            print(f"\n{g}: mean |ratio - 1| = {100 * sum(e) / len(e):.1f} % over {len(e)} workloads")


if __name__ == "__main__":
    main()
