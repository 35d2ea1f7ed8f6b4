#!/usr/bin/env bash
# The performance figures in one go, on a machine with an NVIDIA GPU: run from the course root
# with the release binary at target/release/runner. Where a check's wall time goes (RUNNER_TRACE),
# then `runner bench` (teaching and tuned references; BENCH=0 leaves it out). Arguments go to
# `runner bench`. Results land in $OUT (default /tmp/out).
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
cp solutions/02_vector_add/vector_add.cu exercises/02_vector_add/vector_add.cu
{
    for run in cold warm warm warm; do
        t0=$(date +%s.%N)
        RUNNER_TRACE=1 $R check 02 > /dev/null
        t1=$(date +%s.%N)
        echo "check 02 $run: $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s wall"
    done
} 2>&1 | tee "$OUT/check-02-trace.txt"
git checkout -q exercises/02_vector_add/vector_add.cu 2>/dev/null || true
echo "runner --version: $( { /usr/bin/time -f %e $R --version >/dev/null; } 2>&1 ) s wall"
[ "${BENCH:-1}" = 0 ] || { time $R bench "$@" | tee "$OUT/bench.md"; }
