#!/usr/bin/env python3
"""A/B whole-process speed of two regwatt builds on the suite (docs/speed.md, "Against an
earlier build").

    python3 scripts/ab_speed.py OLD_BIN NEW_BIN [--gpu rtx2060] [--rounds 3]
        [--old-args "--size ci"] [--new-args "--size ci"] [WORKLOAD ...]

For every workload that both builds list (`workload list`; or those named) it times
`BIN run --workload W --gpu G --design baseline ARGS` (whole process, `time.perf_counter`),
old and new alternately, `--rounds` times each, one process at a time, and keeps each build's
fastest time per workload. It checks that both builds simulated the same number of warp
instructions and cycles (`--json`), so the two time the same work, and prints the geometric
mean of old / new over the workloads with the per-workload ratios.
"""
import argparse
import json
import math
import shlex
import subprocess
import sys
import time


def listed(bin_):
    out = subprocess.run([bin_, "workload", "list"], capture_output=True, text=True)
    return [l.split()[0] for l in out.stdout.splitlines() if l.strip()]


def run(bin_, w, gpu, extra):
    cmd = [bin_, "run", "--workload", w, "--gpu", gpu, "--design", "baseline", "--json"] + extra
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    j = json.loads(r.stdout)
    return dt, (j["warp_instructions"], j["cycles"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--gpu", default="rtx2060")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--old-args", default="")
    ap.add_argument("--new-args", default="--size ci")
    ap.add_argument("workloads", nargs="*")
    a = ap.parse_args()
    ws = a.workloads or [w for w in listed(a.new) if w in set(listed(a.old))]
    oa, na = shlex.split(a.old_args), shlex.split(a.new_args)
    ratios = {}
    for w in ws:
        best = {"old": math.inf, "new": math.inf}
        work = {}
        for _ in range(a.rounds):
            for k, b, x in (("old", a.old, oa), ("new", a.new, na)):
                dt, done = run(b, w, a.gpu, x)
                best[k] = min(best[k], dt)
                work[k] = done
        if work["old"] != work["new"]:
            print(f"{w}: different work (warp instructions, cycles) old {work['old']} new {work['new']}")
        ratios[w] = best["old"] / best["new"]
        print(f"{w}: old {best['old']:.3f} s, new {best['new']:.3f} s, {ratios[w]:.2f}x", flush=True)
    gm = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
    print(f"\n{a.gpu}, {len(ratios)} workloads, best of {a.rounds}: geometric mean old / new = {gm:.2f}")


if __name__ == "__main__":
    main()
