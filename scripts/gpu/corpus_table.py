#!/usr/bin/env python3
"""The table of scripts/gpu/results/grid-stride-corpus.md: for each kernel that
scripts/gpu/grid-stride-corpus.sh measured on a GPU, its measured time over the reference's (the
GPU check's own max_time_vs_reference figure, each kernel under its own launch), its modelled time
over the reference's on the same case (the check's timing case: 2^23 elements), and its verdicts
on the GPU and in the simulator. Runs here, without a GPU, with the release runner.

    python3 scripts/gpu/corpus_table.py CORPUS.jsonl > table.md
"""
import json
import os
import re
import subprocess
import sys
import tempfile

RUNNER = "target/release/runner"
N = 1 << 23
SOLUTION = {"05": "solutions/05_grid_stride/saxpy.cu", "06": "solutions/06_launch_config/distances.cu"}
# The timed grid of exercise 05's check (checks/src/exercises/ex05_grid_stride.rs).
GRID_05 = (1024, 256)


def runner(*args):
    done = subprocess.run([RUNNER, *args], capture_output=True, text=True)
    return json.loads(done.stdout)


def check_report(*args):
    """`runner check ... --json-to FILE`'s report: stdout is left to what the kernel printed."""
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "report.json")
        subprocess.run([RUNNER, *args, "--json-to", report], capture_output=True, text=True)
        return json.load(open(report))


def declared(path):
    text = open(path).read()
    value = lambda name: int(re.search(rf"{name} = (\d+)", text).group(1))
    return value("blocks_per_grid"), value("threads_per_block")


def modelled_us(exercise, path):
    """The kernel's modelled time, launch overhead aside, on the timing case under its launch."""
    if exercise == "05":
        blocks, threads = GRID_05
        args = ["--kernel", "saxpy", f"--arg=f32[{N}]", f"--arg=f32[{N}]", "--arg=f32=2", f"--arg=i32={N}"]
    else:
        blocks, threads = declared(path)
        args = ["--kernel", "distances", f"--arg=f32[{N}]", f"--arg=f32[{N}]",
                f"--arg=f32[{N}]=zeros", f"--arg=i32={N}"]
    report = runner("sim", path, "--grid", str(blocks), "--block", str(threads), *args, "--json")
    launch = report["launches"][0] if "launches" in report else report
    modelled = launch["modelled"]
    return modelled["microseconds"] - modelled["per_resource"]["launch_us"]


def present(path):
    """The file, or for the extra grids the GPU script made in a temporary folder
    (06-grid_TxB.cu), the same made again."""
    grid = re.fullmatch(r".*/06-grid_(\d+)x(\d+)\.cu", path)
    if grid is None:
        return path
    text = open("checks/variants/06/blocks_512_two_per_sm.cu").read()
    text = re.sub(r"threads_per_block = \d+", f"threads_per_block = {grid.group(1)}", text)
    text = re.sub(r"blocks_per_grid = \d+", f"blocks_per_grid = {grid.group(2)}", text)
    made = os.path.join(tempfile.mkdtemp(), os.path.basename(path))
    open(made, "w").write(text)
    return made


def main():
    rows = [json.loads(line) for line in open(sys.argv[1])]
    for r in rows:
        r["file"] = present(r["file"])
    reference = {id: modelled_us(id, path) for id, path in SOLUTION.items()}
    print("| exercise | kind | variant | launch | H100 / reference | model / reference | GPU verdict | simulator verdict |")
    print("| --- | --- | --- | --- | ---: | ---: | --- | --- |")
    for r in rows:
        gpu = next((t[1] for t in r.get("targets", []) if t[0] == "max_time_vs_reference"), float("nan"))
        model = modelled_us(r["id"], r["file"]) / reference[r["id"]]
        sim = check_report("check", r["id"], "--file", r["file"], "--backend", "sim")["verdict"]
        launch = "<<<%d, %d>>>" % (GRID_05 if r["id"] == "05" else declared(r["file"]))
        name = r["file"].rsplit("/", 1)[-1]
        print(f"| {r['id']} | {r['kind']} | {name} | {launch} | {gpu:.2f} | {model:.2f} | "
              f"{r.get('gpu_verdict', '?')} | {sim} |", flush=True)


if __name__ == "__main__":
    main()
