"""Host timelines: a whole program's copies and kernels, from the simulated driver's record."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass

from sim import REPO, FigureError
from svg import WARP, Svg, lane_colour


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
    width, left, row_h = 680, 96, 32
    scale = (width - left - 24) / axis_us
    svg = Svg(width, 300, f"Exercise {timeline.exercise}: {timeline.what}",
              f"The modelled timeline of {timeline.file}'s largest case, from the simulator's "
              f"driver: {hidden} of the copy time overlaps other work.")
    top = svg.paragraph(16, 24, f"{timeline.what}: {hidden} of copy time hidden, "
                        f"{end - start:.0f} µs in all (modelled)", size=14, weight="bold") - 8
    streams = sorted({o[3] for o in ops})
    for row, (kind, label) in enumerate(ENGINES):
        y = top + row * row_h
        svg.text(left - 8, y + row_h * 0.62, label, size=12, anchor="end")
        svg.line(left, y + row_h, width - 24, y + row_h, stroke="#ccc")
        for op_kind, op_start, op_end, stream in ops:
            if op_kind != kind:
                continue
            colour = lane_colour(streams.index(stream) * WARP // max(len(streams), 1))
            svg.rect(left + (op_start - start) * scale, y + 4, max((op_end - op_start) * scale, 1.5),
                     row_h - 8, fill=colour, stroke="#333", width=0.6)
    axis_y = top + len(ENGINES) * row_h + 18
    for tick in range(5):
        x = left + tick * (width - left - 24) / 4
        anchor = "end" if tick == 4 else "middle"
        svg.text(x, axis_y, f"{tick * axis_us / 4:.0f} µs", size=12, anchor=anchor)
    y = svg.paragraph(left, axis_y + 24, "colour: the stream each operation was queued on", fill="#555")
    svg.height = round(y)
    return svg.render()


def draw_all(runner: list[str], only: str) -> tuple[dict[str, str], list[str]]:
    timelines = [t for t in TIMELINES if only in t.name]
    try:
        reports = [record_of(t, runner) for t in timelines]
    except FigureError as err:
        return {}, [f"timelines: {err}"]
    # One axis for all: the figures are drawn to be compared.
    axis_us = max((max(o[2] for o in timeline_ops(r)) for r in reports), default=1.0)
    return {t.name: draw_timeline(t, r, axis_us) for t, r in zip(timelines, reports)}, []
