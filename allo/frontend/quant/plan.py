"""The quantizing TypePlan: decides each node's precision (config.py), lowers linear / conv /
matmul nodes to the quantized library kernels (kernels.py), passes int8 values through relu and max
pooling, computes relu / max pooling / add / sub in a fixed-point type when the config gives one,
and runs every other op in float32 on dequantized inputs, unless `integer_only` (intonly.py: the
ops between layers in integer kernels, a FrontendError for an op without one).

Integer values carry a per-tensor scale (real = q * scale), fixed-point values are their own real
value. Float values entering a quantized layer are quantized with the scale (or fixed-point type)
calibrated for them; quantized values entering a float op are dequantized first. The core's
boundaries are integer (boundary.py): quantized model outputs are returned quantized, and a model
input only quantizers read is an argument of the quantized type when `input_ports` names it (the
import lowers twice: the first pass finds those inputs).

Example::

    plan = QuantPlan.calibrated(PrecisionConfig("int8"), graph, [[x1], [x2]], [x])
    prog = lower(graph, plan)
    plan.records            # per quantized layer: types, ranges, scales (quant_report)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import FrontendError
from ...ir.types import Fixed, Int, float32
from ..codegen import literal
from ..layout import View
from ..precision import TypePlan
from . import intonly, kernels
from .calibrate import batches, calibrate
from .boundary import fixed_port, int_port
from .config import (COMPUTE_KINDS, FIXED_KINDS, INT_TRANSPARENT_KINDS, LAYOUT_OPS, LayerPrecision, PrecisionConfig,
                     fixed_type, op_kind, scale_for)
from .fold import fold_batch_norms


@dataclass
class LayerRecord:
    """One row of the quant report."""

    node: str
    var: str
    kind: str
    precision: str
    types: dict  # role -> allo type (input, weight, accum, output)
    ranges: dict = field(default_factory=dict)  # role -> (lo, hi) observed in calibration
    scales: dict = field(default_factory=dict)  # role -> scale (integer layers)


class QuantPlan(TypePlan):
    """See the module docstring."""

    quantized = True

    def __init__(self, config, ranges, folded, batch_list, integer_only=False):
        self.config = config
        self.integer_only = integer_only  # every op between layers in integers too (intonly.py)
        self.ranges = ranges  # fx node name -> calibrate.Range
        self.folded = folded  # layer name -> node whose range its output has (BatchNorm folding)
        self.batch_list = batch_list
        self.probe = False
        self.input_ports = {}  # model input name -> boundary Port (the core takes the quantized values)
        self.wide_inputs = set()  # integer_only: model inputs a residual add reads (intonly.residual_inputs)
        self.reset()

    @classmethod
    def calibrated(cls, config, graph, calibration_data, example_inputs, integer_only=False):
        config.check_names(graph.nodes)
        if integer_only:
            config.check_integer_only()
        batch_list = batches(calibration_data, example_inputs)
        ranges = calibrate(graph, batch_list)
        folded = fold_batch_norms(graph)
        plan = cls(config, ranges, folded, batch_list, integer_only)
        plan.wide_inputs = intonly.residual_inputs(graph) if integer_only else set()
        return plan

    def reset(self):
        """Forget what one lowering pass recorded (quant_report lowers again with probes)."""
        self.scales = {}  # id(Buf) -> scale of an integer-quantized array
        self.buf_ranges = {}  # id(Buf) -> calibrate.Range of the real value it holds
        self.weight_types = {}  # id(Const) -> allo type
        self.result_type = None
        self.records = []
        self.probes = []  # (record, View) of each quantized layer's output
        self._dequant = {}
        self._wide = {}  # integer_only: (view, bits) -> (View, scale) of its wide / requantized form
        self.conversions = {}  # id(out Buf) of a quantizer reading a model input -> (input Buf, Port)
        self.output_ports = []  # per model output: its Port, or None (float, ids)
        self._input_port = None

    def summary_line(self) -> str:
        return f"{len(self.batch_list)} calibration batch(es), {len(self.ranges)} ranges"

    # ---------------------------------------------------------------- TypePlan
    def input_type(self, name, torch_dtype):
        self._input_port = self.input_ports.get(name)
        if self._input_port is not None:
            return self._input_port.dtype
        return super().input_type(name, torch_dtype)

    def value_type(self, node, torch_dtype=None):
        if self.result_type is not None and torch_dtype is None:
            return self.result_type
        return super().value_type(node, torch_dtype)

    def weight_type(self, const):
        return self.weight_types.get(id(const)) or super().weight_type(const)

    def bind_value(self, name, value):
        port, self._input_port = self._input_port, None
        if port is not None and port.kind == "int" and isinstance(value, View):
            self.scales[id(value.buf)] = port.scale
        r = self.ranges.get(self.folded.get(name, name))
        for v in _views(value):
            if r is not None and id(v.buf) not in self.buf_ranges:
                self.buf_ranges[id(v.buf)] = r

    def output_value(self, ctx, value):
        """Quantized outputs leave the core quantized (the host dequantizes, see boundary.py)."""
        port = None
        if isinstance(value, View) and self.is_quantized(value):
            name = f"output{len(self.output_ports)}"
            scale = self.scales.get(id(value.buf))
            port = int_port(name, value.dtype, scale) if scale is not None else fixed_port(name, value.dtype)
        self.output_ports.append(port)
        return value

    def finish(self, ctx, env):
        if self.probe:
            self.probes = [(rec, self.dequant(ctx, v)) for rec, v in self.probes]

    # ---------------------------------------------------------------- per node
    def range_of(self, tn):
        return self.ranges.get(self.folded.get(tn.name, tn.name))

    def lower_node(self, ctx, tn, a, handler):
        lp = self.config.for_node(tn)
        kind = op_kind(tn.op)
        value = None
        if tn.op in LAYOUT_OPS:
            value = self._layout(ctx, tn, a, handler)
        elif lp.quantized and kind in COMPUTE_KINDS:
            value = kernels.lower_compute(self, ctx, tn, a, lp, kind)
        elif kind in INT_TRANSPARENT_KINDS and lp.family != "fixed" and self._quantized_input(a):
            value = self._passthrough(ctx, tn, a, handler)
        elif kind in FIXED_KINDS and lp.family == "fixed":
            value = self._fixed_elementwise(ctx, tn, a, handler, lp)
        if value is None and self.integer_only:
            value = intonly.lower(self, ctx, tn, a, lp)
            if value is None:
                raise ctx.error(f"integer_only=True: {kind} has no integer-only kernel here (integer ops: linear, "
                                f"conv, matmul, relu, max/avg pooling, softmax, gelu, layer_norm, add/sub, scaling by "
                                f"a constant); import without integer_only=True to run it in float32")
        if value is None:
            value = handler(ctx, tn, self._dequant_args(ctx, a))
            if isinstance(value, View) and repr(value.dtype).startswith("float") and tn.op not in LAYOUT_OPS:
                self.record(tn, LayerPrecision("float"), {"output": value.dtype}, {"output": self.range_of(tn)},
                            out=value)
        return value

    def _layout(self, ctx, tn, a, handler):
        """Layout ops move quantized values unchanged (type and scale)."""
        src = next((v for x in a.values() for v in _views(x) if self.is_quantized(v)), None)
        if src is None:
            return handler(ctx, tn, a)
        self.result_type = src.dtype
        try:
            out = handler(ctx, tn, a)
        finally:
            self.result_type = None
        self._inherit(out, src)
        return out

    def _quantized_input(self, a):
        first = next(iter(a.values()), None)
        return isinstance(first, View) and self.is_quantized(first) and self._plain_pool(a)

    @staticmethod
    def _plain_pool(a):
        dil = a.get("dilation", 1)
        return not a.get("ceil_mode", False) and all(d == 1 for d in (dil if isinstance(dil, (list, tuple)) else [dil]))

    def _passthrough(self, ctx, tn, a, handler):
        """relu / max pooling on quantized values: the same type and scale (both commute with it)."""
        v = next(iter(a.values()))
        self.result_type = v.dtype
        try:
            if op_kind(tn.op) == "relu":
                out = ctx.ew("relu", lambda x: f"max({x}, 0)", [v], out_sizes=tn.shape, dtype=v.dtype, cast=False)
            else:
                out = handler(ctx, tn, a)
        finally:
            self.result_type = None
        self._inherit(out, v)
        scale = self.scales.get(id(v.buf))
        lp = LayerPrecision("int", getattr(v.dtype, "bits", 8)) if scale else LayerPrecision("fixed", act=v.dtype)
        self.record(tn, lp, {"input": v.dtype, "output": v.dtype}, {"output": self.range_of(tn)},
                    {"output": scale} if scale else None, out=out)
        return out

    def _fixed_elementwise(self, ctx, tn, a, handler, lp):
        T = lp.act or fixed_type(self.range_of(tn).absmax, lp.bits)
        conv = {k: (self.to_fixed(ctx, x, T) if isinstance(x, View) else x) for k, x in a.items()}
        if op_kind(tn.op) == "max_pool" and not self._plain_pool(a):
            return None
        self.result_type = T
        try:
            if op_kind(tn.op) == "relu":
                x = conv.get("self", next(iter(conv.values())))
                out = ctx.ew("relu", lambda x: f"max({x}, 0)", [x], out_sizes=tn.shape, dtype=T, cast=False)
            else:
                out = handler(ctx, tn, conv)
        finally:
            self.result_type = None
        rng = self.range_of(tn)
        self.record(tn, lp, {"input": _first_type(conv), "output": T}, {"output": rng}, out=out)
        return out

    def _inherit(self, out, v):
        for o in _views(out):
            if id(v.buf) in self.scales:
                self.scales[id(o.buf)] = self.scales[id(v.buf)]
            if id(v.buf) in self.buf_ranges:
                self.buf_ranges.setdefault(id(o.buf), self.buf_ranges[id(v.buf)])

    # ---------------------------------------------------------------- conversions
    def is_quantized(self, v: View) -> bool:
        return id(v.buf) in self.scales or isinstance(v.dtype, Fixed)

    def dequant(self, ctx, v: View) -> View:
        """A quantized View as float32 (int: q * scale, fixed: its value)."""
        key = (id(v.buf), v.sizes, v.strides, v.offset)
        if key not in self._dequant:
            scale = self.scales.get(id(v.buf))
            fn = (lambda q: f"float32({q})") if scale is None else (lambda q: f"float32({q}) * {literal(float(scale))}")
            out = _with_hint(ctx, "dq", lambda: ctx.ew("dequant", fn, [v], out_sizes=v.sizes, dtype=float32,
                                                       cast=False))
            if id(v.buf) in self.buf_ranges:
                self.buf_ranges[id(out.buf)] = self.buf_ranges[id(v.buf)]
            self._dequant[key] = out
        return self._dequant[key]

    def float_range(self, v: View, what="value"):
        r = self.buf_ranges.get(id(v.buf))
        if r is None:
            raise FrontendError(f"internal: no calibrated range for the {what} {v.buf.name!r}")
        return r

    def to_int(self, ctx, v: View, bits: int):
        """(View of Int(bits) values, scale) for v: itself when it already is one, else quantized
        from its float value with the calibrated per-tensor scale (round half up, clamped)."""
        T = Int(bits)
        if id(v.buf) in self.scales and v.dtype == T:
            return v, self.scales[id(v.buf)]
        if self.integer_only and id(v.buf) in self.scales:  # one integer requantization per value and width
            key = (id(v.buf), v.sizes, v.strides, v.offset, bits)
            if key not in self._wide:
                scale = scale_for(self.float_range(v).absmax, 2 ** (bits - 1) - 1)
                self._wide[key] = intonly.requantize(self, ctx, v, self.scales[id(v.buf)], T, scale), scale
            return self._wide[key]
        if self.integer_only and v.buf.kind == "input" and not self.is_quantized(v):
            # a float model input enters the core once, at one width (the residual stream's when an
            # add reads it, so that the add keeps 16-bit values); readers of another width requantize
            width = self.config.default.bits
            if v.buf.name in self.wide_inputs:
                width = intonly.wide_bits(width)
            if bits != width:
                key = (id(v.buf), v.sizes, v.strides, v.offset)
                if key not in self._wide:
                    self._wide[key] = self.to_int(ctx, v, width)
                return self.to_int(ctx, self._wide[key][0], bits)
        if self.is_quantized(v):
            v = self.dequant(ctx, v)
        src = v
        qmax = 2 ** (bits - 1) - 1
        scale = scale_for(self.float_range(v).absmax, qmax)
        inv = literal(1.0 / scale)
        lo, hi = literal(float(-qmax)), literal(float(qmax))
        out = _with_hint(ctx, "q", lambda: ctx.ew(
            "quantize", lambda x: f"{T!r}(allo.floor(min(max({x} * {inv}, {lo}), {hi}) + 0.5))", [v],
            out_sizes=v.sizes, dtype=T, cast=False))
        self.scales[id(out.buf)] = scale
        self._inherit(out, v)
        if src.buf.kind == "input" and repr(src.dtype).startswith("float"):
            self.conversions[id(out.buf)] = (src.buf, int_port(src.buf.name, T, scale))
        return out, scale

    def to_fixed(self, ctx, v: View, T) -> View:
        """v as fixed-point type T (float values are clamped to T's range, then floored)."""
        if v.dtype == T:
            return v
        src = v
        if id(v.buf) in self.scales:
            v = self.dequant(ctx, v)
        lo, hi = -(2.0 ** (T.bits - T.frac - 1)), 2.0 ** (T.bits - T.frac - 1) - 2.0 ** -T.frac
        fn = (lambda x: f"min(max({x}, {literal(lo)}), {literal(hi)})")
        if isinstance(v.dtype, Fixed):
            fn = (lambda x: x)
        out = _with_hint(ctx, "fx", lambda: ctx.ew("to_fixed", fn, [v], out_sizes=v.sizes, dtype=T, cast=False))
        self._inherit(out, v)
        if src.buf.kind == "input" and repr(src.dtype).startswith("float"):
            self.conversions[id(out.buf)] = (src.buf, fixed_port(src.buf.name, T))
        return out

    def fixed_for(self, v: View, bits=16):
        """The auto fixed-point type of a float value: enough integer bits for its calibrated range."""
        return fixed_type(self.float_range(v).absmax, bits)

    def _dequant_args(self, ctx, a):
        def conv(x):
            if isinstance(x, View) and self.is_quantized(x):
                return self.dequant(ctx, x)
            if isinstance(x, (list, tuple)):
                return type(x)(conv(y) for y in x)
            return x

        return {k: conv(x) for k, x in a.items()}

    # ---------------------------------------------------------------- report
    def record(self, tn, lp: LayerPrecision, types, ranges, scales=None, out=None):
        rec = LayerRecord(tn.name, tn.var or tn.name, op_kind(tn.op), lp.describe() if lp.family != "auto" else "auto",
                          types, {k: (r.lo, r.hi) for k, r in ranges.items() if r is not None and r.count},
                          scales or {})
        self.records.append(rec)
        if out is not None and self.probe:
            self.probes.append((rec, out))
        return rec


def _views(value):
    if isinstance(value, View):
        yield value
    elif isinstance(value, (tuple, list)):
        for x in value:
            if isinstance(x, View):
                yield x


def _first_type(a):
    return next((x.dtype for x in a.values() if isinstance(x, View)), None)


def _with_hint(ctx, suffix, fn):
    hint = ctx.hint
    ctx.hint = f"{hint}_{suffix}"
    try:
        return fn()
    finally:
        ctx.hint = hint


def plan_for(precision=None, calibration_data=None, captured=None, example_inputs=None,
             integer_only=False) -> TypePlan:
    """The TypePlan for from_pytorch's `precision=`/`calibration_data=`/`integer_only=` (default:
    torch's dtypes; a quantized precision calibrates `captured` and returns a QuantPlan)."""
    config = PrecisionConfig(precision)
    if integer_only not in (True, False):
        raise FrontendError(f"integer_only must be True or False, got {integer_only!r}")
    if integer_only and not config.quantized:
        raise FrontendError("integer_only=True needs an integer precision too, e.g. precision='int8'")
    if not config.quantized:
        if calibration_data is not None and precision is None:
            raise FrontendError("calibration_data= is only used by a quantized import; pass precision= too "
                                "(e.g. precision='int8')")
        return TypePlan()
    return QuantPlan.calibrated(config, captured, calibration_data, example_inputs, integer_only)
