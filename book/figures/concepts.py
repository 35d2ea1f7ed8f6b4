"""Concept figures for the chapters that explain ideas rather than access patterns: the course's
loop, a CPU beside an H100, host and device, one thread per element, per-thread random streams,
an out-of-bounds access, and the layers of CUDA from Python.

Where the simulator can show the idea, the figure is drawn from what it reports: which thread took
which element and the random numbers each thread drew (the kernels in
book/figures/kernels/concepts.cu print `trace ...` lines), the simulator's diagnostic for a kernel
without its bounds guard, and the simulated driver's record of whole programs (exercise 25, and
exercise py02's solution beside its NumPy-arrays fixture). The rest are diagrams drawn from their
parameters, and say so in a note.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import textwrap

from sim import KERNELS, REPO, FigureError, draw_each
from svg import Svg
from timelines import Timeline, record_of, timeline_ops

KERNEL_FILE = "concepts.cu"
BLUE, GREEN, RED, GREY = "#2b5d9b", "#2e7d32", "#c62828", "#666666"
HOST_FILL, DEVICE_FILE_FILL, NOTE = "#eef3fa", "#edf6ee", "#555555"
PARAMETERS_NOTE = "Diagram drawn by book/figures/generate.py from its parameters (no measurement)."


# --------------------------------------------------------------------------------------------
# Drawing helpers


def arrow(svg: Svg, x1, y1, x2, y2, colour="#333333", width=1.5, head=8.0) -> None:
    """A line from (x1, y1) with an arrowhead at (x2, y2)."""
    angle = math.atan2(y2 - y1, x2 - x1)
    base_x, base_y = x2 - head * math.cos(angle), y2 - head * math.sin(angle)
    svg.line(x1, y1, base_x, base_y, stroke=colour, width=width)
    left = (base_x + head * 0.45 * math.sin(angle), base_y - head * 0.45 * math.cos(angle))
    right = (base_x - head * 0.45 * math.sin(angle), base_y + head * 0.45 * math.cos(angle))
    svg.add(f"<polygon points='{x2:.1f},{y2:.1f} {left[0]:.1f},{left[1]:.1f} {right[0]:.1f},{right[1]:.1f}' "
            f"fill='{colour}' stroke='none'/>")


def box(svg: Svg, x, y, w, h, lines: list[str], fill="#ffffff", stroke="#333333", bold_first=True,
        size=12, mono=False, colour="#222222") -> None:
    """A rounded box with its lines of text centred in it."""
    svg.rect(x, y, w, h, fill=fill, stroke=stroke, width=1.4, extra=" rx='6'")
    step = size + 4
    top = y + h / 2 - step * (len(lines) - 1) / 2 + size * 0.35
    for k, line in enumerate(lines):
        svg.text(x + w / 2, top + k * step, line, size=size, anchor="middle", mono=mono, fill=colour,
                 weight="bold" if bold_first and k == 0 else "normal")


def wrapped(svg: Svg, x, y, text: str, chars: int, size=12, fill="#222222", mono=False) -> float:
    """Text wrapped at `chars` characters a line; returns the y below the last line."""
    for line in textwrap.wrap(text, chars):
        svg.text(x, y, line, size=size, fill=fill, mono=mono)
        y += size + 5
    return y


def value_fill(value: float) -> str:
    """A blue from very light (0) to medium (1), for a number in [0, 1): dark text stays legible on
    every shade, and so does light text on the dark theme's version."""
    light = (0xf0, 0xf5, 0xfc)
    dark = (0x6f, 0x9c, 0xd4)
    r, g, b = (round(a + (c - a) * value) for a, c in zip(light, dark))
    return f"#{r:02x}{g:02x}{b:02x}"


# --------------------------------------------------------------------------------------------
# Running the simulator and the simulated driver


def simulate(kernel: str, grid: str, block: str, args: list[str], runner: list[str],
             expect_diagnostics: bool = False, source: str = "") -> dict:
    """`runner sim` on a kernel of concepts.cu (or of `source`, a path in the repository), as JSON.
    A run with diagnostics exits with status 1 and still prints its report; it is wanted only when
    `expect_diagnostics`."""
    source = source or str((KERNELS / KERNEL_FILE).relative_to(REPO))
    command = runner + ["sim", source, "--kernel", kernel, "--grid", grid, "--block", block, "--json"]
    for arg in args:
        command += ["--arg", arg]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True,
                          env=dict(os.environ, NO_COLOR="1"))
    try:
        report = json.loads(done.stdout)
    except ValueError as err:
        raise FigureError(f"runner sim --kernel {kernel} printed no report ({err}): {done.stderr[-400:]}")
    if bool(report.get("diagnostics")) != expect_diagnostics:
        wanted = "a diagnostic" if expect_diagnostics else "no diagnostics"
        raise FigureError(f"runner sim --kernel {kernel}: expected {wanted}, got {report.get('diagnostics')}")
    return report


def traces(report: dict) -> list[list[str]]:
    """The words after `trace` of each line the kernel printed."""
    return [line.split()[1:] for line in report.get("printf", "").splitlines() if line.startswith("trace ")]


def driver_record(exercise: str, file: str, runner: list[str]) -> dict:
    """`runner check EXERCISE --file FILE --backend sim --json`: the check's report, with the
    simulated driver's record of the program's largest case."""
    return record_of(Timeline(f"{exercise}-{file}", exercise, file, ""), runner)


# --------------------------------------------------------------------------------------------
# Introduction: the course's loop


def draw_course_loop(runner: list[str]) -> str:
    svg = Svg(700, 340, "How the course works: read, write a kernel, let the runner check it",
              "You read a chapter and write the kernel of its exercise. runner check compiles it with "
              "NVRTC, runs it on a GPU when there is one (and times it) or in the simulator (which "
              "counts memory traffic and finds races and out-of-bounds accesses), compares the outputs "
              "with a CPU reference, and reports a verdict, the first wrong elements and a hint.")
    svg.text(20, 26, "The course's loop: read, write a kernel, let the runner check it", size=15,
             weight="bold")
    svg.text(20, 52, "A GPU is optional: without one,", size=12, fill=NOTE)
    svg.text(20, 68, "the simulator behaves like an H100.", size=12, fill=NOTE)
    y, h, w = 92, 96, 150
    box(svg, 20, y, w, h, ["the book", "explains an idea,", "then gives an", "exercise"],
        fill=HOST_FILL, stroke=BLUE)
    box(svg, 196, y, w, h, ["your kernel", "exercises/NN_…/", "*.cu: you fill", "in the TODO"],
        fill="#fff7e6", stroke="#b26a00")
    arrow(svg, 170, y + h / 2, 194, y + h / 2)
    arrow(svg, 346, y + h / 2, 370, y + h / 2)
    # runner check: compile, run on one of two backends, compare.
    svg.rect(372, 40, 308, 244, fill="#fafafa", stroke="#333333", width=1.2, extra=" rx='8'")
    svg.text(526, 62, "runner check NN", size=13, weight="bold", anchor="middle", mono=True)
    box(svg, 384, 74, 284, 34, ["NVRTC compiles it"], fill="#ffffff")
    box(svg, 384, 126, 136, 66, ["on a GPU", "runs it,", "times it"], fill=DEVICE_FILE_FILL, stroke=GREEN)
    box(svg, 532, 126, 136, 66, ["no GPU: simulator", "counts sectors,", "finds races"],
        fill=DEVICE_FILE_FILL, stroke=GREEN)
    box(svg, 384, 210, 284, 34, ["compares the outputs with a CPU reference"], fill="#ffffff",
        bold_first=False)
    for x in (452, 600):
        arrow(svg, x, 108, x, 124)
        arrow(svg, x, 192, x, 208)
    svg.text(526, 268, "verdict · first wrong elements · hint", size=12, anchor="middle", fill=RED)
    # Back from the verdict to the kernel: the loop.
    svg.line(372, 264, 271, 264, stroke=RED, width=1.5)
    arrow(svg, 271, 264, 271, y + h + 2, colour=RED)
    svg.text(20, 306, "read the message, fix, check again (runner watch checks on every save)", size=12,
             fill=RED)
    svg.text(20, 328, PARAMETERS_NOTE, size=12, fill=GREY)
    return svg.render()


# --------------------------------------------------------------------------------------------
# CPUs and GPUs: few big cores against many small ones

H100_SMS, SM_COLUMNS = 132, 12
SCHEDULERS_PER_SM, LANES_PER_SCHEDULER = 4, 32  # 128 FP32 lanes per SM
CPU_CORES = 8


def draw_cpu_vs_gpu(runner: list[str]) -> str:
    lanes = SCHEDULERS_PER_SM * LANES_PER_SCHEDULER
    svg = Svg(700, 480, f"A CPU's {CPU_CORES} large cores beside an H100's {H100_SMS} SMs",
              f"Left: a desktop CPU with {CPU_CORES} cores, most of each core's area spent on control "
              "(out-of-order execution, branch prediction) and caches, with a SIMD unit of 8 lanes. "
              f"Right: an H100 SXM with {H100_SMS} streaming multiprocessors; one SM enlarged has "
              f"{SCHEDULERS_PER_SM} schedulers of {LANES_PER_SCHEDULER} FP32 lanes each ({lanes} lanes), "
              "a 256 KB register file and 256 KB of L1 cache and shared memory.")
    svg.text(20, 26, "Where the transistors go: a few big cores, or many small ones", size=15,
             weight="bold")

    # The CPU: big cores, each mostly control and cache.
    x0, y0 = 20, 60
    svg.text(x0, y0 - 12, f"A desktop CPU: {CPU_CORES} cores", size=13, weight="bold", fill=BLUE)
    core_w, core_h = 104, 66
    for core in range(CPU_CORES):
        cx = x0 + (core % 2) * (core_w + 8)
        cy = y0 + (core // 2) * (core_h + 8)
        svg.rect(cx, cy, core_w, core_h, fill="#ffffff", stroke=BLUE, width=1.4, extra=" rx='4'")
        svg.rect(cx + 4, cy + 4, core_w - 8, 20, fill="#dfe8f5", stroke="none")
        svg.text(cx + core_w / 2, cy + 19, "control", size=12, anchor="middle")
        svg.rect(cx + 4, cy + 27, core_w - 8, 18, fill="#f3d9a4", stroke="none")
        svg.text(cx + core_w / 2, cy + 41, "L1 + L2", size=12, anchor="middle")
        for lane in range(8):
            svg.rect(cx + 6 + lane * 11.5, cy + 49, 9.5, 12, fill="#4a90d9", stroke="none")
    l3_y = y0 + 4 * (core_h + 8)
    svg.rect(x0, l3_y, 2 * core_w + 8, 30, fill="#f3d9a4", stroke=BLUE, width=1.2, extra=" rx='4'")
    svg.text(x0 + core_w + 4, l3_y + 20, "L3 cache, shared", size=12, anchor="middle")
    svg.text(x0, l3_y + 50, "blue: 8 SIMD lanes a core,", size=12, fill=NOTE)
    svg.text(x0, l3_y + 66, f"{CPU_CORES * 8} float lanes in all", size=12, fill=NOTE)

    # The H100: a grid of SMs, one enlarged.
    gx, gy, pitch = 262, 60, 14
    svg.text(gx, gy - 12, f"An H100 SXM: {H100_SMS} SMs", size=13, weight="bold", fill=GREEN)
    rows = -(-H100_SMS // SM_COLUMNS)
    for sm in range(H100_SMS):
        sx = gx + (sm % SM_COLUMNS) * pitch
        sy = gy + (sm // SM_COLUMNS) * pitch
        fill = RED if sm == 0 else "#66a86a"
        svg.rect(sx, sy, pitch - 2, pitch - 2, fill=fill, stroke="none")
    grid_w, grid_h = SM_COLUMNS * pitch, rows * pitch
    svg.rect(gx - 4, gy + grid_h + 6, grid_w + 6, 26, fill="#f3d9a4", stroke=GREEN, width=1.2,
             extra=" rx='4'")
    svg.text(gx + grid_w / 2, gy + grid_h + 24, "L2 cache, 50 MB", size=12, anchor="middle")
    svg.rect(gx - 4, gy + grid_h + 38, grid_w + 6, 26, fill="#e0e0e0", stroke=GREEN, width=1.2,
             extra=" rx='4'")
    svg.text(gx + grid_w / 2, gy + grid_h + 56, "HBM3 memory, 80 GB", size=12, anchor="middle")
    svg.text(gx, gy + grid_h + 84, f"{H100_SMS} SMs × {lanes} lanes =", size=12, fill=NOTE)
    svg.text(gx, gy + grid_h + 100, f"{H100_SMS * lanes:,} FP32 lanes in all", size=12, fill=NOTE)

    # One SM, enlarged: four schedulers, each with 32 lanes and a quarter of the register file.
    sx, sy, sw = 446, 60, 240
    svg.text(sx, sy - 12, "One SM (red), enlarged", size=13, weight="bold", fill=RED)
    svg.rect(sx, sy, sw, 344, fill="#ffffff", stroke=RED, width=1.6, extra=" rx='6'")
    quarter_w, quarter_h = (sw - 24) / 2, 112
    for q in range(SCHEDULERS_PER_SM):
        qx = sx + 8 + (q % 2) * (quarter_w + 8)
        qy = sy + 8 + (q // 2) * (quarter_h + 8)
        svg.rect(qx, qy, quarter_w, quarter_h, fill="#f7faf7", stroke=GREEN, width=1)
        svg.rect(qx + 4, qy + 4, quarter_w - 8, 18, fill="#dfe8f5", stroke="none")
        svg.text(qx + quarter_w / 2, qy + 17, "scheduler", size=12, anchor="middle")
        per_row = 8
        cell = (quarter_w - 12) / per_row
        for lane in range(LANES_PER_SCHEDULER):
            lx = qx + 6 + (lane % per_row) * cell
            ly = qy + 28 + (lane // per_row) * 11
            svg.rect(lx, ly, cell - 2, 9, fill="#4a90d9", stroke="none")
        svg.rect(qx + 4, qy + 76, quarter_w - 8, 30, fill="#e8e0f3", stroke="none")
        svg.text(qx + quarter_w / 2, qy + 95, "64 KB registers", size=12, anchor="middle")
    shared_y = sy + 8 + 2 * (quarter_h + 8)
    svg.rect(sx + 8, shared_y, sw - 16, 34, fill="#f3d9a4", stroke="none")
    svg.text(sx + sw / 2, shared_y + 15, "256 KB: L1 cache and", size=12, anchor="middle")
    svg.text(sx + sw / 2, shared_y + 29, "shared memory (≤ 228 KB)", size=12, anchor="middle")
    svg.text(sx + 10, shared_y + 54, f"blue: {lanes} FP32 lanes, {LANES_PER_SCHEDULER} per", size=12,
             fill=NOTE)
    svg.text(sx + 10, shared_y + 70, "scheduler: a warp's 32 additions", size=12, fill=NOTE)
    svg.text(sx + 10, shared_y + 86, "in one cycle", size=12, fill=NOTE)
    svg.text(20, 450, "H100 counts from NVIDIA's H100 white paper (132 SMs, 4 × 32 FP32 lanes and 256 KB of "
             "registers", size=12, fill=GREY)
    svg.text(20, 468, "per SM); the CPU is a typical desktop part, not one model. Drawn from these parameters "
             "(no measurement).", size=12, fill=GREY)
    return svg.render()


# --------------------------------------------------------------------------------------------
# CPUs and GPUs: hiding latency by switching warps (a toy scheduler, from parameters)

LOAD_LATENCY = 20  # cycles here; hundreds on a real GPU
WARP_PROGRAM = "cccLcccLccc"  # c: an arithmetic instruction; L: a load the next instruction needs


def schedule(warps: int) -> tuple[list[list[tuple[int, str]]], list[list[tuple[int, int]]], int]:
    """One scheduler issuing at most one instruction a cycle: from the warp it issued last while
    that warp is ready, else from the next ready warp in turn; after a load its warp waits
    LOAD_LATENCY cycles. Returns each warp's issues (cycle, kind), its waits (first cycle, last
    cycle + 1) and the cycle count."""
    pc = [0] * warps
    ready_at = [0] * warps
    issues: list[list[tuple[int, str]]] = [[] for _ in range(warps)]
    waits: list[list[tuple[int, int]]] = [[] for _ in range(warps)]
    cycle, last = 0, 0
    while any(p < len(WARP_PROGRAM) for p in pc):
        for turn in range(warps):
            w = (last + turn) % warps
            if pc[w] < len(WARP_PROGRAM) and ready_at[w] <= cycle:
                kind = WARP_PROGRAM[pc[w]]
                issues[w].append((cycle, kind))
                pc[w] += 1
                ready_at[w] = cycle + (LOAD_LATENCY if kind == "L" else 1)
                if kind == "L" and pc[w] < len(WARP_PROGRAM):
                    waits[w].append((cycle + 1, cycle + LOAD_LATENCY))
                last = w
                break
        cycle += 1
    return issues, waits, cycle


def draw_latency_hiding(runner: list[str]) -> str:
    runs = [(warps, *schedule(warps)) for warps in (1, 4, 8)]
    longest = max(cycles for _, _, _, cycles in runs)
    cell = min(10.0, 560 / longest)
    left = 110
    height = 50 + sum(22 + warps * 22 + 44 for warps, _, _, _ in runs) + 40
    svg = Svg(700, height, "Hiding latency: one scheduler, warps taking turns",
              f"A toy scheduler that issues one instruction a cycle. Each warp runs {len(WARP_PROGRAM)} "
              f"instructions with two loads, each followed by {LOAD_LATENCY} cycles of waiting. "
              + " ".join(f"With {warps} warp{'s' if warps > 1 else ''} the scheduler is busy "
                         f"{sum(len(i) for i in issues)} of {cycles} cycles."
                         for warps, issues, _, cycles in runs))
    svg.text(20, 26, "Hiding latency: while one warp waits, the scheduler issues another's", size=15,
             weight="bold")
    y = 50
    for warps, issues, waits, cycles in runs:
        busy = sum(len(i) for i in issues)
        svg.text(20, y + 12, f"{warps} warp{'s' if warps > 1 else ''} on the scheduler: busy {busy} of "
                 f"{cycles} cycles ({busy / cycles:.0%})", size=13, weight="bold")
        y += 22
        for w in range(warps):
            svg.text(left - 8, y + 14, f"warp {w}", size=12, anchor="end")
            for start, stop in waits[w]:
                svg.rect(left + start * cell, y + 4, (stop - start) * cell, 12, fill="#eeeeee", stroke="#bbbbbb",
                         width=0.8)
            for cycle, kind in issues[w]:
                svg.rect(left + cycle * cell, y + 2, cell - 1, 16, fill="#e08a00" if kind == "L" else "#4a90d9",
                         stroke="none")
            y += 22
        svg.text(left - 8, y + 14, "scheduler", size=12, anchor="end", weight="bold")
        issued = {cycle for warp in issues for cycle, _ in warp}
        for cycle in range(cycles):
            fill = "#2e7d32" if cycle in issued else "#ffffff"
            svg.rect(left + cycle * cell, y + 2, cell - 1, 16, fill=fill, stroke="#c62828" if cycle not in issued
                     else "none", width=0.6)
        y += 44
    svg.rect(20, y - 10, 14, 12, fill="#4a90d9", stroke="none")
    svg.text(40, y, "arithmetic", size=12)
    svg.rect(130, y - 10, 14, 12, fill="#e08a00", stroke="none")
    svg.text(150, y, "load", size=12)
    svg.rect(200, y - 10, 30, 12, fill="#eeeeee", stroke="#bbbbbb", width=0.8)
    svg.text(236, y, "waiting for memory", size=12)
    svg.rect(380, y - 10, 14, 12, fill="#2e7d32", stroke="none")
    svg.text(400, y, "issued", size=12)
    svg.rect(460, y - 10, 14, 12, fill="#ffffff", stroke="#c62828", width=0.6)
    svg.text(480, y, "idle cycle", size=12)
    svg.text(20, y + 26, f"A toy model drawn from its parameters ({LOAD_LATENCY}-cycle loads; hundreds on a "
             "real GPU), not a measurement.", size=12, fill=GREY)
    return svg.render()


# --------------------------------------------------------------------------------------------
# Host and device: exercise 25's program, step by step, from the simulated driver's record


def draw_host_device(runner: list[str]) -> str:
    file = "solutions/25_first_program/src/main.rs"
    report = driver_record("25", file, runner)
    record = report["record"]
    calls = record["calls"]
    ins = [t for t in record["transfers"] if t["direction"] == "host_to_device"]
    outs = [t for t in record["transfers"] if t["direction"] == "device_to_host"]
    launches = record["launches"]
    if not ins or not outs or len(launches) != 1:
        raise FigureError(f"exercise 25's record: expected copies both ways and one launch, got "
                          f"{len(ins)} in, {len(outs)} back, {len(launches)} launches")
    launch = launches[0]
    in_us = sum(t["end_us"] - t["start_us"] for t in ins)
    out_us = sum(t["end_us"] - t["start_us"] for t in outs)
    kernel_us = launch["end_us"] - launch["start_us"]
    first = min(t["start_us"] for t in record["transfers"])
    total_us = max(max(t["end_us"] for t in record["transfers"]), launch["end_us"]) - first
    n = ins[0]["bytes"] // 4
    grid, block = launch["grid"][0], launch["block"][0]

    svg = Svg(700, 450, "Exercise 25's program: the GPU as a second computer",
              f"The host allocates device memory ({calls.get('cuMemAlloc_v2', 0)} cuMemAlloc calls), "
              f"sends the compiled kernel (cuModuleLoadData), copies x and y over PCIe "
              f"({len(ins)} copies, {in_us:.1f} µs modelled), launches saxpy with {grid} blocks of "
              f"{block} threads ({kernel_us:.1f} µs), copies y back ({out_us:.1f} µs) and frees the "
              f"memory. From the simulated driver's record of runner check 25 on the solution, "
              f"largest case (n = {n:,}).")
    svg.text(20, 26, "A GPU program talks to a second computer: exercise 25, step by step", size=15,
             weight="bold")
    host_x, device_x, head_y = 120, 580, 44
    box(svg, 20, head_y, 200, 48, ["host", "the CPU, host memory"], fill=HOST_FILL, stroke=BLUE)
    box(svg, 480, head_y, 200, 48, ["device", "the GPU, device memory"], fill=DEVICE_FILE_FILL, stroke=GREEN)

    # The messages, in the program's order: the driver's calls without times, then the copies
    # and the launch from the record's timeline, then the frees.
    messages = [("1", f"allocate x, y: {calls.get('cuMemAlloc_v2', 0)} × cuMemAlloc", "#333333", True),
                ("", f"the kernel, compiled by NVRTC: {calls.get('cuModuleLoadData', 0)} × cuModuleLoadData",
                 "#333333", True)]
    timed = sorted([(t["start_us"], t) for t in ins + outs] + [(launch["start_us"], launch)],
                   key=lambda pair: pair[0])
    for _, op in timed:
        took = op["end_us"] - op["start_us"]
        if op is launch:
            messages.append(("3", f"launch saxpy <<<{grid}, {block}>>>: {took:.1f} µs", GREEN, True))
        elif op["direction"] == "host_to_device":
            messages.append(("2", f"copy in, {op['bytes']:,} bytes: {took:.1f} µs", BLUE, True))
        else:
            messages.append(("4", f"copy back, {op['bytes']:,} bytes: {took:.1f} µs", RED, False))
    messages.append(("5", f"free x, y: {calls.get('cuMemFree_v2', 0)} × cuMemFree", "#333333", True))
    y = head_y + 84
    bottom = y + 34 * (len(messages) - 1) + 14
    svg.rect(236, head_y, 228, bottom - head_y, fill="#f2f2f2", stroke="none")
    svg.text(350, head_y + 18, "PCIe", size=13, anchor="middle", weight="bold", fill=GREY)
    svg.line(host_x, head_y + 48, host_x, bottom, stroke=BLUE, width=1.5, extra=" stroke-dasharray='5 4'")
    svg.line(device_x, head_y + 48, device_x, bottom, stroke=GREEN, width=1.5, extra=" stroke-dasharray='5 4'")
    for number, label, colour, to_device in messages:
        start, stop = (host_x, device_x) if to_device else (device_x, host_x)
        arrow(svg, start, y, stop, y, colour=colour, width=1.8)
        svg.text(350, y - 6, label, size=12, anchor="middle", fill=colour)
        if number:
            svg.text(host_x - 10, y + 4, number, size=13, anchor="end", weight="bold", fill=colour)
        y += 34
    svg.text(20, head_y + 84 + 4, "step", size=12, fill=NOTE)

    # The modelled timeline of steps 2 to 4, to scale.
    ty = bottom + 44
    scale = 660 / total_us
    svg.text(20, ty - 22, "Steps 2 to 4 on the device's timeline, to scale: the copies take "
             f"{(in_us + out_us) / total_us:.0%} of the time.", size=12)
    for ops, colour in ((ins, BLUE), ([launch], GREEN), (outs, RED)):
        for op in ops:
            svg.rect(20 + (op["start_us"] - first) * scale, ty - 14,
                     max((op["end_us"] - op["start_us"]) * scale, 2), 16, fill=colour, stroke="#ffffff", width=1)
    svg.text(20, ty + 18, "0 µs", size=12)
    svg.text(680, ty + 18, f"{total_us:.1f} µs (modelled)", size=12, anchor="end")
    svg.text(20, ty + 40, f"From the simulated driver's record of runner check 25 on the solution (largest "
             f"case, n = {n:,}).", size=12, fill=GREY)
    return svg.render()


# --------------------------------------------------------------------------------------------
# Device memory: kernel fusion, measured on exercise 04's own kernels

FUSION_FILE = "solutions/04_fused/fused.cu"
FUSION_N, FUSION_BLOCK = 1 << 20, 256
FUSION_STEPS = [("scale_shift", "t = a · x + b", "x", "t"), ("relu", "u = max(t, 0)", "t", "u"),
                ("square", "y = u · u", "u", "y")]


def fusion_run(kernel: str, runner: list[str]) -> tuple[int, float]:
    """Bytes of global memory traffic (sectors of 32 bytes loaded and stored) and modelled µs of one
    kernel of exercise 04 on FUSION_N elements."""
    scalars = ["f32=2", "f32=-1"] if kernel in ("scale_shift", "fused") else []
    args = [f"f32[{FUSION_N}]", f"f32[{FUSION_N}]"] + scalars + [f"i32={FUSION_N}"]
    report = simulate(kernel, str(FUSION_N // FUSION_BLOCK), str(FUSION_BLOCK), args, runner,
                      source=FUSION_FILE)
    figures = report["figures"]
    sectors = figures["global_load_sectors"] + figures["global_store_sectors"]
    return sectors * 32, report["modelled"]["microseconds"]


def draw_fusion(runner: list[str]) -> str:
    steps = [(name, formula, source, target, *fusion_run(name, runner))
             for name, formula, source, target in FUSION_STEPS]
    fused_bytes, fused_us = fusion_run("fused", runner)
    chain_bytes = sum(step[4] for step in steps)
    chain_us = sum(step[5] for step in steps)
    mib = 1 << 20
    svg = Svg(700, 496, "Kernel fusion: three trips through global memory, or one",
              f"Exercise 04's kernels in the simulator on n = {FUSION_N:,} floats: scale_shift, relu and "
              f"square move {chain_bytes / mib:.0f} MiB of global memory between them and take "
              f"{chain_us:.1f} µs modelled; the fused kernel moves {fused_bytes / mib:.0f} MiB in "
              f"{fused_us:.1f} µs.")
    svg.text(20, 26, "Kernel fusion: three trips through global memory, or one", size=15, weight="bold")

    def memory(x, y, name):
        box(svg, x, y, 120, 26, [f"{name}: global memory"], fill="#f3d9a4", stroke="#b26a00",
            bold_first=False)

    def chain_label(x, y, text, colour=NOTE):
        svg.text(x, y, text, size=12, fill=colour)

    svg.text(20, 52, "three kernels", size=13, weight="bold", fill=RED)
    y = 62
    memory(20, y, "x")
    for name, formula, source, target, moved, took in steps:
        arrow(svg, 80, y + 26, 80, y + 40)
        box(svg, 20, y + 40, 170, 30, [f"{name}: {formula}"], fill=HOST_FILL, stroke=BLUE, bold_first=False)
        chain_label(200, y + 60, f"{moved / mib:.0f} MiB, {took:.1f} µs")
        arrow(svg, 80, y + 70, 80, y + 84)
        y += 84
        memory(20, y, target)
    svg.text(380, 52, "one fused kernel", size=13, weight="bold", fill=GREEN)
    memory(380, 62, "x")
    arrow(svg, 440, 88, 440, 102)
    box(svg, 380, 102, 170, 198, ["fused", "t = a · x + b", "u = max(t, 0)", "y = u · u",
                                  "t and u stay in", "registers"], fill=DEVICE_FILE_FILL, stroke=GREEN)
    chain_label(560, 205, f"{fused_bytes / mib:.0f} MiB, {fused_us:.1f} µs")
    arrow(svg, 440, 300, 440, y)
    memory(380, y, "y")

    # Totals as bars on one scale each.
    top = 376
    for row, (label, chain, fused, unit, scale) in enumerate([
            ("global memory traffic", chain_bytes / mib, fused_bytes / mib, "MiB", 1.0),
            ("modelled time (H100)", chain_us, fused_us, "µs", 1.0)]):
        y = top + row * 36
        width = 330 / max(chain, fused) * scale
        svg.text(20, y + 14, label, size=12, weight="bold")
        svg.rect(190, y, chain * width, 14, fill=RED, stroke="none")
        svg.text(196 + chain * width, y + 12, f"{chain:.1f} {unit}", size=12)
        svg.rect(190, y + 16, fused * width, 14, fill=GREEN, stroke="none")
        svg.text(196 + fused * width, y + 28, f"{fused:.1f} {unit}", size=12)
    svg.text(20, 468, f"Measured: runner sim {FUSION_FILE} on each kernel, n = {FUSION_N:,}, blocks of "
             f"{FUSION_BLOCK};", size=12, fill=GREY)
    svg.text(20, 486, "red: the three kernels together; green: the fused kernel. Traffic: sectors loaded and "
             "stored × 32 bytes.", size=12, fill=GREY)
    return svg.render()


# --------------------------------------------------------------------------------------------
# Elementwise kernels and debugging: one thread per element, and what the guard is for

ELEMENTS, BLOCKS, THREADS = 6, 2, 4
ELEMENTWISE_ARGS = [f"f32[{ELEMENTS}]", f"f32[{ELEMENTS}]", f"i32={ELEMENTS}"]
CELL, ROW_X = 76, 30


def draw_threads(svg: Svg, y: float, marked: set[int], marked_colour: str) -> None:
    """BLOCKS blocks of THREADS threads in a row, each thread with threadIdx.x and its global i."""
    for b in range(BLOCKS):
        bx = ROW_X + b * THREADS * CELL
        svg.rect(bx + 2, y, THREADS * CELL - 4, 70, fill="#f7f9fc", stroke=BLUE, width=1.4, extra=" rx='6'")
        svg.text(bx + 10, y + 16, f"block {b}", size=12, weight="bold", fill=BLUE)
        for t in range(THREADS):
            i = b * THREADS + t
            tx = bx + t * CELL + 8
            fill = marked_colour if i in marked else "#4a90d9"
            svg.rect(tx, y + 22, CELL - 16, 40, fill=fill, stroke="none", extra=" rx='4'")
            svg.text(tx + (CELL - 16) / 2, y + 38, f"thread {t}", size=12, anchor="middle", fill="#ffffff")
            svg.text(tx + (CELL - 16) / 2, y + 55, f"i = {i}", size=12, anchor="middle", fill="#ffffff",
                     weight="bold")


def draw_array(svg: Svg, y: float, name: str, length: int, shown: int, past_colour: str) -> None:
    """An array of `length` floats, with the cells up to `shown` past its end drawn dashed."""
    svg.text(ROW_X - 6, y + 24, name, size=13, anchor="end", mono=True, weight="bold")
    for k in range(shown):
        x = ROW_X + k * CELL + 8
        if k < length:
            svg.rect(x, y, CELL - 16, 36, fill="#ffffff", stroke="#333333", width=1.2)
            svg.text(x + (CELL - 16) / 2, y + 23, f"{name}[{k}]", size=12, anchor="middle", mono=True)
        else:
            svg.rect(x, y, CELL - 16, 36, fill="#fbe9e7", stroke=past_colour, width=1.2,
                     extra=" stroke-dasharray='4 3'")
            svg.text(x + (CELL - 16) / 2, y + 23, "?", size=12, anchor="middle", fill=past_colour)
    end_x = ROW_X + length * CELL
    svg.line(end_x, y - 8, end_x, y + 44, stroke=RED, width=2)
    svg.text(end_x + 4, y + 56, f"end: n = {length}", size=12, fill=RED)


def cell_centre(i: int) -> float:
    return ROW_X + i * CELL + CELL / 2


def draw_elementwise(runner: list[str]) -> str:
    report = simulate("guarded", str(BLOCKS), str(THREADS), ELEMENTWISE_ARGS, runner)
    took: dict[int, tuple[int, int, bool]] = {}
    for words in traces(report):
        block, thread, i, what = int(words[0]), int(words[1]), int(words[2]), words[3]
        took[i] = (block, thread, what == "element")
    if sorted(took) != list(range(BLOCKS * THREADS)):
        raise FigureError(f"guarded: expected a trace from each of {BLOCKS * THREADS} threads, got {sorted(took)}")
    idle = {i for i, (_, _, has) in took.items() if not has}
    stores = report["figures"]["global_store_requests"]
    svg = Svg(700, 330, f"One thread per element: {BLOCKS} blocks of {THREADS} threads over n = {ELEMENTS}",
              f"kernel<<<{BLOCKS}, {THREADS}>>> on n = {ELEMENTS}: thread i writes y[i]; threads "
              f"{', '.join(str(i) for i in sorted(idle))} have i ≥ n and the guard sends them away. "
              "Measured by the course's simulator (each thread printed what it did).")
    svg.text(ROW_X, 26, f"guarded<<<{BLOCKS}, {THREADS}>>>(x, y, n = {ELEMENTS}):  "
             "i = blockIdx.x * blockDim.x + threadIdx.x", size=12, mono=True)
    svg.text(ROW_X, 46, "if (i < n) y[i] = 2.0f * x[i];", size=12, mono=True, weight="bold")
    draw_threads(svg, 62, idle, "#9e9e9e")
    array_y = 212
    draw_array(svg, array_y, "y", ELEMENTS, BLOCKS * THREADS, GREY)
    for i, (_, _, has) in sorted(took.items()):
        x = cell_centre(i)
        if has:
            arrow(svg, x, 134, x, array_y - 2, colour=GREEN, width=2)
        else:
            svg.line(x, 134, x, 160, stroke=GREY, width=2)
            svg.text(x, 176, "i ≥ n:", size=12, anchor="middle", fill=GREY)
            svg.text(x, 192, "returns", size=12, anchor="middle", fill=GREY)
    svg.text(ROW_X, 296, f"Measured: runner sim book/figures/kernels/{KERNEL_FILE} --kernel guarded --grid "
             f"{BLOCKS} --block {THREADS};", size=12, fill=GREY)
    svg.text(ROW_X, 314, f"each thread printed the element it took or that it had none; "
             f"{stores} store requests, one per warp.", size=12, fill=GREY)
    return svg.render()


def draw_out_of_bounds(runner: list[str]) -> str:
    report = simulate("unguarded", str(BLOCKS), str(THREADS), ELEMENTWISE_ARGS, runner, expect_diagnostics=True)
    diagnostic = report["diagnostics"][0]
    block, thread = diagnostic["block"][0], diagnostic["thread"][0]
    first = block * THREADS + thread
    lanes = re.search(r"lanes? (\d+)(?:-(\d+))?", diagnostic["message"])
    bad = {first}
    if lanes:
        low, high = int(lanes.group(1)), int(lanes.group(2) or lanes.group(1))
        bad = {block * THREADS + lane for lane in range(low, high + 1)}
    line = diagnostic["location"]["line"]
    source = (KERNELS / KERNEL_FILE).read_text().splitlines()[line - 1].strip()
    svg = Svg(700, 400, "Without the guard: the simulator stops an out-of-bounds load",
              f"The same launch without if (i < n): threads {', '.join(str(i) for i in sorted(bad))} read x "
              f"past its end. The simulator's diagnostic: {diagnostic['message']} (line {line}, thread "
              f"{thread} of block {block}).")
    svg.text(ROW_X, 26, f"unguarded<<<{BLOCKS}, {THREADS}>>>(x, y, n = {ELEMENTS}), without the guard:",
             size=12, mono=True)
    svg.text(ROW_X, 46, source, size=12, mono=True, weight="bold")
    draw_threads(svg, 62, bad, RED)
    array_y = 212
    draw_array(svg, array_y, "x", ELEMENTS, BLOCKS * THREADS, RED)
    for i in range(BLOCKS * THREADS):
        x = cell_centre(i)
        arrow(svg, x, 134, x, array_y - 2, colour=RED if i in bad else GREEN, width=2)
    svg.text(ROW_X, 290, f"The simulator's diagnostic ({diagnostic['kind']}, line {line}, thread {thread} of "
             f"block {block}):", size=12, weight="bold", fill=RED)
    wrapped(svg, ROW_X, 308, diagnostic["message"], 92, size=12, fill=RED)
    svg.text(ROW_X, 388, f"Measured: runner sim book/figures/kernels/{KERNEL_FILE} --kernel unguarded --grid "
             f"{BLOCKS} --block {THREADS}.", size=12, fill=GREY)
    return svg.render()


# --------------------------------------------------------------------------------------------
# Random numbers: a stream per thread, measured, and the skip-ahead of xoroshiro128+

RANDOM_THREADS, RANDOM_DRAWS, RANDOM_SEED = 4, 6, 2026


def pcg_draws(stream_per_thread: bool, runner: list[str]) -> list[list[int]]:
    report = simulate("pcg_streams", "1", str(RANDOM_THREADS),
                      [f"u64={RANDOM_SEED}", f"i32={RANDOM_DRAWS}", f"i32={int(stream_per_thread)}"], runner)
    draws = [[-1] * RANDOM_DRAWS for _ in range(RANDOM_THREADS)]
    for words in traces(report):
        draws[int(words[0])][int(words[1])] = int(words[2])
    if any(d < 0 for row in draws for d in row):
        raise FigureError("pcg_streams: some draws were not printed")
    return draws


def draw_random_table(svg: Svg, x0: float, y0: float, title: str, draws: list[list[int]]) -> None:
    cell_w, cell_h = 40, 26
    svg.text(x0, y0, title, size=13, weight="bold")
    for d in range(RANDOM_DRAWS):
        svg.text(x0 + 70 + d * cell_w + cell_w / 2, y0 + 20, f"#{d + 1}", size=12, anchor="middle", fill=NOTE)
    for t, row in enumerate(draws):
        y = y0 + 28 + t * cell_h
        svg.text(x0 + 62, y + 18, f"thread {t}", size=12, anchor="end")
        for d, bits in enumerate(row):
            value = bits / 2 ** 32
            x = x0 + 70 + d * cell_w
            svg.rect(x, y, cell_w - 2, cell_h - 2, fill=value_fill(value), stroke="none")
            svg.text(x + (cell_w - 2) / 2, y + 17, f"{value:.2f}"[1:], size=12, anchor="middle")


def draw_random_streams(runner: list[str]) -> str:
    own = pcg_draws(True, runner)
    shared = pcg_draws(False, runner)
    same_rows = all(row == shared[0] for row in shared)
    distinct_rows = len({tuple(row) for row in own}) == len(own)
    svg = Svg(700, 412, "One generator per thread: a stream each, or the same numbers everywhere",
              f"The first {RANDOM_DRAWS} draws of PCG32 (exercise 09's generator, seed {RANDOM_SEED}) in "
              f"{RANDOM_THREADS} threads, as fractions of 2^32. With stream t for thread t every row differs; "
              "with stream 0 for every thread every row is the same. Measured by the course's simulator. "
              "Below, the skip-ahead of xoroshiro128+: thread k starts k jumps of 2^64 into one sequence.")
    svg.text(20, 26, "A generator per thread, in its registers: the first draws of each", size=15, weight="bold")
    draw_random_table(svg, 20, 54, "pcg32_init(seed, t): stream t", own)
    draw_random_table(svg, 370, 54, "pcg32_init(seed, 0): the mistake", shared)
    svg.text(20, 200, "every row differs" if distinct_rows else "some rows repeat", size=12,
             fill=GREEN if distinct_rows else RED)
    svg.text(370, 200, "every thread draws the same numbers" if same_rows else "the rows differ", size=12,
             fill=RED if same_rows else GREEN)
    svg.text(20, 222, f"Measured: runner sim book/figures/kernels/{KERNEL_FILE} --kernel pcg_streams "
             f"--grid 1 --block {RANDOM_THREADS},", size=12, fill=GREY)
    svg.text(20, 240, f"seed {RANDOM_SEED}; each draw is shown as a fraction of 2³², to two places.", size=12,
             fill=GREY)

    # Skip-ahead: one long sequence, each thread's stretch starting 2^64 draws after the last.
    y = 282
    svg.text(20, y, "Skip-ahead (xoroshiro128+, Numba, exercise 28): one sequence of 2¹²⁸ − 1 numbers",
             size=13, weight="bold")
    bar_x, bar_w, bar_y = 20, 660, y + 16
    svg.rect(bar_x, bar_y, bar_w, 22, fill="#f4f4f4", stroke="#333333", width=1)
    jumps = 4
    stretch = 36
    for k in range(jumps):
        x = bar_x + k * 150
        svg.rect(x, bar_y, stretch, 22, fill=value_fill(0.35 + 0.15 * k), stroke="none")
        svg.line(x, bar_y - 4, x, bar_y + 30, stroke="#333333", width=1.2)
        svg.text(x + 4, bar_y + 46, f"thread {k}: {k} × 2⁶⁴" if k else "thread 0: at 0", size=12)
    svg.text(bar_x + jumps * 150 + 10, bar_y + 16, "…", size=14)
    svg.text(20, bar_y + 72, "Each thread draws from its own stretch (shaded); the stretches would meet only "
             "after 2⁶⁴ draws.", size=12)
    svg.text(20, bar_y + 92, "The strip is a diagram drawn from its parameters, not to scale.", size=12, fill=GREY)
    return svg.render()


# --------------------------------------------------------------------------------------------
# CUDA from Python: the layers, Numba's compiler, and py02's copies


def draw_python_layers(runner: list[str]) -> str:
    svg = Svg(700, 440, "CUDA Python's layers, down to the driver",
              "Numba's @cuda.jit kernels (compiled by NVVM to PTX) and cuda.core's Program and launch "
              "(compiled by NVRTC to PTX) both call cuda.bindings.driver, which cuda.pathfinder points at "
              "libcuda.so. On a GPU that is NVIDIA's driver; under runner run it is the course's "
              "libsimcuda.so, which runs the PTX in the simulator.")
    svg.text(20, 26, "Every road ends in the driver library, libcuda.so", size=15, weight="bold")
    svg.text(20, 50, "your Python program", size=12, fill=NOTE)
    box(svg, 20, 60, 310, 66, ["numba.cuda", "@cuda.jit kernels", "NVVM: Python → PTX"],
        fill=HOST_FILL, stroke=BLUE)
    box(svg, 370, 60, 310, 66, ["cuda.core", "Program, LaunchConfig, launch", "NVRTC: CUDA C++ → PTX"],
        fill=HOST_FILL, stroke=BLUE)
    box(svg, 120, 170, 460, 50, ["cuda.bindings.driver", "one Python function per driver call: cuMemAlloc, "
                                 "cuLaunchKernel"], fill="#f5f5f5", stroke="#333333")
    arrow(svg, 175, 126, 250, 168)
    arrow(svg, 525, 126, 450, 168)
    box(svg, 220, 262, 260, 44, ["libcuda.so", "found by cuda.pathfinder"], fill="#fff7e6", stroke="#b26a00")
    arrow(svg, 350, 220, 350, 260)
    box(svg, 20, 340, 300, 60, ["on a GPU", "NVIDIA's driver: PTX → SASS, runs it"], fill=DEVICE_FILE_FILL,
        stroke=GREEN)
    box(svg, 380, 340, 300, 60, ["under runner run", "libsimcuda.so: the simulator runs the PTX"],
        fill=DEVICE_FILE_FILL, stroke=GREEN)
    arrow(svg, 300, 306, 200, 338)
    arrow(svg, 400, 306, 500, 338)
    svg.text(20, 326, "the same program, unchanged:", size=12, fill=NOTE)
    svg.text(20, 428, "The layers as the packages document them. " + PARAMETERS_NOTE.replace(" from its parameters", ""),
             size=12, fill=GREY)
    return svg.render()


def draw_numba_compiler(runner: list[str]) -> str:
    svg = Svg(700, 440, "What Numba does at a call: look up the argument types, compile once for them",
              "A call to a @jit function goes to Numba's dispatcher, which takes the Numba types of the "
              "arguments and looks for machine code compiled for them. The first time there is none: the "
              "bytecode becomes Numba IR, its types are inferred, and it is lowered to LLVM IR and compiled "
              "to machine code, which is kept. @cuda.jit "
              "shares the front end and compiles with NVVM to PTX for the driver instead.")
    svg.text(20, 26, "A Numba function at each call: compiled once per argument types", size=15, weight="bold")
    box(svg, 20, 46, 200, 50, ["total(x)", "x: float64 array"], fill="#fff7e6", stroke="#b26a00", mono=False)
    box(svg, 250, 46, 430, 50, ["the dispatcher", "types: (Array(float64, 1, 'C'),)"], fill="#f5f5f5")
    arrow(svg, 220, 71, 248, 71)
    # Found: run it. Not found: compile.
    box(svg, 470, 130, 210, 62, ["compiled for these", "types already?", "total.signatures"], fill="#ffffff")
    arrow(svg, 575, 96, 575, 128)
    box(svg, 470, 236, 210, 50, ["yes: run the", "machine code kept"], fill=DEVICE_FILE_FILL, stroke=GREEN,
        bold_first=False)
    arrow(svg, 575, 192, 575, 234, colour=GREEN)
    svg.text(582, 218, "yes", size=12, fill=GREEN)
    svg.text(20, 126, "no (the first call with these types): compile", size=12, weight="bold", fill=RED)
    arrow(svg, 470, 161, 420, 161, colour=RED)
    stages = [("Python", "bytecode"), ("Numba IR", ""), ("type", "inference"), ("LLVM IR", "")]
    for k, (first, second) in enumerate(stages):
        x = 20 + k * 100
        box(svg, x, 136, 86, 50, [first, second] if second else [first], fill="#ffffff", stroke=RED,
            bold_first=False)
        if k:
            arrow(svg, x - 14, 161, x - 2, 161, colour=RED)
    # The two back ends.
    box(svg, 20, 236, 190, 50, ["@jit: LLVM", "→ this CPU's machine code"], fill=HOST_FILL, stroke=BLUE,
        bold_first=False)
    box(svg, 230, 236, 210, 50, ["@cuda.jit: NVVM", "→ PTX → the CUDA driver"], fill=HOST_FILL, stroke=BLUE,
        bold_first=False)
    arrow(svg, 363, 186, 115, 234, colour=BLUE)
    arrow(svg, 363, 186, 335, 234, colour=BLUE)
    svg.line(115, 286, 115, 310, stroke=BLUE, width=1.5)
    svg.line(115, 310, 575, 310, stroke=BLUE, width=1.5)
    arrow(svg, 575, 310, 575, 288, colour=BLUE)
    svg.text(130, 328, "kept under the signature: the next call with the same types skips the compiler",
             size=12, fill=BLUE)
    svg.text(20, 356, "A value Numba cannot type: a TypingError, since 0.59 with no fallback to object mode.",
             size=12)
    svg.text(20, 380, "float32 array next: a new signature, compiled again. With signatures in the decorator,",
             size=12)
    svg.text(20, 398, "@njit(\"float64(float64[:])\"), Numba compiles when the function is defined, and "
             "only those.", size=12)
    svg.text(20, 426, "Numba's documented pipeline, simplified; drawn from its parameters (no measurement).",
             size=12, fill=GREY)
    return svg.render()


PY02_RUNS = [
    ("NumPy arrays at each launch", "runner/tests/fixtures/host/py02_numpy_each_launch.py"),
    ("device arrays: to_device once, copy_to_host once", "solutions/py02_device_arrays/device_arrays.py"),
]
PY02_ENGINES = [("host_to_device", "copies in", BLUE), ("kernel", "kernels", GREEN),
                ("device_to_host", "copies out", RED)]


def draw_py02_copies(runner: list[str]) -> str:
    runs = []
    for label, file in PY02_RUNS:
        report = driver_record("py02", file, runner)
        record = report["record"]
        runs.append((label, file, [(kind, start, end) for kind, start, end, _ in timeline_ops(report)]))
        case_n, case_steps = record["transfers"][0]["bytes"] // 4, len(record["launches"])
    axis_us = max(o[2] for _, _, ops in runs for o in ops)
    left, right, row_h = 100, 680, 24
    scale = (right - left) / axis_us
    svg = Svg(700, 50 + len(runs) * 128 + 48, "Exercise py02: NumPy arrays at each launch against device arrays",
              "The same ten launches of py02's kernel, modelled by the simulated driver. "
              + " ".join(f"{label}: {sum(o[0] == 'host_to_device' for o in ops)} copies in, "
                         f"{sum(o[0] == 'kernel' for o in ops)} kernels, "
                         f"{sum(o[0] == 'device_to_host' for o in ops)} copies out, "
                         f"{max(o[2] for o in ops):.0f} µs." for label, _, ops in runs))
    svg.text(20, 26, "py02: the same kernels, with and without Numba's copies (modelled)", size=15,
             weight="bold")
    y = 50
    for label, file, ops in runs:
        counts = {kind: sum(o[0] == kind for o in ops) for kind, _, _ in PY02_ENGINES}
        end = max(o[2] for o in ops)
        svg.text(20, y + 12, f"{label}: {end:.0f} µs", size=13, weight="bold")
        svg.text(20, y + 30, f"{counts['host_to_device']} copies in, {counts['kernel']} kernels, "
                 f"{counts['device_to_host']} copies out ({file})", size=12, fill=NOTE)
        for row, (kind, name, colour) in enumerate(PY02_ENGINES):
            ry = y + 40 + row * row_h
            svg.text(left - 8, ry + 16, name, size=12, anchor="end")
            svg.line(left, ry + row_h, right, ry + row_h, stroke="#cccccc")
            for op_kind, start, stop in ops:
                if op_kind == kind:
                    svg.rect(left + start * scale, ry + 3, max((stop - start) * scale, 1.5), row_h - 6,
                             fill=colour, stroke="#ffffff", width=0.6)
        y += 128
    for tick in range(5):
        x = left + tick * (right - left) / 4
        svg.text(x, y - 4, f"{tick * axis_us / 4:.0f} µs", size=12, anchor="end" if tick == 4 else "middle")
    svg.text(20, y + 20, f"From the simulated driver's record of runner check py02 on each file (its largest "
             f"case: n = {case_n:,}, {case_steps} steps),", size=12, fill=GREY)
    svg.text(20, y + 38, "one axis for both; times modelled for an H100 over PCIe.",
             size=12, fill=GREY)
    return svg.render()


FIGURES = {
    "course-loop": draw_course_loop,
    "cpu-vs-gpu": draw_cpu_vs_gpu,
    "latency-hiding": draw_latency_hiding,
    "host-device-steps": draw_host_device,
    "fusion": draw_fusion,
    "elementwise-threads": draw_elementwise,
    "out-of-bounds": draw_out_of_bounds,
    "random-streams": draw_random_streams,
    "python-layers": draw_python_layers,
    "numba-compiler": draw_numba_compiler,
    "py02-copies": draw_py02_copies,
}


def draw_all(runner: list[str], only: str) -> tuple[dict[str, str], list[str]]:
    return draw_each(FIGURES, runner, only)
