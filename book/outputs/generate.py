#!/usr/bin/env python3
"""Writes the runner's output that the book shows, into book/src/outputs/, by running the runner.

A page shows a run of `runner check` by including one of these files
(`{{#include outputs/check-22.txt}}`), never by pasting it, so the book shows what the runner
prints today. Each output is made in the simulator, from the exercise as it is handed out, and
trimmed the same way every time: the progress line (it depends on who runs it) is dropped, an
output may stop before a given line, and long lines are wrapped at 100 columns under their own
indentation.

    python3 book/outputs/generate.py                      # write every output
    python3 book/outputs/generate.py --check              # fail if a committed output is stale
    python3 book/outputs/generate.py --runner target/debug/runner

book/ci.sh runs --check with the figures (BOOK_FIGURES=1): both need NVRTC and the runner.
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

BOOK = Path(__file__).resolve().parent.parent
REPO = BOOK.parent
OUT = BOOK / "src" / "outputs"
DEFAULT_RUNNER = "cargo run -q --release -p runner --"
WIDTH = 100


@dataclass
class Output:
    name: str
    args: list[str]
    stop_before: str | None = None  # a regex: the output ends before the first line it matches


OUTPUTS = [
    # how-to-use.md: what the untouched first exercise gives.
    Output("check-01", ["check", "01", "--backend", "sim"]),
    # debugging.md: the simulator's report of an out-of-bounds read and of a race.
    Output("check-22", ["check", "22", "--backend", "sim"]),
    Output("check-23", ["check", "23", "--backend", "sim"], stop_before=r"^Memory figures"),
]


def wrap(line: str) -> list[str]:
    if len(line) <= WIDTH:
        return [line]
    indent = re.match(r"\s*", line).group(0)
    return textwrap.wrap(line.strip(), width=WIDTH, initial_indent=indent,
                         subsequent_indent=indent + "  ", break_on_hyphens=False,
                         break_long_words=False)


def render(output: Output, runner: list[str]) -> str:
    command = runner + output.args + ["--color", "never"]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True,
                            env={**os.environ, "NO_COLOR": "1"})
    text = result.stdout
    if not text.strip():
        raise RuntimeError(f"{shlex.join(command)} printed nothing (exit {result.returncode}):\n"
                           f"{result.stderr}")
    lines = []
    for line in text.splitlines():
        if output.stop_before and re.search(output.stop_before, line):
            break
        if line.startswith("Progress:"):
            continue
        lines.extend(wrap(line.rstrip()))
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runner", default=DEFAULT_RUNNER,
                        help=f"the command that runs the course's runner (default: {DEFAULT_RUNNER!r})")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; fail if a committed output differs from the runner's")
    options = parser.parse_args()
    runner = shlex.split(options.runner)
    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for output in OUTPUTS:
        path = OUT / f"{output.name}.txt"
        text = render(output, runner)
        if options.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(REPO)))
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(REPO)}")
    if stale:
        print("stale runner outputs (run python3 book/outputs/generate.py and commit them):\n  "
              + "\n  ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
