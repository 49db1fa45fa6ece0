"""Strided views of DSL arrays, and the loop nests that read/write them.

The frontend tracks every torch tensor as a `View` of a DSL array (`Buf`): sizes, strides and an
offset in elements, exactly like torch's own metadata. view/reshape/permute/transpose/select/slice/
expand/squeeze/unsqueeze only change the metadata (no code). Data moves only when a kernel needs its
operand as an array of a given shape, or when an elementwise loop reads a view: `plan_loops` then
builds a loop nest whose index expressions are affine in the loop variables whenever possible.

Example::

    x = View.whole(Buf("linear", (16, 48), float32))           # torch [16, 48]
    q = x.reshape((2, 8, 3, 16)).select(2, 0).permute((0, 2, 1))  # [2, 16, 8], no code
    extents, idx = plan_loops(q.sizes, [q])                    # loops + "linear[...]" indices
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import FrontendError


def contiguous_strides(shape) -> tuple:
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


def numel(shape) -> int:
    return math.prod(shape)


@dataclass(eq=False)
class Buf:
    """A DSL array variable: its name in the generated source, shape and allo element type."""

    name: str
    shape: tuple
    dtype: object
    kind: str = "local"  # "input", "local", "const"


@dataclass(frozen=True, eq=False)
class View:
    """A torch tensor as a strided window onto `buf` (strides/offset in elements)."""

    buf: Buf
    sizes: tuple
    strides: tuple
    offset: int = 0

    @staticmethod
    def whole(buf: Buf, sizes=None) -> "View":
        sizes = tuple(buf.shape) if sizes is None else tuple(sizes)
        if numel(sizes) != numel(buf.shape):
            raise FrontendError(f"internal: view {list(sizes)} of {buf.name}{list(buf.shape)} has a different size")
        return View(buf, sizes, contiguous_strides(sizes), 0)

    @property
    def dtype(self):
        return self.buf.dtype

    @property
    def rank(self):
        return len(self.sizes)

    def is_whole(self) -> bool:
        """True if the view is the whole array in row-major order (any shape)."""
        if self.offset != 0 or numel(self.sizes) != numel(self.buf.shape):
            return False
        expect = contiguous_strides(self.sizes)
        return all(n == 1 or s == e for n, s, e in zip(self.sizes, self.strides, expect))

    # ---------------------------------------------------------------- metadata-only ops
    def _dim(self, d):
        r = max(self.rank, 1)
        if not -r <= d < r:
            raise FrontendError(f"dimension {d} out of range for a tensor of rank {self.rank}")
        return d % r

    def reshape(self, sizes) -> "View | None":
        """The view with new `sizes`, or None if torch would need a copy (non-viewable strides)."""
        sizes = tuple(sizes)
        if numel(sizes) != numel(self.sizes):
            raise FrontendError(f"internal: cannot reshape {list(self.sizes)} to {list(sizes)}")
        strides = _compute_stride(self.sizes, self.strides, sizes)
        return None if strides is None else View(self.buf, sizes, tuple(strides), self.offset)

    def permute(self, dims) -> "View":
        dims = [self._dim(d) for d in dims]
        return View(self.buf, tuple(self.sizes[d] for d in dims), tuple(self.strides[d] for d in dims), self.offset)

    def transpose(self, a, b) -> "View":
        dims = list(range(self.rank))
        a, b = self._dim(a), self._dim(b)
        dims[a], dims[b] = dims[b], dims[a]
        return self.permute(dims)

    def select(self, dim, i) -> "View":
        dim = self._dim(dim)
        i = i + self.sizes[dim] if i < 0 else i
        return View(self.buf, self.sizes[:dim] + self.sizes[dim + 1:], self.strides[:dim] + self.strides[dim + 1:],
                    self.offset + i * self.strides[dim])

    def slice(self, dim, start, end, step=1) -> "View":
        dim = self._dim(dim)
        n = self.sizes[dim]
        start, end, _ = slice(start, end, step).indices(n)
        length = max(0, -(-(end - start) // step))
        return View(self.buf, self.sizes[:dim] + (length,) + self.sizes[dim + 1:],
                    self.strides[:dim] + (self.strides[dim] * step,) + self.strides[dim + 1:],
                    self.offset + start * self.strides[dim])

    def unsqueeze(self, dim) -> "View":
        dim = dim % (self.rank + 1)
        inner = self.strides[dim] * self.sizes[dim] if dim < self.rank else 1
        return View(self.buf, self.sizes[:dim] + (1,) + self.sizes[dim:], self.strides[:dim] + (inner,) + self.strides[dim:],
                    self.offset)

    def squeeze(self, dims=None) -> "View":
        dims = range(self.rank) if dims is None else [self._dim(d) for d in dims]
        keep = [d for d in range(self.rank) if not (d in dims and self.sizes[d] == 1)]
        return View(self.buf, tuple(self.sizes[d] for d in keep), tuple(self.strides[d] for d in keep), self.offset)

    def expand(self, sizes) -> "View":
        sizes = tuple(sizes)
        lead = len(sizes) - self.rank
        old_sizes = (1,) * lead + self.sizes
        old_strides = (0,) * lead + self.strides
        new_strides = []
        for n_new, n_old, s in zip(sizes, old_sizes, old_strides):
            if n_new == -1 or n_new == n_old:
                new_strides.append(s)
            elif n_old == 1:
                new_strides.append(0)
            else:
                raise FrontendError(f"cannot expand a dimension of size {n_old} to {n_new}")
        sizes = tuple(o if n == -1 else n for n, o in zip(sizes, old_sizes))
        return View(self.buf, sizes, tuple(new_strides), self.offset)


def _compute_stride(oldshape, oldstride, newshape):
    """torch's computeStride: strides of a view of a strided tensor, or None when not viewable."""
    if not oldshape:
        return list(contiguous_strides(newshape))
    if numel(oldshape) == 0:
        return list(contiguous_strides(newshape))
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base = oldstride[-1]
    tensor_numel = view_numel = 1
    for tensor_d in reversed(range(len(oldshape))):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and oldstride[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = oldstride[tensor_d - 1]
                tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return newstride


def view_window(array, view: View):
    """The elements of `view` in the (flat, contiguous) numpy `array` holding its buffer."""
    flat = np.ascontiguousarray(array).reshape(-1)
    if not view.sizes:
        return flat[view.offset:view.offset + 1]
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[view.offset:], shape=view.sizes,
                                           strides=[s * item for s in view.strides], writeable=False)


def rank1(v: View) -> View:
    """Rank-0 views are planned as one-element rank-1 views."""
    return v if v.sizes else View(v.buf, (1,), (1,), v.offset)


# ---------------------------------------------------------------------------- loop planning
def _simplify(sizes, strides):
    """Drop size-1 dims and merge dims that are contiguous with their inner neighbour."""
    dims = [(n, s) for n, s in zip(sizes, strides) if n != 1]
    out = []
    for n, s in reversed(dims):
        if out and s == out[-1][1] * out[-1][0]:
            out[-1] = (out[-1][0] * n, out[-1][1])
        else:
            out.append((n, s))
    return list(reversed(out))


def _phys_split(dims, pshape):
    """Split (size, stride) dims where they cross a boundary of the physical array's dims, so
    that each loop moves along one physical dim (keeps the index affine without floordiv)."""
    pstrides = contiguous_strides(tuple(pshape))
    out = []
    for n, s in dims:
        pieces = []
        while True:
            j = next((j for j, ps in enumerate(pstrides) if ps <= s), None) if s else None
            if j is None or s % pstrides[j]:
                break
            q = s // pstrides[j]
            cap = pshape[j]
            if n * q <= cap or cap % q or n % (cap // q) or cap // q <= 1:
                break
            inner = cap // q
            pieces.append((inner, s))
            n, s = n // inner, s * inner
        out.append((n, s))
        out.extend(reversed(pieces))
    return out


def _refine(shapes):
    """Common refinement (row-major) of several shapes of equal size: the list of loop extents,
    outermost first, such that every shape's dims are products of consecutive loop extents.
    None if the shapes do not nest (e.g. [6, 4] vs [4, 6])."""
    total = numel(shapes[0]) if shapes else 1
    cuts = set()
    for shape in shapes:
        acc = 1
        for n in reversed(shape):
            acc *= n
            cuts.add(acc)
    cuts = sorted(c for c in cuts if c > 1)
    extents, prev = [], 1
    for c in cuts:
        if c % prev:
            return None
        extents.append(c // prev)
        prev = c
    if prev != total:
        return None
    return list(reversed(extents))


def _dim_terms(shape, strides, extents):
    """For each loop (outermost first), the (dim, coefficient) of `shape` it moves along with
    `strides`: returns per loop (dim index, element stride of one step)."""
    out = []
    inner_loop = [numel(extents[k + 1:]) for k in range(len(extents))]
    dims = [(d, n, s) for d, (n, s) in enumerate(zip(shape, strides)) if n != 1]
    inner_dim = {d: numel([n for (dd, n, _) in dims if dd > d]) for d, _, _ in dims}
    for k, ext in enumerate(extents):
        pos = inner_loop[k]
        for d, n, s in dims:
            lo = inner_dim[d]
            if lo <= pos < lo * n:
                out.append((d, s * (pos // lo)))
                break
        else:  # pragma: no cover - refinement guarantees a dim
            raise FrontendError("internal: loop does not fall in a dimension")
    return out


class LoopPlan:
    """A loop nest over `extents` (outermost first) with index strings for each planned view."""

    def __init__(self, extents, names):
        self.extents = list(extents)
        self.names = list(names)


def plan_loops(sizes, views, splits=(), prefix="i"):
    """Plan one loop nest that walks logical `sizes` in row-major order and index every view
    (each has the same logical sizes). `splits` are extra shapes whose dim boundaries loops must
    respect (e.g. (kept, reduced) for reductions). Returns (extents, loop var names, [index tuple
    strings per view]). Index expressions are affine sums of loop variables; when the shapes do not
    nest they fall back to floordiv/mod of the flat index (still affine, just slower)."""
    for v in views:
        if tuple(v.sizes) != tuple(sizes):
            raise FrontendError(f"internal: view of sizes {list(v.sizes)} planned over {list(sizes)}")
    shapes = [tuple(n for n in s if n != 1) for s in splits]
    simple = [_phys_split(_simplify(v.sizes, v.strides), v.buf.shape) for v in views]
    shapes += [tuple(n for n, _ in s) for s in simple]
    extents = _refine([s for s in shapes if s]) if numel(sizes) > 1 else []
    if extents is not None:
        names = [f"{prefix}{k}" for k in range(len(extents))]
        indices = [_affine_index(v, s, extents, names) for v, s in zip(views, simple)]
        if all(ix is not None for ix in indices):
            return extents, names, indices
    # fallback: loop over the logical sizes and compute every index from the flat position
    extents = [n for n in sizes if n != 1] or []
    names = [f"{prefix}{k}" for k in range(len(extents))]
    flat = _flat_expr(extents, names)
    return extents, names, [_divmod_index(v, flat) for v in views]


def _affine_index(view, simple, extents, names):
    """Index strings into view.buf for loops `extents`, or None if some index is not a plain sum."""
    pshape = tuple(view.buf.shape)
    pstrides = contiguous_strides(pshape)
    terms = [[] for _ in pshape]
    consts = [(view.offset // ps) % pn for ps, pn in zip(pstrides, pshape)]
    if simple:
        loop_dims = _dim_terms([n for n, _ in simple], [s for _, s in simple], extents)
    else:
        loop_dims = []
    spans = [c for c in consts]
    for (d, step), ext, name in zip(loop_dims, extents, names):
        if step == 0:
            continue
        j = next((j for j, ps in enumerate(pstrides) if ps <= step), None)
        if j is None or step % pstrides[j]:
            return None
        q = step // pstrides[j]
        terms[j].append((name, q))
        spans[j] += (ext - 1) * q
    if any(span > pn - 1 for span, pn in zip(spans, pshape)):
        return None  # a loop would carry into the next physical dim
    return tuple(_sum_expr(t, c) for t, c in zip(terms, consts))


def _sum_expr(terms, const):
    parts = [name if q == 1 else f"{name} * {q}" for name, q in terms]
    if const or not parts:
        parts.append(str(const))
    return " + ".join(parts)


def _flat_expr(extents, names):
    inner = [numel(extents[k + 1:]) for k in range(len(extents))]
    parts = [n if m == 1 else f"{n} * {m}" for n, m in zip(names, inner)]
    return " + ".join(parts) if parts else "0"


def _divmod_index(view, flat):
    src = [str(view.offset)] if view.offset else []
    inner = 1
    for n, s in reversed(list(zip(view.sizes, view.strides))):
        if n != 1 and s != 0:
            src.append(f"(({flat}) // {inner}) % {n} * {s}" if inner != 1 else f"(({flat}) % {n}) * {s}")
        inner *= n
    src_expr = " + ".join(src) if src else "0"
    pshape = tuple(view.buf.shape)
    pstrides = contiguous_strides(pshape)
    out = []
    for ps, pn in zip(pstrides, pshape):
        if pn == 1:
            out.append("0")
        elif ps == 1:
            out.append(f"({src_expr}) % {pn}")
        else:
            out.append(f"(({src_expr}) // {ps}) % {pn}")
    return tuple(out)
