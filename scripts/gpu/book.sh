#!/usr/bin/env bash
# The book's GPU figures, in one go: the programs of scripts/gpu/book/ built with nvcc and run
# (error checking, compute capability, Unified Memory, streams and graphs, clusters and grid sync,
# half precision, which calls wait for queued work), Nsight Compute on exercise 13, the SASS that
# the book's claims rest on, and cuBLAS in four precisions through PyTorch. Nsight Systems is book-nsys.sh, the atomics' SASS
# book-atomics.sh.
# Run from the course root on a machine with the CUDA toolkit; results in $OUT (default /tmp/out),
# copied by hand to scripts/gpu/results/book/.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
B=scripts/gpu/book
W=$(mktemp -d)
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    nvcc --version | tail -2
    ncu --version | tail -1
} > "$OUT/env.txt" 2>&1

build() { # output, sources and flags
    local out=$1; shift
    nvcc -O3 -arch=sm_90 -I$B -o "$W/$out" "$@" || echo "BUILD FAILED: $out"
}
build errors $B/errors.cu &
build unified $B/unified.cu &
build streams_graphs $B/streams_graphs.cu &
build clusters $B/clusters.cu &
build half_tensor $B/half_tensor.cu &
build implicit_sync $B/implicit_sync.cu &
build rowsums_naive -DKERNEL_FILE='"../../../checks/mistakes/13/one_thread_per_row.cu"' $B/rowsums_profile.cu &
build rowsums_solution -DKERNEL_FILE='"../../../solutions/13_row_column_sums/sums.cu"' $B/rowsums_profile.cu &
for t in sm_90:arch=compute_90,code=sm_90 sm_80:arch=compute_80,code=sm_80 \
    compute_80:arch=compute_80,code=compute_80 compute_100:arch=compute_100,code=compute_100; do
    name=${t%%:*}
    nvcc -I$B -gencode "${t#*:}" -DBUILT_FOR="\"$name\"" -o "$W/compat_$name" $B/compat.cu &
done
wait

{
    for p in errors unified streams_graphs clusters half_tensor implicit_sync rowsums_naive rowsums_solution; do
        echo "=== $p"; timeout 120 "$W/$p"; echo "=== exit $?"
    done
    echo "=== compat"
    for name in sm_90 sm_80 compute_80 compute_100; do timeout 60 "$W/compat_$name"; done
} > "$OUT/programs.txt" 2>&1

metrics=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
for v in naive solution; do
    echo "=== ncu rowsums_$v"
    timeout 180 ncu --clock-control none -k row_sums --launch-skip 1 -c 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
        --section LaunchStats --section Occupancy --metrics $metrics "$W/rowsums_$v"
done > "$OUT/ncu-rowsums.txt" 2>&1

{
    sass() { # title, source and flags
        echo "=== $1"; shift
        nvcc -cubin -O3 -arch=sm_90 -I$B -o "$W/x.cubin" "$@" && cuobjdump -sass "$W/x.cubin" > "$W/x.sass"
        grep -oE '\b(LDS|STS|LDG|STG|ATOMS|ATOMG|REDG|RED|VOTEU|VOTE|POPC|HFMA2|HMMA|MAPA|LD|ST|BAR|UCGABAR_ARV|UCGABAR_WAIT|CCTL)(\.[A-Z0-9_]+)*\b' \
            "$W/x.sass" | sort | uniq -c
    }
    sass "solutions/17 matmul_tiled" solutions/17_matmul_tiled/matmul_tiled.cu
    sass "mistakes/19 interleaved_index" checks/mistakes/19/interleaved_index.cu
    sass "solutions/07 count_above" solutions/07_racy_counter/count_above.cu
    sass "solutions/08 histogram" solutions/08_histogram/histogram.cu
    sass "book half_tensor" $B/half_tensor.cu
    sass "book clusters" $B/clusters.cu
    echo "=== half_tensor SASS of the two kernels"; nvcc -cubin -O3 -arch=sm_90 -I$B -o "$W/h.cubin" $B/half_tensor.cu &&
        cuobjdump -sass "$W/h.cubin" | grep -E "Function|HFMA2|HMMA|LDG|STG"
} > "$OUT/sass.txt" 2>&1

timeout 180 python3 $B/matmul_precisions.py > "$OUT/matmul.txt" 2>&1
echo "done; files in $OUT:"; ls -la "$OUT"
