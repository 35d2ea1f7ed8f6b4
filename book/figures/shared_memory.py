"""Shared-memory figures: a stencil's halo, the tiled transpose, the tiled matrix multiply, and
reduction trees with their banks, each drawn from a run of the simulator.

The drawn kernels are in book/figures/kernels/shared_memory.cu: the exercises' kernels cut down to
a size that can be drawn, printing `trace ...` for what each thread does, so the drawing shows
what the simulator ran. The traffic in the captions is the simulator's, measured on the
exercises' own kernels (solutions/15 to 19, exercise 11's naive multiply) at the book's sizes.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from sim import KERNELS, REPO, FigureError, draw_each, sim_report
from svg import Svg, lane_colour

KERNEL_FILE = "shared_memory.cu"
FIGURE_KERNELS = str((KERNELS / KERNEL_FILE).relative_to(REPO))
EMPTY = "#f4f4f4"
NOTE = "#555555"
WIDTH = 720


def traces(report: dict, tag: str = "") -> list[list[int]]:
    """The numbers of each `trace TAG n n ...` line the kernel printed, in order."""
    prefix = ["trace"] + ([tag] if tag else [])
    rows = []
    for text in report.get("printf", "").splitlines():
        parts = text.split()
        if parts[:len(prefix)] == prefix:
            rows.append([int(part) for part in parts[len(prefix):]])
    if not rows:
        raise FigureError(f"{report.get('kernel')}: no `{' '.join(prefix)} ...` lines in its output")
    return rows


def thread_colour(thread: int, threads: int) -> str:
    """Spreads `threads` threads over the lane palette, so that neighbours stay apart."""
    return lane_colour(thread * 32 // threads)


def ink_on(fill: str) -> str:
    """Dark text on a light fill, white on a dark one."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#222222" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def plural(count: float, word: str) -> str:
    return f"{count:g} {word}" + ("" if count == 1 else "s")


def notes(svg: Svg, y: float, lines: list[str], x: float = 20, size: int = 12, fill: str = NOTE,
          weight: str = "normal") -> float:
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        svg.text(x + indent * 6, y, line.lstrip(" "), size=size, fill=fill, weight=weight)
        y += size + 6
    return y


def load_counts(figures: dict) -> str:
    return f"{figures['global_load_requests']} requests, {figures['global_load_sectors']} sectors"


def finish(svg: Svg, y: float) -> str:
    """The figure, its canvas ending just below the last line of text at y."""
    svg.height = round(y)
    return svg.render()


def per_element(figures: dict, elements: int) -> str:
    return f"{figures['global_load_sectors'] * 8 / elements:.2f}"


# --------------------------------------------------------------------------------------------
# Stencil: the tile and its halo


STENCIL_BLOCK, STENCIL_RADIUS, STENCIL_N = 16, 3, 48
STENCIL_BIG_BLOCK, STENCIL_BIG_N = 256, 1024


def draw_stencil(runner: list[str]) -> str:
    block, radius = STENCIL_BLOCK, STENCIL_RADIUS
    report = sim_report(KERNEL_FILE, "stencil_tiled_traced", "3", str(block),
                        [f"f32[{STENCIL_N}]", f"f32[{STENCIL_N}]", f"i32={STENCIL_N}"], runner)
    stores = traces(report, "tile")  # thread, slot, element
    slots = block + 2 * radius
    by_slot: dict[int, tuple[int, int]] = {}
    for thread, slot, element in stores:
        if slot in by_slot:
            raise FigureError(f"tile slot {slot} written twice")
        by_slot[slot] = (thread, element)
    if sorted(by_slot) != list(range(slots)):
        raise FigureError(f"expected every slot 0..{slots - 1} of the tile written, got {sorted(by_slot)}")
    first = by_slot[radius][1]  # the block's first element
    if any(by_slot[s][1] != first - radius + s for s in range(slots)):
        raise FigureError("the tile is not a copy of a stretch of `in`")
    halo_threads = sorted({thread for s, (thread, _) in by_slot.items() if s < radius or s >= radius + block})

    sizes = [f"f32[{STENCIL_BIG_N}]", f"f32[{STENCIL_BIG_N}]", f"i32={STENCIL_BIG_N}"]
    blocks = STENCIL_BIG_N // STENCIL_BIG_BLOCK
    naive = sim_report(KERNEL_FILE, "stencil_naive", str(blocks), str(STENCIL_BIG_BLOCK), sizes,
                       runner)["figures"]
    tiled = sim_report("solutions/15_stencil/stencil.cu", "stencil_1d", str(blocks), str(STENCIL_BIG_BLOCK),
                       sizes, runner, root=REPO)["figures"]

    cell = 26
    shown = range(first - radius - 2, first + block + radius + 2)  # two of the neighbours' more
    x0 = (WIDTH - len(shown) * cell) / 2 + 20
    in_y, tile_y = 108, 184

    def x_of(element: int) -> float:
        return x0 + (element - shown[0]) * cell

    svg = Svg(WIDTH, 470, f"A block of {block} threads copies its {block} elements and a halo of "
              f"{radius} on each side into shared memory",
              f"Block 1 of a 1D stencil with radius {radius}: each thread copies its own element of in "
              f"into the tile, and threads {halo_threads[0]} to {halo_threads[-1]} also copy the halo. "
              f"Drawn from runner sim {FIGURE_KERNELS} --kernel stencil_tiled_traced --grid 3 "
              f"--block {block}.")
    svg.text(20, 26, f"Block 1's tile: {block} elements plus a halo of RADIUS = {radius} each side",
             size=15, weight="bold")
    svg.text(20, 46, f"Thread t copies in[i] into tile[t + {radius}]; threads 0–{radius - 1} also copy "
             f"tile[t] and tile[t + {radius + block}].", size=12)
    svg.text(20, 64, "In a slot of the tile: the number of the thread that copied it. Dashed: the halo.",
             size=12, fill=NOTE)

    # The blocks that own the elements of `in`.
    for b in range(3):
        left = max(b * block, shown[0])
        right = min((b + 1) * block, shown[-1] + 1)
        if right <= left:
            continue
        colour = "#2b5d9b" if b == 1 else "#888888"
        svg.line(x_of(left) + 2, in_y - 12, x_of(right) - 2, in_y - 12, stroke=colour, width=2)
        svg.text((x_of(left) + x_of(right)) / 2, in_y - 18, f"block {b}", size=12, anchor="middle",
                 fill=colour, weight="bold" if b == 1 else "normal")
    svg.text(x0 - 8, in_y + 17, "in", size=12, anchor="end", fill=NOTE)
    svg.text(x0 - 8, tile_y + 17, "tile", size=12, anchor="end", fill=NOTE)
    loaded = {element: (slot, thread) for slot, (thread, element) in by_slot.items()}
    for element in shown:
        x = x_of(element)
        if element in loaded:
            slot, thread = loaded[element]
            halo = slot < radius or slot >= radius + block
            svg.rect(x, in_y, cell, 26, fill=thread_colour(thread, block), stroke="#ffffff", width=1)
            svg.text(x + cell / 2, in_y + 17, element, size=12, anchor="middle",
                     fill=ink_on(thread_colour(thread, block)), weight="bold")
            # Straight down into its slot of the tile.
            svg.line(x + cell / 2, in_y + 26, x + cell / 2, tile_y - 2, stroke=thread_colour(thread, block),
                     width=2.2 if halo else 1.2, extra=" stroke-dasharray='4 3'" if halo else "")
            svg.rect(x, tile_y, cell, 26, fill=thread_colour(thread, block), stroke="#ffffff", width=1)
            svg.text(x + cell / 2, tile_y + 17, thread, size=12, anchor="middle",
                     fill=ink_on(thread_colour(thread, block)), weight="bold")
            svg.text(x + cell / 2, tile_y + 42, slot, size=12, anchor="middle", fill=NOTE)
        else:
            svg.rect(x, in_y, cell, 26, fill=EMPTY, stroke="#ffffff", width=1)
            svg.text(x + cell / 2, in_y + 17, element, size=12, anchor="middle", fill="#999999")
    tile_x0, tile_x1 = x_of(first - radius), x_of(first + block + radius)
    svg.rect(tile_x0, tile_y, tile_x1 - tile_x0, 26, stroke="#222222", width=1.5)
    for edge in (radius, radius + block):
        x = tile_x0 + edge * cell
        svg.line(x, tile_y - 6, x, tile_y + 32, stroke="#222222", width=2)
    svg.text(x0 - 8, tile_y + 42, "slot", size=12, anchor="end", fill=NOTE)
    for left, text in ((tile_x0, "left halo"), (tile_x1 - radius * cell, "right halo")):
        svg.text(left + radius * cell / 2, tile_y + 62, text, size=12, anchor="middle", weight="bold")

    # The first and last threads' windows reach into the halos.
    window_y = tile_y + 84
    for thread, anchor in ((0, "start"), (block - 1, "end")):
        left = tile_x0 + thread * cell
        right = left + (2 * radius + 1) * cell
        svg.line(left + 2, window_y, right - 2, window_y, stroke=thread_colour(thread, block), width=3)
        for x in (left + 2, right - 2):
            svg.line(x, window_y - 6, x, window_y, stroke=thread_colour(thread, block), width=3)
        svg.text(left if anchor == "start" else right, window_y + 18,
                 f"thread {thread}'s window: tile[{thread}..{thread + 2 * radius}]", size=12, anchor=anchor)

    y = notes(svg, window_y + 52, [
        f"{block + 2 * radius} slots for {block} outputs: each element of in is copied once, and read "
        f"{2 * radius + 1} times from the tile.",
    ], fill="#222222")
    y = notes(svg, y + 8, [
        f"Simulator, exercise 15's sizes (n = {STENCIL_BIG_N}, blocks of {STENCIL_BIG_BLOCK}, "
        f"RADIUS {radius}), global loads:",
        f"   each thread reads its window:  {load_counts(naive)} "
        f"({per_element(naive, STENCIL_BIG_N)} floats per output)",
        f"   through the tile (solution):   {load_counts(tiled)} "
        f"({per_element(tiled, STENCIL_BIG_N)} floats per output)",
    ], fill="#222222", weight="bold")
    y = notes(svg, y + 4, [
        f"Drawn from runner sim {FIGURE_KERNELS} --kernel stencil_tiled_traced",
        f"--grid 3 --block {block} (n = {STENCIL_N}); the loads from stencil_naive and solutions/15_stencil.",
    ])
    return finish(svg, y)


# --------------------------------------------------------------------------------------------
# Tiled transpose


TRANSPOSE_TILE = 8
TRANSPOSE_BIG = 64  # the matrix for the measured figures, in 32 x 32 tiles


def draw_transpose(runner: list[str]) -> str:
    t = TRANSPOSE_TILE
    report = sim_report(KERNEL_FILE, "transpose_tiled_traced", "1", f"{t},{t}",
                        [f"f32[{t * t}]", f"f32[{t * t}]", f"i32={t}", f"i32={t}"], runner)
    loads = traces(report, "load")  # x, y, in element, tile word
    stores = traces(report, "store")  # x, y, tile word, out element
    if len(loads) != t * t or len(stores) != t * t:
        raise FigureError(f"expected {t * t} loads and stores, got {len(loads)} and {len(stores)}")
    in_loader = {element: y for _, y, element, _ in loads}
    tile_writer = {word: y for _, y, _, word in loads}
    tile_holds = {word: element for _, _, element, word in loads}
    tile_reader = {word: y for _, y, word, _ in stores}
    out_writer = {element: y for _, y, _, element in stores}
    out_holds = {element: tile_holds[word] for _, _, word, element in stores}

    big = TRANSPOSE_BIG
    tiles = big // 32
    sizes = [f"f32[{big * big}]", f"f32[{big * big}]", f"i32={big}", f"i32={big}"]
    naive = sim_report("exercises/16_transpose_tiled/transpose_tiled.cu", "transpose_naive",
                       f"{tiles},{tiles}", "32,32", sizes, runner, root=REPO)["figures"]
    tiled = sim_report("solutions/16_transpose_tiled/transpose_tiled.cu", "transpose_tiled",
                       f"{tiles},{tiles}", "32,32", sizes, runner, root=REPO)["figures"]

    def per_request(figures: dict, kind: str) -> str:
        return f"{figures[f'global_{kind}_sectors'] / figures[f'global_{kind}_requests']:g}"

    cell = 24
    panel = t * cell
    left_x, right_x = 70, 70 + panel + 130
    svg = Svg(WIDTH, 760, "A tiled transpose: rows of in into the tile, columns of the tile out as rows",
              f"An {t} x {t} tile transposed through shared memory by {t} x {t} threads, coloured by "
              f"the row of threads (threadIdx.y) that touches each element. Drawn from runner sim "
              f"{FIGURE_KERNELS} --kernel transpose_tiled_traced.")
    svg.text(20, 26, f"Transposing an {t} × {t} tile through shared memory", size=15, weight="bold")
    svg.text(20, 46, "Colour: the row of threads (threadIdx.y) that touches the element; a row of the "
             "32 × 32 kernel is a warp.", size=12, fill=NOTE)
    svg.text(20, 64, "Number: the element of in, counted along its rows. Outlined: what row 2 of threads "
             "touches.", size=12, fill=NOTE)

    def grid(x0: float, y0: float, title: str, colour_of, label_of, highlight: str = "") -> None:
        svg.text(x0, y0 - 10, title, size=12, weight="bold")
        for row in range(t):
            for col in range(t):
                index = row * t + col
                fill = thread_colour(colour_of(index), t)
                svg.rect(x0 + col * cell, y0 + row * cell, cell, cell, fill=fill, stroke="#ffffff", width=1)
                svg.text(x0 + col * cell + cell / 2, y0 + row * cell + 16, label_of(index), size=12,
                         anchor="middle", fill=ink_on(fill), weight="bold")
        svg.rect(x0, y0, panel, panel, stroke="#222222", width=1.2)
        if highlight == "row":
            svg.rect(x0 - 2, y0 + 2 * cell - 2, panel + 4, cell + 4, stroke="#222222", width=2.5)
        elif highlight == "column":
            svg.rect(x0 + 2 * cell - 2, y0 - 2, cell + 4, panel + 4, stroke="#222222", width=2.5)

    def arrow(y0: float, text: str) -> None:
        x1, x2, y = left_x + panel + 16, right_x - 16, y0 + panel / 2
        svg.line(x1, y, x2, y, stroke="#222222", width=2)
        svg.add(f"<polygon points='{x2:.1f},{y:.1f} {x2 - 9:.1f},{y - 5:.1f} {x2 - 9:.1f},{y + 5:.1f}' "
                f"fill='#222222'/>")
        svg.text((x1 + x2) / 2, y - 8, text, size=12, anchor="middle", mono=True)

    step1_y = 124
    svg.text(20, step1_y - 34, "Step 1: thread (x, y) copies in[y][x] into tile[y][x]. Row y of threads "
             "reads row y of in: coalesced.", size=12)
    grid(left_x, step1_y, "in", lambda i: in_loader[i], lambda i: i, "row")
    grid(right_x, step1_y, "tile (shared memory), written", lambda w: tile_writer[w], lambda w: tile_holds[w],
         "row")
    arrow(step1_y, "row y")

    step2_y = step1_y + panel + 96
    svg.text(20, step2_y - 52, "__syncthreads(): every element is in the tile before anyone reads it.",
             size=12, fill=NOTE)
    svg.text(20, step2_y - 34, "Step 2: thread (x, y) writes tile[x][y] to out[y][x]. Row y of threads "
             "reads column y of the tile", size=12)
    svg.text(20, step2_y - 18, "and writes row y of out: coalesced again.", size=12)
    grid(left_x, step2_y + 10, "tile (shared memory), read", lambda w: tile_reader[w], lambda w: tile_holds[w],
         "column")
    grid(right_x, step2_y + 10, "out", lambda e: out_writer[e], lambda e: out_holds[e], "row")
    arrow(step2_y + 10, "column y")
    svg.text(right_x + panel + 14, step2_y + 10 + 2.5 * cell + 4, "row 2 of out", size=12, fill=NOTE)
    svg.text(right_x + panel + 14, step2_y + 10 + 2.5 * cell + 22, "= column 2 of in", size=12, fill=NOTE)

    y = notes(svg, step2_y + panel + 50, [
        f"Simulator, a {big} × {big} matrix in 32 × 32 tiles (exercise 16), global sectors per request:",
        f"   naive transpose:  loads {per_request(naive, 'load')}, stores {per_request(naive, 'store')}",
        f"   tiled transpose:  loads {per_request(tiled, 'load')}, stores {per_request(tiled, 'store')}",
    ], fill="#222222", weight="bold")
    wavefronts = tiled["shared_load_wavefronts"] / tiled["shared_load_requests"]
    y = notes(svg, y + 4, [
        f"Reading a column of the 32 × 32 tile costs {wavefronts:g} wavefronts per request: bank conflicts,",
        "which the next chapter removes.",
        f"Drawn from runner sim {FIGURE_KERNELS} --kernel transpose_tiled_traced",
        f"--grid 1 --block {t},{t}; the sectors from exercise 16's kernels.",
    ])
    return finish(svg, y)


# --------------------------------------------------------------------------------------------
# Tiled matrix multiply


MATMUL_TILE, MATMUL_N = 4, 8
MATMUL_BIG, MATMUL_BIG_TILE = 64, 16
STEP_COLOURS = ["#2f7fc1", "#e8833a"]


def tile_readers(loads: list[list[int]], uses: list[list[int]]) -> dict[tuple[int, int], int]:
    """How many threads read each element of a matrix from its tile in shared memory: `loads` say
    which element (row, col) thread (x, y) copied into tile[y][x] at a step, `uses` which
    tile[r][c] a thread read at a step."""
    at = {(step, y, x): (row, col) for step, x, y, row, col in loads}
    readers: dict[tuple[int, int], set] = defaultdict(set)
    for step, x, y, r, c in uses:
        readers[at[(step, r, c)]].add((x, y))
    return {element: len(threads) for element, threads in readers.items()}


def draw_matmul(runner: list[str]) -> str:
    t, n = MATMUL_TILE, MATMUL_N
    blocks = n // t
    report = sim_report(KERNEL_FILE, "matmul_tiled_traced", f"{blocks},{blocks}", f"{t},{t}",
                        [f"f32[{n * n}]"] * 3 + [f"i32={n}"] * 3, runner)
    a_loads = traces(report, "a")  # step, x, y, row, col
    b_loads = traces(report, "b")
    a_step = {(row, col): step for step, _, _, row, col in a_loads}
    b_step = {(row, col): step for step, _, _, row, col in b_loads}
    if len(a_step) != len(a_loads) or len(b_step) != len(b_loads):
        raise FigureError("the block loaded an element of a or b twice")
    steps = sorted({step for step, *_ in a_loads})
    a_reads = tile_readers(a_loads, traces(report, "use_a"))
    b_reads = tile_readers(b_loads, traces(report, "use_b"))
    reuse = set(a_reads.values()) | set(b_reads.values())
    if len(reuse) != 1:
        raise FigureError(f"elements of the tiles read by differing numbers of threads: {sorted(reuse)}")
    reads_each = reuse.pop()
    c_rows = sorted({row for _, _, _, row, _ in a_loads})
    c_cols = sorted({col for _, _, _, _, col in b_loads})

    big, big_tile = MATMUL_BIG, MATMUL_BIG_TILE
    sizes = [f"f32[{big * big}]"] * 3 + [f"i32={big}"] * 3
    grid = f"{big // big_tile},{big // big_tile}"
    block = f"{big_tile},{big_tile}"
    naive = sim_report("solutions/11_matmul_naive/matmul.cu", "matmul", grid, block, sizes, runner,
                       root=REPO)["figures"]
    tiled = sim_report("solutions/17_matmul_tiled/matmul_tiled.cu", "matmul_tiled", grid, block, sizes, runner,
                       root=REPO)["figures"]

    cell = 24
    size = n * cell
    a_x, top_y = 20, 84
    b_x = a_x + size + 36
    c_y = top_y + size + 40
    svg = Svg(WIDTH, 700, "A tiled matrix multiply: tiles of A and B pass through shared memory",
              f"Block (1, 0) of an {n} x {n} product in {t} x {t} tiles: the tiles of A and B it copies at "
              f"each step, and how many threads read each copied element from shared memory. Drawn from "
              f"runner sim {FIGURE_KERNELS} --kernel matmul_tiled_traced.")
    svg.text(20, 26, f"C = A · B in {t} × {t} tiles: what block (1, 0) copies into shared memory", size=15,
             weight="bold")
    svg.text(20, 46, f"{n} × {n} matrices; block (1, 0) computes rows {c_rows[0]}–{c_rows[-1]}, columns "
             f"{c_cols[0]}–{c_cols[-1]} of C, with {t} × {t} threads.", size=12, fill=NOTE)

    def matrix(x0: float, y0: float, name: str, fill_of, label_of) -> None:
        svg.text(x0 + size / 2, y0 - 8, name, size=14, anchor="middle", weight="bold")
        for row in range(n):
            for col in range(n):
                fill = fill_of(row, col) or EMPTY
                svg.rect(x0 + col * cell, y0 + row * cell, cell, cell, fill=fill, stroke="#ffffff", width=1)
                label = label_of(row, col)
                if label:
                    svg.text(x0 + col * cell + cell / 2, y0 + row * cell + 17, label, size=12, anchor="middle",
                             fill=ink_on(fill), weight="bold")
        svg.rect(x0, y0, size, size, stroke="#222222", width=1.2)
        for k in range(t, n, t):
            svg.line(x0 + k * cell, y0, x0 + k * cell, y0 + size, stroke="#999999", width=1)
            svg.line(x0, y0 + k * cell, x0 + size, y0 + k * cell, stroke="#999999", width=1)

    def step_fill(steps_of: dict):
        return lambda row, col: STEP_COLOURS[steps_of[(row, col)] % 2] if (row, col) in steps_of else None

    matrix(a_x, c_y, "A", step_fill(a_step), lambda row, col: a_reads.get((row, col), ""))
    matrix(b_x, top_y, "B", step_fill(b_step), lambda row, col: b_reads.get((row, col), ""))
    matrix(b_x, c_y, "C", lambda row, col: "#555555" if row in c_rows and col in c_cols else None,
           lambda row, col: "")

    # The legend, above A.
    legend_y = top_y + 10
    for step in steps:
        y = legend_y + step * 24
        svg.rect(a_x, y, 16, 16, fill=STEP_COLOURS[step % 2], stroke="none")
        svg.text(a_x + 24, y + 13, f"copied at step {step} (k = {step * t}–{step * t + t - 1})", size=12)
    y = legend_y + len(steps) * 24
    svg.rect(a_x, y, 16, 16, fill="#555555", stroke="none")
    svg.text(a_x + 24, y + 13, "the block's tile of C", size=12)
    notes(svg, y + 48, [
        "Number: how many of the block's",
        "threads read that element from",
        "its tile (measured).",
    ], x=a_x, fill="#222222")

    notes(svg, c_y + 14, [
        "At each step, every thread copies",
        "one element of A and one of B into",
        "a_tile and b_tile. After a barrier,",
        "thread (x, y) reads row y of a_tile",
        "and column x of b_tile: each copied",
        f"element is read by {reads_each} threads.",
        "",
        f"One global load, {reads_each} uses: TILE = {t}",
        "times fewer global loads than the",
        "naive kernel makes.",
    ], x=b_x + size + 18, fill="#222222")

    naive_elements = naive["global_load_requests"] * 32
    tiled_elements = tiled["global_load_requests"] * 32
    naive_per_request = naive["global_load_sectors"] / naive["global_load_requests"]
    tiled_per_request = tiled["global_load_sectors"] / tiled["global_load_requests"]
    y = notes(svg, c_y + size + 40, [
        f"Simulator, {big} × {big} matrices, blocks of {big_tile} × {big_tile}, global loads:",
        f"   naive (exercise 11):  {load_counts(naive)}",
        f"   tiled (exercise 17):  {load_counts(tiled)}",
    ], fill="#222222", weight="bold")
    y = notes(svg, y + 4, [
        f"{naive_elements // tiled_elements} times fewer requests (TILE = {big_tile}), "
        f"{naive['global_load_sectors'] // tiled['global_load_sectors']} times fewer sectors: a naive "
        f"request needs {naive_per_request:g} sectors",
        f"({big_tile} lanes share each element of A), a tiled one {tiled_per_request:g}.",
        f"Drawn from runner sim {FIGURE_KERNELS} --kernel matmul_tiled_traced",
        f"--grid {blocks},{blocks} --block {t},{t}; the loads from exercises 11 and 17's solutions.",
    ])
    return finish(svg, y)


# --------------------------------------------------------------------------------------------
# Reduction trees and their banks


REDUCE_SIZE = 256  # exercise 19's block
BANKS = 32
WARP = 32


def step_lines(report: dict, macro: str) -> dict[int, dict]:
    """The simulator's figures for each `MACRO(stride);` line of the kernel, by stride."""
    found = {}
    for entry in report.get("lines", []):
        match = re.match(rf"\s*{macro}\((\d+)\);", entry["text"])
        if match:
            found[int(match.group(1))] = entry["figures"]
    if not found:
        raise FigureError(f"{report.get('kernel')}: the simulator reported no {macro}(...) lines")
    return found


def per_request(figures: dict, kind: str) -> float:
    return figures[f"shared_{kind}_wavefronts"] / figures[f"shared_{kind}_requests"]


def draw_reduction(addressing: str, runner: list[str]) -> str:
    """Exercise 19's tree over a block of 256, one step per band: the words the block's first
    warp (one request) adds into and adds, on the rows of 32 words where it touches any, so that a
    column is a bank and a bank asked for several words at once shows as a column with several."""
    macro = f"{addressing.upper()}_STEP"
    kernel = f"reduce_{addressing}_{REDUCE_SIZE}"
    report = sim_report(KERNEL_FILE, kernel, "1", str(REDUCE_SIZE),
                        [f"f32[{REDUCE_SIZE}]", "f32[1]"], runner)
    figures = step_lines(report, macro)
    by_stride: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for stride, thread, to, source in traces(report):
        if thread < WARP:
            by_stride[stride].append((thread, to, source))
    strides = list(by_stride)  # in the order the tree ran them
    if sorted(strides) != sorted(figures):
        raise FigureError(f"traced strides {strides} but the simulator measured {sorted(figures)}")

    def rows_of(stride: int) -> list[int]:
        words = {w for _, to, source in by_stride[stride] for w in (to, source)}
        return sorted({word // BANKS for word in words})

    cell, row_h = 19, 18
    x0 = 78
    band_gap = 54
    top = 112
    height = top + sum(len(rows_of(s)) * row_h + band_gap for s in strides) + 120
    rule = ("thread t adds word 2st + s into word 2st" if addressing == "interleaved"
            else "thread t adds word t + s into word t")
    svg = Svg(WIDTH, height, f"A reduction tree of {REDUCE_SIZE} values, {addressing} addressing, "
              "with the banks each step's first warp reads",
              f"Each step of a block's sum of {REDUCE_SIZE} values in shared memory ({rule}): the "
              f"words that the block's first warp, one request, adds into and adds, on rows of 32 so "
              f"that a column is a bank, with the simulator's wavefronts per request. Drawn from "
              f"runner sim {FIGURE_KERNELS} --kernel {kernel}.")
    svg.text(20, 26, f"{addressing.capitalize()} addressing: {rule}", size=15, weight="bold")
    svg.text(20, 46, f"{REDUCE_SIZE} values; each step shows the first warp's 32 threads (or fewer), one "
             "request. A column is a bank.", size=12, fill=NOTE)
    svg.rect(20, 58, 16, 16, fill=lane_colour(5), stroke="none")
    svg.text(42, 71, "word t adds into (read, then written)", size=12)
    svg.rect(300, 58, 16, 16, fill="#ffffff", stroke=lane_colour(5), width=2.5)
    svg.text(322, 71, "word it adds (read)", size=12)
    svg.text(478, 71, "×n", size=12, anchor="middle", weight="bold", fill="#c62828")
    svg.text(496, 71, "bank asked for n words at once", size=12)
    svg.text(x0 - 8, top - 8, "bank", size=12, anchor="end", fill=NOTE)
    for bank in range(0, BANKS, 4):
        svg.text(x0 + bank * cell + cell / 2, top - 8, bank, size=12, anchor="middle", fill=NOTE)

    y0 = top + 12
    for stride in strides:
        work = sorted(by_stride[stride])
        threads = [thread for thread, _, _ in work]
        to_words = {to: thread for thread, to, _ in work}
        from_words = {source: thread for thread, _, source in work}
        f = figures[stride]
        load, store = per_request(f, "load"), per_request(f, "store")
        conflicts = f["shared_load_bank_conflicts"] + f["shared_store_bank_conflicts"]
        active = f"threads {threads[0]}–{threads[-1]}" if len(threads) > 1 else f"thread {threads[0]}"
        svg.text(20, y0 + 6, f"s = {stride}: {active}", size=12, weight="bold")
        svg.text(200, y0 + 6, f"loads {plural(load, 'wavefront')} per request, stores {store:g}; "
                 f"{plural(conflicts, 'bank conflict')}", size=12,
                 weight="bold", fill="#c62828" if conflicts else "#2e7d32")
        grid_y = y0 + 14
        # The words one request asks each bank for: all the words added into, or all those added.
        busy: dict[int, int] = {}
        for words in (to_words, from_words):
            for bank, count in Counter(word % BANKS for word in words).items():
                if count > 1:
                    busy[bank] = max(busy.get(bank, 0), count)
        rows = rows_of(stride)
        for index, row in enumerate(rows):
            y = grid_y + index * row_h
            svg.text(x0 - 8, y + 14, f"{row * BANKS}–{row * BANKS + BANKS - 1}", size=12, anchor="end",
                     fill=NOTE)
            for bank in range(BANKS):
                word = row * BANKS + bank
                x = x0 + bank * cell
                colour = lane_colour(bank)
                if word in to_words:
                    svg.rect(x, y, cell, row_h, fill=colour, stroke="#ffffff", width=1)
                    svg.text(x + cell / 2, y + 14, to_words[word], size=12, anchor="middle", fill=ink_on(colour),
                             weight="bold")
                elif word in from_words:
                    svg.rect(x + 1.5, y + 1.5, cell - 3, row_h - 3, fill="#ffffff", stroke=colour, width=2.5)
                    svg.text(x + cell / 2, y + 14, from_words[word], size=12, anchor="middle", fill="#222222")
                else:
                    svg.rect(x, y, cell, row_h, fill=EMPTY, stroke="#ffffff", width=1)
        bottom = grid_y + len(rows) * row_h
        for bank, count in sorted(busy.items()):
            svg.text(x0 + bank * cell + cell / 2, bottom + 15, f"×{count}", size=12, anchor="middle",
                     weight="bold", fill="#c62828")
        svg.rect(x0, grid_y, BANKS * cell, len(rows) * row_h, stroke="#222222", width=1)
        y0 = bottom + band_gap - 14

    y = y0 + 8
    total = sum(f["shared_load_bank_conflicts"] + f["shared_store_bank_conflicts"] for f in figures.values())
    lines = [f"{total} bank conflicts in all, loads and stores, over the block's {REDUCE_SIZE // WARP} warps.",
             "Rows of 32 words that the first warp does not touch at a step are left out."]
    if addressing == "interleaved":
        lines.append("At s = 1 the compiler reads words 2t and 2t + 1 with one 8-byte load: 2 wavefronts "
                     "is its best.")
    lines += [f"Drawn from runner sim {FIGURE_KERNELS} --kernel {kernel}",
              f"--grid 1 --block {REDUCE_SIZE}."]
    y = notes(svg, y, lines)
    return finish(svg, y)


FIGURES = {
    "shared-stencil-halo": draw_stencil,
    "shared-transpose-tiled": draw_transpose,
    "shared-matmul-tiled": draw_matmul,
    "reduction-interleaved": lambda runner: draw_reduction("interleaved", runner),
    "reduction-sequential": lambda runner: draw_reduction("sequential", runner),
}


def draw_all(runner: list[str], only: str) -> tuple[dict[str, str], list[str]]:
    return draw_each(FIGURES, runner, only)
