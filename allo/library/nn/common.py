"""Compile-time helpers shared by the nn kernels and their schedules.

Kernels read `LOWEST[T]` (the most negative finite value of element type T, a Python number folded
at build time) where a max-reduction needs a start value. Schedules use `targ(s, "N")` to read a
template argument of the instance they schedule (conv2d builds line buffers only for 3x3 unit
stride). Shape functions (`SIZE[shape]`, `CAT[sa, sb, axis]`, ...) compute shapes of the
shape-tuple kernels at build time.

Example::

    mx: T = LOWEST[T]            # inside a kernel: -3.4028234663852886e38 for float32
"""
from __future__ import annotations

from ...errors import AlloTypeError, ScheduleError
from ...ir.types import lowest


class _Lowest:
    """`LOWEST[T]`: the most negative finite value of T (subscripted at kernel build time)."""

    def __getitem__(self, t):
        try:
            return lowest(t)
        except TypeError:
            raise TypeError(f"LOWEST: unsupported element type {t!r}") from None


LOWEST = _Lowest()


PARALLEL_MIN_WORK = 1 << 16  # below ~65K operations a thread fork costs more than it saves


def parallel_rows(s, *loops, work: int):
    """Mark `loops` parallel for the CPU build (OpenMP threads over rows / heads / channels; the
    HLS C++ ignores the mark) when the instance does at least PARALLEL_MIN_WORK operations
    (`work`, computed from the template arguments). A loop the parallel check cannot prove
    independent for this instance is left serial (the schedule records only marks that apply).

    Example::

        parallel_rows(s, "i", work=targ(s, "M") * targ(s, "N") * targ(s, "K"))
    """
    if work < PARALLEL_MIN_WORK:
        return
    for loop in loops:
        try:
            s.parallel(loop)
        except ScheduleError:
            pass


def output_size(s) -> int:
    """Number of elements of the first result of the instance that schedule `s` was built for."""
    shape = getattr(s.ir.func(s.top_func_name).result_types[0], "shape", ())
    return _size(shape)


def targ(s, name: str):
    """Template argument `name` of the kernel instance that schedule `s` was built for."""
    params = s.kernel.template_params
    if name not in params:
        raise ScheduleError(f"kernel {s.kernel.name!r} has no template parameter {name!r}")
    return s.targs[params.index(name)]


class _ShapeFn:
    """A compile-time shape function usable inside kernels and annotations: `F[a, b]` -> fn(a, b).

    Kernel code cannot call Python functions at build time, but subscripting a Python object is
    evaluated by the builder; shape-tuple templates (`reshape[T, (2, 3), (6,)]`) use these."""

    def __init__(self, fn, unpack=True):
        self.fn, self.unpack = fn, unpack
        self.__doc__ = fn.__doc__

    def __getitem__(self, key):
        return self.fn(*key) if self.unpack and isinstance(key, tuple) else self.fn(key)


def _size(shape):
    """Number of elements of `shape`."""
    n = 1
    for d in shape:
        n *= d
    return n


def _cat(sa, sb, axis):
    """Shape of concat(A[sa], B[sb], axis)."""
    return tuple(a + b if k == axis else a for k, (a, b) in enumerate(zip(sa, sb)))


def _sliced(shape, axis, start, stop, step):
    """Shape of X[shape] sliced start:stop:step along axis (stop clamped to the extent)."""
    n = max(0, -(-(min(stop, shape[axis]) - start) // step))
    return tuple(n if k == axis else d for k, d in enumerate(shape))


def _permuted(shape, perm):
    """Shape of X[shape].permute(perm)."""
    return tuple(shape[p] for p in perm)


def _replace(items, axis, value):
    """`items` (a tuple) with entry `axis` replaced by `value`."""
    return tuple(value if k == axis else x for k, x in enumerate(items))


def _insert(items, axis, value):
    """`items` (a tuple) with `value` inserted before position `axis`."""
    return tuple(items[:axis]) + (value,) + tuple(items[axis:])


def _drop(items, axis):
    """`items` without entry `axis`."""
    return tuple(x for k, x in enumerate(items) if k != axis)


def _out_size(n, k, stride, pad, dil, out):
    """`out` after checking it is torch's output extent `(n + 2*pad - dil*(k-1) - 1) // stride + 1`."""
    want = (n + 2 * pad - dil * (k - 1) - 1) // stride + 1
    if out != want or want < 1:
        raise AlloTypeError(f"output size {out} does not match the input size {n}, kernel {k}, stride {stride}, "
                            f"padding {pad}, dilation {dil}: (n + 2*pad - dil*(k-1) - 1) // stride + 1 = {want}")
    return out


RANK = _ShapeFn(len, unpack=False)
OUT_SIZE = _ShapeFn(_out_size)
SIZE = _ShapeFn(_size, unpack=False)
CAT = _ShapeFn(_cat)
SLICED = _ShapeFn(_sliced)
PERMUTED = _ShapeFn(_permuted)
REPLACE = _ShapeFn(_replace)
INSERT = _ShapeFn(_insert)
DROP = _ShapeFn(_drop)
