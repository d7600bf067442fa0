#!/usr/bin/env python3
"""The table of designs/README.md, "Idle SMs: `power.idle_sm_gating`": static energy with idle-SM
gating off and on, measured.

    cargo build --release
    python3 scripts/idle_sm_gating_table.py [--gpu rtx2060] [--size default] [WORKLOAD ...]

For every workload (default: vectorAdd matrixMul_tiled reduction histogram) it runs

    target/release/regwatt run --workload W --gpu G --size S --scope sm --json \
        [--set power.idle_sm_gating=true]

prints each command, then the busy share (`energy.idle_sm_gating.sm_busy_frac`, equal to
`activity.core.sm_busy_frac`), the static energy of the register file (level `rf`) and of the
totals at scope `sm` (RF + L1D, shared memory, execution units) off and on, the saving
(`energy.idle_sm_gating.static_saved_j`) and the static energy of the launch latencies off and
on, and checks that on <= off and that the reported saving is the difference.
"""
import json
import subprocess
import sys

WORKLOADS = ["vectorAdd", "matrixMul_tiled", "reduction", "histogram"]


def run(workload, gpu, size, gating):
    cmd = ["target/release/regwatt", "run", "--workload", workload, "--gpu", gpu, "--size", size,
           "--scope", "sm", "--json"]
    if gating:
        cmd += ["--set", "power.idle_sm_gating=true"]
    print("    " + " ".join(cmd), file=sys.stderr)
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def main(argv):
    gpu, size, names = "rtx2060", "default", []
    it = iter(argv)
    for a in it:
        if a == "--gpu":
            gpu = next(it)
        elif a == "--size":
            size = next(it)
        else:
            names.append(a)
    names = names or WORKLOADS
    print(f"gpu {gpu}, size {size}, scope sm, always-on, 12 nm (the preset's node); "
          "static energy over the kernels' cycles, uJ")
    print()
    print("| workload | sm_busy_frac | RF static off / on | scope sm static off / on | saved | "
          "total off / on | launch latency static off / on |")
    print("|---|---|---|---|---|---|---|")
    bad = []
    for w in names:
        off, on = run(w, gpu, size, False), run(w, gpu, size, True)
        g = on["energy"]["idle_sm_gating"]
        uj = lambda x: x * 1e6
        rf = lambda r: r["energy"]["scope"]["rf"]["static_j"]
        s_off, s_on = off["energy"]["static_j"], on["energy"]["static_j"]
        l_off, l_on = off["launch_latency"]["static_j"], on["launch_latency"]["static_j"]
        if not (s_on <= s_off and l_on <= l_off and rf(on) <= rf(off)):
            bad.append(w)
        if abs(g["static_saved_j"] - (s_off - s_on)) > 1e-9 * s_off:
            bad.append(w)
        print(f"| {w} | {g['sm_busy_frac']:.3f} | {uj(rf(off)):.2f} / {uj(rf(on)):.2f} | "
              f"{uj(s_off):.2f} / {uj(s_on):.2f} | {100 * g['static_saved_j'] / s_off:.1f} % | "
              f"{uj(off['energy']['total_j']):.2f} / {uj(on['energy']['total_j']):.2f} | "
              f"{uj(l_off):.2f} / {uj(l_on):.2f} |")
    print()
    print(f"{len(names)} workloads, {len(set(bad))} with gated > ungated or a wrong saving: "
          f"{sorted(set(bad))}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
