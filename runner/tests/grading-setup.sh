#!/usr/bin/env bash
# What the grading tests (runner/tests/grade.rs) need beyond Rust and NVRTC: headless Chromium,
# which loads the HTML report and runs its script. Debian or Ubuntu; run as root (CI) or with sudo.
# Safe to run again. `.ci/run` calls it before the test command.
set -euo pipefail
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null; then
    exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
    sudo=sudo
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium
