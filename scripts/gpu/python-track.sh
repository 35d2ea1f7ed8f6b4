#!/usr/bin/env bash
# The Python track (pyNN) on a GPU with real numba-cuda: each solution checked with
# `runner check --backend gpu` (NVIDIA's driver behind the course's library in pass-through mode)
# and `--backend sim`, with the machine's python3 and numba-cuda carried as wheels.
# Carry .whl (numba, numba-cuda, cuda-bindings, cuda-pathfinder wheels for Python 3.12 and
# llvmlite.tar.xz, llvmlite unpacked and packed again: its wheel alone is near the carry limit)
# and target/gpu-py (runner.xz and libsimcuda.so.xz: stripped, compressed).
# Writes $OUT/python-track.md (kept in scripts/gpu/results/).
source "$(dirname "$0")/env.sh"
if [ -d .whl ]; then
    mkdir -p /tmp/site && tar -xJf .whl/llvmlite.tar.xz -C /tmp/site &&
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target /tmp/site .whl/*.whl || exit 1
fi
# numba-cuda 0.30.4 registers an overload for np.row_stack, which numpy 2.5 (the machine's) no
# longer has; numpy 2.4's wheel does not fit beside llvmlite in one carry. np.vstack is what
# row_stack was, so a .pth file in the machine's site-packages restores the name at every start
# (a sitecustomize on PYTHONPATH would be shadowed by the course's own, hostkit/python's).
echo 'import numpy; numpy.row_stack = getattr(numpy, "row_stack", numpy.vstack)' \
    >"$(python3 -c 'import site; print(site.getsitepackages()[0])')/zz_numpy_row_stack.pth"
export PYTHONPATH=/tmp/site CUDA_HOME=/usr/local/cuda RUNNER_CUDA_PYTHON=$(command -v python3)
python3 -c 'import numba, numba.cuda, numpy; print("numba", numba.__version__, "numpy", numpy.__version__)'
carry=target/gpu-py
for f in runner libsimcuda.so; do [ -f "$carry/$f" ] || xz -dk "$carry/$f.xz"; done
chmod +x "$carry/runner"
R=$carry/runner
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
        timeout 300 $R check "$id" --file "$file" --backend "$backend" --json >"$OUT/$id-$backend.json" 2>"$OUT/$id-$backend.err"
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
        row.append("no report: " + open(f"{out}/{id}-{b}.err").read()[-200:].replace("\n", " "))
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
for f in runner/tests/fixtures/host/py*_*.py; do
    id=$(basename "$f"); id=${id%%_*}
    selected "$id" || continue
    timeout 300 $R check "$id" --file "$f" --backend gpu --json 2>/dev/null |
        python3 /tmp/mistake_row.py "$(basename "$f")" >>"$OUT/python-mistakes.md"
done
cat "$OUT/python-track.md" "$OUT/python-mistakes.md"
for id in $(ls "$OUT" | grep -o '^py[0-9]*-gpu' | sort -u); do grep -h "problem\|Error" "$OUT/$id.json" "$OUT/$id.err" 2>/dev/null | head -3; done
tar -czf "$OUT/python-reports.tar.gz" -C "$OUT" $(cd "$OUT" && ls *.json *.err) && rm -f "$OUT"/*.json "$OUT"/*.err
