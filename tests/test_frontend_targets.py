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


def test_cli_compile_vhls_writes_a_project_that_runs_as_written(models_file, tmp_path, capsys):
    import shutil

    out = tmp_path / "out"
    assert main(["compile", f"{models_file}:MLP", "--input-shape", "8x16", "--target", "vhls", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert 'nn.linear[float32, 8, 32, 16, "1"]' in printed and "linear_1 (library)" in printed
    for name in ("graph.txt", "model.py", "weights.npz", "module.mlir", "summary.txt", "kernel.cpp", "kernel.h",
                 "host.cpp", "run.tcl", "allo_ap.h", "data/in0.bin"):
        assert (out / name).exists(), name
    assert "#pragma HLS pipeline" in (out / "kernel.cpp").read_text()
    assert (out / "model.py").read_text().startswith("def forward(data: float32[8, 16])")
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    _compile_and_run_project(out)
    assert (out / "data" / "out0.bin").stat().st_size == 8 * 10 * 4


def _compile_and_run_project(folder):
    """The project's own testbench, built and run exactly as its files say (no allo involved)."""
    build = subprocess.run(["g++", "-std=c++14", "-O1", "-I.", "kernel.cpp", "host.cpp", "-o", "csim"], cwd=folder,
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run(["./csim", "data", "weights"], cwd=folder, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_cli_csim_option(models_file, tmp_path, capsys):
    import shutil

    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    out = tmp_path / "out"
    assert main(["compile", f"{models_file}:MLP", "--input-shape", "8x16", "--target", "vhls", "--csim",
                 "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert float(printed.split("csim: max |allo - torch| on random inputs = ")[1].split()[0]) < 1e-5
    assert main(["compile", f"{models_file}:MLP", "--input-shape", "8x16", "--csim"]) == 2
    assert "--csim needs --target vhls" in capsys.readouterr().err


def test_cli_compile_llvm_checks_numerics(models_file, tmp_path, capsys):
    out = tmp_path / "emb"
    assert main(["compile", f"{models_file}:make_embedder", "--input-shape", "2x4:int64", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "nn.embedding[float32, 10, 8, 8]" in printed
    err = float(printed.split("max |allo - torch| on random inputs = ")[1].split()[0])
    assert err < 1e-4


def test_cli_errors(models_file, capsys):
    assert main(["compile", f"{models_file}:Nope", "--input-shape", "8x16"]) == 2
    assert "has no 'Nope'" in capsys.readouterr().err
    assert main(["compile", "no_such_module_xyz:M", "--input-shape", "8x16"]) == 2
    assert main(["compile", f"{models_file}:MLP", "--input-shape", "8xq"]) == 2
    assert main([]) == 2


def test_cli_mistyped_input_shape_prints_the_error_alone(models_file, capfd):
    """A shape forward() cannot take: torch's tracebacks (ShapeProp printed 267 lines) stay hidden,
    the one line says the inputs are at fault and shows them."""
    assert main(["compile", f"{models_file}:MLP", "--input-shape", "8x17"]) == 2
    out, err = capfd.readouterr()
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("allo compile: error: the model fails on the example inputs (float32[8, 17])")
    assert "mat1 and mat2 shapes cannot be multiplied" in err and "Traceback" not in out + err


def test_from_pytorch_names_the_inputs_that_do_not_fit(mlp, capfd):
    model, _ = mlp
    with pytest.raises(allo.FrontendError, match=r"fails on the example inputs \(float32\[8, 15\]\)"):
        allo.frontend.from_pytorch(model, [torch.rand(8, 15)])
    assert "Traceback" not in capfd.readouterr().err


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


# ----------------------------------------------------------------------------- from_pytorch options
def test_from_pytorch_has_a_real_signature_and_docstring():
    import inspect

    params = list(inspect.signature(allo.frontend.from_pytorch).parameters)
    assert params == ["model", "example_inputs", "target", "mode", "project", "threads", "fast_math", "precision",
                      "calibration_data", "weights_as_args", "verbose", "integer_only"]
    doc = " ".join(allo.frontend.from_pytorch.__doc__.split())
    assert "training mode is imported with eval semantics" in doc and "UserWarning" in doc
    for name in params[2:]:
        assert f"{name}:" in doc or f"{name}," in doc, name


def test_example_inputs_as_one_tensor_or_a_tuple(mlp):
    model, inputs = mlp
    x = inputs[0]
    for given in (x, (x,)):
        mod = allo.frontend.from_pytorch(model, given)
        np.testing.assert_allclose(mod(x), model(x).detach().numpy(), atol=1e-5)
    with pytest.raises(AlloError, match="example_inputs must be a list of tensors"):
        allo.frontend.from_pytorch(model, {"data": x})


def test_training_mode_warns_and_imports_eval_semantics():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.BatchNorm1d(4))
    model[2].running_mean.uniform_(-1, 1)
    model.train()
    x = torch.rand(3, 4)
    with pytest.warns(UserWarning, match="training mode; allo imports it with eval semantics"):
        mod = allo.frontend.from_pytorch(model, [x])
    assert model.training
    np.testing.assert_allclose(mod(x), model.eval()(x).detach().numpy(), atol=1e-5)


def test_llvm_options_and_module_attributes(mlp):
    model, inputs = mlp
    x = inputs[0]
    want = model(x).detach().numpy()
    mod = allo.frontend.from_pytorch(model, inputs, threads=1, fast_math=True)
    np.testing.assert_allclose(mod(x), want, atol=1e-4)
    assert isinstance(mod.cpu_report, list) and mod.threads == 1
    mod.threads = 2  # rebuilds
    assert mod.threads == 2
    np.testing.assert_allclose(mod(x), want, atol=1e-4)
    with pytest.raises(AlloError, match="mode='csim' needs an HLS target"):
        allo.frontend.from_pytorch(model, inputs, mode="csim")
    with pytest.raises(AlloError, match="threads must be a positive integer"):
        allo.frontend.from_pytorch(model, inputs, threads=0)
    hls = allo.frontend.from_pytorch(model, inputs, target="vhls")
    assert type(hls).__name__ == "HLSModule"  # the HLS module itself (hls_code, write_project, report())


class Wide(nn.Module):
    """fc1's weight (300x256 = 76,800 elements) is above the 65,536-element limit, fc2's is not."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(256, 300)
        self.fc2 = nn.Linear(300, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def test_large_weights_are_arguments_and_hls_weight_files(tmp_path):
    import shutil

    torch.manual_seed(0)
    model, x = Wide().eval(), torch.rand(2, 256)
    want = model(x).detach().numpy()
    mod = allo.frontend.from_pytorch(model, [x])
    src = mod.imported.source
    assert "fc1_weight: float32[300, 256])" in src.splitlines()[0]  # a forward() argument
    assert "fc2_weight: float32[8, 300] = g_fc2_weight" in src  # small: a memref.global constant
    np.testing.assert_allclose(mod(x), want, atol=1e-4)
    hls = allo.frontend.from_pytorch(model, [x], target="vhls", mode="csim", project=str(tmp_path / "prj"))
    code = hls.hls_code
    assert len(code) < 200_000  # no 76,800 literals
    assert (tmp_path / "prj" / "weights" / "fc1_weight.bin").stat().st_size == 300 * 256 * 4
    assert "[file normalize weights]" in (tmp_path / "prj" / "run.tcl").read_text()
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    np.testing.assert_allclose(hls(x.numpy()), want, atol=1e-4)
    _compile_and_run_project(tmp_path / "prj")
    out = np.fromfile(tmp_path / "prj" / "data" / "out0.bin", dtype=np.float32).reshape(2, 8)
    np.testing.assert_allclose(out, want, atol=1e-4)


def test_progress_lines(mlp, capsys, monkeypatch):
    from allo.frontend import progress

    model, inputs = mlp
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.0)  # every import counts as slow
    allo.frontend.from_pytorch(model, inputs)
    err = capsys.readouterr().err
    for stage in ("allo: capture", "allo: lower", "allo: compose", "allo: build", "allo: import done"):
        assert stage in err
    allo.frontend.from_pytorch(model, inputs, verbose=False)
    assert capsys.readouterr().err == ""
