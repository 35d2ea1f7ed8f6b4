#!/usr/bin/env bash
# Validation of the simulator's modelled time (sim::GpuModel) against event-timed kernels, on a
# machine with an NVIDIA GPU, from the course root with the release runner at target/release/runner.
# Every reference and tuned reference on the check's own timing case (scale 1: the simulator runs
# it in seconds), the short one-dimensional cases again at scale 4, then a deliberately slow
# variant (scripts/gpu/model-fixtures/) beside its exercise's reference, and every technique
# mistake of the catalogue (verdict targets_missed in checks/mistakes/*/mistakes.toml) beside
# its reference. Each kernel runs on the GPU and in the simulator on the same case. Tables to
# stdout, JSON to $OUT.
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,clocks.max.mem --format=csv
echo "CPU threads: $(nproc)"
B="$R bench --model --repeats 20"
$B --scale 1 --save "$OUT/scale1.json" 2>&1 | grep -v "^  timed"
$B --scale 4 01 13 19 20 22 --save "$OUT/scale4.json" 2>&1 | grep -v "^  timed" | sed -n '/^Modelled/,$p'
# 19 with blockDim.x in its interleaved loop; the catalogue's mistakes below cover the rest.
file=scripts/gpu/model-fixtures/reduce_interleaved_modulo.cu
echo "== variant $file"
$B --scale 1 19 --file "$file" --save "$OUT/variant-19.json" 2>&1 | grep -v "^  timed" | grep "^| 19\|could not"
echo "== technique mistakes (verdict targets_missed), each as yours beside its exercise"
python3 "$(dirname "$0")/catalogue.py" targets_missed | while IFS=$'\t' read -r id file _; do
    echo "-- $id/$file"
    $B --scale 1 "$id" --file "checks/mistakes/$id/$file" </dev/null 2>&1 | grep "^| $id\|could not"
done
