"""`from_pytorch(..., precision="int8", integer_only=True)` (issue 24 item 2): a BERT-style encoder
block (tests/quant_models.Block) imports with integer softmax / GELU / LayerNorm / residual adds, the
composed MLIR of the core holds no float type or op, its accuracy vs the float model is bounded,
and the static RTL == the LLVM build bit for bit; a CNN with average pooling too; options that
cannot be integer-only are refused."""
import os
import re
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import allo  # noqa: E402
from allo.errors import FrontendError  # noqa: E402
from allo.frontend import import_model  # noqa: E402

from .quant_models import Block  # noqa: E402
from .rtl_util import needs_rtl  # noqa: E402

_CACHE = {}
HAVE_CXX = subprocess.run(["which", os.environ.get("CXX", "g++")], capture_output=True).returncode == 0


def float_ops(imported) -> list:
    """Float types and float ops in the composed MLIR of the core (empty for an integer-only core)."""
    text = imported.schedule().module.operation.get_asm(large_elements_limit=16)
    found = set(re.findall(r"\b(?:b?f(?:16|32|64)|f80|f128)\b", text))
    found |= {f"arith.{op}" for op in re.findall(r"\barith\.(\w+)", text)
              if op.endswith("f") or op in ("sitofp", "uitofp", "fptosi", "fptoui")}
    found |= {f"math.{op}" for op in re.findall(r"\bmath\.(\w+)", text) if not op.endswith("i")}
    return sorted(found)


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.pool = torch.nn.AvgPool2d(2)
        self.gap = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(4, 5)

    def forward(self, x):
        return self.fc(torch.flatten(self.gap(self.pool(torch.relu(self.conv(x)))), 1))


def model_and_data(name):
    torch.manual_seed(0)
    if name == "block":
        model, shape = Block(d=16, heads=2, ffn=32).eval(), (1, 4, 16)
    else:
        model, shape = SmallCNN().eval(), (2, 3, 8, 8)
    return model, shape, [[torch.randn(*shape)] for _ in range(8)]


def imported(name, integer_only=True):
    key = (name, integer_only)
    if key not in _CACHE:
        model, shape, cal = model_and_data(name)
        imp = import_model(model, [torch.randn(*shape)], precision="int8", calibration_data=cal,
                           integer_only=integer_only, verbose=False)
        _CACHE[key] = (imp, imp.build("llvm"), model, shape)
    return _CACHE[key]


def rel_error(mod, model, shape, batches=8):
    gen = torch.Generator().manual_seed(99)
    num = den = 0.0
    for _ in range(batches):
        x = torch.randn(*shape, generator=gen)
        want = model(x).detach().numpy().astype(np.float64)
        num += float(((mod(x.numpy()) - want) ** 2).sum())
        den += float((want ** 2).sum())
    return (num / den) ** 0.5


def test_integer_only_block_core_has_no_float_op():
    imp, mod, model, shape = imported("block")
    assert float_ops(imp) == []
    for kernel in ("nn.isoftmax[", "nn.igelu[", "nn.ilayer_norm[", "iadd_"):
        assert kernel in imp.source
    # the input enters once at the residual width (int16), requantized to int8 once for q, k and v
    assert repr(imp.program.inputs[0].dtype) == "int16" and imp.boundary.inputs[0].scale > 0
    assert imp.source.count("(x)") == 1
    assert imp.boundary.outputs[0].dtype == allo.ir.types.int32
    plain, _, _, _ = imported("block", integer_only=False)
    assert "f32" in " ".join(float_ops(plain))  # the check does see the float softmax/LayerNorm/GELU


def test_integer_only_block_accuracy_vs_float_model():
    imp, mod, model, shape = imported("block")
    assert rel_error(mod, model, shape) <= 0.03  # measured 1.5% (int8 with float activations: 1.4%)
    rows = {r["op"]: r for r in imp.quant_report(as_text=False)}
    for op in ("softmax", "gelu", "layer_norm", "add"):
        assert rows[op]["precision"] == "int8" and "float32" not in rows[op]["types"].values()
        assert rows[op]["rel_rms_err"] <= 0.04  # measured 0.4% (add) .. 2.4% (gelu)


@pytest.mark.skipif(not HAVE_CXX, reason="needs g++")
def test_integer_only_block_csim_equals_llvm():
    imp, mod, model, shape = imported("block")
    csim = imp.build("vhls", mode="csim")
    x = (torch.randn(*shape, generator=torch.Generator().manual_seed(6)) * 2).numpy()
    np.testing.assert_array_equal(csim(x), mod(x))


@needs_rtl
def test_integer_only_block_rtl_equals_llvm():
    imp, mod, model, shape = imported("block")
    rtl = imp.build("rtl")
    gen = torch.Generator().manual_seed(5)
    for _ in range(2):
        x = (torch.randn(*shape, generator=gen) * 2).numpy()
        np.testing.assert_array_equal(rtl(x), mod(x))
    assert rtl.cycles > 0


def test_integer_only_cnn_with_average_pooling():
    imp, mod, model, shape = imported("cnn")
    assert float_ops(imp) == []
    assert imp.source.count("nn.iavg_pool2d[") == 2
    assert rel_error(mod, model, shape) <= 0.03  # measured 1.0%


class Mixed(torch.nn.Module):
    """A negative constant scaling, softmax over a middle axis, a division and a subtraction."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        return torch.softmax(h * -0.5, dim=1) - torch.relu(h) / 4.0


def test_integer_only_scalings_softmax_axis_and_sub():
    torch.manual_seed(0)
    model, shape = Mixed().eval(), (2, 5, 8)
    cal = [[torch.randn(*shape)] for _ in range(8)]
    imp = import_model(model, [torch.randn(*shape)], precision="int8", calibration_data=cal, integer_only=True,
                       verbose=False)
    assert float_ops(imp) == [] and "nn.isoftmax[" in imp.source and "-X" in imp.source
    assert rel_error(imp.build("llvm"), model, shape) <= 0.03  # measured 1.5%


class Sigmoid(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.sigmoid(self.fc(x))


@pytest.mark.parametrize("precision,match", [("auto", "needs integer layers"),
                                             (allo.Fixed(16, 8), "needs integer layers"),
                                             ({"default": "int8", "fc": "float32"}, "precision\\['fc'\\]"),
                                             (None, "needs an integer precision")])
def test_integer_only_refuses_non_integer_precisions(precision, match):
    x = torch.randn(2, 4)
    with pytest.raises(FrontendError, match=match):
        import_model(Sigmoid().eval(), [x], precision=precision, integer_only=True, verbose=False)


def test_integer_only_names_an_op_without_integer_kernel():
    x = torch.randn(2, 4)
    with pytest.raises(FrontendError, match="integer_only=True: sigmoid has no integer-only kernel"):
        import_model(Sigmoid().eval(), [x], precision="int8", integer_only=True, verbose=False)
    with pytest.raises(FrontendError, match="True or False"):
        import_model(Sigmoid().eval(), [x], precision="int8", integer_only="yes", verbose=False)


@pytest.mark.slow
def test_cli_integer_only(tmp_path, capsys):
    from allo.cli import main

    path = os.path.join(os.path.dirname(__file__), "quant_models.py")
    out = tmp_path / "out"
    assert main(["compile", f"{path}:Block", "--input-shape", "1x4x32", "--precision", "int8", "--integer-only",
                 "--calibration-batches", "4", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "nn.isoftmax[" in (out / "model.py").read_text() and "float32" not in (out / "model.py").read_text()
    # random weights (torch's global seed) and 4 random calibration batches: a loose sanity bound
    assert float(printed.split("max |allo - torch| on random inputs = ")[1].split()[0]) < 0.5
    assert main(["compile", f"{path}:Block", "--input-shape", "1x4x32", "--integer-only", "-o", str(out)]) == 2
    assert "--integer-only needs an integer --precision" in capsys.readouterr().err


@needs_rtl
def test_int8_block_with_float_activations_rtl_equals_llvm():
    """Without integer_only the block's softmax / LayerNorm / GELU stay float32 between the int8
    layers: the static circuit's float units (exp, erf, rsqrt) take them, bit for bit with LLVM here."""
    imp, mod, model, shape = imported("block", integer_only=False)
    rtl = imp.build("rtl")
    x = (torch.randn(*shape, generator=torch.Generator().manual_seed(5)) * 2).numpy()
    got, want = rtl(x), mod(x)
    assert np.abs(got - want).max() <= 4 * 2.0**-23 * max(1.0, float(np.abs(want).max())), np.abs(got - want).max()
    assert rtl.cycles > 0
