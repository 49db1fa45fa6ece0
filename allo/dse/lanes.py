"""`lanes_space`: the "parallel lanes" space of a matrix-product nest `for k, i, j: out[i, j] += ...`.

The reduction loop k stays outermost; the output loops i and j are split by (ui, uj), their inner
parts unrolled (ui * uj multiply-add lanes) and j.outer pipelined, so Vitis flattens
k x i.outer x j.outer into one pipeline at II 1 (consecutive iterations update different outputs:
no recurrence); `out`, the row-indexed input and the column-indexed input are partitioned
cyclically by the factors so every lane has its own bank. The factors are the divisors of the
extents (no guards). This is the structure of Stream-HLS's matrix-product designs.

Example::

    space = allo.dse.lanes_space(200, 220, out="C", rows_in="A", cols_in="B")
    r = allo.dse.explore(gemm, space=space, budget={"DSP": 2560}, strategy="grid", trials=space.size)
"""
from __future__ import annotations

from .space import Space


def _divisors(n: int, cap: int) -> list:
    return [d for d in range(1, min(n, cap) + 1) if n % d == 0]


def lanes_space(ni: int, nj: int, out: str, rows_in: str, cols_in: str, loops=("k", "i", "j"),
                max_ui: int = 64) -> Space:
    """Space over (ui, uj), divisors of the extents `ni` of loop i (<= max_ui) and `nj` of loop j.
    `loops`: the names of the reduction loop and the two output loops."""
    k, i, j = loops
    space = Space()
    space.choice("ui", _divisors(ni, max_ui), group="lanes")
    space.choice("uj", _divisors(nj, nj), group="lanes")

    def lanes(s, cfg):
        ui, uj = cfg["ui"], cfg["uj"]
        s.split(i, ui)
        s.split(j, uj)
        s.reorder(k, f"{i}.outer", f"{j}.outer", f"{i}.inner", f"{j}.inner")
        s.unroll(f"{i}.inner")
        s.unroll(f"{j}.inner")
        s.pipeline(f"{j}.outer")
        for buf, dim, f in ((out, 1, ui), (out, 2, uj), (rows_in, 1, ui), (cols_in, 2, uj)):
            if f > 1:
                s.partition(buf, "cyclic", dim=dim, factor=f)

    space.rule(lanes, name="lanes")
    return space


__all__ = ["lanes_space"]
