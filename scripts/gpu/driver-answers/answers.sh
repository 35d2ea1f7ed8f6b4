#!/usr/bin/env bash
# On the device machine: builds answers.c against NVIDIA's driver and prints its answers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cc -O1 -o /tmp/answers "$here/answers.c" -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda -lpthread
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
/tmp/answers
