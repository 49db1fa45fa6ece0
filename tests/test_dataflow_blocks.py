"""Streams of blocks (`Stream[int16[4, 4], d]`) in HLS C++: `hls::stream< hls::vector<T, n> >`,
an element-wise writer/reader per instance; csim equals the simulator and numpy."""
import numpy as np
import pytest

import allo
import allo.dataflow as df
from allo.backend import hls
from allo.ir.types import Stream, float32, int16

L, NB = 4, 3


@df.region()
def blocks_top(A: int16[NB * L, L], B: int16[NB * L, L], S: float32[NB]):
    blocks: Stream[int16[L, L], 2]
    sums: Stream[float32[2], 2]  # (sum, maximum) of each block
    rows: Stream[int16, 4]  # a scalar stream next to them stays a plain hls::stream

    @df.kernel(mapping=[1], args=[A])
    def producer(a: int16[NB * L, L]):
        for t in range(NB):
            blk: int16[L, L] = 0
            for m, n in allo.grid(L, L):
                blk[m, n] = a[t * L + m, n]
            blocks.put(blk)
            rows.put(a[t * L, 0])

    @df.kernel(mapping=[1], args=[B])
    def consumer(b: int16[NB * L, L]):
        for t in range(NB):
            blk: int16[L, L] = blocks.get()
            first: int16 = rows.get()
            acc: float32[2] = -1000.0
            acc[0] = 0.0
            for m, n in allo.grid(L, L):
                b[t * L + m, n] = blk[m, n] - first
                acc[0] += blk[m, n]
                acc[1] = max(acc[1], blk[m, n])
            sums.put(acc)

    @df.kernel(mapping=[1], args=[S])
    def reducer(s: float32[NB]):
        for t in range(NB):
            two: float32[2] = sums.get()
            s[t] = two[0] + two[1]


def _expected(A):
    first = A[::L, 0].repeat(L)[:, None]
    return (A - first).astype(np.int16), (A.reshape(NB, L * L).astype(np.float32).sum(axis=1)
                                          + A.reshape(NB, L * L).max(axis=1))


def test_block_streams_emit_hls_vectors(tmp_path):
    code = df.build(blocks_top, target="vhls", project=str(tmp_path / "top.prj")).hls_code  # not into the checkout
    assert "hls::stream< hls::vector< int16_t, 16 > > &blocks" in code
    assert "allo_block_writer< int16_t, 16 > blocks_w;" in code and "blocks_w.put(blocks, " in code
    assert "allo_block_reader< float, 2 > sums_r;" in code and "sums_r.get(sums)" in code
    assert "hls::stream< int16_t > rows;" in code and "rows.write(" in code  # scalar items unchanged


@pytest.mark.skipif(not hls.is_available("csim"), reason="needs a C++ compiler")
def test_block_streams_csim_matches_simulator(tmp_path):
    A = np.random.default_rng(5).integers(-100, 100, (NB * L, L)).astype(np.int16)
    out = {}
    for target in ("simulator", "csim"):
        B, S = np.zeros_like(A), np.zeros(NB, np.float32)
        if target == "csim":
            df.build(blocks_top, target="vitis_hls", mode="csim", project=str(tmp_path / "blk.prj"))(A, B, S)
        else:
            df.build(blocks_top, target="simulator")(A, B, S)
        out[target] = (B, S)
    B_ref, S_ref = _expected(A)
    np.testing.assert_array_equal(out["simulator"][0], B_ref)
    np.testing.assert_allclose(out["simulator"][1], S_ref)
    np.testing.assert_array_equal(out["csim"][0], out["simulator"][0])
    np.testing.assert_array_equal(out["csim"][1], out["simulator"][1])
