"""CuPy's everyday use, each checked against NumPy: run by scripts/cupy-smoke under `runner run`
(on the simulated driver, or `--backend gpu` in pass-through mode). Prints one line per feature,
`ok` or `FAIL` with what differed, and exits 1 if any failed."""

import sys
import traceback

import cupy as cp
import numpy as np

SOURCE = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def arrays():
    host = np.arange(1000, dtype=np.float32)
    return cp.asarray(host).get(), host


def elementwise():
    x = np.linspace(0, 1, 1000, dtype=np.float32)
    return cp.asnumpy(cp.sin(cp.asarray(x)) * 2 + 1), np.sin(x) * 2 + 1


def elementwise_kernel():
    kernel = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * x + y", "sq_add")
    x = np.arange(500, dtype=np.float32)
    return kernel(cp.asarray(x), cp.asarray(x)).get(), x * x + x


def reductions():
    x = np.arange(1000, dtype=np.float32)
    d = cp.asarray(x)
    got = [float(d.sum()), float(d.max()), float(d.min()), float(d.mean()), int(d.argmax())]
    return np.array(got), np.array([x.sum(), x.max(), x.min(), x.mean(), x.argmax()])


def axis_reduction():
    x = np.arange(12 * 300, dtype=np.float64).reshape(12, 300)
    return cp.asarray(x).sum(axis=1).get(), x.sum(axis=1)


def raw_kernel():
    kernel = cp.RawKernel(SOURCE, "saxpy")
    n = 1000
    x = cp.arange(n, dtype=cp.float32)
    y = cp.ones(n, dtype=cp.float32)
    kernel(((n + 127) // 128,), (128,), (cp.float32(2.0), x, y, cp.int32(n)))
    return y.get(), 2 * np.arange(n, dtype=np.float32) + 1


def matmul():
    a = np.arange(64 * 48, dtype=np.float32).reshape(64, 48) / 100
    b = np.arange(48 * 32, dtype=np.float32).reshape(48, 32) / 100
    return (cp.asarray(a) @ cp.asarray(b)).get(), a @ b


def main():
    failed = 0
    for check in [arrays, elementwise, elementwise_kernel, reductions, axis_reduction,
                  raw_kernel, matmul]:
        try:
            got, want = check()
            if np.allclose(got, want, rtol=1e-5, atol=1e-4):
                print(f"{check.__name__}: ok", flush=True)
                continue
            print(f"{check.__name__}: FAIL: got {got[:5]}..., expected {want[:5]}...", flush=True)
        except ImportError as missing:
            if "cublas" not in str(missing).lower():
                raise
            # cuBLAS is a separate wheel of machine-code kernels (no PTX the simulator runs).
            print(f"{check.__name__}: skipped: needs cuBLAS, not installed", flush=True)
            continue
        except Exception:  # noqa: BLE001 - each feature's failure is reported, the next runs
            print(f"{check.__name__}: FAIL: {traceback.format_exc().strip().splitlines()[-1]}",
                  flush=True)
        failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
