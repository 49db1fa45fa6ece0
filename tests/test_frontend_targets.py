"""from_pytorch targets (llvm, vhls, mlir), weights_as_args, the per-layer summary and the `allo` CLI."""
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import allo  # noqa: E402
from allo.cli import main, parse_shape  # noqa: E402
from allo.errors import AlloError  # noqa: E402

from .test_frontend_models import MLP  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def mlp():
    torch.manual_seed(0)
    return MLP().eval(), [torch.rand(8, 16)]


def test_vhls_target_returns_hls_code(mlp):
    model, inputs = mlp
    hls = allo.frontend.from_pytorch(model, example_inputs=inputs, target="vhls")
    code = hls.hls_code
    for name in ("linear_1", "linear_2", "relu", "forward"):
        assert name in code
    assert "#pragma HLS pipeline II=1" in code


def test_mlir_target_returns_composed_schedule(mlp):
    model, inputs = mlp
    s = allo.frontend.from_pytorch(model, example_inputs=inputs, target="mlir")
    assert isinstance(s, allo.Schedule)
    funcs = {step.func for step in s.steps}
    assert {"linear_1", "linear_2", "relu"} <= funcs
    text = str(s.module)
    assert "func.func @linear_1" in text and "pipeline_ii = 1" in text
    out = s.build()(inputs[0].numpy())  # the schedule builds like any other
    np.testing.assert_allclose(out, model(inputs[0]).detach().numpy(), atol=1e-5)


def test_weights_as_args(mlp):
    model, inputs = mlp
    mod = allo.frontend.from_pytorch(model, example_inputs=inputs, weights_as_args=True)
    src = mod.imported.source
    assert src.startswith("def forward(data: float32[8, 16], linear1_weight: float32[32, 16], linear1_bias: float32[32]")
    assert "g_linear1_weight" not in src
    np.testing.assert_allclose(mod(inputs[0].numpy()), model(inputs[0]).detach().numpy(), atol=1e-5)
    s = allo.frontend.from_pytorch(model, example_inputs=inputs, target="mlir", weights_as_args=True)
    assert "memref.global" not in str(s.module)
    s_const = allo.frontend.from_pytorch(model, example_inputs=inputs, target="mlir")
    assert "memref.global" in str(s_const.module)


def test_callable_accepts_tensors_and_returns_model_structure():
    class Two(nn.Module):
        def forward(self, x):
            return x.relu(), (x * 2).sum(-1)

    model = Two().eval()
    x = torch.randn(3, 4)
    mod = allo.frontend.from_pytorch(model, example_inputs=[x])
    a, b = mod(x)  # a tensor works as input too
    np.testing.assert_allclose(a, x.relu().numpy(), atol=1e-6)
    np.testing.assert_allclose(b, (x * 2).sum(-1).numpy(), atol=1e-5)


def test_summary_table(mlp):
    model, inputs = mlp
    mod = allo.frontend.from_pytorch(model, example_inputs=inputs)
    table = mod.imported.summary()
    lines = table.splitlines()
    assert lines[0].split() == ["node", "op", "kernel", "instance", "input", "shapes", "output", "schedule"]
    assert any('linear1' in ln and 'nn.linear[float32, 8, 32, 16, "1"]' in ln and "linear_1 (library)" in ln
               for ln in lines)


# ----------------------------------------------------------------------------- CLI
MODELS_PY = textwrap.dedent('''
    import torch.nn as nn
    import torch.nn.functional as F

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear1 = nn.Linear(16, 32)
            self.linear2 = nn.Linear(32, 10)

        def forward(self, data):
            return F.relu(self.linear2(self.linear1(data)))

    def make_embedder():
        return nn.Sequential(nn.Embedding(10, 8), nn.LayerNorm(8))
''')


@pytest.fixture()
def models_file(tmp_path):
    path = tmp_path / "mymodels.py"
    path.write_text(MODELS_PY)
    return path


def test_cli_compile_vhls(models_file, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["compile", f"{models_file}:MLP", "--input-shape", "8x16", "--target", "vhls", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert 'nn.linear[float32, 8, 32, 16, "1"]' in printed and "linear_1 (library)" in printed
    for name in ("graph.txt", "model.py", "weights.npz", "module.mlir", "summary.txt", "kernel.cpp"):
        assert (out / name).exists(), name
    assert "#pragma HLS pipeline" in (out / "kernel.cpp").read_text()
    assert (out / "model.py").read_text().startswith("def forward(data: float32[8, 16])")


def test_cli_compile_llvm_checks_numerics(models_file, tmp_path, capsys):
    out = tmp_path / "emb"
    assert main(["compile", f"{models_file}:make_embedder", "--input-shape", "2x4:int64", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "nn.embedding[float32, 10, 8, 8]" in printed
    err = float(printed.split("max |allo - torch| on random inputs = ")[1].split()[0])
    assert err < 1e-4


def test_cli_errors(models_file, capsys):
    assert main(["compile", f"{models_file}:Nope", "--input-shape", "8x16"]) == 1
    assert "has no 'Nope'" in capsys.readouterr().err
    assert main(["compile", "no_such_module_xyz:M", "--input-shape", "8x16"]) == 1
    assert main(["compile", f"{models_file}:MLP", "--input-shape", "8xq"]) == 1
    assert main([]) == 2


def test_parse_shape():
    assert parse_shape("8x16") == ((8, 16), "float32")
    assert parse_shape("2,8,32") == ((2, 8, 32), "float32")
    assert parse_shape("4:int64") == ((4,), "int64")
    with pytest.raises(AlloError):
        parse_shape("8x16:complex")


def test_console_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "allo.cli", "ops"], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    ops = proc.stdout.split()
    assert "aten.linear" in ops and "aten.scaled_dot_product_attention" in ops


def test_vhls_csim_of_an_attention_block(tmp_path):
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    from allo.frontend import import_model

    from .test_frontend_models import GPTCausalSDPA

    torch.manual_seed(0)
    model, x = GPTCausalSDPA().eval(), torch.rand(2, 8, 32)
    imported = import_model(model, [x])
    hls = imported.build("vhls")
    assert hls.hls_code.count("#pragma HLS pipeline") > 5  # library and generated loops are pipelined
    csim = imported.build("vhls", mode="csim", project=str(tmp_path / "proj"))
    np.testing.assert_allclose(csim(x.numpy()), model(x).detach().numpy(), atol=1e-4)
