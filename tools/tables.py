#!/usr/bin/env python3
"""Regenerates the results tables and plots in README.md, docs/<family>.md (one row a step, one column a
size) and docs/journal/<family>.md (every row) from, for each GPU and
step, the newest bench/results/<gpu>/*gpu-check*.json with that step's rows (newest by the run's
recorded start time; a gpu-check may bench one family or a few steps, and the older runs keep the
others). Text between the markers
  <!-- swath:results:<name>:begin --> and <!-- swath:results:<name>:end -->
is replaced; everything else is left alone. Plots go to docs/img/.

usage: tools/tables.py   (from the repository root; `make docs` runs it)
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import swath_results as sr  # noqa: E402
import plot  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def newest_runs():
    """Per GPU: for each step, the newest gpu-check JSON that has its rows, as (gpu, merged data,
    [(path, data) used], {family: (family data, [(path, data) used for it])})."""
    runs = []
    for gpu_dir in sorted((ROOT / "bench" / "results").iterdir()):
        candidates = sorted(((path, sr.load(path)) for path in gpu_dir.glob("*gpu-check*.json")),
                            key=lambda item: item[1]["started_at"])
        if not candidates:
            continue
        newest_for = {}  # (family, variant) -> (path, data)
        for path, data in candidates:
            for key in dict.fromkeys((r["family"], r["variant"]) for r in data["rows"]):
                newest_for[key] = (path, data)

        def rows_of(keys):
            return [r for key in keys for r in newest_for[key][1]["rows"] if (r["family"], r["variant"]) == key]

        def runs_of(keys):
            used = list({str(path): (path, data) for path, data in (newest_for[k] for k in keys)}.values())
            return sorted(used, key=lambda item: item[1]["started_at"])

        used = runs_of(newest_for)
        merged = dict(used[-1][1])
        merged["rows"] = rows_of(newest_for)
        families = {}
        for family in dict.fromkeys(family for family, _ in newest_for):
            keys = [k for k in newest_for if k[0] == family]
            # The order of the run that has most of them, then the others' steps by name.
            base = max(runs_of(keys), key=lambda item: sum(newest_for[k][0] == item[0] for k in keys))
            base_order = list(dict.fromkeys((r["family"], r["variant"]) for r in base[1]["rows"]))
            keys = ([k for k in base_order if k in keys and newest_for[k][0] == base[0]]
                    + sorted((k for k in keys if newest_for[k][0] != base[0]), key=lambda k: k[1]))
            family_used = runs_of(keys)
            family_data = dict(family_used[-1][1])
            family_data["rows"] = rows_of(keys)
            families[family] = (family_data, family_used)
        runs.append((gpu_dir.name, merged, used, families))
    return runs


def fmt(value, digits):
    return "" if value is None else f"{value:.{digits}f}"


def ceilings_line(data):
    g = data["ceilings"].get("gpu")
    if not g:
        return ""
    return (f"Ceilings measured in the same run: device copy {g['copy_gbps']:.0f} GB/s (bytes read + written), "
            f"read-only {g['read_gbps']:.0f} GB/s, FP32 FMA {g['fp32_fma_gflops']:.0f} GFLOP/s "
            f"({100 * g['fp32_fma_gflops'] / g['fp32_theoretical_gflops']:.0f}% of SMs x lanes x 2 x clock), "
            f"cuBLAS SGEMM {g['sgemm_gflops']:.0f} GFLOP/s, pinned host link {g['h2d_pinned_gbps']:.1f} / "
            f"{g['d2h_pinned_gbps']:.1f} GB/s (to / from the device).")


def source_line(data, path):
    env = data["environment"]
    return (f"Source: [`{path.relative_to(ROOT)}`]({path.relative_to(ROOT)}), {sr.device_name(data)}, "
            f"revision `{env['git_revision']}`, {data['started_at']}, median of {data['options']['repetitions']} "
            f"repetitions after {data['options']['warmup']} warm-ups.")


def summary_table(data):
    """Per problem: the best non-vendor step at the largest size, against the ceiling and the vendor."""
    lines = ["| problem | size | best step | rate | % of ceiling | x vendor | vendor |",
             "| --- | --- | --- | ---: | ---: | ---: | --- |"]
    rows = sr.largest_size_rows(data)
    for problem in dict.fromkeys(r["problem"] for r in rows):
        steps = [r for r in rows if r["problem"] == problem and not r["vendor"]]
        if all(r.get("ceiling_kind") == "none" for r in steps):
            # No roofline (a ray tracer): the fastest step at the largest case, in items per second.
            largest = max(sr.size_elements(r["size"]) for r in steps)
            best = max((r for r in steps if sr.size_elements(r["size"]) == largest), key=lambda r: r["gitems_per_s"])
            lines.append(f"| {problem} | {best['size']} {best.get('config', '')} | `{sr.short_name(best['variant'])}` | "
                         f"{best['gitems_per_s']:.2f} G {'rays' if problem == 'render' else 'items'}/s | - | - | - |")
            continue
        # Compute-bound problems (gemm) by GFLOP/s, the rest by GB/s.
        rate = "gflops" if any(r.get("bound") == "compute" for r in steps) else "gbps"
        best = max(steps, key=lambda r: r[rate])
        size = best["size"]
        if plot.config_value(best, "input"):
            # Families measured on several inputs: the step whose slowest input is fastest, at that input.
            slowest = {}
            for r in steps:
                if r["size"] == best["size"] and (r["variant"] not in slowest or r["gbps"] < slowest[r["variant"]]["gbps"]):
                    slowest[r["variant"]] = r
            best = max(slowest.values(), key=lambda r: r["gbps"])
            size = f"{best['size']} (slowest input: {plot.config_value(best, 'input')})"
        vendor = sr.short_name(best["vendor_baseline"]) if best.get("vendor_baseline") else "-"
        shown = f"{best['gflops']:.0f} GFLOP/s" if rate == "gflops" else f"{best['gbps']:.0f} GB/s"
        lines.append(f"| {problem} | {size} | `{sr.short_name(best['variant'])}` | {shown} | "
                     f"{fmt(best.get('percent_of_ceiling'), 1)} | {fmt(best.get('vendor_ratio'), 3) or '-'} | {vendor} |")
    return "\n".join(lines)


def items_table(data, family):
    """Families measured per item (a ray tracer's rays): what was counted and how fast."""
    lines = ["| step | size | scene | median ms | items counted | G items/s |",
             "| --- | --- | --- | ---: | ---: | ---: |"]
    for r in sr.timed_rows(data):
        if r["family"] == family:
            lines.append(f"| `{sr.short_name(r['variant'])}` | {r['size']} | {r.get('config', '')} | "
                         f"{1e3 * r['time']['median_s']:.4g} | {r['items']:.0f} | {r['gitems_per_s']:.3f} |")
    return "\n".join(lines)


def family_table(data, family):
    if all(r.get("ceiling_kind") == "none" for r in sr.timed_rows(data) if r["family"] == family):
        return items_table(data, family)
    lines = ["| step | size | median ms | GB/s | GFLOP/s | % of ceiling | x vendor |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in sr.timed_rows(data):
        if r["family"] != family:
            continue
        ratio = "vendor" if r["vendor"] else (fmt(r.get("vendor_ratio"), 3) or "-")
        gflops = fmt(r["gflops"], 1) if r["flops"] > 0 else "-"
        size = f"{r['size']} {r['config']}" if r.get("config") else r["size"]
        lines.append(f"| `{sr.short_name(r['variant'])}` | {size} | {1e3 * r['time']['median_s']:.4g} | "
                     f"{r['gbps']:.1f} | {gflops} | {fmt(r.get('percent_of_ceiling'), 1)} | {ratio} |")
    return "\n".join(lines)


def progression_table(data, family):
    """One row a step, one column a size: x vendor where the row has a vendor baseline, else % of the
    ceiling, for the first configuration each size was run with (every row: the journal's full table)."""
    rows = [r for r in sr.timed_rows(data) if r["family"] == family]
    if all(r.get("ceiling_kind") == "none" for r in rows):
        return items_table(data, family)
    first_config = {}
    for r in rows:
        first_config.setdefault(r["size"], r.get("config", ""))
    sizes = list(first_config)
    cells = {}
    for r in rows:
        if r.get("config", "") != first_config[r["size"]]:
            continue
        name = sr.short_name(r["variant"])
        if r["vendor"]:
            cells.setdefault(name, {})[r["size"]] = "vendor"
        elif r.get("vendor_ratio") is not None:
            cells.setdefault(name, {})[r["size"]] = f"{r['vendor_ratio']:.3f}x"
        else:
            cells.setdefault(name, {})[r["size"]] = f"{fmt(r.get('percent_of_ceiling'), 1)}%"
    configs = sorted({c for c in first_config.values() if c})
    note = f" ({'; '.join(configs)})" if configs else ""
    lines = [f"Each cell: x vendor where a vendor row ran that size, else % of the ceiling{note}.", "",
             "| step | " + " | ".join(sizes) + " |", "| --- |" + " ---: |" * len(sizes)]
    for name, by_size in cells.items():
        lines.append(f"| `{name}` | " + " | ".join(by_size.get(size, "") for size in sizes) + " |")
    return "\n".join(lines)


def replace_block(path, name, text):
    begin, end = f"<!-- swath:results:{name}:begin -->", f"<!-- swath:results:{name}:end -->"
    content = path.read_text()
    if begin not in content or end not in content:
        raise SystemExit(f"{path}: markers for '{name}' not found")
    head, rest = content.split(begin, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{begin}\n{text}\n{end}{tail}")
    print(f"updated {path.relative_to(ROOT)} ({name})")


def main():
    runs = newest_runs()
    if not runs:
        raise SystemExit("no bench/results/<gpu>/*gpu-check*.json yet")
    image_dir = ROOT / "docs" / "img"
    image_dir.mkdir(parents=True, exist_ok=True)
    readme_parts = []
    family_parts = {}
    journal_parts = {}  # every row, for docs/journal/<family>.md
    for gpu, merged, used, newest_for in runs:
        plot.plot_roofline(merged, image_dir / f"{gpu}-roofline.png")
        families = list(dict.fromkeys(r["family"] for r in merged["rows"]))
        charts = "\n".join(f"![{f} steps](docs/img/{gpu}-{f}-steps.png)" for f in families)
        sources = "\n".join(f"{ceilings_line(data)}\n{source_line(data, path)}" for path, data in used)
        readme_parts.append(f"**{sr.device_name(merged)}**\n\n{summary_table(merged)}\n\n{sources}\n\n{charts}\n"
                            f"![roofline](docs/img/{gpu}-roofline.png)")
        for family in families:
            data, family_used = newest_for[family]
            if not plot.plot_steps(data, family, image_dir / f"{gpu}-{family}-steps.png"):
                plot.plot_items(data, family, image_dir / f"{gpu}-{family}-steps.png")
            extra = ""
            if plot.plot_inputs(data, family, image_dir / f"{gpu}-{family}-inputs.png"):
                extra = f"\n![{family} on every input](img/{gpu}-{family}-inputs.png)"
            sources = "\n".join(f"{ceilings_line(d)}\n{source_line(d, p).replace('](bench', '](../bench')}"
                                for p, d in family_used)
            family_parts.setdefault(family, []).append(
                f"**{sr.device_name(data)}**\n\n{progression_table(data, family)}\n\n{sources}\n\n"
                f"![{family} steps](img/{gpu}-{family}-steps.png){extra}\n![roofline](img/{gpu}-roofline.png)")
            journal_parts.setdefault(family, []).append(
                f"**{sr.device_name(data)}**\n\n{family_table(data, family)}\n\n"
                + sources.replace("](../bench", "](../../bench"))
    replace_block(ROOT / "README.md", "summary", "\n\n".join(readme_parts))
    for family, parts in family_parts.items():
        doc = ROOT / "docs" / f"{family}.md"
        if doc.exists():
            replace_block(doc, family, "\n\n".join(parts))
        journal = ROOT / "docs" / "journal" / f"{family}.md"
        if journal.exists() and f"swath:results:{family}-full:begin" in journal.read_text():
            replace_block(journal, f"{family}-full", "\n\n".join(journal_parts[family]))


if __name__ == "__main__":
    main()
