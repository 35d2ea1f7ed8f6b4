#!/usr/bin/env bash
# CI for the book: build it, check what mdBook lets pass, and open it in a real browser.
#
#   bash book/ci.sh
#
# 1. installs mdBook (a pinned 0.4 release) if it is missing;
# 2. builds the book with `mdbook build book`, failing on any error mdBook only logs;
# 3. checks every {{#include}} and its anchor, every internal link and #fragment of the built
#    HTML, that every exercise in exercises/exercises.toml is taught on its chapter page, and that
#    every target the book or an exercise file quotes is the metadata's (book/tests/check_book.py;
#    book/course_numbers.py writes the metadata's targets into the pages at build time), and the
#    figures' shared rules: legible on a phone, a dark version for the dark themes
#    (book/tests/test_figures.py);
# 4. optionally (BOOK_FIGURES=1) checks that the committed SVG figures are what
#    book/figures/generate.py draws from the simulator today, and the runner output the book shows
#    (book/src/outputs/) what book/outputs/generate.py gets from the runner today; this needs NVRTC
#    (scripts/install-nvrtc) and builds the runner. BOOK_FIGURES_RUNNER overrides the runner command;
# 5. runs the browser test (book/tests/browser.mjs) in Debian's headless Chromium through
#    playwright-core from npm, installing chromium and node with apt-get if they are missing.
#
# Runs on Debian 12 as root in CI; elsewhere, install chromium and node yourself.
set -euo pipefail
cd "$(dirname "$0")/.."

MDBOOK_VERSION=0.4.52
export PATH="$HOME/.cargo/bin:$PATH"

step() { printf '\n== %s\n' "$*"; }

step "mdBook $MDBOOK_VERSION"
if ! mdbook --version 2>/dev/null | grep -qx "mdbook v$MDBOOK_VERSION"; then
    # Only the search feature: the book needs no `mdbook serve`, and this halves the build.
    cargo install mdbook --locked --version "$MDBOOK_VERSION" --no-default-features --features search
fi
mdbook --version

step "mdbook build book"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
mdbook build book 2>&1 | tee "$log"
# mdBook 0.4 logs a missing include as [ERROR] and still exits 0.
if grep -q '\[ERROR\]' "$log"; then
    echo "mdbook reported errors (above)" >&2
    exit 1
fi

step "includes, links and exercise pages"
python3 book/tests/check_book.py book/build
python3 book/tests/test_figures.py

step "figures and runner output"
if [[ "${BOOK_FIGURES:-0}" == 1 ]]; then
    python3 book/figures/generate.py --check --runner "${BOOK_FIGURES_RUNNER:-cargo run -q --release -p runner --}"
    echo "the committed figures match the simulator"
    python3 book/outputs/generate.py --check --runner "${BOOK_FIGURES_RUNNER:-cargo run -q --release -p runner --}"
    echo "the committed runner output matches the runner"
else
    echo "skipped: set BOOK_FIGURES=1 to check that book/src/figures/ and book/src/outputs/ match the runner (needs NVRTC)"
fi

step "browser test"
missing=()
[[ -x /usr/bin/chromium || -n "${CHROMIUM:-}" ]] || missing+=(chromium)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run as root" >&2
        exit 1
    fi
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
# playwright-core drives the installed Chromium; it never downloads a browser.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
npm ci --prefix book/tests --no-audit --no-fund --loglevel=error
node book/tests/browser.mjs book/build

step "book: all checks passed"
