"""A pytest plugin for scripts/numba-cuda-suite: keeps each test's outcome and time while pytest
runs numba-cuda's own suite (`--pyargs numba.cuda.tests`), and can hold a run to a list of tests.

    python -m pytest -p numba_cuda_suite --pyargs numba.cuda.tests    (scripts/ on PYTHONPATH)

NUMBA_SUITE_ONLY=IDS.txt runs just the tests whose ids the file lists (one a line), so two runs
(the simulated driver, Numba's simulator) can be held to the same tests. NUMBA_SUITE_OUT=FILE.json
writes {"seconds" (the whole session, collection included), "tests": {id: [outcome, seconds]},
"why": {id: the last line of its failure}}, outcome one of passed, failed, skipped.
"""

import json
import os
import time

import pytest

_began = time.perf_counter()
_tests = {}
_why = {}


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    """The fixture numba-cuda's CUDATestCase asks for, which its repository's conftest.py (not in
    the wheel) defines: it tells each test class whether to dump failed FileCheck inputs."""
    request.cls._dump_failed_filechecks = False


def pytest_collection_modifyitems(session, config, items):
    only = os.environ.get("NUMBA_SUITE_ONLY")
    if not only:
        return
    with open(only) as f:
        wanted = {line.strip() for line in f if line.strip()}
    kept = [item for item in items if item.nodeid in wanted]
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in wanted])
    items[:] = kept


def pytest_runtest_logreport(report):
    outcome, seconds = _tests.get(report.nodeid, ("passed", 0.0))
    seconds += report.duration
    # A failure in any phase (setup, call, teardown) fails the test; a skip in setup skips it.
    if report.failed:
        outcome = "failed"
        lines = [l for l in str(report.longrepr).splitlines() if l.strip()]
        _why[report.nodeid] = lines[-1][:300] if lines else ""
    elif report.skipped and outcome != "failed":
        outcome = "skipped"
    _tests[report.nodeid] = (outcome, round(seconds, 4))


def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("NUMBA_SUITE_OUT")
    if out:
        with open(out, "w") as f:
            json.dump({"seconds": time.perf_counter() - _began, "tests": _tests, "why": _why}, f)
