#!/bin/bash
# Interleaved comparison of two builds of a criterion bench binary (`cargo bench --bench
# timing_sim --no-run` prints its path; copy it aside before rebuilding). Runs A and B in
# turn, K times each (10 samples per run), pinned to the last CPU, and prints each run's
# middle samples and the medians of all samples in units of the bench's throughput
# (M elements/s: M warp instructions/s for `timing_sim`), and B/A. The host's speed drifts
# from minute to minute (sim/src/timing/README.md), so only interleaved runs compare.
# With one binary it reports that binary alone.
#   usage: scripts/bench-ab.sh BENCH_A [BENCH_B] [K]
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 BENCH_A [BENCH_B] [K]" >&2
  exit 2
fi
a=$1
b=${2:-}
k=${3:-6}
cpu=$(($(nproc) - 1))
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export CRITERION_HOME=$home
# one criterion run; prints its samples (M elements/s), sorted
one() {
  rm -rf "${home:?}"/*
  taskset -c "$cpu" "$1" --bench --noplot >/dev/null 2>&1
  python3 - "$home" <<'PY'
import json, pathlib, sys
root = pathlib.Path(sys.argv[1])
sample = next(root.rglob("new/sample.json"))
elements = json.loads((sample.parent / "benchmark.json").read_text())["throughput"]["Elements"]
d = json.loads(sample.read_text())
print(" ".join("%.3f" % v for v in sorted(elements * i / t * 1e3 for i, t in zip(d["iters"], d["times"]))))
PY
}
all_a=""
all_b=""
for _ in $(seq 1 "$k"); do
  sa=$(one "$a")
  all_a="$all_a $sa"
  line="$(date +%T) A: $(echo "$sa" | awk '{print $5, $6}')"
  if [ -n "$b" ]; then
    sb=$(one "$b")
    all_b="$all_b $sb"
    line="$line  B: $(echo "$sb" | awk '{print $5, $6}')"
  fi
  echo "$line"
done
python3 - "$all_a" "$all_b" <<'PY'
import statistics as st, sys
a = sorted(map(float, sys.argv[1].split()))
b = sorted(map(float, sys.argv[2].split()))
q = lambda v: "median %.3f (quartiles %.3f, %.3f; range %.3f-%.3f; n=%d)" % (
    st.median(v), v[len(v) // 4], v[3 * len(v) // 4], v[0], v[-1], len(v))
print("A", q(a))
if b:
    print("B", q(b))
    print("B/A %.3f" % (st.median(b) / st.median(a)))
PY
