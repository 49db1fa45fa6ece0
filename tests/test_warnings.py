"""Every warning allo gives points at the user's line (the first frame outside the allo package),
whatever the path through allo: a fixed stacklevel pointed inside allo (convert.py) for the float64
input of tutorial 01."""
import shutil
import sys
import warnings

import numpy as np
import pytest

import allo
from allo.ir.types import float32, int32


def _add(A: float32[4]) -> float32[4]:
    return A + 1.0


def _warned_here(call, category=allo.AlloWarning):
    """Run `call()` and check that its one warning is attributed to the line that called `_warned_here`."""
    line = sys._getframe(1).f_lineno
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    ours = [w for w in caught if issubclass(w.category, category)]
    assert ours, [str(w.message) for w in caught]
    assert (ours[0].filename, ours[0].lineno) == (__file__, line), (ours[0].filename, ours[0].lineno, ours[0].message)
    return result


def test_converted_input_on_llvm_points_at_the_call():
    mod = allo.customize(_add).build()
    out = _warned_here(lambda: mod(np.zeros(4)))
    np.testing.assert_array_equal(out, np.ones(4, np.float32))


def test_converted_input_of_a_direct_kernel_call_points_at_the_call():
    kernel = allo.kernel(_add)
    _warned_here(lambda: kernel(np.zeros(4)))


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for the C simulation")
def test_converted_input_in_csim_points_at_the_call():
    mod = allo.customize(_add).build(target="vhls", mode="csim")
    _warned_here(lambda: mod(np.zeros(4)))


def test_customize_warnings_point_at_the_call():
    def plain(A: int32[4]) -> int32[4]:
        return A + 1

    _warned_here(lambda: allo.customize(plain, instantiate=[8]))
    _warned_here(lambda: allo.customize(plain, enable_tensor=True))


def test_missing_openmp_runtime_warning_points_at_the_build(monkeypatch):
    from allo.backend.llvm import openmp

    def par(A: float32[64]) -> float32[64]:
        B: float32[64] = 0.0
        for i in range(64):
            B[i] = A[i] * 2.0
        return B

    s = allo.customize(par)
    s.parallel("i")
    monkeypatch.setenv(openmp.ENV_LIBRARY, "/nonexistent/libiomp5.so")
    _warned_here(lambda: s.build(threads=2), RuntimeWarning)


def test_training_mode_warning_of_the_frontend_points_at_the_call():
    torch = pytest.importorskip("torch")
    model = torch.nn.Linear(4, 2)  # left in training mode
    _warned_here(lambda: allo.frontend.from_pytorch(model, [torch.rand(1, 4)], target="mlir"), UserWarning)
