#!/usr/bin/env python3
"""Draws the four traversals over a small grid as one PNG, from `swath schedule walk` (so the picture
shows what the library's mappings really do).

usage: tools/schedule_figures.py --swath build/release/swath --out docs/img/schedules.png
"""
import argparse
import json
import subprocess

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

WIDTH, HEIGHT, COLUMN, TILE = 11, 6, 4, (4, 3)


def walk(swath, order):
    command = [swath, "schedule", "walk", "--size", str(WIDTH), str(HEIGHT), "--order", order, "--width", str(COLUMN),
               "--tile", str(TILE[0]), str(TILE[1]), "--json"]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)["visits"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--swath", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    titles = {"row_major": "RowMajor", "tiled": f"Tiled({TILE[0]}, {TILE[1]})", "column": f"Column({COLUMN})",
              "zigzag": f"Zigzag({COLUMN})"}
    fig, axes = plt.subplots(1, 4, figsize=(18, 4.2))
    for ax, (order, title) in zip(axes, titles.items()):
        visits = walk(args.swath, order)
        xs = [j % WIDTH + 0.5 for j in visits]
        ys = [HEIGHT - j // WIDTH - 0.5 for j in visits]
        colours = plt.get_cmap("viridis")
        for i in range(len(visits) - 1):
            ax.annotate("", xy=(xs[i + 1], ys[i + 1]), xytext=(xs[i], ys[i]),
                        arrowprops={"arrowstyle": "->", "color": colours(i / len(visits)), "lw": 1.2})
        for i, (x, y) in enumerate(zip(xs, ys)):
            ax.text(x, y, str(i), ha="center", va="center", fontsize=6.5,
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
        if order in ("column", "zigzag"):
            for x in range(COLUMN, WIDTH, COLUMN):
                ax.axvline(x, color="red", lw=1, ls="--")
        if order == "tiled":
            for x in range(TILE[0], WIDTH, TILE[0]):
                ax.axvline(x, color="red", lw=1, ls="--")
            for y in range(TILE[1], HEIGHT, TILE[1]):
                ax.axhline(HEIGHT - y, color="red", lw=1, ls="--")
        ax.set_xlim(0, WIDTH)
        ax.set_ylim(0, HEIGHT)
        ax.set_xticks(range(WIDTH + 1))
        ax.set_yticks(range(HEIGHT + 1))
        ax.grid(True, color="#dddddd")
        ax.set_aspect("equal")
        ax.tick_params(labelbottom=False, labelleft=False, length=0)
        ax.set_title(f"{title} on {WIDTH} x {HEIGHT}: the visiting order")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
