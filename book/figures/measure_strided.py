#!/usr/bin/env python3
"""Measures the effective bandwidth of a strided copy on a real GPU, for the coalescing chapter.

The kernel is book/figures/kernels/strided_copy.cu: out[i] = in[i * stride], n floats, one thread
per element. Its useful traffic is the same for every stride (4n bytes read, 4n written), so its
effective bandwidth, useful bytes over time, shows what uncoalesced loads cost.

Two steps, because the GPU machine need not have a CUDA compiler:

    # where NVRTC is (the course's .nvrtc/ after scripts/install-nvrtc): CUDA C -> PTX
    python3 book/figures/measure_strided.py ptx --out /tmp/strided_copy.ptx
    # on the GPU machine (needs only the NVIDIA driver, libcuda.so.1): load the PTX, time it
    python3 book/figures/measure_strided.py measure --ptx /tmp/strided_copy.ptx --json out.json

`measure` prints a Markdown table with the GPU's name and the driver version. Timing follows the
performance chapter: CUDA events around each launch, 3 warm-up launches, the median of 20, the
L2 cache flushed (a 256 MB memset) before every timed launch, and a device-to-device copy of the
same useful size as the ceiling. Python 3 standard library only (ctypes).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
from pathlib import Path

BOOK = Path(__file__).resolve().parent.parent
REPO = BOOK.parent
KERNEL = BOOK / "figures" / "kernels" / "strided_copy.cu"
STRIDES = [1, 2, 4, 8, 16, 32]
N = 1 << 24  # 16 Mi floats: 64 MB read and 64 MB written per launch, more than any L2
BLOCK = 256
WARMUP, REPEATS = 3, 20
FLUSH_BYTES = 256 << 20


# ---------------------------------------------------------------------------------------------
# NVRTC: CUDA C -> PTX


def find_nvrtc() -> ctypes.CDLL:
    candidates = [os.environ.get("RUNNER_NVRTC", "")]
    candidates += [str(p) for p in sorted((REPO / ".nvrtc").rglob("libnvrtc.so*")) if "builtins" not in p.name]
    for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root:
            candidates += [str(p) for p in sorted(Path(root, "lib64").glob("libnvrtc.so*"))]
    candidates += ["libnvrtc.so", "libnvrtc.so.12", "libnvrtc.so.13"]
    for name in candidates:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    sys.exit("NVRTC not found: run scripts/install-nvrtc, or set RUNNER_NVRTC to libnvrtc.so")


def compile_ptx(arch: str) -> bytes:
    nvrtc = find_nvrtc()
    program = ctypes.c_void_p()
    source = KERNEL.read_bytes()
    check = lambda code, what: code == 0 or sys.exit(f"NVRTC {what} failed with code {code}")
    check(nvrtc.nvrtcCreateProgram(ctypes.byref(program), source, b"strided_copy.cu", 0, None, None), "create")
    options = (ctypes.c_char_p * 1)(f"--gpu-architecture={arch}".encode())
    status = nvrtc.nvrtcCompileProgram(program, 1, options)
    if status != 0:
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(program, log)
        sys.exit(f"NVRTC could not compile {KERNEL}:\n{log.value.decode()}")
    size = ctypes.c_size_t()
    check(nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size)), "get PTX size")
    ptx = ctypes.create_string_buffer(size.value)
    check(nvrtc.nvrtcGetPTX(program, ptx), "get PTX")
    return ptx.raw.rstrip(b"\0") + b"\0"


# ---------------------------------------------------------------------------------------------
# The driver: load, allocate, launch, time


class Driver:
    def __init__(self) -> None:
        try:
            self.lib = ctypes.CDLL("libcuda.so.1")
        except OSError:
            sys.exit("libcuda.so.1 not found: this needs a machine with an NVIDIA GPU and its driver")
        self.call("cuInit", 0)
        self.device = ctypes.c_int()
        self.call("cuDeviceGet", ctypes.byref(self.device), 0)
        name = ctypes.create_string_buffer(256)
        self.call("cuDeviceGetName", name, 256, self.device)
        self.name = name.value.decode()
        version = ctypes.c_int()
        self.call("cuDriverGetVersion", ctypes.byref(version))
        self.cuda_version = f"{version.value // 1000}.{version.value % 1000 // 10}"
        self.context = ctypes.c_void_p()
        self.call("cuDevicePrimaryCtxRetain", ctypes.byref(self.context), self.device)
        self.call("cuCtxSetCurrent", self.context)

    def call(self, name: str, *args) -> None:
        status = getattr(self.lib, name)(*args)
        if status != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorString(status, ctypes.byref(text))
            sys.exit(f"{name} failed: {text.value.decode() if text.value else status}")

    def alloc(self, nbytes: int) -> ctypes.c_uint64:
        pointer = ctypes.c_uint64()
        self.call("cuMemAlloc_v2", ctypes.byref(pointer), ctypes.c_size_t(nbytes))
        return pointer

    def event(self) -> ctypes.c_void_p:
        event = ctypes.c_void_p()
        self.call("cuEventCreate", ctypes.byref(event), 0)
        return event

    def timed(self, launch, flush: ctypes.c_uint64) -> float:
        """Median milliseconds of `launch` over REPEATS runs, each after an L2 flush."""
        start, stop = self.event(), self.event()
        times = []
        for run in range(WARMUP + REPEATS):
            self.call("cuMemsetD8_v2", flush, ctypes.c_ubyte(run & 0xFF), ctypes.c_size_t(FLUSH_BYTES))
            self.call("cuEventRecord", start, None)
            launch()
            self.call("cuEventRecord", stop, None)
            self.call("cuEventSynchronize", stop)
            elapsed = ctypes.c_float()
            self.call("cuEventElapsedTime", ctypes.byref(elapsed), start, stop)
            if run >= WARMUP:
                times.append(elapsed.value)
        return statistics.median(times)


def measure(ptx: bytes) -> dict:
    gpu = Driver()
    module = ctypes.c_void_p()
    gpu.call("cuModuleLoadData", ctypes.byref(module), ctypes.c_char_p(ptx))
    function = ctypes.c_void_p()
    gpu.call("cuModuleGetFunction", ctypes.byref(function), module, b"strided_copy")
    flush = gpu.alloc(FLUSH_BYTES)
    useful = 2 * 4 * N

    src = gpu.alloc(4 * N)
    dst = gpu.alloc(4 * N)
    gpu.call("cuMemsetD32_v2", src, ctypes.c_uint(0x3F800000), ctypes.c_size_t(N))  # 1.0f
    copy_ms = gpu.timed(lambda: gpu.call("cuMemcpyDtoDAsync_v2", dst, src, ctypes.c_size_t(4 * N), None), flush)

    rows = []
    out = gpu.alloc(4 * N)
    for stride in STRIDES:
        inp = gpu.alloc(4 * N * stride)
        gpu.call("cuMemsetD32_v2", inp, ctypes.c_uint(0x40490FDB), ctypes.c_size_t(N * stride))  # 3.14159f
        gpu.call("cuMemsetD32_v2", out, ctypes.c_uint(0), ctypes.c_size_t(N))
        n_arg, stride_arg = ctypes.c_int(N), ctypes.c_int(stride)
        params = (ctypes.c_void_p * 4)(*[ctypes.cast(ctypes.byref(a), ctypes.c_void_p)
                                         for a in (inp, out, n_arg, stride_arg)])
        blocks = (N + BLOCK - 1) // BLOCK

        def launch() -> None:
            gpu.call("cuLaunchKernel", function, blocks, 1, 1, BLOCK, 1, 1, 0, None, params, None)

        ms = gpu.timed(launch, flush)
        # The kernel copied the pattern: check the last element, which the last thread wrote.
        last = ctypes.c_uint()
        gpu.call("cuMemcpyDtoH_v2", ctypes.byref(last), ctypes.c_uint64(out.value + 4 * (N - 1)), ctypes.c_size_t(4))
        if last.value != 0x40490FDB:
            sys.exit(f"stride {stride}: the kernel did not copy its input (got {last.value:#x})")
        rows.append({"stride": stride, "median_ms": ms, "effective_gb_s": useful / ms / 1e6})
        gpu.call("cuMemFree_v2", inp)
    return {
        "gpu": gpu.name,
        "cuda_driver_version": gpu.cuda_version,
        "n": N,
        "block": BLOCK,
        "useful_bytes": useful,
        "method": f"CUDA events, median of {REPEATS} launches after {WARMUP} warm-ups, "
                  f"{FLUSH_BYTES >> 20} MB memset before each to flush L2",
        "copy_ms": copy_ms,
        "copy_gb_s": useful / copy_ms / 1e6,
        "strides": rows,
    }


def table(result: dict) -> str:
    lines = [
        f"| stride | load sectors per request (simulator) | median time | effective bandwidth | share of a copy |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in result["strides"]:
        # What `runner sim` reports for this kernel's load (4 bytes per lane, one sector per
        # 8 floats of stride, at most one per lane); the book's table was checked against it.
        sectors = min(32, 4 * row["stride"])
        lines.append(f"| {row['stride']} | {sectors} | {row['median_ms'] * 1000:.0f} µs | "
                     f"{row['effective_gb_s']:,.0f} GB/s | {row['effective_gb_s'] / result['copy_gb_s']:.0%} |")
    lines.append(f"| (device-to-device copy) | | {result['copy_ms'] * 1000:.0f} µs | {result['copy_gb_s']:,.0f} GB/s | 100% |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("ptx", help="compile the kernel to PTX with NVRTC")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--arch", default="compute_80", help="virtual architecture (default compute_80: A100 and newer)")
    m = sub.add_parser("measure", help="time the kernel on GPU 0")
    m.add_argument("--ptx", required=True, type=Path)
    m.add_argument("--json", type=Path, help="also write the results here")
    options = parser.parse_args()
    if options.command == "ptx":
        options.out.write_bytes(compile_ptx(options.arch).rstrip(b"\0"))
        print(f"wrote {options.out}")
        return 0
    result = measure(options.ptx.read_bytes() + b"\0")
    if options.json:
        options.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{result['gpu']}, CUDA driver {result['cuda_driver_version']}; n = {result['n']:,} floats, "
          f"blocks of {result['block']}; {result['method']}\n")
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
