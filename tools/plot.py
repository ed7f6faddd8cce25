#!/usr/bin/env python3
"""Plots from a swath bench JSON file: a roofline (measured ceilings as lines, each variant a point) and,
per family, a bar chart of the steps as % of the ceiling that bounds them, with the ratio to the vendor.

usage: tools/plot.py RESULTS.json --out DIR [--prefix NAME]
writes DIR/NAME-roofline.png and DIR/NAME-<family>-steps.png; for families whose rows name an input
distribution (histograms), DIR/NAME-<family>-inputs.png: GB/s of every step on every input.
"""
import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import swath_results as sr  # noqa: E402


def roofs(data):
    """(label, bandwidth GB/s, compute GFLOP/s) for each measured ceiling pair."""
    ceilings = data["ceilings"]
    out = []
    if ceilings.get("gpu"):
        g = ceilings["gpu"]
        out.append(("device copy", g["copy_gbps"], g["fp32_fma_gflops"]))
        out.append(("device read", g["read_gbps"], g["fp32_fma_gflops"]))
    if ceilings.get("cpu"):
        c = ceilings["cpu"]
        out.append(("CPU copy, all cores", c["copy_gbps_all_cores"], c["fma_gflops_all_cores"]))
        out.append(("CPU copy, one core", c["copy_gbps_one_core"], c["fma_gflops_one_core"]))
    return out


def plot_roofline(data, path):
    rows = [r for r in sr.largest_size_rows(data) if r["flops"] > 0]
    fig, ax = plt.subplots(figsize=(12, 6))
    intensities = [r["intensity"] for r in rows] or [0.1]
    lo, hi = min(intensities) / 8, max(max(intensities) * 8, 100)
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    for label, bandwidth, compute in roofs(data):
        ax.plot(xs, [min(compute, x * bandwidth) for x in xs], lw=1.5, label=f"{label}: {bandwidth:.0f} GB/s, "
                f"FMA {compute:.0f} GFLOP/s")
    markers = "osD^v<>ph*"
    palette = plt.get_cmap("tab20")
    # One colour and marker per variant; its configurations (stencil radius, type) share them.
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    for row in rows:
        i = variants.index(row["variant"])
        first = next(r for r in rows if r["variant"] == row["variant"]) is row
        ax.plot(row["intensity"], row["gflops"], markers[i % len(markers)], ms=7, color=palette(i % 20),
                label=f"{sr.short_name(row['variant'])} ({row['size']})" if first else None)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop / byte)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(f"swath roofline, {sr.device_name(data)} ({data['started_at'][:10]})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def short_config(row):
    """The parameters that tell a family's rows apart at one size (stencils: radius, a box, type, a pitch;
    iterated stencils also the sweeps fused a pass where a row sets them)."""
    values = dict(item.split("=", 1) for item in row.get("config", "").split() if "=" in item)
    shown = [f"r{values['radius']}" if "radius" in values else "", "box" if values.get("shape") == "box" else "",
             values.get("type", ""), values.get("input", ""), f"pitch={values['pitch']}" if "pitch" in values else "",
             f"L={values['fused']}" if "fused" in values else ""]
    text = " ".join(v for v in shown if v)
    return f" {text}" if text else ""


def plot_steps(data, family, path):
    rows = [r for r in sr.largest_size_rows(data) if r["family"] == family and r.get("percent_of_ceiling") is not None]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(rows) + 3), 5.5))
    problems = list(dict.fromkeys(r["problem"] for r in rows))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, row in enumerate(rows):
        color = colors[problems.index(row["problem"]) % len(colors)]
        ax.bar(i, row["percent_of_ceiling"], color=color, alpha=0.5 if row["vendor"] else 0.9,
               hatch="//" if row["vendor"] else None, edgecolor="black", lw=0.5)
        note = "vendor" if row["vendor"] else (f"{row['vendor_ratio']:.3f}x" if row.get("vendor_ratio") else "")
        ax.text(i, row["percent_of_ceiling"] + 1, note, ha="center", va="bottom", fontsize=7, rotation=90)
    ax.axhline(100, color="black", lw=0.8, ls="--")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{sr.short_name(r['variant'])}\n{r['size']}{short_config(r)}" for r in rows], rotation=60,
                       ha="right", fontsize=7)
    ax.set_ylabel("% of the bounding ceiling (bandwidth or FMA)")
    ax.set_ylim(0, max(r["percent_of_ceiling"] for r in rows) * 1.25)
    ax.set_title(f"{family} steps, {sr.device_name(data)}: % of ceiling; label = x vendor baseline, same run")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors[i % len(colors)]) for i in range(len(problems))]
    ax.legend(handles, problems, fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_items(data, family, path):
    """Families with no roofline (a ray tracer): grouped bars, one group per case (size and scene), one
    bar per step, billions of items per second on a log axis."""
    rows = [r for r in sr.timed_rows(data) if r["family"] == family and r.get("ceiling_kind") == "none"]
    if not rows:
        return False
    def case(r):
        return f"{r['size']}\n{r.get('config', '')}".replace("scene=", "").replace("spheres=", "spheres ")
    cases = list(dict.fromkeys(case(r) for r in rows))
    steps = list(dict.fromkeys(r["variant"] for r in rows))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    width = 0.8 / len(steps)
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(cases) + 3), 5.5))
    labelled = set()
    for r in rows:
        j = steps.index(r["variant"])
        label = None if r["variant"] in labelled else sr.short_name(r["variant"])
        labelled.add(r["variant"])
        ax.bar(cases.index(case(r)) - 0.4 + (j + 0.5) * width, r["gitems_per_s"], width, color=colors[j % len(colors)],
               edgecolor="black", lw=0.5, label=label)
    ax.set_yscale("log")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels(cases, fontsize=7)
    ax.set_ylabel("G items/s (rays/s for the ray tracer), log")
    ax.set_title(f"{family} steps, {sr.device_name(data)}: every ray counted (camera and shadow)")
    ax.legend(fontsize=7, loc="upper right", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def config_value(row, key):
    values = dict(item.split("=", 1) for item in row.get("config", "").split() if "=" in item)
    return values.get(key)


def plot_inputs(data, family, path):
    """Grouped bars: one group per step (largest size), one bar per input distribution, GB/s on a log
    axis with the ceilings that bound the steps as lines."""
    rows = [r for r in sr.largest_size_rows(data)
            if r["family"] == family and config_value(r, "input") and r.get("gbps")]
    if not rows:
        return False
    steps = list(dict.fromkeys(r["variant"] for r in rows))
    inputs = list(dict.fromkeys(config_value(r, "input") for r in rows))
    width = 0.8 / len(inputs)
    fig, ax = plt.subplots(figsize=(max(9, 1.3 * len(steps) + 3), 5.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for j, name in enumerate(inputs):
        for i, step in enumerate(steps):
            row = next((r for r in rows if r["variant"] == step and config_value(r, "input") == name), None)
            if row is None:
                continue
            ax.bar(i + (j - (len(inputs) - 1) / 2) * width, row["gbps"], width, color=colors[j % len(colors)],
                   alpha=0.55 if row["vendor"] else 0.95, hatch="//" if row["vendor"] else None, edgecolor="black",
                   lw=0.4, label=name if i == 0 or step == steps[0] else None)
    for step_rows in [[r for r in rows if r["variant"] == s] for s in steps]:
        ceiling = step_rows[0].get("ceiling_gbps")
        if ceiling:
            i = steps.index(step_rows[0]["variant"])
            ax.hlines(ceiling, i - 0.45, i + 0.45, color="black", lw=1.2)
    ax.set_yscale("log")
    ax.set_xticks(range(len(steps)))
    sizes = {r["variant"]: r["size"] for r in rows}
    ax.set_xticklabels([f"{sr.short_name(s)}\n{sizes[s]}" for s in steps], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("GB/s (log); black line = the ceiling that bounds the step")
    ax.set_title(f"{family} steps on every input, {sr.device_name(data)} ({data['started_at'][:10]})")
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    ax.legend(unique.values(), unique.keys(), fontsize=8, loc="upper left")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("--out", required=True)
    parser.add_argument("--prefix", default="bench")
    args = parser.parse_args()
    data = sr.load(args.results)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / f"{args.prefix}-roofline.png"]
    plot_roofline(data, written[0])
    for family in dict.fromkeys(r["family"] for r in data["rows"]):
        path = out / f"{args.prefix}-{family}-steps.png"
        if plot_steps(data, family, path) or plot_items(data, family, path):
            written.append(path)
        path = out / f"{args.prefix}-{family}-inputs.png"
        if plot_inputs(data, family, path):
            written.append(path)
    for path in written:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
