#!/usr/bin/env bash
# On the device machine: what NVIDIA's driver answers about zero_bytes (zero_bytes.c).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cc -O1 -o /tmp/zero_bytes "$here/zero_bytes.c" -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
/tmp/zero_bytes
