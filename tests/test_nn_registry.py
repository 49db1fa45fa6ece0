"""Every nn kernel is registered with a schedule that pipelines a loop (in the IR, the MLIR and the
HLS C++), the reference table in docs/library.md is current, and the composed MLP runs in csim."""
import pathlib

import numpy as np
import pytest

import allo
from allo.ir.types import Fixed, float32, int8, int16, int32
from allo.library.nn import intparams
from allo.library import nn
from allo.library.reference import reference_table
from allo.library.registry import KERNELS, schedule_for

from .nn_util import TOL, pipelined_loops, rand

f = float32
SAMPLES = {
    "linear": [f, 4, 6, 8], "linear3d": [f, 2, 4, 6, 8], "matmul": [f, 4, 8, 6], "bmm": [f, 2, 4, 8, 6],
    "batch_norm2d": [f, 2, 3, 4, 5], "conv2d": [f, 1, 4, 6, 8, 8, 3, 3, 4, 4, 2, 2, 1, 1, 1, 1, 2],
    "max_pool2d": [f, 1, 2, 8, 8, 3, 3, 4, 4, 2, 2, 1, 1], "avg_pool2d": [f, 1, 2, 8, 8, 2, 2, 4, 4, 2, 2, 0, 0],
    "global_avg_pool2d": [f, 2, 3, 4, 5], "embedding": [f, 10, 4, 3],
    "scaled_dot_product_attention": [f, 2, 4, 5, 8, 1], "rope": [f, 2, 4, 8], "transpose": [f, 3, 5],
    "permute": [f, (2, 3, 4, 5), (0, 2, 1, 3)], "reshape": [f, (2, 3, 4), (6, 4)], "concat": [f, (2, 3), (2, 4), 1],
    "slice": [f, (4, 6, 8), 1, 1, 5, 2], "select": [f, (4, 6, 8), 1, 2], "expand": [f, (1, 6, 1), (4, 6, 8)],
    "sum": [f, (4, 6, 8), 1], "mean": [f, (4, 6, 8), 2], "amax": [f, (4, 6), 0], "pow_int": [f, 4, 8, 3],
    "cast": [f, Fixed(8, 4), 4, 8],
    "qlinear": [int8, int8, int32, int32, 4, 6, 8], "qmatmul": [int8, int8, int32, int32, 4, 8, 6],
    "qbmm": [int8, int8, int32, int32, 2, 4, 8, 6],
    "qconv2d": [int8, int8, int32, int32, 1, 4, 6, 8, 8, 3, 3, 4, 4, 2, 2, 1, 1, 1, 1, 2],
    "isoftmax": [int8, int8, 4, 8, *intparams.isoftmax_params(0.05).targs],
    "igelu": [int8, int32, 4, 8, *intparams.igelu_params(0.03).targs],
    "ilayer_norm": [int8, int16, int32, 4, 8, *intparams.ilayer_norm_params(0.03, 8, [1.0] * 8, [0.0] * 8).targs],
    "iavg_pool2d": [int8, int32, 1, 2, 8, 8, 2, 2, 4, 4, 2, 2, 0, 0],
}


def sample_targs(name):
    if name in SAMPLES:
        return SAMPLES[name]
    return [f, 2, 3, 4] if name.endswith(("_mid", "_outer")) else [f, 4, 8]


SPEC_KERNELS = ["linear", "linear3d", "matmul", "bmm", "relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh",
                "softmax", "log_softmax", "layer_norm", "rms_norm", "batch_norm2d", "conv2d", "max_pool2d",
                "avg_pool2d", "embedding", "scaled_dot_product_attention", "rope"]
SPEC_TEMPLATES = {"linear": "T, M, N, K", "linear3d": "T, B, M, N, K", "matmul": "T, M, K, N", "bmm": "T, B, M, K, N",
                  "layer_norm": "T, M, N", "batch_norm2d": "T, B, C, H, W",
                  "conv2d": "T, B, Cin, Cout, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw, Dh, Dw, G",
                  "max_pool2d": "T, B, C, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw", "embedding": "T, V, D, L",
                  "scaled_dot_product_attention": "T, H, L, S, D, CAUSAL", "rope": "T, H, L, D"}


def test_spec_kernels_exist_with_spec_template_orders():
    for name in SPEC_KERNELS:
        k = getattr(nn, name)
        assert isinstance(k, allo.AlloKernel) and name in KERNELS
    for name, params in SPEC_TEMPLATES.items():
        assert ", ".join(getattr(nn, name).template_params) == params


def test_every_exported_kernel_is_registered():
    exported = {n for n in nn.__all__ if isinstance(getattr(nn, n), allo.AlloKernel)}
    assert exported == set(KERNELS)
    assert all(getattr(nn, n).schedule_fn is KERNELS[n].schedule for n in exported)


@pytest.mark.parametrize("name", list(KERNELS))
def test_schedule_pipelines_and_emits_pragmas(name):
    kernel = KERNELS[name].kernel
    s = allo.customize(kernel, instantiate=sample_targs(name))
    kernel.schedule_fn(s)
    assert pipelined_loops(s)
    assert "pipeline_ii = 1" in str(s.module)
    hls = s.build(target="vhls")
    assert "#pragma HLS pipeline II=1" in hls.hls_code
    report = hls.report()  # every library kernel has a QoR estimate (allo.qor)
    assert report.latency_cycles > 0 and any(row.pipelined for row in report.rows()), str(report)


def test_instance_template_from_user_code():
    """`nn.<kernel>[..., "id"]` names the instance; compose finds it by that id."""
    def k(X: float32[4, 8]) -> float32[4, 8]:
        return nn.gelu[float32, 4, 8, "act"](X)

    s = allo.customize(k)
    s.compose(nn.gelu, id="act", instantiate=[float32, 4, 8])
    assert "func.func @gelu_act(" in str(s.module)
    assert pipelined_loops(s) == ["j"]


def test_compose_rejects_mismatched_instance():
    def k(X: float32[4, 8]) -> float32[4, 8]:
        return nn.relu[float32, 4, 8](X)

    s = allo.customize(k)
    with pytest.raises(allo.AlloError):
        s.compose(nn.relu, instantiate=[float32, 4, 9])


def test_docs_reference_table_is_current():
    path = pathlib.Path(__file__).resolve().parents[1] / "docs" / "library.md"
    assert path.read_text() == reference_table(), "regenerate with: python -m allo.library > docs/library.md"
    for name in KERNELS:
        assert f"| `{name}` |" in path.read_text()


def test_schedule_for_rejects_non_kernels():
    with pytest.raises(allo.AlloError, match="schedule_for"):
        schedule_for(lambda x: x)


def test_schedules_of_fixed_point_instances():
    """Schedules depend only on loop structure: they apply to any element type."""
    for name in ("linear", "relu", "add", "conv2d"):
        targs = [Fixed(16, 8)] + sample_targs(name)[1:]
        s = allo.customize(nn.__dict__[name], instantiate=targs)
        nn.__dict__[name].schedule_fn(s)
        assert pipelined_loops(s)


def _mlp(data: float32[8, 16], w1: float32[32, 16], b1: float32[32], w2: float32[10, 32],
         b2: float32[10]) -> float32[8, 10]:
    h = nn.linear[float32, 8, 32, 16, "1"](data, w1, b1)
    o = nn.linear[float32, 8, 10, 32, "2"](h, w2, b2)
    return nn.relu[float32, 8, 10](o)


def test_composed_mlp_hls_csim_matches_llvm(tmp_path):
    s = allo.customize(_mlp)
    s.compose(nn.linear, id="1", instantiate=[float32, 8, 32, 16])
    s.compose(nn.linear, id="2", instantiate=[float32, 8, 10, 32])
    s.compose(nn.relu, instantiate=[float32, 8, 10])
    rng = np.random.default_rng(0)
    args = (rand(rng, 8, 16), rand(rng, 32, 16), rand(rng, 32), rand(rng, 10, 32), rand(rng, 10))
    llvm_out = s.build()(*args)
    csim_out = s.build(target="vhls", mode="csim", project=str(tmp_path / "mlp"))(*args)
    np.testing.assert_allclose(csim_out, llvm_out, **TOL)


def test_direct_call_of_an_instance_from_python():
    rng = np.random.default_rng(4)
    X, W, b = rand(rng, 2, 3), rand(rng, 4, 3), rand(rng, 4)
    np.testing.assert_allclose(nn.linear[float32, 2, 4, 3](X, W, b), X @ W.T + b, **TOL)
    np.testing.assert_allclose(allo.library.nn.softmax[float32, 2, 3](X).sum(axis=1), np.ones(2), **TOL)
