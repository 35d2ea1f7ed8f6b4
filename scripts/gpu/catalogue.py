#!/usr/bin/env python3
"""Lists the mistake catalogue (checks/mistakes/NN/mistakes.toml) as `id<TAB>file<TAB>verdict`
lines, one per mistake, for the GPU scripts. Reads the catalogue's own simple form (file = "..."
and verdict = "..." in each [[mistake]]), so it needs no TOML library on the GPU machine.

    python3 scripts/gpu/catalogue.py [VERDICT]   # only the mistakes with this verdict
"""
import pathlib
import re
import sys

only = sys.argv[1] if len(sys.argv) > 1 else None
for toml in sorted(pathlib.Path("checks/mistakes").glob("*/mistakes.toml")):
    for entry in toml.read_text().split("[[mistake]]")[1:]:
        file = re.search(r'^file = "(.*)"', entry, re.M).group(1)
        verdict = re.search(r'^verdict = "(.*)"', entry, re.M).group(1)
        if only in (None, verdict):
            print(f"{toml.parent.name}\t{file}\t{verdict}")
