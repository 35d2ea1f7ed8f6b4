#!/usr/bin/env bash
# Shared-memory wavefronts of 4-, 8- and 16-byte loads in lane patterns, and which adjacent loads
# ptxas merges, on the GPU. Run from the repository root; output in $OUT/lds.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out}/lds
mkdir -p "$OUT"
cd "$(dirname "$0")"
nvcc -O3 -arch=sm_90 -lineinfo -o "$OUT/harness" harness.cu || exit 1
cuobjdump -sass "$OUT/harness" > "$OUT/sass.txt"
# The course's own tiled matrix multiply (exercise 17), as NVRTC's options would build it.
nvcc -O3 -arch=sm_90 -lineinfo -cubin -o "$OUT/matmul17.cubin" ../../../solutions/17_matmul_tiled/matmul_tiled.cu &&
  cuobjdump -sass "$OUT/matmul17.cubin" >> "$OUT/sass.txt"
python3 - "$OUT/sass.txt" <<'PY' | tee "$OUT/merges.md"
import re, sys
kernel, counts = None, {}
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\w+)", line)
    if m:
        kernel = m.group(1)
        counts[kernel] = {}
    for op in re.findall(r"\b(LDS(?:\.\w+)*|LDG(?:\.\w+)*|STS(?:\.\w+)*)\b", line):
        counts[kernel][op] = counts[kernel].get(op, 0) + 1
print("| kernel | memory instructions in the machine code |")
print("| --- | --- |")
for k, c in counts.items():
    print(f"| {k} | {', '.join(f'{op} x{n}' for op, n in sorted(c.items()))} |")
PY
metrics=smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
ncu --clock-control none --metrics "$metrics" --csv "$OUT/harness" > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
echo "ncu rc=$?"
python3 - "$OUT/ncu.csv" <<'PY' | tee "$OUT/wavefronts.md"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head, body = rows[0], rows[1:]
i_id, i_k, i_m, i_v = (head.index(x) for x in ("ID", "Kernel Name", "Metric Name", "Metric Value"))
launches = {}
for r in body:
    launches.setdefault(int(r[i_id]), {"kernel": r[i_k]})[r[i_m]] = r[i_v].replace(",", "")
print("| launch | kernel | pattern | shared ld instructions | wavefronts | shared st instructions | wavefronts | global ld requests | sectors |")
print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
patterned = ("lds", "sts")
seen = {}
for i, m in sorted(launches.items()):
    k = m["kernel"]
    pattern = seen.get(k, 0) if k.startswith(patterned) else "-"
    seen[k] = seen.get(k, 0) + 1
    print(f"| {i} | {k} | {pattern} | {m['smsp__sass_inst_executed_op_shared_ld.sum']} | "
          f"{m['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum']} | "
          f"{m['smsp__sass_inst_executed_op_shared_st.sum']} | "
          f"{m['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum']} | "
          f"{m['l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum']} | {m['l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum']} |")
PY
