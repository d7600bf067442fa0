#!/usr/bin/env python3
"""The runs behind design `lreg`'s seed-versus-regwatt reasons (designs/src/lreg/README.md, "Why they differ").

Usage:  cargo build --release && python3 scripts/lreg_study.py [--bin target/release/regwatt]
        [--gpus gtx480,rtx2060] [--quick]

Runs seed 001's network (workloads mnist29, mnist33, cifar32g) in its four versions with
`regwatt run --json`: the baseline and shared-memory versions (unannotated: under `--design
lreg` they run exactly as on the baseline, tests/suite/lreg.rs), the L-register version with corner
cases handled (`_lreg`) and the one that skips them (`_lskip`), both under `--design lreg`.
Prints markdown tables:

1. loads per thread (every `ld.global` lane that reached memory) and per warp (instructions
   with a lane that reached memory), cycles, and average power at `--scope gpu`;
2. the seed's headline ratios on the same metrics (Figs 24-25, 29-30, 33);
3. L1D / shared-memory latency sensitivity (Fig. 34: 10, 20, 30 cycles) and scheduler
   sensitivity (Fig. 35: LRR, GTO, two-level) on mnist29.

Nothing here is a fitted constant: every number is read from the simulator's JSON.
"""
import argparse
import json
import subprocess
import sys

INPUTS = ["mnist29", "mnist33", "cifar32g"]
VERSIONS = [("", "baseline"), ("_smem", "shared memory"), ("_lreg", "L-reg, corners handled"),
            ("_lskip", "L-reg, corners skipped")]


def run(binary, workload, gpu, sets=()):
    cmd = [binary, "run", "--size", "ci", "--workload", workload, "--gpu", gpu, "--design", "lreg",
           "--scope", "gpu", "--json"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stderr[-2000:]}")
    j = json.loads(out.stdout)
    s = j["activity"]["design_stats"]["lreg"]
    return {
        "cycles": j["cycles"],
        "kernel_cycles": j["cycles"] - j["launch_latency"]["cycles"],
        "ipc": j["ipc"],
        "power_w": j["energy"]["average_power_w"],
        "energy_j": j["energy"]["total_j"],
        "thread_loads": s["memory_load_lanes"],
        "warp_loads": s["memory_load_instructions"],
        "all_thread_loads": s["global_load_lanes"],
        "shuffled": s["shuffled_horizontal"] + s["shuffled_vertical"],
        "fallback": s["fallback_lanes"],
        "live_peak": s["live_peak"],
        "mean_live": s["live_sum"] / s["lreg_instructions"] if s["lreg_instructions"] else 0.0,
        "check": j["output_check"],
    }


def pct(a, b):
    return f"{100.0 * (a / b - 1.0):+.1f} %"


def speedup(fast, slow):
    return f"{100.0 * (slow / fast - 1.0):+.1f} %"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/regwatt")
    ap.add_argument("--gpus", default="gtx480,rtx2060")
    ap.add_argument("--quick", action="store_true", help="skip the sensitivity runs")
    a = ap.parse_args()
    for gpu in a.gpus.split(","):
        res = {}
        print(f"\n### {gpu}: loads, cycles, power (`--design lreg --scope gpu`)\n")
        print("| workload | version | loads/thread total | loads/warp total | shuffled lanes | "
              "fallback lanes | kernel cycles | avg power (W) | L-regs peak / mean | check |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for inp in INPUTS:
            for suf, label in VERSIONS:
                r = run(a.bin, inp + suf, gpu)
                res[(inp, suf)] = r
                print(f"| {inp}{suf} | {label} | {r['thread_loads']:,} | {r['warp_loads']:,} | "
                      f"{r['shuffled']:,} | {r['fallback']:,} | {r['kernel_cycles']:,} | "
                      f"{r['power_w']:.3f} | {r['live_peak']} / {r['mean_live']:.1f} | "
                      f"{'pass' if r['check'] else 'FAIL'} |")
        print(f"\n### {gpu}: the seed's ratios on regwatt's runs\n")
        print("| metric (seed figure, seed value) | " + " | ".join(INPUTS) + " |")
        print("|---|" + "---|" * len(INPUTS))
        rows = [
            ("loads/thread, skip vs baseline (Fig. 29, -42 %)",
             lambda r, i: pct(r[(i, '_lskip')]['thread_loads'], r[(i, '')]['thread_loads'])),
            ("loads/thread, skip vs shared memory (Fig. 29, -23 %)",
             lambda r, i: pct(r[(i, '_lskip')]['thread_loads'], r[(i, '_smem')]['thread_loads'])),
            ("loads/thread, corners handled vs baseline (Fig. 30, -39.3 %)",
             lambda r, i: pct(r[(i, '_lreg')]['thread_loads'], r[(i, '')]['thread_loads'])),
            ("loads/thread, corners handled vs shared memory (Fig. 30, -18.9 %)",
             lambda r, i: pct(r[(i, '_lreg')]['thread_loads'], r[(i, '_smem')]['thread_loads'])),
            ("loads/warp, skip vs baseline (Fig. 29 counted per warp)",
             lambda r, i: pct(r[(i, '_lskip')]['warp_loads'], r[(i, '')]['warp_loads'])),
            ("loads/warp, corners handled vs baseline",
             lambda r, i: pct(r[(i, '_lreg')]['warp_loads'], r[(i, '')]['warp_loads'])),
            ("speed-up, skip vs baseline (Fig. 24, +61 %)",
             lambda r, i: speedup(r[(i, '_lskip')]['kernel_cycles'], r[(i, '')]['kernel_cycles'])),
            ("speed-up, skip vs shared memory (Fig. 24, +20 %)",
             lambda r, i: speedup(r[(i, '_lskip')]['kernel_cycles'],
                                  r[(i, '_smem')]['kernel_cycles'])),
            ("speed-up, corners handled vs baseline (Fig. 25, +22.3 %)",
             lambda r, i: speedup(r[(i, '_lreg')]['kernel_cycles'], r[(i, '')]['kernel_cycles'])),
            ("speed-up, corners handled vs shared memory (Fig. 25, -30 %)",
             lambda r, i: speedup(r[(i, '_lreg')]['kernel_cycles'],
                                  r[(i, '_smem')]['kernel_cycles'])),
            ("average power at --scope gpu, skip vs baseline (Fig. 33, -16.2 %)",
             lambda r, i: pct(r[(i, '_lskip')]['power_w'], r[(i, '')]['power_w'])),
            ("energy at --scope gpu, skip vs baseline",
             lambda r, i: pct(r[(i, '_lskip')]['energy_j'], r[(i, '')]['energy_j'])),
        ]
        for name, f in rows:
            print(f"| {name} | " + " | ".join(f(res, i) for i in INPUTS) + " |")
        if a.quick:
            continue
        print(f"\n### {gpu}: mnist29, L1D and shared-memory latency (Fig. 34): IPC\n")
        print("| version | 10 cycles | 20 cycles | 30 cycles | IPC drop 10 -> 30 |")
        print("|---|---|---|---|---|")
        for suf, label in VERSIONS:
            ipc = []
            for lat in (10, 20, 30):
                r = run(a.bin, "mnist29" + suf, gpu,
                        [f"gpu.memory.l1d_hit_latency={lat}", f"gpu.memory.shared.latency={lat}"])
                ipc.append(r["ipc"])
            print(f"| {label} | " + " | ".join(f"{x:.3f}" for x in ipc) +
                  f" | {100.0 * (1.0 - ipc[2] / ipc[0]):.1f} % |")
        print(f"\n### {gpu}: mnist29_lreg and mnist29_lskip, scheduler (Fig. 35): cycles "
              "normalised to LRR\n")
        print("| version | LRR | GTO | two-level (8 active) |")
        print("|---|---|---|---|")
        for suf in ("_lreg", "_lskip"):
            cyc = []
            for pol in ('"lrr"', '"gto"', '{ two_level = { active_warps = 8 } }'):
                r = run(a.bin, "mnist29" + suf, gpu, [f"gpu.sm.scheduler.policy={pol}"])
                cyc.append(r["kernel_cycles"])
            print(f"| mnist29{suf} | 1.000 | {cyc[1] / cyc[0]:.3f} | {cyc[2] / cyc[0]:.3f} |")


if __name__ == "__main__":
    main()
