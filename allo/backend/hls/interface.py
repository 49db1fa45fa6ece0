"""The Vitis kernel interface of the top function (target="vitis_hls"), in upstream Allo's form.

A Vitis (XRT) kernel is `extern "C"` and returns void; its arrays are m_axi pointers into device
memory. So the top function's parameters are named by position, `v0, v1, ...` (arguments, then
results), arrays and scalar results are pointers (`int32_t *v1`), scalar arguments are passed by
value. The body keeps the kernel's own names:

- `wrap_io=True` (default): each array argument is copied into an on-chip local of the kernel's
  name by `load_buf<k>(v<k>, A)` (a pipelined burst loop over the linearised index), the body
  works on the locals (so partitions apply to them), and arrays it writes and the results are
  copied back by `store_res<k>(B, v<k>)`; scalar arguments become locals (`bool inst = v0;`).
- `wrap_io=False`: the body indexes the pointers directly (`v0[(i) * 4 + (j)]`); a top-level
  array then cannot be partitioned or passed to a sub-kernel taking a multi-dimensional array.

Example::

    copy_helper("load", 0, "int32_t", (4, 4))
    # 'static void load_buf0(int32_t *v0, int32_t buf[4][4]) { ... buf[i0][i1] = v0[((i0 * 4) + i1)]; ...'
"""
from __future__ import annotations

import re


def port_name(k: int) -> str:
    """Name of the top function's parameter number k (arguments first, then results)."""
    return f"v{k}"


def flat_index(indices, shape) -> str:
    """Row-major linear index of `indices` (C++ texts) into an array of `shape`: `(i) * 4 + (j)`."""
    text = f"({indices[0]})"
    for idx, d in zip(indices[1:], shape[1:]):
        text = f"{text} * {d} + ({idx})"
    return text


def split_subscripts(idx: str) -> list:
    """`[a][b]` (as FuncEmitter.fill writes them) -> ["a", "b"]."""
    return re.findall(r"\[([^\]]+)\]", idx)


def copy_helper(kind: str, k: int, ctype: str, shape) -> str:
    """`load_buf<k>` (pointer -> local array) or `store_res<k>` (local array -> pointer): the copy
    loops of wrap_io, innermost loop pipelined at II=1 (one burst beat per cycle)."""
    dims = "".join(f"[{d}]" for d in shape)
    ivs = [f"i{j}" for j in range(len(shape))]
    lin = ivs[0]
    for iv, d in zip(ivs[1:], shape[1:]):
        lin = f"(({lin} * {d}) + {iv})"
    local, port = ("buf", port_name(k)) if kind == "load" else ("res", port_name(k))
    name = f"load_buf{k}" if kind == "load" else f"store_res{k}"
    params = f"{ctype} *{port}, {ctype} {local}{dims}" if kind == "load" else f"{ctype} {local}{dims}, {ctype} *{port}"
    lines = [f"static void {name}({params}) {{"]
    for depth, (iv, d) in enumerate(zip(ivs, shape)):
        label = f"l_{name}_{iv}: " if depth == 0 else ""
        lines.append("  " * (depth + 1) + f"{label}for (int {iv} = 0; {iv} < {d}; {iv}++) {{")
    pad = "  " * (len(shape) + 1)
    lines.append(pad + "#pragma HLS pipeline II=1")
    sub = "".join(f"[{iv}]" for iv in ivs)
    lines.append(pad + (f"{local}{sub} = {port}[{lin}];" if kind == "load" else f"{port}[{lin}] = {local}{sub};"))
    for depth in reversed(range(len(shape))):
        lines.append("  " * (depth + 1) + "}")
    lines.append("}")
    return "\n".join(lines)


__all__ = ["port_name", "flat_index", "split_subscripts", "copy_helper"]
