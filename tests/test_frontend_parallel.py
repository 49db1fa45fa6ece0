"""Both cores by default: imported models run their large kernels and generated loops in parallel
(OpenMP), and the parallel build computes exactly what the one-thread build computes."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import allo  # noqa: E402
from allo.backend.llvm import openmp  # noqa: E402


class Block(nn.Module):
    def __init__(self, d=64, heads=2):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 128), nn.GELU(), nn.Linear(128, d))

    def forward(self, x):
        x = self.ln(x + self.attn(x, x, x, need_weights=False)[0])
        return x + self.ff(x)


@pytest.mark.skipif(openmp.runtime() is None, reason="OpenMP runtime (intel-openmp) not installed")
def test_two_threads_match_one_thread_bit_for_bit():
    torch.manual_seed(0)
    model, x = Block().eval(), torch.randn(1, 32, 64)
    mod = allo.frontend.from_pytorch(model, [x], threads=2, verbose=False)
    report = "\n".join(mod.cpu_report)
    assert "runs in parallel" in report  # library rows and generated loop nests
    two = mod(x)
    mod.threads = 1
    one = mod(x)
    assert np.array_equal(one, two)
    np.testing.assert_allclose(two, model(x).detach().numpy(), atol=1e-4)


def test_small_kernels_stay_serial():
    from allo.library import nn as lib
    from allo.ir.types import float32

    s = allo.customize(lib.relu, instantiate=[float32, 8, 16])
    lib.relu.schedule_fn(s)
    assert [st.primitive for st in s.steps] == ["pipeline"]  # 128 elements: a thread fork would cost more
    big = allo.customize(lib.relu, instantiate=[float32, 128, 768])
    lib.relu.schedule_fn(big)
    assert [st.primitive for st in big.steps] == ["pipeline", "parallel"]


def test_default_threads_is_all_cores():
    model = nn.Linear(4, 4).eval()
    mod = allo.frontend.from_pytorch(model, [torch.rand(2, 4)], verbose=False)
    assert mod.threads == openmp.cores()
