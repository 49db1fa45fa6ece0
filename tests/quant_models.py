"""Small float models the quantization tests and benchmarks/bench_quant.py import: the seed MLP, a
CNN (conv/bn/relu/pool/linear) and a transformer encoder block (attention, residuals, LayerNorm,
GELU FFN)."""
import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    """The seed MLP (/work/shared/seeds): linear1 -> linear2 -> relu."""

    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(16, 32)
        self.linear2 = nn.Linear(32, 10)

    def forward(self, data):
        return F.relu(self.linear2(self.linear1(data)))


class CNN(nn.Module):
    """conv-bn-relu-pool twice, then a linear classifier over 10 classes."""

    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 16, 3), nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 2 * 2, 10)
        with torch.no_grad():  # non-trivial running statistics, so folding them matters
            for bn in (self.bn1, self.bn2):
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 2.0)
                bn.weight.uniform_(0.5, 1.5)
                bn.bias.uniform_(-0.2, 0.2)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        return self.fc(torch.flatten(x, 1))


class Block(nn.Module):
    """A post-norm transformer encoder block with multi-head attention written out."""

    def __init__(self, d=32, heads=4, ffn=64):
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


SHAPES = {"mlp": (8, 16), "cnn": (4, 3, 12, 12), "block": (2, 8, 32)}
MODELS = {"mlp": MLP, "cnn": CNN, "block": Block}


def make(name, seed=0, batches=8):
    """(model in eval mode, example inputs, calibration batches) with fixed seeds."""
    torch.manual_seed(seed)
    model = MODELS[name]().eval()
    shape = SHAPES[name]
    return model, [torch.randn(*shape)], [[torch.randn(*shape)] for _ in range(batches)]
