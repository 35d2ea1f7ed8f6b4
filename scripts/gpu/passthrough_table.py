#!/usr/bin/env python3
"""Compares two records of `runner run --json` for one program, the simulator's (modelled times)
and pass-through mode's on a GPU (measured times): calls, transfers, launches, synchronisations
and leaked bytes, then each operation on the two timelines, in the order they start."""
import json
import sys


def record(path):
    """The record: the JSON object after whatever the program printed."""
    text = open(path).read()
    return json.loads(text[text.index("{\n"):])


def operations(r):
    ops = [(t["start_us"], t["end_us"], f"{t['direction']} {t['bytes']} B" + (" pinned" if t["pinned"] else ""))
           for t in r["transfers"]]
    ops += [(l["start_us"], l["end_us"], f"kernel {l['kernel']}") for l in r["launches"]]
    return sorted(ops)


def main(sim_path, gpu_path):
    sim, gpu = record(sim_path), record(gpu_path)
    print(f"| | sim ({sim['timeline']}) | gpu ({gpu['timeline']}) |")
    print("| --- | --- | --- |")
    rows = [
        ("calls", sum(sim["calls"].values()), sum(gpu["calls"].values())),
        ("transfers (copies and memsets)", len(sim["transfers"]), len(gpu["transfers"])),
        ("launches", len(sim["launches"]), len(gpu["launches"])),
        ("synchronisations", sim["synchronisations"], gpu["synchronisations"]),
        ("failures", len(sim["failures"]), len(gpu["failures"])),
        ("leaked bytes", sim["leaked_bytes"], gpu["leaked_bytes"]),
    ]
    for name, s, g in rows:
        print(f"| {name} | {s} | {g} |")
    names = sorted(set(sim["calls"]) | set(gpu["calls"]))
    differ = [(n, sim["calls"].get(n, 0), gpu["calls"].get(n, 0)) for n in names
              if sim["calls"].get(n, 0) != gpu["calls"].get(n, 0)]
    if differ:
        print("\nEntry points called a different number of times:\n")
        print("| entry point | sim | gpu |\n| --- | --- | --- |")
        for n, s, g in differ:
            print(f"| {n} | {s} | {g} |")
    print("\nTimeline, µs from the first operation (sim: modelled from the first call):\n")
    print("| operation | sim start | sim end | sim µs | gpu start | gpu end | gpu µs |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    s_ops, g_ops = operations(sim), operations(gpu)
    for i in range(max(len(s_ops), len(g_ops))):
        s = s_ops[i] if i < len(s_ops) else None
        g = g_ops[i] if i < len(g_ops) else None
        label = (s or g)[2] if (s and g and s[2] == g[2]) or not (s and g) else f"{s[2]} / {g[2]}"
        cells = []
        for op in (s, g):
            cells += [f"{op[0]:.1f}", f"{op[1]:.1f}", f"{op[1] - op[0]:.1f}"] if op else ["", "", ""]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(*sys.argv[1:3])
