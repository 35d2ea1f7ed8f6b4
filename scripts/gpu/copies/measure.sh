#!/usr/bin/env bash
# Host<->device copy times (pinned and pageable, both directions); output in $OUT/copies.md.
set -eu
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
cd "$(dirname "$0")"
nvcc -O2 -o "$OUT/copy_rates" copy_rates.cu
{
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv,noheader
  echo
  "$OUT/copy_rates"
} | tee "$OUT/copies.md"
