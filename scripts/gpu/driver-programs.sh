#!/usr/bin/env bash
# On the device machine: the driver tests' CUDA runtime programs (driver/tests/cuda_runtime/) built
# with the toolkit's nvcc and run on NVIDIA's driver, for what the simulated driver must print too.
set -euo pipefail
cd "$(dirname "$0")/../../driver/tests/cuda_runtime"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1 | sed 's/^/# /'
for p in "${@:-graph managed mapped cooperative}"; do
    for name in $p; do
        nvcc -gencode arch=compute_90,code=sm_90 -o "/tmp/$name" "$name.cu"
        echo "== $name"
        "/tmp/$name"
    done
done
