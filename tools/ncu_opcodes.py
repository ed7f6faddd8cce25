#!/usr/bin/env python3
"""Sum an Nsight Compute source page by SASS opcode: how many warp instructions each opcode executed
and where the warps' stall samples fell.

Input: the CSV of `ncu -i REPORT --page source --print-source sass --csv` for a report taken with
`--section SourceCounters`. Output (stdout): the opcodes by instructions executed, with their share of
the instructions and of the stall samples, then each stall reason's share of the samples with the
opcodes that carry most of it. The bench/results/*/ncu/*-opcodes.txt files were written by this.

Usage: tools/ncu_opcodes.py SOURCE.csv [--top N]
"""
import argparse
import collections
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def opcode(source):
    """The opcode of a SASS line without its predicate and modifiers: '@!P4 BRA 0x...' -> 'BRA'."""
    words = source.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="ncu --page source --print-source sass --csv output")
    parser.add_argument("--top", type=int, default=30, help="opcodes to list (default 30)")
    args = parser.parse_args()

    with open(args.csv, newline="") as handle:
        rows = list(csv.reader(handle))
    # The first row names the kernel, the second holds the column names.
    header = next((row for row in rows if "Source" in row and "Instructions Executed" in row), None)
    if header is None:
        sys.exit(f"{args.csv}: no 'Source' and 'Instructions Executed' columns (was the report taken with SourceCounters?)")
    column = {name: i for i, name in enumerate(header)}
    stalls = [name for name in header if name.startswith("stall_") and "Not Issued" not in name]

    instructions = collections.Counter()
    samples = collections.Counter()
    stall_by_opcode = collections.defaultdict(collections.Counter)
    for row in rows[rows.index(header) + 1:]:
        if len(row) < len(header):
            continue
        op = opcode(row[column["Source"]].strip())
        instructions[op] += number(row[column["Instructions Executed"]])
        samples[op] += number(row[column["Warp Stall Sampling (All Samples)"]])
        for name in stalls:
            stall_by_opcode[name][op] += number(row[column[name]])

    total_instructions = sum(instructions.values()) or 1.0
    total_samples = sum(samples.values()) or 1.0
    print("instructions", f"{total_instructions:.0f}", "samples", f"{total_samples:.0f}")
    for op, count in instructions.most_common(args.top):
        print(f"{op:12s} {count:14.0f} {count / total_instructions * 100:5.1f}%  samples {samples[op] / total_samples * 100:5.1f}%")
    print()
    reasons = sorted(stalls, key=lambda name: -sum(stall_by_opcode[name].values()))
    for name in reasons:
        share = sum(stall_by_opcode[name].values()) / total_samples * 100
        if share == 0:
            continue
        top = ", ".join(f"{op} {count / total_samples * 100:.1f}" for op, count in stall_by_opcode[name].most_common(4))
        print(f"{name:28s} {share:5.1f}%  top ops: {top}")


if __name__ == "__main__":
    main()
