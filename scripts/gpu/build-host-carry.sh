#!/usr/bin/env bash
# Builds what scripts/gpu/host-exercises.sh runs on the GPU machine (which has no Rust) into
# target/gpu-carry/: the release runner and driver library, and each host exercise's solution
# and the mistake fixtures it runs, as release programs.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -p runner -p simdriver
carry=target/gpu-carry
mkdir -p "$carry"
cp target/release/runner target/release/libsimcuda.so "$carry/"
stage=target/gpu-carry-build
build() { # crate-folder main.rs name
    mkdir -p "$stage/$3/src"
    cp "$1"/*.cu "$stage/$3/"
    cp "$2" "$stage/$3/src/main.rs"
    sed -e "s/^name = .*/name = \"$3\"/" -e "s|\.\./\.\./hostkit|$PWD/hostkit|" "$1/Cargo.toml" \
        >"$stage/$3/Cargo.toml"
    CARGO_TARGET_DIR=target/gpu-carry-target cargo build -q --release \
        --manifest-path "$stage/$3/Cargo.toml"
    cp "target/gpu-carry-target/release/$3" "$carry/"
}
for d in 25_first_program 26_device_arrays 27_pinned_streams 28_host_random; do
    build "solutions/$d" "solutions/$d/src/main.rs" "ex$d"
done
for f in runner/tests/fixtures/host/*.rs; do
    name=$(basename "$f" .rs)
    folder=$(ls -d solutions/"${name:0:2}"_*)
    build "$folder" "$f" "fixture_$name"
done
ls -la "$carry"
