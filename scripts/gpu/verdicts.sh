#!/usr/bin/env bash
# The verdicts work on a GPU: dev check (every solution passes, every pristine file is not done,
# tuned references right), the mistake catalogue's verdicts on the GPU, and every mistake whose
# verdict is targets_missed timed beside its reference, measured and modelled, to show the
# technique it skips costs time on the hardware too.
#
#   OUT=/tmp/out bash scripts/gpu/verdicts.sh
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== dev check on the GPU"
"$R" dev check --backend gpu 2>&1 | tail -4
echo "== the catalogue on the GPU"
bash "$(dirname "$0")/mistakes-on-gpu.sh" | tail -2
echo "== technique mistakes, timed (scale 1, measured and modelled)"
for toml in checks/mistakes/*/mistakes.toml; do
    id=$(basename "$(dirname "$toml")")
    python3 - "$toml" <<'PY' | while read -r file; do
import re, sys
text = open(sys.argv[1]).read()
for entry in text.split("[[mistake]]")[1:]:
    if re.search(r'^verdict = "targets_missed"', entry, re.M):
        print(re.search(r'^file = "(.*)"', entry, re.M).group(1))
PY
        echo "-- $id/$file"
        "$R" bench --model --repeats 20 --scale 1 "$id" --file "checks/mistakes/$id/$file" 2>&1 |
            grep "^| $id\|could not"
    done
done
