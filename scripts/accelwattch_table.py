#!/usr/bin/env python3
"""regwatt's whole-GPU power beside AccelWattch's: the validation tables of designs/README.md
("Whole-GPU power against AccelWattch").

    cargo build --release
    python3 scripts/accelwattch_table.py [--runs DIR] [WORKLOAD ...]

For every workload of `calibrations/gpgpusim-default/accelwattch_power.csv` (or those named) and
both presets it runs `target/release/regwatt run --workload W --size default --gpu G --scope gpu
--design baseline --json` (at the preset's default node: rtx2060 12 nm, gtx480 40 nm; JSON kept
in DIR when `--runs` is given, and reused if present) and sets its average power over the
kernels' cycles beside AccelWattch's, per component group:

| group | AccelWattch components | regwatt components (dynamic power) |
|---|---|---|
| rf | RFP, PIPEP | rf_banks, operand_collectors, operand_bus, writeback_bus, arbiter, pipeline_registers |
| exec | INTP, FPUP, DPUP, INT_MUL24P, INT_MUL32P, INT_MULP, INT_DIVP, FP_MULP, FP_DIVP, FP_SQRTP, FP_LGP, FP_SINP, FP_EXP, DP_MULP, DP_DIVP, TENSORP | exec_units |
| l1 | DCP, SHRDP, CCP, TCP | l1d_data, l1d_tag, shared_memory, constant_cache |
| l2_noc | L2CP, NOCP | l2_data, l2_tag, interconnect |
| dram_mc | DRAMP, MCP | dram, memory_controllers |
| front_end | IBP, ICP, SCHEDP | instruction_cache, instruction_buffer, decoder, warp_schedulers, scoreboard |
| static_const | STATICP, IDLE_COREP, CONSTP | every component's static power + constant_power |

AccelWattch's figures are the launches' powers weighted by their `gpu_sim_cycle`. On gtx480
AccelWattch reads `gpuwattch_gtx480.xml`, which has no static model (STATICP 0 W, CONSTP 1 W:
calibrations/gpgpusim-default/README.md), so that preset is compared on dynamic power only.
Prints Markdown tables: per workload the totals and their ratio; per group the geometric mean
of the ratios; the RF's share of dynamic power on both sides.
"""
import csv
import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

CONFIGS = {"rtx2060": "SM75_RTX2060", "gtx480": "SM2_GTX480"}
AW_GROUPS = {
    "rf": ["RFP", "PIPEP"],
    "exec": ["INTP", "FPUP", "DPUP", "INT_MUL24P", "INT_MUL32P", "INT_MULP", "INT_DIVP",
             "FP_MULP", "FP_DIVP", "FP_SQRTP", "FP_LGP", "FP_SINP", "FP_EXP", "DP_MULP",
             "DP_DIVP", "TENSORP"],
    "l1": ["DCP", "SHRDP", "CCP", "TCP"],
    "l2_noc": ["L2CP", "NOCP"],
    "dram_mc": ["DRAMP", "MCP"],
    "front_end": ["IBP", "ICP", "SCHEDP"],
    "static_const": ["STATICP", "IDLE_COREP", "CONSTP"],
}
RW_GROUPS = {
    "rf": ["rf_banks", "operand_collectors", "operand_bus", "writeback_bus", "arbiter",
           "pipeline_registers"],
    "exec": ["exec_units"],
    "l1": ["l1d_data", "l1d_tag", "shared_memory", "constant_cache"],
    "l2_noc": ["l2_data", "l2_tag", "interconnect"],
    "dram_mc": ["dram", "memory_controllers"],
    "front_end": ["instruction_cache", "instruction_buffer", "decoder", "warp_schedulers",
                  "scoreboard"],
}
GROUPS = list(AW_GROUPS)
DYNAMIC = [g for g in GROUPS if g != "static_const"]
RUNS = None


def accelwattch(path):
    """(workload, preset) -> group -> cycle-weighted average W, plus 'total'."""
    acc = defaultdict(lambda: defaultdict(float))
    cycles = defaultdict(float)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if not r["gpu_sim_cycle"]:
                continue
            preset = next(p for p, c in CONFIGS.items() if c == r["config"])
            key = (r["workload"], preset)
            c = float(r["gpu_sim_cycle"])
            cycles[key] += c
            acc[key]["total"] += float(r["avg_power_W"]) * c
            for g, cols in AW_GROUPS.items():
                acc[key][g] += sum(float(r[k + "_W"] or 0) for k in cols) * c
    return {k: {g: v / cycles[k] for g, v in d.items()} for k, d in acc.items()}


def regwatt(key):
    w, gpu = key
    cached = os.path.join(RUNS, f"{w}.{gpu}.json") if RUNS else None
    if cached and os.path.exists(cached):
        with open(cached) as f:
            text = f.read()
    else:
        text = subprocess.run(["target/release/regwatt", "run", "--workload", w, "--size",
                               "default", "--gpu", gpu, "--scope", "gpu", "--design",
                               "baseline", "--json"],
                              check=True, capture_output=True, text=True).stdout
        if cached:
            with open(cached, "w") as f:
                f.write(text)
    e = json.loads(text)["energy"]
    t = e["time_s"]
    out = defaultdict(float)
    for c in e["components"]:
        group = next((g for g, names in RW_GROUPS.items() if c["name"] in names), None)
        if group is None:
            sys.exit(f"component {c['name']} has no group in scripts/accelwattch_table.py")
        out[group] += c["dynamic_j"] / t
        out["static_const"] += c["static_j"] / t
    out["static_const"] += e.get("constant_j", 0.0) / t
    out["total"] = e["total_j"] / t
    return key, dict(out)


def fmt(x):
    return f"{x:.2f}" if x < 10 else f"{x:.1f}"


def ratio(a, b):
    return a / b if b > 0 else float("nan")


def main():
    global RUNS
    args = sys.argv[1:]
    if args[:1] == ["--runs"]:
        RUNS = args[1]
        os.makedirs(RUNS, exist_ok=True)
        args = args[2:]
    aw = accelwattch("calibrations/gpgpusim-default/accelwattch_power.csv")
    keys = sorted(k for k in aw if not args or k[0] in args)
    with ThreadPoolExecutor(max_workers=2) as ex:
        rw = dict(ex.map(regwatt, keys))
    for gpu in CONFIGS:
        rows = [k for k in keys if k[1] == gpu]
        if not rows:
            continue
        dyn_only = gpu == "gtx480"
        what = "dynamic power" if dyn_only else "average power (static and constant included)"
        print(f"\n#### {gpu}: {what}, W (regwatt / AccelWattch)\n")
        print("| workload | regwatt | AccelWattch | ratio | " + " | ".join(
            f"{g} ratio" for g in (DYNAMIC if dyn_only else GROUPS)) + " | RF share regwatt / AccelWattch |")
        print("|---|---|---|---|" + "---|" * len(DYNAMIC if dyn_only else GROUPS) + "---|")
        errs, within, logs, shares_ok = [], 0, defaultdict(list), 0
        for k in rows:
            a, r = aw[k], rw[k]
            if dyn_only:
                at = sum(a[g] for g in DYNAMIC)
                rt = sum(r.get(g, 0.0) for g in DYNAMIC)
            else:
                at, rt = a["total"], r["total"]
            q = ratio(rt, at)
            errs.append(abs(q - 1))
            within += abs(q - 1) <= 0.30
            cells = []
            for g in (DYNAMIC if dyn_only else GROUPS):
                gq = ratio(r.get(g, 0.0), a[g])
                if a[g] > 0 and r.get(g, 0.0) > 0:
                    logs[g].append(math.log(gq))
                cells.append("-" if a[g] <= 0 else fmt(gq))
            ad = sum(a[g] for g in DYNAMIC)
            rd = sum(r.get(g, 0.0) for g in DYNAMIC)
            sa, sr = ratio(a["rf"], ad), ratio(r.get("rf", 0.0), rd)
            shares_ok += 0.5 <= ratio(sr, sa) <= 2.0
            print(f"| {k[0]} | {fmt(rt)} | {fmt(at)} | {q:.2f} | " + " | ".join(cells)
                  + f" | {100 * sr:.0f} % / {100 * sa:.0f} % |")
        n = len(rows)
        print(f"\n{gpu}: mean |error| {100 * sum(errs) / n:.1f} %, within ±30 %: {within}/{n}; "
              f"RF share within 2x of AccelWattch's: {shares_ok}/{n}")
        print("geometric mean of the group ratios: " + ", ".join(
            f"{g} {math.exp(sum(v) / len(v)):.2f}" for g, v in logs.items() if v))


if __name__ == "__main__":
    main()
