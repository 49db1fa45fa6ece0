"""Quantized imports as integer cores (issue 24 item 1): the core takes and returns the quantized
values, the host quantizes / dequantizes exactly as the in-core quantizer did, and the int8 / Fixed
CNN and MLP of benchmarks/bench_quant.py build for the static RTL == their LLVM build bit for bit,
for vhls (C simulation) and calyx, also from `allo compile`."""
import os
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import allo  # noqa: E402
from allo.errors import AlloError  # noqa: E402
from allo.frontend import import_model  # noqa: E402
from allo.frontend.compose import compose_schedules  # noqa: E402
from allo.frontend.lower import lower  # noqa: E402

from .quant_models import SHAPES, make  # noqa: E402
from .rtl_util import needs_rtl  # noqa: E402

_IMPORTS = {}


def imported(name, precision):
    key = (name, repr(precision))
    if key not in _IMPORTS:
        model, example, cal = make(name)
        imp = import_model(model, example, precision=precision, calibration_data=cal, verbose=False)
        _IMPORTS[key] = (imp, imp.build("llvm"), model)
    return _IMPORTS[key]


def inputs(name, n=2, spread=1.5):
    """Random inputs, scaled so that some fall outside the calibrated range (the clamps run)."""
    gen = torch.Generator().manual_seed(7)
    return [(torch.randn(*SHAPES[name], generator=gen) * spread * (k + 1)).numpy() for k in range(n)]


def in_core_quantizer_build(imp):
    """The same import with its inputs quantized inside the core (the first lowering pass; outputs
    still quantized): the reference the host-side quantization must reproduce bit for bit."""
    plan = imp.types
    saved = plan.input_ports
    plan.input_ports = {}
    plan.reset()
    try:
        prog = lower(imp.captured, plan, weights_as_args=imp.program.weights_as_args)
    finally:
        plan.input_ports = saved
        plan.reset()
        lower(imp.captured, plan, weights_as_args=imp.program.weights_as_args)  # restore the plan's records
    forward = prog.load(prog.render(), imp.filename + " (in-core quantizer)")
    return prog, compose_schedules(prog, forward, imp.filename).build(target="llvm")


@pytest.mark.parametrize("name", ["mlp", "cnn"])
@pytest.mark.parametrize("precision", ["int8", allo.Fixed(16, 8), "fixed12"], ids=["int8", "fixed16_8", "fixed12"])
def test_core_has_integer_boundaries_and_host_quantizes_like_the_kernel(name, precision):
    imp, mod, _ = imported(name, precision)
    b = imp.boundary
    assert b.integer and len(b.inputs) == 1 and len(b.outputs) == 1
    port, out = b.inputs[0], b.outputs[0]
    assert imp.program.inputs[0].dtype == port.dtype
    if precision == "int8":
        assert repr(port.dtype) == "int8" and port.scale > 0 and port.zero_point == 0 and out.scale > 0
        assert "quantize" not in imp.source and "dequant" not in imp.source
    else:
        assert isinstance(port.dtype, allo.Fixed) and port.scale is None
        assert "to_fixed" not in imp.source.split("def forward")[1].split("\n\n")[0]
    assert imp.quantization["inputs"][0]["dtype"] == repr(port.dtype)
    prog, ref = in_core_quantizer_build(imp)
    assert repr(prog.inputs[0].dtype) == "float32"
    for x in inputs(name):
        want = out.dequantize(ref(x.reshape(prog.inputs[0].shape)))
        got = mod(x)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got.reshape(-1), want.reshape(-1))
        q = mod.core(port.quantize(x).reshape(imp.program.inputs[0].shape))
        np.testing.assert_array_equal(out.dequantize(q).reshape(-1), got.reshape(-1))


def test_int8_core_values_follow_the_documented_quantizer():
    imp, mod, _ = imported("mlp", "int8")
    port = imp.boundary.inputs[0]
    x = np.array([0.0, 1e-9, port.scale * 0.5, -port.scale * 0.5, port.scale * 126.6, 1e9, -1e9], np.float32)
    q = port.quantize(x)
    assert q.dtype == np.int8
    exact = np.clip(np.floor(x.astype(np.float64) / port.scale + 0.5), -127, 127)
    assert np.abs(q - exact).max() <= 1 and q[-2] == 127 and q[-1] == -127 and q[0] == 0
    with pytest.raises(AlloError, match="NaN or inf"):
        mod(np.full(SHAPES["mlp"], np.nan, np.float32))


def test_a_float_input_also_read_by_float_ops_stays_float():
    imp, mod, model = imported("block", "int8")  # x feeds the q/k/v linears and the float residual add
    assert imp.boundary.inputs == [None] and imp.boundary.outputs == [None]
    assert repr(imp.program.inputs[0].dtype) == "float32"
    x = inputs("block", 1, 1.0)[0]
    want = model(torch.from_numpy(x)).detach().numpy()
    assert np.linalg.norm(mod(x) - want) <= 0.1 * np.linalg.norm(want)


@needs_rtl
@pytest.mark.parametrize("name,precision", [("mlp", "int8"), ("cnn", "int8"), ("mlp", allo.Fixed(16, 8))],
                         ids=["mlp-int8", "cnn-int8", "mlp-fixed16_8"])
def test_rtl_equals_llvm_bit_for_bit(name, precision, tmp_path):
    imp, mod, model = imported(name, precision)
    rtl = imp.build("rtl")
    for x in inputs(name):
        got = rtl(x)
        np.testing.assert_array_equal(got, mod(x))
        assert rtl.cycles > 0
    q = imp.boundary.inputs[0].quantize(x).reshape(imp.program.inputs[0].shape)
    np.testing.assert_array_equal(np.asarray(rtl.core(q)), np.asarray(mod.core(q)))
    rtl.write(tmp_path / "rtl")
    readme = (tmp_path / "rtl" / "README.md").read_text()
    assert "## Quantized interface" in readme and repr(imp.boundary.inputs[0].dtype) in readme
    if imp.boundary.inputs[0].scale is not None:
        assert repr(imp.boundary.inputs[0].scale) in readme


@needs_rtl
def test_calyx_builds_for_int8_models():
    for name in ("mlp", "cnn"):
        imp, _, _ = imported(name, "int8")
        cx = imp.build("calyx")
        assert "calyx.component" in cx.calyx


@pytest.mark.skipif(shutil.which(os.environ.get("CXX", "g++")) is None, reason="g++ is not installed")
def test_csim_equals_llvm_and_project_readme_has_the_scales(tmp_path):
    imp, mod, _ = imported("mlp", "int8")
    csim = imp.build("vhls", mode="csim", project=str(tmp_path / "prj"))
    for x in inputs("mlp"):
        np.testing.assert_array_equal(csim(x), mod(x))
    readme = (tmp_path / "prj" / "README.md").read_text()
    assert repr(imp.boundary.outputs[0].scale) in readme and "zero point" in readme
    assert "int8" in csim.hls_code.split("forward(")[1].split(")")[0]  # the top function takes int8


@needs_rtl
def test_cli_compiles_an_int8_model_for_rtl(tmp_path, capsys):
    from allo.cli import main

    path = os.path.join(os.path.dirname(__file__), "quant_models.py")
    out = tmp_path / "out"
    assert main(["compile", f"{path}:MLP", "--input-shape", "8x16", "--precision", "int8", "--target", "rtl",
                 "--calibration-batches", "2", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    err = float(printed.split("rtl: max |allo - torch| on random inputs = ")[1].split()[0])
    assert err < 0.1 and "cycles)" in printed and "## Quantized interface" in printed
    assert "## Quantized interface" in (out / "README.md").read_text() and (out / "forward.sv").exists()


@needs_rtl
def test_rtl_module_refuses_out_of_range_fixed_arguments_like_llvm():
    """Issue 24 item 4 (done in allo/backend/convert.py) holds for the static RTL module too: a float
    outside a Fixed argument's range, NaN or inf is an AlloTypeError naming the argument and range."""
    import math

    from .test_fixed_boundary import echo

    t = allo.Fixed(8, 3)
    x = np.array([-16, -1.5, 0, 0.125, 15.875, 3.0])
    rtl, llvm = echo.customize(instantiate=[t]).build(target="rtl"), echo[t]
    np.testing.assert_array_equal(rtl(x, 1.5), llvm(x, 1.5))
    for bad in (200.0, -16.125, math.nan, math.inf):
        for mod in (rtl, llvm):
            with pytest.raises(allo.AlloTypeError, match=r"argument 1 \('s'\).*range \[-16, 15.875\]"):
                mod(x, bad)
            arr = x.copy()
            arr[2] = bad
            with pytest.raises(allo.AlloTypeError, match=r"argument 0 \('A'\).*range \[-16, 15.875\]"):
                mod(arr, 0.0)


def test_fixed_core_refuses_what_the_host_would_have_clamped():
    imp, mod, _ = imported("mlp", allo.Fixed(16, 8))
    x = inputs("mlp", 1)[0] * 1000  # far outside Fixed(16, 8): the host clamps, the core refuses
    np.testing.assert_array_equal(mod(x), mod(np.clip(x, -128, 127.99609375)))
    with pytest.raises(allo.AlloTypeError, match="outside Fixed\\(16, 8\\)"):
        mod.core(x)
