#!/usr/bin/env python3
"""Compile a .cu file to PTX with NVRTC, as the simulator's tests need it: nvrtc_ptx.py [-I DIR]... FILE.cu > FILE.ptx

Options: --gpu-architecture=compute_80 -lineinfo --std=c++17 (what `runner` passes for PTX), the -I folders
given, then CUDA's own headers in .nvrtc/headers/ where scripts/install-nvrtc put them (as the runner adds
them). NVRTC is the course's .nvrtc/ (scripts/install-nvrtc), or RUNNER_NVRTC, or CUDA's lib64.
"""
import ctypes
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def find_nvrtc():
    candidates = [os.environ.get("RUNNER_NVRTC", "")]
    candidates += [str(p) for p in sorted((REPO / ".nvrtc").rglob("libnvrtc.so*")) if "builtins" not in p.name]
    for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root:
            candidates += [str(p) for p in sorted(Path(root, "lib64").glob("libnvrtc.so*"))]
    for name in candidates:
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError:
                pass
    sys.exit("NVRTC not found: run scripts/install-nvrtc, or set RUNNER_NVRTC to libnvrtc.so")


def include_options(args):
    """The -I folders among args, then the course's CUDA headers; and the one file left."""
    folders, files = [], []
    args = iter(args)
    for arg in args:
        if arg == "-I":
            folders.append(next(args))
        elif arg.startswith("-I"):
            folders.append(arg[2:])
        else:
            files.append(arg)
    headers = REPO / ".nvrtc" / "headers" / "nvidia"
    folders += [str(d) for d in (headers / "cuda_runtime" / "include", headers / "cuda_cccl" / "include") if d.is_dir()]
    if len(files) != 1:
        sys.exit(__doc__)
    return [f"--include-path={f}".encode() for f in folders], Path(files[0])


def main():
    includes, path = include_options(sys.argv[1:])
    nvrtc = find_nvrtc()
    program = ctypes.c_void_p()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(program), path.read_bytes(), path.name.encode(), 0, None, None):
        sys.exit("nvrtcCreateProgram failed")
    opts = [b"--gpu-architecture=compute_80", b"-lineinfo", b"--std=c++17"] + includes
    status = nvrtc.nvrtcCompileProgram(program, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    if status:
        sys.exit(f"NVRTC could not compile {path}:\n{log.value.decode()}")
    if log.value.strip():
        print(log.value.decode(), file=sys.stderr)
    nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetPTX(program, ptx)
    sys.stdout.write(ptx.value.decode())


if __name__ == "__main__":
    main()
