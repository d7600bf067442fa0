#!/usr/bin/env python3
"""Issue 27's tables in designs/README.md, "Power modes", from a `regwatt report` directory.

    cargo build --release
    target/release/regwatt report --size ci --designs baseline \
        --power-modes always-on,subarray-gating,register-gating,drowsy,tri-modal \
        --nodes 40nm,12nm --out DIR --jobs 2
    python3 scripts/power_modes_table.py DIR               # static energy per mode
    python3 scripts/power_modes_table.py --nodes             # per-node domain figures

The first prints, for every workload and preset, the RF's static energy in each mode at 40 and
12 nm divided by always-on's, and checks issue 27's ordering (always-on >= sub-array gating >=
register gating, drowsy <= always-on, tri-modal <= drowsy) on every run. The second runs
`regwatt run --workload vectorAdd --gpu gtx480 --node N --power-mode drowsy --json` at every
node and prints `power_management.domains`.
"""
import collections
import csv
import json
import subprocess
import sys

MODES = ["always-on", "subarray-gating", "register-gating", "drowsy", "tri-modal"]


def static_table(out):
    runs = collections.defaultdict(dict)
    with open(f"{out}/summary.csv") as f:
        for r in csv.DictReader(f):
            if r["design"] == "baseline":
                runs[(r["workload"], r["gpu"], r["node"])][r["power_mode"]] = float(r["static_j"])
    bad = []
    keys = sorted({(w, g) for (w, g, _) in runs}, key=lambda k: (k[1], k[0].lower()))
    print("| workload | gpu | 40 nm: sub-array / register / drowsy / tri-modal "
          "| 12 nm: sub-array / register / drowsy / tri-modal |")
    print("|---|---|---|---|")
    for w, g in keys:
        cells = []
        for node in ["40nm", "12nm"]:
            v = runs[(w, g, node)]
            on, sub, reg, dro, tri = (v[m] for m in MODES)
            if not (on >= sub >= reg and dro <= on and tri <= dro):
                bad.append((w, g, node))
            cells.append(" / ".join(f"{x / on:.2f}" for x in (sub, reg, dro, tri)))
        print(f"| {w} | {g} | {cells[0]} | {cells[1]} |")
    n = sum(1 for k in runs if all(m in runs[k] for m in MODES))
    print(f"\n{n} runs, {len(bad)} out of issue 27's order: {bad}")


def node_table():
    print("| node | Vdd / V_ccmin | row drowsy / on leakage | row gated / on "
          "| drowsy wake-up per row | header area per row |")
    print("|---|---|---|---|---|---|")
    for nm in [90, 65, 45, 40, 32, 22, 12]:
        out = subprocess.run(
            ["target/release/regwatt", "run", "--size", "ci", "--workload", "vectorAdd", "--gpu", "gtx480",
             "--node", f"{nm}nm", "--power-mode", "drowsy", "--json"],
            check=True, capture_output=True, text=True).stdout
        d = json.loads(out)["power_management"]["domains"]
        print(f"| {nm} nm | | {d['row_drowsy_w'] / d['row_on_w']:.3f} "
              f"| {d['row_off_w'] / d['row_on_w']:.4f} | {d['row_wake_from_drowsy_pj']:.3g} pJ "
              f"| {d['row_drowsy_area_mm2'] * 1e6:,.0f} µm² |")


if __name__ == "__main__":
    if sys.argv[1:] == ["--nodes"]:
        node_table()
    else:
        static_table(sys.argv[1])
