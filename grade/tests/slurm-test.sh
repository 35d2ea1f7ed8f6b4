#!/usr/bin/env bash
# `runner grade --slurm` against a real Slurm: a single-node cluster (munged, slurmctld and slurmd
# from Debian's packages, on loopback) runs the job array of shards and the merge job that the
# runner writes, and the merged grade book must hold every student's grade.
#
#   grade/tests/slurm-test.sh [RUNNER]     (RUNNER defaults to target/debug/runner)
#
# Needs root (the daemons run as root) and, once, `apt-get install slurmctld slurmd slurm-client
# munge` (the script installs them when apt-get is there). Everything else lives in a temporary
# folder; the daemons it started are stopped at the end, pass or fail.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
runner=$(realpath "${1:-${CARGO_TARGET_DIR:-$repo/target}/debug/runner}")
[ -x "$runner" ] || { echo "slurm-test: no runner at $runner; build both with cargo build --workspace" >&2; exit 1; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge
fi
if [ -z "${RUNNER_NVRTC:-}" ] && [ -f "$repo/.nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12" ]; then
    export RUNNER_NVRTC="$repo/.nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"
fi

work=$(mktemp -d /tmp/runner-slurm-XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    echo "slurm-test: logs and results were in $work"
}
trap cleanup EXIT

# munge: a key of our own and a daemon on its own socket.
mkdir -p "$work/munge"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
    --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" \
    >"$work/munged.out" 2>&1 &
pids+=($!)

node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/state" "$work/spool"
export SLURM_CONF="$work/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=runnertest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=grading Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed)'; then break; fi
    sleep 1
done
sinfo -h -o '%T' | grep -qE '^(idle|mixed)' || { echo "slurm-test: the node never became idle" >&2; tail -20 "$work"/*.log "$work"/*.out >&2; exit 1; }
echo "slurm-test: a one-node cluster is up ($node, $cpus CPUs)"

# A class of five: three right, one not done, one that does not compile; two shards.
course=$repo
class="$work/class"
for s in ann ben cid; do
    mkdir -p "$class/$s/01_thread_index" "$class/$s/02_vector_add"
    cp "$course/solutions/01_thread_index/thread_index.cu" "$class/$s/01_thread_index/"
    cp "$course/solutions/02_vector_add/vector_add.cu" "$class/$s/02_vector_add/"
done
mkdir -p "$class/dee/01_thread_index" "$class/eve/02_vector_add"
cp "$course/exercises/01_thread_index/thread_index.cu" "$class/dee/01_thread_index/"
cp "$course/runner/tests/fixtures/vector_add_compile_error.cu" "$class/eve/02_vector_add/vector_add.cu"
out="$work/grades"
export RUNNER_CACHE_DIR="$work/cache" NO_COLOR=1
(cd "$course" && "$runner" grade "$class" --out "$out" --backend sim --exercises 01,02 --slurm 2 --slurm-option=--time=10)
bash "$out/slurm/submit.sh"

for _ in $(seq 300); do
    if [ -z "$(squeue -h 2>/dev/null)" ]; then break; fi
    sleep 1
done
[ -z "$(squeue -h)" ] || { echo "slurm-test: jobs still queued after 5 minutes" >&2; squeue >&2; exit 1; }

# The name column is each submission's folder as handed in (here the same as its id); the merged
# shards hold every cell, so the grade book says it is complete.
expected="submission,name,01,02,total,max,complete
ann,ann,10,10,20,20,yes
ben,ben,10,10,20,20,yes
cid,cid,10,10,20,20,yes
dee,dee,0,0,0,20,yes
eve,eve,0,0,0,20,yes"
actual=$(cat "$out/gradebook.csv" 2>/dev/null || true)
if [ "$actual" != "$expected" ]; then
    echo "slurm-test: FAILED: the merged grade book is not right." >&2
    echo "expected:"$'\n'"$expected"$'\n'"got:"$'\n'"$actual" >&2
    tail -n +1 "$out"/slurm/*.log >&2 || true
    exit 1
fi
grep -q "compile_error" "$out/statuses.csv"
for task in 1 2; do
    [ -f "$out/shards/$task/run.json" ] || { echo "slurm-test: FAILED: shard $task left no results" >&2; exit 1; }
done
echo "slurm-test: passed: 2 array tasks and the merge ran under Slurm; the grade book has all 5 students."
