#!/bin/bash
# Runs every built-in workload on both GPU presets (baseline design, 12 nm, JSON) with the
# `regwatt` binary BIN and writes one JSON per run into OUTDIR (<workload>.<gpu>.json).
# Two such directories from two builds are compared with `diff -r`: a change that is meant
# to be a pure speed-up must leave every file byte-identical.
#   usage: scripts/run-all.sh BIN OUTDIR
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 BIN OUTDIR" >&2
  exit 2
fi
bin=$1
out=$2
mkdir -p "$out"
status=0
for w in $("$bin" exec --list | awk '{print $1}'); do
  for g in gtx480 rtx2060; do
    if ! "$bin" run --workload "$w" --gpu "$g" --design baseline --node 12nm --json \
      >"$out/$w.$g.json" 2>"$out/$w.$g.err"; then
      echo "FAILED: $w on $g (see $out/$w.$g.err)" >&2
      status=1
    fi
  done
done
exit $status
