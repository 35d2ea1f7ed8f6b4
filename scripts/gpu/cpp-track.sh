#!/usr/bin/env bash
# The C++ track (cppNN) on a GPU: each solution and each mistake fixture checked with
# `runner check --backend gpu` (the program built by the toolkit's nvcc, run on NVIDIA's driver
# behind the course's library in pass-through mode) and `--backend sim` (the simulator), so the
# verdicts and named mistakes can be compared. Carry target/gpu-cpp (runner and libsimcuda.so,
# release builds: cp target/release/{runner,libsimcuda.so} target/gpu-cpp/). Writes
# $OUT/cpp-track.txt (kept in scripts/gpu/results/cpp-track.md) and one JSON report per check.
# Arguments, if any, are the exercise ids to check (`cpp-track.sh cpp04`); none checks them all.
source "$(dirname "$0")/env.sh"
R=$PWD/target/gpu-cpp/runner
export RUNNER_SIMCUDA=$PWD/target/gpu-cpp/libsimcuda.so
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    "$nvcc" --version | tail -2
} >"$OUT/cpp-track.txt" 2>&1
report() { # id file backend
    local name=$(basename "$2" .cu)
    timeout 300 "$R" check "$1" --file "$2" --backend "$3" --json-to "$OUT/$name-$3.json" >"$OUT/$name-$3.out" 2>"$OUT/$name-$3.err"
    echo "rc=$?" >>"$OUT/$name-$3.err"
}
while read -r id file; do
    [ $# -eq 0 ] || [[ " $* " == *" $id "* ]] || continue
    for backend in gpu sim; do report "$id" "$file" "$backend"; done
done <<'LIST'
cpp01 solutions/cpp01_first_program/first_program.cu
cpp03 solutions/cpp03_streams_events/streams_events.cu
cpp01 runner/tests/fixtures/host/cpp01_launch_unchecked.cu
cpp01 runner/tests/fixtures/host/cpp01_elements_not_bytes.cu
cpp01 runner/tests/fixtures/host/cpp01_leak.cu
cpp02 solutions/cpp02_unified_memory/unified_memory.cu
cpp02 runner/tests/fixtures/host/cpp02_no_sync.cu
cpp02 runner/tests/fixtures/host/cpp02_no_prefetch.cu
cpp02 runner/tests/fixtures/host/cpp02_prefetch_in_elements.cu
cpp02 runner/tests/fixtures/host/cpp02_prefetch_after_launch.cu
cpp02 runner/tests/fixtures/host/cpp02_copies.cu
cpp03 runner/tests/fixtures/host/cpp03_pageable.cu
cpp03 runner/tests/fixtures/host/cpp03_one_stream.cu
cpp04 solutions/cpp04_graphs/graphs.cu
cpp04 runner/tests/fixtures/host/cpp04_no_graph.cu
cpp04 runner/tests/fixtures/host/cpp04_instantiate_each_round.cu
cpp04 runner/tests/fixtures/host/cpp04_sync_copy_in_capture.cu
cpp04 runner/tests/fixtures/host/cpp04_capture_runs.cu
LIST
python3 - "$OUT" >>"$OUT/cpp-track.txt" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
print("\n| program | gpu verdict | sim verdict | gpu: what it says | sim: what it says |")
print("|---|---|---|---|---|")
for gpu in sorted(out.glob("*-gpu.json")):
    name = gpu.name[: -len("-gpu.json")]
    cells = []
    for backend in ("gpu", "sim"):
        try:
            r = json.loads((out / f"{name}-{backend}.json").read_text())
        except (OSError, ValueError):
            cells.append(("no report: " + (out / f"{name}-{backend}.err").read_text()[-300:].replace("\n", " "), ""))
            continue
        said = [c["problem"] for c in r.get("cases", []) if c.get("problem")][:1]
        said += r.get("mistakes", [])[:1]
        said += [f"{t['name']}: {t['got']}" for t in r.get("targets", [])]
        cells.append((r.get("verdict", "?"), "; ".join(s.replace("\n", " ").replace("|", "/") for s in said)[:300]))
    print(f"| {name} | {cells[0][0]} | {cells[1][0]} | {cells[0][1]} | {cells[1][1]} |")
PY
cat "$OUT/cpp-track.txt"
