"""Diagrams drawn from their parameters alone (no simulator): thread hierarchy, 2D grid,
grid-stride loop, roofline."""

from __future__ import annotations

import math

from svg import Svg, lane_colour


def draw_thread_hierarchy() -> str:
    blocks, threads, n = 4, 8, 29
    cell = 19  # a thread: its threadIdx.x and global index, two digits at 12 units, one above the other
    block_w = threads * cell + 12
    gap = 10
    x0, y0 = 17, 64
    width = x0 * 2 + blocks * block_w + (blocks - 1) * gap
    svg = Svg(width, 500, "The thread hierarchy: a grid of blocks of threads",
              "A grid of 4 blocks of 8 threads covers n = 29 elements; each thread's global index is "
              "blockIdx.x * blockDim.x + threadIdx.x; threads 29 to 31 have no element. Below, a block "
              "of 256 threads runs as 8 warps of 32.")
    svg.text(x0, 26, "A grid of blocks of threads", size=16, weight="bold")
    svg.text(x0, 46, f"kernel<<<{blocks}, {threads}>>>(out, n = {n}):  gridDim.x = {blocks}, "
             f"blockDim.x = {threads}", size=12, mono=True)
    svg.rect(x0 - 8, y0 - 8, width - 2 * x0 + 16, 150, fill="#f7f9fc", stroke="#6a7f99", width=1.2,
             extra=" rx='8'")
    svg.text(x0, y0 + 8, "grid", size=12, fill="#6a7f99", weight="bold")
    for b in range(blocks):
        bx = x0 + b * (block_w + gap)
        by = y0 + 18
        svg.rect(bx, by, block_w, 116, fill="#ffffff", stroke="#2b5d9b", width=1.5, extra=" rx='6'")
        svg.text(bx + 6, by + 18, f"blockIdx.x = {b}", size=12, weight="bold", fill="#2b5d9b")
        for t in range(threads):
            i = b * threads + t
            tx = bx + 6 + t * cell
            ty = by + 28
            live = i < n
            fill = "#3b7dc4" if live else "#d0d0d0"
            svg.rect(tx + 0.5, ty, cell - 1, 40, fill=fill, stroke="none", extra=" rx='3'")
            svg.text(tx + cell / 2, ty + 16, t, size=12, anchor="middle", fill="#fff", weight="bold")
            svg.text(tx + cell / 2, ty + 33, i, size=12, anchor="middle", fill="#fff" if live else "#555")
            if not live:
                svg.line(tx + 3, ty + 2, tx + cell - 3, ty + 38, stroke="#999", width=1)
            if (b, t) == (2, 5):  # the thread worked through below the grid
                svg.rect(tx - 1, ty - 2, cell + 2, 44, stroke="#d9534f", width=2.5, extra=" rx='4'")
        svg.text(bx + 6, by + 88, "top: threadIdx.x", size=12, fill="#555")
        svg.text(bx + 6, by + 105, "bottom: index i", size=12, fill="#555")
    ex_b, ex_t = 2, 5
    y = svg.paragraph(x0, y0 + 166,
                      f"Thread {ex_t} of block {ex_b} (red): i = blockIdx.x * blockDim.x + threadIdx.x = "
                      f"{ex_b} * {threads} + {ex_t} = {ex_b * threads + ex_t}", mono=True)
    y = svg.paragraph(x0, y + 2, f"{blocks * threads} threads for n = {n} elements: the grey threads "
                      "(i ≥ n) must do nothing.")

    wy = y + 28
    svg.text(x0, wy, "Inside a block: warps", size=16, weight="bold")
    y = svg.paragraph(x0, wy + 22, "A block of 256 threads runs as 8 warps of 32 consecutive threads; "
                      "the 32 threads of a warp execute each instruction together.")
    seg_w = (width - 2 * x0) / 8
    for w in range(8):
        x = x0 + w * seg_w
        svg.rect(x + 1, y, seg_w - 2, 42, fill=lane_colour(w * 4), stroke="none", extra=" rx='4'")
        svg.text(x + seg_w / 2, y + 17, f"warp {w}", size=12, anchor="middle", fill="#fff", weight="bold")
        svg.text(x + seg_w / 2, y + 34, f"{w * 32}–{w * 32 + 31}", size=12, anchor="middle", fill="#fff")
    y = svg.paragraph(x0, y + 64, "warp = threadIdx.x / 32, lane = threadIdx.x % 32. Blocks are spread "
                      "over the GPU's streaming multiprocessors (SMs); each SM holds several blocks at "
                      "once, and every cycle its schedulers pick warps that are ready to go on.")
    y = svg.paragraph(x0, y + 6, "Diagram drawn by book/figures/generate.py from its parameters "
                      "(no measurement).", fill="#666")
    svg.height = round(y)
    return svg.render()


def draw_grid_2d() -> str:
    # Exercise 10's launch: blocks 32 wide and 8 high, over a matrix that fits neither.
    width_el, height_el, tile_x, tile_y = 70, 45, 32, 8
    gx = -(-width_el // tile_x)
    gy = -(-height_el // tile_y)
    scale = 6
    x0, y0 = 56, 96
    grid_w, grid_h = gx * tile_x * scale, gy * tile_y * scale
    W = x0 + grid_w + 40
    svg = Svg(W, 600, f"A 2D grid of {tile_x} x {tile_y} blocks over a {width_el} x {height_el} matrix",
              f"gridDim = ({gx}, {gy}) blocks of {tile_x} x {tile_y} threads cover a matrix {width_el} wide "
              f"and {height_el} tall; the blocks on the right and bottom edges hang over it and their "
              "outside threads must do nothing.")
    y = svg.paragraph(16, 26, f"dim3 block({tile_x}, {tile_y});  dim3 grid({gx}, {gy});  "
                      f"// ceil({width_el} / {tile_x}), ceil({height_el} / {tile_y})", mono=True)
    svg.paragraph(16, y, f"A matrix {width_el} wide (columns, x) and {height_el} tall (rows, y), in "
                  f"blocks of {tile_x} × {tile_y} threads; each block is labelled with its blockIdx.")
    svg.text(x0, y0 - 8, "x (columns) →", size=12, fill="#555")
    # Turned a quarter clockwise, the label's glyphs rise to the right of its baseline: the
    # baseline sits far enough left of the matrix that they stop short of its edge.
    svg.text(x0 - 22, y0, "y (rows) →", size=12, fill="#555",
             extra=f" transform='rotate(90 {x0 - 22} {y0})'")
    svg.rect(x0, y0, grid_w, grid_h, fill="#eeeeee", stroke="none")
    svg.rect(x0, y0, width_el * scale, height_el * scale, fill="#dce9f7", stroke="#2b5d9b", width=2)
    for bx in range(gx):
        for by in range(gy):
            x = x0 + bx * tile_x * scale
            y = y0 + by * tile_y * scale
            svg.rect(x, y, tile_x * scale, tile_y * scale, stroke="#555", width=1)
            # A block that overhangs the matrix with only a sliver inside it is labelled in its
            # grey part, so the label does not cross the matrix's edge.
            inside = min(tile_x, width_el - bx * tile_x) * scale
            label_x = x + 5 if inside >= 48 else x0 + width_el * scale + 5
            svg.text(label_x, y + 16, f"({bx}, {by})", size=12, fill="#234")
    col, row = 37, 21
    px, py = x0 + col * scale, y0 + row * scale
    svg.rect(px - 1, py - 1, scale + 2, scale + 2, fill="#d9534f", stroke="none")
    y = y0 + grid_h + 28
    svg.text(x0, y, "the red thread:", size=12, fill="#c62828", weight="bold")
    svg.text(x0 + 130, y, f"blockIdx = ({col // tile_x}, {row // tile_y}), "
             f"threadIdx = ({col % tile_x}, {row % tile_y})", size=12, mono=True)
    svg.text(x0 + 130, y + 18, f"col = {col // tile_x} * {tile_x} + {col % tile_x} = {col}, "
             f"row = {row // tile_y} * {tile_y} + {row % tile_y} = {row}", size=12, mono=True)
    svg.text(x0 + 130, y + 36, f"element: a[row * {width_el} + col]", size=12, mono=True)
    y = svg.paragraph(x0, y + 62, "grey: threads outside the matrix, which must do nothing", fill="#555")
    y = svg.paragraph(x0, y + 4, "Diagram drawn by book/figures/generate.py from its parameters "
                      "(no measurement).", fill="#666")
    svg.height = round(y)
    return svg.render()


def draw_grid_stride() -> str:
    n, blocks, threads = 20, 2, 4
    total = blocks * threads
    cell = 32
    x0, y0 = 30, 70
    W = x0 * 2 + n * cell
    svg = Svg(W, 300, "A grid-stride loop: 8 threads cover 20 elements",
              "With 2 blocks of 4 threads, thread t handles elements t, t + 8 and t + 16 while they "
              "are below n = 20.")
    svg.text(x0, 26, "for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)",
             size=12, mono=True)
    svg.text(x0, 46, f"{blocks} blocks × {threads} threads = {total} threads, n = {n}: "
             f"stride = {total}", size=12)
    for i in range(n):
        t = i % total
        x = x0 + i * cell
        svg.rect(x + 1, y0, cell - 2, 38, fill=lane_colour(t * 4), stroke="none", extra=" rx='3'")
        svg.text(x + cell / 2, y0 + 16, f"t{t}", size=12, anchor="middle", fill="#fff", weight="bold")
        svg.text(x + cell / 2, y0 + 32, i, size=12, anchor="middle", fill="#fff")
    for trip in range(-(-n // total)):
        x = x0 + trip * total * cell
        end = min(n, (trip + 1) * total)
        svg.line(x + 2, y0 + 52, x0 + end * cell - 2, y0 + 52, stroke="#333", width=1.5)
        svg.text((x + x0 + end * cell) / 2, y0 + 70, f"loop trip {trip + 1}", size=12, anchor="middle")
    y = svg.paragraph(x0, y0 + 104, "Each colour is one thread (t = global thread index); the number is "
                      "the element it handles.")
    y = svg.paragraph(x0, y + 2, "On each trip the warp's 32 lanes still touch 32 neighbouring "
                      "elements: the loop keeps accesses coalesced.")
    y = svg.paragraph(x0, y + 6, "Diagram drawn by book/figures/generate.py from its parameters "
                      "(no measurement).", fill="#666")
    svg.height = round(y)
    return svg.render()


def draw_roofline() -> str:
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
    x0, y0, pw, ph = 70, 50, 600, 330
    W, H = x0 + pw + 30, y0 + ph + 150

    def px(intensity: float) -> float:
        return x0 + (math.log10(intensity) - x_lo) / (x_hi - x_lo) * pw

    def py(tflops: float) -> float:
        return y0 + ph - (math.log10(tflops) - y_lo) / (y_hi - y_lo) * ph

    svg = Svg(W, H, "Roofline of an H100 SXM from its data sheet",
              f"Attainable FP32 throughput = min({peak_tflops:g} TFLOP/s, intensity x {peak_tbs:g} TB/s); "
              f"the ridge point is at {ridge:.0f} FLOP per byte. Kernels are placed by the arithmetic "
              "intensity counted from their code as if every load went to DRAM, not by measurement; "
              "caches raise the matrix multiplies' real intensity above their points.")
    svg.paragraph(16, 26, "Roofline: H100 SXM, FP32 without tensor cores (data-sheet peaks)", size=14,
                  weight="bold")
    svg.rect(x0, y0, pw, ph, fill="#fbfbfb", stroke="#444")
    for d in range(x_lo, x_hi + 1):
        x = px(10.0 ** d)
        svg.line(x, y0, x, y0 + ph, stroke="#ddd")
        svg.text(x, y0 + ph + 18, f"{10.0 ** d:g}", size=12, anchor="middle", fill="#444")
    for d in range(y_lo, y_hi + 1):
        y = py(10.0 ** d)
        svg.line(x0, y, x0 + pw, y, stroke="#ddd")
        svg.text(x0 - 6, y + 4, f"{10.0 ** d:g}", size=12, anchor="end", fill="#444")
    svg.text(x0 + pw / 2, y0 + ph + 40, "arithmetic intensity (FLOP per byte of global memory traffic)",
             size=12, anchor="middle")
    svg.text(22, y0 + ph / 2, "TFLOP/s", size=12, anchor="middle", extra=f" transform='rotate(-90 22 {y0 + ph / 2})'")
    # The roof: the bandwidth slope up to the ridge, then the flat compute peak.
    left = max(10.0 ** x_lo, 10.0 ** y_lo / peak_tbs)  # where the slope enters the plot
    svg.add(f"<polyline points='{px(left):.1f},{py(left * peak_tbs):.1f} {px(ridge):.1f},{py(peak_tflops):.1f} "
            f"{px(10.0 ** x_hi):.1f},{py(peak_tflops):.1f}' fill='none' stroke='#c62828' stroke-width='2.5'/>")
    svg.text(px(0.013), py(40), f"the roof: min({peak_tflops:g} TFLOP/s, {peak_tbs:g} TB/s × intensity)",
             size=12, fill="#c62828")
    svg.text(px(0.013), py(40) + 17, "left of the ridge: memory-bound", size=12, fill="#c62828")
    svg.text(px(ridge) + 8, py(peak_tflops) - 8, f"compute-bound: {peak_tflops:g} TFLOP/s", size=12, fill="#c62828")
    svg.line(px(ridge), py(peak_tflops), px(ridge), y0 + ph, stroke="#c62828", width=1, extra=" stroke-dasharray='4 3'")
    svg.text(px(ridge) + 4, y0 + ph - 6, f"ridge: {ridge:.0f} FLOP/B", size=12, fill="#c62828")
    # A halo in the plot's colour keeps a label readable where the dashed ridge line crosses it.
    halo = " stroke='#fbfbfb' stroke-width='4' stroke-linejoin='round' paint-order='stroke'"
    for i, (label, intensity) in enumerate(kernels):
        attainable = min(peak_tflops, intensity * peak_tbs)
        x, y = px(intensity), py(attainable)
        svg.add(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='5' fill='{lane_colour(i * 6)}' stroke='#222' stroke-width='0.8'/>")
        svg.text(x + 9, y + 17, label, size=12, fill="#222", extra=halo)
    y = svg.paragraph(16, y0 + ph + 70, "Peaks from NVIDIA's H100 data sheet. Each kernel sits on the roof "
                      "at the intensity counted from its code as if every load went to DRAM: not a "
                      "measurement, and not a bound. Caches serve the matrix multiplies' reuse, so they do "
                      "better: exercise 11 measures 5.0 TFLOP/s on an H200 (Performance chapter). Drawn by "
                      "book/figures/generate.py.", fill="#666")
    svg.height = round(y)
    return svg.render()



DIAGRAMS = {
    "roofline": draw_roofline,
    "thread-hierarchy": draw_thread_hierarchy,
    "grid-2d": draw_grid_2d,
    "grid-stride": draw_grid_stride,
}


def draw_all(runner: list[str], only: str) -> tuple[dict[str, str], list[str]]:
    return {name: draw() for name, draw in DIAGRAMS.items() if only in name}, []
