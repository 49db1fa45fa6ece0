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
    """A band of nested loops over `extents` (outermost first)."""
    return itertools.product(*(range(e) for e in extents))


def reduction(*extents, name=None):
    """Like grid, marking reduction loops."""
    return itertools.product(*(range(e) for e in extents)) if len(extents) > 1 else range(extents[0])


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
