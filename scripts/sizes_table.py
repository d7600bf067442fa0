#!/usr/bin/env python3
"""How busy each built-in workload keeps each GPU at one input size: the table of
workloads/README.md ("Input sizes"), from the summary.csv of a `regwatt report`.

    regwatt report --size default --designs baseline --out R
    python3 scripts/sizes_table.py R/summary.csv

Per workload and preset (baseline design, first node and power mode of the report; cycles and
activity do not depend on node or power mode): kernel cycles, warp instructions,
`sm_busy_frac` (mean over SMs of the share of kernel cycles with a CTA resident) and
`issue_utilisation_frac` (warp instructions / (kernel cycles x issue slots x SMs)). The last
lines count the workloads at or above the busy threshold per preset and name the others.
"""

import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("summary", help="summary.csv of a regwatt report")
    ap.add_argument("--busy", type=float, default=0.8, help="sm_busy_frac threshold (default 0.8)")
    a = ap.parse_args()

    rows = {}
    sizes = set()
    with open(a.summary, newline="") as f:
        for r in csv.DictReader(f):
            if r["design"] != "baseline":
                continue
            key = (r["workload"], r["gpu"])
            if key in rows:  # one row per workload and preset: cycles are node-independent
                continue
            rows[key] = r
            sizes.add(r["size"])
    if not rows:
        sys.exit(f"{a.summary}: no baseline rows (run the report with the baseline design)")
    gpus = sorted({g for _, g in rows})
    workloads = sorted({w for w, _ in rows}, key=str.lower)

    print(f"Input size: {', '.join(sorted(sizes))}; baseline design.")
    print()
    head = "| workload | warp instructions |"
    sep = "|---|---:|"
    for g in gpus:
        head += f" {g} kernel cycles | {g} SMs busy | {g} issue slots used |"
        sep += "---:|---:|---:|"
    print(head)
    print(sep)
    low = {g: [] for g in gpus}
    for w in workloads:
        line = f"| {w} |"
        warps = None
        cells = ""
        for g in gpus:
            r = rows.get((w, g))
            if r is None:
                cells += " - | - | - |"
                continue
            warps = r["warp_instructions"]
            busy = float(r["sm_busy_frac"])
            issue = float(r["issue_utilisation_frac"])
            mark = "" if busy >= a.busy else " *"
            if busy < a.busy:
                low[g].append(f"{w} ({busy:.2f})")
            cells += f" {int(r['kernel_cycles']):,} | {busy:.2f}{mark} | {issue:.3f} |"
        line += f" {int(warps):,} |" if warps is not None else " - |"
        print(line + cells)
    print()
    for g in gpus:
        n = sum(1 for w in workloads if (w, g) in rows)
        ok = n - len(low[g])
        others = ", ".join(low[g]) if low[g] else "none"
        print(f"{g}: {ok} of {n} workloads ({100.0 * ok / n:.0f} %) keep the SMs busy >= {a.busy:.2f}"
              f" of the kernel cycles; below (*): {others}.")


if __name__ == "__main__":
    main()
