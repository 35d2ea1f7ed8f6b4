#!/usr/bin/env bash
# The SASS of the atomics the book describes (book/src/atomics.md, the cheat sheet): a histogram on
# global memory, a float sum, atomicAdd on float2 and __half2. Run from the course root on a
# machine with the CUDA toolkit; result in $OUT/atomics-sass.txt.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d)
nvcc -cubin -O3 -arch=sm_90 -o "$W/a.cubin" scripts/gpu/book/atomics_sass.cu &&
    cuobjdump -sass "$W/a.cubin" | grep -E "Function|ATOM|RED|VOTE|POPC|MATCH|BRA|LDG|HADD2" \
        > "$OUT/atomics-sass.txt" 2>&1
