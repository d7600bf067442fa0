#!/usr/bin/env python3
"""designs/src/renaming/README.md, "Seed versus regwatt": renaming against the baseline under
sub-array and register gating (seed 002 Fig. 10a, Fig. 13).

    cargo build --release
    python3 scripts/renaming_gating.py [--gpu gtx480] [--policies gto,lrr,two_level]

For each workload of the seed table (the 25 built-in workloads of session 19) it runs
`regwatt run --workload W --gpu G --node 40nm --design D --power-mode M --set
sm.scheduler.policy=P --json` for D in {baseline, renaming}, M in {subarray-gating,
register-gating}, and prints per workload the renaming / baseline ratio of the gated cells'
static energy (`power_management.cells_j`) and of the whole RF's static energy
(`energy.static_j`), renaming's architected and physical register peaks (warp registers per
SM, `registers`), then the arithmetic means over the workloads (physical / architected for the
peaks).
"""
import argparse
import json
import subprocess
from concurrent.futures import ThreadPoolExecutor

WORKLOADS = """BlackScholes backprop bfs collatz conv_large conv_mnist dct8x8 fc gaussian histogram
hotspot kmeans lud mandelbrot matrixMul_naive matrixMul_tiled maxpool nbody nw pathfinder
reduction scan srad transpose vectorAdd""".split()
MODES = ["subarray-gating", "register-gating"]
POLICY_SET = {"gto": ["sm.scheduler.policy=gto"], "lrr": ["sm.scheduler.policy=lrr"],
              "two_level": ["sm.scheduler.policy={two_level={active_warps=6}}"]}


def run(args):
    w, gpu, design, mode, policy = args
    cmd = ["target/release/regwatt", "run", "--size", "ci", "--workload", w, "--gpu", gpu, "--node", "40nm",
           "--design", design, "--power-mode", mode, "--json"]
    for s in POLICY_SET[policy]:
        cmd += ["--set", s]
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    r = d["registers"]
    return args, (d["power_management"]["cells_j"], d["energy"]["static_j"],
                  r["architected_peak"], r["allocated_peak"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", default="gtx480")
    ap.add_argument("--policies", default="gto")
    a = ap.parse_args()
    policies = a.policies.split(",")
    jobs = [(w, a.gpu, d, m, p) for p in policies for w in WORKLOADS
            for d in ["baseline", "renaming"] for m in MODES]
    with ThreadPoolExecutor(2) as ex:
        res = dict(ex.map(run, jobs))
    for p in policies:
        print(f"\n{a.gpu}, 40 nm, {p}")
        print("| workload | architected | physical | cells, sub-array | cells, register "
              "| RF, sub-array | RF, register |")
        print("|---|---|---|---|---|---|---|")
        sums = [0.0] * 4
        demand = 0.0
        for w in WORKLOADS:
            r = []
            for k in (0, 1):
                for m in MODES:
                    b = res[(w, a.gpu, "baseline", m, p)][k]
                    n = res[(w, a.gpu, "renaming", m, p)][k]
                    r.append(n / b)
            row = [r[0], r[1], r[2], r[3]]
            sums = [s + x for s, x in zip(sums, row)]
            arch, phys = res[(w, a.gpu, "renaming", MODES[1], p)][2:]
            demand += phys / arch
            print(f"| {w} | {arch} | {phys} | " + " | ".join(f"{x:.2f}" for x in row) + " |")
        means = [s / len(WORKLOADS) for s in sums]
        print(f"| mean | | {demand / len(WORKLOADS):.3f} | "
              + " | ".join(f"{x:.3f}" for x in means) + " |")


if __name__ == "__main__":
    main()
