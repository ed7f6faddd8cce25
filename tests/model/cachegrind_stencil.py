#!/usr/bin/env python3
"""Validates the cache model against a simulated cache: each CPU stencil schedule runs once under
valgrind's cachegrind with a chosen last-level cache, and the last-level read misses of the kernel's
own functions (swath::stencil::cpu::*) are compared with what `swath schedule explain` predicts.

The grid is wide enough that row-major breaks the layer condition in the simulated cache, where the
column schedule should fetch each input line about once. Checks:
  - column and zigzag: simulated misses <= 1.10 x the model's bound F, and fewer than row-major's;
  - row-major and tiled: simulated misses within 10% of the model's prediction;
  - the thesis's width unmodified (input rows only, no associativity) thrashes: > 1.10 x its bound,
    the measured reason for the model's two corrections.
Writes a Markdown table and JSON under --out. Exit 77 (skipped) when valgrind is missing.

usage: cachegrind_stencil.py --swath PATH --out DIR [--sweep W1,W2,...]
--sweep: instead of the checks, record the column and zigzag misses at each width (cachegrind-sweep.json).
"""
import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

WIDTH, HEIGHT, RADIUS = 16387, 64, 2
CACHE_BYTES, WAYS, LINE = 256 * 1024, 8, 64
CACHES = [f"--I1=32768,8,{LINE}", f"--D1=32768,8,{LINE}", f"--LL={CACHE_BYTES},{WAYS},{LINE}"]


def kernel_misses(swath, step, extra, out_dir):
    """Last-level read misses (DLmr) of the stencil kernel's functions for one run of one step."""
    out_file = out_dir / f"cachegrind.{step}.{'-'.join(extra) or 'model'}.out"
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", *CACHES, f"--cachegrind-out-file={out_file}",
               swath, "verify", "stencil", "--device", "cpu", "--quiet", "-v", f"stencil/cpu/{step}",
               "--size", f"{WIDTH}x{HEIGHT}", "-p", f"radius={RADIUS}", "-p", f"cache={CACHE_BYTES}",
               "-p", f"ways={WAYS}"]
    for parameter in extra:
        command += ["-p", parameter]
    return cachegrind_kernel_misses(command, out_file, step)


def cachegrind_kernel_misses(command, out_file, what, env=None):
    """Runs `command` (valgrind --tool=cachegrind ... writing out_file) and returns the last-level read
    misses (DLmr) of the stencil kernel's functions (swath::stencil::cpu::*)."""
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"{what}: swath under cachegrind failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    events, function, misses = None, None, 0
    for line in out_file.read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("fn="):
            function = line[3:]
        elif function and line[:1].isdigit() and "stencil::cpu" in function:
            values = line.split()[1:]
            index = events.index("DLmr")
            if index < len(values):
                misses += int(values[index])
    out_file.unlink()
    return misses


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--swath", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--sweep", help="comma-separated column widths")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind not found (Debian: valgrind): skipped")
        return 77
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.sweep:
        points = []
        for width in [int(w) for w in args.sweep.split(",")]:
            for step in ("03_column", "04_zigzag"):
                misses = kernel_misses(args.swath, step, [f"column_width={width}"], out_dir)
                points.append({"step": step, "column_width": width, "ll_read_misses": misses})
                print(f"{step} c={width}: {misses}", flush=True)
        (out_dir / "cachegrind-sweep.json").write_text(json.dumps(
            {"grid": [WIDTH, HEIGHT], "radius": RADIUS, "cache_bytes": CACHE_BYTES, "ways": WAYS, "line_bytes": LINE,
             "points": points}, indent=2) + "\n")
        return 0
    explain = subprocess.run([args.swath, "schedule", "explain", "--size", str(WIDTH), str(HEIGHT), "--radius",
                              str(RADIUS), "--cache", str(CACHE_BYTES), "--ways", str(WAYS), "--json"],
                             capture_output=True, text=True, check=True)
    model = json.loads(explain.stdout)
    fetches, widths = model["fetches"], model["widths"]
    thesis_width = widths["thesis_exact"]
    thesis_bound = -(-WIDTH // thesis_width) * -(-(thesis_width + 2 * RADIUS) // (LINE // 4)) * (HEIGHT + 2 * RADIUS)

    rows = [
        ("01_naive (row-major)", "row_major", fetches["row_major"], kernel_misses(args.swath, "01_naive", [], out_dir)),
        (f"02_tiled ({widths['tile']}x{widths['tile']})", "tiled", fetches["tiled"],
         kernel_misses(args.swath, "02_tiled", [], out_dir)),
        (f"03_column (c = {widths['chosen']})", "column", fetches["column_bound"],
         kernel_misses(args.swath, "03_column", [], out_dir)),
        (f"04_zigzag (c = {widths['chosen']})", "zigzag", fetches["zigzag_bound"],
         kernel_misses(args.swath, "04_zigzag", [], out_dir)),
        (f"03_column at the thesis's width (c = {thesis_width})", "thesis", thesis_bound,
         kernel_misses(args.swath, "03_column", [f"column_width={thesis_width}"], out_dir)),
    ]
    by_kind = {kind: simulated for _, kind, _, simulated in rows}
    failures = []
    for name, kind, predicted, simulated in rows:
        ratio = simulated / predicted
        if kind in ("column", "zigzag"):
            if ratio > 1.10:
                failures.append(f"{name}: {simulated} misses > 1.10 x the bound {predicted}")
            if simulated >= by_kind["row_major"]:
                failures.append(f"{name}: {simulated} misses, not below row-major's {by_kind['row_major']}")
        elif kind in ("row_major", "tiled"):
            if abs(ratio - 1) > 0.10:
                failures.append(f"{name}: {simulated} misses, {100 * (ratio - 1):+.1f}% from the predicted {predicted}")
        elif kind == "thesis" and ratio <= 1.10:
            failures.append(f"{name}: expected the unmodified width to thrash, got {simulated} <= 1.10 x {predicted}")

    table = ["| schedule | predicted fetches | simulated LL read misses | simulated / predicted |",
             "| --- | ---: | ---: | ---: |"]
    for name, kind, predicted, simulated in rows:
        label = "bound F" if kind in ("column", "zigzag", "thesis") else "model"
        table.append(f"| `{name}` | {predicted} ({label}) | {simulated} | {simulated / predicted:.3f} |")
    summary = (f"Grid {WIDTH} x {HEIGHT}, star radius {RADIUS}, float; simulated LL {CACHE_BYTES // 1024} KiB, "
               f"{WAYS}-way, {LINE} B lines (cachegrind). Compulsory: {fetches['compulsory']} lines; column tight "
               f"count {fetches['column_tight']}.")
    (out_dir / "cachegrind-stencil.md").write_text(summary + "\n\n" + "\n".join(table) + "\n")
    (out_dir / "cachegrind-stencil.json").write_text(json.dumps(
        {"model": model, "rows": [{"schedule": n, "kind": k, "predicted": p, "simulated": s} for n, k, p, s in rows]},
        indent=2) + "\n")
    print(summary)
    print("\n".join(table))
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures))
        return 1
    print("\nthe model holds on every schedule")
    return 0


if __name__ == "__main__":
    sys.exit(main())
