"""Operator coverage of the PyTorch frontend: small models, each exercising many ops, against eager torch."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

import allo  # noqa: E402
from allo.frontend.pytorch import import_model  # noqa: E402

from .test_frontend_models import check  # noqa: E402


class Elementwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.rand(4))

    def forward(self, x, y):
        a = x.abs() + 0.1
        return (x + y, x - 2, 3 - x, x * y * self.w, x / (y + 1), 2.0 / a, x ** 2, x ** 3, a ** 0.5, a.pow(1.7),
                -x, torch.exp(x), torch.sqrt(a), torch.rsqrt(a), torch.tanh(x), torch.sigmoid(x), F.relu(x - 0.5),
                F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), F.leaky_relu(x - 0.5, 0.1), F.elu(x - 0.5),
                F.relu6(x * 8), F.hardtanh(x, -0.2, 0.3), torch.clamp(x, min=0.2), x.clamp(max=0.7), torch.log(a),
                torch.sin(x), torch.cos(x), torch.maximum(x, y), torch.minimum(x, y), torch.erf(x),
                x.add(y, alpha=2), torch.floor(x * 4), torch.ceil(x * 4), x // 0.3)


def test_elementwise_and_broadcasting():
    check(Elementwise(), [torch.randn(2, 3, 4), torch.rand(3, 4)])


class Reductions(nn.Module):
    def forward(self, x):
        return (x.mean(-1, keepdim=True), x.sum(dim=(0, 2)), x.sum(), x.mean(), x.amax(dim=1), x.amin(-1),
                x.var(-1), x.var(dim=(1, 2), unbiased=False), x.std(0), x.mean(dim=[0, 1]) * 2)


def test_reductions():
    check(Reductions(), [torch.randn(2, 3, 4)])


class Masks(nn.Module):
    def forward(self, x, y):
        m = x > 0.5
        return (torch.where(m, x, y), x.masked_fill(x < 0.2, -1.0), (x > y).float(), (x == x).float(),
                torch.tril(x[0]), torch.triu(x[1], 1), torch.where(x < y, 1.0, 0.0), (~m).float(),
                (m & (y > 0.5)).float(), x.masked_fill(y > 0.7, float("-inf")).softmax(-1))


def test_masks_and_comparisons():
    check(Masks(), [torch.rand(2, 4, 4), torch.rand(4, 4)])


class Layouts(nn.Module):
    def forward(self, x):
        t = x.transpose(1, 2)  # [2, 4, 3]
        p = x.permute(2, 0, 1)  # [4, 2, 3]
        a, b = x.split(2, dim=2)
        c1, c2, c3 = x.chunk(3, dim=1)
        u = x.unbind(0)
        return (t + 1, p * 2, torch.cat([a, b * 2], dim=1), torch.cat([c3, c1, c2], dim=0), torch.stack(u, dim=2),
                x.narrow(2, 1, 2).contiguous() * 1, x[:, 1], x[..., ::2] + 0, x.unsqueeze(1).expand(2, 3, 3, 4) + 0,
                x.repeat(1, 2, 1) + 0, x.flatten(1) + 0, x.reshape(6, 4).unflatten(1, (2, 2)) + 0,
                t.reshape(2, 12) + 0, x[:, :, None, 1:3].squeeze(2) + 0, t.softmax(1), p.log_softmax(0),
                x.softmax(dim=0), t.contiguous().view(-1))


def test_layout_ops_and_softmax_axes():
    check(Layouts(), [torch.randn(2, 3, 4)])


class MatMuls(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 5))

    def forward(self, x, y, v):
        return (x @ self.w, x @ y, torch.bmm(x, y), v @ self.w, x @ v, torch.mm(x[0], y[1]),
                torch.addmm(v[:3], x[0], y[1]), x.transpose(1, 2) @ x, torch.matmul(x[0], v))


def test_matmul_variants():
    check(MatMuls(), [torch.randn(2, 3, 4), torch.randn(2, 4, 3), torch.randn(4)])


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn1 = nn.BatchNorm1d(4)
        self.bn1b = nn.BatchNorm1d(4)
        self.rms = nn.RMSNorm(6)
        self.ln2d = nn.LayerNorm([4, 6])
        self.ln = nn.LayerNorm(6, elementwise_affine=False)

    def forward(self, x):
        return (self.bn1(x), self.bn1b(x[:, :, 0]), self.rms(x), self.ln2d(x), self.ln(x), F.layer_norm(x, (6,)))


def test_norms():
    m = Norms()
    for bn in (m.bn1, m.bn1b):
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 1.5)
    check(m, [torch.randn(2, 4, 6)])


class Convs(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 6, 3, padding=1)
        self.c2 = nn.Conv2d(4, 6, 3, padding="same", dilation=2, groups=2)
        self.pool = nn.AvgPool2d(3, stride=2, padding=1)
        self.ap = nn.AdaptiveAvgPool2d((2, 2))
        self.mp = nn.MaxPool2d(2, stride=1)

    def forward(self, x, s):
        return self.c1(s), self.c2(x), self.pool(x), self.ap(x), self.mp(x), F.adaptive_avg_pool2d(x, 1).flatten(1)


def test_convolutions_and_pooling():
    check(Convs(), [torch.randn(2, 4, 6, 6), torch.randn(2, 4, 10)])


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)
        self.mha = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, ids, q, k, v, mask):
        e = self.emb(ids)
        out, weights = self.mha(e, e, e)  # need_weights=True path
        return (out, weights, F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
                F.scaled_dot_product_attention(q, k, v, attn_mask=mask > 0, scale=0.3),
                F.scaled_dot_product_attention(q, k, v[..., :4]), F.scaled_dot_product_attention(q, k, v, is_causal=True))


def test_embedding_and_attention_forms():
    ids = torch.randint(0, 16, (2, 5))
    check(Attention(), [ids, torch.randn(2, 2, 5, 8), torch.randn(2, 2, 6, 8), torch.randn(2, 2, 6, 8),
                        torch.randn(5, 6)])


class Casts(nn.Module):
    def forward(self, x, ids):
        return x.to(torch.float32) * 2, ids.float() / 3, (ids * 2).to(torch.float32), x.type_as(x) + ids


def test_casts_and_int_inputs():
    check(Casts(), [torch.rand(2, 3), torch.randint(0, 9, (2, 3))])


# ----------------------------------------------------------------------------- source-level properties
def test_views_do_not_copy_before_a_kernel_needs_them():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 16)

        def forward(self, x):
            y = self.fc(x).view(2, 4, 16).transpose(0, 1).transpose(0, 1).reshape(8, 16)
            return F.relu(y)

    imported = import_model(M().eval(), [torch.rand(8, 16)])
    assert "copy" not in imported.source  # view/transpose pairs cancel; relu reads fc directly
    s = allo.customize(imported.forward)
    assert s.top_func_name == "forward"


def test_equal_calls_share_one_instance_and_distinct_ones_are_numbered():
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 3)).eval()
    imported = import_model(model, [torch.rand(2, 4)])
    src = imported.source
    assert src.count('nn.linear[float32, 2, 4, 4, "1"](') == 2  # one instance, called twice
    assert src.count('nn.linear[float32, 2, 3, 4, "2"](') == 1
    assert "nn.relu[float32, 2, 4](" in src and "nn.tanh[float32, 2, 4](" in src
    s = imported.schedule()
    assert sorted(f.name for f in s.ir.funcs if f.name.startswith("linear")) == ["linear_1", "linear_2"]
    x = torch.rand(2, 4)
    np.testing.assert_allclose(imported.build("llvm")(x), model(x).detach().numpy(), atol=1e-5)


def test_constants_are_folded_into_weights():
    class M(nn.Module):
        def forward(self, x):
            mask = torch.triu(torch.ones(4, 4), diagonal=1).bool()
            return x.masked_fill(mask, 0.0) + torch.arange(4.0)

    imported = import_model(M().eval(), [torch.rand(4, 4)])
    assert "triu" not in imported.source.split("def ", 2)[1]  # computed at import time, bound as a weight
    check(M(), [torch.rand(4, 4)])


class Gather(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("perm", torch.tensor([3, 0, 2, -1]))

    def forward(self, x, ids):
        return x[:, self.perm], x.index_select(0, ids), x[ids], x[:, :, torch.tensor([1, 0])]


def test_integer_indexing():
    check(Gather(), [torch.randn(3, 4, 2), torch.tensor([2, 0, 1, 1])])


class GQA(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)


def test_grouped_query_attention():
    check(GQA(), [torch.randn(1, 4, 6, 8), torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 8)])


class PadPoolBaddbmm(nn.Module):
    def forward(self, x, b):
        return (F.pad(x, (1, 2, 0, 1)), F.pad(x, (-1, 1), value=0.5), F.adaptive_avg_pool2d(x, (3, 4)),
                torch.baddbmm(b[:, :, :2], b, b.transpose(1, 2)[:, :, :2], beta=0.5, alpha=2.0))


def test_pad_uneven_adaptive_pool_and_baddbmm():
    check(PadPoolBaddbmm(), [torch.randn(2, 3, 5, 7), torch.randn(2, 3, 4)])


class InPlace(nn.Module):
    def forward(self, x, mask):
        y = x.clone()
        y.add_(1.0).mul_(2.0)
        y = y.relu_()
        z = torch.zeros_like(x).masked_fill_(mask, -1.0)
        w = torch.empty(x.shape).copy_(x * 3)
        w[:, 0].fill_(0.0) if False else None
        return y + z, w


def test_in_place_ops_are_imported_functionally():
    check(InPlace(), [torch.randn(3, 4), torch.rand(3, 4) > 0.5])


class BertEmbeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.word, self.position, self.token_type = nn.Embedding(30, 16), nn.Embedding(16, 16), nn.Embedding(2, 16)
        self.norm = nn.LayerNorm(16)

    def forward(self, ids, types):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        return self.norm(self.word(ids) + self.position(pos) + self.token_type(types))


def test_bert_embeddings_with_int_inputs():
    check(BertEmbeddings(), [torch.randint(0, 30, (2, 8)), torch.randint(0, 2, (2, 8))])


class Einsum(nn.Module):
    def forward(self, q, k, w):
        return (torch.einsum("bhqd,bhkd->bhqk", q, k), torch.einsum("bld,de->ble", q[0], w), torch.einsum("ij->ji", w),
                torch.einsum("bhqd->bhd", q), torch.einsum("bhqk,bhkd->bqhd", q @ k.transpose(-1, -2), k))


def test_einsum():
    check(Einsum(), [torch.randn(2, 3, 4, 5), torch.randn(2, 3, 4, 5), torch.randn(5, 6)])
