#!/usr/bin/env bash
# The corpus of exercises 05 and 06 on a GPU: every correct variant (checks/variants/NN/), every
# technique mistake of the catalogue (verdict targets_missed) and, for 06, extra grids that place
# its launch rule. Each is timed beside the exercise's reference on the check's own timing case
# (`runner bench --scale 1`) and checked on the GPU (`runner check --backend gpu`): one JSON line
# each in $OUT/corpus.jsonl, and a table to stdout. The modelled times of the same kernels on the
# same case come from `runner bench --model --scale 1` without a GPU (scripts/gpu/corpus_table.py).
# From the course root, with the release runner at target/release/runner.
source "$(dirname "$0")/env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
extra=$(mktemp -d)
# Grids only measured, to place 06's min_threads_vs_reference: blocks of T threads, B blocks.
for grid in "1024 66" "1024 33" "1024 16" "256 132" "128 132" "64 132" "100 1056" "256 528"; do
    set -- $grid
    sed -e "s/threads_per_block = [0-9]*/threads_per_block = $1/" \
        -e "s/blocks_per_grid = [0-9]*/blocks_per_grid = $2/" \
        checks/variants/06/blocks_512_two_per_sm.cu >"$extra/06-grid_${1}x${2}.cu"
done
corpus() {
    for id in 05 06; do
        for f in checks/variants/$id/*.cu; do echo "$id correct $f"; done
        python3 scripts/gpu/catalogue.py targets_missed | while IFS=$'\t' read -r mid file _; do
            # One thread doing all 2^23 elements takes seconds a launch: its sectors judge it.
            [ "$mid" = "$id" ] && [ "$file" != one_thread_does_all.cu ] &&
                echo "$id mistake checks/mistakes/$id/$file"
        done
    done
    for f in "$extra"/06-*.cu; do echo "06 grid $f"; done
}
# ONLY=REGEX keeps the corpus lines ("ID KIND FILE") that match it.
corpus | grep -E "${ONLY:-.}" | while read -r id kind file; do
    bench=$($R bench "$id" --file "$file" --scale 1 --repeats 20 --json 2>&1)
    $R check "$id" --file "$file" --backend gpu --json-to "$OUT/check.json" >/dev/null 2>&1
    check=$(cat "$OUT/check.json" 2>/dev/null)
    rm -f "$OUT/check.json"
    python3 - "$id" "$kind" "$file" "$bench" "$check" <<'EOF' >>"$OUT/corpus.jsonl"
import json, sys
id, kind, file, bench, check = sys.argv[1:]
line = {"id": id, "kind": kind, "file": file}
try:
    row = json.loads(bench)["rows"][0]
    line |= {"reference_ms": row["reference"]["ms"], "yours_ms": row["yours"]["ms"],
             "launch": row["launch"], "device": json.loads(bench)["device"]}
except Exception:
    line["bench_error"] = bench[-400:]
try:
    report = json.loads(check)
    line |= {"gpu_verdict": report["verdict"],
             "targets": [(t["name"], round(t["actual"], 3), t["met"]) for t in report["targets"]]}
except Exception:
    line["check_error"] = check[-400:]
print(json.dumps(line))
EOF
    tail -n1 "$OUT/corpus.jsonl"
done
python3 - "$OUT/corpus.jsonl" <<'EOF'
import json, sys
print("| exercise | kind | variant | H100 ms | reference ms | H100 / reference | GPU verdict |")
print("| --- | --- | --- | ---: | ---: | ---: | --- |")
for line in open(sys.argv[1]):
    r = json.loads(line)
    name = r["file"].rsplit("/", 1)[-1]
    ratio = r["yours_ms"] / r["reference_ms"] if "yours_ms" in r else float("nan")
    print(f"| {r['id']} | {r['kind']} | {name} | {r.get('yours_ms', float('nan')):.4f} | "
          f"{r.get('reference_ms', float('nan')):.4f} | {ratio:.2f} | {r.get('gpu_verdict', '?')} |")
EOF
