# Sourced by the GPU scripts that run Python with real numba-cuda: the carried wheels (.whl:
# numba, numba-cuda, cuda-bindings, cuda-pathfinder for Python 3.12, and llvmlite.tar.xz,
# llvmlite unpacked and packed again: its wheel alone is near the carry limit) installed into
# /tmp/site, and the runner and driver library from $carry (runner.xz and libsimcuda.so.xz:
# stripped, compressed; default target/gpu-py) unpacked there, the runner as $R.
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
if [ -d .whl ]; then
    mkdir -p /tmp/site && tar -xJf .whl/llvmlite.tar.xz -C /tmp/site &&
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target /tmp/site .whl/*.whl || exit 1
fi
# numba-cuda 0.30.4 registers an overload for np.row_stack, which numpy 2.5 (the machine's) no
# longer has; numpy 2.4's wheel does not fit beside llvmlite in one carry. np.vstack is what
# row_stack was, so a .pth file in the machine's site-packages restores the name at every start
# (a sitecustomize on PYTHONPATH would be shadowed by the course's own, hostkit/python's).
echo 'import numpy; numpy.row_stack = getattr(numpy, "row_stack", numpy.vstack)' \
    >"$(python3 -c 'import site; print(site.getsitepackages()[0])')/zz_numpy_row_stack.pth"
export PYTHONPATH=/tmp/site CUDA_HOME=/usr/local/cuda RUNNER_CUDA_PYTHON=$(command -v python3)
python3 -c 'import numba, numba.cuda, numpy; print("numba", numba.__version__, "numpy", numpy.__version__)'
carry=${carry:-target/gpu-py}
for f in runner libsimcuda.so; do [ -f "$carry/$f" ] || xz -dk "$carry/$f.xz"; done
chmod +x "$carry/runner"
R=$carry/runner
