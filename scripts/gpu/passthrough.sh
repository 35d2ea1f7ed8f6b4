#!/usr/bin/env bash
# Pass-through mode on a GPU: the cudarc example (driver/examples/cudarc_vector_add.rs) under
# `runner run --backend gpu` (NVIDIA's driver behind the simulator's library, times measured with
# events) and `--backend sim` (the simulator, times modelled), and a table comparing the two
# records' counts and timelines. Needs, from `cargo build --release -p runner -p simdriver
# --example cudarc_vector_add`: target/release/runner, libsimcuda.so and examples/cudarc_vector_add.
# Writes $OUT/passthrough.md (kept in scripts/gpu/results/passthrough.md).
source "$(dirname "$0")/env.sh"
example=target/release/examples/cudarc_vector_add
ptx=sim/tests/fixtures/vector_add.ptx
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for backend in sim gpu; do
    echo "=== runner run --backend $backend -- $example $ptx"
    timeout 120 $R run --backend $backend -- $example $ptx 2>&1 | tee "$OUT/passthrough-$backend.txt"
    echo "=== rc=${PIPESTATUS[0]}"
    timeout 120 $R run --json --backend $backend -- $example $ptx >"$OUT/passthrough-$backend.json" 2>&1
done
# CUDA loads a module's kernels at their first launch by default (lazy loading): the measured
# launch then includes the loading. Eagerly loaded, the launch is the kernel and its latency.
echo "=== CUDA_MODULE_LOADING=EAGER runner run --backend gpu -- $example $ptx"
CUDA_MODULE_LOADING=EAGER timeout 120 $R run --json --backend gpu -- $example $ptx \
    >"$OUT/passthrough-gpu-eager.json" 2>&1
table=$(dirname "$0")/passthrough_table.py
{
    echo "## The cudarc example: simulator (modelled) and H100 through pass-through (measured)"
    echo
    python3 "$table" "$OUT/passthrough-sim.json" "$OUT/passthrough-gpu.json"
    echo
    echo "## The same with CUDA_MODULE_LOADING=EAGER (no module loading in the first launch)"
    echo
    python3 "$table" "$OUT/passthrough-sim.json" "$OUT/passthrough-gpu-eager.json"
} | tee "$OUT/passthrough.md"
