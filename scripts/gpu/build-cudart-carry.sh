#!/usr/bin/env bash
# Builds what scripts/gpu/cudart.sh runs on the GPU machine into .device/cudart (ignored by git;
# carried): the runtime test programs with the course's nvcc (scripts/install-nvcc), its
# libcudart.so.13, and a stripped libsimcuda.so (from `cargo build -p simdriver`).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/.device/cudart
nvcc=$root/.nvcc/bin/nvcc
mkdir -p "$out"
for program in vector_add errors events streams symbols fault pitched; do
    "$nvcc" -gencode arch=compute_80,code=compute_80 "$root/driver/tests/cuda_runtime/$program.cu" \
        -o "$out/${program}_static"
done
"$nvcc" -cudart shared -gencode arch=compute_80,code=compute_80 \
    "$root/driver/tests/cuda_runtime/vector_add.cu" -o "$out/vector_add_shared"
cp "$root/.nvcc/lib/libcudart.so.13" "$out/"
strip -o "$out/libsimcuda.so" "$root/target/debug/libsimcuda.so"
