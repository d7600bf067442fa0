#!/usr/bin/env python3
"""The tables of designs/README.md, "Power modes", from a `regwatt report` directory.

    cargo build --release
    target/release/regwatt report --size ci --designs baseline \
        --power-modes always-on,subarray-gating,register-gating,drowsy,tri-modal \
        --nodes 40nm,12nm --out DIR --jobs 2
    python3 scripts/power_modes_table.py DIR               # static energy per mode
    python3 scripts/power_modes_table.py --nodes             # per-node domain figures
    python3 scripts/power_modes_table.py --area              # RF area per mode / always-on

The first prints, for every workload and preset, the RF's static energy in each mode at 40 and
12 nm divided by always-on's, and checks the power modes' ordering (always-on >= sub-array gating >=
register gating, drowsy <= always-on, tri-modal <= drowsy) on every run. The second runs
`regwatt run --workload vectorAdd --gpu gtx480 --node N --power-mode drowsy --json` at every
node and prints `power_management.domains`. The third runs vectorAdd on both presets at every
node in every mode and prints the RF's `area.total_mm2` divided by always-on's.
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
    print(f"\n{n} runs, {len(bad)} out of the order: {bad}")


def run_json(gpu, nm, mode):
    out = subprocess.run(
        ["target/release/regwatt", "run", "--size", "ci", "--workload", "vectorAdd", "--gpu", gpu,
         "--node", f"{nm}nm", "--power-mode", mode, "--json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def node_table():
    print("| node | row drowsy / on leakage | row gated / on "
          "| drowsy wake-up per row | V_dd header per row | drowsy switches per row |")
    print("|---|---|---|---|---|---|")
    for nm in [90, 65, 45, 40, 32, 22, 12]:
        d = run_json("gtx480", nm, "drowsy")["power_management"]["domains"]
        print(f"| {nm} nm | {d['row_drowsy_w'] / d['row_on_w']:.3f} "
              f"| {d['row_off_w'] / d['row_on_w']:.2g} | {d['row_wake_from_drowsy_pj']:.3g} pJ "
              f"| {d['row_gating_area_mm2'] * 1e6:,.1f} µm² | {d['row_drowsy_area_mm2'] * 1e6:,.1f} µm² |")


def area_table():
    modes = ["subarray-gating", "register-gating", "drowsy", "tri-modal"]
    print("| gpu | node | always-on mm² | " + " | ".join(modes) + " |")
    print("|---|---|---|" + "---|" * len(modes))
    for gpu in ["gtx480", "rtx2060"]:
        for nm in [90, 65, 45, 40, 32, 22, 12]:
            on = run_json(gpu, nm, "always-on")["area"]["total_mm2"]
            ratios = [run_json(gpu, nm, m)["area"]["total_mm2"] / on for m in modes]
            print(f"| {gpu} | {nm} nm | {on:.2f} | " + " | ".join(f"{r:.3f}" for r in ratios) + " |")


if __name__ == "__main__":
    if sys.argv[1:] == ["--nodes"]:
        node_table()
    elif sys.argv[1:] == ["--area"]:
        area_table()
    else:
        static_table(sys.argv[1])
