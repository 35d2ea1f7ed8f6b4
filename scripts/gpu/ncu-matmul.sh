#!/usr/bin/env bash
# Why the teaching matrix multiply (17) stays far from cuBLAS: Nsight Compute's pipe figures for
# its launches in `runner check 17` (the 1024 x 2048 x 1024 timing case is the largest grid).
# Run from the course root with target/release/runner; output in $OUT/ncu-matmul.csv.
source "$(dirname "$0")/env.sh"
cp solutions/17_matmul_tiled/matmul_tiled.cu exercises/17_matmul_tiled/matmul_tiled.cu
metrics=gpu__time_duration.sum
metrics+=,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed
metrics+=,smsp__inst_executed_op_shared_ld.sum
metrics+=,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio
metrics+=,smsp__average_warp_latency_issue_stalled_barrier.ratio
metrics+=,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio
metrics+=,launch__grid_size
ncu --clock-control none -k regex:matmul_tiled -c 12 \
    --metrics "$metrics" --csv $R check 17 > "$OUT/ncu-matmul.csv" 2> "$OUT/ncu-matmul.err"
echo "ncu rc=$?"
git checkout -q exercises/17_matmul_tiled/matmul_tiled.cu 2>/dev/null || true
python3 - "$OUT/ncu-matmul.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, body = rows[0], rows[1:]
i_id, i_name, i_val = head.index("ID"), head.index("Metric Name"), head.index("Metric Value")
by_id = {}
for r in body:
    by_id.setdefault(r[i_id], {})[r[i_name]] = r[i_val]
biggest = max(by_id.values(), key=lambda m: float(m["launch__grid_size"].replace(",", "")))
for name, value in biggest.items():
    print(f"{name:70s} {value}")
PY
