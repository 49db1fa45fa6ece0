"""Every attribute key of the loop IR, declared once: the `attrs` of `For`, `Buffer`, `Func` and
`CallStmt`, the `meta` of a `Module`, and the keys the MLIR renderer derives from node fields.

For each key: the Python type of its value, the node kinds carrying it, what it means, which
stages write and read it (dsl, ir, schedule, transforms, render, llvm, hls, rtl, qor, dse, passes)
and where it is rendered into MLIR: `MLIR` (both renderer modes), `VIEW` (only the "view" mode
of `s.module`; the LLVM JIT's rendering drops it) or `NEVER`. Keys starting with "_" are private
to allo and never rendered; `Module.meta` is never rendered. The constants below are the keys
(plain strings); allo's code spells `lp.attrs[PIPELINE_II]`, never the literal.

Partition kinds (`Partition`, also `allo.Partition`) are the first element of each
`(kind, dim, factor)` spec of `Buffer.attrs[PARTITION]`.

Example::

    ATTRS[PIPELINE_II].readers          # ('hls', 'qor')
    rendered(UNROLL, llvm=True)         # False: the LLVM rendering unrolls instead
    Partition("cyclic") is Partition.Cyclic

Imports: allo.ir.ops (the str-valued enum base).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .ops import StrEnum

MLIR, VIEW, NEVER = "mlir", "view", "never"


class Partition(StrEnum):
    """Array partition kinds (HLS `array_partition`): `s.partition(A, allo.Partition.Cyclic, ...)`."""

    Complete = "complete"
    Block = "block"
    Cyclic = "cyclic"


PARTITION_KINDS = tuple(Partition)


@dataclass(frozen=True)
class Attr:
    """One attribute key. `nodes`: node kinds whose `attrs` (a Module: `meta`) hold it; `derived`:
    node kinds for which the renderer writes it from the node's own fields (a function's entry
    gathers its parameters' partitions and storage bindings)."""

    key: str
    type: Any
    nodes: tuple
    meaning: str
    writers: tuple
    readers: tuple
    render: str
    derived: tuple = ()


ATTRS: dict = {}


def _declare(key, type_, nodes, meaning, writers, readers, render, derived=()) -> str:
    if key in ATTRS:
        raise ValueError(f"attribute {key!r} declared twice")
    private = key.startswith("_") or nodes == ("Module",)
    if private != (render == NEVER):
        raise ValueError(f"attribute {key!r}: private keys (and Module.meta) are exactly those never rendered")
    ATTRS[key] = Attr(key, type_, tuple(nodes), meaning, tuple(writers), tuple(readers), render, tuple(derived))
    return key


def rendered(key: str, llvm: bool) -> bool:
    """Is stored attribute `key` written into the MLIR of a renderer in this mode? A key allo does
    not declare (one a user put on the IR) follows the convention: rendered unless private.

    Example: `rendered(OP_NAME, llvm=True)` -> True; `rendered(DEFAULTS, llvm=False)` -> False."""
    a = ATTRS.get(key)
    if a is None:
        return not key.startswith("_")
    return a.render == MLIR or (a.render == VIEW and not llvm)


# ----------------------------------------------------------------------------- loops (For.attrs)
OP_NAME = _declare(
    "op_name", str, ("For",), "band name `S_<loop names>_<n>` (or a user's `name=`) on the outermost loop of a "
    "band; schedules address loops as `band/loop`", ("dsl", "schedule", "passes"), ("ir", "schedule", "hls", "llvm"),
    MLIR)
PIPELINE_II = _declare(
    "pipeline_ii", int, ("For",), "initiation interval of a pipelined loop (`s.pipeline`, "
    "`allo.grid(..., pipeline=)`)", ("schedule", "dsl"), ("hls", "qor", "rtl"), VIEW)
REWIND = _declare(
    "rewind", bool, ("For",), "successive runs of the pipelined loop overlap (`s.pipeline(..., rewind=True)`)",
    ("schedule",), ("hls",), VIEW)
UNROLL = _declare(
    "unroll", int, ("For",), "unroll factor, 0 = fully (`s.unroll`, the shift loops of `s.reuse_at`, "
    "`allo.grid(..., unroll=)`)",
    ("schedule", "dsl"), ("render", "llvm", "hls", "qor", "rtl"), VIEW)
PARALLEL = _declare(
    "parallel", bool, ("For",), "iterations run in parallel (`s.parallel`: OpenMP on the CPU; a full unroll on Catapult/XLS)",
    ("schedule",), ("transforms", "llvm", "hls"), MLIR)
DATAFLOW = _declare(
    "dataflow", bool, ("For", "Func"), "the loop body or function is a dataflow region (`s.dataflow`, `s.to`, "
    "an `allo.dataflow` region)", ("schedule", "dsl"), ("hls", "qor", "dse", "rtl"), VIEW)
REDUCTION = _declare(
    "reduction", bool, ("For",), "a reduction loop (`allo.reduction`, the k loop of a matmul)", ("dsl",), (), MLIR)
RUN_TIME_STEP = _declare(
    "_run_time_step", bool, ("For",), "the counted form of `range(a, b, step)` with a step read at run time (its "
    "variable is `a + step * t`, not affine): builds with entry checks check its accesses in every iteration",
    ("dsl",), ("transforms",), NEVER)

# ----------------------------------------------------------------------------- buffers (Buffer.attrs)
PARTITION = _declare(
    "partition", list, ("Buffer",), "array partitions, a list of (Partition, dim, factor): dim 1-based, 0 = all "
    "dims; factor 0 for complete (`s.partition`)", ("schedule",), ("schedule", "render", "hls", "qor", "dse", "rtl"), VIEW,
    derived=("Func",))
STREAM = _declare(
    "stream", int, ("Buffer",), "the array is a FIFO of this depth between producer and consumer (`s.to`)",
    ("schedule", "dsl"), ("transforms", "hls", "qor", "rtl"), VIEW)
STREAM_SPACE = _declare(
    "_stream_space", tuple, ("Buffer",), "the stream is an array of FIFOs: these dimensions (0-based) index "
    "the FIFO, the others its elements in row-major order (`s.to(buf, pe, axis=...)` after unfold)",
    ("schedule",), ("hls", "rtl"), NEVER)
DF_STREAM = _declare(
    "_df_stream", dict, ("Buffer",), "a stream of an `allo.dataflow` region: {'name': its source spelling "
    "(`fifo_A[1, 2]`), 'item': scalars per item, 'depth': items, 'bound': elements the build allots or None}",
    ("dsl",), ("dsl", "interp", "dataflow", "hls"), NEVER)
BIND_STORAGE = _declare(
    "bind_storage", dict, ("Buffer",), "storage binding {'resource', 'storage_type'[, 'latency']} of an "
    "`@ allo.Memory(...)` annotation (XLS: the RAM kind of an `__xls_memory`)", ("dsl",), ("render", "hls", "qor", "xls"),
    VIEW,
    derived=("Func",))
# upstream Allo's memref memory-space number of a binding: resource code * 16 + storage-type code
MEMORY_RESOURCE_CODE = {"AUTO": 0, "BRAM": 1, "URAM": 2, "LUTRAM": 3, "SRL": 4}
MEMORY_STORAGE_CODE = {None: 0, **{name: code for code, name in enumerate(
    ("RAM_1P", "RAM_2P", "RAM_T2P", "RAM_1WNR", "RAM_S2P", "ROM_1P", "ROM_2P", "ROM_NP"), start=1)}}


def memory_space(binding) -> int:
    """The memory-space number of a `bind_storage` entry (0 for None or AUTO without a type).

    Example: ``memory_space({"resource": "BRAM", "storage_type": "RAM_2P"}) == 18``."""
    if not binding:
        return 0
    return MEMORY_RESOURCE_CODE[binding["resource"]] * 16 + MEMORY_STORAGE_CODE[binding.get("storage_type")]


RANGE_STEP = _declare(
    "_range_step", str, ("Buffer",), "the local holding the run-time step of `range(a, b, step)` (value: the loop's "
    "name): instrumented builds raise AlloValueError when it is 0, as Python's range does", ("dsl",),
    ("transforms",), NEVER)
TEMP = _declare(
    "temp", bool, ("Buffer",), "a temporary of an array expression that no name has bound yet (a region argument's "
    "copy: space-time `s.to` drops the dead copy-in of an output FIFO)", ("dsl",), ("dsl", "schedule"), VIEW)
NAMED = _declare(
    "_named", bool, ("Buffer",), "a kernel variable name is bound to the buffer", ("dsl",), ("dsl",), NEVER)
REUSE = _declare(
    "_reuse", bool, ("Buffer",), "a reuse buffer of `s.reuse_at`: its contents carry state across iterations, "
    "so loop order is fixed", ("schedule",), ("schedule",), NEVER)
FILL = _declare(
    "_fill", str, ("For",), "a row/column fill loop of `s.reuse_at`: the name of the loop it serves (the fill is "
    "pipelined by default and takes the II of a loop pipelined inside the served loop)", ("schedule",),
    ("schedule",), NEVER)

STATEFUL = _declare(
    "_stateful", object, ("Buffer",), "a local declared `T @ Stateful`: its initial contents (an array of "
    "its shape); the value persists across calls (a mutable memref.global, a C++ `static`)", ("dsl",),
    ("render", "transforms", "llvm", "hls", "interp", "rtl"), NEVER)
VOLATILE = _declare(
    "_volatile", bool, ("Buffer",), "loads read the memory every time, never a copy kept in a register (the "
    "status array, whose abort flag a signal handler sets while a call runs)", ("transforms",), ("render",), NEVER)

# ----------------------------------------------------------------------------- functions (Func.attrs)
KERNEL = _declare(
    "kernel", str, ("Func",), "name of the kernel the function instantiates", ("dsl", "passes"), (), VIEW)
INLINE = _declare(
    "inline", bool, ("Func",), "HLS `inline` (True) or `inline off` (False) (`s.inline`)", ("schedule",), ("hls",),
    VIEW)
DEFAULTS = _declare(
    "_defaults", dict, ("Func",), "default values of scalar parameters {name: value}", ("dsl",), ("dsl", "llvm"),
    NEVER)
BOUNDS_CHECK = _declare(
    "_bounds_check", bool, ("Func",), "check indices at run time whatever the build's `bounds_check` "
    "(`@allo.kernel(bounds_check=True)`)", ("dsl", "transforms"), ("transforms", "hls"), NEVER)
DF_REGION = _declare(
    "_df_region", dict, ("Func",), "an `allo.dataflow` region: {'instances': [function names, in call order], "
    "'cyclic': instance names on a stream cycle (no sequential order exists)}", ("dsl",),
    ("interp", "dataflow"), NEVER)
USER_BANDS = _declare(
    "_user_bands", list, ("Func",), "band names given with `name=`; HLS loop labels keep them", ("dsl",), ("hls",),
    NEVER)

# ----------------------------------------------------------------------------- calls (CallStmt.attrs)
NAME = _declare(
    "name", str, ("CallStmt",), "the kernel variable a call's result is bound to; the renderer also writes every "
    "allocation's `Buffer.name`", ("dsl",), (), MLIR, derived=("Buffer",))

# ----------------------------------------------------------------------------- modules (Module.meta)
INSTANCES = _declare(
    "instances", dict, ("Module",), "{function name: (kernel name, template arguments key)} of the instances",
    ("dsl",), ("schedule",), NEVER)

CONFIG_OP = _declare(
    "config_op", dict, ("Module",), "default operator bindings {op: (impl, latency or None)}: Vitis `config_op "
    "<op> -impl <impl>` (`s.config_op`)", ("schedule",), ("hls", "qor"), NEVER)
CONFIG_OPS = ("mul", "add", "sub")
CONFIG_IMPLS = ("dsp", "fabric", "auto")

# ----------------------------------------------------------------------------- written by the renderer
LOOP_NAME = _declare("loop_name", str, (), "`For.name`", ("render",), (), MLIR, derived=("For",))
ARG_NAMES = _declare("arg_names", list, (), "parameter names", ("render",), ("rtl",), MLIR, derived=("Func",))
ITYPES = _declare("itypes", str, (), "signedness of each parameter ('u' unsigned, '_' else)", ("render",), (), VIEW,
                  derived=("Func",))
OTYPES = _declare("otypes", str, (), "signedness of each result", ("render",), (), VIEW, derived=("Func",))
PARTITION_MAP = _declare("partition_map", str, (), "bank/offset affine map of a partitioned array",
                         ("render",), (), VIEW, derived=("Buffer", "Func"))
FROM = _declare("from", str, (), "name of the buffer a load reads", ("render",), (), MLIR, derived=("Load",))
TO = _declare("to", str, (), "name of the buffer a store writes", ("render",), (), MLIR, derived=("Store",))
