#!/usr/bin/env python3
"""Simulation time of every design against the baseline's on the suite (docs/speed.md,
"Designs against the baseline").

    cargo build --release
    python3 scripts/design_speed.py [--size default] [--gpu gtx480] [--designs a,b] [WORKLOAD ...]

For each workload of `regwatt workload list` (the NN-benchmark variants excepted; or those
named) and each design other than the baseline that the preset takes, it runs
`target/release/regwatt run --workload W --size S --gpu G --design D`, which simulates the
design and, on a second thread beside it, the baseline it reports overheads against, and
prints on stderr both simulations' host times ("simulated N warp instructions in X s ...;
baseline reference Y s beside it"). The pair runs at the same time on the same machine, so
X / Y compares the two simulations under the same load. One run at a time (each uses two
threads). Prints per design the geometric mean of X / Y over the workloads and the three
largest ratios, and fails if a run fails (a wrong output fails the run).
"""
import argparse
import math
import re
import subprocess
import sys

BIN = "target/release/regwatt"
DESIGNS = ["renaming", "malekeh", "sharing", "lreg", "cerf"]
NN = ("mnist", "cifar32g")
TIMES = re.compile(r"simulated \d+ warp instructions in ([0-9.]+) s .*; baseline reference ([0-9.]+) s")


def workloads():
    out = subprocess.run([BIN, "workload", "list"], check=True, capture_output=True, text=True)
    names = [l.split()[0] for l in out.stdout.splitlines() if l.strip()]
    return [n for n in names if not n.startswith(NN)]


def ratio(w, gpu, d, size):
    r = subprocess.run([BIN, "run", "--workload", w, "--size", size, "--gpu", gpu, "--design", d],
                       capture_output=True, text=True)
    m = TIMES.search(r.stderr)
    if r.returncode != 0 or not m:
        sys.exit(f"{w} {gpu} {d}: failed\n{r.stderr[-2000:]}")
    return float(m.group(1)), float(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="default")
    ap.add_argument("--gpu", default="gtx480")
    ap.add_argument("--designs", default=",".join(DESIGNS), help="comma-separated")
    ap.add_argument("workloads", nargs="*")
    a = ap.parse_args()
    ws = a.workloads or workloads()
    ds = [d for d in a.designs.split(",") if not (d == "cerf" and a.gpu != "gtx480")]
    rows = {(w, d): ratio(w, a.gpu, d, a.size) for w in ws for d in ds}
    print(f"{a.gpu}, size {a.size}, {len(ws)} workloads: design simulation time / baseline's")
    print("| design | geometric mean | largest (ratio) |")
    print("|---|---|---|")
    for d in ds:
        rs = {w: rows[(w, d)][0] / rows[(w, d)][1] for w in ws}
        gm = math.exp(sum(math.log(r) for r in rs.values()) / len(rs))
        worst = sorted(rs.items(), key=lambda x: -x[1])[:3]
        print(f"| {d} | {gm:.2f} | " + ", ".join(f"{w} {r:.2f}" for w, r in worst) + " |")


if __name__ == "__main__":
    main()
