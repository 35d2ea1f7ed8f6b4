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

Python 3 standard library only. The output is deterministic: the same kernels and simulator give
the same bytes, which is what --check compares.
"""

from __future__ import annotations

import argparse
import colorsys
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

BOOK = Path(__file__).resolve().parent.parent
REPO = BOOK.parent
KERNELS = BOOK / "figures" / "kernels"
OUT = BOOK / "src" / "figures"
DEFAULT_RUNNER = "cargo run -q --release -p runner --"

WARP = 32
SECTOR_BYTES = 32
BANKS = 32
BANK_WORD_BYTES = 4

FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"
MONO = "font-family='DejaVu Sans Mono, Menlo, Consolas, monospace'"


# --------------------------------------------------------------------------------------------
# The figures


@dataclass
class Access:
    """One access-pattern figure: a kernel, how to launch it, and what to say about it."""

    name: str  # the SVG's file name, without .svg
    kind: str  # "global" (sectors) or "shared" (banks)
    file: str  # under book/figures/kernels/
    kernel: str
    args: list[str]
    title: str  # the expression each lane evaluates, shown as the figure's title
    grid: str = "1"
    block: str = "32"
    element_bytes: int = 4


ACCESSES = [
    Access("coalesced", "global", "coalescing.cu", "coalesced", ["f32[64]", "f32[32]"],
           "lane k reads in[k]"),
    Access("offset", "global", "coalescing.cu", "offset", ["f32[64]", "f32[32]"],
           "lane k reads in[k + 1]"),
    Access("stride-2", "global", "coalescing.cu", "strided", ["f32[128]", "f32[32]", "i32=2"],
           "lane k reads in[2 * k]"),
    Access("stride-32", "global", "coalescing.cu", "strided", ["f32[1024]", "f32[32]", "i32=32"],
           "lane k reads in[32 * k]"),
    Access("row-per-thread", "global", "coalescing.cu", "row_per_thread",
           ["f32[1024]", "f32[32]", "i32=32"],
           "row sums, one thread per row: lane k reads a[k * width + col]"),
    Access("column-per-thread", "global", "coalescing.cu", "column_per_thread",
           ["f32[1024]", "f32[32]", "i32=32", "i32=32"],
           "column sums, one thread per column: lane k reads a[row * width + k]"),
    Access("array-of-structs", "global", "coalescing.cu", "array_of_structs", ["f32[256]", "f32[32]"],
           "array of 32-byte structs: lane k reads p[k].x"),
    Access("struct-of-arrays", "global", "coalescing.cu", "struct_of_arrays",
           ["f32[32]", "f32[32]", "f32[32]", "f32[32]"],
           "struct of arrays: lane k reads xs[k]"),
    Access("banks-row", "shared", "bank_conflicts.cu", "row_read", ["f32[1024]", "f32[32]"],
           "float tile[32][32]; lane k reads tile[0][k]"),
    Access("banks-column", "shared", "bank_conflicts.cu", "column_read", ["f32[1024]", "f32[32]"],
           "float tile[32][32]; lane k reads tile[k][0]"),
    Access("banks-padded-column", "shared", "bank_conflicts.cu", "padded_column_read",
           ["f32[1024]", "f32[32]"],
           "float tile[32][33]; lane k reads tile[k][0]"),
    Access("banks-interleaved", "shared", "bank_conflicts.cu", "interleaved_read", ["f32[64]", "f32[32]"],
           "float s[64]; lane k reads s[2 * k]"),
    Access("banks-broadcast", "shared", "bank_conflicts.cu", "broadcast_read", ["f32[32]", "f32[32]"],
           "float s[32]; every lane reads s[0]"),
]


# --------------------------------------------------------------------------------------------
# Running the simulator


@dataclass
class Measured:
    line: int  # the FIGURE line, 1-based
    figures: dict  # the simulator's figures for that line
    offsets: list[int]  # byte offset each lane touched, lane 0 first


class FigureError(Exception):
    pass


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


def measure(access: Access, runner: list[str]) -> Measured:
    path = KERNELS / access.file
    line = figure_line(path.read_text(), access.kernel)
    command = runner + [
        "sim", str(path.relative_to(REPO)), "--kernel", access.kernel,
        "--grid", access.grid, "--block", access.block, "--json",
    ]
    for arg in access.args:
        command += ["--arg", arg]
    env = dict(os.environ, NO_COLOR="1")
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise FigureError(
            f"`{shlex.join(command)}` failed with status {result.returncode}:\n"
            f"{result.stderr.strip() or result.stdout.strip()}"
        )
    try:
        report = json.loads(result.stdout)
    except json.JSONDecodeError as err:
        raise FigureError(f"`{shlex.join(command)}` did not print JSON ({err}):\n{result.stdout[:500]}")
    if report.get("diagnostics"):
        raise FigureError(f"the simulator reported diagnostics: {report['diagnostics']}")
    figures = None
    for entry in report.get("lines", []):
        if entry["line"] == line and Path(entry["file"]).name == access.file:
            figures = entry["figures"]
    if figures is None:
        raise FigureError(f"the simulator reported no memory traffic on line {line} (// FIGURE)")
    offsets: dict[int, int] = {}
    for text in report.get("printf", "").splitlines():
        parts = text.split()
        if len(parts) == 3 and parts[0] == "trace":
            offsets[int(parts[1])] = int(parts[2])
    if sorted(offsets) != list(range(WARP)):
        raise FigureError(f"expected a trace line from each of the {WARP} lanes, got lanes {sorted(offsets)}")
    return Measured(line, figures, [offsets[lane] for lane in range(WARP)])


# --------------------------------------------------------------------------------------------
# Drawing helpers


def lane_colour(lane: int) -> str:
    r, g, b = colorsys.hls_to_rgb((lane / WARP) * 0.83, 0.52, 0.62)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


class Svg:
    def __init__(self, width: int, height: int, title: str, description: str):
        self.width = width
        self.height = height
        self.parts: list[str] = []
        self.title = title
        self.description = description

    def add(self, element: str) -> None:
        self.parts.append(element)

    def rect(self, x, y, w, h, fill="none", stroke="#333", width=1.0, extra="") -> None:
        self.add(f"<rect x='{x:.1f}' y='{y:.1f}' width='{w:.1f}' height='{h:.1f}' fill='{fill}' "
                 f"stroke='{stroke}' stroke-width='{width}'{extra}/>")

    def line(self, x1, y1, x2, y2, stroke="#333", width=1.0, extra="") -> None:
        self.add(f"<line x1='{x1:.1f}' y1='{y1:.1f}' x2='{x2:.1f}' y2='{y2:.1f}' stroke='{stroke}' "
                 f"stroke-width='{width}'{extra}/>")

    def text(self, x, y, content, size=12, anchor="start", weight="normal", fill="#222", mono=False,
             extra="") -> None:
        font = MONO if mono else FONT
        self.add(f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' "
                 f"font-weight='{weight}' fill='{fill}' {font}{extra}>{escape(str(content))}</text>")

    def render(self) -> str:
        head = (f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {self.width} {self.height}' "
                f"width='{self.width}' height='{self.height}' role='img'>\n"
                f"<title>{escape(self.title)}</title>\n<desc>{escape(self.description)}</desc>\n"
                f"<rect width='100%' height='100%' fill='#ffffff'/>\n")
        return head + "\n".join(self.parts) + "\n</svg>\n"


LANE_X0 = 100
LANE_W = 24
LANES_Y = 52
LANE_H = 20


def draw_lanes(svg: Svg, y: float = LANES_Y) -> None:
    svg.text(LANE_X0 - 8, y + 14, "lane", size=11, anchor="end", fill="#555")
    for lane in range(WARP):
        x = LANE_X0 + lane * LANE_W
        svg.rect(x + 1, y, LANE_W - 2, LANE_H, fill=lane_colour(lane), stroke="none")
        svg.text(x + LANE_W / 2, y + 14, lane, size=9, anchor="middle", fill="#fff", weight="bold")


def lane_anchor(lane: int) -> tuple[float, float]:
    return LANE_X0 + lane * LANE_W + LANE_W / 2, LANES_Y + LANE_H


def source_note(access: Access, measured: Measured) -> str:
    return (f"Measured by the course's simulator: runner sim book/figures/kernels/{access.file} "
            f"--kernel {access.kernel} --grid {access.grid} --block {access.block}, line {measured.line}.")


# --------------------------------------------------------------------------------------------
# Global memory: lanes to 32-byte sectors


def draw_global(access: Access, measured: Measured) -> str:
    figs = measured.figures
    requests = figs["global_load_requests"]
    sectors_measured = figs["global_load_sectors"]
    if requests == 0:
        raise FigureError(f"{access.name}: no global loads on the FIGURE line")
    per_request = sectors_measured / requests
    word = access.element_bytes
    touched_words = sorted({off // word for off in measured.offsets})
    sectors = sorted({off // SECTOR_BYTES for off in measured.offsets})
    words_per_sector = SECTOR_BYTES // word

    # Runs of adjacent sectors, with a gap between runs.
    runs: list[list[int]] = []
    for s in sectors:
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    gap = 12.0 if len(runs) <= 8 else 5.0
    strip_w = WARP * LANE_W
    cells = len(sectors) * words_per_sector
    cell_w = (strip_w - gap * (len(runs) - 1)) / cells
    ideal = -(-WARP * word // SECTOR_BYTES)  # 32 lanes x word bytes, rounded up to whole sectors

    width = LANE_X0 + strip_w + 30
    height = 300
    svg = Svg(width, height, f"{access.title}: {per_request:g} sectors per request",
              f"One warp's load. {source_note(access, measured)}")
    svg.text(LANE_X0, 24, access.title, size=15, weight="bold", mono=True)
    draw_lanes(svg)

    strip_y = 170
    cell_h = 28
    # Where each touched word is drawn.
    word_x: dict[int, float] = {}
    x = LANE_X0
    labelled = len(sectors) <= 12
    for r, run in enumerate(runs):
        if r > 0:
            svg.text(x + gap / 2, strip_y + cell_h / 2 + 4, "…", size=11, anchor="middle", fill="#888")
            x += gap
        for s in run:
            sector_x = x
            sector_lanes = [lane for lane, off in enumerate(measured.offsets) if off // SECTOR_BYTES == s]
            # A thin sector is tinted with its lane's colour, so that it stays visible.
            if cell_w < 6:
                svg.rect(x, strip_y, cell_w * words_per_sector, cell_h, fill=lane_colour(sector_lanes[0]),
                         stroke="none", extra=" fill-opacity='0.3'")
            for w in range(words_per_sector):
                word_index = s * words_per_sector + w
                owners = [lane for lane, off in enumerate(measured.offsets) if off // word == word_index]
                if owners:
                    word_x[word_index] = x + cell_w / 2
                    svg.rect(x, strip_y, max(cell_w, 3.0), cell_h, fill=lane_colour(owners[0]), stroke="none")
                elif cell_w >= 6:
                    svg.rect(x, strip_y, cell_w, cell_h, fill="#f4f4f4", stroke="none")
                if cell_w >= 6:
                    svg.rect(x, strip_y, cell_w, cell_h, stroke="#bbb", width=0.5)
                x += cell_w
            svg.rect(sector_x, strip_y, x - sector_x, cell_h, stroke="#222", width=1.5)
            if labelled:
                svg.text((sector_x + x) / 2, strip_y + cell_h + 14, f"bytes {s * 32}–{s * 32 + 31}",
                         size=9, anchor="middle", fill="#555")
    if not labelled:
        svg.text(LANE_X0, strip_y + cell_h + 14,
                 f"{len(sectors)} sectors from byte {sectors[0] * 32} to byte {sectors[-1] * 32 + 31}"
                 + ("; the gaps (…) are sectors no lane touches" if len(runs) > 1 else ""), size=10, fill="#555")
    svg.text(LANE_X0 - 8, strip_y + cell_h / 2 + 4, "memory", size=11, anchor="end", fill="#555")

    for lane, off in enumerate(measured.offsets):
        x1, y1 = lane_anchor(lane)
        svg.line(x1, y1, word_x[off // word], strip_y, stroke=lane_colour(lane), width=1.2,
                 extra=" stroke-opacity='0.8'")

    y = strip_y + cell_h + 44
    svg.text(LANE_X0, y,
             f"{len(touched_words)} words of {word} bytes used · {len(sectors)} sectors of 32 bytes "
             f"touched · {len(sectors) * SECTOR_BYTES} bytes moved for {WARP * word} bytes used",
             size=12)
    svg.text(LANE_X0, y + 22,
             f"Simulator: {sectors_measured} sectors in {requests} request{'s' if requests != 1 else ''}"
             f" = {per_request:g} sectors per request (the least possible is {ideal})",
             size=12, weight="bold")
    svg.text(LANE_X0, y + 44, source_note(access, measured), size=9, fill="#666")
    return svg.render()


# --------------------------------------------------------------------------------------------
# Shared memory: lanes to banks


def draw_shared(access: Access, measured: Measured) -> str:
    figs = measured.figures
    requests = figs["shared_load_requests"]
    wavefronts = figs["shared_load_wavefronts"]
    conflicts = figs["shared_load_bank_conflicts"]
    if requests == 0:
        raise FigureError(f"{access.name}: no shared loads on the FIGURE line")
    words = [off // BANK_WORD_BYTES for off in measured.offsets]
    rows = sorted({w // BANKS for w in words})
    distinct_per_bank = [len({w for w in words if w % BANKS == b}) for b in range(BANKS)]
    busiest = max(distinct_per_bank)

    row_h = 22 if len(rows) <= 8 else max(9, 300 // len(rows))
    grid_y = 160
    grid_h = row_h * len(rows)
    width = LANE_X0 + WARP * LANE_W + 40
    height = grid_y + grid_h + 112
    svg = Svg(width, height,
              f"{access.title}: {wavefronts / requests:g} wavefronts per request",
              f"One warp's shared-memory load. {source_note(access, measured)}")
    svg.text(LANE_X0, 24, access.title, size=15, weight="bold", mono=True)
    draw_lanes(svg)

    svg.text(LANE_X0 - 8, grid_y - 8, "bank", size=11, anchor="end", fill="#555")
    for b in range(BANKS):
        svg.text(LANE_X0 + b * LANE_W + LANE_W / 2, grid_y - 8, b, size=9, anchor="middle", fill="#555")
    owners: dict[int, list[int]] = {}
    for lane, w in enumerate(words):
        owners.setdefault(w, []).append(lane)
    centre: dict[int, tuple[float, float]] = {}
    for r, row in enumerate(rows):
        y = grid_y + r * row_h
        if len(rows) <= 8 or r % 4 == 0:
            svg.text(LANE_X0 - 8, y + row_h / 2 + 4, f"words {row * 32}–{row * 32 + 31}", size=9,
                     anchor="end", fill="#555")
        for b in range(BANKS):
            w = row * BANKS + b
            x = LANE_X0 + b * LANE_W
            fill = lane_colour(owners[w][0]) if w in owners else "#f4f4f4"
            svg.rect(x, y, LANE_W, row_h, fill=fill, stroke="#ccc", width=0.5)
            if w in owners:
                centre[w] = (x + LANE_W / 2, y + row_h / 2)
                if len(owners[w]) > 1 and row_h >= 16:
                    svg.text(x + LANE_W / 2, y + row_h / 2 + 4, f"×{len(owners[w])}", size=9,
                             anchor="middle", fill="#fff", weight="bold")
    svg.rect(LANE_X0, grid_y, WARP * LANE_W, grid_h, stroke="#222", width=1.2)
    for b in range(1, BANKS):
        x = LANE_X0 + b * LANE_W
        svg.line(x, grid_y, x, grid_y + grid_h, stroke="#999", width=0.6)

    # Each lane's line ends above its word's bank; the word itself is coloured in the grid.
    for lane, w in enumerate(words):
        x1, y1 = lane_anchor(lane)
        x2, _ = centre[w]
        svg.line(x1, y1, x2, grid_y - 22, stroke=lane_colour(lane), width=1.1, extra=" stroke-opacity='0.8'")

    y = grid_y + grid_h + 18
    svg.text(LANE_X0 - 8, y, "words per bank", size=9, anchor="end", fill="#555")
    for b, count in enumerate(distinct_per_bank):
        colour = "#c62828" if count == busiest and busiest > 1 else "#555"
        svg.text(LANE_X0 + b * LANE_W + LANE_W / 2, y, count, size=10, anchor="middle", fill=colour,
                 weight="bold" if colour != "#555" else "normal")
    y += 30
    svg.text(LANE_X0, y,
             f"The busiest bank serves {busiest} distinct word{'s' if busiest != 1 else ''}"
             + (" (lanes reading the same word share one read: a broadcast)"
                if len(set(words)) < WARP else ""),
             size=12)
    svg.text(LANE_X0, y + 22,
             f"Simulator: {wavefronts} wavefront{'s' if wavefronts != 1 else ''} in {requests} request"
             f"{'s' if requests != 1 else ''} = {wavefronts / requests:g} per request, "
             f"{conflicts} bank conflict{'s' if conflicts != 1 else ''}",
             size=12, weight="bold")
    svg.text(LANE_X0, y + 44, source_note(access, measured), size=9, fill="#666")
    return svg.render()


# --------------------------------------------------------------------------------------------
# Diagrams that need no simulator


def draw_thread_hierarchy() -> str:
    blocks, threads, n = 4, 8, 29
    cell = 26
    block_w = threads * cell + 16
    x0, y0 = 30, 70
    width = x0 * 2 + blocks * block_w + (blocks - 1) * 14
    height = 455
    svg = Svg(width, height, "The thread hierarchy: a grid of blocks of threads",
              "A grid of 4 blocks of 8 threads covers n = 29 elements; each thread's global index is "
              "blockIdx.x * blockDim.x + threadIdx.x; threads 29 to 31 have no element. Below, a block "
              "of 256 threads runs as 8 warps of 32.")
    svg.text(x0, 26, "A grid of blocks of threads", size=16, weight="bold")
    svg.text(x0, 46, f"kernel<<<{blocks}, {threads}>>>(out, n = {n}):  gridDim.x = {blocks}, "
             f"blockDim.x = {threads}", size=12, mono=True)
    svg.rect(x0 - 10, y0 - 8, width - 2 * x0 + 20, 140, fill="#f7f9fc", stroke="#6a7f99", width=1.2,
             extra=" rx='8'")
    svg.text(x0, y0 + 8, "grid", size=11, fill="#6a7f99", weight="bold")
    for b in range(blocks):
        bx = x0 + b * (block_w + 14)
        by = y0 + 18
        svg.rect(bx, by, block_w, 104, fill="#ffffff", stroke="#2b5d9b", width=1.5, extra=" rx='6'")
        svg.text(bx + 8, by + 17, f"block blockIdx.x = {b}", size=11, weight="bold", fill="#2b5d9b")
        for t in range(threads):
            i = b * threads + t
            tx = bx + 8 + t * cell
            ty = by + 30
            live = i < n
            fill = "#4a90d9" if live else "#d0d0d0"
            svg.rect(tx + 1, ty, cell - 2, 34, fill=fill, stroke="none", extra=" rx='3'")
            svg.text(tx + cell / 2, ty + 14, t, size=10, anchor="middle", fill="#fff", weight="bold")
            svg.text(tx + cell / 2, ty + 28, i, size=9, anchor="middle", fill="#fff" if live else "#777")
            if not live:
                svg.line(tx + 3, ty + 2, tx + cell - 3, ty + 32, stroke="#999", width=1)
            if (b, t) == (2, 5):  # the thread worked through below the grid
                svg.rect(tx - 1, ty - 2, cell + 2, 38, stroke="#d9534f", width=2.5, extra=" rx='4'")
        svg.text(bx + 8, by + 82, "top: threadIdx.x", size=9, fill="#555")
        svg.text(bx + 8, by + 96, "bottom: global index i", size=9, fill="#555")
    ex_b, ex_t = 2, 5
    svg.text(x0, y0 + 160,
             f"Thread {ex_t} of block {ex_b} (red): i = blockIdx.x * blockDim.x + threadIdx.x = "
             f"{ex_b} * {threads} + {ex_t} = {ex_b * threads + ex_t}", size=12, mono=True)
    svg.text(x0, y0 + 180,
             f"{blocks * threads} threads for n = {n} elements: the grey threads (i ≥ n) must do nothing.",
             size=12)

    wy = y0 + 220
    svg.text(x0, wy, "Inside a block: warps", size=16, weight="bold")
    svg.text(x0, wy + 20, "A block of 256 threads runs as 8 warps of 32 consecutive threads; "
             "the 32 threads of a warp execute each instruction together.", size=12)
    seg_w = (width - 2 * x0) / 8
    for w in range(8):
        x = x0 + w * seg_w
        svg.rect(x + 1, wy + 34, seg_w - 2, 40, fill=lane_colour(w * 4), stroke="none", extra=" rx='4'")
        svg.text(x + seg_w / 2, wy + 51, f"warp {w}", size=11, anchor="middle", fill="#fff", weight="bold")
        svg.text(x + seg_w / 2, wy + 67, f"threads {w * 32}–{w * 32 + 31}", size=9, anchor="middle",
                 fill="#fff")
    svg.text(x0, wy + 96, "warp = threadIdx.x / 32, lane = threadIdx.x % 32. Blocks are spread over "
             "the GPU's streaming multiprocessors (SMs);", size=12)
    svg.text(x0, wy + 114, "each SM holds several blocks at once, and every cycle its schedulers "
             "pick warps that are ready to go on.", size=12)
    svg.text(x0, wy + 140, "Diagram drawn by book/figures/generate.py from its parameters "
             "(no measurement).", size=9, fill="#666")
    return svg.render()


def draw_grid_2d() -> str:
    # Exercise 10's launch: blocks 32 wide and 8 high, over a matrix that fits neither.
    width_el, height_el, tile_x, tile_y = 70, 45, 32, 8
    gx = -(-width_el // tile_x)
    gy = -(-height_el // tile_y)
    scale = 6
    x0, y0 = 40, 90
    grid_w, grid_h = gx * tile_x * scale, gy * tile_y * scale
    W = x0 + grid_w + 300
    H = y0 + grid_h + 50
    svg = Svg(W, H, f"A 2D grid of {tile_x} x {tile_y} blocks over a {width_el} x {height_el} matrix",
              f"gridDim = ({gx}, {gy}) blocks of {tile_x} x {tile_y} threads cover a matrix {width_el} wide "
              f"and {height_el} tall; the blocks on the right and bottom edges hang over it and their "
              "outside threads must do nothing.")
    svg.text(x0, 26, f"dim3 block({tile_x}, {tile_y});  dim3 grid({gx}, {gy});  "
             f"// ceil({width_el} / {tile_x}), ceil({height_el} / {tile_y})", size=12, mono=True)
    svg.text(x0, 46, f"A matrix {width_el} wide (columns, x) and {height_el} tall (rows, y), in blocks "
             f"of {tile_x} × {tile_y} threads; each block is labelled with its blockIdx", size=12)
    svg.text(x0, y0 - 8, "x (columns) →", size=11, fill="#555")
    svg.rect(x0, y0, grid_w, grid_h, fill="#eeeeee", stroke="none")
    svg.rect(x0, y0, width_el * scale, height_el * scale, fill="#dce9f7", stroke="#2b5d9b", width=2)
    for bx in range(gx):
        for by in range(gy):
            x = x0 + bx * tile_x * scale
            y = y0 + by * tile_y * scale
            svg.rect(x, y, tile_x * scale, tile_y * scale, stroke="#555", width=1)
            svg.text(x + 5, y + 14, f"({bx}, {by})", size=10, fill="#234")
    col, row = 37, 21
    px, py = x0 + col * scale, y0 + row * scale
    svg.rect(px, py, scale, scale, fill="#d9534f", stroke="none")
    svg.line(px + scale, py + scale / 2, x0 + grid_w + 16, py + scale / 2, stroke="#d9534f")
    tx = x0 + grid_w + 22
    svg.text(tx, py - 22, f"blockIdx = ({col // tile_x}, {row // tile_y}), "
             f"threadIdx = ({col % tile_x}, {row % tile_y})", size=11, mono=True)
    svg.text(tx, py - 4, f"col = {col // tile_x} * {tile_x} + {col % tile_x} = {col}", size=11, mono=True)
    svg.text(tx, py + 14, f"row = {row // tile_y} * {tile_y} + {row % tile_y} = {row}", size=11, mono=True)
    svg.text(tx, py + 32, f"element: a[row * {width_el} + col]", size=11, mono=True)
    svg.text(x0 + grid_w + 10, y0 + grid_h - 4, "grey: threads outside the matrix", size=11, fill="#555")
    svg.text(x0, H - 14, "Diagram drawn by book/figures/generate.py from its parameters "
             "(no measurement).", size=9, fill="#666")
    return svg.render()


def draw_grid_stride() -> str:
    n, blocks, threads = 20, 2, 4
    total = blocks * threads
    cell = 34
    x0, y0 = 30, 70
    W = x0 * 2 + n * cell
    H = 250
    svg = Svg(W, H, "A grid-stride loop: 8 threads cover 20 elements",
              "With 2 blocks of 4 threads, thread t handles elements t, t + 8 and t + 16 while they "
              "are below n = 20.")
    svg.text(x0, 26, "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)",
             size=12, mono=True)
    svg.text(x0, 46, f"{blocks} blocks × {threads} threads = {total} threads, n = {n}: "
             f"stride = {total}", size=12)
    for i in range(n):
        t = i % total
        x = x0 + i * cell
        svg.rect(x + 1, y0, cell - 2, 36, fill=lane_colour(t * 4), stroke="none", extra=" rx='3'")
        svg.text(x + cell / 2, y0 + 15, f"t{t}", size=10, anchor="middle", fill="#fff", weight="bold")
        svg.text(x + cell / 2, y0 + 30, i, size=10, anchor="middle", fill="#fff")
    for trip in range(-(-n // total)):
        x = x0 + trip * total * cell
        end = min(n, (trip + 1) * total)
        svg.line(x + 2, y0 + 50, x0 + end * cell - 2, y0 + 50, stroke="#333", width=1.5)
        svg.text((x + x0 + end * cell) / 2, y0 + 66, f"loop trip {trip + 1}", size=11, anchor="middle")
    svg.text(x0, y0 + 104, "Each colour is one thread (t = global thread index); the number is the "
             "element it handles.", size=12)
    svg.text(x0, y0 + 124, "On each trip the warp's 32 lanes still touch 32 neighbouring elements: "
             "the loop keeps accesses coalesced.", size=12)
    svg.text(x0, H - 20, "Diagram drawn by book/figures/generate.py from its parameters "
             "(no measurement).", size=9, fill="#666")
    return svg.render()


def draw_roofline() -> str:
    import math
    peak_tflops, peak_tbs = 67.0, 3.35  # H100 SXM data sheet: FP32 without tensor cores; HBM3
    ridge = peak_tflops / peak_tbs
    # Arithmetic intensity in FLOP per byte of global traffic, counted from each kernel's code
    # (caches ignored): (label, intensity).
    kernels = [
        ("vector add (02)", 1 / 12),
        ("naive matmul (11)", 2 / 8),
        ("fused relu² (04)", 4 / 8),
        ("softmax (24), about", 8 / 8),
        ("tiled matmul, 16 × 16 (17)", 32 / 8),
    ]
    x_lo, x_hi, y_lo, y_hi = -2, 3, -1, 2  # decades: 0.01..1000 FLOP/B, 0.1..100 TFLOP/s
    x0, y0, pw, ph = 80, 50, 560, 330
    W, H = x0 + pw + 40, y0 + ph + 104

    def px(intensity: float) -> float:
        return x0 + (math.log10(intensity) - x_lo) / (x_hi - x_lo) * pw

    def py(tflops: float) -> float:
        return y0 + ph - (math.log10(tflops) - y_lo) / (y_hi - y_lo) * ph

    svg = Svg(W, H, "Roofline of an H100 SXM from its data sheet",
              f"Attainable FP32 throughput = min({peak_tflops:g} TFLOP/s, intensity x {peak_tbs:g} TB/s); "
              f"the ridge point is at {ridge:.0f} FLOP per byte. Kernels are placed by the arithmetic "
              "intensity counted from their code as if every load went to DRAM, not by measurement; "
              "caches raise the matrix multiplies' real intensity above their points.")
    svg.text(x0, 24, "Roofline: H100 SXM, FP32 without tensor cores (data-sheet peaks)", size=14, weight="bold")
    svg.rect(x0, y0, pw, ph, fill="#fbfbfb", stroke="#444")
    for d in range(x_lo, x_hi + 1):
        x = px(10.0 ** d)
        svg.line(x, y0, x, y0 + ph, stroke="#ddd")
        svg.text(x, y0 + ph + 16, f"{10.0 ** d:g}", size=10, anchor="middle", fill="#444")
    for d in range(y_lo, y_hi + 1):
        y = py(10.0 ** d)
        svg.line(x0, y, x0 + pw, y, stroke="#ddd")
        svg.text(x0 - 6, y + 4, f"{10.0 ** d:g}", size=10, anchor="end", fill="#444")
    svg.text(x0 + pw / 2, y0 + ph + 36, "arithmetic intensity (FLOP per byte of global memory traffic)",
             size=11, anchor="middle")
    svg.text(22, y0 + ph / 2, "TFLOP/s", size=11, anchor="middle", extra=f" transform='rotate(-90 22 {y0 + ph / 2})'")
    # The roof: the bandwidth slope up to the ridge, then the flat compute peak.
    left = max(10.0 ** x_lo, 10.0 ** y_lo / peak_tbs)  # where the slope enters the plot
    svg.add(f"<polyline points='{px(left):.1f},{py(left * peak_tbs):.1f} {px(ridge):.1f},{py(peak_tflops):.1f} "
            f"{px(10.0 ** x_hi):.1f},{py(peak_tflops):.1f}' fill='none' stroke='#c62828' stroke-width='2.5'/>")
    svg.text(px(0.013), py(40), f"the roof: min({peak_tflops:g} TFLOP/s, {peak_tbs:g} TB/s × intensity)",
             size=11, fill="#c62828")
    svg.text(px(0.013), py(40) + 16, "left of the ridge: memory-bound", size=11, fill="#c62828")
    svg.text(px(ridge) + 10, py(peak_tflops) - 8, f"compute-bound: {peak_tflops:g} TFLOP/s", size=11, fill="#c62828")
    svg.line(px(ridge), py(peak_tflops), px(ridge), y0 + ph, stroke="#c62828", width=1, extra=" stroke-dasharray='4 3'")
    svg.text(px(ridge) + 4, y0 + ph - 6, f"ridge: {ridge:.0f} FLOP/B", size=10, fill="#c62828")
    for i, (label, intensity) in enumerate(kernels):
        attainable = min(peak_tflops, intensity * peak_tbs)
        x, y = px(intensity), py(attainable)
        svg.add(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='4.5' fill='{lane_colour(i * 6)}' stroke='#222' stroke-width='0.8'/>")
        svg.text(x + 8, y + 16 + 0 * i, label, size=10, fill="#222")
    svg.text(x0, H - 40, "Peaks from NVIDIA's H100 data sheet. Each kernel sits on the roof at the intensity "
             "counted from its code as if", size=9, fill="#666")
    svg.text(x0, H - 26, "every load went to DRAM: not a measurement, and not a bound. Caches serve the matrix "
             "multiplies' reuse, so they do", size=9, fill="#666")
    svg.text(x0, H - 12, "better: exercise 11 measures 5.0 TFLOP/s on an H200 (Performance chapter). "
             "Drawn by book/figures/generate.py.", size=9, fill="#666")
    return svg.render()


# --------------------------------------------------------------------------------------------
# Host timelines: a whole program's copies and kernels, from the driver's record


@dataclass
class Timeline:
    """A host exercise's program checked in the simulator (`runner check ID --file FILE --json`),
    and the modelled timeline of its largest case drawn: one row per engine (copies in, kernels,
    copies out), each operation a bar coloured by its stream."""
    name: str
    exercise: str
    file: str
    what: str


TIMELINES = [
    Timeline("timeline-streams", "27", "solutions/27_pinned_streams/src/main.rs",
             "8 chunks on 4 streams, pinned memory"),
    Timeline("timeline-one-stream", "27", "runner/tests/fixtures/host/27_one_stream.rs",
             "the same 8 chunks on one stream"),
]

ENGINES = [("host_to_device", "copies in"), ("kernel", "kernels"), ("device_to_host", "copies out")]


def record_of(timeline: Timeline, runner: list[str]) -> dict:
    command = runner + ["check", timeline.exercise, "--file", str(REPO / timeline.file),
                        "--backend", "sim", "--json"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    try:
        report = json.loads(done.stdout)
    except ValueError as err:
        raise FigureError(f"runner check gave no report ({err}): {done.stderr[-400:]}")
    if not report.get("record"):
        raise FigureError(f"the check has no driver record: {report.get('summary')}")
    return report


def timeline_ops(report: dict) -> list[tuple[str, float, float, int]]:
    """(engine, start, end, stream) of each copy over the bus and each kernel, from the first."""
    record = report["record"]
    ops = [(t["direction"], t["start_us"], t["end_us"], t["stream"]) for t in record["transfers"]
           if t["direction"] != "device_to_device"]
    ops += [("kernel", l["start_us"], l["end_us"], l["stream"]) for l in record["launches"]]
    first = min(o[1] for o in ops)
    return [(kind, a - first, b - first, stream) for kind, a, b, stream in ops]


def draw_timeline(timeline: Timeline, report: dict, axis_us: float) -> str:
    """The timeline on an axis of `axis_us` (the same for figures meant to be compared)."""
    ops = timeline_ops(report)
    start, end = 0.0, max(o[2] for o in ops)
    hidden = next((t["got"] for t in report["targets"] if "overlapped" in t["name"]), "?")
    width, left, row_h = 640, 96, 30
    scale = (width - left - 16) / axis_us
    svg = Svg(width, 60 + row_h * len(ENGINES) + 40,
              f"Exercise {timeline.exercise}: {timeline.what}",
              f"The modelled timeline of {timeline.file}'s largest case, from the simulator's "
              f"driver: {hidden} of the copy time overlaps other work.")
    svg.text(left, 22, f"{timeline.what}: {hidden} of copy time hidden, "
             f"{end - start:.0f} µs in all (modelled)", size=13, weight="bold")
    streams = sorted({o[3] for o in ops})
    for row, (kind, label) in enumerate(ENGINES):
        y = 40 + row * row_h
        svg.text(left - 8, y + row_h * 0.62, label, size=12, anchor="end")
        svg.line(left, y + row_h, width - 16, y + row_h, stroke="#ccc")
        for op_kind, op_start, op_end, stream in ops:
            if op_kind != kind:
                continue
            colour = lane_colour(streams.index(stream) * WARP // max(len(streams), 1))
            svg.rect(left + (op_start - start) * scale, y + 4, max((op_end - op_start) * scale, 1.5),
                     row_h - 8, fill=colour, stroke="#333", width=0.6)
    axis_y = 40 + len(ENGINES) * row_h + 16
    for tick in range(5):
        x = left + tick * (width - left - 16) / 4
        anchor = "end" if tick == 4 else "middle"
        svg.text(x, axis_y, f"{tick * axis_us / 4:.0f} µs", size=11, anchor=anchor)
    svg.text(left, axis_y + 20, "colour: the stream each operation was queued on", size=11,
             fill="#555")
    return svg.render()


DIAGRAMS = {
    "roofline": draw_roofline,
    "thread-hierarchy": draw_thread_hierarchy,
    "grid-2d": draw_grid_2d,
    "grid-stride": draw_grid_stride,
}


# --------------------------------------------------------------------------------------------


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
    failures = []
    for name, draw in DIAGRAMS.items():
        if options.only in name:
            drawn[name] = draw()
    for access in ACCESSES:
        if options.only not in access.name:
            continue
        try:
            measured = measure(access, runner)
            drawn[access.name] = draw_global(access, measured) if access.kind == "global" else \
                draw_shared(access, measured)
        except FigureError as err:
            failures.append(f"{access.name}: {err}")

    timelines = [t for t in TIMELINES if options.only in t.name]
    try:
        reports = [record_of(t, runner) for t in timelines]
        # One axis for all: the figures are drawn to be compared.
        axis_us = max((max(o[2] for o in timeline_ops(r)) for r in reports), default=1.0)
        for timeline, report in zip(timelines, reports):
            drawn[timeline.name] = draw_timeline(timeline, report, axis_us)
    except FigureError as err:
        failures.append(f"timelines: {err}")

    stale = []
    OUT.mkdir(parents=True, exist_ok=True)
    for name, svg in drawn.items():
        path = OUT / f"{name}.svg"
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
