#!/usr/bin/env bash
# The host exercises (25-28) on a GPU: each solution, and the fixtures of the mistakes whose
# lesson is in the timeline, checked with `runner check --backend gpu` (NVIDIA's driver behind
# the course's library in pass-through mode, times measured with events) and `--backend sim`
# (the simulator, times modelled), then a table comparing the two. The device machine has no
# Rust: the programs are built here and named with --program. Needs, in target/gpu-carry/:
# runner, libsimcuda.so and one release program per name below (scripts/gpu/build-host-carry.sh
# makes them). Writes $OUT/host-exercises.md (kept in scripts/gpu/results/).
source "$(dirname "$0")/env.sh"
carry=target/gpu-carry
R=$carry/runner
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
check() { # id file program backend
    local name=$(basename "$3")
    timeout 300 $R check "$1" --file "$2" --program "$carry/$3" --backend "$4" \
        --json-to "$OUT/$name-$4.json" >"$OUT/$name-$4.out" 2>"$OUT/$name-$4.err"
    echo "$name $4: rc=$? $(grep -o '"verdict": "[a-z_]*"' "$OUT/$name-$4.json" | head -1)"
}
while read -r id file program; do
    for backend in gpu sim; do check "$id" "$file" "$program" "$backend"; done
done <<'LIST'
25 solutions/25_first_program/src/main.rs ex25_first_program
26 solutions/26_device_arrays/src/main.rs ex26_device_arrays
27 solutions/27_pinned_streams/src/main.rs ex27_pinned_streams
28 solutions/28_host_random/src/main.rs ex28_host_random
26 runner/tests/fixtures/host/26_download_in_loop.rs fixture_26_download_in_loop
27 runner/tests/fixtures/host/27_pageable.rs fixture_27_pageable
27 runner/tests/fixtures/host/27_one_stream.rs fixture_27_one_stream
27 runner/tests/fixtures/host/27_alloc_in_loop.rs fixture_27_alloc_in_loop
25 runner/tests/fixtures/host/25_launch_error_unchecked.rs fixture_25_launch_error_unchecked
LIST
python3 "$(dirname "$0")/host_exercises_table.py" "$OUT" | tee "$OUT/host-exercises.md"
# Only a few files come back from the device machine: the reports travel as one archive.
tar -czf "$OUT/host-reports.tar.gz" -C "$OUT" $(cd "$OUT" && ls *.json *.out *.err) && rm -f "$OUT"/*.json "$OUT"/*.out "$OUT"/*.err
