#!/usr/bin/env python3
"""The result tables of calibrations/ptxas-corpus/README.md (and the corpus figures of
docs/register-counts.md), from the committed table alone:

    python3 scripts/ptxas_corpus_summary.py [calibrations/ptxas-corpus/corpus.csv]

Per half (`develop`, `heldout`): kernels, source files, mean |error|, mean signed error, the
kernels off by more than 35 % and the exact ones; the same per code base; per half, the mean
|error| averaged per file; the median |error|; and the ten worst kernels of each half.
`error_pct` is 100 x (regwatt - ptxas) / ptxas, as the table has it.
"""
import csv
import statistics
import sys


def summary(rows):
    e = [abs(float(r["error_pct"])) for r in rows]
    over = sum(x > 35 for x in e)
    return {
        "kernels": len(rows),
        "files": len({(r["code_base"], r["file"]) for r in rows}),
        "mean": sum(e) / len(e),
        "signed": sum(float(r["error_pct"]) for r in rows) / len(rows),
        "over": over,
        "over_pct": 100 * over / len(e),
        "exact": sum(x == 0 for x in e),
        "median": statistics.median(e),
        "below": sum(float(r["error_pct"]) < 0 for r in rows),
    }


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "calibrations/ptxas-corpus/corpus.csv"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    halves = ("develop", "heldout")
    print("| half | kernels | files | mean \\|error\\| | mean signed error | off by > 35 % | exact |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for h in halves:
        s = summary([r for r in rows if r["half"] == h])
        print(f"| {h} | {s['kernels']} | {s['files']} | {s['mean']:.1f} % | {s['signed']:+.1f} % "
              f"| {s['over']} ({s['over_pct']:.1f} %) | {s['exact']} ({100 * s['exact'] / s['kernels']:.1f} %) |")
    print()
    for h in halves:
        rs = [r for r in rows if r["half"] == h]
        s = summary(rs)
        files = sorted({(r["code_base"], r["file"]) for r in rs})
        per_file = [summary([r for r in rs if (r["code_base"], r["file"]) == k])["mean"] for k in files]
        print(f"{h}: median |error| {s['median']:.1f} %, below ptxas {s['below']} of {s['kernels']}, "
              f"mean |error| averaged per file {sum(per_file) / len(per_file):.1f} %")
    print()
    print("| code base | half | kernels | mean \\|error\\| | > 35 % | mean signed error |")
    print("|---|---|---:|---:|---:|---:|")
    for cb in sorted({r["code_base"] for r in rows}):
        for h in halves:
            rs = [r for r in rows if r["code_base"] == cb and r["half"] == h]
            if rs:
                s = summary(rs)
                print(f"| {cb} | {h} | {s['kernels']} | {s['mean']:.1f} % | {s['over']} | {s['signed']:+.1f} % |")
    for h in halves:
        print()
        print(f"Ten worst kernels, {h}:")
        print()
        print("| code base | file | kernel | ptxas | regwatt | error |")
        print("|---|---|---|---:|---:|---:|")
        rs = [r for r in rows if r["half"] == h]
        rs.sort(key=lambda r: (-abs(float(r["error_pct"])), r["code_base"], r["file"], r["kernel"]))
        for r in rs[:10]:
            print(f"| {r['code_base']} | `{r['file']}` | `{r['kernel']}` | {r['ptxas_registers']} "
                  f"| {r['regwatt_registers']} | {float(r['error_pct']):+.1f} % |")


if __name__ == "__main__":
    main()
