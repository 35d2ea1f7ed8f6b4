#!/usr/bin/env python3
"""Compares the outputs two backends wrote with `runner check NN --save-outputs DIR`.

compare_outputs.py GPU_DIR SIM_DIR exercises/exercises.toml
Prints, per exercise, how many output buffers are bit for bit equal and how many agree within the
exercise's tolerance; exits 1 if any buffer differs beyond it.
"""
import math
import re
import struct
import sys
from pathlib import Path

FORMATS = {"float": "f", "double": "d", "int": "i", "unsigned_int": "I", "unsigned_char": "B"}


def tolerances(toml_text):
    """Per exercise id, (abs, rel) from `tolerance = { abs = .., rel = .. }` (default 1e-6, 1e-5)."""
    found = {}
    for block in toml_text.split("[[exercise]]")[1:]:
        ident = re.search(r'id\s*=\s*"(\d+)"', block).group(1)
        tol = re.search(r"tolerance\s*=\s*\{([^}]*)\}", block)
        abs_tol, rel_tol = 1e-6, 1e-5
        if tol:
            fields = dict(re.findall(r"(abs|rel)\s*=\s*([-+0-9.eE]+)", tol.group(1)))
            abs_tol = float(fields.get("abs", 0.0))
            rel_tol = float(fields.get("rel", 0.0))
        found[ident] = (abs_tol, rel_tol)
    return found


def values(path):
    code = FORMATS[path.suffix[1:]]
    data = path.read_bytes()
    size = struct.calcsize(code)
    return struct.unpack("<%d%s" % (len(data) // size, code), data)


def main():
    gpu_dir, sim_dir, toml_path = map(Path, sys.argv[1:4])
    tol = tolerances(toml_path.read_text())
    failed = False
    print("| exercise | buffers | bit for bit | within tolerance | largest difference |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for exercise in sorted(p for p in gpu_dir.iterdir() if p.is_dir()):
        abs_tol, rel_tol = tol.get(exercise.name, (1e-6, 1e-5))
        total = identical = close = 0
        largest = 0.0
        for gpu_file in sorted(exercise.rglob("*.*")):
            sim_file = sim_dir / gpu_file.relative_to(gpu_dir)
            if not sim_file.exists():
                continue
            total += 1
            if gpu_file.read_bytes() == sim_file.read_bytes():
                identical += 1
                close += 1
                continue
            a, b = values(gpu_file), values(sim_file)
            ok = len(a) == len(b)
            for x, y in zip(a, b):
                if isinstance(x, float) and (math.isnan(x) or math.isnan(y)):
                    ok &= math.isnan(x) and math.isnan(y)
                    continue
                diff = abs(x - y)
                largest = max(largest, diff)
                ok &= diff <= abs_tol + rel_tol * abs(x)
            close += ok
            failed |= not ok
        print(f"| {exercise.name} | {total} | {identical} | {close} | {largest:.3g} |")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
