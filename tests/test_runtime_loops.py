"""Loops with run-time bounds and `while` loops on the LLVM backend (allo.transforms.runloops):
Ctrl-C stops them whatever their body does (the abort flag is polled at the back edge), and the
default build checks their affine accesses once at loop entry instead of segfaulting."""
import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import allo
from allo.interp import run as interp_run
from allo.ir.types import float32, int32, int64

from . import kernels_unsafe as ku

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENDLESS = 2 ** 62


# ----------------------------------------------------------------------------- Ctrl-C (issue 28 item 2)
LONG = {  # kernel name -> arguments of a call that does not end by itself
    "spin": "5, np.zeros(4, np.int32)",  # a while loop that stores to memory (worked before)
    "spin_registers": "-2",  # a while loop over a register only
    "spin_for": str(ENDLESS),  # a for loop with a run-time bound, straight-line body
    "spin_for_nested": f"{ENDLESS}, np.ones(64, np.int32)",  # ... whose body is a constant loop
    "spin_triangular": str(ENDLESS),  # an inner loop bounded by the outer variable
}


def test_ctrl_c_stops_every_kind_of_long_loop_within_a_second(tmp_path):
    script = tmp_path / "spin.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {ROOT!r})
        import numpy as np, allo
        from tests import kernels_unsafe as ku
        for name, args in {LONG!r}.items():
            mod = allo.customize(getattr(ku, name)).build()
            assert mod.interruptible, name
            print("ready", name, flush=True)
            t = time.perf_counter()
            try:
                mod(*eval("(" + args + ",)"))
                print("finished", name, flush=True)
            except KeyboardInterrupt:
                print("interrupted", name, round(time.perf_counter() - t, 2), flush=True)
        print("after", ku.spin_for.__name__, allo.customize(ku.spin_for).build()(3), flush=True)
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(ln.split()) for ln in proc.stdout], daemon=True).start()
    try:
        for name in LONG:
            assert lines.get(timeout=120) == ["ready", name]
            time.sleep(0.3)
            proc.send_signal(signal.SIGINT)
            try:
                line = lines.get(timeout=5)  # stopped within 5 s of the signal
            except queue.Empty:
                pytest.fail(f"Ctrl-C did not stop {name}")
            assert line[:2] == ["interrupted", name], line
        assert lines.get(timeout=60) == ["after", "spin_for", "5"]  # 0*3+0, *3+1, *3+2: the module still works
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_polling_keeps_results_identical():
    A = np.arange(64, dtype=np.int32)
    for kern, args in ((ku.spin_for, (1000,)), (ku.spin_for_nested, (7, A)), (ku.spin_triangular, (50,)),
                       (ku.spin_registers, (1 + 3 + 9 + 27 + 81,))):
        s = allo.customize(kern)
        assert s.build()(*args) == interp_run(s.ir, *args), kern.__name__


# ----------------------------------------------------------------------------- entry checks (issue 28 item 7)
def test_a_run_time_bound_past_the_array_is_a_bounds_error_not_a_segfault():
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {ROOT!r})
        import numpy as np, allo
        from tests import kernels_unsafe as ku
        mod = allo.customize(ku.fill_n).build()
        A = np.zeros(16, np.int32)
        try:
            mod(A, 10 ** 9)
        except allo.BoundsError as e:
            print("BoundsError", int(A.sum()), str(e).splitlines()[0])
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"the call crashed (exit {r.returncode}): {r.stderr[-2000:]}"
    out = r.stdout.strip()
    line = f"kernels_unsafe.py:{ku.fill_n.__code__.co_firstlineno + 2}:"
    assert out.startswith("BoundsError 0 ") and line in out, out  # nothing was written: the loop did not run
    assert "index 999999999 is out of bounds for 'A' (shape [16]" in out and "the loop 'i'" in out, out


def test_entry_checks_find_the_extreme_index_of_each_access():
    A16, A816 = np.zeros(16, np.int32), np.zeros((8, 16), np.int32)
    fill = allo.customize(ku.fill_n).build()
    fill(A16, 16)
    np.testing.assert_array_equal(A16, np.arange(16))
    fill(A16, 0), fill(A16, -3)  # loops that do not run check nothing
    strided = allo.customize(ku.strided).build()
    assert strided(np.arange(16, dtype=np.int32), 1, 17) == 1 + 5 + 9 + 13  # last i is 13, not 16
    with pytest.raises(allo.BoundsError, match="index 17 is out of bounds"):
        strided(np.arange(16, dtype=np.int32), 1, 18)
    with pytest.raises(allo.BoundsError, match="index -3 is out of bounds"):
        strided(np.arange(16, dtype=np.int32), -3, 4)
    rows = allo.customize(ku.rows).build()
    rows(A816, 8, 16)
    with pytest.raises(allo.BoundsError, match="index 8 is out of bounds for dimension 0 of 'A'"):
        rows(A816, 9, 16)
    with pytest.raises(allo.BoundsError, match="index 16 is out of bounds for dimension 1 of 'A'"):
        rows(A816, 2, 17)
    rev = allo.customize(ku.reversed_read).build()
    rev(np.arange(16, dtype=np.int32), A16, 8)  # reads A[2i .. 2i+1] up to 15, writes B[15 - i] down to 8
    with pytest.raises(allo.BoundsError, match="index 17 is out of bounds for 'A'"):
        rev(np.arange(16, dtype=np.int32), A16, 9)


def test_guarded_and_data_dependent_accesses_are_left_to_bounds_check():
    A = np.zeros(16, np.int32)
    allo.customize(ku.guarded).build()(A, 1000)  # `if i < 16` keeps it inside: no false alarm
    assert A.sum() == 16
    with pytest.raises(allo.BoundsError, match="found at run time by bounds_check"):
        allo.customize(ku.fill_n).build(bounds_check=True)(A, 17)  # per access, as before
