"""hls4ml-like precision configs for `from_pytorch(..., precision=...)`, resolved per graph node.

A precision is one of:

- `None`, `"float32"`: the float model (no quantization);
- `"int8"` (or `"int4"`..`"int16"`): symmetric integers: per-channel weight scales, per-tensor
  activation scales from calibration, int32 accumulation (int64 above 8 bits), integer requantization
  (multiply + shift) between layers;
- `Fixed(bits, frac)`: that fixed-point type for activations and weights, an exact accumulator;
- `"fixed16"` (`"fixed"`; `"fixed4"`..`"fixed32"`): fixed point of that width, the integer bits of
  each tensor sized from its calibrated range;
- `"auto"`: int8 where calibration says int8 loses little, else 16-bit fixed point with the integer
  bits the observed range needs;
- a dict `{"weight": ..., "activation": ..., "accum": ...}` of the above per tensor role;
- a dict per op kind and/or layer name, with "default" for the rest:
  `{"default": "int8", "linear": Fixed(16, 6), "fc2": "float32"}` (layer name beats op kind beats
  default; layers not named keep the default, float32 when there is no "default").

Example::

    cfg = PrecisionConfig({"linear": "int8", "relu": Fixed(16, 6)})
    cfg.for_node(tn)        # LayerPrecision(family='int', ...) for a linear node
"""
from __future__ import annotations

import difflib
import math
from dataclasses import dataclass

from ...errors import FrontendError
from ...ir.types import Fixed, Float, Int

# op kinds with a quantized kernel (nn.qlinear / qmatmul / qbmm / qconv2d)
COMPUTE_KINDS = ("linear", "conv", "matmul")
# op kinds that compute in a fixed-point type when given one, and pass int8 values through unchanged
# (relu and max pooling commute with a positive scale)
FIXED_KINDS = ("relu", "max_pool", "add", "sub")
INT_TRANSPARENT_KINDS = ("relu", "max_pool")
# ops that only move data: quantized values pass through them with their type and scale
LAYOUT_OPS = frozenset("aten." + n for n in (
    "dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout", "native_dropout", "contiguous", "clone",
    "alias", "detach", "view", "reshape", "_unsafe_view", "view_as", "reshape_as", "flatten", "unflatten", "view_copy",
    "permute", "permute_copy", "movedim", "transpose", "swapaxes", "swapdims", "t", "numpy_T", "unsqueeze", "squeeze",
    "expand", "expand_as", "broadcast_to", "expand_copy", "select", "slice", "slice_copy", "narrow", "split",
    "split_with_sizes", "chunk", "unbind")) | {"getitem", "allo.folded_batch_norm"}
KIND_ALIASES = {"addmm": "linear", "dense": "linear", "conv1d": "conv", "conv2d": "conv", "convolution": "conv",
                "_convolution": "conv", "mm": "matmul", "bmm": "matmul", "max_pool1d": "max_pool",
                "max_pool2d": "max_pool", "max_pool2d_with_indices": "max_pool", "max_pool1d_with_indices": "max_pool",
                "maxpool": "max_pool", "add_": "add", "relu_": "relu"}
ROLE_ALIASES = {"weight": "weight", "weights": "weight", "activation": "act", "activations": "act", "result": "act",
                "output": "act", "act": "act", "accum": "accum", "accumulator": "accum", "acc": "accum"}


@dataclass(frozen=True)
class LayerPrecision:
    """The precision of one node: family "float", "int", "fixed" or "auto", and for "int" the bit
    width; for "fixed" the weight/activation/accumulator types (None: derived)."""

    family: str
    bits: int = 8
    weight: object = None
    act: object = None
    accum: object = None

    @property
    def quantized(self) -> bool:
        return self.family != "float"

    def describe(self) -> str:
        if self.family == "int":
            return f"int{self.bits}"
        if self.family == "float":
            return "float32"
        if self.family == "fixed":
            return f"fixed {self.act!r}" if self.act is not None else f"fixed{self.bits} (ranges)"
        return self.family


FLOAT = LayerPrecision("float")


def op_kind(op_key: str) -> str:
    """`aten.linear` -> "linear", `aten.conv2d` -> "conv", `aten.bmm` -> "matmul"."""
    name = op_key.split(".", 1)[-1]
    return KIND_ALIASES.get(name, name)


def parse_precision(spec, where="precision") -> LayerPrecision:
    """One precision value (not a per-layer dict) as a LayerPrecision."""
    if spec is None:
        return FLOAT
    if isinstance(spec, str):
        s = spec.strip().lower()
        if s in ("float32", "float", "fp32"):
            return FLOAT
        if s == "auto":
            return LayerPrecision("auto")
        if s.startswith("int") and s[3:].isdigit() and 2 <= int(s[3:]) <= 16:
            return LayerPrecision("int", int(s[3:]))
        if s == "fixed" or (s.startswith("fixed") and s[5:].isdigit() and 4 <= int(s[5:]) <= 32):
            return LayerPrecision("fixed", int(s[5:] or 16))  # types sized from the calibrated ranges
        raise FrontendError(f"{where}: unknown precision {spec!r}; use 'int8' (int2..int16), 'fixed16' (fixed4.."
                            "fixed32), 'auto', 'float32', Fixed(bits, frac) or a dict")
    if isinstance(spec, Fixed):
        return LayerPrecision("fixed", weight=_storable(spec, where), act=spec)
    if isinstance(spec, Int) and 2 <= spec.bits <= 16:
        return LayerPrecision("int", spec.bits)
    if isinstance(spec, Float) and spec.bits == 32:
        return FLOAT
    if isinstance(spec, dict) and spec and all(k in ROLE_ALIASES for k in spec):
        return _roles(spec, where)
    raise FrontendError(f"{where}: cannot use {spec!r} as a precision; use 'int8', 'auto', 'float32', "
                        "Fixed(bits, frac) or {'weight': ..., 'activation': ..., 'accum': ...}")


MAX_QUANT_BITS = 64  # weights, activations and accumulators are stored in numpy's 64-bit integers


def _storable(t, where):
    if t.bits > MAX_QUANT_BITS:
        kind = f"Fixed({MAX_QUANT_BITS}, f)" if isinstance(t, Fixed) else f"int{MAX_QUANT_BITS}"
        raise FrontendError(f"{where}: {t!r} is wider than {MAX_QUANT_BITS} bits; a quantized model's weights, "
                            f"activations and accumulators are at most {MAX_QUANT_BITS} bits (e.g. {kind} or narrower)")
    return t


def _roles(spec: dict, where) -> LayerPrecision:
    roles = {ROLE_ALIASES[k]: v for k, v in spec.items()}
    types = {}
    for role, v in roles.items():
        if isinstance(v, str) and v.lower().startswith("int") and v[3:].isdigit():
            v = Int(int(v[3:]))
        types[role] = v
    for key in spec:
        t = types[ROLE_ALIASES[key]]
        if isinstance(t, (Fixed, Int)):
            _storable(t, f"{where}[{key!r}]")
    kinds = {type(t).__name__ for r, t in types.items() if r != "accum"}
    if kinds == {"Int"}:
        bits = {t.bits for r, t in types.items() if r != "accum"}
        if len(bits) != 1:
            raise FrontendError(f"{where}: integer weights and activations need one width, got {sorted(bits)}")
        acc = types.get("accum")
        if acc is not None and not isinstance(acc, Int):
            raise FrontendError(f"{where}: an integer layer needs an integer accumulator, got {acc!r}")
        return LayerPrecision("int", bits.pop(), accum=acc)
    if kinds <= {"Fixed"} and kinds:
        w, a = types.get("weight", types.get("act")), types.get("act", types.get("weight"))
        acc = types.get("accum")
        if acc is not None and not isinstance(acc, Fixed):
            raise FrontendError(f"{where}: a fixed-point layer needs a Fixed accumulator, got {acc!r}")
        return LayerPrecision("fixed", weight=w, act=a, accum=acc)
    raise FrontendError(f"{where}: weight and activation types must both be integers (int8) or both Fixed(...), "
                        f"got {spec!r}")


class PrecisionConfig:
    """A precision config resolved per node (see the module docstring)."""

    def __init__(self, spec):
        self.spec = spec
        if isinstance(spec, dict) and not (spec and all(k in ROLE_ALIASES for k in spec)):
            self.default = parse_precision(spec.get("default"), "precision['default']")
            self.per_key = {k: parse_precision(v, f"precision[{k!r}]") for k, v in spec.items() if k != "default"}
        else:
            self.default = parse_precision(spec)
            self.per_key = {}

    def check_names(self, nodes):
        """Every key of a per-layer dict names an op kind or a layer of the model."""
        known = set(COMPUTE_KINDS) | set(FIXED_KINDS) | set(KIND_ALIASES)
        for tn in nodes:
            known |= {op_kind(tn.op), tn.name, tn.var}
            parts = tn.module.split(".") if tn.module else []
            known |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        bad = [k for k in self.per_key if k not in known]
        if bad:
            names = sorted({n for tn in nodes for n in (tn.module, tn.var) if n})
            close = difflib.get_close_matches(bad[0], sorted(known - {""}), n=5, cutoff=0.0)
            more = " ..." if len(names) > 12 else ""
            raise FrontendError(f"precision: {bad[0]!r} names no op kind or layer of the model (closest: "
                                f"{', '.join(close)}; layers: {', '.join(names[:12])}{more})")
        for k, lp in self.per_key.items():
            kind = KIND_ALIASES.get(k, k)
            if lp.quantized and kind not in COMPUTE_KINDS + FIXED_KINDS and kind in {op_kind(tn.op) for tn in nodes}:
                raise FrontendError(f"precision[{k!r}]: {kind} computes in float32 in a quantized model; quantized op "
                                    f"kinds: {', '.join(COMPUTE_KINDS + FIXED_KINDS)}")

    def for_node(self, tn) -> LayerPrecision:
        """Layer name (node name, or the innermost module path naming it; "encoder.ffn" covers its
        submodules) beats op kind beats the default."""
        for key in (tn.var, tn.name):
            if key and key in self.per_key:
                return self.per_key[key]
        path = tn.module
        while path:
            if path in self.per_key:
                return self.per_key[path]
            path = path.rpartition(".")[0]
        kind = op_kind(tn.op)
        for k, lp in self.per_key.items():
            if KIND_ALIASES.get(k, k) == kind:
                return lp
        return self.default

    def check_integer_only(self):
        """integer_only=True needs integer layers throughout (no fixed point, float32 or "auto")."""
        for key, lp in [("default", self.default)] + list(self.per_key.items()):
            if lp.family != "int":
                where = "precision" if not self.per_key else f"precision[{key!r}]"
                raise FrontendError(f"integer_only=True needs integer layers, but {where} is {lp.describe()}; use "
                                    "'int8' (int2..int16) everywhere, or drop integer_only")

    @property
    def quantized(self) -> bool:
        return self.default.quantized or any(lp.quantized for lp in self.per_key.values())


def scale_for(absmax: float, qmax: int) -> float:
    """Symmetric scale mapping [-absmax, absmax] onto [-qmax, qmax] (1.0 for an all-zero tensor)."""
    return absmax / qmax if absmax > 0 else 1.0


def fixed_type(absmax: float, bits=16):
    """Fixed(bits, frac) with the integer bits (sign included) that hold +-absmax."""
    ibits = 1 if absmax <= 0 else max(1, math.floor(math.log2(absmax)) + 2)
    return Fixed(bits, max(0, min(bits, bits - ibits)))
