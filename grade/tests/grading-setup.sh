#!/usr/bin/env bash
# What the grading tests (grade/tests/grade.rs, grade/tests/sandbox.rs) need beyond Rust and
# NVRTC: headless Chromium, which loads the HTML report and runs its script, and bubblewrap, the
# sandbox each grading cell runs in. Debian or Ubuntu; run as root (CI) or with sudo. Safe to run
# again. `.ci/run` calls it before the test command.
set -euo pipefail
wanted=()
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null && ! command -v google-chrome >/dev/null; then
    wanted+=(chromium)
fi
if ! command -v bwrap >/dev/null; then
    wanted+=(bubblewrap)
fi
if [ ${#wanted[@]} = 0 ]; then
    exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
    sudo=sudo
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${wanted[@]}"
