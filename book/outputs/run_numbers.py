"""The numbers the book's prose quotes from `runner run`, taken from the driver's record.

generate.py writes them to book/src/outputs/numbers.json, name to text as the page shows it, and
a page writes `{{#number NAME}}` where one belongs (book/course_numbers.py puts it in at build
time). So "the kernel takes 3.5 µs of the program's 59.9" is two directives, and a change to the
simulator, the driver or the programs that moves a figure changes the page, or fails CI where the
committed numbers.json is stale.

Beside the numbers, the claims the prose makes about them are checked here (`claim`): the pages say
that most of a program's calls are lookups, that three programs agree, that ten launches are
alike. A claim that stops holding is an error naming it, not a sentence that quietly went wrong.

Names: PROGRAM.QUANTITY, for the programs in PROGRAMS; steps.MODE.QUANTITY for numba_steps.py; a
few derived ones (ratios, shares); figure.NAME.QUANTITY for the access-pattern figures of
book/figures/access.py, measured as they are drawn; solution.NN.QUANTITY for the passing checks
in SOLUTIONS; race.07.counted and race.07.added for exercise 07's catalogued racy counter; and
for the checks of the Python track's mistakes in CHECKS,
MISTAKE.problem, MISTAKE.likely and MISTAKE.TARGET.target (the runner's own words, which a page
quotes with `{{#quote NAME}}`), and figures from the check's record (its copies, its kernels, the
costliest line's sectors per request). Numbers of five digits or more are grouped with commas (393,216),
as the book writes them; times in µs have one decimal, as the runner prints them.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# The figures' own measurements (book/figures/access.py): a page's words about a figure, such as
# its alt text, quote what the figure was drawn from.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "figures"))
import access  # noqa: E402

PYTHON_FIXTURES = "runner/tests/fixtures/cuda_python"

# Name, then the program and its arguments (paths relative to the repository).
PROGRAMS = {
    "numba_add": [f"{PYTHON_FIXTURES}/numba_add.py"],
    "numba_add_device": ["book/examples/python/numba_add_device.py"],
    "vector_add": [f"{PYTHON_FIXTURES}/vector_add.py", "sim/tests/fixtures/vector_add.ptx"],
    "core_program": [f"{PYTHON_FIXTURES}/core_program.py"],
    "numba_features": [f"{PYTHON_FIXTURES}/numba_features.py"],
    "steps.host": ["book/examples/python/numba_steps.py", "host"],
    "steps.device": ["book/examples/python/numba_steps.py", "device"],
    "steps.pinned": ["book/examples/python/numba_steps.py", "pinned"],
}


# What the Python track's pages quote from the checks of its mistakes (runner/tests/fixtures/host,
# the fixtures runner/tests/host.rs checks, or a path from the repository's root: the catalogue's
# checks/mistakes): name, then the exercise and the program checked.
CHECKS = {
    "py02_numpy_each_launch": ("py02", "py02_numpy_each_launch.py"),
    "py03_no_loop": ("py03", "py03_no_loop.py"),
    "py04_plain_increment": ("py04", "py04_plain_increment.py"),
    "py05_one_state": ("py05", "py05_one_state.py"),
    "py06_rows_short": ("py06", "py06_rows_short.py"),
    "py07_no_syncthreads": ("py07", "py07_no_syncthreads.py"),
    "py08_strided_writes": ("py08", "py08_strided_writes.py"),
    "py08_unpadded_tile": ("py08", "py08_unpadded_tile.py"),
    "26_download_in_loop": ("26", "26_download_in_loop.rs"),
    "py10_counts_start": ("py10", "py10_counts_start.py"),
    "py11_weights_in_global": ("py11", "py11_weights_in_global.py"),
    "py11_unsorted": ("py11", "py11_unsorted.py"),
    "py12_naive": ("py12", "py12_naive.py"),
    "py13_interleaved": ("py13", "py13_interleaved.py"),
    "py14_no_offsets": ("py14", "py14_no_offsets.py"),
    "py15_global_window": ("py15", "py15_global_window.py"),
    "py15_no_halo": ("py15", "py15_no_halo.py"),
    "py16_one_stream": ("py16", "py16_one_stream.py"),
    "py16_no_events": ("py16", "py16_no_events.py"),
    "py10_inline_loop": ("py10", "checks/mistakes/py10/inline_loop.py"),
    "py13_atomic_per_thread": ("py13", "checks/mistakes/py13/atomic_per_thread.py"),
    "py14_serial_scan": ("py14", "checks/mistakes/py14/serial_scan.py"),
}

# Exercises whose passing check a page quotes figures of, by id: their solution is checked in the
# simulator, as book/outputs/generate.py's pass-NN.txt, here for its memory figures.
SOLUTIONS = {"02": "02_vector_add/vector_add.cu"}

# Targets by the start of the name the runner gives them, as the names above use them.
TARGETS = {
    "copies to the device": "uploads",
    "copies back to the host": "downloads",
    "global sectors per request": "sectors_per_request",
    "shared-memory bank conflicts": "bank_conflicts",
    "global load sectors": "load_sectors",
    "times measured with a pair of events": "events",
    "copy time overlapped": "copy_hidden",
    "global atomics per block": "atomics_per_block",
    "memory requests of the kernels": "memory_requests",
    "device functions the kernel calls": "device_calls",
}


def count(n: float) -> str:
    n = int(round(n))
    return f"{n:,}" if abs(n) >= 10_000 else str(n)


def us(x: float) -> str:
    return f"{x:.1f}"


def claim(holds: bool, what: str) -> None:
    if not holds:
        raise RuntimeError(f"the book says {what}, and the runner's record no longer shows it")


def record_of(runner: list[str], repo: Path, program: list[str]) -> dict:
    command = runner + ["run", "--json", "--", "python"] + program
    result = subprocess.run(command, cwd=repo, capture_output=True, text=True,
                            env={**os.environ, "NO_COLOR": "1"})
    # The program's own output comes first; the record is the JSON object that ends stdout.
    start = result.stdout.find("{") if result.stdout.startswith("{") else result.stdout.find("\n{\n") + 1
    try:
        if result.returncode != 0 or start < 0:
            raise ValueError(f"exit {result.returncode}")
        return json.loads(result.stdout[start:])
    except ValueError as err:
        raise RuntimeError(f"{shlex.join(command)} gave no record ({err}):\n{result.stdout}\n"
                           f"{result.stderr}") from None


def report_of(runner: list[str], repo: Path, exercise: str, fixture: str) -> dict:
    """The check of a host mistake fixture (runner/tests/fixtures/host/FIXTURE, or FIXTURE where it
    names a folder)."""
    path = fixture if "/" in fixture else f"runner/tests/fixtures/host/{fixture}"
    return check_report(runner, repo, exercise, path)


def check_report(runner: list[str], repo: Path, exercise: str, file: str,
                 env: dict[str, str] | None = None) -> dict:
    """`runner check EXERCISE --file FILE --json` in the simulator, FILE relative to the repository,
    with ENV added to the environment."""
    command = runner + ["check", exercise, "--file", file, "--backend", "sim", "--json"]
    result = subprocess.run(command, cwd=repo, capture_output=True, text=True,
                            env={**os.environ, "NO_COLOR": "1", **(env or {})})
    try:
        return json.loads(result.stdout)
    except ValueError as err:
        raise RuntimeError(f"{shlex.join(command)} gave no report ({err}):\n{result.stdout}\n"
                           f"{result.stderr}") from None


def solution_numbers(runner: list[str], repo: Path, exercise: str, file: str) -> dict[str, str]:
    """solution.NN.sectors_per_request: the global loads' and stores' sectors per request that a
    passing check of the solution reports (`4.0 sectors/request`), when the two agree."""
    report = check_report(runner, repo, exercise, f"solutions/{file}")
    claim(report["verdict"] == "passed", f"that the solution to {exercise} passes")
    kernel = report["sim"]["kernel"]
    each = {kind: f"{kernel[f'global_{kind}_sectors'] / kernel[f'global_{kind}_requests']:.1f}"
            for kind in ("load", "store")}
    claim(each["load"] == each["store"],
          f"that {exercise}'s loads and stores take the same sectors per request")
    return {f"solution.{exercise}.sectors_per_request": each["load"]}


def check_quotes(name: str, report: dict) -> dict[str, str]:
    """What a page quotes of a check that fails: the first wrong case's problem (after the
    kernel's name, which Numba mangles), its `Likely:` line, the missed targets as the runner shows
    them, and the figures of the record beside them."""
    out: dict[str, str] = {}
    claim(report["verdict"] != "passed", f"that {name} does not pass its check")
    problem = next((case["problem"] for case in report["cases"] if case.get("problem")), None)
    if problem:
        first = problem.splitlines()[0]
        out[f"{name}.problem"] = re.sub(r"^kernel \S+: ", "", first)
        likely = next((line.strip() for line in problem.splitlines()
                       if line.strip().startswith("Likely:")), None)
        if likely:
            out[f"{name}.likely"] = likely
    for target in report["targets"]:
        if target["met"]:
            continue
        key = next((short for start, short in TARGETS.items() if target["name"].startswith(start)),
                   re.sub(r"\W+", "_", target["name"].lower()).strip("_"))
        out[f"{name}.{key}.target"] = (f"✗ target: {target['name']} {target['wanted']} "
                                       f"(got {target['got']})")
    # A program's copies between host and device, when they are all alike: their size and time;
    # and one round of its kernels (the launches from one of the first kernel's to the next).
    record = report["record"]
    if record is None:
        raise RuntimeError(f"the check of {name} gave no driver record (verdict "
                           f"{report.get('verdict')}): {report.get('summary', '')}")
    copies = [t for t in record["transfers"] if t["direction"] != "device_to_device"]
    if copies and len({(t["bytes"], round(span(t), 3)) for t in copies}) == 1:
        out[f"{name}.copy_kb"] = count(copies[0]["bytes"] / 1000)
        out[f"{name}.copy_us"] = f"{span(copies[0]):.0f}"
    launches = record["launches"]
    if launches:
        rounds = sum(1 for launch in launches if launch["kernel"] == launches[0]["kernel"])
        out[f"{name}.round_us"] = f"{sum(map(span, launches)) / rounds:.0f}"
    # Sectors per request of the costliest line's loads and of its stores, apart (at most 4 and
    # 32 for a warp's 4-byte accesses, as the page says).
    lines = [line for launch in report["record"]["launches"] for line in launch["lines"]]
    if lines:
        worst = max(lines, key=sectors)
        figures = worst["figures"]
        for kind in ("load", "store"):
            requests = figures[f"global_{kind}_requests"]
            if requests:
                per_request = figures[f"global_{kind}_sectors"] / requests
                claim(per_request <= 32, f"that {name}'s {kind}s take at most 32 sectors a request")
                out[f"{name}.{kind}_sectors_per_request"] = f"{per_request:.1f}"
    return out


def figure_numbers(runner: list[str], figure: access.Access) -> dict[str, str]:
    """figure.NAME.sectors_per_request or figure.NAME.wavefronts_per_request (and its bank
    conflicts): the access-pattern figure's measured load, as its caption gives it."""
    figures = access.measure(figure, runner).figures
    if figure.kind == "global":
        per_request = figures["global_load_sectors"] / figures["global_load_requests"]
        return {f"figure.{figure.name}.sectors_per_request": f"{per_request:g}"}
    per_request = figures["shared_load_wavefronts"] / figures["shared_load_requests"]
    return {f"figure.{figure.name}.wavefronts_per_request": f"{per_request:g}",
            f"figure.{figure.name}.bank_conflicts": count(figures["shared_load_bank_conflicts"])}


def short_name(kernel: str) -> str:
    """`_ZN8__main__2piB...` as `pi`: the last name of the mangled path; a plain name as it is."""
    if not kernel.startswith("_ZN"):
        return kernel
    names, rest = [], kernel[3:]
    while (length := re.match(r"\d+", rest)):
        size = int(length.group(0))
        start = length.end()
        names.append(rest[start:start + size])
        rest = rest[start + size:]
    return names[-1] if names else kernel


def sectors(launch: dict) -> int:
    figures = launch["figures"]
    return figures["global_load_sectors"] + figures["global_store_sectors"]


def wavefronts(launch: dict) -> int:
    figures = launch["figures"]
    return figures["shared_load_wavefronts"] + figures["shared_store_wavefronts"]


def span(item: dict) -> float:
    return item["end_us"] - item["start_us"]


def threads(launch: dict) -> int:
    grid, block = launch["grid"], launch["block"]
    return grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2]


def program_numbers(name: str, record: dict) -> tuple[dict[str, str], dict[str, float]]:
    """The figures of one run as the book shows them, and the same unrounded for ratios."""
    transfers, launches = record["transfers"], record["launches"]
    into = [t for t in transfers if t["direction"] == "host_to_device"]
    back = [t for t in transfers if t["direction"] == "device_to_host"]
    end = max([record["host_us"]] + [x["end_us"] for x in transfers + launches])
    raw = {
        "calls": sum(record["calls"].values()),
        "copies_in": len(into), "bytes_in": sum(t["bytes"] for t in into),
        "us_in": sum(map(span, into)),
        "copies_out": len(back), "bytes_out": sum(t["bytes"] for t in back),
        "us_out": sum(map(span, back)),
        "copies": len(transfers), "copy_us": sum(map(span, transfers)),
        "syncs": record["synchronisations"], "leaked": record["leaked_bytes"],
        "launches": len(launches), "kernels_us": sum(map(span, launches)),
        "total_us": end, "not_found": len(record.get("not_found", [])),
        "frees": record["calls"].get("cuMemFree_v2", 0),
    }
    if transfers and len({t["bytes"] for t in transfers}) == 1:
        raw["bytes_per_copy"] = transfers[0]["bytes"]
    if launches:
        first = launches[0]
        raw |= {"sectors": sectors(first), "sector_bytes": 32 * sectors(first),
                "wavefronts": wavefronts(first),
                "kernel_us": span(first), "threads": threads(first)}
        if first["lines"]:
            raw |= {"line": first["lines"][0]["line"],
                    "line_sectors": sum(sectors(line) for line in first["lines"][:1])}
    text = {f"{name}.{key}": (us(value) if "us" in key.split("_") else count(value))
            for key, value in raw.items()}
    return text, raw


def race_numbers(runner: list[str], repo: Path) -> dict[str, str]:
    """race.07.counted and race.07.added: exercise 07's catalogued racy counter
    (checks/mistakes/07/no_atomic.cu) in the simulator, in its case where every thread adds one:
    the count it left and the additions made, from the check's own mismatch (not its words).
    One CPU thread runs the blocks, as the book says: with several, blocks that race on the counter
    run at the same time and the count left changes from run to run."""
    report = check_report(runner, repo, "07", "checks/mistakes/07/no_atomic.cu",
                          env={"RUNNER_SIM_THREADS": "1"})
    wrong = [case for case in report["cases"] if case["mismatch"] and "all threads" in case["name"]]
    claim(len(wrong) == 1, "that exercise 07's racy counter fails its case where all threads add")
    first = wrong[0]["mismatch"]["first_wrong"][0]
    claim(int(first["actual"]) < int(first["expected"]), "that the racy counter loses additions")
    return {"race.07.counted": count(int(first["actual"])),
            "race.07.added": count(int(first["expected"]))}


def numbers(runner: list[str], repo: Path) -> dict[str, str]:
    # One run per core: a whole program's check has a wall-clock limit (a minute for the Python
    # track), which thirty programs sharing two cores could pass and come back as hangs.
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        checked = {name: pool.submit(report_of, runner, repo, *check) for name, check in CHECKS.items()}
        drawn = [pool.submit(figure_numbers, runner, figure) for figure in access.ACCESSES]
        drawn += [pool.submit(solution_numbers, runner, repo, exercise, file)
                  for exercise, file in SOLUTIONS.items()]
        drawn.append(pool.submit(race_numbers, runner, repo))
        records = dict(zip(PROGRAMS, pool.map(lambda p: record_of(runner, repo, p),
                                              PROGRAMS.values())))
        reports = {name: future.result() for name, future in checked.items()}
    out: dict[str, str] = {}
    for future in drawn:
        out |= future.result()
    for name, report in reports.items():
        out |= check_quotes(name, report)
    raw: dict[str, dict[str, float]] = {}
    for name, record in records.items():
        text, raw[name] = program_numbers(name, record)
        out |= text

    # cuda-from-python.md, "A Numba kernel on NumPy arrays".
    add = records["numba_add"]
    claim(add["calls"].get("cuGetProcAddress_v2", 0) * 2 > raw["numba_add"]["calls"],
          "that most of numba_add.py's driver calls are cuGetProcAddress_v2")
    claim(raw["numba_add"]["line_sectors"] == raw["numba_add"]["sectors"],
          "that the kernel's one line moves all of numba_add.py's sectors")
    out["numba_add.line_bytes"] = count(raw["numba_add"]["line_sectors"] * 32)
    claim(raw["numba_add"]["line_sectors"] * 32 == raw["numba_add"]["bytes_in"],
          "that numba_add.py's line moves exactly its three arrays (two read, one written)")
    claim(raw["numba_add"]["leaked"] == 0, "that numba_add.py leaves no memory unfreed")
    # "Keeping the arrays on the device", and the same program one layer down.
    for key in ("copies", "sectors", "total_us"):
        claim(raw["vector_add"][key] == raw["numba_add_device"][key],
              f"that vector_add.py's {key} are those of numba_add_device.py")
    claim(raw["numba_add"]["sectors"] == raw["numba_add_device"]["sectors"],
          "that keeping the arrays on the device leaves the kernel's sectors as they were")
    claim(raw["vector_add"]["leaked"] == 0, "that vector_add.py frees its buffers")
    core = raw["core_program"]
    claim(core["sector_bytes"] == 2 * core["bytes_in"] and core["copies_in"] == 1,
          "that core_program.py's kernel reads and writes its one array in place, all sectors used")

    # "Many launches": numba_steps.py in three modes.
    steps = [records[f"steps.{mode}"] for mode in ("host", "device", "pinned")]
    every = [launch for record in steps for launch in record["launches"]]
    claim(all(len(record["launches"]) == 10 for record in steps), "that numba_steps.py launches ten times")
    claim(len({(sectors(l), round(span(l), 3), tuple(l["grid"]), tuple(l["block"])) for l in every}) == 1,
          "that numba_steps.py's launches are alike in all three modes")
    out["steps.launch.sectors"] = count(sectors(every[0]))
    out["steps.launch.us"] = us(span(every[0]))
    out["steps.launch.grid"] = count(every[0]["grid"][0])
    out["steps.launch.block"] = count(every[0]["block"][0])
    out["steps.kernels_us"] = f"{raw['steps.host']['kernels_us']:.0f}"
    host, device, pinned = (raw[f"steps.{mode}"] for mode in ("host", "device", "pinned"))
    out["steps.host.kernel_share"] = f"{100 * host['kernels_us'] / host['total_us']:.2f}%"
    out["steps.device_speedup"] = f"{host['total_us'] / device['total_us']:.1f}"
    out["steps.pinned_speedup"] = f"{device['total_us'] / pinned['total_us']:.1f}"
    # "What the figures are": the model's time for one 4 MiB copy, from pinned and pageable memory.
    for mode in (device, pinned):
        claim(mode["copies_out"] == 1 and mode["bytes_out"] == 4 << 20,
              "that numba_steps.py copies 4 MiB back once from device arrays")
        claim(abs(mode["us_in"] / mode["copies_in"] - mode["us_out"]) < 0.1,
              "that the model times a copy to the device as one back")
    claim(device["syncs"] == 0 and host["syncs"] > 0,
          "that the host run of numba_steps.py synchronises and the device run does not")

    # "More of Numba": numba_features.py's launches by kernel.
    for launch in records["numba_features"]["launches"]:
        kernel = short_name(launch["kernel"]).lstrip("_")
        out[f"numba_features.{kernel}.sectors"] = count(sectors(launch))
        out[f"numba_features.{kernel}.threads"] = count(threads(launch))
        out[f"numba_features.{kernel}.bytes_per_thread"] = count(sectors(launch) * 32 / threads(launch))
    return dict(sorted(out.items()))
