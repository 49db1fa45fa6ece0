"""Library kernels composed into user kernels (a small CNN and an attention block): every instance
gets its predefined schedule through `s.compose(...)`, and the result still matches torch."""
import numpy as np
import pytest
import torch.nn.functional as F

import allo
from allo.ir import nodes as N
from allo.ir import visit as V
from allo.ir.types import Fixed, float32, int8
from allo.library import nn

from .nn_util import TOL, pipelined_loops, rand, tt


def cnn(X: float32[1, 3, 8, 8], Wc: float32[4, 3, 3, 3], bc: float32[4], mu: float32[4], var: float32[4],
        g: float32[4], be: float32[4], Wl: float32[3, 4], bl: float32[3]) -> float32[1, 3]:
    c = nn.conv2d[float32, 1, 3, 4, 8, 8, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 1](X, Wc, bc)
    n = nn.batch_norm2d[float32, 1, 4, 8, 8](c, mu, var, g, be, 1e-5)
    r = nn.relu[float32, 32, 8](nn.reshape[float32, (1, 4, 8, 8), (32, 8), "flat"](n))
    p = nn.max_pool2d[float32, 1, 4, 8, 8, 2, 2, 4, 4, 2, 2, 0, 0](nn.reshape[float32, (32, 8), (1, 4, 8, 8), "nchw"](r))
    v = nn.reshape[float32, (1, 4, 1, 1), (1, 4), "vec"](nn.global_avg_pool2d[float32, 1, 4, 4, 4](p))
    return nn.linear[float32, 1, 3, 4](v, Wl, bl)


CNN_INSTANCES = [
    (nn.conv2d, None, [float32, 1, 3, 4, 8, 8, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 1]),
    (nn.batch_norm2d, None, [float32, 1, 4, 8, 8]),
    (nn.reshape, "flat", [float32, (1, 4, 8, 8), (32, 8)]),
    (nn.relu, None, [float32, 32, 8]),
    (nn.reshape, "nchw", [float32, (32, 8), (1, 4, 8, 8)]),
    (nn.max_pool2d, None, [float32, 1, 4, 8, 8, 2, 2, 4, 4, 2, 2, 0, 0]),
    (nn.global_avg_pool2d, None, [float32, 1, 4, 4, 4]),
    (nn.reshape, "vec", [float32, (1, 4, 1, 1), (1, 4)]),
    (nn.linear, None, [float32, 1, 3, 4]),
]


def compose_all(s, instances):
    for kernel, inst_id, targs in instances:
        s.compose(kernel, id=inst_id, instantiate=targs)
    return s


def functions_with_pipelines(s):
    """Names of the functions of `s` that contain a pipelined loop."""
    return {f.name for f in s.ir.funcs
            if any(isinstance(st, N.For) and "pipeline_ii" in st.attrs for st in V.walk_stmts(f.body))}


def test_cnn_composed_matches_torch():
    rng = np.random.default_rng(0)
    args = [rand(rng, 1, 3, 8, 8), rand(rng, 4, 3, 3, 3), rand(rng, 4), rand(rng, 4),
            (rng.random(4) + 0.5).astype(np.float32), rand(rng, 4), rand(rng, 4), rand(rng, 3, 4), rand(rng, 3)]
    X, Wc, bc, mu, var, g, be, Wl, bl = map(tt, args)
    ref = F.conv2d(X, Wc, bc, padding=1)
    ref = F.relu(F.batch_norm(ref, mu, var, g, be, training=False, eps=1e-5))
    ref = F.adaptive_avg_pool2d(F.max_pool2d(ref, 2), 1).flatten(1)
    ref = F.linear(ref, Wl, bl).numpy()
    s = compose_all(allo.customize(cnn), CNN_INSTANCES)
    scheduled = functions_with_pipelines(s)
    expected = {"conv2d", "batch_norm2d", "reshape_flat", "relu", "reshape_nchw", "max_pool2d", "global_avg_pool2d",
                "reshape_vec", "linear"}
    assert expected <= scheduled
    assert any(st.primitive == "reuse_at" and st.func == "conv2d" for st in s.steps)
    np.testing.assert_allclose(s.build()(*args), ref, **TOL)


L, D = 6, 8


def attention_block(X: float32[6, 8], g: float32[8], b: float32[8], Wq: float32[8, 8], bq: float32[8],
                    Wk: float32[8, 8], bk: float32[8], Wv: float32[8, 8], bv: float32[8], Wo: float32[8, 8],
                    bo: float32[8]) -> float32[6, 8]:
    h = nn.layer_norm[float32, 6, 8](X, g, b, 1e-5)
    q = nn.reshape[float32, (6, 8), (1, 6, 8), "q"](nn.linear[float32, 6, 8, 8, "q"](h, Wq, bq))
    k = nn.reshape[float32, (6, 8), (1, 6, 8), "k"](nn.linear[float32, 6, 8, 8, "k"](h, Wk, bk))
    v = nn.reshape[float32, (6, 8), (1, 6, 8), "v"](nn.linear[float32, 6, 8, 8, "v"](h, Wv, bv))
    a = nn.reshape[float32, (1, 6, 8), (6, 8), "o"](nn.scaled_dot_product_attention[float32, 1, 6, 6, 8, 1](q, k, v))
    o = nn.linear[float32, 6, 8, 8, "o"](a, Wo, bo)
    return nn.gelu[float32, 6, 8](nn.add[float32, 6, 8](o, X))


def test_attention_block_composed_matches_torch():
    rng = np.random.default_rng(1)
    args = attention_args(rng)
    X, g, b, Wq, bq, Wk, bk, Wv, bv, Wo, bo = map(tt, args)
    h = F.layer_norm(X, (D,), g, b, 1e-5)
    q, k, v = (F.linear(h, w, bias)[None] for w, bias in ((Wq, bq), (Wk, bk), (Wv, bv)))
    att = F.scaled_dot_product_attention(q, k, v, is_causal=True)[0]
    ref = F.gelu(F.linear(att, Wo, bo) + X).numpy()
    s = allo.customize(attention_block)
    instances = [(nn.layer_norm, None, [float32, L, D]), (nn.scaled_dot_product_attention, None, [float32, 1, L, L, D, 1]),
                 (nn.add, None, [float32, L, D]), (nn.gelu, None, [float32, L, D]),
                 (nn.reshape, "o", [float32, (1, L, D), (L, D)])]
    instances += [(nn.linear, i, [float32, L, D, D]) for i in "qkvo"]
    instances += [(nn.reshape, i, [float32, (L, D), (1, L, D)]) for i in "qkv"]
    compose_all(s, instances)
    assert len(functions_with_pipelines(s)) == len(instances)
    assert len(pipelined_loops(s)) > 2 * len(instances)
    np.testing.assert_allclose(s.build()(*args), ref, **TOL)
    assert s.build(target="vhls").hls_code.count("#pragma HLS pipeline II=1") > 2 * len(instances)


def attention_args(rng):
    return [rand(rng, L, D), rand(rng, D), rand(rng, D)] + [a for _ in range(4) for a in (rand(rng, D, D), rand(rng, D))]


def test_composed_blocks_hls_csim_match_llvm(tmp_path):
    """The HLS C++ of the scheduled library kernels (line buffers, pipelines) computes what LLVM does."""
    rng = np.random.default_rng(2)
    cnn_args = [rand(rng, 1, 3, 8, 8), rand(rng, 4, 3, 3, 3), rand(rng, 4), rand(rng, 4),
                (rng.random(4) + 0.5).astype(np.float32), rand(rng, 4), rand(rng, 4), rand(rng, 3, 4), rand(rng, 3)]
    s = compose_all(allo.customize(cnn), CNN_INSTANCES)
    csim = s.build(target="vhls", mode="csim", project=str(tmp_path / "cnn"))
    np.testing.assert_allclose(csim(*cnn_args), s.build()(*cnn_args), **TOL)
    s = allo.customize(attention_block)
    s.compose(nn.linear, id="q", instantiate=[float32, L, D, D])
    s.compose(nn.scaled_dot_product_attention, instantiate=[float32, 1, L, L, D, 1])
    args = attention_args(rng)
    csim = s.build(target="vhls", mode="csim", project=str(tmp_path / "attn"))
    np.testing.assert_allclose(csim(*args), s.build()(*args), **TOL)


def qmlp(X: int8[4, 8], W: int8[6, 8], b: int8[6]) -> int8[4, 6]:
    return nn.relu[int8, 4, 6](nn.linear[int8, 4, 6, 8](X, W, b))


def fmlp(X: Fixed(16, 8)[4, 8], W: Fixed(16, 8)[6, 8], b: Fixed(16, 8)[6]) -> Fixed(16, 8)[4, 6]:
    return nn.relu[Fixed(16, 8), 4, 6](nn.linear[Fixed(16, 8), 4, 6, 8](X, W, b))


@pytest.mark.parametrize("fn,T", [(qmlp, int8), (fmlp, Fixed(16, 8))], ids=["int8", "fixed16_8"])
def test_quantized_mlp_llvm_and_csim_agree_bit_for_bit(fn, T, tmp_path):
    rng = np.random.default_rng(3)
    if T == int8:
        args = tuple(rng.integers(-100, 100, sh).astype(np.int8) for sh in ((4, 8), (6, 8), (6,)))
    else:
        args = tuple(rng.standard_normal(sh) for sh in ((4, 8), (6, 8), (6,)))
    s = allo.customize(fn)
    s.compose(nn.linear, instantiate=[T, 4, 6, 8])
    s.compose(nn.relu, instantiate=[T, 4, 6])
    plain = allo.customize(fn).build()(*args)
    np.testing.assert_array_equal(s.build()(*args), plain)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim", project=str(tmp_path / "q"))(*args), plain)
