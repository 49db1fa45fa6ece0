"""Robustness of the hardware routes (backend/rtl): large local arrays, loads that fold away,
concurrent builds of one design, and `circt` imported into the user's process."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import allo
from allo.ir.types import int32

from tests.rtl_util import assert_bit_exact, needs_rtl, run_both

pytestmark = needs_rtl
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ----------------------------------------------------------------------------- issue 28 item 4
def big_local(A: int32[8]) -> int32[8]:
    T: int32[2048] = 0  # 8 KiB: above the CPU renderer's stack limit, an on-chip memory in hardware
    B: int32[8] = 0
    for i in range(2048):
        T[i] = i * 3
    for i in range(8):
        B[i] = A[i] + T[i * 255]
    return B


def test_large_local_arrays_are_on_chip_memories_in_rtl_and_calyx():
    s = allo.customize(big_local)
    _, got, want = run_both(s, [np.arange(8, dtype=np.int32)])
    assert_bit_exact(got, want, "big_local")
    cx = s.build(target="calyx")
    assert "memref.dealloc" not in cx.calyx and "2048" in cx.calyx


# ----------------------------------------------------------------------------- issue 21 item 3: folded loads
def folds_to_zero(A: int32[8], B: int32[8]):
    for i in range(8):
        B[i] = A[i] - A[i]


def folds_through_a_scalar(A: int32[8]) -> int32[8]:
    C: int32[8] = 0
    for i in range(8):
        x: int32 = A[i]
        C[i] = (x - x) * A[i] + i
    return C


def scalar_fold(A: int32[8]) -> int32:
    return A[1] - A[1]


@pytest.mark.parametrize("kernel", [folds_to_zero, folds_through_a_scalar, scalar_fold], ids=lambda k: k.__name__)
def test_arguments_whose_loads_fold_away_build_and_run(kernel):
    s = allo.customize(kernel)
    args = [np.arange(8, dtype=np.int32) + 1 for _ in s.ir.func(s.ir.top).params]
    _, got, want = run_both(s, args)
    assert_bit_exact(got, want, kernel.__name__)


# ----------------------------------------------------------------------------- issue 28 item 6, issue 21 item 3
def test_two_processes_and_two_threads_build_one_design_on_a_fresh_cache(tmp_path):
    """Both processes start on an empty cache (given as a relative path); in each, two threads make
    the first call (which builds the Verilator runtime and the simulator) at once."""
    script = tmp_path / "race.py"
    script.write_text(textwrap.dedent(f"""
        import sys, threading
        sys.path.insert(0, {ROOT!r})
        import numpy as np, allo
        from tests.test_rtl_robustness import folds_through_a_scalar as kernel
        mod = allo.customize(kernel).build(target="rtl")
        out, errors = [], []
        def call():
            try:
                out.append(mod(np.arange(8, dtype=np.int32)).tolist())
            except BaseException as e:
                errors.append(repr(e))
        threads = [threading.Thread(target=call) for _ in range(2)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        print(errors or out)
    """))
    env = {**os.environ, "ALLO_CACHE_DIR": "cache"}  # relative (issue 28 item 3): g++ runs in other folders
    procs = [subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env, cwd=tmp_path) for _ in range(2)]
    try:
        results = [p.communicate(timeout=600) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    want = str([list(range(8))] * 2)
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0 and out.strip() == want, (out, err[-3000:])
    assert len(list((tmp_path / "cache" / "rtl").glob("sim_*[0-9a-f]"))) == 1  # one simulator, no leftovers
    assert not list((tmp_path / "cache" / "rtl").rglob("*.tmp"))


# ----------------------------------------------------------------------------- issue 21 item 3: circt in the process
def test_circt_imported_into_the_process_is_refused_before_building(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {ROOT!r})
        import numpy as np
        import circt  # the user's own import: its LLVM copy would corrupt the heap of allo's MLIR
        import allo
        from tests.test_rtl_robustness import scalar_fold
        for what in ("customize", "build", "rtl"):
            try:
                s = allo.customize(scalar_fold)
                opts = dict(target="rtl", scheduling="dynamic") if what == "rtl" else dict(target="llvm")
                s.build(**opts)(np.arange(8, dtype=np.int32))  # the handshake route renders with allo's MLIR
                print(what, "built")
            except allo.AlloError as e:
                print(what, type(e).__name__, "circt" in str(e))
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"exit {r.returncode}: {r.stderr[-2000:]}"
    assert r.stdout.split() == ["customize", "BackendError", "True", "build", "BackendError", "True",
                                "rtl", "BackendError", "True"], r.stdout
