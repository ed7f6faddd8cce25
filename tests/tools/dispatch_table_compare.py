#!/usr/bin/env python3
"""tools/dispatch_table.py compare over two small suites written here, whose means are worked out by
hand: the summary's numbers and the cases it reports as moved."""
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "dispatch_table.py"


def row(variant, size, config, seconds, vendor=False, status="ok"):
    return {"variant": variant, "size": size, "config": config, "status": status, "vendor": vendor,
            "time": {"median_s": seconds}}


def suite(path, b_call):
    rows = [
        # 10 µs against cuBLAS's 12: 1.2x, the one case under 25 µs.
        row("gemm/cuda/auto", "256x256x256", "op=nn", 10e-6), row("gemm/cuda/vendor_cublas", "256x256x256", "op=nn", 12e-6, True),
        # b_call µs against 45: 0.9x in the first suite, 1.125x in the second.
        row("gemm/cuda/auto", "1023x1023x1023", "op=tt", b_call), row("gemm/cuda/vendor_cublas", "1023x1023x1023", "op=tt", 45e-6, True),
        # 200 µs against 200: 1.0x, the one case of 0.1 ms or more; a batch.
        row("gemm/cuda/auto", "512x512x128", "batch=64", 200e-6), row("gemm/cuda/vendor_cublas", "512x512x128", "batch=64", 200e-6, True),
        # Left out: a step's own row, a failed row, a case without cuBLAS's row.
        row("gemm/cuda/19_sliced_k", "256x256x256", "op=nn fit=64x64", 1e-6),
        row("gemm/cuda/auto", "300x300x300", "op=nn", 1e-6, status="failed"),
        row("gemm/cuda/vendor_cublas", "300x300x300", "op=nn", 9e-6, True),
        row("gemm/cuda/auto", "777x777x777", "op=nn", 1e-6),
    ]
    path.write_text(json.dumps({"environment": {"device": {"name": "Test GPU"}}, "rows": rows}))


def main():
    with tempfile.TemporaryDirectory() as scratch:
        first, second = Path(scratch) / "first.json", Path(scratch) / "second.json"
        suite(first, 50e-6)
        suite(second, 40e-6)
        text = subprocess.run([sys.executable, str(TOOL), "compare", str(first), str(second)], check=True,
                              capture_output=True, text=True).stdout
    lines = text.splitlines()
    failures = []

    def expect(fragment, line):
        if fragment not in line:
            failures.append(f"expected {fragment!r} in {line!r}")

    expect(f"3 cases, geometric mean {(1.2 * 0.9 * 1.0) ** (1 / 3):.3f}x cuBLAS", lines[0])
    expect("2 at 1.00x or more, lowest 0.900x (1023x1023x1023 tt)", lines[0])
    expect("under 25 µs 1.200x (1)", lines[0])
    expect(f"25 µs or more {math.sqrt(0.9 * 1.0):.3f}x (2)", lines[0])
    expect("0.1 ms or more 1.000x (1)", lines[0])
    expect(f"3 cases, geometric mean {(1.2 * 1.125 * 1.0) ** (1 / 3):.3f}x cuBLAS", lines[1])
    expect("lowest 1.000x (512x512x128 nn batch=64)", lines[1])
    moved = [line for line in lines if line.startswith("| `")]
    if len(moved) != 1:
        failures.append(f"expected one moved case, got {moved}")
    else:
        expect("| `1023x1023x1023 tt` | 50.0 | 40.0 | 0.900 | 1.125 |", moved[0])
    if failures:
        print(text)
        print("\n".join(failures))
        return 1
    print("compare: the means, counts, classes and the moved case as worked out by hand")
    return 0


if __name__ == "__main__":
    sys.exit(main())
