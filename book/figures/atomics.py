"""Atomics figures: a race's lost update, and the same count with atomicAdd, measured.

Each runs a kernel of book/figures/kernels/atomics.cu in the course's simulator with one block of
256 threads and a counter set to 0. The threads print what they loaded, computed and stored (or
what atomicAdd returned); the simulator writes the counter it left. The figures draw three
threads' steps as a timeline, in the order the simulator ran them, and the counter in memory.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sim import KERNELS, REPO, FigureError, draw_each, figure_line, line_figures, run_json
from svg import WARP, Svg, lane_colour
from warps import NOTE, WIDTH, tint, wrap

FILE = "atomics.cu"
THREADS = 256
SHOWN = (0, 1, WARP)  # two lanes of warp 0 and the first lane of warp 1

LABEL_W = 96
SLOT_W = 86
ROW_H = 34
MEMORY = "#4a4a4a"
LOST = "#c62828"


@dataclass
class Run:
    events: list[tuple[str, int, int]]  # (step, thread, value) in the order the threads printed them
    counter: int  # the counter the kernel left
    figures: dict  # the simulator's memory figures for the kernel's `// FIGURE` line, if it has one
    races: list[str]  # the simulator's race diagnostics, each message without its remedy
    command: str = ""


def npy_int32(path: Path) -> list[int]:
    """The values of a one-dimensional little-endian int32 .npy file."""
    data = path.read_bytes()
    if data[:6] != b"\x93NUMPY":
        raise FigureError(f"{path.name} is not a .npy file")
    size = 2 if data[6] == 1 else 4
    start = 8 + size + int.from_bytes(data[8:8 + size], "little")
    if "'<i4'" not in data[8 + size:start].decode("latin-1"):
        raise FigureError(f"{path.name} does not hold int32 values")
    body = data[start:]
    return [int.from_bytes(body[i:i + 4], "little", signed=True) for i in range(0, len(body), 4)]


def run(kernel: str, runner: list[str], races_expected: bool = False) -> Run:
    """The kernel run in the simulator; refused if it reports a diagnostic other than the races
    a racy kernel is expected to have."""
    kernel_file = str((KERNELS / FILE).relative_to(REPO))
    shown = ["sim", kernel_file, "--kernel", kernel, "--grid", "1", "--block", str(THREADS),
             "--arg", "i32[1]=zeros"]
    with tempfile.TemporaryDirectory() as out:
        report = run_json(runner + shown + ["--json", "--out", out])
        diagnostics = report.get("diagnostics", [])
        unexpected = [d for d in diagnostics if not (races_expected and d["kind"] == "global_race")]
        if unexpected:
            raise FigureError(f"the simulator reported diagnostics: {unexpected}")
        counter = npy_int32(Path(out) / "arg0.npy")
    if len(counter) != 1:
        raise FigureError(f"expected one counter, the simulator wrote {len(counter)} values")
    events = []
    for line in report.get("printf", "").splitlines():
        words = line.split()
        if len(words) == 4 and words[0] == "trace":
            events.append((words[1], int(words[2]), int(words[3])))
    source = (KERNELS / FILE).read_text()
    try:
        figures = line_figures(report, FILE, figure_line(source, kernel))
    except FigureError:
        figures = {}
    races = [d["message"].rsplit(" (", 1)[0] for d in diagnostics]
    return Run(events, counter[0], figures, races, "runner " + " ".join(shown))


@dataclass
class Slot:
    """One step of the timeline: what each shown thread did in it, and the counter after it."""
    header: str
    boxes: dict[int, str] = field(default_factory=dict)
    counter: int | None = None
    lost: bool = False  # more than one thread stored in this step: all but one addition lost


def draw_timeline(title: str, slots: list[Slot], start: int, end: tuple[str, int], lines: list[tuple[str, dict]],
                  description: str) -> str:
    svg = Svg(WIDTH, 600, title, description)
    svg.text(8, 24, title, size=14, weight="bold")
    top = 44
    x_end = LABEL_W + len(slots) * SLOT_W
    for t, thread in enumerate(SHOWN):
        y = top + 24 + t * (ROW_H + 8)
        svg.text(LABEL_W - 8, y + 14, f"thread {thread}", size=12, anchor="end", weight="bold")
        svg.text(LABEL_W - 8, y + 29, f"warp {thread // WARP}", size=12, anchor="end", fill=NOTE)
        svg.line(LABEL_W, y + ROW_H / 2, x_end, y + ROW_H / 2, stroke="#cccccc")
        for s, slot in enumerate(slots):
            if thread in slot.boxes:
                x = LABEL_W + s * SLOT_W
                colour = lane_colour(SHOWN.index(thread) * 11)  # three colours far apart
                svg.rect(x + 4, y, SLOT_W - 8, ROW_H, fill=tint(colour), stroke=colour, width=1.5)
                svg.text(x + SLOT_W / 2, y + 22, slot.boxes[thread], size=12, anchor="middle", mono=True)
    for s, slot in enumerate(slots):
        svg.text(LABEL_W + s * SLOT_W + SLOT_W / 2, top + 12, slot.header, size=12, anchor="middle", fill=NOTE)

    # The counter in memory: its value at the start, after each step that changes it, at the end.
    y = top + 24 + len(SHOWN) * (ROW_H + 8) + 10
    svg.text(LABEL_W - 8, y + 22, "count", size=12, anchor="end", weight="bold")
    svg.rect(LABEL_W, y, x_end - LABEL_W, ROW_H, fill="#f4f4f4", stroke="none")
    svg.text(LABEL_W + 6, y + 22, start, size=12, fill=MEMORY, mono=True, weight="bold")
    for s, slot in enumerate(slots):
        if slot.counter is not None:
            x = LABEL_W + (s + 1) * SLOT_W
            svg.line(x, y + 4, x, y + ROW_H - 4, stroke=LOST if slot.lost else MEMORY, width=1.5)
            svg.text(x - 6, y + 22, slot.counter, size=12, anchor="end", fill=LOST if slot.lost else MEMORY,
                     mono=True, weight="bold")
    svg.text(x_end + 6, y + 14, end[0], size=12, fill=NOTE)
    svg.text(x_end + 6, y + 30, f"count = {end[1]}", size=12, weight="bold", mono=True)

    y += ROW_H + 28
    for text, style in lines:
        y = wrap(svg, 8, y, text, **style) + 4
    svg.height = int(y)
    return svg.render()


def warp_steps(events: list[tuple[str, int, int]]) -> list[tuple[str, int, dict[int, int]]]:
    """The events grouped into steps: consecutive events of one kind from the threads of one warp,
    as (kind, warp, value of each thread)."""
    steps: list[tuple[str, int, dict[int, int]]] = []
    for kind, thread, value in events:
        warp = thread // WARP
        if not steps or steps[-1][:2] != (kind, warp) or thread in steps[-1][2]:
            steps.append((kind, warp, {}))
        steps[-1][2][thread] = value
    return steps


def draw_race(runner: list[str]) -> str:
    racy = run("racy_increment", runner, races_expected=True)
    if not racy.races:
        raise FigureError("the simulator no longer reports the race")
    steps = warp_steps(racy.events)
    if len(steps) != 3 * THREADS // WARP:
        raise FigureError(f"expected a load, an add and a store per warp, got {len(steps)} steps")
    slots = []
    for kind, warp, values in steps[:6]:
        if warp > 1:
            break
        slot = Slot(f"warp {warp} {kind}s")
        for thread in SHOWN:
            if thread in values:
                value = values[thread]
                slot.boxes[thread] = {"load": f"load {value}", "add": f"+1 → {value}", "store": f"store {value}"}[kind]
        if kind == "store":
            stored = set(values.values())
            if len(stored) != 1:
                raise FigureError(f"the lanes of warp {warp} stored different values: {sorted(stored)}")
            slot.counter = stored.pop()
            slot.lost = len(values) > 1
        slots.append(slot)
    loaded = {thread: value for kind, thread, value in racy.events if kind == "load"}
    same = sum(1 for thread in range(WARP) if loaded[thread] == loaded[0])
    warps = THREADS // WARP
    return draw_timeline(
        "*count += 1 from 256 threads: a load, an add and a store",
        slots, 0, ("at the end", racy.counter),
        [(f"Simulator: the counter ends at {racy.counter}, not {THREADS}. The {same} lanes of warp 0 "
          f"load {loaded[0]} together, all add 1, and all store {loaded[0] + 1} (red): "
          f"{same - 1} of their {same} additions are lost. Warp 1 then loads the {loaded[WARP]} "
          f"that warp 0 stored, and loses {WARP - 1} of its own.", {"weight": "bold"}),
         ("The simulator runs each warp's load, add and store before the next warp's load, so it "
          f"loses exactly {WARP - 1} additions per warp, every run. On a GPU the warps also overlap "
          "one another, so more are lost, and the count need not be the same from run to run.", {}),
         (f"runner sim also reports the race ({len(racy.races)} diagnostics), the first: "
          f"“{racy.races[0]}”.", {}),
         (f"Each thread prints what it loaded, added and stored: {racy.command}; threads 0, 1 and "
          f"{WARP} shown, steps in the order the simulator ran them.", {"fill": NOTE})],
        f"A timeline of threads 0 and 1 (warp 0) and thread {WARP} (warp 1) running *count += 1. "
        f"Printed by the threads in the course's simulator; the counter ends at {racy.counter}.")


def draw_atomic(runner: list[str]) -> str:
    atomic = run("atomic_increment", runner)
    old = {thread: value for kind, thread, value in atomic.events if kind == "atomic"}
    if sorted(old) != list(range(THREADS)):
        raise FigureError(f"expected a value from each of the {THREADS} threads")
    if sorted(old.values()) != list(range(THREADS)):
        raise FigureError("the old values atomicAdd returned are not 0 to 255, each once")
    order = sorted(old, key=old.get)  # the order in which the additions were applied
    slots, previous = [], -1
    for thread in sorted(SHOWN, key=order.index):
        place = order.index(thread)
        if place > previous + 1:  # additions of threads not shown
            slots.append(Slot(f"{place - previous - 1} more", counter=old[order[place - 1]] + 1))
        slots.append(Slot(f"addition {place + 1}", {thread: f"{old[thread]} → {old[thread] + 1}"},
                          old[thread] + 1))
        previous = place
    requests = atomic.figures.get("global_atomic_requests", 0)
    sectors = atomic.figures.get("global_atomic_sectors", 0)
    return draw_timeline(
        "atomicAdd(count, 1) from 256 threads: one indivisible step each",
        slots, 0, ("at the end", atomic.counter),
        [(f"Simulator: the counter ends at {atomic.counter}. Each atomicAdd loads, adds and stores "
          f"as one step, and returns the value it found: the {THREADS} threads get {THREADS} "
          f"different values, 0 to {THREADS - 1}, so no addition is lost.", {"weight": "bold"}),
         (f"The simulator counts {requests} atomic requests, one per warp, of "
          f"{sectors / max(requests, 1):g} sector each: the memory system applies the 32 additions "
          "of a request to the one address one after another. The order is not defined (here "
          "thread k got k back); only that none is lost.", {}),
         (f"Each thread prints the value atomicAdd returned (old → new shown): {atomic.command}.",
          {"fill": NOTE})],
        f"A timeline of threads 0, 1 and {WARP} each running atomicAdd(count, 1) as one step. "
        f"Printed by the threads in the course's simulator; the counter ends at {atomic.counter}.")


FIGURES = {
    "race-lost-update": draw_race,
    "atomic-add": draw_atomic,
}


def draw_all(runner: list[str], only: str) -> tuple[dict[str, str], list[str]]:
    return draw_each(FIGURES, runner, only)
