#!/usr/bin/env bash
# Every GPU check of the runner in one go (the bench is in perf.sh), for a machine with an NVIDIA
# GPU: run from the course root with the release binary at target/release/runner. Prints each
# command, its output and exit code, then a table of wall times. Results land in $OUT.
source "$(dirname "$0")/env.sh"
table=""
step() { # name, command...
    local name=$1; shift
    echo "=== $name: $*"
    local t0=$(date +%s.%N)
    timeout 120 "$@"
    local rc=$?
    local t1=$(date +%s.%N)
    local wall=$(awk "BEGIN{print $t1 - $t0}")
    echo "=== rc=$rc wall=${wall}s"
    table+=$(printf '%-40s rc=%-3s %6.2fs' "$name" "$rc" "$wall")$'\n'
}
ids=$($R list --json | python3 -c 'import json,sys; print(" ".join(e["id"] for e in json.load(sys.stdin)["exercises"]))')
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
step doctor $R doctor
step "dev check on the GPU (solutions, pristines, tuned references)" $R dev check --backend gpu
for n in $ids; do step "pristine $n (must fail)" $R check $n; done
# Solutions in place of the exercises, as a student who finished would have them.
for d in solutions/*/; do [ "$d" = solutions/tuned/ ] || cp -r "$d" exercises/; done
step "check 02 cold (empty cache)" $R check 02
step "check 02 warm" $R check 02
step "check 02 warm again" $R check 02
for n in $ids; do
    step "solution $n gpu" $R check $n --save-outputs /tmp/outputs/gpu
    step "solution $n sim" $R check $n --backend sim --save-outputs /tmp/outputs/sim
done
python3 scripts/gpu/compare_outputs.py /tmp/outputs/gpu /tmp/outputs/sim exercises/exercises.toml | tee $OUT/agreement.md
step "check 02 --json" $R check 02 --json
for f in compile_error misnamed no_guard off_by_one far_out_of_bounds hang first_block_only; do
    step "fixture $f" $R check 02 --file runner/tests/fixtures/vector_add_$f.cu
done
step "runner usable after hang" $R check 01
cd scripts/gpu
t0=$(date +%s.%N); nvcc -O3 -arch=sm_90 vector_add_nvcc.cu -o /tmp/vector_add && /tmp/vector_add; t1=$(date +%s.%N)
table+=$(printf '%-40s        %6.2fs' "nvcc build+run vector add" "$(awk "BEGIN{print $t1 - $t0}")")$'\n'
echo
echo "$table" | tee $OUT/table.txt
