"""Running the course's runner for a figure: the simulator on a small kernel, or a check."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

BOOK = Path(__file__).resolve().parent.parent
REPO = BOOK.parent
KERNELS = BOOK / "figures" / "kernels"


class FigureError(Exception):
    pass


def run_json(command: list[str]) -> dict:
    """Runs a runner command in the repository and returns the JSON it prints."""
    env = dict(os.environ, NO_COLOR="1")
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise FigureError(
            f"`{shlex.join(command)}` failed with status {result.returncode}:\n"
            f"{result.stderr.strip() or result.stdout.strip()}"
        )
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError as err:
        raise FigureError(f"`{shlex.join(command)}` did not print JSON ({err}):\n{result.stdout[:500]}")


def figure_line(source: str, kernel: str) -> int:
    """The line of the first `// FIGURE` marker inside `kernel`'s definition (1-based)."""
    lines = source.splitlines()
    start = None
    for number, text in enumerate(lines, 1):
        if re.search(rf"\b{re.escape(kernel)}\s*\(", text) and "__global__" in text:
            start = number
            break
    if start is None:
        raise FigureError(f"no __global__ {kernel}( in the kernel file")
    for number in range(start, len(lines) + 1):
        if "// FIGURE" in lines[number - 1]:
            return number
    raise FigureError(f"kernel {kernel} has no line marked // FIGURE")


def sim_report(file: str, kernel: str, grid: str, block: str, args: list[str], runner: list[str],
               root: Path = KERNELS) -> dict:
    """`runner sim` on a kernel in `file` under `root` (book/figures/kernels/, or the repository for an
    exercise's own file), as JSON, refused if it has diagnostics."""
    command = runner + ["sim", str((root / file).relative_to(REPO)), "--kernel", kernel,
                        "--grid", grid, "--block", block, "--json"]
    for arg in args:
        command += ["--arg", arg]
    report = run_json(command)
    if report.get("diagnostics"):
        raise FigureError(f"{kernel}: the simulator reported diagnostics: {report['diagnostics']}")
    return report


def line_figures(report: dict, file: str, line: int) -> dict:
    """The simulator's figures for one source line of a `runner sim --json` report."""
    for entry in report.get("lines", []):
        if entry["line"] == line and Path(entry["file"]).name == file:
            return entry["figures"]
    raise FigureError(f"the simulator reported no memory traffic on line {line} of {file}")


def draw_each(figures: dict[str, Callable[[list[str]], str]], runner: list[str],
              only: str) -> tuple[dict[str, str], list[str]]:
    """A family's `draw_all` for figures drawn one function each: the SVG of each figure whose name
    contains `only`, by name, and each failure as a message."""
    drawn, failures = {}, []
    for name, draw in figures.items():
        if only not in name:
            continue
        try:
            drawn[name] = draw(runner)
        except FigureError as err:
            failures.append(f"{name}: {err}")
    return drawn, failures
