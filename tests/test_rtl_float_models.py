"""float32 PyTorch models to Verilog: `from_pytorch(model, example_inputs, target="rtl")` on the
seed MLP, a small CNN (conv/batchnorm/relu/maxpool/avgpool/linear) and a transformer block
(self-attention with softmax, LayerNorm, GELU, residuals), simulated with Verilator against the
LLVM default build: bit for bit where the model uses only the exact float units, within the bound
docs/rtl.md states where the CPU build calls libm (exp in softmax, erf in GELU)."""
from __future__ import annotations

import numpy as np
import pytest

import allo
from allo.backend.rtl.static.float import math_checks
from tests.float_models import make
from tests.rtl_util import needs_rtl

torch = pytest.importorskip("torch")
pytestmark = needs_rtl


def _build(name):
    m, x = make(name)
    rtl = allo.frontend.from_pytorch(m, [x], target="rtl")
    return m, x, rtl, allo.frontend.from_pytorch(m, [x])


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_exact_float_model_equals_llvm_bit_for_bit(name):
    m, x, rtl, llvm = _build(name)
    for k in range(3):  # one simulator, several inputs (the build is cached per design)
        xi = (torch.randn(*x.shape, generator=torch.Generator().manual_seed(k)) * (k + 1)).numpy()
        got, want = rtl(xi), llvm(xi)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32), err_msg=f"{name} input {k}")
        np.testing.assert_allclose(got, m(torch.from_numpy(xi)).detach().numpy(), rtol=1e-4, atol=1e-5)
    assert isinstance(rtl.cycles, int) and rtl.cycles > 0


def test_transformer_block_within_the_stated_bound_of_llvm():
    """softmax's exp and GELU's erf are libm calls in the LLVM build and unit sequences in the RTL;
    after the final LayerNorm (outputs of order 1) the difference is absolute:
    |RTL - LLVM| <= math_checks.MODEL_BOUNDS["block"] * 2^-23."""
    m, x, rtl, llvm = _build("block")
    worst = 0.0
    for k in range(8):
        xi = (torch.randn(*x.shape, generator=torch.Generator().manual_seed(k)) * (1 + k % 4)).numpy()
        got, want = rtl(xi), llvm(xi)
        assert np.isfinite(got).all()
        worst = max(worst, float(np.abs(got.astype(np.float64) - want).max()) / 2.0 ** -23)
        np.testing.assert_allclose(got, m(torch.from_numpy(xi)).detach().numpy(), rtol=1e-4, atol=1e-5)
    assert worst <= math_checks.MODEL_BOUNDS["block"], worst
    assert isinstance(rtl.cycles, int) and rtl.cycles > 0
    assert "allo_f32_exp_m allo_fu" in rtl.verilog and "allo_f32_erf_m allo_fu" in rtl.verilog
