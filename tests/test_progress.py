"""Long silent steps say what they do: past QUIET_SECONDS a line on stderr, and one more with the
time when they end (allo/backend/progress.py); the Verilator build and every Yosys run go through
it. The hooks are checked on the real functions, with their slow part replaced by a sleep."""
import io
import time

import pytest

from allo.backend import progress
from allo.backend.rtl import sim, synth
from allo.errors import BackendError


@pytest.fixture()
def fast_threshold(monkeypatch):
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.05)
    monkeypatch.delenv(progress.ENV_PROGRESS, raising=False)


def test_a_slow_step_prints_what_it_does_and_how_long_it_took(fast_threshold):
    out = io.StringIO()
    with progress.slow_step(lambda: "building the thing", stream=out):
        time.sleep(0.3)
    first, second = out.getvalue().splitlines()
    assert first == "allo: building the thing ..."
    assert second.startswith("allo: building the thing: ") and second.endswith(" s")


def test_a_quick_step_and_a_silenced_one_print_nothing(fast_threshold, monkeypatch):
    out = io.StringIO()
    with progress.slow_step("quick", stream=out):
        pass
    time.sleep(0.15)  # the cancelled timer must not fire late
    monkeypatch.setenv(progress.ENV_PROGRESS, "0")
    with progress.slow_step("silenced", stream=out):
        time.sleep(0.15)
    assert out.getvalue() == ""


def _slow_then_fail(*_, **__):
    time.sleep(0.3)
    raise BackendError("stopped here by the test")


def test_the_verilator_build_reports_progress(fast_threshold, monkeypatch, capsys):
    monkeypatch.setattr(sim, "runtime_objects", _slow_then_fail)  # the first step of a build
    with pytest.raises(BackendError, match="stopped here"):
        sim.build_simulator("module gemm; endmodule", "", "gemm")
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "allo: building the Verilator simulator of 'gemm' (once per design; cached) ..."
    assert err[1].startswith("allo: building the Verilator simulator of 'gemm' (once per design; cached): ")


def test_every_yosys_run_reports_progress(fast_threshold, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("ALLO_CACHE_DIR", str(tmp_path))  # nothing cached: Yosys would run
    monkeypatch.setattr(synth, "yosys_command", lambda: ["yosys"])
    monkeypatch.setattr(synth, "run_child", _slow_then_fail)
    with pytest.raises(BackendError, match="stopped here"):
        synth.synthesize("module top; endmodule", "top", part="xc7")
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "allo: Yosys synthesis of 'top' for 'xc7' (cached afterwards) ..."
    assert err[1].startswith("allo: Yosys synthesis of 'top' for 'xc7' (cached afterwards): ")
