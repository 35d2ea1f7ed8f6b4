"""The table of py16-chunks.sh: per configuration, the share of copy time that overlapped other
work (as the runner's DriverRecord::copy_time_hidden defines it: each host<->device copy's time
covered by kernels or copies the other way), copy and kernel times, and the host's time per
chunk queued (what py16-chunks.py printed)."""

import json
import pathlib
import re
import sys


def covered(start, end, intervals):
    parts = sorted((max(s, start), min(e, end)) for s, e in intervals)
    total, reach = 0.0, start
    for s, e in parts:
        s = max(s, reach)
        if e > s:
            total += e - s
            reach = e
    return total


def hidden(record):
    copies = [(t["start_us"], t["end_us"], t["direction"]) for t in record["transfers"]
              if t["direction"] != "device_to_device"]
    total = sum(e - s for s, e, _ in copies)
    kernels = [(l["start_us"], l["end_us"]) for l in record["launches"]]
    got = sum(covered(s, e, [(c[0], c[1]) for c in copies if c[2] != d] + kernels)
              for s, e, d in copies)
    return got / total if total else 0.0


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


folder = pathlib.Path(sys.argv[1])
print("| n | chunks | rounds | views | try | copy hidden | copy µs (median) | kernel µs (median) | host µs per chunk | GPU ms |")
print("|---|---|---|---|---|---|---|---|---|---|")
for path in sorted(folder.glob("*.json"), key=lambda p: [int(x) if x.isdigit() else x for x in p.stem.split("-")]):
    n, chunks, rounds, views, attempt = path.stem.split("-")
    err = folder / (path.stem + ".err")
    said = err.read_text(errors="replace") if err.exists() else ""
    try:
        text = path.read_text()
        printed = re.search(r"host_us_per_chunk (\d+) gpu_ms ([\d.]+)", text)
        record = json.loads(text[text.index("{"):])
    except (ValueError, OSError) as e:
        print(f"| {n} | {chunks} | {rounds} | {views} | {attempt} | no record: {e}; {said[-200:]!r} |")
        continue
    copies = [t["end_us"] - t["start_us"] for t in record["transfers"] if t["direction"] != "device_to_device"]
    kernels = [l["end_us"] - l["start_us"] for l in record["launches"]][1:]  # the warm-up launch left out
    host, gpu = (printed.group(1), printed.group(2)) if printed else ("?", "?")
    print(f"| {n} | {chunks} | {rounds} | {views} | {attempt} | {hidden(record):.0%} | {median(copies):.0f} | {median(kernels):.0f} | {host} | {gpu} |")
