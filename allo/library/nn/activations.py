"""Pointwise activations on [M, N] arrays: relu, gelu (erf), gelu_tanh, silu, sigmoid, tanh, leaky_relu.

Any tensor can use them through a 2-D view [prod(shape[:-1]), shape[-1]] (see the conventions in
`allo.library.nn`). Each schedule pipelines the column loop `j` (II=1).

Example::

    Y = nn.gelu[float32, 8, 64](X)
"""
from __future__ import annotations

from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import output_size, parallel_rows

SQRT1_2 = 0.7071067811865476  # 1 / sqrt(2)
SQRT2_PI = 0.7978845608028654  # sqrt(2 / pi)


@allo.kernel(template="T, M, N")
def relu(X: "T[M, N]") -> "T[M, N]":
    """`max(x, 0)` (any numeric T)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = max(X[i, j], T(0))
    return Z


@allo.kernel(template="T, M, N")
def gelu(X: "T[M, N]") -> "T[M, N]":
    """`0.5 x (1 + erf(x / sqrt 2))`, torch's default (exact) GELU."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        x: T = X[i, j]
        Z[i, j] = 0.5 * x * (1.0 + allo.erf(x * SQRT1_2))
    return Z


@allo.kernel(template="T, M, N")
def gelu_tanh(X: "T[M, N]") -> "T[M, N]":
    """`0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`, torch's `approximate="tanh"`."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        x: T = X[i, j]
        Z[i, j] = 0.5 * x * (1.0 + allo.tanh(SQRT2_PI * (x + 0.044715 * x * x * x)))
    return Z


@allo.kernel(template="T, M, N")
def silu(X: "T[M, N]") -> "T[M, N]":
    """`x * sigmoid(x)` (SiLU / swish)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        x: T = X[i, j]
        Z[i, j] = x / (1.0 + allo.exp(-x))
    return Z


@allo.kernel(template="T, M, N")
def sigmoid(X: "T[M, N]") -> "T[M, N]":
    """`1 / (1 + exp(-x))`."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = 1.0 / (1.0 + allo.exp(-X[i, j]))
    return Z


@allo.kernel(template="T, M, N")
def tanh(X: "T[M, N]") -> "T[M, N]":
    """`tanh(x)`."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = allo.tanh(X[i, j])
    return Z


@allo.kernel(template="T, M, N")
def leaky_relu(X: "T[M, N]", slope: "T") -> "T[M, N]":
    """`x if x > 0 else slope * x` (torch.nn.functional.leaky_relu)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        x: T = X[i, j]
        Z[i, j] = x if x > T(0) else x * slope
    return Z


@schedule_for(relu, gelu, gelu_tanh, silu, sigmoid, tanh, leaky_relu)
def schedule_pointwise(s):
    s.pipeline("j")
    parallel_rows(s, "i", work=8 * output_size(s))
