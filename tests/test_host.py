"""Process-wide effects (allo.backend.host) and the backends' shared toolchain code
(allo.backend.toolchain): importing allo changes nothing; the first LLVM build applies exactly the
documented effects once; ALLO_PROCESS_EFFECTS=0 turns them all off."""
import ast
import os
import platform
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from allo.backend import toolchain
from allo.errors import BackendError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# Run in a fresh interpreter; prints one line of repr()'d observations per stage.
PROBE = textwrap.dedent(f"""
    import atexit, ctypes, logging, os, sys
    sys.path.insert(0, {ROOT!r})
    import numpy as np
    import mlir.ir, mlir.execution_engine  # their own atexit hooks are not allo's

    libc = ctypes.CDLL(None)
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]

    def sigint():
        buf = ctypes.create_string_buffer(512)
        assert libc.sigaction(2, None, buf) == 0
        return ctypes.c_void_p.from_buffer(buf).value

    def state():
        return dict(os.environ), atexit._ncallbacks(), sigint()

    def big_block_on_heap():  # glibc mmaps a 24 MB block unless allo raised the mmap threshold
        p = libc.malloc(24 << 20)
        try:
            for line in open("/proc/self/maps"):
                if line.rstrip().endswith("[heap]"):
                    lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                    return lo <= p < hi
            return False
        finally:
            libc.free(p)

    def diff(before, after):
        env0, env1 = before[0], after[0]
        changed = {{k: env1.get(k) for k in set(env0) | set(env1) if env0.get(k) != env1.get(k)}}
        return changed, after[1] - before[1], after[2] != before[2]

    before = state()
    import allo
    from allo.backend import host, toolchain
    from allo.ir.types import int32
    print(repr(diff(before, state())))

    def kernel(A: int32[4], n: int32) -> int32[4]:
        B: int32[4] = 0
        i: int32 = 0
        while i < n:
            B[i] = A[i] + 1
            i += 1
        return B

    mod = allo.customize(kernel).build()
    assert list(mod(np.arange(4, dtype=np.int32), 4)) == [1, 2, 3, 4]
    toolchain.run_child(["true"], timeout=60, what="true")
    built = state()
    print(repr((diff(before, built), sorted(host.configure()), mod.interruptible)))
    host.configure()
    host.at_exit(sys.stdout.flush)
    host.at_exit(sys.stdout.flush)
    print(repr((diff(built, state()), sorted(host.configure()))))
    print(repr(big_block_on_heap()))
""")


def _probe(tmp_path, **env):
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    clean = {k: v for k, v in os.environ.items()
             if k not in ("ALLO_PROCESS_EFFECTS", "ALLO_MALLOC_TUNING", "KMP_BLOCKTIME", "MALLOC_MMAP_THRESHOLD_",
                          "MALLOC_TRIM_THRESHOLD_")}
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, env={**clean, **env},
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # Python's handler, as usual
    assert r.returncode == 0, r.stderr
    return [ast.literal_eval(line) for line in r.stdout.splitlines()]


nothing = ({}, 0, False)


@pytest.mark.skipif(not GLIBC, reason="observes glibc's sigaction and malloc")
def test_switch_off_importing_and_building_change_no_process_state(tmp_path):
    imported, (built, effects, interruptible), (again, effects_again), on_heap = _probe(tmp_path,
                                                                                       ALLO_PROCESS_EFFECTS="0")
    assert imported == nothing
    assert built == nothing and effects == [] and interruptible  # (a Ctrl-C would not stop it)
    assert again == nothing and effects_again == []  # at_exit registers nothing either
    assert not on_heap  # glibc's default mmap threshold


@pytest.mark.skipif(not GLIBC, reason="observes glibc's sigaction and malloc")
def test_switch_on_the_first_build_applies_the_documented_effects_once(tmp_path):
    imported, (built, effects, _), (again, effects_again), on_heap = _probe(tmp_path)
    assert imported == nothing  # importing allo changes nothing
    env, hooks, sigint_changed = built
    assert env == {"KMP_BLOCKTIME": "1"} and sigint_changed
    assert hooks == 2  # SIGINT given back at exit; children killed at exit
    assert effects == ["KMP_BLOCKTIME", "SIGINT", "malloc"]
    assert again == ({}, 1, False) and effects_again == effects  # idempotent; at_exit(f) twice: one hook
    assert on_heap  # the mmap threshold was raised


@pytest.mark.skipif(not GLIBC, reason="observes glibc's sigaction and malloc")
def test_the_users_own_values_win(tmp_path):
    imported, (built, effects, _), _, _ = _probe(tmp_path, KMP_BLOCKTIME="200", ALLO_MALLOC_TUNING="0")
    assert imported == nothing and built[0] == {}
    assert "KMP_BLOCKTIME" not in effects and "malloc" not in effects


def test_relative_cache_dir_is_resolved_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(toolchain.ENV_CACHE, f"cache-{tmp_path.name}")
    d = toolchain.cache_dir("hls")
    assert d == tmp_path / f"cache-{tmp_path.name}" / "hls" and d.is_dir()
    monkeypatch.chdir(tmp_path.parent)
    assert toolchain.cache_dir("hls") == d
    assert toolchain.cache_dir("rtl") == d.parent / "rtl"


def test_cxx_names_what_needs_it(monkeypatch):
    monkeypatch.setenv("CXX", "no-such-compiler-allo")
    assert toolchain.cxx_name() == "no-such-compiler-allo"
    with pytest.raises(BackendError, match="'no-such-compiler-allo' not found: HLS C simulation needs g"):
        toolchain.cxx("HLS C simulation")


def test_run_children_in_order_and_none_left_after_a_timeout():
    rs = toolchain.run_children([["sh", "-c", "echo a"], ["sh", "-c", "echo b; exit 3"], ["sh", "-c", "echo c"]],
                                "shell", jobs=2, timeout=60)
    assert [(r.returncode, r.stdout) for r in rs] == [(0, "a\n"), (3, "b\n"), (0, "c\n")]
    t = time.perf_counter()
    with pytest.raises(toolchain.ChildTimeout, match="the sleeper did not finish within 0.5 s"):
        toolchain.run_children([["sleep", "30"], ["sleep", "30"], ["sleep", "30"]], "sleeper", timeout=0.5)
    assert time.perf_counter() - t < 20 and not toolchain.live_children()
