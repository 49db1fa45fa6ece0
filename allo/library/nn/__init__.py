"""`allo.library.nn`: neural-network kernels written in the allo DSL, each with a predefined schedule.

Every kernel is an allo template; instantiate it inside a kernel (or at top level) with its
template arguments and an optional instance id, and compose its schedule by that id:

    from allo.library import nn

    def mlp(X: float32[8, 16], W1: float32[32, 16], b1: float32[32]) -> float32[8, 32]:
        return nn.relu[float32, 8, 32](nn.linear[float32, 8, 32, 16, "1"](X, W1, b1))

    s = allo.customize(mlp)
    s.compose(nn.linear, id="1", instantiate=[float32, 8, 32, 16])
    s.compose(nn.relu, instantiate=[float32, 8, 32])

The full table (kernel, template arguments, arguments, schedule) is docs/library.md.
"""
from __future__ import annotations

from .activations import gelu, gelu_tanh, leaky_relu, relu, sigmoid, silu, tanh
from .attention import embedding, rope, scaled_dot_product_attention
from .conv import conv2d
from .elementwise import (abs, add, add_mid, add_outer, add_scalar, cast, clamp, div, div_mid, div_outer, div_scalar,
                          exp, log, maximum, minimum, mul, mul_mid, mul_outer, mul_scalar, neg, pow_int, pow_scalar,
                          rdiv_mid, rdiv_outer, rdiv_scalar, rsqrt, rsub_mid, rsub_outer, rsub_scalar, sqrt, sub,
                          sub_mid, sub_outer, sub_scalar)
from .intonly import iavg_pool2d, igelu, ilayer_norm, isoftmax
from .linear import bmm, linear, linear3d, matmul
from .norms import batch_norm2d, layer_norm, log_softmax, rms_norm, softmax
from .pool import avg_pool2d, global_avg_pool2d, max_pool2d
from .quant import qbmm, qconv2d, qlinear, qmatmul
from .reduce import amax, mean, sum
from .shape import concat, expand, permute, reshape, select, slice, transpose
from .compat import (GeLU, RoPE, avgpool2d, batchnorm1d_2d, batchnorm1d_3d, batchnorm2d, layernorm, linear2d,
                     maxpool2d, modulate_fused, relu2d, relu3d, relu4d, repeat_batch3d, residual_add,
                     schedule_modulate_fused)

CONVENTIONS = """
## Conventions

- **Shapes are template arguments** and must match exactly; allo arrays have no views. Element type
  `T` comes first; `eps` arguments are float32 scalars; scalar arguments typed `T` (e.g. the `s` of
  `add_scalar`, `lo`/`hi` of `clamp`) take Python numbers.
- **Pointwise kernels are 2-D** (`relu[T, M, N]`, `add[T, M, N]`, ...): a tensor of any rank is used
  through its row-major 2-D view `[prod(shape[:-1]), shape[-1]]` (a 1-D tensor as `[1, n]`).
  When a producer returns a different rank (conv2d returns `[B, C, H, W]`), `reshape` converts
  between views (a copy); a frontend keeps the torch shape next to each array and inserts it.
- **Broadcasting** reduces to four forms after merging adjacent axes (see `elementwise`):
  same shape, scalar, `*_mid` (`A[P, Q, R]` with `B[Q]`) and `*_outer` (`A[P, Q, R]` with
  `B[P, R]`); `expand` materialises any same-rank broadcast as a fallback.
- **Shape-tuple templates**: `reshape`, `permute`, `concat`, `slice`, `select`, `expand`, `sum`,
  `mean`, `amax` take whole shapes as tuples (`nn.reshape[float32, (2, 3, 4), (6, 4)]`), ranks
  1-4, non-negative axes. Reductions keep the reduced axis (keepdim=True).
- **conv2d / pools** take the output size as template arguments (`Oh, Ow`), computed as torch
  does: `(H + 2*Ph - Dh*(Kh-1) - 1) // Sh + 1`. The weight of conv2d is `[Cout, Cin // G, Kh, Kw]`.
- **Integer and fixed-point types** follow allo's bit-growth rules inside a kernel (an int8
  product is an exact int16, a Fixed(16, 8) product an exact Fixed(32, 16)); every store into a
  `T` array converts to T (integers wrap, fixed point floors and wraps), so accumulating in `T`
  wraps at T's width. The `q*` kernels (`qlinear`, `qmatmul`, `qbmm`, `qconv2d`) take separate
  input, weight, accumulator and output types `TI, TW, TA, TO` (e.g. int8 in, int32 accumulator
  and out). Transcendental kernels need a float `T`; their integer-only counterparts (`isoftmax`,
  `igelu`, `ilayer_norm`, `iavg_pool2d`, I-BERT-style) take integers and constants computed from the
  input scale by `allo.library.nn.intparams` (docs/quantization.md).
- **Schedules** are registered with `@schedule_for(kernel)` right after each kernel and are
  applied with `s.compose(nn.<kernel>, id=..., instantiate=[...])` or `kernel.schedule_fn(s)`.
"""

__all__ = [
    "relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "leaky_relu",
    "softmax", "log_softmax", "layer_norm", "rms_norm", "batch_norm2d",
    "linear", "linear3d", "matmul", "bmm", "qlinear", "qmatmul", "qbmm", "qconv2d",
    "isoftmax", "igelu", "ilayer_norm", "iavg_pool2d",
    "conv2d", "max_pool2d", "avg_pool2d", "global_avg_pool2d",
    "embedding", "scaled_dot_product_attention", "rope",
    "add", "sub", "mul", "div", "add_scalar", "sub_scalar", "mul_scalar", "div_scalar", "rsub_scalar", "rdiv_scalar",
    "add_mid", "sub_mid", "mul_mid", "div_mid", "rsub_mid", "rdiv_mid",
    "add_outer", "sub_outer", "mul_outer", "div_outer", "rsub_outer", "rdiv_outer",
    "exp", "log", "sqrt", "rsqrt", "neg", "abs", "pow_scalar", "pow_int", "clamp", "maximum", "minimum", "cast",
    "transpose", "permute", "reshape", "concat", "slice", "select", "expand", "sum", "mean", "amax",
    "CONVENTIONS",
]  # upstream Allo's names (linear2d, GeLU, maxpool2d, ...) are importable too: see compat.py
