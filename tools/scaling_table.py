#!/usr/bin/env python3
"""The efficiency table of distributed stencil runs (swath bench stencil --gpus N | --distributed JSON).

Usage: tools/scaling_table.py RUN.json... > scaling.md
One row a run: the transport, scaling, ranks, grid, type, halo, whether overlapped, the verification, the
one-device and N-rank times, the efficiency (strong: t1 / (N tN); weak: t1 / tN) beside the model's, the
exchange alone against the transport's own swap of one message of the same size, and then the model's
predictions for 2, 4 and 8 ranks of the largest run.
"""
import json
import sys


def main(paths):
    rows, model = [], None
    for path in paths:
        with open(path) as f:
            record = json.load(f)
        if record.get("kind") != "distributed-stencil":
            continue
        for row in record["rows"]:
            row["_file"] = path.rsplit("/", 1)[-1]
            rows.append(row)
            if model is None or row["ranks"] >= model[0]:
                model = (row["ranks"], row, record["model"])
    if not rows:
        print("no distributed-stencil runs given", file=sys.stderr)
        return 1
    rows.sort(key=lambda r: (r["transport"], r["scaling"], r["type"], r["halo_planes"], not r["overlap"], r["ranks"]))
    device = rows[0]["device"]
    print(f"Distributed stencil on {device} ({len(rows)} runs)\n")
    print("| run | transport | scaling | ranks | grid | type | halo | overlap | verified | 1 device ms | N ranks ms | "
          "efficiency | model | exchange ms | p2p GB/s | p2p / exchange | G cells/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    failed = 0
    for r in rows:
        grid = "x".join(str(e) for e in r["global"])
        verified = "bit for bit" if r["verified_bit_for_bit"] else f"NO ({r['mismatching_elements']})"
        failed += 0 if r["verified_bit_for_bit"] else 1
        print(f"| {r['_file'][:-5]} | {r['transport']} | {r['scaling']} | {r['ranks']} | {grid} | {r['type']} | {r['halo_planes']} | "
              f"{'yes' if r['overlap'] else 'no'} | {verified} | {1e3 * r['one_device_seconds']:.2f} | {1e3 * r['ranks_seconds']:.2f} | "
              f"{r['efficiency']:.3f} | {r['predicted_efficiency']:.3f} | {1e3 * r['exchange_seconds']:.3f} | {r['p2p_GBps']:.1f} | "
              f"{r['exchange_vs_p2p']:.2f} | {r['global_Gcells_per_s']:.1f} |")
    ranks, row, predictions = model
    print(f"\nThe model's predictions, from the {row['_file'][:-5]} run's one-device rate and link "
          f"({row['scaling']} scaling, {'x'.join(str(e) for e in row['global'])} at {ranks} ranks):\n")
    print("| ranks | link | GB/s | overlap | predicted efficiency |")
    print("|---|---|---|---|---|")
    for p in predictions:
        overlap = "-" if "overlap" not in p else ("yes" if p["overlap"] else "no")
        print(f"| {p['ranks']} | {p['link']} | {p['link_GBps']:.0f} | {overlap} | {p['efficiency']:.3f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
