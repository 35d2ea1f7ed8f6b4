#!/usr/bin/env bash
# On the device machine: prints every error code NVIDIA's driver names, with its name and description
# (driver/src/error_strings.tsv is this output, with the driver's version in a comment line).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cc -O1 -o /tmp/error_strings "$here/error_strings.c" -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
/tmp/error_strings
