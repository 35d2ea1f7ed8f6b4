#!/usr/bin/env bash
# Every catalogued mistake (checks/mistakes/NN/mistakes.toml) checked on the GPU: the verdict the
# GPU gives beside the one the simulator must give. Bugs only the simulator sees (races, masks,
# barrier divergence, technique targets) pass or fail here by luck; the table shows which.
#
#   bash scripts/gpu/mistakes-on-gpu.sh        # prints the table, writes $OUT/mistakes-gpu.md
source "$(dirname "$0")/env.sh"
table=$OUT/mistakes-gpu.md
report=$OUT/mistake-report.json
{
    echo "| fixture | simulator must say | GPU says |"
    echo "| --- | --- | --- |"
} >"$table"
python3 "$(dirname "$0")/catalogue.py" | while IFS=$'\t' read -r id file want; do
    "$R" check "$id" --backend gpu --json-to "$report" --file "checks/mistakes/$id/$file" </dev/null >/dev/null 2>&1
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$report" 2>/dev/null || echo "(no report)")
    rm -f "$report"
    echo "| $id/$file | $want | $got |" >>"$table"
done
cat "$table"
python3 - "$table" <<'PY'
import sys
rows = [l.split("|")[1:4] for l in open(sys.argv[1]) if l.startswith("| ") and "/" in l]
same = sum(1 for _, want, got in rows if want.strip() == got.strip())
passed = sum(1 for *_, got in rows if got.strip() == "passed")
print(f"\n{len(rows)} fixtures: {same} get the simulator's verdict on the GPU, {passed} pass there")
PY
