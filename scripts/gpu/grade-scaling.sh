#!/usr/bin/env bash
# Two GPUs against one for `runner grade` (issue 24): the same synthetic class (`runner grade bench
# --profile`) graded on every GPU, on the first GPU alone, and on the first GPU alone with as many
# workers as the two GPUs had, so that what is the GPUs' and what is the host's shows apart. For
# each run: the wall time, the CPU time the whole machine spent (from /proc/stat), and when the
# first and the last cell were saved (the course's check and the staging come before the first).
# Usage: scripts/gpu/grade-scaling.sh [STUDENTS] [LABEL]   (results in $OUT/grade-scaling-LABEL.md,
# every cell's exercise, status, check time and save time in $OUT/grade-cells-LABEL.csv)
# RUNNER_COMPILES_PER_CHILD=1 in the environment gives every compile a fresh compile child, as
# before children served many (issue 24's comparison).
. "$(dirname "$0")/env.sh"
G=${G:-$PWD/target/release/runner-grade}
STUDENTS=${1:-40}
LABEL=${2:-run}
WORKERS_TWO=${WORKERS_TWO:-8}

# Jiffies of the whole machine: user (with nice), system (with irq, softirq, steal), idle (with
# iowait).
jiffies() { awk '/^cpu /{print $2+$3, $4+$7+$8+$9, $5+$6}' /proc/stat; }

# One graded class: LABEL, then the environment and arguments for `runner grade bench`.
bench() {
  local label=$1; shift
  local keep; keep=$(mktemp -d)
  echo
  echo "## $STUDENTS students x 24 exercises, $label"
  echo '```'
  local u0 s0 i0 u1 s1 i1 t0 t1
  read -r u0 s0 i0 < <(jiffies)
  t0=$(date +%s.%N)
  vmstat 1 >"$keep/vmstat" 2>/dev/null &
  local vm=$!
  env "$@" --submissions "$STUDENTS" --profile --keep "$keep" 2>&1 | grep -v '^\[' | grep -v 'class and its results'
  t1=$(date +%s.%N)
  read -r u1 s1 i1 < <(jiffies)
  local hz; hz=$(getconf CLK_TCK)
  awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v i=$((i1 - i0)) -v hz="$hz" \
    -v t="$(awk "BEGIN{print $t1 - $t0}")" -v cores="$(nproc)" 'BEGIN{
      printf "Machine CPU: %.1f CPU-seconds busy (%.1f user, %.1f system) in %.1f s: %.0f%% of %d cores\n",
        (u+s)/hz, u/hz, s/hz, t, 100*(u+s)/(u+s+i), cores}'
  kill "$vm" 2>/dev/null
  # Runnable and blocked threads, context switches a second: a shared wait shows as few runnable.
  awk 'NR > 3 {r += $1; b += $2; cs += $12; n++} END {if (n) printf "vmstat: %.1f runnable, %.1f blocked, %.0f context switches a second\n", r/n, b/n, cs/n}' "$keep/vmstat"
  # Cell files' times: the first is saved once the course is checked and the class staged.
  python3 - "$keep/grades/cells" "$t0" "$OUT/grade-cells-$LABEL.csv" "$label" <<'EOF'
import json, os, sys
root, start, table, run = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
paths = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".json")]
times = sorted(os.path.getmtime(p) for p in paths)
if times:
    n = len(times)
    at = lambda q: times[min(n - 1, int(q * n))] - start
    print(f"Cells saved: first at {times[0] - start:.1f} s, half at {at(0.5):.1f} s, 90% at {at(0.9):.1f} s, last at {times[-1] - start:.1f} s")
# Cells a worker checked (the others are saved as the class is staged): when the first came
# shows what the workers' start costs.
immediate = {"missing", "not_done", "refused"}
checked = sorted(os.path.getmtime(p) for p in paths if json.load(open(p)).get("status") not in immediate)
if checked:
    print(f"Checked cells saved: first at {checked[0] - start:.2f} s, last at {checked[-1] - start:.2f} s")
    # How many a half second: the ramp while workers start, the steady rate, the tail.
    bins = [0] * (int(2 * (checked[-1] - start)) + 1)
    for t in checked:
        bins[int(2 * (t - start))] += 1
    print("Checked cells a half second:", " ".join(map(str, bins)))
# Every cell, for a timeline by exercise: the run, the exercise, its status, how long its check
# took and when it was saved (s after the start).
new = not os.path.exists(table)
with open(table, "a") as out:
    if new:
        out.write("run,exercise,status,check_s,saved_s\n")
    for p in paths:
        cell = json.load(open(p))
        out.write(f"{run},{cell.get('exercise')},{cell.get('status')},{cell.get('seconds')},{os.path.getmtime(p) - start:.3f}\n")
EOF
  rm -rf "$keep"
  echo '```'
}

{
  echo "# runner grade on two GPUs against one ($LABEL)"
  echo
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | sed 's/^/GPU: /'
  echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores ($(lscpu | sed -n 's/^Thread(s) per core: *//p') threads a core)"
  # The first run of a fresh machine pays for loading NVRTC and the driver from disk: a small
  # class first, not shown.
  "$G" bench --backend gpu --submissions 2 >/dev/null 2>&1
  bench "GPUs: all (default workers)" "$G" bench --backend gpu
  bench "GPU 0 alone (default workers)" CUDA_VISIBLE_DEVICES=0 "$G" bench --backend gpu
  # SHORT=1 leaves this one out (device time is scarce); MORE_WORKERS=N adds all GPUs with N.
  if [[ -z ${SHORT:-} ]]; then
    bench "GPU 0 alone, $WORKERS_TWO workers" CUDA_VISIBLE_DEVICES=0 "$G" bench --backend gpu --jobs "$WORKERS_TWO"
  fi
  if [[ -n ${MORE_WORKERS:-} ]]; then
    bench "GPUs: all, $MORE_WORKERS workers" "$G" bench --backend gpu --jobs "$MORE_WORKERS"
  fi
  # Compiles in the worker's own process rather than a child started per compile.
  if [[ -n ${IN_PROCESS_TOO:-} ]]; then
    bench "GPUs: all, compiles in the worker" RUNNER_COMPILE_IN_PROCESS=1 "$G" bench --backend gpu
    bench "GPU 0 alone, compiles in the worker" RUNNER_COMPILE_IN_PROCESS=1 CUDA_VISIBLE_DEVICES=0 "$G" bench --backend gpu
    bench "GPUs: all, 16 workers" "$G" bench --backend gpu --jobs 16
  fi
} | tee "$OUT/grade-scaling-$LABEL.md"
