"""Post-training calibration: run the captured graph with torch on example batches and record the
range of every value (per graph node: min, max, absolute max, root mean square).

`calibration_data` is a list of input lists shaped like `example_inputs` (or any iterable of them;
a single tensor stands for a one-input list). Without it, the example inputs are the only batch.

Example::

    ranges = calibrate(cap, [[torch.randn(8, 16)] for _ in range(4)])
    ranges["linear"].absmax
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import FrontendError
from ..capture import example_tuple


@dataclass
class Range:
    """Observed values of one tensor over all calibration batches."""

    lo: float = float("inf")
    hi: float = float("-inf")
    sumsq: float = 0.0
    count: int = 0

    @property
    def absmax(self) -> float:
        return max(abs(self.lo), abs(self.hi)) if self.count else 0.0

    @property
    def rms(self) -> float:
        return (self.sumsq / self.count) ** 0.5 if self.count else 0.0

    def add(self, t):
        import torch

        if not isinstance(t, torch.Tensor) or not t.is_floating_point() or t.numel() == 0:
            return
        t = t.detach().double()
        self.lo = min(self.lo, float(t.min()))
        self.hi = max(self.hi, float(t.max()))
        self.sumsq += float((t * t).sum())
        self.count += t.numel()


def batches(calibration_data, example_inputs) -> list:
    """The calibration batches as tuples of tensors (checked against the example inputs' shapes)."""
    import torch

    examples = example_tuple(example_inputs)
    if calibration_data is None:
        return [examples]
    if isinstance(calibration_data, torch.Tensor):
        raise FrontendError("calibration_data must be a list of input lists (one per batch), e.g. "
                            "[[x1], [x2]]; got a single tensor (wrap it: [[x]])")
    out = []
    for i, batch in enumerate(calibration_data):
        batch = (batch,) if isinstance(batch, torch.Tensor) else tuple(batch)
        if len(batch) != len(examples) or any(not isinstance(b, torch.Tensor) or tuple(b.shape) != tuple(e.shape)
                                              for b, e in zip(batch, examples)):
            got = [tuple(b.shape) if isinstance(b, torch.Tensor) else type(b).__name__ for b in batch]
            raise FrontendError(f"calibration_data[{i}] must be shaped like example_inputs "
                                f"{[tuple(e.shape) for e in examples]}, got {got}")
        for k, (b, e) in enumerate(zip(batch, examples)):
            _check_tensor(b, e, f"calibration_data[{i}][{k}]")
        out.append(batch)
    if not out:
        raise FrontendError("calibration_data is empty; pass at least one batch of inputs")
    return out


def _check_tensor(b, example, where):
    """A calibration tensor has its example input's dtype and, if floating point, finite values."""
    import torch

    if b.dtype != example.dtype:
        raise FrontendError(f"{where} is a {b.dtype} tensor, the example input a {example.dtype} one; pass "
                            f"calibration inputs of the example inputs' dtype (e.g. `x.to({example.dtype})`)")
    if b.is_floating_point() and not bool(torch.isfinite(b).all()):
        raise FrontendError(f"{where} holds NaN or infinite values; calibration needs finite inputs (drop or "
                            "clean that batch)")


def run_graph(cap, inputs) -> dict:
    """Every node's value (fx node name -> tensor or tuple) for one batch, by evaluating the captured
    graph op by op with torch (the float reference of the quantized model)."""
    import torch
    from torch.fx.node import map_arg

    env = {}
    user = iter(inputs)
    for n in cap.graph.nodes:
        if n.op == "placeholder":
            env[n] = cap.consts[n].tensor if n in cap.consts else next(user)
        elif n.op == "get_attr":
            env[n] = cap.consts[n].tensor
        elif n.op == "call_function":
            args = map_arg(n.args, lambda a: env[a])
            kwargs = map_arg(n.kwargs, lambda a: env[a])
            with torch.no_grad():
                env[n] = n.target(*args, **kwargs)
    return {n.name: v for n, v in env.items()}


def calibrate(cap, batch_list) -> dict:
    """fx node name -> Range over all batches (also the model inputs, by placeholder name)."""
    if cap.method != "torch.export":
        raise FrontendError("quantized import needs a model torch.export can capture (this one fell back to "
                            "torch.fx); import it as float32 or make it exportable")
    ranges = {}
    for batch in batch_list:
        for name, value in run_graph(cap, batch).items():
            r = ranges.setdefault(name, Range())
            if isinstance(value, (tuple, list)):
                value = value[0] if value else None
            r.add(value)
            if r.count and not (math.isfinite(r.lo) and math.isfinite(r.hi)):
                raise FrontendError(f"calibration: the model computes NaN or infinite values at graph node {name!r} "
                                    "on the calibration data, so no integer or fixed-point range fits it; check "
                                    "the model on these inputs (e.g. a log or division of zero)")
    return ranges
