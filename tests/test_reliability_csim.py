"""C simulation under misuse: shared project folders, concurrent first calls, timeouts and
orphan processes, bounds_check, read-only outputs, an unusable cache folder."""
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import allo
from allo.backend import toolchain as process
from allo.ir.types import int32

from . import kernels_unsafe as ku

pytestmark = pytest.mark.skipif(subprocess.run(["which", os.environ.get("CXX", "g++")], capture_output=True).returncode,
                                reason="needs g++")


def add_one(A: int32[4]) -> int32[4]:
    B: int32[4] = 0
    for i in range(4):
        B[i] = A[i] + 1
    return B


def times_three(A: int32[4]) -> int32[4]:
    B: int32[4] = 0
    for i in range(4):
        B[i] = A[i] * 3
    return B


A4 = np.arange(4, dtype=np.int32)


def running(pattern: str) -> list:
    """pids of live (not zombie) processes whose command line contains `pattern`."""
    out = []
    for pid in subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split():
        try:
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and int(pid) != os.getpid():
            out.append(int(pid))
    return out


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ALLO_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_two_kernels_in_one_project_folder_each_run_their_own_code(tmp_path, fresh_cache):
    d = str(tmp_path / "shared.prj")
    m1 = allo.customize(add_one).build(target="vhls", mode="csim", project=d)
    m2 = allo.customize(times_three).build(target="vhls", mode="csim", project=d)
    np.testing.assert_array_equal(m1(A4), A4 + 1)
    np.testing.assert_array_equal(m2(A4), A4 * 3)
    np.testing.assert_array_equal(m1(A4), A4 + 1)
    # the cache is keyed by each module's own code: a new process gets the right binaries
    code = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})
        import numpy as np, allo
        from tests.test_reliability_csim import add_one, times_three
        a = np.arange(4, dtype=np.int32)
        print(allo.customize(times_three).build(target="vhls", mode="csim", project={d!r})(a).tolist(),
              allo.customize(add_one).build(target="vhls", mode="csim", project={d!r})(a).tolist())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert out.stdout.split("\n")[0] == "[0, 3, 6, 9] [1, 2, 3, 4]", out.stderr


def test_concurrent_first_csim_calls_from_threads(tmp_path, fresh_cache):
    mods = [allo.customize(k).build(target="vhls", mode="csim", project=str(tmp_path / "p"))
            for k in (add_one, add_one, times_three, times_three)]
    results, errors = [None] * len(mods), []

    def call(k):
        try:
            results[k] = mods[k](A4)
        except Exception as e:  # noqa: BLE001 - collected for the assertion
            errors.append(e)

    threads = [threading.Thread(target=call, args=(k,)) for k in range(len(mods))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k, r in enumerate(results):
        np.testing.assert_array_equal(r, A4 + 1 if k < 2 else A4 * 3)
    assert not [p for p in fresh_cache.rglob("*.tmp")]


def test_csim_timeout_kills_the_binary_and_leaves_no_orphan():
    mod = allo.customize(ku.spin).build(target="vhls", mode="csim", timeout=1.5)
    t = time.perf_counter()
    with pytest.raises(allo.BackendError, match="did not finish within 1.5 s") as info:
        mod(5, np.zeros(4, np.int32))
    assert isinstance(info.value, TimeoutError) and time.perf_counter() - t < 60
    assert not process.live_children()
    assert not running("csim_spin_")
    np.testing.assert_array_equal(mod(0, np.zeros(4, np.int32), timeout=60), 0)


def test_csim_child_dies_with_python(tmp_path):
    script = tmp_path / "die.py"
    script.write_text(textwrap.dedent(f"""
        import sys, os
        sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})
        import numpy as np, allo, threading
        from tests import kernels_unsafe as ku
        mod = allo.customize(ku.spin).build(target="vhls", mode="csim")
        mod._binary()
        threading.Timer(3.0, lambda: os._exit(0)).start()   # Python dies abruptly mid-simulation
        mod(5, np.zeros(4, np.int32))
    """))
    subprocess.run([sys.executable, str(script)], timeout=600, capture_output=True)
    time.sleep(1.0)
    assert not running("csim_spin_"), "an orphaned C simulation is still running"


def test_csim_bounds_check_and_semantics_match_llvm():
    hist = allo.customize(ku.histogram).build(target="vhls", mode="csim", bounds_check=True)
    with pytest.raises(allo.BoundsError, match="index 1000 is out of bounds for 'H'") as info:
        hist(np.array([1, 2, 3, 1000, 4, 5, 6, 7], np.int32))
    assert "H[X[i]] += 1" in str(info.value)
    np.testing.assert_array_equal(hist(np.arange(8, dtype=np.int32)), np.r_[np.ones(8), np.zeros(8)])
    A = np.random.default_rng(3).random(8, dtype=np.float32)
    np.testing.assert_array_equal(allo.customize(ku.uninitialised).build(target="vhls", mode="csim")(A), A)
    P = np.array([1, -1, 2, 0, -3, 1, -1, 5], np.int32)
    csim = allo.customize(ku.int_pow).build(target="vhls", mode="csim")
    llvm = allo.customize(ku.int_pow).build()
    for e in (-3, -2, 0, 5):
        np.testing.assert_array_equal(csim(P, e), llvm(P, e))


def test_csim_refuses_read_only_outputs():
    A = np.zeros(4, np.float32)
    A.setflags(write=False)
    mod = allo.customize(ku.inplace).build(target="vhls", mode="csim")
    with pytest.raises(allo.AlloTypeError, match="read-only"):
        mod(A)


def test_unwritable_cache_dir_is_an_allo_error(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("ALLO_CACHE_DIR", str(blocker))
    mod = allo.customize(add_one).build(target="vhls", mode="csim")
    with pytest.raises(allo.BackendError, match="set ALLO_CACHE_DIR to a writable folder"):
        mod(A4)


def test_a_relative_cache_dir_works_for_c_simulation(tmp_path):
    """issue 28 item 3: ALLO_CACHE_DIR=cache broke every C simulation (g++ runs in another folder)."""
    code = textwrap.dedent(f"""
        import os, sys; sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})
        import numpy as np, allo
        from tests.test_reliability_csim import add_one, times_three
        A = np.arange(4, dtype=np.int32)
        print(allo.customize(add_one).build(target="vhls", mode="csim", project="p1")(A).tolist())
        os.chdir("p1")  # the cache stays where it was first resolved
        print(allo.customize(times_three).build(target="vhls", mode="csim", project="p2")(A).tolist())
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                       env={**os.environ, "ALLO_CACHE_DIR": "cache"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split("\n")[:2] == ["[1, 2, 3, 4]", "[0, 3, 6, 9]"]
    assert len(list((tmp_path / "cache" / "hls").glob("csim_*"))) == 2
