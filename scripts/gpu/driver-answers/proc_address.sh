#!/usr/bin/env bash
# On the device machine: NVIDIA's cuGetProcAddress for every entry point with several forms in
# driver/src/proc_address/versions.rs, at each version a form begins, one below it, and 13000.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cc -O1 -o /tmp/proc_address "$here/proc_address.c" -I/usr/local/cuda/include \
    -L/usr/local/cuda/lib64/stubs -lcuda -ldl
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 - "$root/driver/src/proc_address/versions.rs" <<'PY' | /tmp/proc_address
import re, sys
for name, forms in re.findall(r'\("(\w+)",\s*&\[([^\]]+)\]', open(sys.argv[1]).read()):
    asked = set()
    for v in map(int, re.findall(r"\d+", forms)):
        asked |= {v - 1, v}
    for v in sorted(asked | {13000}):
        print(name, v)
PY
