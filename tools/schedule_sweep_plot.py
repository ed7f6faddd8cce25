#!/usr/bin/env python3
"""Column-width sweeps, with the cache model's choice marked: simulated last-level misses (cachegrind,
tests/model/cachegrind_stencil.py --sweep) and measured time (swath bench ... -p column_width=...).

usage: tools/schedule_sweep_plot.py --misses SWEEP.json --time BENCH.json --out PNG
"""
import argparse
import json
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--misses", required=True)
    parser.add_argument("--time", required=True)
    parser.add_argument("--swath", default="build/release/swath", help="to ask the model for its widths")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    misses = json.loads(Path(args.misses).read_text())
    timing = json.loads(Path(args.time).read_text())
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5))

    width, height = misses["grid"]
    model = json.loads(subprocess.run(
        [args.swath, "schedule", "explain", "--size", str(width), str(height), "--radius", str(misses["radius"]),
         "--cache", str(misses["cache_bytes"]), "--ways", str(misses["ways"]), "--json"],
        capture_output=True, text=True, check=True).stdout)
    for step, marker in (("03_column", "o-"), ("04_zigzag", "s-")):
        points = sorted((p["column_width"], p["ll_read_misses"]) for p in misses["points"] if p["step"] == step)
        left.plot([p[0] for p in points], [p[1] for p in points], marker, label=f"{step} (simulated)")
    left.axhline(model["fetches"]["compulsory"], color="grey", ls=":", label="every input line once")
    left.axvline(model["widths"]["chosen"], color="green", label=f"model: c = {model['widths']['chosen']}")
    left.axvline(model["widths"]["thesis_exact"], color="red", ls="--",
                 label=f"thesis, uncorrected: c = {model['widths']['thesis_exact']}")
    left.set_xscale("log", base=2)
    left.set_xlabel("column width c (elements)")
    left.set_ylabel("last-level read misses of the kernel")
    left.set_title(f"cachegrind: {width} x {height}, radius {misses['radius']}, LL {misses['cache_bytes'] // 1024} KiB "
                   f"{misses['ways']}-way")
    left.legend(fontsize=8)

    rows = [r for r in timing["rows"] if r["status"] == "ok"]
    chosen = [r for r in rows if "column_width=model" in r["config"]]
    swept = sorted((int(dict(kv.split("=") for kv in r["config"].split())["column_width"]), r["time"]["median_s"] * 1e3)
                   for r in rows if "column_width=model" not in r["config"])
    right.plot([p[0] for p in swept], [p[1] for p in swept], "o-", label="03_column, median of 20")
    if chosen:
        explain = subprocess.run([args.swath, "schedule", "explain", "--size", *rows[0]["size"].split("x"),
                                  "--radius", dict(kv.split("=") for kv in rows[0]["config"].split())["radius"],
                                  "--json"], capture_output=True, text=True, check=True)
        width_model = json.loads(explain.stdout)["widths"]["chosen"]
        right.plot([width_model], [chosen[0]["time"]["median_s"] * 1e3], "g*", ms=14, label=f"model (L2): c = {width_model}")
    right.set_xscale("log", base=2)
    right.set_xlabel("column width c (elements)")
    right.set_ylabel("ms")
    right.set_ylim(0, max(p[1] for p in swept) * 1.15)
    right.set_title(f"time on {timing['environment']['cpu']['model']}, {rows[0]['size']}")
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
