#!/usr/bin/env bash
# `runner watch` latency on the GPU: the first check and N checks after a save of exercise 02's
# solution, each check in a process of its own (as watch did before its worker) and through the
# worker; then watch itself on a kernel that hangs, to see the worker replaced on a GPU.
# Usage: scripts/gpu/watch-latency.sh [N]   (results in $OUT/watch-latency.md)
. "$(dirname "$0")/env.sh"
N=${1:-20}
{
  echo "# runner watch: wall time from a save to the report"
  echo
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/GPU: /'
  echo
  "$R" watch 02 --bench "$N" --backend gpu
  echo
  echo "## watch on a kernel that hangs, then the solution (GPU)"
  echo
  C=$(mktemp -d)
  cp -r exercises solutions "$C"/
  cp runner/tests/fixtures/vector_add_hang.cu "$C"/exercises/02_vector_add/vector_add.cu
  echo '```'
  (sleep 8; echo; sleep 8; cp "$C"/solutions/02_vector_add/vector_add.cu "$C"/exercises/02_vector_add/; echo; sleep 6; echo q) |
    (cd "$C" && timeout 60 "$R" watch --manual-run 02 --backend gpu 2>&1) |
    grep -E "Hang|Now watching|Passed|Error|Press Enter|NVIDIA" | cut -c1-160
  echo '```'
} | tee "$OUT/watch-latency.md"
