"""What a program pays the CUDA driver apart from its kernels' work, for scripts/bench-fixed-costs:
many launches of a tiny kernel (through the driver API directly, and through Numba), many
loads of one module and links of it through cuda.core (as Numba links each kernel). Run it under `runner run`; it prints one `BENCH {json}` line per figure.

Usage: python scripts/fixed_costs.py [LAUNCHES [LOADS]]   (defaults 1000 and 100)
"""

import json
import sys
import time

import numpy as np
from cuda.bindings import driver as cu

LAUNCHES = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
LOADS = int(sys.argv[2]) if len(sys.argv) > 2 else 100

# One thread per element writes its index: as small as a kernel gets.
TINY = b"""
.version 7.0
.target sm_50
.address_size 64
.visible .entry tiny(.param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.s32 %r5, %r3, %r4, %r2;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.s32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r5;
DONE:
    ret;
}
\x00"""


def ok(result):
    """The values of a cuda.bindings call, after checking its error code."""
    err, *values = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"driver call failed: {err}")
    return values[0] if len(values) == 1 else values


def bench(name, count, seconds, **more):
    print("BENCH " + json.dumps({"name": name, "count": count, "seconds": seconds,
                                 "us_each": 1e6 * seconds / count, **more}), flush=True)


def driver_launches(n=256):
    module = ok(cu.cuModuleLoadData(TINY))
    function = ok(cu.cuModuleGetFunction(module, b"tiny"))
    out = ok(cu.cuMemAlloc(4 * n))
    values = [np.array([int(out)], dtype=np.uint64), np.array([n], dtype=np.uint32)]
    params = np.array([v.ctypes.data for v in values], dtype=np.uint64)
    began = time.perf_counter()
    for _ in range(LAUNCHES):
        ok(cu.cuLaunchKernel(function, 1, 1, 1, n, 1, 1, 0, 0, params.ctypes.data, 0))
    ok(cu.cuCtxSynchronize())
    bench("launch (driver API)", LAUNCHES, time.perf_counter() - began)
    got = np.zeros(n, dtype=np.uint32)
    ok(cu.cuMemcpyDtoH(got.ctypes.data, out, 4 * n))
    assert (got == np.arange(n)).all(), "the tiny kernel wrote wrong values"
    ok(cu.cuMemFree(out))
    ok(cu.cuModuleUnload(module))


def module_loads(ptx):
    began = time.perf_counter()
    for _ in range(LOADS):
        module = ok(cu.cuModuleLoadData(ptx))
        ok(cu.cuModuleGetFunction(module, b"tiny"))
        ok(cu.cuModuleUnload(module))
    bench("module load (tiny PTX)", LOADS, time.perf_counter() - began, ptx_bytes=len(ptx))


def numba_launches(n=256):
    from numba import cuda

    @cuda.jit
    def index(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = i

    out = cuda.device_array(n, dtype=np.int32)
    index[1, n](out)  # compiles
    cuda.synchronize()
    began = time.perf_counter()
    for _ in range(LAUNCHES):
        index[1, n](out)
    cuda.synchronize()
    bench("launch (Numba, device array)", LAUNCHES, time.perf_counter() - began)
    assert (out.copy_to_host() == np.arange(n)).all(), "Numba's kernel wrote wrong values"
    return cuda, index


def links(ptx):
    """Links of one module through cuda.core's Linker on the driver's cuLink*, as Numba links
    every kernel it loads (the log buffers are the course's site's where it is on PYTHONPATH)."""
    from cuda.core import Device, Linker, LinkerOptions, ObjectCode

    Device().set_current()
    code = ObjectCode.from_ptx(ptx)
    count = max(1, LOADS // 10)
    began = time.perf_counter()
    for _ in range(count):
        Linker(code, options=LinkerOptions(arch="sm_90")).link("cubin")
    bench("link (cuda.core's Linker, once per Numba kernel)", count, time.perf_counter() - began)


def numba_module_loads(cuda, index):
    """Loads of a module as Numba writes one (its PTX for `index`, with line info)."""
    ptx, _ = cuda.compile_ptx(index.py_func, "void(int32[:])", lineinfo=True)
    ptx = ptx.encode() + b"\x00"
    began = time.perf_counter()
    for _ in range(LOADS):
        module = ok(cu.cuModuleLoadData(ptx))
        ok(cu.cuModuleUnload(module))
    bench("module load (Numba's PTX)", LOADS, time.perf_counter() - began, ptx_bytes=len(ptx))


def main():
    began = time.perf_counter()
    ok(cu.cuInit(0))
    device = ok(cu.cuDeviceGet(0))
    context = ok(cu.cuDevicePrimaryCtxRetain(device))
    ok(cu.cuCtxSetCurrent(context))
    bench("driver start (cuInit to a context)", 1, time.perf_counter() - began)
    driver_launches()
    module_loads(TINY)
    cuda, index = numba_launches()
    numba_module_loads(cuda, index)
    links(TINY)


main()
