#!/usr/bin/env bash
# The Python track (pyNN) on a GPU with real numba-cuda: each solution checked with
# `runner check --backend gpu` (NVIDIA's driver behind the course's library in pass-through mode)
# and `--backend sim`, with the machine's python3 and numba-cuda carried as wheels.
# Carry .whl and target/gpu-py (or the folder named by $carry): see python-env.sh.
# Writes $OUT/python-track.md (kept in scripts/gpu/results/).
source "$(dirname "$0")/python-env.sh"
{
    echo "| exercise | gpu | sim | gpu s | sim s | copies in/out gpu | copies in/out sim |"
    echo "|---|---|---|---|---|---|---|"
} >"$OUT/python-track.md"
# PY_IDS="py10 py11": only these exercises (default: every one); BACKENDS="gpu": only these.
selected() { [ -z "${PY_IDS:-}" ] || [[ " $PY_IDS " == *" $1 "* ]]; }
for dir in solutions/py*_*; do
    id=${dir#solutions/}; id=${id%%_*}
    selected "$id" || continue
    file=$(ls "$dir"/*.py | head -1)
    for backend in ${BACKENDS:-gpu sim}; do
        start=$(date +%s.%N)
        timeout 300 $R check "$id" --file "$file" --backend "$backend" --json-to "$OUT/$id-$backend.json" >"$OUT/$id-$backend.out" 2>"$OUT/$id-$backend.err"
        echo "$id $backend rc=$? $(date +%s.%N) $start" >>"$OUT/times.txt"
    done
    python3 - "$OUT" "$id" >>"$OUT/python-track.md" <<'PY'
import json, sys
out, id = sys.argv[1], sys.argv[2]
times = {}
for line in open(f"{out}/times.txt"):
    i, b, rc, end, start = line.split()
    times[(i, b)] = float(end) - float(start)
row = [id]
for b in ("gpu", "sim"):
    try:
        row.append(json.load(open(f"{out}/{id}-{b}.json"))["verdict"])
    except Exception as e:
        try:
            row.append("no report: " + open(f"{out}/{id}-{b}.err").read()[-200:].replace("\n", " "))
        except OSError:  # this backend was left out by BACKENDS
            row.append("not run")
row += [f"{times.get((id, b), 0):.1f}" for b in ("gpu", "sim")]
for b in ("gpu", "sim"):
    try:
        t = json.load(open(f"{out}/{id}-{b}.json"))["record"]["transfers"]
        row.append(f"{sum(x['direction'] == 'host_to_device' for x in t)}/{sum(x['direction'] == 'device_to_host' for x in t)}")
    except Exception:
        row.append("")
print("| " + " | ".join(row) + " |")
PY
done
# The typical mistakes (runner/tests/fixtures/host/pyNN_*.py) on the GPU: each must fail there
# as in the simulator, except where the simulator's figures decide (targets skipped on a GPU).
echo "| mistake | gpu verdict | problem or missed target |" >"$OUT/python-mistakes.md"
echo "|---|---|---|" >>"$OUT/python-mistakes.md"
cat >/tmp/mistake_row.py <<'PY'
import json, sys
name = sys.argv[1]
try:
    d = json.load(sys.stdin)
except Exception as e:
    print(f"| {name} | no report | {e} |")
    sys.exit()
said = [c["problem"].splitlines()[0][:160] for c in d["cases"] if c.get("problem")][:1]
said += [m[:160] for m in d["mistakes"]][:1]
said += [t["name"] + ": " + t["got"][:80] for t in d["targets"] if not t["met"]]
print(f"| {name} | {d['verdict']} | {'; '.join(said)} |")
PY
# The fixtures (named pyNN_*.py), the catalogue's (checks/mistakes/pyNN/*.py) and each exercise
# as handed out (a row named exercises/...: it must not pass).
for f in runner/tests/fixtures/host/py*_*.py checks/mistakes/py*/*.py exercises/py*_*/*.py; do
    case $f in
    checks/*) id=$(basename "$(dirname "$f")"); name=$id/$(basename "$f") ;;
    exercises/*) id=$(basename "$(dirname "$f")"); id=${id%%_*}; name=$f ;;
    *) id=$(basename "$f"); id=${id%%_*}; name=$(basename "$f") ;;
    esac
    selected "$id" || continue
    timeout 300 $R check "$id" --file "$f" --backend gpu --json-to /tmp/mistake-report.json >/dev/null 2>&1
    python3 /tmp/mistake_row.py "$name" </tmp/mistake-report.json >>"$OUT/python-mistakes.md"
    rm -f /tmp/mistake-report.json
done
cat "$OUT/python-track.md" "$OUT/python-mistakes.md"
for id in $(ls "$OUT" | grep -o '^py[0-9]*-gpu' | sort -u); do grep -h "problem\|Error" "$OUT/$id.json" "$OUT/$id.err" 2>/dev/null | head -3; done
tar -czf "$OUT/python-reports.tar.gz" -C "$OUT" $(cd "$OUT" && ls *.json *.out *.err) && rm -f "$OUT"/*.json "$OUT"/*.out "$OUT"/*.err
