# Sourced by the GPU scripts: NVRTC 13 from the toolkit, the release runner as $R (with
# runner-grade beside it for `$R grade`: cargo build --release --workspace), an empty compile
# cache, plain output, and the results folder $OUT (default /tmp/out).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$PWD/target/release/runner
export RUNNER_CACHE_DIR=$(mktemp -d)
export NO_COLOR=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
