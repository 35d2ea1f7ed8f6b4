#!/usr/bin/env bash
# Where a grading worker's time goes on a GPU machine: `runner grade bench --backend gpu
# --profile` on every GPU (the default: a few workers per GPU), then on the first GPU alone, so the
# phases that grow when more workers share the host show up side by side.
# Usage: scripts/gpu/grade-profile.sh [STUDENTS]   (results in $OUT/grade-profile.md)
. "$(dirname "$0")/env.sh"
STUDENTS=${1:-40}
{
  echo "# runner grade bench --profile: where the workers' time goes"
  echo
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | sed 's/^/GPU: /'
  echo "CPU cores: $(nproc)"
  for visible in all 0; do
    echo
    echo "## $STUDENTS students x 24 exercises, GPUs: $visible"
    echo '```'
    if [[ $visible == all ]]; then
      timeout 280 "$R" grade bench --backend gpu --submissions "$STUDENTS" --profile 2>&1 | grep -v '^\['
    else
      CUDA_VISIBLE_DEVICES=$visible timeout 280 "$R" grade bench --backend gpu \
        --submissions "$STUDENTS" --profile 2>&1 | grep -v '^\['
    fi
    echo '```'
  done
} | tee "$OUT/grade-profile.md"
