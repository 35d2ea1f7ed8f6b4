"""Warp figures: divergence as active-lane masks, and a warp's shuffle reduction and scan, measured.

Each runs a kernel of book/figures/kernels/warps.cu in the course's simulator. The lanes print
what they did (`trace ...`): the `__activemask()` of each step of a branch, or the value each lane
holds after each step of a shuffle loop. The figures draw those printed values; the captions add
the simulator's warp instruction counts for the lines marked `// FIGURE ...`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sim import KERNELS, FigureError, draw_each, sim_report
from svg import WARP, Svg, lane_colour

FILE = "warps.cu"

LABEL_W = 104  # the column of row labels, left of the lanes
CELL = 19  # one lane's width: 104 + 32 * 19 = 712, inside the 720 units a figure may take
WIDTH = 720
INACTIVE = "#e6e6e6"
NOTE = "#555555"
TEXT_EM = 0.6  # a generous average glyph width, in ems, to wrap text inside the figure


def run(kernel: str, block: int, element: str, runner: list[str]) -> dict:
    return sim_report(FILE, kernel, "1", str(block), [f"{element}[{block}]"], runner)


def traces(report: dict) -> list[list[str]]:
    """The words of each `trace ...` line the kernel printed, in the order the simulator ran them."""
    return [line.split()[1:] for line in report.get("printf", "").splitlines() if line.startswith("trace ")]


def marked_instructions(report: dict, tag: str) -> dict:
    """The simulator's warp instructions, by kind, on the line marked `// FIGURE tag` (one line in
    the file; it counts for whichever kernel the report ran)."""
    lines = (KERNELS / FILE).read_text().splitlines()
    marked = [n for n, text in enumerate(lines, 1) if re.search(rf"// FIGURE {tag}\b", text)]
    if len(marked) != 1:
        raise FigureError(f"expected one line marked // FIGURE {tag} in {FILE}, found {len(marked)}")
    for entry in report.get("lines", []):
        if entry["line"] == marked[0] and Path(entry["file"]).name == FILE:
            return entry["instructions"]
    return {}


def wrap(svg: Svg, x: float, y: float, text: str, size: int = 12, fill: str = "#222222",
         weight: str = "normal", width: float = WIDTH - 16) -> float:
    """Writes `text` in lines that fit `width`; returns the y after the last line."""
    per_line = int((width - x) / (size * TEXT_EM))
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > per_line:
            svg.text(x, y, line, size=size, fill=fill, weight=weight)
            y += size + 6
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        svg.text(x, y, line, size=size, fill=fill, weight=weight)
        y += size + 6
    return y


def tint(colour: str, white: float = 0.6) -> str:
    """`colour` mixed with white, light enough for dark text on it."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c + (255 - c) * white):02x}" for c in (r, g, b))


def lane_x(lane: int, cell: float = CELL) -> float:
    return LABEL_W + lane * cell


def lane_header(svg: Svg, y: float, left: str = "lane", lanes: int = WARP, cell: float = CELL) -> None:
    svg.text(LABEL_W - 8, y, left, size=12, anchor="end", fill=NOTE)
    for lane in range(lanes):
        svg.text(lane_x(lane, cell) + cell / 2, y, lane, size=12, anchor="middle", fill=NOTE)


def arrow(svg: Svg, x1: float, y1: float, x2: float, y2: float, colour: str) -> None:
    """A line from (x1, y1) to (x2, y2) with a small head at the end."""
    length = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    bx, by = x2 - 6 * ux, y2 - 6 * uy
    svg.line(x1, y1, bx, by, stroke=colour, width=1.4)
    svg.add(f"<polygon points='{x2:.1f},{y2:.1f} {bx - 3 * uy:.1f},{by + 3 * ux:.1f} "
            f"{bx + 3 * uy:.1f},{by - 3 * ux:.1f}' fill='{colour}'/>")


# --------------------------------------------------------------------------------------------
# Divergence: which lanes are active at each step of an if/else


def masks_by_warp(report: dict) -> dict[int, list[tuple[str, int]]]:
    """Each warp's steps in the order it ran them, with the active mask its lanes printed."""
    steps: dict[int, list[tuple[str, int]]] = {}
    for words in traces(report):
        step, warp, lane, mask = words[0], int(words[1]), int(words[2]), int(words[3], 16)
        if not mask >> lane & 1:
            raise FigureError(f"lane {lane} of warp {warp} printed a mask without itself: {mask:#x}")
        ran = steps.setdefault(warp, [])
        if not ran or ran[-1][0] != step:
            ran.append((step, mask))
        elif ran[-1][1] != mask:
            raise FigureError(f"the lanes of warp {warp} disagree about the mask at {step}")
    return steps


STEP_NAMES = {"before": "before the if", "if": "if side", "else": "else side", "after": "after the if"}


def draw_mask_rows(svg: Svg, y: float, rows: list[tuple[str, int]], heading: str = "") -> float:
    """One row of 32 lanes per step, top to bottom in the order the warp ran them."""
    row_h, gap = 34, 6
    if heading:
        svg.text(LABEL_W, y + 12, heading, size=12, weight="bold", fill=NOTE)
        y += 18
    for step, mask in rows:
        svg.text(LABEL_W - 8, y + 14, STEP_NAMES[step], size=12, anchor="end", weight="bold")
        svg.text(LABEL_W - 8, y + 29, f"{mask:#010x}", size=12, anchor="end", mono=True, fill=NOTE)
        for lane in range(WARP):
            active = mask >> lane & 1
            svg.rect(lane_x(lane) + 1, y + 2, CELL - 2, row_h - 4,
                     fill=lane_colour(lane) if active else INACTIVE, stroke="none")
        y += row_h + gap
    return y


def draw_divergence(runner: list[str]) -> str:
    divergent = run("divergent", WARP, "f32", runner)
    uniform = run("uniform", 2 * WARP, "f32", runner)
    split = masks_by_warp(divergent)
    whole = masks_by_warp(uniform)
    if sorted(split) != [0] or sorted(whole) != [0, 1]:
        raise FigureError(f"expected masks from warp 0, then warps 0 and 1; got {sorted(split)}, {sorted(whole)}")
    sides = {step: mask for step, mask in split[0] if step in ("if", "else")}
    if len(sides) != 2:
        raise FigureError(f"the divergent warp did not run both sides: {split[0]}")
    if_work = sum(marked_instructions(divergent, "if").values())
    else_work = sum(marked_instructions(divergent, "else").values())
    uniform_if = sum(marked_instructions(uniform, "if").values())
    uniform_else = sum(marked_instructions(uniform, "else").values())

    rows = len(split[0]) + len(whole[0]) + len(whole[1])
    height = 200 + rows * 40 + 190
    svg = Svg(WIDTH, height, "Divergence: the active lanes of a warp at each step of an if/else",
              "Above, one warp runs if (lane % 2 == 0) ... else ...: the even lanes run the if side "
              "while the odd lanes wait, then the odd lanes run the else side, then all 32 reconverge. "
              "Below, on a condition that is the same for all 32 lanes of a warp, warp 0 runs only the "
              "if side and warp 1 only the else side, each with all 32 lanes. Active-lane masks printed "
              "by the lanes in the course's simulator.")
    svg.text(8, 24, "Lanes of a warp disagree: if (lane % 2 == 0) … else …", size=14, weight="bold")
    lane_header(svg, 50)
    y = draw_mask_rows(svg, 58, split[0])
    y = wrap(svg, 8, y + 14,
             f"Simulator: the warp runs the if side's loop ({if_work} warp instructions) with the "
             f"{bin(sides['if']).count('1')} lanes of mask {sides['if']:#010x} active, then the else "
             f"side's ({else_work}) with the other {bin(sides['else']).count('1')}: "
             f"{if_work + else_work} warp instructions, in each of which half the lanes do nothing.",
             weight="bold")

    y += 20
    svg.text(8, y, "The same for all 32 lanes of a warp: if (threadIdx.x / 32 == 0) … else …",
             size=14, weight="bold")
    lane_header(svg, y + 26)
    y = draw_mask_rows(svg, y + 34, whole[0], "warp 0 (threads 0 to 31)")
    y = draw_mask_rows(svg, y + 6, whole[1], "warp 1 (threads 32 to 63)")
    y = wrap(svg, 8, y + 14,
             f"Simulator: warp 0 runs only the if side ({uniform_if} warp instructions in all), warp 1 "
             f"only the else side ({uniform_else}), each with all 32 lanes active: no divergence.",
             weight="bold")
    y = wrap(svg, 8, y + 6,
             f"Each lane prints __activemask() at each step: runner sim book/figures/kernels/{FILE} "
             f"--kernel divergent --grid 1 --block 32, and --kernel uniform --block 64. Rows from top to "
             f"bottom in the order each warp ran them; grey: lanes masked off.", fill=NOTE)
    svg.height = int(y + 4)
    return svg.render()


# --------------------------------------------------------------------------------------------
# Shuffles: the value each lane holds after each step of a reduction or a scan


def values_by_step(report: dict, lanes: int) -> list[tuple[int, list[int]]]:
    """(offset, the lanes' values) for each step the lanes printed, the start (offset 0) first."""
    steps: dict[int, dict[int, int]] = {}
    for words in traces(report):
        offset, lane, value = (int(w) for w in words)
        steps.setdefault(offset, {})[lane] = value
    for offset, values in steps.items():
        if sorted(values) != list(range(lanes)):
            raise FigureError(f"step {offset}: expected a value from each of the {lanes} lanes")
    return [(offset, [values[lane] for lane in range(lanes)]) for offset, values in steps.items()]


def draw_shuffle_steps(svg: Svg, y: float, steps: list[tuple[int, list[int]]], down: bool,
                       cell: float = CELL) -> float:
    """One row of lanes per step; arrows from the lanes whose values are added to the lanes that
    add them. In a reduction (`down`), only the lanes below the offset feed lane 0: the others are
    grey, their values unused."""
    row_h, gap = 22, 40
    size = 12 if cell < 40 else 14
    previous_y = None
    for index, (offset, values) in enumerate(steps):
        label = "start" if offset == 0 else f"offset {offset}"
        svg.text(LABEL_W - 8, y + 16, label, size=12, anchor="end", weight="bold")
        for lane, value in enumerate(values):
            used = not down or offset == 0 or lane < offset
            x = lane_x(lane, cell)
            svg.rect(x + 1, y, cell - 2, row_h, fill=tint(lane_colour(lane)) if used else INACTIVE,
                     stroke=lane_colour(lane) if used else "none")
            if used:
                # Two and three digits are a little wider than a lane: drawn tighter.
                tighter = " letter-spacing='-0.5'" if value >= 10 else ""
                svg.text(x + cell / 2, y + 16, value, size=size, anchor="middle", extra=tighter)
        if previous_y is not None:
            for lane in range(len(values)):
                source = lane + offset if down else lane - offset
                if down and lane >= offset or not down and source < 0:
                    continue
                top = previous_y + row_h + 2
                arrow(svg, lane_x(source, cell) + cell / 2, top, lane_x(lane, cell) + cell / 2, y - 2,
                      lane_colour(source))
        previous_y = y
        y += row_h + (gap if index + 1 < len(steps) else 0)
    return y


@dataclass
class Shuffles:
    """A shuffle loop's figure: the kernel, its steps' offsets, and what to say about it."""
    kernel: str
    tag: str  # the shuffle's line is marked `// FIGURE tag`
    offsets: list[int]  # the steps, 0 (the start) first
    down: bool  # __shfl_down_sync (a reduction to lane 0) or __shfl_up_sync (a scan)
    code: list[str]  # the loop's body, shown as the title
    title: str
    description: str
    note: str
    lanes: int = WARP  # a block of this many threads: a whole warp, or the first lanes of one


def draw_shuffles(shuffles: Shuffles, runner: list[str]) -> str:
    lanes = shuffles.lanes
    cell = min(CELL * WARP // lanes, 64)
    report = run(shuffles.kernel, lanes, "i32", runner)
    steps = values_by_step(report, lanes)
    if [offset for offset, _ in steps] != shuffles.offsets:
        raise FigureError(f"expected steps {shuffles.offsets}; the lanes printed {[o for o, _ in steps]}")
    start, final = steps[0][1], steps[-1][1]
    count = marked_instructions(report, shuffles.tag).get("warp", 0)
    if shuffles.down:
        if final[0] != sum(start):
            raise FigureError(f"lane 0 ended with {final[0]}, not the sum {sum(start)} of the lanes' values")
        result = (f"Simulator: {count} shuffles; lane 0 ends with {final[0]}, the sum of the {lanes} values. "
                  "After the step with offset o, lane k holds the sum of lanes k to k + 2o − 1.")
    else:
        expected = [sum(start[:lane + 1]) for lane in range(lanes)]
        if final != expected:
            raise FigureError(f"the scan ended with {final}, not the inclusive scan {expected}")
        ends = ", ".join(map(str, final)) if lanes <= 8 else f"{final[0]}, {final[1]}, {final[2]}, … {final[-1]}"
        result = (f"Simulator: {count} shuffles; lane L ends with {ends}: the sum of lanes 0 to L. "
                  "After the step with offset s, lane L holds "
                  "the sum of the 2s lanes ending at L, or of all lanes from 0.")

    svg = Svg(WIDTH, 600, shuffles.title.format(total=final[0] if shuffles.down else final[-1]),
              shuffles.description + " Values printed by the lanes in the course's simulator.")
    y = 6
    for line in shuffles.code:
        y += 18
        svg.text(8, y, line, size=14, weight="bold", mono=True)
    lane_header(svg, y + 26, lanes=lanes, cell=cell)
    y = draw_shuffle_steps(svg, y + 36, steps, down=shuffles.down, cell=cell)
    y = wrap(svg, 8, y + 26, result, weight="bold")
    y = wrap(svg, 8, y + 6, f"{shuffles.note} Printed by each lane: runner sim book/figures/kernels/"
             f"{FILE} --kernel {shuffles.kernel} --grid 1 --block {lanes}.", fill=NOTE)
    svg.height = int(y + 4)
    return svg.render()


SHUFFLE_SUM = Shuffles(
    "shuffle_sum", "sum", [0, 16, 8, 4, 2, 1], True,
    ["value += __shfl_down_sync(0xffffffff, value, offset);"],
    "A warp's sum with __shfl_down_sync: lane 0 ends with {total}",
    "Six rows of 32 lanes: each lane's value at the start and after the steps with offsets 16, 8, 4, "
    "2 and 1; arrows from lane k + offset to lane k.",
    "Each arrow brings lane k + offset's value to lane k, which adds it. Every lane shuffles, but only "
    "the coloured lanes' sums reach lane 0; grey lanes hold values nobody reads. The lanes start with "
    "the first 32 digits of π.")

SHUFFLE_SCAN = Shuffles(
    "shuffle_scan", "scan", [0, 1, 2, 4, 8, 16], False,
    ["below = __shfl_up_sync(0xffffffff, value, offset);", "if (lane >= offset) value += below;"],
    "A warp's inclusive scan with __shfl_up_sync: lane 31 ends with {total}",
    "Six rows of 32 lanes: each lane's value at the start (1 in every lane) and after the steps with "
    "offsets 1, 2, 4, 8 and 16; arrows from lane L − offset to lane L.",
    "Each arrow brings lane L − offset's value to lane L, which adds it; the lanes below the offset "
    "get their own value back and keep theirs. Every lane starts with 1, so a value is the number of "
    "lanes its sum covers.")

SHUFFLE_SCAN_8 = Shuffles(
    "shuffle_scan_8", "scan8", [0, 1, 2, 4], False,
    ["below = __shfl_up_sync(0xff, value, offset, 8);", "if (lane >= offset) value += below;"],
    "An inclusive scan of 3 1 4 1 5 9 2 6 on 8 lanes with __shfl_up_sync: lane 7 ends with {total}",
    "Four rows of 8 lanes: each lane's value at the start (3 1 4 1 5 9 2 6) and after the steps with "
    "offsets 1, 2 and 4; arrows from lane L − offset to lane L.",
    "Each arrow brings lane L − offset's value to lane L, which adds it; the lanes below the offset "
    "get their own value back and keep theirs. A block of 8 threads, so the mask 0xff names them all "
    "and width 8 keeps the shuffles among them.",
    lanes=8)


FIGURES = {
    "warp-divergence": draw_divergence,
    "warp-shuffle-sum": lambda runner: draw_shuffles(SHUFFLE_SUM, runner),
    "warp-scan-8": lambda runner: draw_shuffles(SHUFFLE_SCAN_8, runner),
    "warp-scan": lambda runner: draw_shuffles(SHUFFLE_SCAN, runner),
}


def draw_all(runner: list[str], only: str) -> tuple[dict[str, str], list[str]]:
    return draw_each(FIGURES, runner, only)
