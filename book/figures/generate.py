#!/usr/bin/env python3
"""Draws the book's figures as SVG files in book/src/figures/.

Two kinds of figure:

* Access patterns (coalescing and bank conflicts). Each runs a small kernel from
  book/figures/kernels/ in the course's simulator (`runner sim ... --json`) with one warp, reads
  which bytes each of the 32 lanes touched (the kernel prints them) and the simulator's measured
  figures for the line marked `// FIGURE`, and draws the warp's access: lanes to 32-byte sectors
  for global memory, lanes to banks for shared memory. The caption carries the measured sectors
  per request or wavefronts per request, so a figure cannot disagree with the simulator.
* Diagrams (thread hierarchy, 2D grid, grid-stride loop), drawn from their parameters alone.
* Host timelines: a host exercise's program checked in the simulator, its copies and kernels
  drawn from the driver's record on one row per engine.

Usage, from anywhere in the repository:

    python3 book/figures/generate.py                      # regenerate every figure
    python3 book/figures/generate.py --check              # fail if a committed SVG is stale
    python3 book/figures/generate.py --runner "target/release/runner"
    python3 book/figures/generate.py --only coalesced     # only figures whose name contains this

Every figure is written twice: NAME.svg, drawn on white, and NAME.dark.svg, the same figure with its
colours mapped for the book's dark themes (dark.py); book/themed_figures.py shows the one that suits
the reader's theme. Every figure must stay legible on a phone (svg.layout_problems): at most 720 units
wide, no text under 12 units, no text past the canvas (its width estimated from DejaVu's); a figure
that breaks a rule, or whose colours dark.py cannot follow (write them as #rrggbb), fails the run.

Python 3 standard library only. The output is deterministic: the same kernels and simulator give
the same bytes, which is what --check compares (both versions).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import access  # noqa: E402
import atomics  # noqa: E402
import concepts  # noqa: E402
import dark  # noqa: E402
import diagrams  # noqa: E402
import shared_memory  # noqa: E402
import timelines  # noqa: E402
import warps  # noqa: E402
from sim import REPO  # noqa: E402
from svg import layout_problems  # noqa: E402

OUT = REPO / "book" / "src" / "figures"
DEFAULT_RUNNER = "cargo run -q --release -p runner --"

# Each module draws one family of figures: `draw_all(runner, only)` returns the SVG text of each
# figure whose name contains `only`, by name, and the failures as messages. A new family is a new
# module listed here.
FAMILIES = [diagrams, access, timelines, concepts, warps, atomics, shared_memory]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runner", default=DEFAULT_RUNNER,
                        help=f"the command that runs the course's runner (default: {DEFAULT_RUNNER!r})")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; fail if any committed SVG differs from what would be drawn")
    parser.add_argument("--only", default="", help="only the figures whose name contains this text")
    options = parser.parse_args()
    runner = shlex.split(options.runner)

    drawn: dict[str, str] = {}
    failures: list[str] = []
    for family in FAMILIES:
        family_drawn, family_failures = family.draw_all(runner, options.only)
        clashes = drawn.keys() & family_drawn.keys()
        failures += [f"{name}: drawn twice (by {family.__name__} and another family)" for name in clashes]
        drawn.update(family_drawn)
        failures += family_failures

    # Every figure twice: NAME.svg for the light themes and NAME.dark.svg, its colours mapped for
    # the dark ones (dark.py); the book shows the one that suits the reader's theme. Both follow
    # the rules that keep a figure legible on a phone (svg.layout_problems).
    files: dict[str, str] = {}
    for name, svg in drawn.items():
        problems = layout_problems(svg)
        failures += [f"{name}: {problem}" for problem in problems]
        try:
            files[f"{name}.svg"], files[f"{name}.dark.svg"] = svg, dark.dark_version(svg)
        except dark.DarkError as err:
            failures.append(f"{name}: {err}")

    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for file_name, svg in files.items():
        path = OUT / file_name
        if options.check:
            if not path.exists() or path.read_text() != svg:
                stale.append(str(path.relative_to(REPO)))
        else:
            path.write_text(svg)
            print(f"wrote {path.relative_to(REPO)}")
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    if stale:
        print("stale figures (run python3 book/figures/generate.py and commit them):\n  "
              + "\n  ".join(stale), file=sys.stderr)
    return 1 if failures or stale else 0


if __name__ == "__main__":
    sys.exit(main())
