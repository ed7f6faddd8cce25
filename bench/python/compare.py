#!/usr/bin/env python3
"""swath from Python against what PyTorch users run today, on one GPU in one run.

    python3 bench/python/compare.py --json OUT.json [--quick]

Rows: SGEMM (swath.sgemm, torch.matmul with TF32 off, a Triton FP32 matmul autotuned over a few tile
shapes with IEEE FP32 products), the 3D 7-point stencil (swath.stencil, PyTorch slicing, conv3d), the
byte histogram (swath.histogram, torch.bincount) and a float histogram (swath.histogram, torch.histc), and
the per-call overhead of a small swath call from Python against the same call from C++. Each time is the
median of CUDA-event timings after warm-up, on PyTorch's current stream; inputs are rotated among
enough copies to exceed the L2 where one copy does not. Every result is checked against another
implementation before it is timed.
"""

import argparse
import json
import statistics
import sys
import time

import torch

import swath

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def timed(run, reps=30, warmup=5):
    """Median milliseconds of run(i) over reps calls (i counts calls, to rotate inputs)."""
    for i in range(warmup):
        run(i)
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run(warmup + i)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def copies_for(bytes_each, l2_bytes):
    return max(1, min(8, -(-3 * l2_bytes // max(bytes_each, 1))))


# ---- Triton FP32 matmul ---------------------------------------------------------------------------

def triton_matmul():
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    configs = [triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP": 8}, num_stages=s, num_warps=w)
               for bm, bn, bk, s, w in [(128, 128, 32, 3, 8), (128, 256, 32, 3, 8), (256, 128, 32, 3, 8),
                                        (128, 128, 16, 4, 4), (64, 128, 32, 4, 4), (128, 64, 32, 4, 4)]]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
        per_group = GROUP * tiles_n
        group = pid // per_group
        first_m = group * GROUP
        rows_in_group = min(tiles_m - first_m, GROUP)
        tile_m = first_m + (pid % per_group) % rows_in_group
        tile_n = (pid % per_group) // rows_in_group
        rm = tile_m * BM + tl.arange(0, BM)
        rn = tile_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            ka = k0 + rk
            tile_a = tl.load(a + rm[:, None] * sam + ka[None, :] * sak, mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
            tile_b = tl.load(b + ka[:, None] * sbk + rn[None, :] * sbn, mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(tile_a, tile_b, acc, input_precision="ieee")
        tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

    def matmul(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
        kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
        return c

    return matmul


def sgemm_rows(shapes, reps, l2):
    rows = []
    triton_mm = triton_matmul()
    for m, n, k in shapes:
        sets = copies_for(4 * (m * k + k * n), l2)
        a = [torch.rand(m, k, device="cuda") + 0.5 for _ in range(sets)]
        b = [torch.rand(k, n, device="cuda") + 0.5 for _ in range(sets)]
        c = torch.empty(m, n, device="cuda")
        reference = torch.matmul(a[0].double(), b[0].double())
        flops = 2.0 * m * n * k
        entries = {"swath.sgemm": lambda i: swath.sgemm(a[i % sets], b[i % sets], c),
                   "torch.matmul": lambda i: torch.matmul(a[i % sets], b[i % sets], out=c)}
        if triton_mm is not None:
            entries["triton fp32"] = lambda i: triton_mm(a[i % sets], b[i % sets], c)
        for name, run in entries.items():
            c.fill_(float("nan"))
            run(0)
            error = ((c.double() - reference).abs() / reference.abs()).max().item()
            ok = error <= 2 * (k + 2) * 2.0 ** -24
            ms = timed(run, reps) if ok else float("nan")
            rows.append({"family": "gemm", "size": f"{m}x{n}x{k}", "what": name, "ms": ms,
                         "gflops": flops / ms / 1e6 if ok else None, "max_relative_error": error, "ok": ok})
    return rows


# ---- stencil --------------------------------------------------------------------------------------

def stencil_rows(n, reps, l2):
    x = torch.rand(n, n, n, device="cuda") + 0.5
    weights = [0.1, 0.15, 0.2, 0.1, 0.15, 0.2, 0.1]  # (z-1, y-1, x-1, centre, x+1, y+1, z+1) in swath's tap order
    order = [(-1, 0, 0), (0, -1, 0), (0, 0, -1), (0, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)]
    out = torch.empty_like(x)
    padded = torch.empty(n + 2, n + 2, n + 2, device="cuda")

    def slicing(_):  # clamp boundary: replicate padding, then seven shifted slices
        padded.copy_(torch.nn.functional.pad(x[None, None], (1, 1, 1, 1, 1, 1), mode="replicate")[0, 0])
        out.zero_()
        for (dz, dy, dx), w in zip(order, weights):
            out.add_(padded[1 + dz:1 + dz + n, 1 + dy:1 + dy + n, 1 + dx:1 + dx + n], alpha=w)

    kernel = torch.zeros(1, 1, 3, 3, 3, device="cuda")
    for (dz, dy, dx), w in zip(order, weights):
        kernel[0, 0, 1 + dz, 1 + dy, 1 + dx] = w

    def conv(_):
        out.copy_(torch.nn.functional.conv3d(torch.nn.functional.pad(x[None, None], (1, 1, 1, 1, 1, 1), mode="replicate"),
                                             kernel)[0, 0])

    entries = {"swath.stencil": lambda _: swath.stencil(x, weights=weights, out=out), "torch slicing": slicing,
               "torch conv3d": conv}
    swath.stencil(x, weights=weights, out=out)
    reference = out.clone()
    rows = []
    moved = 2.0 * 4 * n ** 3  # one read and one write of the grid
    for name, run in entries.items():
        out.fill_(float("nan"))
        run(0)
        error = ((out - reference).abs() / reference.abs()).max().item()
        ok = error <= 1e-5
        ms = timed(run, reps) if ok else float("nan")
        rows.append({"family": "stencil", "size": f"{n}^3 7-point float clamp", "what": name, "ms": ms,
                     "gbps": moved / ms / 1e6 if ok else None, "max_relative_error": error, "ok": ok})
    return rows


# ---- histogram ------------------------------------------------------------------------------------

def histogram_rows(count, reps):
    rows = []
    data = torch.randint(0, 256, (count,), dtype=torch.uint8, device="cuda")
    swath_counts, _ = swath.histogram(data)
    torch_counts = torch.bincount(data, minlength=256)
    ok = bool(torch.equal(swath_counts, torch_counts))
    for name, run in {"swath.histogram": lambda _: swath.histogram(data),
                      "torch.bincount": lambda _: torch.bincount(data, minlength=256)}.items():
        ms = timed(run, reps) if ok else float("nan")
        rows.append({"family": "histogram", "size": f"{count} bytes", "what": name, "ms": ms,
                     "gbps": count / ms / 1e6 if ok else None, "ok": ok})
    floats = torch.rand(count // 4, device="cuda") * 256
    s_counts, s_out = swath.histogram(floats, bins=256, range=(0.0, 256.0))
    h = torch.histc(floats, bins=256, min=0.0, max=256.0)
    # histc puts x == max in the last bin and swath leaves [lo, hi) half open; rand * 256 < 256.
    ok = bool(torch.equal(s_counts.double(), h.double())) and int(s_out) == 0
    for name, run in {"swath.histogram": lambda _: swath.histogram(floats, bins=256, range=(0.0, 256.0)),
                      "torch.histc": lambda _: torch.histc(floats, bins=256, min=0.0, max=256.0)}.items():
        ms = timed(run, reps) if ok else float("nan")
        rows.append({"family": "histogram", "size": f"{count // 4} float32, 256 bins", "what": name, "ms": ms,
                     "gbps": count / ms / 1e6 if ok else None, "ok": ok})
    return rows


# ---- per-call overhead ----------------------------------------------------------------------------

def overhead_rows(calls):
    a = torch.ones(256, device="cuda")
    b = torch.ones(256, device="cuda")
    c = torch.empty(256, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    for _ in range(100):
        swath.vector_add(a, b, c)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        swath.vector_add(a, b, c)
    python_us = (time.perf_counter() - start) / calls * 1e6
    torch.cuda.synchronize()
    cpp_us = swath._swath.time_vector_add_calls(a.data_ptr(), b.data_ptr(), c.data_ptr(), 256, calls, stream) * 1e6
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        torch.add(a, b, out=c)
    torch_us = (time.perf_counter() - start) / calls * 1e6
    torch.cuda.synchronize()
    return [{"family": "overhead", "size": "vector_add n=256", "what": "swath from Python", "us_per_call": python_us},
            {"family": "overhead", "size": "vector_add n=256", "what": "swath from C++", "us_per_call": cpp_us},
            {"family": "overhead", "size": "vector_add n=256", "what": "torch.add", "us_per_call": torch_us},
            {"family": "overhead", "size": "vector_add n=256", "what": "added by Python", "us_per_call": python_us - cpp_us}]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", required=True)
    parser.add_argument("--quick", action="store_true", help="fewer shapes and repetitions (a smoke run)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("compare.py: no CUDA device")
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    reps = 5 if args.quick else 30
    shapes = [(4096, 4096, 4096), (1000, 3000, 700)] if args.quick else \
        [(4096, 4096, 4096), (8192, 8192, 8192), (4095, 4095, 4095), (1000, 3000, 700), (8191, 257, 4099)]
    rows = sgemm_rows(shapes, reps, l2)
    rows += stencil_rows(256 if args.quick else 512, reps, l2)
    rows += histogram_rows((1 << 28) if args.quick else (1 << 30), reps)
    rows += overhead_rows(2000 if args.quick else 20000)
    result = {"gpu": props.name, "torch": torch.__version__, "swath": swath.info(), "rows": rows}
    try:
        import triton
        result["triton"] = triton.__version__
    except ImportError:
        pass
    with open(args.json, "w") as f:
        json.dump(result, f, indent=1)
    # The table, last: each row against the first of its family and size.
    print(f"{'family':10s} {'size':32s} {'what':18s} {'ms':>9s} {'rate':>10s}  vs swath")
    base = {}
    for r in rows:
        key = (r["family"], r["size"])
        if r["family"] == "overhead":
            print(f"{r['family']:10s} {r['size']:32s} {r['what']:18s} {r['us_per_call']:9.2f} us/call")
            continue
        rate = r.get("gflops") or r.get("gbps") or float("nan")
        unit = "GFLOP/s" if "gflops" in r else "GB/s"
        base.setdefault(key, r["ms"])
        versus = "" if r["what"].startswith("swath") else f"swath {r['ms'] / base[key]:5.2f}x as fast"
        print(f"{r['family']:10s} {r['size']:32s} {r['what']:18s} {r['ms']:9.3f} {rate:10.1f} {unit:8s} {versus}")

if __name__ == "__main__":
    main()
