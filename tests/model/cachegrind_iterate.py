#!/usr/bin/env python3
"""Validates the time-skewed column schedule's fetch count (iterate/cpu/02_skewed_columns) against a
simulated cache: the step runs T = d sweeps once as one pass of d fused sweeps and once as d passes
of one sweep (fused=1: the cache-model column schedule, one fetch of each input line a sweep), each
under valgrind's cachegrind with a chosen last-level cache, and the last-level read misses of the
kernel's functions (swath::stencil::cpu::*) are compared.

Check (the iterated-stencil issue's CPU target): the fused pass fetches at most 1/d of the single
sweeps' lines, within 10%: misses(fused=d) <= 1.10 * misses(fused=1) / d, for d = 2 and 4.
Writes a Markdown table and JSON under --out. Exit 77 (skipped) when valgrind is missing.

usage: cachegrind_iterate.py --swath PATH --out DIR
"""
import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from cachegrind_stencil import cachegrind_kernel_misses

WIDTH, HEIGHT, RADIUS = 12011, 256, 1
CACHE_BYTES, WAYS, LINE = 256 * 1024, 8, 64
CACHES = [f"--I1=32768,8,{LINE}", f"--D1=32768,8,{LINE}", f"--LL={CACHE_BYTES},{WAYS},{LINE}"]


def kernel_misses(swath, sweeps, fused, out_dir):
    """Last-level read misses (DLmr) of the stencil kernel's functions for one run."""
    out_file = out_dir / f"cachegrind.iterate.{sweeps}.{fused}.out"
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", *CACHES, f"--cachegrind-out-file={out_file}",
               swath, "verify", "iterate", "--device", "cpu", "--quiet", "-v", "iterate/cpu/02_skewed_columns",
               "--size", f"{WIDTH}x{HEIGHT}", "-p", f"radius={RADIUS}", "-p", f"cache={CACHE_BYTES}",
               "-p", f"sweeps={sweeps}", "-p", f"fused={fused}"]
    # One thread: the wavefront's handshake spins, which valgrind's serialised threads make slow.
    return cachegrind_kernel_misses(command, out_file, f"fused={fused}", env={**os.environ, "OMP_NUM_THREADS": "1"})


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--swath", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind not found: skipped (Debian: sudo apt-get install valgrind)")
        return 77
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    rows, failed = [], False
    for depth in (2, 4):
        single = kernel_misses(args.swath, depth, 1, out_dir)
        fused = kernel_misses(args.swath, depth, depth, out_dir)
        bound = 1.10 * single / depth
        ok = fused <= bound
        failed |= not ok
        rows.append({"sweeps": depth, "misses_one_sweep_a_pass": single, "misses_fused": fused,
                     "ratio": fused / single if single else None, "bound": bound, "ok": ok})
    lines = [f"# Time-skewed columns under cachegrind ({WIDTH}x{HEIGHT}, r = {RADIUS}, LL {CACHE_BYTES // 1024} KiB "
             f"{WAYS}-way)", "", "| T = d | misses, d passes of 1 | misses, 1 pass of d | ratio | target <= 1.1/d | |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['sweeps']} | {r['misses_one_sweep_a_pass']} | {r['misses_fused']} | {r['ratio']:.3f} | "
                     f"{1.1 / r['sweeps']:.3f} | {'ok' if r['ok'] else 'FAIL'} |")
    (out_dir / "cachegrind-iterate.md").write_text("\n".join(lines) + "\n")
    (out_dir / "cachegrind-iterate.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
