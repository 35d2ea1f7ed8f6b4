#!/usr/bin/env bash
# Every GPU check of the runner in one go, for the device machine: run from the course root with
# the release binary at target/release/runner. Prints each command, its output and exit code,
# then a table of wall times.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$PWD/target/release/runner
export RUNNER_CACHE_DIR=$(mktemp -d)
export NO_COLOR=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
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
    table+=$(printf '%-34s rc=%-3s %6.2fs' "$name" "$rc" "$wall")$'\n'
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
step doctor $R doctor
for id in 01_thread_index 02_vector_add 03_ufunc 04_fused; do
    n=${id%%_*}
    step "pristine $n" $R check $n
done
# Solutions in place of the exercises, as a student who finished would have them.
cp -r solutions/. exercises/
step "check 02 cold (empty cache)" $R check 02
step "check 02 warm" $R check 02
step "check 02 warm again" $R check 02
for n in 01 03 04; do step "solution $n" $R check $n; done
step "check 02 --json" $R check 02 --json
for f in compile_error misnamed no_guard off_by_one far_out_of_bounds hang first_block_only; do
    step "fixture $f" $R check 02 --file runner/tests/fixtures/vector_add_$f.cu
done
step "runner usable after hang" $R check 01
step "list" $R list
cd scripts/gpu
step "nvcc build" nvcc -O3 -arch=sm_90 vector_add_nvcc.cu -o /tmp/vector_add
step "nvcc run" /tmp/vector_add
t0=$(date +%s.%N); nvcc -O3 -arch=sm_90 vector_add_nvcc.cu -o /tmp/vector_add2 && /tmp/vector_add2; t1=$(date +%s.%N)
table+=$(printf '%-34s        %6.2fs' "nvcc build+run (together)" "$(awk "BEGIN{print $t1 - $t0}")")$'\n'
echo
echo "$table"
