"""Models that mutate buffers in forward (state carried between calls like torch) and index
operands out of range (always an error in the frontend's embedding/gather/index paths)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import allo  # noqa: E402
from allo.errors import AlloError, FrontendError  # noqa: E402


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))
        self.register_buffer("avg", torch.zeros(4))
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        self.count.add_(1)
        self.avg.mul_(0.5).add_(x.mean(0) * 0.5)
        return self.fc(x) + self.count, self.avg * 1


def test_mutated_buffers_are_carried_between_calls():
    torch.manual_seed(0)
    model, xs = Counter().eval(), [torch.rand(2, 4) for _ in range(3)]
    mod = allo.frontend.from_pytorch(model, [xs[0]])
    assert model.count.tolist() == [0, 0, 0]  # importing does not run the model
    for k, x in enumerate(xs):
        out, avg = mod(x)
        with torch.no_grad():
            want, want_avg = model(x)
        np.testing.assert_allclose(out, want.numpy(), atol=1e-5)
        np.testing.assert_allclose(avg, want_avg.numpy(), atol=1e-6)
        assert mod.state["count"].tolist() == [k + 1.0] * 3
    mod.reset_state()
    assert mod.state["count"].tolist() == [0.0] * 3


class MutatesBufferView(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("hist", torch.zeros(4))

    def forward(self, x):
        self.hist[1:].add_(1)
        return x + self.hist.sum()


def test_mutating_a_view_of_a_buffer_is_refused():
    with pytest.raises(FrontendError, match="view of buffer 'hist'"):
        allo.frontend.from_pytorch(MutatesBufferView().eval(), [torch.rand(2)])


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, ids):
        return self.emb(ids)


@pytest.mark.parametrize("bad", [-1, 10, 10 ** 12])
def test_embedding_ids_out_of_range_are_an_error(bad):
    mod = allo.frontend.from_pytorch(Embed().eval(), [torch.tensor([[1, 2, 3]])])
    ids = np.array([[1, bad, 3]], dtype=np.int64)
    with pytest.raises(AlloError, match=f"embedding id out of range.*got {bad}"):
        mod(ids)
    good = np.array([[0, 9, 3]], dtype=np.int64)
    np.testing.assert_allclose(mod(good), Embed.forward(mod.imported, torch.tensor(good)) if False else
                               _torch_embed(mod, good), atol=1e-6)


def _torch_embed(mod, ids):
    table = [arr for name, (_, arr) in mod.imported.program.weights.items() if "emb" in name][0]
    return table[ids]


class ComputedIds(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(8, 2)

    def forward(self, x):
        return self.emb((x * 4).long()), torch.gather(x, 1, (x * 3).long())


def test_computed_ids_out_of_range_are_an_error():
    model = ComputedIds().eval()
    x = torch.tensor([[0.1, 0.5, 0.9]])
    mod = allo.frontend.from_pytorch(model, [x])
    out, gathered = mod(x.numpy())
    want, want_g = model(x)
    np.testing.assert_allclose(out, want.detach().numpy(), atol=1e-6)
    np.testing.assert_allclose(gathered, want_g.numpy(), atol=1e-6)
    with pytest.raises(AlloError, match="embedding id out of range"):
        mod(np.array([[0.1, 2.5, 0.3]], np.float32))  # id 10 >= 8
    with pytest.raises(AlloError, match="gather index out of range"):
        mod(np.array([[0.1, 1.5, 0.3]], np.float32))  # gather index 4 >= 3


class ConstantIds(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 2)
        self.register_buffer("ids", torch.tensor([0, 7]))

    def forward(self, x):
        return self.emb(self.ids) + x


def test_constant_ids_out_of_range_fail_at_import():
    with pytest.raises(FrontendError, match="embedding.*index out of range"):
        allo.frontend.from_pytorch(ConstantIds().eval(), [torch.rand(2, 2)])
