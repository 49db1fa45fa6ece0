"""Quantized import (`from_pytorch(..., precision=, calibration_data=)`): int8 and fixed-point
versions of the seed MLP, a CNN with batch norms and a transformer block, bit-exact between the
LLVM build and the HLS C simulation, close to the float model; precision configs per op kind and
layer; BatchNorm folding; quant_report; errors."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import allo  # noqa: E402
from allo.errors import FrontendError  # noqa: E402
from allo.frontend import from_pytorch  # noqa: E402

from .quant_models import make  # noqa: E402


_BUILT = {}


def _both(name, precision, tmp_path):
    """(LLVM module, csim module, model, inputs): one quantized import built for both (cached)."""
    key = (name, repr(precision))
    if key not in _BUILT:
        model, example, cal = make(name)
        imported = allo.frontend.import_model(model, example, precision=precision, calibration_data=cal,
                                              verbose=False)
        csim = imported.build("vhls", mode="csim", project=str(tmp_path / "prj"))
        _BUILT[key] = (imported.build("llvm"), csim, model, example)
    return _BUILT[key]


@pytest.mark.parametrize("name", ["mlp", "cnn", "block"])
@pytest.mark.parametrize("precision", ["int8", allo.Fixed(16, 8)], ids=["int8", "fixed16_8"])
def test_llvm_equals_csim_bit_for_bit_and_tracks_float(name, precision, tmp_path):
    llvm, csim, model, example = _both(name, precision, tmp_path)
    src = llvm.imported.source
    if precision == "int8":
        assert "int8, int8, int32, int32" in src and "requant" in src
    else:
        assert "Fixed(16, 8), Fixed(16, 8), Fixed(" in src
    assert "batch_norm" not in src  # folded into the convolutions
    for seed in range(2):
        x = torch.randn(*example[0].shape, generator=torch.Generator().manual_seed(seed))
        got = llvm(x.numpy())
        assert got.dtype == np.float32
        np.testing.assert_array_equal(csim(x.numpy()), got)
        want = model(x).detach().numpy()
        assert np.linalg.norm(got - want) <= 0.06 * np.linalg.norm(want)  # relative RMS error (int8: ~2%)


def test_int8_classifier_top1_and_report(tmp_path):
    mod, _, model, example = _both("cnn", "int8", tmp_path)
    cal = make("cnn")[2]
    agree = total = 0
    for seed in range(8):
        x = torch.randn(*example[0].shape, generator=torch.Generator().manual_seed(100 + seed))
        agree += int((mod(x.numpy()).argmax(1) == model(x).detach().numpy().argmax(1)).sum())
        total += x.shape[0]
    assert agree / total >= 0.9
    rows = mod.imported.quant_report(as_text=False)
    by = {r["layer"]: r for r in rows}
    assert by["conv1"]["types"] == {"input": "int8", "weight": "int8", "accum": "int32", "output": "int8"}
    assert by["relu"]["op"] == "relu" and by["max_pool2d"]["types"]["output"] == "int8"
    assert all(r["rel_rms_err"] < 0.05 and r["max_abs_err"] > 0 for r in rows)
    assert [r["precision"] for r in rows] == ["int8"] * 7  # conv, relu, pool twice, fc: nothing left in float
    lo, hi = by["conv1"]["ranges"]["output"]  # the range after the folded batch norm
    with torch.no_grad():
        want = torch.nn.functional.batch_norm(model.conv1(cal[0][0]), model.bn1.running_mean,
                                              model.bn1.running_var, model.bn1.weight, model.bn1.bias)
    assert lo <= float(want.min()) and float(want.max()) <= hi
    text = mod.imported.quant_report()
    assert "conv1" in text and "rel rms" in text


def test_per_kind_and_per_layer_config():
    model, example, cal = make("mlp")
    prec = {"default": "int8", "relu": allo.Fixed(16, 6), "linear2": "float32"}
    mod = from_pytorch(model, example, precision=prec, calibration_data=cal, verbose=False)
    src = mod.imported.source
    assert "nn.qlinear[int8, int8, int32, int32, 8, 32, 16]" in src  # linear1: the default
    assert "nn.linear[float32, 8, 10, 32]" in src  # linear2 named: float
    assert "-> Fixed(16, 6)[8, 10]" in src  # relu by op kind
    x = example[0]
    np.testing.assert_allclose(mod(x.numpy()), model(x).detach().numpy(), atol=0.05)
    roles = {"linear": {"weight": allo.Fixed(8, 6), "activation": allo.Fixed(16, 8), "accum": allo.Fixed(32, 16)}}
    mod = from_pytorch(model, example, precision=roles, calibration_data=cal, verbose=False)
    assert "nn.qlinear[Fixed(16, 8), Fixed(8, 6), Fixed(32, 16), Fixed(16, 8), 8, 32, 16" in mod.imported.source
    assert "nn.relu[float32" in mod.imported.source or "max(" in mod.imported.source


def test_auto_picks_int8_or_fixed_from_calibration():
    model, example, cal = make("mlp")
    spiky = [[x[0].clone()] for x in cal]
    spiky[0][0][0, 0] = 200.0  # one outlier: int8 steps would swallow the typical inputs of linear1
    mod = from_pytorch(model, example, precision="auto", calibration_data=spiky, verbose=False)
    rows = {r["layer"]: r for r in mod.imported.quant_report(as_text=False)}
    assert rows["linear1"]["types"]["input"].startswith("Fixed(16,")
    assert rows["linear2"]["types"]["input"] == "int8"
    mod = from_pytorch(model, example, precision="fixed12", calibration_data=cal, verbose=False)
    src = mod.imported.source  # 12-bit types, integer bits from each tensor's range
    assert "def forward(data: Fixed(12, 9)[8, 16])" in src  # the core takes the input in its fixed type
    x = example[0]
    assert np.linalg.norm(mod(x.numpy()) - model(x).detach().numpy()) < 0.03 * np.linalg.norm(model(x).detach().numpy())


def test_quant_errors():
    model, example, cal = make("mlp")
    with pytest.raises(FrontendError, match=r"'lnear1' names no op kind or layer.*closest: linear1"):
        from_pytorch(model, example, precision={"lnear1": "int8"}, verbose=False)
    with pytest.raises(FrontendError, match=r"calibration_data\[1\] must be shaped like example_inputs"):
        from_pytorch(model, example, precision="int8", calibration_data=[cal[0], [torch.rand(3, 3)]], verbose=False)
    with pytest.raises(FrontendError, match="only used by a quantized import"):
        from_pytorch(model, example, calibration_data=cal, verbose=False)
    with pytest.raises(FrontendError, match="unknown precision 'int9x'"):
        from_pytorch(model, example, precision="int9x", verbose=False)
    with pytest.raises(FrontendError, match="quant_report\\(\\) needs a quantized import"):
        from_pytorch(model, example, verbose=False).imported.quant_report()


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
@pytest.mark.parametrize("kind", ["dynamic", "static"])
def test_torch_ao_quantized_models_say_what_to_do(kind):
    model, example, _ = make("mlp")
    if kind == "dynamic":
        qmodel = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    else:
        import copy

        qmodel = torch.nn.Sequential(torch.ao.quantization.QuantStub(), copy.deepcopy(model),
                                     torch.ao.quantization.DeQuantStub()).eval()
        qmodel.qconfig = torch.ao.quantization.get_default_qconfig("fbgemm")
        torch.ao.quantization.prepare(qmodel, inplace=True)
        qmodel(example[0])
        torch.ao.quantization.convert(qmodel, inplace=True)
    with pytest.raises(FrontendError, match=rf"torch.ao {kind} quantized model.*precision='int8'"):
        from_pytorch(qmodel, example, verbose=False)


def _ref_int8_mlp(model, cal, x):
    """The documented int8 arithmetic in numpy (docs/quantization.md), for the seed MLP: the LLVM
    build must match it bit for bit."""
    import math

    def absmax(ts):
        return max(float(t.abs().max()) for t in ts)

    with torch.no_grad():
        h1 = [model.linear1(b[0]) for b in cal]
        h2 = [model.linear2(h) for h in h1]
    sx, s1, s2 = absmax([b[0] for b in cal]) / 127, absmax(h1) / 127, absmax(h2) / 127
    q = np.floor(np.minimum(np.maximum(x * np.float32(1 / sx), np.float32(-127)), np.float32(127))
                 + np.float32(0.5)).astype(np.int64)
    for lin, s_in, s_out in ((model.linear1, sx, s1), (model.linear2, s1, s2)):
        w = lin.weight.detach().double().numpy()
        sw = np.abs(w).max(axis=1) / 127
        wq = np.clip(np.floor(w / sw[:, None] + 0.5), -127, 127).astype(np.int64)
        bq = np.floor(lin.bias.detach().double().numpy() / (s_in * sw) + 0.5).astype(np.int64)
        acc = (q @ wq.T + bq).astype(np.int32).astype(np.int64)  # int32 accumulator
        real = s_in * sw / s_out
        shift = min(62, max(0, 30 - math.ceil(math.log2(real.max()))))
        m = np.floor(real * 2.0 ** shift + 0.5).astype(np.int64)
        q = np.clip((acc * m + (1 << (shift - 1))) >> shift, -127, 127)
    q = np.maximum(q, 0)
    return q.astype(np.float32) * np.float32(s2)


def test_int8_mlp_matches_the_documented_integer_arithmetic(tmp_path):
    mod, _, model, example = _both("mlp", "int8", tmp_path)
    cal = make("mlp")[2]
    for seed in range(3):
        x = torch.randn(8, 16, generator=torch.Generator().manual_seed(seed)).numpy() * (1 + seed)
        np.testing.assert_array_equal(mod(x), _ref_int8_mlp(model, cal, x))


def test_cli_compile_with_precision(tmp_path, capsys):
    from allo.cli import main

    path = tmp_path / "qmodels.py"
    path.write_text("import torch\n\ndef MLP():\n    torch.manual_seed(0)\n    return torch.nn.Sequential(torch.nn.Linear(16, "
                    "32), torch.nn.ReLU(), torch.nn.Linear(32, 10)).eval()\n")
    assert main(["compile", f"{path}:MLP", "--input-shape", "8x16", "--precision", "Fixed(16, 8)",
                 "--calibration-batches", "2", "-o", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "Fixed(16, 8)" in printed and "rel rms" in printed
    assert float(printed.split("llvm: max |allo - torch| on random inputs = ")[1].split()[0]) < 0.05


def documented_precision_names() -> list:
    """Every string precision docs/quantization.md's table lists ("int2".."int16" expanded)."""
    import os
    import re
    text = open(os.path.join(os.path.dirname(__file__), "..", "docs", "quantization.md")).read()
    table = text[text.index("| `precision=` |"):].split("\n\n")[0]
    names = set()
    for row in table.splitlines()[2:]:
        cell = row.split("|")[1]
        if cell.strip().startswith("`{"):  # dict configs: their keys are roles and layer names
            continue
        for lo, hi in re.findall(r'"([a-z]+\d+)"`?\.\.`?"([a-z]+\d+)"', cell):
            stem = re.match(r"[a-z]+", lo).group()
            names |= {f"{stem}{b}" for b in range(int(lo[len(stem):]), int(hi[len(stem):]) + 1)}
        names |= set(re.findall(r'"([a-z]+\d*)"', cell))
    return sorted(names)


def test_every_documented_precision_name_imports():
    names = documented_precision_names()
    assert {"int2", "int7", "int9", "int15", "int16", "fixed4", "fixed32", "fixed", "auto", "float32"} <= set(names)
    model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU(), torch.nn.Linear(4, 3)).eval()
    x = torch.randn(2, 8, generator=torch.Generator().manual_seed(0))
    cal = [[torch.randn(2, 8, generator=torch.Generator().manual_seed(k))] for k in range(4)]
    want = model(x).detach().numpy()
    for name in names:  # the generated program compiles (int4 was "name 'int4' is not defined")
        imported = allo.frontend.import_model(model, [x], precision=name, calibration_data=cal, verbose=False)
        if name in ("int2", "int4", "int7", "int9", "int12", "int15"):  # and runs, coarse to close
            got = imported.build("llvm")(x.numpy())
            assert np.abs(got - want).max() <= 4 * np.abs(want).max() * 2.0 ** (2 - int(name[3:])), name


def test_bad_precisions_and_calibration_data_name_the_argument():
    """issue 28 item 8: a raw OverflowError, torch RuntimeErrors and NaN conversions before."""
    model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU(), torch.nn.Linear(4, 3)).eval()
    x = torch.randn(2, 8)
    nan_model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.Identity()).eval()
    nan_model[1].forward = lambda t: torch.log(t - 1e9)  # NaN everywhere inside the model
    for m, kwargs, msg in [
            (model, {"precision": allo.Fixed(100, 50)}, r"precision: Fixed\(100, 50\) is wider than 64 bits"),
            (model, {"precision": {"weight": allo.Fixed(8, 4), "activation": allo.Fixed(72, 8)}},
             r"precision\['activation'\]: Fixed\(72, 8\) is wider than 64 bits"),
            (model, {"calibration_data": [[torch.randint(0, 5, (2, 8))]]},
             r"calibration_data\[0\]\[0\] is a torch.int64 tensor, the example input a torch.float32"),
            (model, {"calibration_data": [[x], [x.double()]]}, r"calibration_data\[1\]\[0\] is a torch.float64"),
            (model, {"calibration_data": [[torch.full((2, 8), float("nan"))]]}, "holds NaN or infinite values"),
            (nan_model, {"calibration_data": [[x]]}, "computes NaN or infinite values at graph node")]:
        with pytest.raises(FrontendError, match=msg):
            allo.frontend.import_model(m, [x], verbose=False, **{"precision": "int8", **kwargs})
