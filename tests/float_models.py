"""Small float32 PyTorch models for the RTL model tests (tests/test_rtl_float_models.py) and
benchmarks/bench_rtl.py: the seed MLP, a CNN (conv/batchnorm/relu/maxpool/avgpool/linear) and a
post-norm transformer block (self-attention with softmax, residuals, LayerNorm, GELU FFN), at
sizes that keep each Verilator build near 20 s."""
import torch
import torch.nn.functional as F
from torch import nn


class SeedMLP(nn.Module):
    """The seed MLP (/work/shared/seeds): linear1 -> linear2 -> relu."""

    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(16, 32)
        self.linear2 = nn.Linear(32, 10)

    def forward(self, data):
        return F.relu(self.linear2(self.linear1(data)))


class SmallCNN(nn.Module):
    """conv-bn-relu-maxpool, conv-relu-avgpool, linear over 5 classes."""

    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 2 * 2, 5)
        with torch.no_grad():  # non-trivial running statistics, so folding them matters
            self.bn1.running_mean.uniform_(-0.5, 0.5)
            self.bn1.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.avg_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


class SmallBlock(nn.Module):
    """A post-norm transformer encoder block with two-head self-attention written out."""

    def __init__(self, d=8, heads=2, ffn=16):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x):
        b, s, d = x.shape
        hd = d // self.heads
        q, k, v = (f(x).view(b, s, self.heads, hd).transpose(1, 2) for f in (self.q, self.k, self.v))
        att = torch.softmax(q @ k.transpose(-2, -1) / hd ** 0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = self.ln1(x + self.o(y))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


SHAPES = {"mlp": (2, 16), "cnn": (1, 2, 8, 8), "block": (1, 4, 8)}
MODELS = {"mlp": SeedMLP, "cnn": SmallCNN, "block": SmallBlock}


def make(name, seed=0):
    """(model in eval mode, example input) with fixed seeds."""
    torch.manual_seed(seed)
    return MODELS[name]().eval(), torch.randn(*SHAPES[name])
