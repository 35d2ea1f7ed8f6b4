#!/usr/bin/env python3
"""Memory instructions per kernel in the PTX and in the machine code that ran: sass_vs_ptx.py PTX SASS

PTX: kernels.ptx (what the simulator runs). SASS: `cuobjdump --dump-sass harness` (measure.sh's
sass.txt). Prints, per kernel, the static count of each kind of memory instruction with its width,
so that merged, split or removed accesses show (ptxas merges neighbouring shared loads of one thread
into one wide load, for instance).
"""
import re
import sys
from collections import Counter

PTX_OP = re.compile(r"^\s*(?:@!?%p\d+\s+)?(ld|st|atom|red)((?:\.[a-z0-9]+)+)\s")
SASS_OP = re.compile(r"^\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?((?:LDG|STG|LDS|STS|ATOMS|ATOMG|ATOM|RED|REDG|LD|ST)(?:\.[A-Z0-9_]+)*)\b")


def ptx_counts(path):
    kernels, name = {}, None
    for line in open(path):
        m = re.match(r"^\.visible \.entry (\w+)\(", line) or re.match(r"^\.entry (\w+)\(", line)
        if m:
            name = m.group(1)
            kernels[name] = Counter()
            continue
        m = PTX_OP.match(line)
        if m and name:
            op, rest = m.group(1), m.group(2).split(".")[1:]
            space = next((r for r in rest if r in ("global", "shared")), None)
            if space is None:
                continue
            vec = next((r for r in rest if re.match(r"v\d+$", r)), "")
            size = next((r for r in reversed(rest) if re.match(r"[busf]\d+$", r)), "")
            width = int(size[1:]) * (int(vec[1:]) if vec else 1) if size else 0
            kernels[name][f"{op}.{space}.{width}"] += 1
    return kernels


def sass_counts(path):
    kernels, name = {}, None
    for line in open(path):
        m = re.search(r"Function : (\w+)", line)
        if m:
            name = m.group(1)
            kernels[name] = Counter()
            continue
        m = SASS_OP.match(line)
        if m and name:
            kernels[name][m.group(1)] += 1
    return kernels


def main():
    ptx, sass = ptx_counts(sys.argv[1]), sass_counts(sys.argv[2])
    for name in ptx:
        p = " ".join(f"{k}x{v}" for k, v in sorted(ptx[name].items()))
        s = " ".join(f"{k}x{v}" for k, v in sorted(sass.get(name, {}).items()))
        print(f"{name}\n  PTX : {p}\n  SASS: {s}")


if __name__ == "__main__":
    main()
