"""The seed MLP, for `allo compile examples/mlp.py:MLP --input-shape 8x16 --target vhls --csim -o out/`."""
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(16, 32)
        self.linear2 = nn.Linear(32, 10)

    def forward(self, data):
        return F.relu(self.linear2(self.linear1(data)))


def make_mlp():
    """A factory: `allo compile examples/mlp.py:make_mlp ...` calls it."""
    return MLP().eval()
