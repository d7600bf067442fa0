#!/usr/bin/env python3
"""Quick pass/fail table of the held-out corpus against a regwatt binary (numpy comparison,
same tolerances as tests/suite/heldout_kernels.rs).  python3 run_table.py /path/to/regwatt [NAME...]"""
import os, subprocess, sys, json, tempfile
import numpy as np
HERE = os.path.dirname(os.path.abspath(__file__))
TOL = {("k01_gridstride", "y"): (1e-5, 1e-6), ("k02_tile2d", "sten"): (1e-6, 1e-6),
       ("k10_fastmath", "out"): (2e-5, 1e-3), ("k11_double", "out"): (1e-12, 1e-14),
       ("k23_matmul_rect", "C"): (1e-6, 1e-6),
       ("k28_precise_math", "out"): (1e-6, 1e-6), ("k32_double_libm", "out"): (1e-15, 2e-15),
       ("k41_double_math", "out"): (1e-13, 1e-14)}
exe = sys.argv[1]
dump = tempfile.TemporaryDirectory(prefix="regwatt-heldout-dump-")  # removed at exit
names = sys.argv[2:] or sorted(n for n in os.listdir(HERE) if os.path.isfile(f"{HERE}/{n}/{n}.toml"))
for n in names:
    r = subprocess.run([exe, "ptx", f"{HERE}/{n}/{n}.ptx", "--json"], capture_output=True, text=True)
    ptx_ok = r.returncode == 0
    ptxmsg = "" if ptx_ok else r.stderr.strip().splitlines()[-1][:200] if r.stderr.strip() else f"rc {r.returncode}"
    out = f"{dump.name}/{n}"
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out): os.remove(f"{out}/{f}")
    r = subprocess.run([exe, "exec", f"{HERE}/{n}/{n}.toml", "--dump", out], capture_output=True, text=True, timeout=600)
    msgs = []
    if r.returncode != 0:
        msgs.append("EXEC FAIL: " + " | ".join(r.stderr.strip().splitlines()[-3:])[:400])
    else:
        for f in sorted(os.listdir(f"{HERE}/{n}/expected")):
            b = f[:-4]
            e = np.load(f"{HERE}/{n}/expected/{f}")
            try:
                a = np.load(f"{out}/{f}")
            except Exception as ex:
                msgs.append(f"{b}: no dump"); continue
            if a.dtype != e.dtype or a.shape != e.shape:
                msgs.append(f"{b}: dtype/shape {a.dtype}{a.shape} vs {e.dtype}{e.shape}"); continue
            if e.dtype.kind == "f":
                ab, rl = TOL.get((n, b), (0, 0))
                ea, aa = e.astype(np.float64), a.astype(np.float64)
                ok = (np.isnan(ea) & np.isnan(aa)) | (np.abs(aa - ea) <= ab + rl * np.abs(ea))
                if (ab, rl) == (0, 0):
                    ok = (np.isnan(ea) & np.isnan(aa)) | (a.view(np.uint8).reshape(len(a), -1) == e.view(np.uint8).reshape(len(e), -1)).all(1)
            else:
                ok = a == e
            bad = np.nonzero(~ok)[0]
            if len(bad):
                i = bad[0]
                msgs.append(f"{b}: {len(bad)}/{len(e)} bad, first [{i}] exp {e[i]!r} got {a[i]!r} (idx {list(bad[:8])})")
    status = "PASS" if ptx_ok and not msgs else "FAIL"
    print(f"{n:20s} ptx={'ok' if ptx_ok else 'ERR '+ptxmsg} exec={status}")
    for m in msgs: print("    " + m)
