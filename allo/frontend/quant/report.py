"""`ImportedModel.quant_report()`: per computing layer (quantized or float32), the chosen types,
calibrated ranges, scales and the error of its output vs the float model on the calibration data.

The errors are measured, not estimated: the model is lowered once more with every quantized
layer's (dequantized) output as an extra result, built for LLVM, and run on each calibration batch
next to the float graph evaluated by torch.

Example::

    print(mod.imported.quant_report())
    rows = mod.imported.quant_report(as_text=False)   # [{'layer': 'fc1', 'max_abs_err': ...}, ...]
"""
from __future__ import annotations

import numpy as np

from ...errors import FrontendError
from ..compose import compose_schedules
from .calibrate import run_graph


def quant_report(imported, as_text=True):
    plan = imported.types
    if not getattr(plan, "quantized", False):
        raise FrontendError("quant_report() needs a quantized import (from_pytorch(..., precision='int8'))")
    errors = _measure(imported, plan)
    rows = []
    for rec, err in zip(plan.records, errors):
        row = {"layer": rec.var, "node": rec.node, "op": rec.kind, "precision": rec.precision,
               "types": {k: repr(t) for k, t in rec.types.items() if t is not None},
               "ranges": rec.ranges, "scales": rec.scales}
        row.update(err)
        rows.append(row)
    return _table(rows) if as_text else rows


def _measure(imported, plan):
    """Per record: max and mean absolute error and the error relative to the float output's RMS."""
    from ..lower import lower

    plan.reset()
    plan.probe = True
    try:
        prog = lower(imported.captured, plan, weights_as_args=imported.program.weights_as_args)
    finally:
        plan.probe = False
    indices = [prog.add_output(ctx_out.buf) for _, ctx_out in plan.probes]
    source = prog.render()
    forward = prog.load(source, imported.filename + " (quant report)")
    built = compose_schedules(prog, forward, imported.filename).build(target="llvm")
    weights = [arr for _, arr in prog.arg_weights()]
    stats = [[0.0, 0.0, 0, 0.0, 0.0] for _ in plan.probes]  # max err, sum err, count, sum sq err, sum sq ref
    for batch in plan.batch_list:
        ref = run_graph(imported.captured, batch)
        arrays = [b.detach().cpu().numpy().reshape(buf.shape) for b, buf in zip(batch, prog.inputs)]
        if imported.boundary is not None:
            arrays = imported.boundary.to_core(arrays)
        res = built(*arrays, *weights)
        res = list(res) if isinstance(res, tuple) else [res]
        for st, (rec, _), idx in zip(stats, plan.probes, indices):
            want = ref[plan.folded.get(rec.node, rec.node)]
            want = (want[0] if isinstance(want, (tuple, list)) else want).detach().double().numpy().reshape(-1)
            got = np.asarray(res[idx], dtype=np.float64).reshape(-1)
            d = np.abs(got - want)
            st[0] = max(st[0], float(d.max()) if d.size else 0.0)
            st[1] += float(d.sum())
            st[2] += d.size
            st[3] += float((d * d).sum())
            st[4] += float((want * want).sum())
    return [{"max_abs_err": s[0], "mean_abs_err": s[1] / max(s[2], 1),
             "rel_rms_err": (s[3] / s[4]) ** 0.5 if s[4] > 0 else 0.0} for s in stats]


def _table(rows) -> str:
    head = ("layer", "op", "precision", "input", "weight", "accum", "output", "output range", "max|err|",
            "mean|err|", "rel rms")
    lines = [head]
    for r in rows:
        t = r["types"]
        lo_hi = r["ranges"].get("output")
        lines.append((r["layer"], r["op"], r["precision"], t.get("input", "-"), t.get("weight", "-"),
                      t.get("accum", "-"), t.get("output", "-"),
                      f"[{lo_hi[0]:.3g}, {lo_hi[1]:.3g}]" if lo_hi else "-", f"{r['max_abs_err']:.3g}",
                      f"{r['mean_abs_err']:.3g}", f"{r['rel_rms_err']:.2%}"))
    widths = [max(len(str(x[i])) for x in lines) for i in range(len(head))]
    out = ["  ".join(str(c).ljust(w) for c, w in zip(x, widths)).rstrip() for x in lines]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)
