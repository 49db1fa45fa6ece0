"""Without torch, the PyTorch frontend and `allo compile` say how to install it (an AlloError naming
the CPU build's pip command, as the README does), instead of a bare ModuleNotFoundError. torch is
hidden from the import system here, so the test runs whether torch is installed or not."""
import sys

import pytest

import allo
from allo.cli import main


@pytest.fixture()
def no_torch(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` raises ModuleNotFoundError


@pytest.mark.parametrize("call", [lambda: allo.frontend.from_pytorch(object(), []),
                                  lambda: allo.frontend.import_model(object(), [])])
def test_frontend_names_the_torch_install(no_torch, call):
    with pytest.raises(allo.FrontendError) as info:
        call()
    msg = str(info.value)
    assert "needs PyTorch (allo's [torch] extra)" in msg
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in msg


def test_cli_names_the_torch_install(no_torch, tmp_path, capsys):
    (tmp_path / "m.py").write_text("X = 1\n")
    assert main(["compile", f"{tmp_path / 'm.py'}:X", "--input-shape", "2x4"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("allo compile: error: allo compile needs PyTorch") and "pip install torch" in err
    assert len(err.strip().splitlines()) == 1
