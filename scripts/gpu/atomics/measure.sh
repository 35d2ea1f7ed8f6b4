#!/usr/bin/env bash
# Global atomics: the requests and sectors Nsight Compute counts for ATOMG and REDG in lane
# patterns, and what ptxas made of each (warp-aggregated or not). Run from the repository root;
# output in $OUT/atomics.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out}/atomics
mkdir -p "$OUT"
cd "$(dirname "$0")"
nvcc -O3 -arch=sm_90 -lineinfo -o "$OUT/harness" harness.cu || exit 1
cuobjdump -sass "$OUT/harness" > "$OUT/sass.txt"
python3 - "$OUT/sass.txt" <<'PY' | tee "$OUT/sass.md"
import re, sys
kernel, ops = None, {}
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\w+)", line)
    if m:
        kernel = m.group(1)
        ops[kernel] = []
    for op in re.findall(r"\b((?:ATOMG|REDG|REDUX|VOTE|POPC|ATOM|RED)(?:\.\w+)*)\b", line):
        ops[kernel].append(op)
print("| kernel | atomic and aggregation instructions |")
print("| --- | --- |")
for k, o in ops.items():
    print(f"| {k} | {', '.join(o)} |")
PY
m=l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum
m+=,l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
ncu --clock-control none --metrics "$m" --csv "$OUT/harness" > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
echo "ncu rc=$?"
python3 - "$OUT/ncu.csv" <<'PY' | tee "$OUT/sectors.md"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, body = rows[0], rows[1:]
i_id, i_k, i_m, i_v = (head.index(x) for x in ("ID", "Kernel Name", "Metric Name", "Metric Value"))
launches = {}
for r in body:
    launches.setdefault(int(r[i_id]), {"kernel": r[i_k]})[r[i_m]] = r[i_v].replace(",", "")
short = lambda m: m.replace("l1tex__t_", "").replace("_pipe_lsu_mem_global_op", "").replace(".sum", "")
names = [k for k in next(iter(launches.values())) if k != "kernel"]
print("| kernel | " + " | ".join(short(n) for n in names) + " |")
print("| --- |" + " ---: |" * len(names))
for i, m in sorted(launches.items()):
    print(f"| {m['kernel']} | " + " | ".join(m[n] for n in names) + " |")
PY
