"""Strided-view tracking and loop planning of the PyTorch frontend (pure Python, no MLIR)."""
import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from allo.frontend.layout import Buf, View, plan_loops  # noqa: E402


def _run_plan(view, sizes, splits=()):
    """Evaluate the planned index expressions: the values the loop nest reads, in loop order."""
    extents, names, (idx,) = plan_loops(sizes, [view], splits)
    data = np.arange(int(np.prod(view.buf.shape))).reshape(view.buf.shape)
    out = []
    for point in itertools.product(*(range(e) for e in extents)):
        env = dict(zip(names, point))
        out.append(data[tuple(eval(e, {}, env) for e in idx)])  # noqa: S307
    return np.array(out), idx


def _expected(view):
    base = torch.arange(int(np.prod(view.buf.shape)))
    return torch.as_strided(base, view.sizes, view.strides, view.offset).reshape(-1).numpy()


CASES = [
    # (physical shape, list of view ops)
    ((16, 48), [("reshape", (2, 8, 3, 16)), ("select", 2, 0), ("permute", (0, 2, 1))]),
    ((16, 48), [("reshape", (2, 8, 48)), ("slice", 2, 16, 32), ("reshape", (2, 8, 4, 4)), ("transpose", 1, 2)]),
    ((2, 8, 32), [("reshape", (2, 8, 4, 8)), ("transpose", 1, 2), ("transpose", -2, -1)]),
    ((6, 4), [("transpose", 0, 1)]),
    ((4, 6), [("reshape", (6, 4))]),
    ((8,), [("unsqueeze", 0), ("expand", (3, 8))]),
    ((8, 8), [("slice", 0, 0, 8, 2), ("slice", 1, 1, 8, 3)]),
    ((2, 4, 6, 6), [("permute", (0, 2, 3, 1))]),
    ((24,), [("reshape", (2, 3, 4)), ("permute", (2, 0, 1))]),
    ((3, 8, 2, 16), [("select", 0, 1), ("reshape", (8, 4, 8)), ("transpose", 0, 1)]),
    ((1, 1, 8, 8), [("slice", 2, 0, 5), ("slice", 3, 0, 5), ("squeeze", None)]),
]


@pytest.mark.parametrize("phys,ops", CASES)
def test_views_match_torch_strides(phys, ops):
    v = View.whole(Buf("X", phys, None))
    t = torch.arange(int(np.prod(phys))).reshape(phys)
    for op, *args in ops:
        if op == "reshape":
            nv = v.reshape(args[0])
            assert nv is not None
            v, t = nv, t.view(args[0])
        elif op == "squeeze":
            v, t = v.squeeze(), t.squeeze()
        elif op == "slice":
            d, a, b, *st = args
            v, t = v.slice(*args), t[(slice(None),) * d + (slice(a, b, st[0] if st else 1),)]
        else:
            v, t = getattr(v, op)(*args), getattr(t, op)(*args)
        assert v.sizes == tuple(t.shape) and v.strides == t.stride() and v.offset == t.storage_offset()
    got, idx = _run_plan(v, v.sizes)
    np.testing.assert_array_equal(got, t.reshape(-1).numpy())


def test_affine_when_shapes_nest():
    v = View.whole(Buf("X", (16, 48), None)).reshape((2, 8, 3, 16)).select(2, 1).permute((0, 2, 1))
    _, idx = _run_plan(v, v.sizes)
    assert not any("//" in e or "%" in e for e in idx)


def test_non_viewable_reshape_returns_none():
    v = View.whole(Buf("X", (4, 6), None)).transpose(0, 1)
    assert v.reshape((24,)) is None
    assert v.reshape((6, 2, 2)) is not None


def test_reduction_split_keeps_boundary():
    v = View.whole(Buf("X", (2, 8, 16), None))
    extents, names, (idx,) = plan_loops(v.sizes, [v], splits=[(16, 16)])
    assert np.prod(extents[:1]) == 16 or np.prod(extents[:2]) == 16


def test_random_view_chains_match_torch():
    rng = np.random.default_rng(0)
    for _ in range(200):
        phys = tuple(int(x) for x in rng.choice([1, 2, 3, 4, 6], size=rng.integers(1, 4)))
        v = View.whole(Buf("X", phys, None))
        t = torch.arange(int(np.prod(phys))).reshape(phys)
        for _ in range(rng.integers(1, 5)):
            op = rng.choice(["permute", "slice", "reshape", "unsqueeze", "select"])
            if op == "permute" and t.dim() > 1:
                p = [int(x) for x in rng.permutation(t.dim())]
                v, t = v.permute(p), t.permute(*p)
            elif op == "slice" and t.dim() and t.shape[0] > 1:
                d = int(rng.integers(t.dim()))
                if t.shape[d] > 1:
                    v, t = v.slice(d, 1, t.shape[d]), t[(slice(None),) * d + (slice(1, None),)]
            elif op == "reshape" and t.is_contiguous():
                shape = (int(np.prod(t.shape)),)
                v, t = v.reshape(shape), t.reshape(shape)
            elif op == "unsqueeze":
                d = int(rng.integers(t.dim() + 1))
                v, t = v.unsqueeze(d), t.unsqueeze(d)
            elif op == "select" and t.dim() > 1:
                d = int(rng.integers(t.dim()))
                v, t = v.select(d, 0), t.select(d, 0)
        assert v.sizes == tuple(t.shape) and v.strides == t.stride() and v.offset == t.storage_offset()
        if t.numel() > 1:
            got, _ = _run_plan(v, v.sizes)
            np.testing.assert_array_equal(got, t.reshape(-1).numpy())
