#!/usr/bin/env bash
# The CUDA runtime on a GPU: nvcc-built programs (driver/tests/cuda_runtime/*.cu, cudart 13
# static, and vector_add with cudart shared) run on NVIDIA's driver alone, then through the
# simulator's libsimcuda.so in pass-through mode (SIMCUDA_BACKEND=gpu). Their outputs should be
# the same; each pass-through record is kept. Needs the folder scripts/gpu/build-cudart-carry.sh
# makes here (.device/cudart, carried). Writes $OUT/cudart.txt and $OUT/<program>.json.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
dir=$(cd "${1:-.device/cudart}" && pwd)
real=$(ldconfig -p | awk '/libcuda\.so\.1 / {print $NF; exit}')
links=$(mktemp -d)
ln -s "$dir/libsimcuda.so" "$links/libcuda.so.1"
ln -s "$dir/libsimcuda.so" "$links/libcuda.so"
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    for exe in "$dir"/*_static "$dir"/*_shared; do
        name=$(basename "$exe")
        echo "=== $name on NVIDIA's driver ($real)"
        LD_LIBRARY_PATH=$dir timeout 60 "$exe" 2>&1
        echo "rc=$?"
        echo "=== $name through libsimcuda.so in pass-through mode"
        LD_LIBRARY_PATH=$links:$dir SIMCUDA_BACKEND=gpu SIMCUDA_REAL_LIBCUDA=$real \
            SIMCUDA_REPORT="$OUT/$name.json" timeout 60 "$exe" 2>&1
        echo "rc=$?"
    done
} | tee "$OUT/cudart.txt"
