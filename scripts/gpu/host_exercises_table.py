#!/usr/bin/env python3
"""Reads the `runner check --json` reports scripts/gpu/host-exercises.sh wrote (NAME-gpu.json
and NAME-sim.json) and prints, per program, the verdicts and the driver's figures on both
backends, then each solution's operations on the largest case: modelled against measured."""
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])


def load(name, backend):
    try:
        return json.loads((out / f"{name}-{backend}.json").read_text())
    except (OSError, ValueError):
        return None


def figures(report):
    record = (report or {}).get("record") or {}
    transfers = record.get("transfers", [])
    launches = record.get("launches", [])
    ops = transfers + launches
    span = max((o["end_us"] for o in ops), default=0) - min((o["start_us"] for o in ops), default=0)
    hidden = next((t["got"] for t in (report or {}).get("targets", []) if "overlapped" in t["name"]), "")
    ups = sum(t["direction"] == "host_to_device" for t in transfers)
    downs = sum(t["direction"] == "device_to_host" for t in transfers)
    return f"{ups}/{downs}", len(launches), f"{span:.0f}", hidden


names = sorted({p.name.rsplit("-", 1)[0] for p in out.glob("*-gpu.json")})
print("| program | verdict gpu | verdict sim | copies in/out | launches | span µs gpu | span µs sim | copy hidden gpu | copy hidden sim |")
print("|---|---|---|---|---|---|---|---|---|")
for name in names:
    gpu, sim = load(name, "gpu"), load(name, "sim")
    fg, fs = figures(gpu), figures(sim)
    verdict = lambda r: (r or {}).get("verdict", "no report")
    print(f"| {name} | {verdict(gpu)} | {verdict(sim)} | {fg[0]} | {fg[1]} | {fg[2]} | {fs[2]} | {fg[3]} | {fs[3]} |")

for name in [n for n in names if n.startswith("ex")]:
    gpu, sim = load(name, "gpu"), load(name, "sim")
    print(f"\n### {name}: operations of the largest case (µs from the first), measured | modelled\n")
    print("| operation | gpu start | gpu end | sim start | sim end |")
    print("|---|---|---|---|---|")
    rows = []
    for report in (gpu, sim):
        record = (report or {}).get("record") or {}
        ops = [(t["start_us"], t["end_us"], f"{t['direction']} {t['bytes']} B {'pinned' if t['pinned'] else 'pageable'}") for t in record.get("transfers", [])]
        ops += [(l["start_us"], l["end_us"], "kernel " + l["kernel"].split("::")[-1][:30]) for l in record.get("launches", [])]
        rows.append(sorted(ops))
    for i in range(min(max(len(rows[0]), len(rows[1])), 24)):
        g = rows[0][i] if i < len(rows[0]) else ("", "", "")
        s = rows[1][i] if i < len(rows[1]) else ("", "", "")
        fmt = lambda v: f"{v:.1f}" if isinstance(v, float) else str(v)
        print(f"| {g[2] or s[2]} | {fmt(g[0])} | {fmt(g[1])} | {fmt(s[0])} | {fmt(s[1])} |")
