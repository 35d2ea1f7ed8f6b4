"""Access-pattern figures (coalescing and bank conflicts): one warp's access, measured.

Each runs a small kernel from book/figures/kernels/ in the course's simulator with one warp, reads
which bytes each of the 32 lanes touched (the kernel prints `trace LANE OFFSET`) and the
simulator's figures for the line marked `// FIGURE`, and draws lanes to 32-byte sectors (global
memory) or lanes to banks (shared memory). The caption carries the measured figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim import KERNELS, FigureError, figure_line, line_figures, sim_report
from svg import WARP, Svg, lane_colour, text_width

SECTOR_BYTES = 32
BANKS = 32
BANK_WORD_BYTES = 4




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




@dataclass
class Measured:
    line: int  # the FIGURE line, 1-based
    figures: dict  # the simulator's figures for that line
    offsets: list[int]  # byte offset each lane touched, lane 0 first


def measure(access: Access, runner: list[str]) -> Measured:
    line = figure_line((KERNELS / access.file).read_text(), access.kernel)
    report = sim_report(access.file, access.kernel, access.grid, access.block, access.args, runner)
    figures = line_figures(report, access.file, line)
    offsets: dict[int, int] = {}
    for text in report.get("printf", "").splitlines():
        parts = text.split()
        if len(parts) == 3 and parts[0] == "trace":
            offsets[int(parts[1])] = int(parts[2])
    if sorted(offsets) != list(range(WARP)):
        raise FigureError(f"expected a trace line from each of the {WARP} lanes, got lanes {sorted(offsets)}")
    return Measured(line, figures, [offsets[lane] for lane in range(WARP)])


# 32 lanes of 18.5 units and the row labels to their left make a figure 712 units wide: within
# svg.MAX_WIDTH, and a lane still holds its two-digit number at 12 units.
LANE_X0 = 104
LANE_W = 18.5
LANES_Y = 52
LANE_H = 22
MARGIN = 16  # left and right, for the captions under the figure
WIDTH = LANE_X0 + WARP * LANE_W + MARGIN


def draw_lanes(svg: Svg, y: float = LANES_Y) -> None:
    svg.text(LANE_X0 - 8, y + 16, "lane", size=12, anchor="end", fill="#555")
    for lane in range(WARP):
        x = LANE_X0 + lane * LANE_W
        svg.rect(x + 0.5, y, LANE_W - 1, LANE_H, fill=lane_colour(lane), stroke="none")
        svg.text(x + LANE_W / 2, y + 16, lane, size=12, anchor="middle", fill="#fff")


def lane_anchor(lane: int) -> tuple[float, float]:
    return LANE_X0 + lane * LANE_W + LANE_W / 2, LANES_Y + LANE_H


def captions(svg: Svg, y: float, summary: str, measured_line: str, note: str) -> None:
    """The figure's words under it, wrapped to its width; the canvas ends below them."""
    y = svg.paragraph(MARGIN, y, summary)
    y = svg.paragraph(MARGIN, y + 4, measured_line, weight="bold")
    y = svg.paragraph(MARGIN, y + 4, note, fill="#666")
    svg.height = round(y)


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
    gap = 14.0 if len(runs) <= 8 else 5.0
    strip_w = WARP * LANE_W
    cells = len(sectors) * words_per_sector
    cell_w = (strip_w - gap * (len(runs) - 1)) / cells
    ideal = -(-WARP * word // SECTOR_BYTES)  # 32 lanes x word bytes, rounded up to whole sectors

    svg = Svg(WIDTH, 300, f"{access.title}: {per_request:g} sectors per request",
              f"One warp's load. {source_note(access, measured)}")
    svg.text(MARGIN, 26, access.title, size=14, weight="bold", mono=True)
    draw_lanes(svg)

    strip_y = 170
    cell_h = 28
    # Where each touched word is drawn.
    word_x: dict[int, float] = {}
    x = LANE_X0
    sector_w = cell_w * words_per_sector
    widest = max(text_width(f"{s * 32}–{s * 32 + 31}", 12) for s in sectors)
    labelled = widest <= sector_w - 4
    for r, run in enumerate(runs):
        if r > 0:
            if gap >= text_width("…", 12):
                svg.text(x + gap / 2, strip_y + cell_h / 2 + 4, "…", size=12, anchor="middle", fill="#888")
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
                svg.text((sector_x + x) / 2, strip_y + cell_h + 16, f"{s * 32}–{s * 32 + 31}",
                         size=12, anchor="middle", fill="#555")
    if labelled:
        svg.text(LANE_X0 - 8, strip_y + cell_h + 16, "bytes", size=12, anchor="end", fill="#555")
    else:
        svg.text(LANE_X0, strip_y + cell_h + 16,
                 f"{len(sectors)} sectors from byte {sectors[0] * 32} to byte {sectors[-1] * 32 + 31}"
                 + ("; the gaps are sectors no lane touches" if len(runs) > 1 else ""), size=12, fill="#555")
    svg.text(LANE_X0 - 8, strip_y + cell_h / 2 + 5, "memory", size=12, anchor="end", fill="#555")

    for lane, off in enumerate(measured.offsets):
        x1, y1 = lane_anchor(lane)
        svg.line(x1, y1, word_x[off // word], strip_y, stroke=lane_colour(lane), width=1.2,
                 extra=" stroke-opacity='0.8'")

    captions(svg, strip_y + cell_h + 48,
             f"{len(touched_words)} words of {word} bytes used · {len(sectors)} sectors of 32 bytes "
             f"touched · {len(sectors) * SECTOR_BYTES} bytes moved for {WARP * word} bytes used",
             f"Simulator: {sectors_measured} sectors in {requests} request{'s' if requests != 1 else ''}"
             f" = {per_request:g} sectors per request (the least possible is {ideal})",
             source_note(access, measured))
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
    grid_y = 166
    grid_h = row_h * len(rows)
    svg = Svg(WIDTH, grid_y + grid_h + 112,
              f"{access.title}: {wavefronts / requests:g} wavefronts per request",
              f"One warp's shared-memory load. {source_note(access, measured)}")
    svg.text(MARGIN, 26, access.title, size=14, weight="bold", mono=True)
    draw_lanes(svg)

    svg.text(LANE_X0 - 8, grid_y - 8, "bank", size=12, anchor="end", fill="#555")
    for b in range(BANKS):
        svg.text(LANE_X0 + b * LANE_W + LANE_W / 2, grid_y - 8, b, size=12, anchor="middle", fill="#555")
    owners: dict[int, list[int]] = {}
    for lane, w in enumerate(words):
        owners.setdefault(w, []).append(lane)
    centre: dict[int, tuple[float, float]] = {}
    for r, row in enumerate(rows):
        y = grid_y + r * row_h
        if len(rows) <= 8 or r % 4 == 0:
            label = f"words {row * 32}–{row * 32 + 31}"
            if text_width(label, 12) > LANE_X0 - 12:
                label = label.removeprefix("words ")
            svg.text(LANE_X0 - 8, y + row_h / 2 + 4, label, size=12, anchor="end", fill="#555")
        for b in range(BANKS):
            w = row * BANKS + b
            x = LANE_X0 + b * LANE_W
            fill = lane_colour(owners[w][0]) if w in owners else "#f4f4f4"
            svg.rect(x, y, LANE_W, row_h, fill=fill, stroke="#ccc", width=0.5)
            if w in owners:
                centre[w] = (x + LANE_W / 2, y + row_h / 2)
                if len(owners[w]) > 1 and row_h >= 16:
                    svg.text(x + LANE_W / 2, y + row_h / 2 + 4, len(owners[w]), size=12,
                             anchor="middle", fill="#fff", weight="bold")
    svg.rect(LANE_X0, grid_y, WARP * LANE_W, grid_h, stroke="#222", width=1.2)
    for b in range(1, BANKS):
        x = LANE_X0 + b * LANE_W
        svg.line(x, grid_y, x, grid_y + grid_h, stroke="#999", width=0.6)

    # Each lane's line ends above its word's bank; the word itself is coloured in the grid.
    for lane, w in enumerate(words):
        x1, y1 = lane_anchor(lane)
        x2, _ = centre[w]
        svg.line(x1, y1, x2, grid_y - 24, stroke=lane_colour(lane), width=1.1, extra=" stroke-opacity='0.8'")

    y = grid_y + grid_h + 18
    svg.text(LANE_X0 - 8, y, "words per bank", size=12, anchor="end", fill="#555")
    for b, count in enumerate(distinct_per_bank):
        colour = "#c62828" if count == busiest and busiest > 1 else "#555"
        svg.text(LANE_X0 + b * LANE_W + LANE_W / 2, y, count, size=12, anchor="middle", fill=colour,
                 weight="bold" if colour != "#555" else "normal")
    captions(svg, y + 30,
             f"The busiest bank serves {busiest} distinct word{'s' if busiest != 1 else ''}"
             + (" (lanes reading the same word share one read: a broadcast)"
                if len(set(words)) < WARP else "")
             + (". A number in a word: how many lanes read it" if any(len(o) > 1 for o in owners.values())
                and row_h >= 16 else ""),
             f"Simulator: {wavefronts} wavefront{'s' if wavefronts != 1 else ''} in {requests} request"
             f"{'s' if requests != 1 else ''} = {wavefronts / requests:g} per request, "
             f"{conflicts} bank conflict{'s' if conflicts != 1 else ''}",
             source_note(access, measured))
    return svg.render()



def draw_all(runner: list[str], only: str) -> tuple[dict[str, str], list[str]]:
    drawn, failures = {}, []
    for access in ACCESSES:
        if only not in access.name:
            continue
        try:
            measured = measure(access, runner)
            draw = draw_global if access.kind == "global" else draw_shared
            drawn[access.name] = draw(access, measured)
        except FigureError as err:
            failures.append(f"{access.name}: {err}")
    return drawn, failures
