"""Reading swath bench JSON (schema swath-bench/1): what the plotting and table tools share."""
import json
from pathlib import Path


def load(path):
    data = json.loads(Path(path).read_text())
    if data.get("schema") != "swath-bench/1":
        raise SystemExit(f"{path}: not a swath-bench/1 result file")
    return data


def size_elements(size):
    count = 1
    for extent in size.split("x"):
        count *= int(extent)
    return count


def timed_rows(data):
    return [r for r in data["rows"] if r["status"] == "ok" and "time" in r]


def largest_size_rows(data):
    """For each variant and configuration, its row at the largest size it ran (the size furthest from
    launch overhead). Sizes within 1% of each other count as equal, and the first one run wins (the
    stencil suite's 512^3 over its 2D grid of the same volume)."""
    best = {}
    for row in timed_rows(data):
        key = (row["variant"], row.get("config", ""))
        if key not in best or size_elements(row["size"]) > 1.01 * size_elements(best[key]["size"]):
            best[key] = row
    order = [r["variant"] for r in data["rows"]]
    return sorted(best.values(), key=lambda r: order.index(r["variant"]))


def device_name(data):
    device = data["environment"].get("device")
    return device["name"] if device else data["environment"]["cpu"]["model"]


def short_name(variant):
    return variant.split("/", 2)[-1]
