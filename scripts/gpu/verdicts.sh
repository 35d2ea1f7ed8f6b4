#!/usr/bin/env bash
# The verdicts work on a GPU: dev check (every solution passes, every pristine file is not done,
# tuned references right) and the mistake catalogue's verdicts on the GPU. model-validate.sh
# times the mistakes whose verdict is targets_missed beside their reference.
#
#   OUT=/tmp/out bash scripts/gpu/verdicts.sh
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== dev check on the GPU"
"$R" dev check --backend gpu 2>&1 | tail -4
echo "== the catalogue on the GPU"
bash "$(dirname "$0")/mistakes-on-gpu.sh" | tail -2
