#!/usr/bin/env python3
"""The iterated stencil's roofline with temporal blocking (docs/stencil.md, "Iterated sweeps"): for the
3D 7-point star at 512^3, T = 64, the rate of GPU step 04 at each pass depth L as a multiple of the
single-sweep roofline (the copy bandwidth measured in the same run over 2u bytes a point), against
the ceilings DRAM sets on a pass of L sweeps:
  - L: each point read and written once a pass (no halo);
  - 2L / (1 + (32 / (32 - 2L))^2): step 04's 32 x 32 tiles, every tile reading its halo from DRAM (the
    L2 keeps some of it, so the tiles' true ceiling lies between the two).
L = 1 is T single sweeps (step 01). One panel a type, one series a GPU (where a depth of step 04 was
chosen explicitly, fused=N: a fused=model row does not say its L); the issue's targets dashed.

Input: the bench JSON files given (newest run per GPU, step and L wins). Output: an SVG.
usage: tools/iterate_roofline.py OUT.svg RESULTS.json [RESULTS.json ...]
"""
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TILE = 32  # step 04's tile: 32 x 32 columns (march_layout, src/stencil/iterate.hpp)
TARGETS = {"float": 3.0, "double": 2.5}  # the iterated-stencil issue's, at T = 64


def depth_of(row):
    """The pass depth of a row: 1 for T single sweeps, N for fused=N, None otherwise (fused=model)."""
    if row["variant"].endswith("/01_sweeps"):
        return 1
    match = re.search(r"\bfused=(\d+)\b", row["config"])
    return int(match.group(1)) if match else None


def points(paths):
    """{(gpu, type): {L: ratio to the single-sweep roofline}}, the newest run's where several measured."""
    best = {}
    for path in paths:
        with open(path) as handle:
            data = json.load(handle)
        gpu = data["ceilings"]["device"]
        for row in data["rows"]:
            config = row["config"]
            if row["size"] != "512x512x512" or "radius=1 " not in config + " " or "shape=star" not in config:
                continue
            if row.get("status") != "ok" or not re.search(r"/(01_sweeps|04_unrolled_march)$", row["variant"]):
                continue
            depth = depth_of(row)
            if depth is None:
                continue
            kind = "double" if "type=double" in config else "float"
            bytes_per_point = 16 if kind == "double" else 8
            roofline = row["ceiling_gbps"] / bytes_per_point  # G points/s
            key = (gpu, kind)
            stamp = data["started_at"]
            if depth not in best.setdefault(key, {}) or best[key][depth][0] < stamp:
                best[key][depth] = (stamp, row["gitems_per_s"] / roofline)
    return {key: {depth: value for depth, (_, value) in series.items()} for key, series in best.items()}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    measured = points(sys.argv[2:])
    depths = list(range(1, 6))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for axis, kind in zip(axes, ("float", "double")):
        axis.plot(depths, depths, color="0.3", linestyle="-", label="DRAM ceiling: L sweeps a pass, no halo")
        tiled = [2 * d / (1 + (TILE / (TILE - 2 * d)) ** 2) for d in depths]
        axis.plot(depths, tiled, color="0.5", linestyle=":", label="32 x 32 tiles, halo re-read from DRAM")
        axis.axhline(TARGETS[kind], color="tab:red", linestyle="--", linewidth=1, label=f"target {TARGETS[kind]}x")
        axis.axhline(1.0, color="0.8", linewidth=1)
        for (gpu, series_kind), series in sorted(measured.items()):
            if series_kind != kind or len(series) < 2:  # T sweeps alone: no depth of step 04 was swept
                continue
            xs = sorted(series)
            axis.plot(xs, [series[x] for x in xs], marker="o", label=f"{gpu}: step 04 (L = 1: T sweeps)")
            for x in xs:
                axis.annotate(f"{series[x]:.2f}", (x, series[x]), textcoords="offset points", xytext=(4, -12), fontsize=7)
        axis.set_title(f"3D 7-point star, 512^3, {kind}, T = 64")
        axis.set_xlabel("sweeps fused a pass (L)")
        axis.set_xticks(depths)
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("x the single-sweep roofline (same run's copy bandwidth)")
    axes[1].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(sys.argv[1])
    print(f"wrote {sys.argv[1]}")


if __name__ == "__main__":
    main()
