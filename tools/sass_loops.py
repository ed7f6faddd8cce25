#!/usr/bin/env python3
"""Prints the main loop of every kernel in the given object files as ptxas scheduled it: for each
backward branch whose body holds at least --min-ffma FFMA instructions, the instruction count, FFMA,
LDS and register-reuse flags, and a digest of the instructions with addresses and branch targets
masked (the first 10 hex digits of an md5). Two builds whose loop has the same digest run the same
machine code in that loop, whatever else moved.

Why: the slice loop of the SGEMM's steps 14-16 is one source, and ptxas schedules it differently
with changes elsewhere in the kernel, ±1-3% of the whole product (docs/journal/gemm.md, step 16 v2 and v3).
A build prints what it compiled, so a change that moves a measured schedule shows before a GPU run.

usage: tools/sass_loops.py [--cuobjdump PATH] [--min-ffma N] OBJECT_OR_BINARY...
       tools/sass_loops.py --which   (the cuobjdump it would run, or exit 1)
       make sass   (the gemm objects of build/release)
cuobjdump: the one on the PATH, else the CUDA toolkit's, else NVIDIA's wheel (scripts/deps sass installs
it from PyPI where the toolkit has none).
"""
import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

INSTRUCTION = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);")
BRANCH_TARGET = re.compile(r"BRA\s.*?(0x[0-9a-f]+)")


def functions(sass):
    """{function name: [(address, instruction text)]} from `cuobjdump -sass` output."""
    current, found = None, {}
    for line in sass.splitlines():
        if "Function :" in line:
            current = line.split("Function :", 1)[1].strip()
            found[current] = []
            continue
        match = INSTRUCTION.match(line)
        if match and current is not None:
            found[current].append((int(match.group(1), 16), match.group(2).strip()))
    return found


def loops(instructions, min_ffma):
    """Each backward branch's body (target to branch, inclusive) with at least min_ffma FFMA, innermost
    only: a body that holds another such body (a loop around the slice loop) is left out."""
    index_of = {address: i for i, (address, _) in enumerate(instructions)}
    spans = []
    for i, (address, text) in enumerate(instructions):
        match = BRANCH_TARGET.search(text)
        if not match:
            continue
        target = int(match.group(1), 16)
        if target >= address or target not in index_of:
            continue
        if sum("FFMA" in t for _, t in instructions[index_of[target]:i + 1]) >= min_ffma:
            spans.append((index_of[target], i))
    for first, last in spans:
        if not any((a, b) != (first, last) and first <= a and b <= last for a, b in spans):
            yield [t for _, t in instructions[first:last + 1]]


def describe(body):
    masked = "\n".join(re.sub(r"0x[0-9a-f]+", "X", t) for t in body)
    return {
        "instructions": len(body),
        "ffma": sum("FFMA" in t for t in body),
        "lds": sum(bool(re.match(r"(@!?U?P\w+\s+)?LDS", t)) for t in body),
        "reuse": sum(t.count(".reuse") for t in body),
        "digest": hashlib.md5(masked.encode()).hexdigest()[:10],
    }


def readable(name):
    """The kernel's name without its namespace and the anonymous namespace's hash."""
    demangled = name
    if shutil.which("c++filt"):
        demangled = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip() or name
    demangled = re.sub(r"\(anonymous namespace\)::", "", demangled)
    return re.sub(r"swath::gemm::cuda::", "", demangled)


def find_cuobjdump():
    """The PATH's cuobjdump, the toolkit's, or the nvidia-cuda-cuobjdump wheel's (nvidia/cu*/bin); None."""
    candidates = [shutil.which("cuobjdump"), "/usr/local/cuda/bin/cuobjdump"]
    try:
        import nvidia  # the wheels' namespace package
        for root in nvidia.__path__:
            candidates += sorted(glob.glob(os.path.join(root, "cu*", "bin", "cuobjdump")), reverse=True)
    except ImportError:
        pass
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--cuobjdump", default=find_cuobjdump() or "cuobjdump")
    parser.add_argument("--min-ffma", type=int, default=1000)
    parser.add_argument("--which", action="store_true", help="print the cuobjdump that would run and exit")
    args = parser.parse_args()
    found = shutil.which(args.cuobjdump)
    if args.which:
        if not found:
            sys.exit(1)
        print(found)
        return
    if not args.files:
        parser.error("no object or binary given")
    if not found:
        sys.exit(f"sass_loops: cuobjdump not found at '{args.cuobjdump}' (part of the CUDA toolkit; "
                 "scripts/deps sass installs NVIDIA's wheel; or pass --cuobjdump PATH)")
    for path in args.files:
        result = subprocess.run([args.cuobjdump, "-sass", path], capture_output=True, text=True)
        if "does not contain device code" in result.stderr:
            continue
        if result.returncode != 0:
            sys.exit(f"sass_loops: {args.cuobjdump} -sass {path} failed: {result.stderr.strip()}")
        for name, instructions in functions(result.stdout).items():
            for body in loops(instructions, args.min_ffma):
                d = describe(body)
                print(f"{path.split('/')[-1]}  {readable(name)}\n    loop {d['instructions']} instructions, "
                      f"{d['ffma']} FFMA, {d['lds']} LDS, {d['reuse']} reuse flags, digest {d['digest']}")


if __name__ == "__main__":
    main()
