#!/usr/bin/env bash
# Validation of the simulator's modelled time (sim::GpuModel) against event-timed kernels, on a
# machine with an NVIDIA GPU, from the course root with the release runner at target/release/runner.
# Every reference and tuned reference on the check's own timing case (scale 1: the simulator runs
# it in seconds), the short one-dimensional cases again at scale 4, then deliberately slow
# variants (scripts/gpu/model-fixtures/) beside their exercise's reference, and every technique
# mistake of the catalogue (verdict targets_missed in checks/mistakes/*/mistakes.toml) beside
# its reference. Each kernel runs on the GPU and in the simulator on the same case. Tables to
# stdout, JSON to $OUT.
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,clocks.max.mem --format=csv
echo "CPU threads: $(nproc)"
B="$R bench --model --repeats 20"
$B --scale 1 --save "$OUT/scale1.json" 2>&1 | grep -v "^  timed"
$B --scale 4 01 13 19 20 22 --save "$OUT/scale4.json" 2>&1 | grep -v "^  timed" | sed -n '/^Modelled/,$p'
for v in 13:row_sums_thread_per_row 18:transpose_bank_conflicts 19:reduce_interleaved_modulo 20:reduce_shared_tree; do
    id=${v%%:*}; file=scripts/gpu/model-fixtures/${v#*:}.cu
    echo "== variant $file"
    $B --scale 1 "$id" --file "$file" --save "$OUT/variant-$id.json" 2>&1 | grep -v "^  timed" | grep "^| $id\|could not"
done
echo "== technique mistakes (verdict targets_missed), each as yours beside its exercise"
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
        $B --scale 1 "$id" --file "checks/mistakes/$id/$file" 2>&1 | grep "^| $id\|could not"
    done
done
