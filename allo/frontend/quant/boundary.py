"""Integer boundaries of a quantized import: the core's inputs and outputs are the quantized values.

A model input whose every reader is the quantizer of one quantized layer (or several with the same
type and scale) becomes an integer (or Fixed) argument of the core: the quantization runs on the
host, in numpy, with the float32 arithmetic the generated quantizer kernel used, so results are the
same bit for bit. Quantized model outputs are returned by the core as they are (int8 at the output
scale, or Fixed values) and dequantized on the host. Inputs also read by float ops stay float32
arguments and are quantized inside the core as before.

The scales are symmetric (zero point 0): real = q * scale for integer ports, real = the value for
Fixed ports.

Example::

    mod = from_pytorch(model, [x], precision="int8", calibration_data=cal, target="rtl")
    port = mod.imported.boundary.inputs[0]     # Port(name='data', kind='int', dtype=int8, scale=0.0293, ...)
    q = port.quantize(x.numpy())               # the int8 array the core takes
    y = mod.core(q)                            # int8 result at mod.imported.boundary.outputs[0].scale
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ...errors import AlloError
from ...ir.types import Fixed, Int, UFixed
from ..codegen import HelperCall, NnCall


@dataclass(frozen=True)
class Port:
    """One quantized input or output of the core.

    kind "int": q = clamp(floor(x * inv + 0.5), -qmax, qmax) computed in float32, real = q * scale;
    kind "fixed": the value clamped to the type's range (float32) and floored to its fraction bits.
    """

    name: str
    kind: str  # "int" or "fixed"
    dtype: object
    scale: float | None = None  # int ports: real = q * scale
    zero_point: int = 0

    @property
    def qmax(self) -> int:
        return 2 ** (self.dtype.bits - 1) - 1

    @property
    def inv(self) -> float:
        """The multiplier of the quantizer (1 / scale, as the generated kernel spells it)."""
        return 1.0 / self.scale

    def fixed_bounds(self) -> tuple:
        t = self.dtype
        if isinstance(t, UFixed):
            return 0.0, 2.0 ** (t.bits - t.frac) - 2.0 ** -t.frac
        return -(2.0 ** (t.bits - t.frac - 1)), 2.0 ** (t.bits - t.frac - 1) - 2.0 ** -t.frac

    def quantize(self, x) -> np.ndarray:
        """Real values (any float array) -> what the core takes for this port. NaN / inf raise."""
        x = np.asarray(x)
        if x.dtype.kind == "f" and x.size and not np.isfinite(x).all():
            raise AlloError(f"input {self.name!r} holds NaN or inf; the quantized model's input {self.name!r} "
                            f"({self.describe()}) needs finite values")
        x32 = x.astype(np.float32)
        if self.kind == "int":
            lo, hi = np.float32(-self.qmax), np.float32(self.qmax)
            y = np.minimum(np.maximum(x32 * np.float32(self.inv), lo), hi)
            q = np.floor(y + np.float32(0.5))
            return q.astype(_int_container(self.dtype.bits))
        lo, hi = self.fixed_bounds()
        y = np.minimum(np.maximum(x32, np.float32(lo)), np.float32(hi)).astype(np.float64)
        y = np.clip(y, lo, hi)  # a float32 bound can round past the type's range (wide types)
        return np.floor(np.ldexp(y, self.dtype.frac)) / 2.0 ** self.dtype.frac

    def dequantize(self, q) -> np.ndarray:
        """What the core returned for this port -> float32 real values."""
        q = np.asarray(q)
        if self.kind == "int":
            return q.astype(np.float32) * np.float32(self.scale)
        return q.astype(np.float32)

    def describe(self) -> str:
        if self.kind == "int":
            return f"{self.dtype!r}, scale {self.scale!r}, zero point {self.zero_point}: real = q * scale"
        lo, hi = self.fixed_bounds()
        return f"{self.dtype!r} (real values, range [{lo:g}, {hi:g}] in steps of 2**-{self.dtype.frac})"

    def as_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "dtype": repr(self.dtype), "scale": self.scale,
                "zero_point": self.zero_point}


def _int_container(bits):
    return np.int8 if bits <= 8 else np.int16 if bits <= 16 else np.int32 if bits <= 32 else np.int64


def int_port(name, dtype, scale) -> Port:
    if not isinstance(dtype, Int):
        raise AlloError(f"internal: integer port {name!r} of type {dtype!r}")
    return Port(name, "int", dtype, float(scale))


def fixed_port(name, dtype) -> Port:
    if not isinstance(dtype, (Fixed, UFixed)):
        raise AlloError(f"internal: fixed port {name!r} of type {dtype!r}")
    return Port(name, "fixed", dtype)


class Boundary:
    """The ports of a quantized import's core: one entry per model input and per flat model output,
    None where the value stays as torch has it (float32 inputs read by float ops, float outputs,
    integer ids)."""

    def __init__(self, inputs, outputs):
        self.inputs = list(inputs)
        self.outputs = list(outputs)

    @property
    def integer(self) -> bool:
        """True when no input or output of the core is a float (every port quantized)."""
        return all(p is not None for p in self.inputs + self.outputs)

    def to_core(self, arrays):
        """Model inputs (numpy) -> the core's arguments (quantized where the port is)."""
        return [a if p is None else p.quantize(a) for a, p in zip(arrays, self.inputs)]

    def from_core(self, flat):
        """The core's flat model outputs -> float32 (dequantized where the port is)."""
        return [v if p is None else p.dequantize(v) for v, p in zip(flat, self.outputs)]

    def as_dict(self) -> dict:
        return {"inputs": [p.as_dict() if p else None for p in self.inputs],
                "outputs": [p.as_dict() if p else None for p in self.outputs]}

    def readme(self) -> str:
        """The markdown section of a project README describing the quantized interface."""
        lines = ["## Quantized interface", "",
                 "This core is a quantized model: its arguments and results are the quantized values. Quantize "
                 "an input as `q = clamp(floor(x * (1 / scale) + 0.5), -qmax, qmax)` (float32 arithmetic) and "
                 "dequantize an output as `real = q * scale`; Fixed ports carry real values in their fixed-point "
                 "type (inputs clamped to its range, then floored). Zero points are 0 (symmetric).", "",
                 "| port | name | type | scale | zero point |", "|---|---|---|---|---|"]
        for what, ports in (("input", self.inputs), ("output", self.outputs)):
            for k, p in enumerate(ports):
                if p is None:
                    lines.append(f"| {what} {k} | - | float32 (not quantized) | - | - |")
                else:
                    scale = f"{p.scale!r}" if p.scale is not None else "- (Fixed value)"
                    lines.append(f"| {what} {k} | {p.name} | {p.dtype!r} | {scale} | {p.zero_point} |")
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return f"Boundary(inputs={self.inputs}, outputs={self.outputs})"


def input_ports(prog, plan) -> dict:
    """{input Buf name: Port} for the model inputs that only quantizers read (see the module
    docstring), from a lowering pass in which `plan` recorded its quantizers (plan.conversions:
    id(out Buf) -> (input Buf, Port))."""

    ports = {}
    for buf in prog.inputs[:prog.n_user_inputs]:
        if not repr(buf.dtype).startswith("float") or buf in prog.outputs:
            continue
        readers, found = [], set()
        for st in prog.stmts:
            if isinstance(st, HelperCall):
                if any(b is buf for b in st.args):
                    readers.append(plan.conversions.get(id(st.out)))
            elif isinstance(st, NnCall):
                if buf.name in st.args:
                    readers.append(None)
            elif _mentions(st, buf.name):
                readers.append(None)
        for r in readers:
            found.add(r[1] if r is not None and r[0] is buf else None)
        if readers and None not in found and len(found) == 1:
            ports[buf.name] = found.pop()
    return ports


def write_readme(directory, boundary) -> None:
    """Add the quantized interface section to `directory`/README.md (created when missing)."""

    path = Path(directory) / "README.md"
    text = path.read_text() if path.exists() else ""
    if "## Quantized interface" in text:
        text = text[:text.index("## Quantized interface")].rstrip("\n")
    path.write_text((text + "\n\n" if text else "") + boundary.readme())


def integer_boundary(graph, plan, prog, relower):
    """(Program, Boundary) of a quantized import: `prog` is the first lowering; when some model
    inputs only feed quantizers, the model is lowered again (`relower()`) with those inputs taking
    the quantized type."""
    by_buf = input_ports(prog, plan)
    names = [name for _, name, _, _ in graph.inputs]
    ports = {}
    for name, buf in zip(names, prog.inputs):
        if buf.name in by_buf:
            ports[name] = replace(by_buf[buf.name], name=name)
    if ports:
        plan.reset()
        plan.input_ports = ports
        prog = relower()
        for name, buf in zip(names, prog.inputs):
            if name in ports and buf.dtype != ports[name].dtype:
                raise AlloError(f"internal: the quantized input {name!r} was lowered as {buf.dtype!r}")
    return prog, Boundary([ports.get(n) for n in names], plan.output_ports)


def _mentions(line, name) -> bool:
    return isinstance(line, str) and re.search(rf"\b{re.escape(name)}\b", line) is not None


__all__ = ["Port", "Boundary", "int_port", "fixed_port", "input_ports", "integer_boundary", "write_readme"]
