#!/usr/bin/env bash
# Two GPUs against one for `runner grade` (issue 24): the same synthetic class (`runner grade bench
# --profile`) graded on every GPU, on the first GPU alone, and on the first GPU alone with as many
# workers as the two GPUs had, so that what is the GPUs' and what is the host's shows apart. For
# each run: the wall time, the CPU time the whole machine spent (from /proc/stat), and when the
# first and the last cell were saved (the course's check and the staging come before the first).
# Usage: scripts/gpu/grade-scaling.sh [STUDENTS] [LABEL]   (results in $OUT/grade-scaling-LABEL.md)
. "$(dirname "$0")/env.sh"
G=${G:-$PWD/target/release/runner-grade}
STUDENTS=${1:-40}
LABEL=${2:-run}
WORKERS_TWO=${WORKERS_TWO:-8}

# Busy and idle jiffies of the whole machine (user nice system idle iowait irq softirq steal).
jiffies() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $5+$6}' /proc/stat; }

# One graded class: LABEL, then the environment and arguments for `runner grade bench`.
bench() {
  local label=$1; shift
  local keep; keep=$(mktemp -d)
  echo
  echo "## $STUDENTS students x 24 exercises, $label"
  echo '```'
  local b0 i0 b1 i1 t0 t1
  read -r b0 i0 < <(jiffies)
  t0=$(date +%s.%N)
  env "$@" --submissions "$STUDENTS" --profile --keep "$keep" 2>&1 | grep -v '^\[' | grep -v 'class and its results'
  t1=$(date +%s.%N)
  read -r b1 i1 < <(jiffies)
  local hz; hz=$(getconf CLK_TCK)
  awk -v b=$((b1 - b0)) -v i=$((i1 - i0)) -v hz="$hz" -v t="$(awk "BEGIN{print $t1 - $t0}")" \
    -v cores="$(nproc)" 'BEGIN{printf "Machine CPU: %.1f CPU-seconds busy in %.1f s: %.0f%% of %d cores\n", b/hz, t, 100*b/(b+i), cores}'
  # Cell files' times: the first is saved once the course is checked and the class staged.
  python3 - "$keep/grades/cells" "$t0" <<'EOF'
import os, sys
root, start = sys.argv[1], float(sys.argv[2])
times = sorted(os.path.getmtime(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs if f.endswith(".json"))
if times:
    n = len(times)
    at = lambda q: times[min(n - 1, int(q * n))] - start
    print(f"Cells saved: first at {times[0] - start:.1f} s, half at {at(0.5):.1f} s, 90% at {at(0.9):.1f} s, last at {times[-1] - start:.1f} s")
EOF
  rm -rf "$keep"
  echo '```'
}

{
  echo "# runner grade on two GPUs against one ($LABEL)"
  echo
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | sed 's/^/GPU: /'
  echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores ($(lscpu | sed -n 's/^Thread(s) per core: *//p') threads a core)"
  bench "GPUs: all (default workers)" "$G" bench --backend gpu
  bench "GPU 0 alone (default workers)" CUDA_VISIBLE_DEVICES=0 "$G" bench --backend gpu
  bench "GPU 0 alone, $WORKERS_TWO workers" CUDA_VISIBLE_DEVICES=0 "$G" bench --backend gpu --jobs "$WORKERS_TWO"
} | tee "$OUT/grade-scaling-$LABEL.md"
