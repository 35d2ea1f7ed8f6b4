#!/usr/bin/env bash
# Every catalogued correct variant (checks/variants/NN/variants.toml) that the GPU machine can
# build, checked on the GPU: each must pass there too, where the time targets are measured
# rather than modelled. Kernel files (.cu of exercises 01-24) and the C++ track's programs run;
# Rust and Python programs need a toolchain or a venv the GPU machine does not have.
#
#   bash scripts/gpu/variants-on-gpu.sh    # prints the table, writes $OUT/variants-gpu.md
source "$(dirname "$0")/env.sh"
table=$OUT/variants-gpu.md
report=$OUT/variant-report.json
{
    echo "| variant | GPU says | missed or failed |"
    echo "| --- | --- | --- |"
} >"$table"
python3 - <<'PY' | while IFS=$'\t' read -r id file; do
import pathlib, re
for toml in sorted(pathlib.Path("checks/variants").glob("*/variants.toml")):
    for entry in toml.read_text().split("[[variant]]")[1:]:
        file = re.search(r'^file = "(.*)"', entry, re.M).group(1)
        if file.endswith(".cu"):
            print(f"{toml.parent.name}\t{file}")
PY
    "$R" check "$id" --backend gpu --json-to "$report" --file "checks/variants/$id/$file" </dev/null >/dev/null 2>&1
    read -r got why < <(python3 - "$report" <<'PY' 2>/dev/null || echo "(no report)"
import json, sys
r = json.load(open(sys.argv[1]))
missed = [t.get("name", "?") + " " + str(round(t.get("actual") or 0, 2)) for t in r.get("targets", []) if t.get("decides", True) and not t.get("met", True)]
print(r["verdict"], "; ".join(missed) or "-")
PY
)
    rm -f "$report"
    echo "| $id/$file | $got | $why |" >>"$table"
done
cat "$table"
python3 - "$table" <<'PY'
import sys
rows = [l.split("|")[1:3] for l in open(sys.argv[1]) if l.startswith("| ") and "/" in l]
passed = sum(1 for _, got in rows if got.strip() == "passed")
print(f"\n{len(rows)} correct variants checked on the GPU: {passed} pass there")
PY
