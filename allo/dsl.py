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
        from .errors import AlloError

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


def _erf(x):
    return np.vectorize(math.erf)(x) if np.ndim(x) else math.erf(x)


exp, log, log2, sqrt, tanh, sin, cos = np.exp, np.log, np.log2, np.sqrt, np.tanh, np.sin, np.cos
floor, ceil = np.floor, np.ceil
abs = np.abs  # noqa: A001


def erf(x):
    """Error function (math.erf elementwise outside kernels)."""
    return _erf(x)


def rsqrt(x):
    """1 / sqrt(x)."""
    return 1.0 / np.sqrt(x)


def pow(x, y):  # noqa: A001
    return np.power(x, y)


def min(*args):  # noqa: A001
    return np.minimum(*args) if len(args) == 2 else np.min(args)


def max(*args):  # noqa: A001
    return np.maximum(*args) if len(args) == 2 else np.max(args)


def matmul(a, b):
    return np.matmul(a, b)


def transpose(a, axes=None):
    return np.transpose(a, axes)
