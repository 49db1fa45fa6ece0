"""Whole models through allo.frontend.from_pytorch, checked against eager PyTorch (float32, atol 1e-4)."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

import allo  # noqa: E402

ATOL = 1e-4


def check(model, inputs, **kw):
    """Import, build for LLVM, run, compare every output with eager PyTorch; returns the module."""
    model.eval()
    mod = allo.frontend.from_pytorch(model, example_inputs=inputs, **kw)
    with torch.no_grad():
        golden = model(*inputs)
    res = mod(*[x.detach().numpy() for x in inputs])
    ref_leaves = [t for t in torch.utils._pytree.tree_leaves(golden) if isinstance(t, torch.Tensor)]
    out_leaves = [r for r in torch.utils._pytree.tree_leaves(res) if isinstance(r, np.ndarray)]
    assert len(out_leaves) == len(ref_leaves)
    for out, ref in zip(out_leaves, ref_leaves):
        assert out.shape == tuple(ref.shape)
        np.testing.assert_allclose(out, ref.numpy(), atol=ATOL, rtol=1e-4)
    return mod


# ----------------------------------------------------------------------------- the seed MLP, verbatim
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(16, 32)  # 8*16 * 32*16
        self.linear2 = torch.nn.Linear(32, 10)

    def forward(self, data):
        out = self.linear1(data)
        out = self.linear2(out)
        out = F.relu(out)
        return out


def test_seed_mlp(capsys):
    model = MLP()
    model.eval()
    example_inputs = [torch.rand(8, 16)]
    llvm_mod = allo.frontend.from_pytorch(
        model, example_inputs=example_inputs, verbose=True
    )
    golden = model(*example_inputs)
    np_inputs = [x.detach().numpy() for x in example_inputs]
    res = llvm_mod(*np_inputs)
    torch.testing.assert_close(res, golden.detach().numpy())
    out = capsys.readouterr().out
    # the three stages: captured graph, DSL source, MLIR module
    g, src, mlir = out.index("graph():"), out.index("def forward(data: float32[8, 16]) -> (float32[8, 10]):"), \
        out.index("module {")
    assert g < src < mlir
    for line in ['linear1_weight: float32[32, 16] = g_linear1_weight',
                 'linear1 = nn.linear[float32, 8, 32, 16, "1"](data, linear1_weight, linear1_bias)',
                 'linear2 = nn.linear[float32, 8, 10, 32, "2"](linear1, linear2_weight, linear2_bias)',
                 'relu = nn.relu[float32, 8, 10](linear2)', "return (relu)"]:
        assert line in out
    for func in ("func.func @linear_1(", "func.func @linear_2(", "func.func @relu(", "func.func @forward("):
        assert func in out
    assert "pipeline_ii = 1" in out  # library schedules were composed


# ----------------------------------------------------------------------------- CNNs
class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 8, 3, stride=2, bias=False)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(8 * 3 * 3, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.conv2(x))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def _randomize_bn(model):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    return model


def test_lenet():
    mod = check(_randomize_bn(LeNet()), [torch.rand(2, 1, 14, 14)])
    src = mod.imported.source
    assert "nn.conv2d[float32, 2, 1, 4, 14, 14, 3, 3, 14, 14, 1, 1, 1, 1, 1, 1, 1" in src
    assert "nn.max_pool2d[float32, 2, 4, 14, 14, 2, 2, 7, 7, 2, 2, 0, 0]" in src
    assert "nn.batch_norm2d[float32, 2, 4, 14, 14]" in src


class BasicBlock(nn.Module):
    def __init__(self, cin=4, cout=8, stride=2):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.downsample(x))


def test_resnet_basic_block():
    check(_randomize_bn(BasicBlock()), [torch.rand(2, 4, 8, 8)])


# ----------------------------------------------------------------------------- transformers
class BertLayerHW(nn.Module):
    """A hand-written BERT encoder layer (post-norm, GELU)."""

    def __init__(self, d=32, h=4, ff=64):
        super().__init__()
        self.h, self.dh = h, d // h
        self.query, self.key, self.value, self.out = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, mask):
        b, n, d = x.shape
        q = self.query(x).view(b, n, self.h, self.dh).transpose(1, 2)
        k = self.key(x).view(b, n, self.h, self.dh).transpose(1, 2)
        v = self.value(x).view(b, n, self.h, self.dh).transpose(1, 2)
        s = q @ k.transpose(-2, -1) / math.sqrt(self.dh) + mask[:, None, None, :]
        p = self.drop(F.softmax(s, dim=-1))
        a = (p @ v).transpose(1, 2).contiguous().view(b, n, d)
        x = self.ln1(x + self.drop(self.out(a)))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


def test_bert_encoder_layer():
    mask = torch.zeros(2, 8)
    mask[1, 6:] = -10000.0
    mod = check(BertLayerHW(), [torch.rand(2, 8, 32), mask])
    assert "nn.softmax[float32, 64, 8]" in mod.imported.source
    assert "nn.bmm[float32, 8, 8, 8, 8" in mod.imported.source


def test_torch_transformer_encoder_layer():
    layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1, batch_first=True)
    mod = check(layer, [torch.rand(2, 8, 32)])
    assert "nn.scaled_dot_product_attention[float32, 8, 8, 8, 8, 0]" in mod.imported.source


class GPT2BlockHW(nn.Module):
    """A GPT-2 style decoder block with a causal mask buffer and masked_fill."""

    def __init__(self, d=32, h=4, n=8):
        super().__init__()
        self.h = h
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.c_fc, self.c_fc_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.register_buffer("bias", torch.tril(torch.ones(n, n)).view(1, 1, n, n))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(self.ln_1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.h, c // self.h).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        y = (F.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.c_proj(y)
        return x + self.c_fc_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


def test_gpt2_style_block():
    mod = check(GPT2BlockHW(), [torch.rand(2, 8, 32)])
    assert "nn.gelu_tanh[float32, 16, 128]" in mod.imported.source


class GPTCausalSDPA(nn.Module):
    def __init__(self, d=32, h=4):
        super().__init__()
        self.h = h
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (z.view(b, t, self.h, c // self.h).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


def test_causal_sdpa_block():
    mod = check(GPTCausalSDPA(), [torch.rand(2, 8, 32)])
    assert "nn.scaled_dot_product_attention[float32, 8, 8, 8, 8, 1]" in mod.imported.source


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaBlock(nn.Module):
    """LLaMA-style: RMSNorm, rotary embeddings, causal attention, SiLU-gated MLP, no biases."""

    def __init__(self, d=32, h=4, n=8, ff=64):
        super().__init__()
        self.h, self.dh = h, d // h
        self.input_layernorm, self.post_attention_layernorm = RMSNorm(d), nn.RMSNorm(d, eps=1e-6)
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.gate_proj, self.up_proj = nn.Linear(d, ff, bias=False), nn.Linear(d, ff, bias=False)
        self.down_proj = nn.Linear(ff, d, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.dh, 2).float() / self.dh))
        freqs = torch.outer(torch.arange(n).float(), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())

    def forward(self, x):
        b, n, d = x.shape
        hs = self.input_layernorm(x)
        q = self.q_proj(hs).view(b, n, self.h, self.dh).transpose(1, 2)
        k = self.k_proj(hs).view(b, n, self.h, self.dh).transpose(1, 2)
        v = self.v_proj(hs).view(b, n, self.h, self.dh).transpose(1, 2)
        cos, sin = self.cos[:n], self.sin[:n]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o_proj(a.transpose(1, 2).reshape(b, n, d))
        hs = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(hs)) * self.up_proj(hs))


def test_llama_block():
    mod = check(LlamaBlock(), [torch.rand(2, 8, 32)])
    src = mod.imported.source
    assert "nn.rms_norm[float32, 16, 32]" in src
    assert "nn.silu[float32, 16, 64]" in src


# ----------------------------------------------------------------------------- Hugging Face blocks
@pytest.mark.slow
def test_hf_bert_layer():
    pytest.importorskip("transformers")
    from transformers import BertConfig
    from transformers.models.bert.modeling_bert import BertLayer

    torch.manual_seed(0)
    cfg = BertConfig(hidden_size=32, num_attention_heads=4, intermediate_size=64, num_hidden_layers=1)
    check(BertLayer(cfg), [torch.rand(2, 8, 32)])


@pytest.mark.slow
def test_hf_gpt2_block():
    pytest.importorskip("transformers")
    from transformers import GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2Block

    torch.manual_seed(0)
    check(GPT2Block(GPT2Config(n_embd=32, n_head=4, n_positions=16), layer_idx=0), [torch.rand(2, 8, 32)])
