#!/usr/bin/env python3
"""Register-bank conflicts in the FMA-heavy loops of a kernel's SASS: for each loop (a backward branch)
holding more than 500 FFMAs, how many FFMAs read two or three source registers from one bank that no
operand-reuse flag covers. Hopper's register file has two banks (register number mod 2); such an FFMA
waits a cycle at dispatch, which Nsight Compute counts as a dispatch stall.

usage: cuobjdump -sass KERNELS.cubin > kernels.sass   (or: cuobjdump -sass build/.../file.cu.o)
       tools/sass_bank_conflicts.py kernels.sass
prints, per kernel and FMA loop: instructions, FFMAs, FFMAs with 2 and with 3 sources in one bank.
"""
import re
import sys
from collections import Counter

INSTRUCTION = re.compile(r"\s+/\*([0-9a-f]+)\*/\s+(.*?);")
BRANCH_TARGET = re.compile(r"BRA.*?(0x[0-9a-f]+)")
REGISTER = re.compile(r"-?\|?R(\d+)(\.reuse)?")


def functions(text):
    """(name, [(address, instruction)]) for each function in cuobjdump's output."""
    for part in re.split(r"\n\s+Function : ", text)[1:]:
        name = part.split("\n", 1)[0].strip()
        body = []
        for line in part.split("\n"):
            match = INSTRUCTION.match(line)
            if match:
                body.append((int(match.group(1), 16), match.group(2).strip()))
        yield name, body


def fma_loops(body, least_ffmas=500):
    """The instructions of every innermost loop (from a backward branch's target to the branch) with
    many FFMAs; an outer loop around one (a persistent kernel's) is left out."""
    at = {address: i for i, (address, _) in enumerate(body)}
    spans = []
    for i, (address, text) in enumerate(body):
        match = BRANCH_TARGET.search(text)
        if not match:
            continue
        target = int(match.group(1), 16)
        if target < address and target in at:
            if sum(t.startswith("FFMA") for _, t in body[at[target]:i + 1]) > least_ffmas:
                spans.append((at[target], i))
    for first, last in spans:
        if not any(first <= f and l <= last and (f, l) != (first, last) for f, l in spans):
            yield [t for _, t in body[first:last + 1]]


def same_bank_sources(ffma):
    """The largest number of this FFMA's non-reused source registers that share a bank."""
    operands = [o.strip() for o in ffma.split(None, 1)[1].split(",")][1:]
    banks = Counter()
    for operand in operands:
        match = REGISTER.match(operand)
        if match and match.group(1) != "255" and not match.group(2):  # R255 is RZ's alias; .reuse: cached
            banks[int(match.group(1)) % 2] += 1
    return max(banks.values(), default=0)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    text = open(sys.argv[1]).read()
    for name, body in functions(text):
        for loop in fma_loops(body):
            ffmas = [t for t in loop if t.startswith("FFMA")]
            worst = Counter(same_bank_sources(f) for f in ffmas)
            print(f"{name}\n  {len(loop)} instructions, {len(ffmas)} FFMA, "
                  f"{worst[2]} with 2 sources in one bank, {worst[3]} with 3")


if __name__ == "__main__":
    main()
