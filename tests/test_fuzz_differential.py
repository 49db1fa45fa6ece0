"""Differential fuzzing: random kernels x random schedules, LLVM == csim == the reference
interpreter bit for bit, schedules keep exact results, refused primitives change nothing.

Small by default (CI); longer runs:

    ALLO_FUZZ_EXAMPLES=200 ALLO_FUZZ_CSIM_EXAMPLES=40 python -m pytest tests/test_fuzz_differential.py
    PYTHONPATH=. python tests/fuzz_kernels.py 500          # the same check as a script, with a summary

The examples are derandomized (the same programs every run) unless ALLO_FUZZ_SEED is set.
"""
import os
import random
import subprocess
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import allo

from .fuzz_kernels import check, generate, random_schedule
from .rtl_util import needs_rtl

EXAMPLES = int(os.environ.get("ALLO_FUZZ_EXAMPLES", "16"))
CSIM_EXAMPLES = int(os.environ.get("ALLO_FUZZ_CSIM_EXAMPLES", "3"))
RTL_EXAMPLES = int(os.environ.get("ALLO_FUZZ_RTL_EXAMPLES", "2"))  # Verilator builds take seconds each
SEED = os.environ.get("ALLO_FUZZ_SEED")
HAVE_CXX = subprocess.run(["which", os.environ.get("CXX", "g++")], capture_output=True).returncode == 0


def _settings(n):
    return settings(max_examples=n, deadline=None, derandomize=SEED is None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _offset(seed):
    return seed + (int(SEED) << 20 if SEED else 0)


@pytest.fixture(scope="module")
def workdir():
    with tempfile.TemporaryDirectory(prefix="allo_fuzz_") as d:
        yield d


@_settings(EXAMPLES)
@given(seed=st.integers(0, 2**20 - 1))
def test_llvm_equals_interpreter_on_random_kernels_and_schedules(seed, workdir):
    prog = generate(_offset(seed))
    assert check(prog, _offset(seed), workdir, csim=False) in ("ok", "rejected")


@pytest.mark.skipif(not HAVE_CXX, reason="needs g++")
@_settings(CSIM_EXAMPLES)
@given(seed=st.integers(0, 2**20 - 1))
def test_llvm_csim_and_interpreter_agree(seed, workdir):
    prog = generate(_offset(seed) + 7)
    assert check(prog, _offset(seed) + 7, workdir, csim=True) in ("ok", "rejected")


@needs_rtl
@_settings(RTL_EXAMPLES)
@given(seed=st.integers(0, 2**20 - 1))
def test_rtl_agrees_on_a_sampled_kernel(seed, workdir):
    """A sampled subset through the static RTL circuit (ints, fixed point and float32 alike)."""
    prog = generate(_offset(seed) + 29)
    assert check(prog, _offset(seed) + 29, workdir, csim=False, rtl=True) in ("ok", "rejected", "rtl-unsupported")


@_settings(max(EXAMPLES, 10))
@given(seed=st.integers(0, 2**20 - 1))
def test_random_schedule_calls_apply_or_refuse_atomically(seed, workdir):
    """Many random (often illegal) primitive calls without building: each one applies or raises
    ScheduleError and leaves the schedule exactly as it was (checked inside random_schedule)."""
    prog = generate(_offset(seed) + 13)
    fn = prog.load(workdir)
    s = allo.customize(fn)
    log = random_schedule(s, prog, random.Random(seed), steps=8, illegal=0.3)
    assert len(s.steps) == sum(1 for *_, applied in log if applied)


def test_the_generator_covers_the_language():
    """The default budget still sees every type family and construct."""
    sources = "\n".join(generate(seed).source for seed in range(60))
    for feature in ("Int(", "UInt(", "Fixed(", "UFixed(", "float32", " if ", "else:", "min(", "max(", "allo.grid",
                    "+=", "h_fz", " << ", " // ", " % ", "t: ", "40000", "][", "Fixed(64", "UFixed(64"):
        assert feature in sources, feature
    assert __import__("re").search(r"t\[(\d+):\d+\] = ", sources), "no bit-field store"
    widths = {int(w) for w in __import__("re").findall(r"Int\((\d+)\)", sources)}
    assert min(widths) == 1 and max(widths) == 64


def test_same_bits_is_strict():
    from .fuzz_kernels import same_bits

    assert same_bits(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    assert not same_bits(np.array([0.0]), np.array([-0.0]))
    assert not same_bits(np.array([1, 2], np.int8), np.array([1, 3], np.int8))
    assert not same_bits(np.zeros(2), np.zeros(3))
