"""Bad input to the PyTorch frontend fails with a FrontendError that says what and where."""
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

import allo  # noqa: E402
from allo.errors import AlloError, FrontendError  # noqa: E402


def _import(model, *inputs, **kw):
    return allo.frontend.from_pytorch(model.eval(), example_inputs=list(inputs), **kw)


class Cummax(nn.Module):
    def forward(self, x):
        return torch.cummax(x, 1).values + 1


def test_unsupported_op_names_op_node_line_and_closest_names():
    with pytest.raises(FrontendError) as info:
        _import(Cummax(), torch.rand(4, 4))
    msg = str(info.value)
    assert isinstance(info.value, AlloError)
    assert "unsupported operator aten.cummax" in msg
    assert "graph node 'cummax'" in msg
    assert "test_frontend_errors.py" in msg and "torch.cummax(x, 1)" in msg  # the model's source line
    closest = msg.split("Closest supported operators: ")[1].split(" (")[0].split(", ")
    assert len(closest) == 5 and "cumsum" in closest  # five names, not the whole table
    assert "allo ops" in msg


class WrapsLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


def test_errors_point_to_the_model_line_not_into_torch(monkeypatch):
    from allo.frontend.ops import OPS

    monkeypatch.delitem(OPS, "aten.linear")
    with pytest.raises(FrontendError) as info:
        _import(WrapsLinear(), torch.rand(2, 4))
    msg = str(info.value)
    assert "test_frontend_errors.py" in msg and "self.fc(x)" in msg
    assert "torch/nn/modules" not in msg


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x


def test_data_dependent_control_flow():
    with pytest.raises(FrontendError, match="data-dependent control flow"):
        _import(DataDependent(), torch.rand(4, 4))


class TrainingDropout(nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.5, training=True)


def test_dropout_in_training_mode_is_rejected():
    with pytest.raises(FrontendError, match="training mode"):
        _import(TrainingDropout(), torch.rand(4, 4))


def test_batch_norm_without_running_stats_is_rejected():
    with pytest.raises(FrontendError, match="batch statistics"):
        _import(nn.BatchNorm1d(4, track_running_stats=False), torch.rand(3, 4))


class TwoIndexTensors(nn.Module):
    def forward(self, x):
        return x[torch.tensor([0, 1]), torch.tensor([1, 2])]


class BoolMask(nn.Module):
    def forward(self, x):
        return x[x > 0.5]


def test_unsupported_indexing_is_reported():
    with pytest.raises(FrontendError, match=r"aten.index at graph node 'index'.*more than one index tensor"):
        _import(TwoIndexTensors(), torch.rand(4, 4))
    with pytest.raises(FrontendError, match="dynamic shapes|data-dependent"):
        _import(BoolMask(), torch.rand(4, 4))


def test_bad_arguments():
    with pytest.raises(FrontendError, match="torch.nn.Module"):
        allo.frontend.from_pytorch(lambda x: x, [torch.rand(2)])
    with pytest.raises(FrontendError, match="example_inputs"):
        allo.frontend.from_pytorch(nn.ReLU(), [3.0])
    with pytest.raises(FrontendError, match="unknown target"):
        allo.frontend.from_pytorch(nn.ReLU(), [torch.rand(2, 2)], target="fpga")


def test_unsupported_dtype_is_rejected_clearly():
    with pytest.raises(FrontendError, match="dtype"):
        _import(nn.ReLU(), torch.rand(2, 2, dtype=torch.complex64))


def test_wrong_input_shape_at_call_time():
    mod = _import(nn.Sequential(nn.Linear(4, 3), nn.ReLU()), torch.rand(2, 4))
    with pytest.raises(AlloError, match="shape"):
        mod(torch.rand(3, 4).numpy())
    with pytest.raises(AlloError, match="input"):
        mod()


class MutatesView(nn.Module):
    def forward(self, x):
        y = x * 2
        v = y[:, 0]
        y.add_(1.0)
        return v + 0


class MutatesInput(nn.Module):
    def forward(self, x):
        x.mul_(2.0)
        return x + 1


def test_in_place_updates_that_alias_are_rejected():
    with pytest.raises(FrontendError, match="shares memory"):
        _import(MutatesView(), torch.rand(3, 4))
    with pytest.raises(FrontendError, match="mutates its input"):
        _import(MutatesInput(), torch.rand(3, 4))
