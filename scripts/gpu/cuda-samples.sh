#!/usr/bin/env bash
# On the device machine (issue 26): NVIDIA's cuda-samples as scripts/cuda-samples built them here
# (compute_80 PTX, cudart static), each run on NVIDIA's driver alone and then under
# `runner run --backend gpu` (the simulator's library passing through to NVIDIA's driver), and
# CuPy's smoke test (scripts/cupy_smoke.py, with the machine's own CuPy) both ways. Needs the
# carried folder DIR (default .device/dsamples): runner, libsimcuda.so, libsimnvrtc.so, and one
# folder per sample with its program and data. Writes $OUT/samples.txt, $OUT/cupy.txt and the
# runs' outputs in $OUT/logs.tgz.
set -u
dir=$(cd "${1:-.device/dsamples}" && pwd)
OUT=${OUT:-/tmp/out}
logs=$(mktemp -d)
mkdir -p "$OUT"
export NO_COLOR=1
one() {
    local name=$1 verdict
    cd "$dir/samples/$name" || return
    timeout 30 "./$name" >"$logs/native-$name.log" 2>&1
    verdict="native rc=$?"
    timeout 60 "$dir/runner" run --backend gpu -- "./$name" >"$logs/gpu-$name.log" 2>&1
    echo "$name: $verdict, pass-through rc=$?"
}
export -f one
export dir logs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/samples.txt"
ls "$dir/samples" | xargs -P 8 -I{} bash -c 'one {}' | sort | tee -a "$OUT/samples.txt"
{
    echo "=== CuPy natively"
    timeout 60 python3 scripts/cupy_smoke.py 2>&1
    echo "rc=$?"
    echo "=== CuPy under runner run --backend gpu"
    timeout 90 "$dir/runner" run --backend gpu -- python3 scripts/cupy_smoke.py 2>&1
    echo "rc=$?"
} | tee "$OUT/cupy.txt"
tar -czf "$OUT/logs.tgz" -C "$logs" .
