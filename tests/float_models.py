"""Small float32 PyTorch models for the RTL model tests (tests/test_rtl_float_models.py) and
benchmarks/bench_rtl.py: the seed MLP, a CNN (conv/batchnorm/relu/maxpool/avgpool/linear) and a
post-norm transformer block (self-attention with softmax, residuals, LayerNorm, GELU FFN), at
sizes that keep each Verilator build near 20 s."""
import torch
import torch.nn.functional as F
from torch import nn

from tests.quant_models import Block


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


class SmallBlock(Block):
    """tests/quant_models.py's post-norm transformer block (two-head self-attention written out,
    residuals, LayerNorm, GELU FFN) at RTL test size."""

    def __init__(self, d=8, heads=2, ffn=16):
        super().__init__(d, heads, ffn)


SHAPES = {"mlp": (2, 16), "cnn": (1, 2, 8, 8), "block": (1, 4, 8)}
MODELS = {"mlp": SeedMLP, "cnn": SmallCNN, "block": SmallBlock}


def make(name, seed=0):
    """(model in eval mode, example input) with fixed seeds."""
    torch.manual_seed(seed)
    return MODELS[name]().eval(), torch.randn(*SHAPES[name])
