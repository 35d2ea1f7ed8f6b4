#!/usr/bin/env bash
# `runner grade` on one GPU: a synthetic class (`runner grade bench`: the course's solutions, a
# few exercise files as handed out, a few missing) graded with a worker per GPU (the default on a
# GPU) and, on a smaller class, with a process per cell (`--isolation cell`, the path before the
# workers); then a small class with a hanging kernel and one that writes out of bounds, to see
# the worker replaced on the GPU and the cells after them graded.
# Usage: scripts/gpu/grade-throughput.sh [STUDENTS_WORKER] [STUDENTS_CELL] [EXTRA_JOBS...]
#   (results in $OUT/grade-throughput.md; EXTRA_JOBS: more worker runs with --jobs N on the GPU)
. "$(dirname "$0")/env.sh"
WORKER=${1:-40}
CELL=${2:-4}
shift 2 2>/dev/null || shift $#
{
  echo "# runner grade on a GPU: a worker per GPU against a process per cell"
  echo
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/GPU: /'
  echo "CPU cores: $(nproc)"
  echo
  echo "## $WORKER students x 24 exercises, a worker per GPU (default)"
  echo '```'
  timeout 400 "$R" grade bench --backend gpu --submissions "$WORKER" 2>&1 | grep -v '^\['
  echo '```'
  for jobs in "$@"; do
    echo
    echo "## $WORKER students x 24 exercises, $jobs workers on the one GPU (--jobs $jobs)"
    echo '```'
    timeout 300 "$R" grade bench --backend gpu --submissions "$WORKER" --jobs "$jobs" 2>&1 | grep -v '^\['
    echo '```'
  done
  echo
  echo "## $CELL students x 24 exercises, a process per cell (--isolation cell, as before)"
  echo '```'
  timeout 300 "$R" grade bench --backend gpu --submissions "$CELL" --isolation cell 2>&1 | grep -v '^\['
  echo '```'
  echo
  echo "## Handover: a hanging kernel and one out of bounds among correct ones (exercise 02)"
  C=$(mktemp -d)
  for s in a_correct b_hang c_correct d_out_of_bounds e_correct; do mkdir -p "$C/$s/02_vector_add"; done
  for s in a_correct c_correct e_correct; do cp solutions/02_vector_add/vector_add.cu "$C/$s/02_vector_add/"; done
  cp runner/tests/fixtures/vector_add_hang.cu "$C/b_hang/02_vector_add/vector_add.cu"
  cp runner/tests/fixtures/vector_add_no_guard.cu "$C/d_out_of_bounds/02_vector_add/vector_add.cu"
  printf 'time_limit_s = 20\n' > "$C/grading.toml"
  echo '```'
  timeout 200 "$R" grade "$C" --out "$C/out" --backend gpu --exercises 02 --grading "$C/grading.toml" --format csv 2>&1 | cut -c1-200
  cat "$C/out/statuses.csv"
  echo '```'
} | tee "$OUT/grade-throughput.md"
