#!/usr/bin/env python3
"""Merges the CSVs that several run_keptback.py workers wrote (one --out each, so two runs never
write one file) into one, for calibrations/.

    python3 scripts/gpgpusim/merge_csv.py OUT.csv IN.csv [IN.csv ...]

Every input must have the same header. Rows are keyed by (workload, config) and, in the
per-launch power CSVs (`*_power.csv`), by launch as well; a key seen twice is an error unless
the rows are identical (a re-run of a deterministic simulation), so a stale row can't hide.
The output is sorted by workload, then config, then launch number.
"""
import csv
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, inputs = sys.argv[1], sys.argv[2:]
    header = None
    rows = {}
    for path in inputs:
        with open(path, newline="") as f:
            r = csv.reader(f)
            h = next(r, None)
            if h is None:
                continue
            if header is None:
                header = h
            elif h != header:
                sys.exit(f"{path}: header differs from {inputs[0]}'s")
            keys = [header.index("workload"), header.index("config")]
            if "launch" in header:
                keys.append(header.index("launch"))
            for line, row in enumerate(r, start=2):
                if len(row) != len(header):
                    sys.exit(f"{path}:{line}: {len(row)} fields, header has {len(header)}")
                k = tuple(row[i] for i in keys)
                if k in rows and rows[k][1] != row:
                    sys.exit(f"{path}:{line}: {k} already came from {rows[k][0]} with other values")
                rows[k] = (path, row)
    if header is None:
        sys.exit("no rows")

    def order(k):
        return (k[0].lower(), k[1]) + tuple(int(x) if x.isdigit() else -1 for x in k[2:])

    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for k in sorted(rows, key=order):
            w.writerow(rows[k][1])
    print(f"{out}: {len(rows)} rows from {len(inputs)} files")


if __name__ == "__main__":
    main()
