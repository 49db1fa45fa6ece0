"""Names used inside kernel bodies (`allo.grid`, `allo.exp`, ...).

Inside a kernel the builder translates calls of these objects; called from plain Python they
behave like their numpy counterparts, so helper code can share them.

Example::

    for i, j in allo.grid(4, 8):      # a band of two loops, named S_i_j_<n>
        C[i, j] = allo.exp(A[i, j])
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..errors import AlloError


def grid(*extents, name=None):
    """A band of nested loops over `extents` (outermost first); `name=` names the band
    (`s.get_loops().<name>`, default `S_<ivs>_<n>`)."""
    return itertools.product(*(range(e) for e in extents)) if len(extents) > 1 else range(extents[0])


def reduction(*extents, name=None):
    """Like grid, marking reduction loops."""
    return itertools.product(*(range(e) for e in extents)) if len(extents) > 1 else range(extents[0])


class _Meta:
    """`with allo.meta_if(cond):` & co. are compile-time control flow inside kernels; the builder
    reads them from the source, so entering one from plain Python is an error."""

    def __init__(self, name, *args):
        self.name = name

    def __enter__(self):
        raise AlloError(f"allo.{self.name} is compile-time control flow for kernel bodies; it cannot run as "
                        f"plain Python (build the kernel with allo.customize)")

    def __exit__(self, *exc):
        return False


def meta_if(cond):
    """Compile-time `if` in kernels: `with allo.meta_if(T == int8): ...` keeps the body only when true."""
    return _Meta("meta_if", cond)


def meta_elif(cond):
    """Compile-time `elif`, directly after a `with allo.meta_if(...)` block."""
    return _Meta("meta_elif", cond)


def meta_else():
    """Compile-time `else`, directly after a `with allo.meta_if(...)`/`meta_elif` block."""
    return _Meta("meta_else")


def meta_for(*bounds):
    """Compile-time loop: `with allo.meta_for(n) as i:` repeats the body with i = 0..n-1 (unrolled)."""
    return _Meta("meta_for", *bounds)


def get_pid():
    """The compile-time position of this instance in its kernel's `mapping` grid, inside an
    `allo.dataflow` kernel: `i, j = df.get_pid()` on a 2-D mapping, `p = df.get_pid()` on a 1-D one."""
    raise AlloError("get_pid() gives the grid position of a df.kernel instance; it only has a meaning inside a "
                    "kernel of an allo.dataflow region (build the region with df.build or df.customize)")


def _erf(x):
    return np.vectorize(math.erf)(x) if np.ndim(x) else math.erf(x)


# ----------------------------------------------------------------------------- math (elementwise)
# Outside kernels these are numpy; inside, the builder emits loops. `name=` names the band of the
# loops an array operand creates (upstream Allo's keyword).
def exp(x, name=None):
    return np.exp(x)


def log(x, name=None):
    return np.log(x)


def log2(x, name=None):
    return np.log2(x)


def log10(x, name=None):
    return np.log10(x)


def sqrt(x, name=None):
    return np.sqrt(x)


def tanh(x, name=None):
    return np.tanh(x)


def sin(x, name=None):
    return np.sin(x)


def cos(x, name=None):
    return np.cos(x)


def tan(x, name=None):
    return np.tan(x)


def floor(x, name=None):
    return np.floor(x)


def ceil(x, name=None):
    return np.ceil(x)


def abs(x, name=None):  # noqa: A001
    return np.abs(x)


def erf(x, name=None):
    """Error function (math.erf elementwise outside kernels)."""
    return _erf(x)


def rsqrt(x, name=None):
    """1 / sqrt(x)."""
    return 1.0 / np.sqrt(x)


def pow(x, y, name=None):  # noqa: A001
    return np.power(x, y)


def power(x, y, name=None):
    return np.power(x, y)


def min(*args):  # noqa: A001
    return np.minimum(*args) if len(args) == 2 else np.min(args)


def max(*args):  # noqa: A001
    return np.maximum(*args) if len(args) == 2 else np.max(args)


# ----------------------------------------------------------------------------- whole-array operations
def add(lhs, rhs, name=None):
    return np.add(lhs, rhs)


def sub(lhs, rhs, name=None):
    return np.subtract(lhs, rhs)


def mul(lhs, rhs, name=None):
    return np.multiply(lhs, rhs)


def div(lhs, rhs, name=None):
    return np.divide(lhs, rhs)


def copy(x, name=None):
    return np.copy(x)


def matmul(lhs, rhs, name=None):
    return np.matmul(lhs, rhs)


def bmm(lhs, rhs, name=None):
    return np.einsum("ijk,ikn->ijn", lhs, rhs)


def linear(X, A, bias=None, name=None):
    """X @ A.T (+ bias), with A in PyTorch's [out, in] layout."""
    out = np.matmul(X, np.swapaxes(A, -1, -2))
    return out if bias is None else out + bias


def transpose(x, axes=None, name=None):
    return np.transpose(x, axes)


def relu(x, name=None):
    return np.maximum(x, 0)


def gelu(x, name=None):
    """The tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def softmax(x, name=None):
    """Softmax over the last axis."""
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def layernorm(x, gamma=1.0, beta=0.0, eps=1e-5, name=None):
    """Normalise over the last axis: gamma * (x - mean) / sqrt(var + eps) + beta."""
    mean = np.mean(x, axis=-1, keepdims=True)
    return gamma * (x - mean) / np.sqrt(np.var(x, axis=-1, keepdims=True) + eps) + beta


def _windows(inp, kh, kw):
    view = tuple(inp.shape[:2]) + (inp.shape[2] - kh + 1, inp.shape[3] - kw + 1, kh, kw)
    return np.lib.stride_tricks.as_strided(inp, view, inp.strides + inp.strides[2:])


def conv2d(inp, filter, name=None):  # noqa: A002 - Allo's name
    """Valid 2-D convolution, stride 1: [N, C, H, W] x [F, C, Kh, Kw] -> [N, F, H-Kh+1, W-Kw+1]."""
    return np.einsum("fcij,nchwij->nfhw", filter, _windows(inp, *filter.shape[2:]))


def maxpool(inp, filter, name=None):  # noqa: A002
    """Max over windows of filter's last two dims, stride 1."""
    return np.max(_windows(inp, *np.shape(filter)[-2:]), axis=(4, 5))


def sumpool(inp, filter, name=None):  # noqa: A002
    """Sum over windows of filter's last two dims, stride 1."""
    return np.sum(_windows(inp, *np.shape(filter)[-2:]), axis=(4, 5))


def view(x, shape, name=None):
    return np.reshape(x, shape)


def tril(x, name=None):
    return np.tril(x)


def concat(x, y, axis=0, name=None):
    return np.concatenate((x, y), axis=axis)


def ones(shape, dtype=None):
    return np.ones(shape, dtype=getattr(dtype, "np_dtype", dtype))


def zeros(shape, dtype=None):
    return np.zeros(shape, dtype=getattr(dtype, "np_dtype", dtype))


__all__ = [
    "grid", "reduction", "meta_if", "meta_elif", "meta_else", "meta_for", "exp", "log", "log2", "log10",
    "sqrt", "tanh", "sin", "cos", "tan", "floor", "ceil", "abs", "erf", "rsqrt",
    "pow", "power", "min", "max", "add", "sub", "mul", "div", "copy", "matmul",
    "bmm", "linear", "transpose", "relu", "gelu", "softmax", "layernorm", "conv2d", "maxpool", "sumpool",
    "view", "tril", "concat", "ones", "zeros", "get_pid",
]
