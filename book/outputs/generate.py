#!/usr/bin/env python3
"""Writes the runner's output that the book shows, into book/src/outputs/, by running the runner.

A page shows a run of `runner check` by including one of these files
(`{{#include outputs/check-22.txt}}`), never by pasting it, so the book shows what the runner
prints today. Each output is made in the simulator and trimmed the same way every time: the
progress line (it depends on who runs it) is dropped, an output may stop before a given line, and
long lines are wrapped at 100 columns under their own indentation.

Three kinds: a few runs of exercises as they are handed out (check-NN.txt, included where a page
explains a failure); for every exercise in exercises.toml a passing run, `runner check NN
--file solutions/FILE` (pass-NN.txt, which `{{#passing NN}}` shows in the exercise's section,
book/course_numbers.py); and the summaries of `runner run` on whole Python programs (run-*.txt,
with paths in the course written relative to it). A passing run keeps its header (the file named
as the student's, exercises/FILE), its cases, its targets and its verdict; the figures between
are left out, one line saying so. A solution that does not pass is an error.

Numbers a page quotes in its prose from such runs (calls, copies, sectors, modelled times, and
ratios of them) are not typed in either: run_numbers.py takes them from `runner run --json` into
book/src/outputs/numbers.json, and the page writes `{{#number NAME}}` (book/course_numbers.py).

    python3 book/outputs/generate.py                      # write every output
    python3 book/outputs/generate.py --check              # fail if a committed output is stale
    python3 book/outputs/generate.py --runner target/debug/runner

book/ci.sh runs --check with the figures (BOOK_FIGURES=1): both need NVRTC and the runner.
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import run_numbers

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
    exercise_file: str | None = None  # a passing run of the solution to this exercise file
    only: str | None = None  # a regex: only the lines it matches are kept
    wrap: bool = True  # long lines wrapped at WIDTH (not a timeline, whose bars must stay rows)


OUTPUTS = [
    # how-to-use.md: what the untouched first exercise gives.
    Output("check-01", ["check", "01", "--backend", "sim"]),
    # debugging.md: the simulator's report of an out-of-bounds read and of a race.
    Output("check-22", ["check", "22", "--backend", "sim"]),
    Output("check-23", ["check", "23", "--backend", "sim"], stop_before=r"^Memory figures"),
    # cuda-from-python.md: whole Python programs on the simulator's driver.
    Output("run-numba-add", ["run", "--", "python", "runner/tests/fixtures/cuda_python/numba_add.py"],
           wrap=False),
    Output("run-numba-add-device", ["run", "--", "python", "book/examples/python/numba_add_device.py"],
           wrap=False),
    Output("run-vector-add", ["run", "--", "python", "runner/tests/fixtures/cuda_python/vector_add.py",
                              "sim/tests/fixtures/vector_add.ptx"], wrap=False),
    Output("run-core-program", ["run", "--", "python",
                                "runner/tests/fixtures/cuda_python/core_program.py"], wrap=False),
    Output("run-numba-features-launches", ["run", "--", "python",
                                           "runner/tests/fixtures/cuda_python/numba_features.py"],
           only=r"^  launch ", wrap=False),
]


def passing_outputs() -> list[Output]:
    exercises = tomllib.loads((REPO / "exercises" / "exercises.toml").read_text()).get("exercise", [])
    return [Output(f"pass-{exercise['id']}",
                   ["check", exercise["id"], "--file", f"solutions/{exercise['file']}", "--backend", "sim"],
                   exercise_file=exercise["file"])
            for exercise in exercises]


def passing_lines(lines: list[str], output: Output) -> list[str]:
    """Header, cases, targets and verdict of a passing run; the figures left out."""
    verdict = next((n for n, line in enumerate(lines) if re.match(r"(Passed|PASSED)\b", line)), None)
    if verdict is None:
        raise RuntimeError(f"runner {shlex.join(output.args)} did not pass:\n" + "\n".join(lines))
    first_blank = next((n for n, line in enumerate(lines) if not line.strip()), verdict)
    header = [line.replace(f"solutions/{output.exercise_file}", f"exercises/{output.exercise_file}")
              for line in lines[:first_blank]]
    figures = lines[first_blank:verdict]
    targets = [line for line in figures if re.match(r"\s+[✓✗] target", line)]
    kept = header + [""]
    if any(line.strip() for line in figures if line not in targets):
        kept.append("(figures left out)")
    kept += targets
    if kept[-1].strip():
        kept.append("")
    return kept + lines[verdict:]


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
    # Paths inside the course as the reader's checkout has them, not as the machine that ran this.
    text = result.stdout.replace(f"{REPO}/", "")
    if not text.strip():
        raise RuntimeError(f"{shlex.join(command)} printed nothing (exit {result.returncode}):\n"
                           f"{result.stderr}")
    raw = []
    for line in text.splitlines():
        if output.stop_before and re.search(output.stop_before, line):
            break
        if line.startswith("Progress:"):
            continue
        if output.only and not re.search(output.only, line):
            continue
        raw.append(line.rstrip())
    if output.exercise_file:
        raw = passing_lines(raw, output)
    lines = [piece for line in raw for piece in (wrap(line) if output.wrap else [line])]
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
    outputs = OUTPUTS + passing_outputs()
    # Each run is a process of its own, most of the time spent in the simulator: run side by side.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        numbers = pool.submit(run_numbers.numbers, runner, REPO)
        texts = pool.map(lambda output: render(output, runner), outputs)
        made = [(OUT / f"{output.name}.txt", text) for output, text in zip(outputs, texts)]
        made.append((OUT / "numbers.json", json.dumps(numbers.result(), indent=1, sort_keys=True,
                                                      ensure_ascii=False) + "\n"))
    for path, text in made:
        if options.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path.relative_to(REPO)))
                old = path.read_text().splitlines() if path.exists() else []
                sys.stderr.writelines(line + "\n" for line in difflib.unified_diff(
                    old, text.splitlines(), f"{path.relative_to(REPO)} (committed)", "the runner's",
                    lineterm=""))
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(REPO)}")
    # An exercise taken out of exercises.toml takes its passing run with it.
    names = {path.name for path, _ in made}
    for path in sorted(OUT.glob("pass-*.txt")):
        if path.name not in names:
            if options.check:
                stale.append(f"{path.relative_to(REPO)} (no such exercise: delete it)")
            else:
                path.unlink()
                print(f"removed {path.relative_to(REPO)}")
    if stale:
        print("stale runner outputs (run python3 book/outputs/generate.py and commit them):\n  "
              + "\n  ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
