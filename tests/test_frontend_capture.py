"""Graph capture (torch.export, the torch.fx fallback) and normalisation (constant folding)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

import allo  # noqa: E402
from allo.frontend.capture import capture  # noqa: E402
from allo.frontend.lower import has_handler  # noqa: E402
from allo.frontend.normalize import normalize  # noqa: E402

from .test_frontend_models import MLP, check  # noqa: E402


def test_export_capture_of_the_seed_mlp():
    cap = capture(MLP().eval(), [torch.rand(8, 16)])
    assert cap.method == "torch.export"
    assert [n.key for n in cap.nodes] == ["aten.linear", "aten.linear", "aten.relu"]
    assert [n.shape for n in cap.nodes] == [(8, 32), (8, 10), (8, 10)]
    assert [n.module for n in cap.nodes] == ["linear1", "linear2", ""]
    assert sorted(c.state for c in cap.consts.values()) == ["linear1.bias", "linear1.weight", "linear2.bias",
                                                            "linear2.weight"]
    assert [(name, shape) for _, name, shape, _ in cap.inputs] == [("data", (8, 16))]


def test_model_is_captured_in_eval_mode_and_restored():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    model.train()
    with pytest.warns(UserWarning, match="training mode"):
        cap = capture(model, [torch.rand(2, 4)])
    assert model.training  # restored
    assert all(not n.args[2] for n in cap.nodes if n.key == "aten.dropout")  # traced with train=False


def test_constant_subgraphs_are_folded():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mask", torch.tril(torch.ones(4, 4)))

        def forward(self, x):
            keep = self.mask[:3, :3] == 0
            return x.masked_fill(keep, 0.0) * torch.arange(3.0)

    cap = normalize(capture(M().eval(), [torch.rand(3, 3)]), has_handler)
    assert [n.key for n in cap.nodes] == ["aten.masked_fill", "aten.mul"]
    folded = [c for c in cap.consts.values() if c.state is None]
    assert any(c.tensor.dtype == torch.bool and tuple(c.tensor.shape) == (3, 3) for c in folded)


class FxOnly(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.bn = nn.BatchNorm1d(2)
        self.scale = nn.Parameter(torch.rand(2))

    def forward(self, x):
        y = F.relu(self.fc(x)) + x * 2
        y = y.view(2, 2, 4).transpose(1, 2)[:, 0] * self.scale
        return torch.cat([y, self.bn(y)], dim=1).softmax(-1).view(y.size(0), -1)


def test_fx_fallback_when_export_fails(monkeypatch):
    def broken_export(*args, **kwargs):
        raise RuntimeError("export is unavailable")

    monkeypatch.setattr(torch.export, "export", broken_export)
    model = FxOnly().eval()
    cap = capture(model, [torch.rand(4, 4)])
    assert cap.method == "torch.fx"
    assert "aten.linear" in [n.key for n in cap.nodes] and "fx.index" in [n.key for n in cap.nodes]
    check(model, [torch.rand(4, 4)])
