"""scaled_dot_product_attention (causal and not), rope and embedding against torch."""
import numpy as np
import torch
import torch.nn.functional as F
from hypothesis import given, strategies as st

from allo.ir.types import float32, int32
from allo.library import nn

from .nn_util import FAST, check, rand, run_both, tt


@FAST
@given(H=st.integers(1, 3), L=st.integers(1, 6), S=st.integers(1, 6), D=st.integers(1, 8), causal=st.sampled_from([0, 1]),
       seed=st.integers(0, 2**16))
def test_sdpa_matches_torch(H, L, S, D, causal, seed):
    rng = np.random.default_rng(seed)
    Q, K, V = rand(rng, H, L, D), rand(rng, H, S, D), rand(rng, H, S, D)
    ref = F.scaled_dot_product_attention(tt(Q), tt(K), tt(V), is_causal=bool(causal)).numpy()
    check(nn.scaled_dot_product_attention, [float32, H, L, S, D, causal], (Q, K, V), ref)


def test_sdpa_causal_mask_is_top_left_aligned():
    rng = np.random.default_rng(1)
    Q, K, V = rand(rng, 2, 5, 4), rand(rng, 2, 3, 4), rand(rng, 2, 3, 4)  # L > S
    ref = F.scaled_dot_product_attention(tt(Q), tt(K), tt(V), is_causal=True).numpy()
    check(nn.scaled_dot_product_attention, [float32, 2, 5, 3, 4, 1], (Q, K, V), ref)
    np.testing.assert_allclose(ref[:, 0], V[:, 0], atol=1e-6)  # first query sees only key 0


def rope_reference(X, cos, sin):
    half = X.shape[-1] // 2
    rot = torch.cat([-X[..., half:], X[..., :half]], dim=-1)
    return X * cos + rot * sin


@FAST
@given(H=st.integers(1, 3), L=st.integers(1, 6), half=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_rope_matches_reference(H, L, half, seed):
    D = 2 * half
    rng = np.random.default_rng(seed)
    X = rand(rng, H, L, D)
    pos = np.arange(L, dtype=np.float32)[:, None]
    freqs = 1.0 / (10000 ** (np.arange(half, dtype=np.float32) / half))
    ang = np.concatenate([pos * freqs, pos * freqs], axis=1).astype(np.float32)
    cos, sin = np.cos(ang), np.sin(ang)
    check(nn.rope, [float32, H, L, D], (X, cos, sin), rope_reference(tt(X), tt(cos), tt(sin)).numpy())


@FAST
@given(V=st.integers(1, 10), D=st.integers(1, 6), L=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_embedding_matches_torch(V, D, L, seed):
    rng = np.random.default_rng(seed)
    table = rand(rng, V, D)
    ids = rng.integers(0, V, L).astype(np.int64)
    check(nn.embedding, [float32, V, D, L], (ids, table), F.embedding(tt(ids), tt(table)).numpy())


def test_embedding_int32_table():
    rng = np.random.default_rng(2)
    table = rng.integers(-1000, 1000, (6, 3)).astype(np.int32)
    ids = np.array([5, 0, 5, 2], np.int64)
    plain, sched = run_both(nn.embedding, [int32, 6, 3, 4], (ids, table))
    np.testing.assert_array_equal(plain, table[ids])
    np.testing.assert_array_equal(sched, plain)


def test_embedding_checks_its_ids_in_the_default_build():
    """An id of 10**12 segfaulted the default build and -1 / 10 read stray memory: the library kernel
    is always bounds-checked (plain, scheduled with threads, and called from another kernel)."""
    import pytest

    import allo
    from allo.ir.types import int64

    table = np.arange(40, dtype=np.float32).reshape(10, 4)
    good = np.array([0, 9, 3], np.int64)

    def user(ids: int64[3], table: float32[10, 4]) -> float32[3, 4]:
        return nn.embedding[float32, 10, 4, 3](ids, table)

    plain = allo.customize(nn.embedding, instantiate=[float32, 10, 4, 3]).build()
    sched = allo.customize(nn.embedding, instantiate=[float32, 10, 4, 3])
    nn.embedding.schedule_fn(sched)
    mods = [plain, sched.build(threads=2), allo.customize(user).build(), nn.embedding[float32, 10, 4, 3]]
    for mod in mods:
        np.testing.assert_array_equal(mod(good, table), table[good])
        for bad in (-1, 10, 10**12, -(2**63)):
            with pytest.raises(allo.BoundsError, match=f"index {bad} is out of bounds for dimension 0 of 'table'"):
                mod(np.array([0, bad, 3], np.int64), table)
