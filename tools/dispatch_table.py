#!/usr/bin/env python3
"""The SGEMM dispatch tables (src/gemm/dispatch/<gpu>.json, written by `swath tune gemm --dispatch`).

usage:
  tools/dispatch_table.py merge OUT IN [IN ...]
      one table from several tuner runs of the same GPU (a suite tuned in parts); where two runs chose
      for the same case (M, N, K, op, batch) the later file's choice stays. Choices sorted by op, batch
      and size.
  tools/dispatch_table.py markdown TABLE [TABLE ...]
      a Markdown table per file: each case, the step and settings chosen, its time, cuBLAS's, the ratio,
      and the geometric mean of the ratios (docs/gemm.md).
  tools/dispatch_table.py svg OUT SUITE:TABLE [SUITE:TABLE ...]
      a bar chart of swath::sgemm's ratio to cuBLAS over the suite, one row of bars per GPU: SUITE is the
      `swath bench gemm` JSON of the auto and vendor rows (each case's ratio measured in one run), TABLE
      the dispatch table that run used (the bars' colour: the step it chose).
  tools/dispatch_table.py cases SUITE:TABLE [SUITE:TABLE ...]
      a Markdown table of every case of the suites, one group of columns per GPU: the step the table
      chose (its number and settings, shares=even left out), the tuner's ratio to cuBLAS (the step
      alone) and the call's (the suite's auto row); bold below 1.00x (docs/gemm.md, "Every shape").
  tools/dispatch_table.py compare SUITE [SUITE ...]
      each suite's summary (`swath bench gemm` JSON with the auto and vendor rows): the geometric mean
      of the ratio to cuBLAS over its cases, the count at 1.00x or more, the lowest, and the means over
      the products under 25 µs, of 25 µs or more and of 0.1 ms or more (by the call's median); then,
      against the first suite, each later one's cases whose ratio moved by more than 2%.
"""
import json
import math
import sys
from pathlib import Path


def load(path):
    with open(path) as f:
        return json.load(f)


def key(choice):
    return (choice["op"], choice.get("batch", 1), choice["m"], choice["n"], choice["k"])


def write_table(table, path):
    lines = [json.dumps(c) for c in table["choices"]]
    head = {k: table[k] for k in ("gpu", "capability", "measured_at", "revision") if k in table}
    text = json.dumps(head)[:-1] + ',\n "choices": [\n  ' + ",\n  ".join(lines) + "\n ]}\n"
    Path(path).write_text(text)


def merge(out, inputs):
    tables = [load(p) for p in inputs]
    gpus = {t["gpu"] for t in tables}
    if len(gpus) != 1:
        sys.exit(f"dispatch_table.py merge: tables of several GPUs: {sorted(gpus)}")
    chosen = {}
    for table in tables:
        for choice in table["choices"]:
            chosen[key(choice)] = choice
    merged = dict(tables[-1])
    merged["choices"] = [chosen[k] for k in sorted(chosen)]
    write_table(merged, out)


def case_name(c):
    size = f"{c['m']}x{c['n']}x{c['k']}"
    batch = c.get("batch", 1)
    return f"{size} {c['op']}" + (f" batch={batch}" if batch > 1 else "")


def ratios(table):
    return [c["vendor_ms"] / c["ms"] for c in table["choices"] if c.get("ms") and c.get("vendor_ms")]


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def markdown(paths):
    out = []
    for path in paths:
        table = load(path)
        rs = ratios(table)
        out.append(f"**{table['gpu']}** (`{path}`, revision `{table.get('revision', '?')}`, {table.get('measured_at', '')}): "
                   f"{len(rs)} cases, geometric mean {geomean(rs):.3f}x cuBLAS, {sum(r >= 1 for r in rs)} at 1.00x or more, "
                   f"lowest {min(rs):.3f}x.\n")
        out.append("| case | step | settings | ms | cuBLAS ms | x cuBLAS |")
        out.append("| --- | --- | --- | ---: | ---: | ---: |")
        for c in table["choices"]:
            settings = " ".join(f"{k}={v}" for k, v in sorted(c.get("settings", {}).items()))
            ratio = c["vendor_ms"] / c["ms"] if c.get("ms") and c.get("vendor_ms") else float("nan")
            out.append(f"| `{case_name(c)}` | `{c['step'].rsplit('/', 1)[-1]}` | `{settings}` | {c['ms']:.4f} | "
                       f"{c['vendor_ms']:.4f} | {ratio:.3f} |")
        out.append("")
    print("\n".join(out))


COLOURS = {"16_balanced_tail": "#4e79a7", "17_split_k": "#f28e2b", "18_skinny": "#59a14f", "19_sliced_k": "#b07aa1",
           "20_rewritten_operands": "#e15759", "21_streamed_tiles": "#76b7b2"}


def row_case(row):
    """The case name of a bench JSON row: its size (MxNxK, or N for N³) with its op and batch."""
    config = dict(w.split("=") for w in row.get("config", "").split() if "=" in w)
    extents = [int(x) for x in row["size"].split("x")]
    m, n, k = extents if len(extents) == 3 else extents * 3
    return case_name({"m": m, "n": n, "k": k, "op": config.get("op", "nn"), "batch": int(config.get("batch", 1))})


def suite_ratios(path):
    """{case name: ratio} of the auto rows of a bench JSON (vendor median / auto median)."""
    data = load(path)
    out = {}
    for row in data["rows"]:
        if row["variant"] != "gemm/cuda/auto" or row.get("vendor_ratio") is None:
            continue
        out[row_case(row)] = row["vendor_ratio"]
    gpu = data["environment"].get("device", {}).get("name", path)
    return gpu, out


def suite_times(path):
    """The device's name and {case name: (the call's median, cuBLAS's median)} in seconds, from the auto
    and vendor rows of a bench JSON measured in one run."""
    data = load(path)
    calls, vendors = {}, {}
    for row in data["rows"]:
        if row.get("status") != "ok" or not row.get("size"):
            continue
        if row["variant"] == "gemm/cuda/auto":
            calls[row_case(row)] = row["time"]["median_s"]
        elif row.get("vendor"):
            vendors[row_case(row)] = row["time"]["median_s"]
    gpu = data.get("environment", {}).get("device", {}).get("name", path)
    return gpu, {name: (calls[name], vendors[name]) for name in calls if name in vendors}


def compare(paths):
    suites = [(path, *suite_times(path)) for path in paths]
    out = []
    for path, gpu, times in suites:
        ratio = {name: vendor / call for name, (call, vendor) in times.items()}
        if not ratio:
            sys.exit(f"{path}: no case with both the auto row and the vendor row")
        lowest = min(ratio, key=ratio.get)
        classes = [("under 25 µs", lambda t: t < 25e-6), ("25 µs or more", lambda t: t >= 25e-6),
                   ("0.1 ms or more", lambda t: t >= 1e-4)]
        parts = []
        for label, holds in classes:
            chosen = [ratio[name] for name, (call, _) in times.items() if holds(call)]
            parts.append(f"{label} {geomean(chosen):.3f}x ({len(chosen)})")
        out.append(f"`{path}` ({gpu}): {len(ratio)} cases, geometric mean {geomean(list(ratio.values())):.3f}x cuBLAS, "
                   f"{sum(r >= 1 for r in ratio.values())} at 1.00x or more, lowest {ratio[lowest]:.3f}x ({lowest}); "
                   + ", ".join(parts))
    first_path, _, first = suites[0]
    for path, _, times in suites[1:]:
        moved = []
        for name in first:
            if name not in times:
                continue
            before = first[name][1] / first[name][0]
            after = times[name][1] / times[name][0]
            if abs(after / before - 1) > 0.02:
                moved.append((after / before, name, first[name][0], times[name][0], before, after))
        out.append("")
        out.append(f"Cases whose ratio to cuBLAS moved by more than 2%, `{first_path}` → `{path}`: {len(moved)}")
        if moved:
            out.append("| case | call µs before | after | x cuBLAS before | after |")
            out.append("| --- | ---: | ---: | ---: | ---: |")
            for _, name, t0, t1, r0, r1 in sorted(moved):
                out.append(f"| `{name}` | {t0 * 1e6:.1f} | {t1 * 1e6:.1f} | {r0:.3f} | {r1:.3f} |")
    print("\n".join(out))


def short_choice(choice):
    """'16 tma=on', '17 fit=64x64 splits=4': the step's number and its settings, shares=even (how the
    library runs step 16) left out."""
    settings = [f"{k}={v}" for k, v in sorted(choice.get("settings", {}).items()) if (k, v) != ("shares", "even")]
    return " ".join([choice["step"].rsplit("/", 1)[-1].split("_", 1)[0]] + settings)


def bold_below_one(ratio):
    return "-" if ratio is None else (f"**{ratio:.3f}**" if round(ratio, 3) < 1 else f"{ratio:.3f}")


def cases(pairs):
    columns = []
    for pair in pairs:
        suite, table = pair.split(":")
        gpu, measured = suite_ratios(suite)
        chosen = {case_name(c): c for c in load(table)["choices"]}
        columns.append((gpu, measured, chosen))
    names = []
    for _, measured, _ in columns:
        names += [n for n in measured if n not in names]
    head = "| case |" + "".join(f" {gpu}: choice | tuned x cuBLAS | call x cuBLAS |" for gpu, _, _ in columns)
    out = [head, "| --- |" + " --- | ---: | ---: |" * len(columns)]
    for name in names:
        line = f"| `{name}` |"
        for _, measured, chosen in columns:
            c = chosen.get(name)
            tuned = c["vendor_ms"] / c["ms"] if c and c.get("ms") and c.get("vendor_ms") else None
            line += f" {short_choice(c) if c else 'rules'} | {bold_below_one(tuned)} | {bold_below_one(measured.get(name))} |"
        out.append(line)
    print("\n".join(out))


def svg(out, pairs):
    rows = []
    for pair in pairs:
        suite, table = pair.split(":")
        gpu, measured = suite_ratios(suite)
        steps = {case_name(c): c["step"].rsplit("/", 1)[-1] for c in load(table)["choices"]}
        rows.append((gpu, measured, steps))
    cases = []
    for _, measured, _ in rows:
        for name in measured:
            if name not in cases:
                cases.append(name)
    bar, gap, row_height, top, left = 9, 2, 215, 44, 60
    width = left + len(cases) * (bar + gap) + 20
    height = top + len(rows) * row_height + 150
    scale = 120  # pixels per 1.0x
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="10">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{left}" y="16" font-size="13">swath::sgemm / cuBLAS (pedantic FP32), every case of the shape suite, '
             f'measured in one run a GPU (higher is faster)</text>']
    for index, (gpu, measured, steps) in enumerate(rows):
        base = top + index * row_height + 205  # the 0x line
        values = list(measured.values())
        parts.append(f'<text x="{left}" y="{base - 1.5 * scale - 12}" font-size="12">{gpu}: geometric mean '
                     f'{geomean(values):.3f}x, {sum(r >= 1 for r in values)} of {len(values)} cases at 1.00x or more, '
                     f'lowest {min(values):.3f}x</text>')
        for tick in (0.5, 1.0, 1.5):
            y = base - tick * scale
            parts.append(f'<line x1="{left - 4}" x2="{width - 10}" y1="{y}" y2="{y}" stroke="{"#000" if tick == 1 else "#ccc"}" '
                         f'stroke-width="{1 if tick == 1 else 0.5}"/>')
            parts.append(f'<text x="{left - 8}" y="{y + 3}" text-anchor="end">{tick:.1f}x</text>')
        for i, name in enumerate(cases):
            if name not in measured:
                continue
            ratio = measured[name]
            shown = min(ratio, 1.9)
            x = left + i * (bar + gap)
            step = steps.get(name, "rules")
            parts.append(f'<rect x="{x}" y="{base - shown * scale:.1f}" width="{bar}" height="{shown * scale:.1f}" '
                         f'fill="{COLOURS.get(step, "#999")}"><title>{name}: {ratio:.3f}x ({step})</title></rect>')
            if index == len(rows) - 1:
                parts.append(f'<text transform="translate({x + bar - 1},{base + 6}) rotate(90)" font-size="7">{name}</text>')
    legend = list(COLOURS.items()) + [("no tuned choice: the rules", "#999")]
    for i, (step, colour) in enumerate(legend):
        x = left + i * 150
        parts.append(f'<rect x="{x}" y="{top - 17}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{x + 14}" y="{top - 8}">{step}</text>')
    parts.append("</svg>")
    Path(out).write_text("\n".join(parts) + "\n")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    command, args = sys.argv[1], sys.argv[2:]
    if command == "merge" and len(args) >= 2:
        merge(args[0], args[1:])
    elif command == "markdown":
        markdown(args)
    elif command == "cases":
        cases(args)
    elif command == "compare":
        compare(args)
    elif command == "svg" and len(args) >= 2:
        svg(args[0], args[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
