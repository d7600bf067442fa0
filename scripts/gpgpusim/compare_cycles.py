#!/usr/bin/env python3
"""regwatt cycles vs a GPGPU-Sim reference CSV (kernel launch latency removed from both).

  python3 scripts/gpgpusim/compare_cycles.py calibrations/gpgpusim-keptback/cycles.csv

For each row with cycles: regwatt = `regwatt run --workload W --gpu rtx2060|gtx480 --node 40nm
--json` field `cycles` minus `launch_latency.cycles`; GPGPU-Sim = gpu_tot_sim_cycle minus
launch_latency_cycles. Prints a Markdown table and the mean |ratio - 1| per preset.
"""
import csv
import json
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
REGWATT = os.environ.get("REGWATT", os.path.join(REPO, "target", "release", "regwatt"))
PRESET = {"SM75_RTX2060": "rtx2060", "SM2_GTX480": "gtx480"}


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    errs = {}
    print("| workload | preset | regwatt | GPGPU-Sim | ratio | match |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        gpu = PRESET[r["config"]]
        if not r["gpu_tot_sim_cycle"]:
            print(f"| {r['workload']} | {gpu} | | | | {r['match']} |")
            continue
        out = subprocess.run([REGWATT, "run", "--workload", r["workload"], "--gpu", gpu,
                              "--node", "40nm", "--json"], check=True, capture_output=True,
                             text=True).stdout
        d = json.loads(out)
        rw = d["cycles"] - d["launch_latency"]["cycles"]
        gs = int(r["gpu_tot_sim_cycle"]) - int(r["launch_latency_cycles"])
        ratio = rw / gs
        errs.setdefault(gpu, []).append(abs(ratio - 1))
        print(f"| {r['workload']} | {gpu} | {rw} | {gs} | {ratio:.3f} | {r['match']} |")
    for gpu, e in errs.items():
        print(f"\n{gpu}: mean |ratio - 1| = {sum(e) / len(e):.3f} over {len(e)} workloads")


if __name__ == "__main__":
    main()
