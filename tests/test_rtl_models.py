"""PyTorch models to Verilog: `from_pytorch(model, example_inputs, target="rtl")` on integer models
(the issue's MLP with int8 weights and activations and int32 accumulation, and an int32 MLP),
simulated with Verilator; results equal the LLVM build and torch, `mod.cycles` is set."""
from __future__ import annotations

import numpy as np
import pytest

import allo
from tests.rtl_util import assert_bit_exact, full_only, needs_rtl

torch = pytest.importorskip("torch")
pytestmark = needs_rtl


class Int8MLP(torch.nn.Module):
    """int8 weights and activations, int32 accumulation and bias (the seed MLP, quantised by hand)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer("w1", torch.randint(-100, 100, (6, 8), dtype=torch.int8, generator=g))
        self.register_buffer("b1", torch.randint(-500, 500, (6,), dtype=torch.int32, generator=g))
        self.register_buffer("w2", torch.randint(-100, 100, (3, 6), dtype=torch.int8, generator=g))
        self.register_buffer("b2", torch.randint(-500, 500, (3,), dtype=torch.int32, generator=g))

    def forward(self, x):
        h = torch.relu(torch.nn.functional.linear(x.to(torch.int32), self.w1.to(torch.int32), self.b1))
        return torch.nn.functional.linear(h, self.w2.to(torch.int32), self.b2)


class Int32MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.register_buffer("w1", torch.randint(-4, 4, (5, 4), dtype=torch.int32, generator=g))
        self.register_buffer("b1", torch.randint(-4, 4, (5,), dtype=torch.int32, generator=g))

    def forward(self, x):
        return torch.relu(torch.nn.functional.linear(x, self.w1, self.b1)) + x.sum()


@pytest.mark.parametrize("model, x", [
    (Int8MLP, lambda: torch.randint(-100, 100, (2, 8), dtype=torch.int8, generator=torch.Generator().manual_seed(2))),
    pytest.param(Int32MLP, lambda: torch.randint(-8, 8, (3, 4), dtype=torch.int32,
                                                 generator=torch.Generator().manual_seed(3)),
                 marks=full_only("a second model; the int8 MLP covers the route by default")),
])
def test_integer_model_to_rtl_matches_llvm_and_torch(model, x):
    m, x = model().eval(), x()
    rtl = allo.frontend.from_pytorch(m, [x], target="rtl")
    llvm = allo.frontend.from_pytorch(m, [x])
    got, want = rtl(x.numpy()), llvm(x.numpy())
    assert_bit_exact(got, want, model.__name__)
    np.testing.assert_array_equal(got, m(x).numpy())
    assert isinstance(rtl.cycles, int) and rtl.cycles > 0
    assert "module forward(" in rtl.verilog
    # the weights are constants of the design: served as memories, not passed by the caller
    hidden = {rtl.hw.func.params[pos].name for pos, _ in rtl.hw.hidden}
    assert hidden and hidden <= {m.name.rsplit("_b", 1)[0] for m in rtl.interface.memories} | set(rtl.memories)


def test_float_model_to_rtl_matches_llvm_bit_for_bit():
    m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
    x = torch.rand(2, 4, generator=torch.Generator().manual_seed(5))
    rtl = allo.frontend.from_pytorch(m, [x], target="rtl")  # the static circuit with float32 units
    got, want = rtl(x.numpy()), allo.frontend.from_pytorch(m, [x])(x.numpy())
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert rtl.cycles > 0


def test_float_mlp_on_the_handshake_route_matches_llvm_bit_for_bit():
    """The seed MLP's shape (linear, relu, linear) in float32 through scheduling="dynamic": its
    multiplies, adds and relu's max are instances of allo's float units (hs_float/)."""
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
    x = torch.rand(2, 8, generator=torch.Generator().manual_seed(5))
    s = allo.frontend.from_pytorch(m, [x], target="mlir")
    dyn = s.build(target="rtl", scheduling="dynamic")
    got, want = dyn(x.numpy()), allo.frontend.from_pytorch(m, [x])(x.numpy())
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert dyn.cycles > 0 and {"allo_hsf_mul", "allo_hsf_add", "allo_hsf_max"} <= set(dyn.hw.float_units)


def test_float_model_on_the_handshake_route_names_the_float_op():
    m = torch.nn.Sequential(torch.nn.Linear(4, 3)).eval()
    with pytest.raises(allo.BackendError, match="floating-point|float32"):
        allo.frontend.from_pytorch(m, [torch.rand(2, 4)], target="calyx")


def test_int8_model_through_calyx_matches_llvm_and_torch():
    m = Int8MLP().eval()
    x = torch.randint(-100, 100, (2, 8), dtype=torch.int8, generator=torch.Generator().manual_seed(4))
    cx = allo.frontend.from_pytorch(m, [x], target="calyx")
    got, want = cx(x.numpy()), allo.frontend.from_pytorch(m, [x])(x.numpy())
    assert_bit_exact(got, want, "Int8MLP via Calyx")
    np.testing.assert_array_equal(got, m(x).numpy())
    assert isinstance(cx.cycles, int) and cx.cycles > 0
    assert "calyx.component @forward(" in cx.calyx and "component main(" in cx.futil
    assert_bit_exact(cx.interpret(x.numpy()), want, "Int8MLP: .futil interpreted")
