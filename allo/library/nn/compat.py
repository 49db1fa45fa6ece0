"""Upstream Allo's names and template lists for library kernels, so Allo programs run unchanged.

| name | template args | arguments -> result | same as |
|---|---|---|---|
| `linear2d` | `TX, TW, TO, M, N, K` (or `T, M, N, K`) | `X[M,K], W[N,K], b[N] -> [M,N]` | `linear` |
| `GeLU` | `T, L, D` | `X[L,D] -> [L,D]` (tanh form) | `gelu_tanh` |
| `layernorm` | `T, L, D` | `X[L,D], gamma[D], beta[D] -> [L,D]` (eps 1e-5) | `layer_norm` |
| `residual_add` | `T, L, D` | `X1[L,D], X2[L,D] -> [L,D]` | `add` |
| `relu2d`, `relu3d`, `relu4d` | `T, dims...` | `X -> X.shape` | `relu` |
| `maxpool2d`, `avgpool2d` | `T, B, C, H, W, K, Oh, Ow, S, P` | `X[B,C,H,W] -> [B,C,Oh,Ow]` | `max_pool2d`, `avg_pool2d` |
| `batchnorm2d` | `T, B, C, H, W` | `X, gamma, beta, eps, mean, var -> X.shape` | `batch_norm2d` |
| `batchnorm1d_2d`, `batchnorm1d_3d` | `T, B, C(, L)` | `X, gamma, beta, eps, mean, var -> X.shape` | |
| `repeat_batch3d` | `T, B, L, C, N` | `X[B,L,C] -> [N*B,L,C]` (`np.tile(X, (N, 1, 1))`) | |
| `softmax[T, D]` | `T, D` | `X[D,D] -> [D,D]` | `softmax[T, D, D]` |
| `conv2d` with 14 args | `T, B, Cin, Cout, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw` | `X, W, b -> [B,Cout,Oh,Ow]` | `conv2d` (dilation 1, groups 1) |
| `concat` with 5 args | `T, B, N1, N2, C` | `X1[B,N1,C], X2[B,N2,C] -> [B,N1+N2,C]` | `concat` on axis 1 |
| `RoPE` | `T, H, L, D` | `X[L,D], cos[L,D/H/2], sin[L,D/H/2] -> [L,D]` (heads side by side, halves rotated) | |
| `modulate_fused` | `T, L, D` | `X[L,D], scale[D], shift[D] -> X * (1 + scale) + shift` | |

Example::

    s = allo.customize(nn.linear2d, instantiate=[float32, float32, float32, 16, 32, 16])
"""
from __future__ import annotations

from .. import lang as allo  # the public names as kernel code spells them


def _schedule(*kernels):
    """Attach a predefined schedule (what `s.compose(kernel, ...)` applies). The aliases stay out of
    the registry that documents the library (docs/library.md lists allo's own names)."""
    def deco(fn):
        for k in kernels:
            k.schedule_fn = fn
        return fn

    return deco


def _delegate(wrapper, inner, targs):
    """A wrapper's schedule: the schedule of the library kernel it calls, on that instance."""
    @_schedule(wrapper)
    def schedule(s):
        s.compose(inner, instantiate=targs(list(s.targs)))

    return schedule
from .activations import gelu_tanh, relu
from .conv import conv2d
from .elementwise import add
from .norms import layer_norm, softmax
from .pool import avg_pool2d, max_pool2d
from .shape import concat


@allo.kernel(template="TX, TW, TO, M, N, K")
def linear2d(X: "TX[M, K]", W: "TW[N, K]", b: "TO[N]") -> "TO[M, N]":
    """`X @ W.T + b` accumulated in TO (PyTorch's weight layout)."""
    Z: TO[M, N]
    for i, j in allo.grid(M, N):
        acc: TO = b[j]
        for k in allo.reduction(K):
            acc += X[i, k] * W[j, k]
        Z[i, j] = acc
    return Z


@allo.kernel(template="T, M, N, K")
def linear2d_one_type(X: "T[M, K]", W: "T[N, K]", b: "T[N]") -> "T[M, N]":
    return linear2d[T, T, T, M, N, K](X, W, b)


@_schedule(linear2d)
def schedule_linear2d(s):
    s.pipeline("k")


@allo.kernel(template="T, L, D")
def GeLU(X: "T[L, D]") -> "T[L, D]":  # noqa: N802 - upstream Allo's name
    """GELU, tanh approximation (`nn.gelu_tanh`)."""
    return gelu_tanh[T, L, D](X)


@allo.kernel(template="T, L, D")
def layernorm(X: "T[L, D]", gamma: "T[D]", beta: "T[D]") -> "T[L, D]":
    """LayerNorm over the last axis with eps = 1e-5 (`nn.layer_norm`)."""
    return layer_norm[T, L, D](X, gamma, beta, 1e-5)


@allo.kernel(template="T, L, D")
def residual_add(X1: "T[L, D]", X2: "T[L, D]") -> "T[L, D]":
    """`X1 + X2`."""
    return add[T, L, D](X1, X2)


@allo.kernel(template="T, H, W")
def relu2d(X: "T[H, W]") -> "T[H, W]":
    """max(X, 0)."""
    return relu[T, H, W](X)


@allo.kernel(template="T, N, L, C")
def relu3d(X: "T[N, L, C]") -> "T[N, L, C]":
    """max(X, 0)."""
    Z: T[N, L, C]
    for n, i, c in allo.grid(N, L, C):
        Z[n, i, c] = max(X[n, i, c], 0)
    return Z


@allo.kernel(template="T, N, C, H, W")
def relu4d(X: "T[N, C, H, W]") -> "T[N, C, H, W]":
    """max(X, 0)."""
    Z: T[N, C, H, W]
    for n, c, h, w in allo.grid(N, C, H, W):
        Z[n, c, h, w] = max(X[n, c, h, w], 0)
    return Z


@_schedule(relu3d, relu4d)
def schedule_relu_nd(s):
    s.pipeline("c" if len(s.targs) == 4 else "w")


@allo.kernel(template="T, B, C, H, W, K, Oh, Ow, S, P")
def maxpool2d(X: "T[B, C, H, W]") -> "T[B, C, Oh, Ow]":
    """K x K max pooling, stride S, padding P (`nn.max_pool2d`)."""
    return max_pool2d[T, B, C, H, W, K, K, Oh, Ow, S, S, P, P](X)


@allo.kernel(template="T, B, C, H, W, K, Oh, Ow, S, P")
def avgpool2d(X: "T[B, C, H, W]") -> "T[B, C, Oh, Ow]":
    """K x K average pooling (padding counts), stride S, padding P (`nn.avg_pool2d`)."""
    return avg_pool2d[T, B, C, H, W, K, K, Oh, Ow, S, S, P, P](X)


@allo.kernel(template="T, B, C, H, W")
def batchnorm2d(X: "T[B, C, H, W]", gamma: "T[C]", beta: "T[C]", eps: "T", mean: "T[C]",
                var: "T[C]") -> "T[B, C, H, W]":
    """Inference BatchNorm2d in upstream Allo's argument order, computed in the order of its formula
    `(x - mean) / sqrt(var + eps) * gamma + beta` (so results match references written that way)."""
    Z: T[B, C, H, W]
    for n, c, h, w in allo.grid(B, C, H, W):
        Z[n, c, h, w] = (X[n, c, h, w] - mean[c]) / allo.sqrt(var[c] + eps) * gamma[c] + beta[c]
    return Z


@allo.kernel(template="T, B, C")
def batchnorm1d_2d(X: "T[B, C]", gamma: "T[C]", beta: "T[C]", eps: "T", mean: "T[C]", var: "T[C]") -> "T[B, C]":
    """Inference BatchNorm1d on [B, C]: `(x - mean) / sqrt(var + eps) * gamma + beta`."""
    Z: T[B, C]
    for b, c in allo.grid(B, C):
        Z[b, c] = (X[b, c] - mean[c]) / allo.sqrt(var[c] + eps) * gamma[c] + beta[c]
    return Z


@allo.kernel(template="T, B, C, L")
def batchnorm1d_3d(X: "T[B, C, L]", gamma: "T[C]", beta: "T[C]", eps: "T", mean: "T[C]",
                   var: "T[C]") -> "T[B, C, L]":
    """Inference BatchNorm1d on [B, C, L]."""
    Z: T[B, C, L]
    for b, c, i in allo.grid(B, C, L):
        Z[b, c, i] = (X[b, c, i] - mean[c]) / allo.sqrt(var[c] + eps) * gamma[c] + beta[c]
    return Z


@_schedule(batchnorm1d_2d, batchnorm1d_3d, batchnorm2d)
def schedule_batchnorm1d(s):
    s.pipeline({3: "c", 4: "i", 5: "w"}[len(s.targs)])


@allo.kernel(template="T, B, L, C, N")
def repeat_batch3d(X: "T[B, L, C]") -> "T[N * B, L, C]":
    """N copies of X stacked on the batch axis (`np.tile(X, (N, 1, 1))`)."""
    Z: T[N * B, L, C]
    for r, b, i, c in allo.grid(N, B, L, C):
        Z[r * B + b, i, c] = X[b, i, c]
    return Z


@_schedule(repeat_batch3d)
def schedule_repeat_batch3d(s):
    s.pipeline("c")


@allo.kernel(template="T, D")
def softmax_square(X: "T[D, D]") -> "T[D, D]":
    return softmax[T, D, D](X)


@allo.kernel(template="T, B, Cin, Cout, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw")
def conv2d_nodilation(X: "T[B, Cin, H, W]", Wt: "T[Cout, Cin, Kh, Kw]", b: "T[Cout]") -> "T[B, Cout, Oh, Ow]":
    return conv2d[T, B, Cin, Cout, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw, 1, 1, 1](X, Wt, b)


@allo.kernel(template="T, B, N1, N2, C")
def concat_rows(X1: "T[B, N1, C]", X2: "T[B, N2, C]") -> "T[B, N1 + N2, C]":
    return concat[T, (B, N1, C), (B, N2, C), 1](X1, X2)


@allo.kernel(template="T, H, L, D")
def RoPE(X: "T[L, D]", cos: "T[L, D // H // 2]", sin: "T[L, D // H // 2]") -> "T[L, D]":  # noqa: N802
    """Rotary position embedding of H heads laid side by side in X's rows (head h is columns
    h*D/H .. (h+1)*D/H): the head's halves x1, x2 become x1*cos - x2*sin and x1*sin + x2*cos."""
    Z: T[L, D]
    for h, i, j in allo.grid(H, L, D // H // 2, name="rope"):
        x1: T = X[i, h * (D // H) + j]
        x2: T = X[i, h * (D // H) + D // H // 2 + j]
        Z[i, h * (D // H) + j] = cos[i, j] * x1 - sin[i, j] * x2
        Z[i, h * (D // H) + D // H // 2 + j] = sin[i, j] * x1 + cos[i, j] * x2
    return Z


@_schedule(RoPE)
def schedule_RoPE(s):  # noqa: N802
    s.pipeline("rope/j")


@allo.kernel(template="T, L, D")
def modulate_fused(X: "T[L, D]", scale: "T[D]", shift: "T[D]") -> "T[L, D]":
    """Adaptive modulation (as in DiT blocks): `X * (1 + scale) + shift`, scale and shift per column."""
    Z: T[L, D]
    for i, j in allo.grid(L, D, name="m_fused"):
        Z[i, j] = X[i, j] * (1 + scale[j]) + shift[j]
    return Z


@_schedule(modulate_fused)
def schedule_modulate_fused(s):
    s.pipeline("m_fused/j")


# kernel[...] with the variant's number of template arguments instantiates the variant
for _primary, _variant in ((linear2d, linear2d_one_type), (softmax, softmax_square),
                           (conv2d, conv2d_nodilation), (concat, concat_rows)):
    _primary.add_variant(_variant)

_delegate(GeLU, gelu_tanh, lambda t: t)
_delegate(layernorm, layer_norm, lambda t: t)
_delegate(residual_add, add, lambda t: t)
_delegate(relu2d, relu, lambda t: t)
_delegate(maxpool2d, max_pool2d, lambda t: t[:6] + [t[5], t[6], t[7], t[8], t[8], t[9], t[9]])
_delegate(avgpool2d, avg_pool2d, lambda t: t[:6] + [t[5], t[6], t[7], t[8], t[8], t[9], t[9]])

__all__ = ["linear2d", "GeLU", "layernorm", "residual_add", "relu2d", "relu3d", "relu4d", "maxpool2d", "avgpool2d",
           "batchnorm2d", "batchnorm1d_2d", "batchnorm1d_3d", "repeat_batch3d", "RoPE", "modulate_fused",
           "schedule_modulate_fused"]
