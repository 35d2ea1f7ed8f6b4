#!/usr/bin/env bash
# Measure the memory figures of the cases in cases.toml with Nsight Compute.
#
#   bash sim/tests/ncu/measure.sh [FOLDER]  (on a machine with an sm_90 GPU, nvcc and ncu)
#
# FOLDER holds kernels.cu, cases.toml and harness.cu (default: this folder; `public` for the set of
# public kernels). Writes to $OUT (default: FOLDER/out): ncu_figures.json, ncu_raw.csv (ncu's own
# CSV), harness_log.txt, sass.txt (the machine code that ran), env.txt.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DIR=$(cd "$HERE" && cd "${1:-.}" && pwd)
OUT=${OUT:-$DIR/out}
mkdir -p "$OUT"
BUILD=$(mktemp -d)
export PATH=$PATH:/usr/local/cuda/bin

NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NCU" ] || { echo "ncu not found" >&2; exit 1; }

METRICS=(
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  smsp__sass_inst_executed_op_shared_ld.sum
  smsp__sass_inst_executed_op_shared_st.sum
)
# Other folders also record warp instructions and atomics (ncu_to_json.py --more). The first set
# keeps its ten keys: tests/sim/ncu.rs compares every key it finds with the simulator's figures.
MORE=()
if [ "$DIR" != "$HERE" ]; then
  MORE=(--more)
  METRICS+=(
    smsp__inst_executed.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
    smsp__sass_inst_executed_op_shared_atom.sum
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
  )
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv || true
  "$NVCC" --version | tail -2
  "$NCU" --version
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
DEVICE=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
NCU_VERSION=$("$NCU" --version | tail -1)
CUDA_VERSION=$("$NVCC" --version | grep -o 'release [0-9.]*' | head -1)

# The harness is generated from cases.toml; the committed copy must match it.
python3 "$HERE/gen_harness.py" "$DIR/cases.toml" > "$BUILD/harness.cu"
cmp -s "$BUILD/harness.cu" "$DIR/harness.cu" || echo "WARNING: harness.cu is stale; using a fresh one from cases.toml" >&2
"$NVCC" -O3 -arch=sm_90 -lineinfo -I"$DIR" -o "$BUILD/harness" "$BUILD/harness.cu"
cuobjdump --dump-sass "$BUILD/harness" > "$OUT/sass.txt" 2>&1 || echo "cuobjdump failed" >&2

# One plain run: every launch must succeed before we profile.
"$BUILD/harness" | tee "$OUT/harness_log.txt"

profile() {
  local list
  list=$(IFS=,; echo "$*")
  PRINTABLE="ncu --clock-control none --metrics $list --csv harness"
  echo "+ $NCU --clock-control none --metrics $list --csv --log-file $OUT/ncu_raw.csv $BUILD/harness"
  "$NCU" --clock-control none --metrics "$list" --csv --log-file "$OUT/ncu_raw.csv" "$BUILD/harness" \
    > "$BUILD/harness_under_ncu.txt"
}
if ! profile "${METRICS[@]}"; then
  # A metric name this ncu does not know makes it refuse the whole run: keep the ones it lists
  # for the chip and try once more (ncu_to_json.py records the others as null).
  cat "$OUT/ncu_raw.csv" >&2 || true
  "$NCU" --query-metrics --chip gh100 > "$BUILD/known.txt" 2>&1 || true
  KEEP=()
  for m in "${METRICS[@]}"; do
    if grep -qw "${m%.*}" "$BUILD/known.txt"; then KEEP+=("$m"); else echo "WARNING: ncu does not know $m; left out" >&2; fi
  done
  profile "${KEEP[@]}"
fi

python3 "$HERE/ncu_to_json.py" "$OUT/ncu_raw.csv" "$DIR/cases.toml" "$OUT/ncu_figures.json" "${MORE[@]}" \
  --device "$DEVICE" --driver "$DRIVER" --ncu-version "$NCU_VERSION" --cuda-version "$CUDA_VERSION" \
  --command "$PRINTABLE"
rm -rf "$BUILD"
