#!/usr/bin/env bash
# The Gradescope autograder on an older system: Debian 11's userland (glibc 2.31, older than
# Ubuntu 22.04's 2.35), made from Debian's packages with debootstrap, stands for an older
# Gradescope image. The zip written by RUNNER is unpacked into it as Gradescope does, and:
# - where RUNNER needs a newer glibc, setup.sh must stop the image's build, naming the glibc
#   needed and the one there (not leave every student a 0);
# - where it starts (a runner from scripts/build-portable-runner), setup.sh's check passes and
#   run_autograder grades a correct submission to full points, NVRTC included.
#
#   grade/tests/old-userland-test.sh [RUNNER]   (RUNNER defaults to target/debug/runner)
#
# Needs root (chroot). The userland is kept in $OLD_USERLAND (default /var/tmp/runner-bullseye)
# for the next run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
runner=$(realpath "${1:-${CARGO_TARGET_DIR:-$repo/target}/debug/runner}")
[ -x "$runner" ] || { echo "old-userland-test: no runner at $runner; build both with cargo build --workspace" >&2; exit 1; }
old=${OLD_USERLAND:-/var/tmp/runner-bullseye}
if [ ! -x "$old/bin/bash" ]; then
    command -v debootstrap >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }
    rm -rf "$old"
    debootstrap --variant=minbase bullseye "$old" http://deb.debian.org/debian >/dev/null
fi
in_old() { chroot "$old" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
# The runner finds itself and its checks' processes through /proc, as on any real system.
mountpoint -q "$old/proc" || { mount -t proc proc "$old/proc"; trap 'umount "$old/proc"' EXIT; }

rm -rf "$old/autograder"
mkdir -p "$old/autograder/source" "$old/autograder/submission/02_vector_add"
(cd "$repo" && "$runner" grade --gradescope-autograder --exercises 02 --out "$old/autograder/zip" >/dev/null 2>&1)
(cd "$old/autograder/source" && unzip -q ../zip/autograder.zip)
cp "$repo/solutions/02_vector_add/vector_add.cu" "$old/autograder/submission/02_vector_add/"
echo "old-userland-test: $(in_old ldd --version | head -n 1)"

# Only setup.sh's first part: the rest installs from PyPI, which the test does in place of it.
sed -n '1,/^fi$/p' "$old/autograder/source/setup.sh" > "$old/autograder/check.sh"
if in_old bash /autograder/check.sh 2> "$old/autograder/check.log"; then
    cp -r "$repo/.nvrtc" "$old/autograder/source/course/.nvrtc"
    in_old bash /autograder/source/run_autograder
    score=$(grep -o '"score": *[0-9.]*' "$old/autograder/results/results.json" | head -n 1)
    [ "$score" = '"score": 10.0' ] || [ "$score" = '"score": 10' ] \
        || { echo "old-userland-test: FAILED: the runner starts but grades 02's solution $score" >&2; cat "$old/autograder/results/results.json" >&2; exit 1; }
    echo "old-userland-test: passed: the runner starts on glibc 2.31 and grades the solution 10/10"
else
    grep -q "does not start on this image: it needs glibc 2.3[2-9] or later" "$old/autograder/check.log" \
        && grep -q "the image has ldd (Debian GLIBC 2.31" "$old/autograder/check.log" \
        || { echo "old-userland-test: FAILED: setup.sh stopped without saying why" >&2; cat "$old/autograder/check.log" >&2; exit 1; }
    echo "old-userland-test: passed: setup.sh stops the build on glibc 2.31: $(head -n 1 "$old/autograder/check.log")"
fi
