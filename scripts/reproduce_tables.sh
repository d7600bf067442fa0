#!/usr/bin/env bash
# Regenerates the design READMEs' seed tables (the block between
# `<!-- reproduce:begin seed=NNN size=SIZE commit=C -->` and `<!-- reproduce:end -->` in
# designs/src/<design>/README.md) from `regwatt reproduce`, with the release binary. A README
# holds one block per size it shows (the `ci` one first); the script rewrites the blocks of the
# size it is given (ci unless given), for every design or for the designs named. At size ci it
# also rewrites the checked-in tables designs/src/<design>/seed_table_ci.csv, which
# `cargo test --test suite reproduce::` compares with what the binary produces.
#
#   cargo build --release && scripts/reproduce_tables.sh [ci|default|paper] [DESIGN ...]
#
# To show a design's table at another size, add an empty block of that size to its README
# (`<!-- reproduce:begin seed=NNN size=paper commit=- -->` and `<!-- reproduce:end -->` on the
# next line) and run the script with that size and the design.
#
# The commit in the marker is HEAD; commit the code first, then the tables.
set -euo pipefail
cd "$(dirname "$0")/.."
size="${1:-ci}"
shift || true
bin="${REGWATT:-target/release/regwatt}"
if [ -n "$(git status --porcelain -- src designs/src sim workloads tech power inputs | grep -v -e README.md -e seed_table_ci.csv || true)" ]; then
    echo "warning: uncommitted changes to the code; the marker names HEAD, which did not make these tables" >&2
fi
commit="$(git rev-parse --short HEAD)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
all="000:sharing 001:lreg 002:renaming 003:malekeh 004:cerf"
if [ "$#" -eq 0 ]; then
    pairs="$all"
    "$bin" reproduce all --size "$size" --out "$out/t" --jobs "${JOBS:-2}"
else
    pairs=""
    for design in "$@"; do
        pair="$(printf '%s\n' $all | grep ":$design\$" || true)"
        [ -n "$pair" ] || { echo "unknown design $design (one of: $all)" >&2; exit 2; }
        pairs="$pairs $pair"
        "$bin" reproduce "$design" --size "$size" --out "$out/t/$design" --jobs "${JOBS:-2}"
    done
fi
for pair in $pairs; do
    seed="${pair%%:*}"
    design="${pair##*:}"
    if [ "$size" = ci ]; then
        cp "$out/t/$design/seed_table.csv" "designs/src/$design/seed_table_ci.csv"
    fi
    python3 - "designs/src/$design/README.md" "$out/t/$design/seed_table.md" "$seed" "$size" "$commit" <<'PY'
import re, sys
readme, table, seed, size, commit = sys.argv[1:]
text = open(readme).read()
block = re.compile(r"<!-- reproduce:begin [^>]*\bsize=" + re.escape(size) + r"\b[^>]*-->\n.*?<!-- reproduce:end -->", re.S)
if len(block.findall(text)) != 1:
    sys.exit(f"{readme}: expected one <!-- reproduce:begin ... size={size} ... --> ... <!-- reproduce:end --> block")
new = (f"<!-- reproduce:begin seed={seed} size={size} commit={commit} -->\n"
       + open(table).read() + "<!-- reproduce:end -->")
open(readme, "w").write(block.sub(lambda _: new, text))
print(f"{readme}: seed {seed} table at size {size}, commit {commit}")
PY
done
