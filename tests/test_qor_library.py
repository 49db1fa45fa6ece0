"""The seed MLP imported from PyTorch (target="vhls") has a QoR report (every nn library kernel's
report is checked in test_nn_registry.py, where each kernel is already scheduled)."""
import importlib.util

import pytest

import allo


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_seed_mlp_report_from_pytorch():
    import torch
    import torch.nn.functional as F

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear1 = torch.nn.Linear(16, 32)
            self.linear2 = torch.nn.Linear(32, 10)

        def forward(self, data):
            return F.relu(self.linear2(self.linear1(data)))

    model = MLP().eval()
    hls = allo.frontend.from_pytorch(model, example_inputs=[torch.rand(8, 16)], target="vhls")
    r = hls.report(clock_ns=3.33, part="xcu280")
    names = [row.name for row in r.loops]
    assert any(n.startswith("linear") for n in names) and any(n.startswith("relu") for n in names)
    assert r.resources["DSP"] > 0 and allo.report(hls).to_dict() == r.to_dict()
