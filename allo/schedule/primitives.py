"""The schedule primitives, declared in one table: name, argument kinds and defaults, implementation,
scope. `Schedule`'s primitive methods (signatures, docstrings), their argument checks and `replay`
come from it (see declare.py); the names below are the function-level API (each rewrites a
`nodes.Func` in place, `to` the module).

Example::

    from allo.schedule import primitives as P
    P.split(func, "i", 4)
    P.reorder(func, "k", "j")
    P.buffer_at(func, "C", "i")
    [a.name for a in P.PRIMITIVES["split"].args]     # ['axis', 'factor']

Imports: ir, the implementations (same package), declare and kinds.
"""
from ..ir.attrs import CONFIG_IMPLS, CONFIG_OPS, PARTITION_KINDS, Partition
from ..ir.nodes import CallStmt
from ..ir.visit import walk_stmts
from .compute_at import compute_at as _compute_at
from .declare import Arg, Primitive, Table
from .kinds import (BAND, BUFFER, FLAG, FUNCTION, FUNCTION_OR_LOOP, LOOP, LOOPS, NON_NEGATIVE, OMIT, POSITIVE,
                    STREAM_DST, Choice, Derived, Int, Ints, OptionalInt, Unsupported)
from .loop_transforms import (dataflow as _dataflow, fuse as _fuse, parallel as _parallel, pipeline as _pipeline,
                              reorder as _reorder, split as _split, unroll as _unroll)
from .memory_transforms import buffer_at as _buffer_at, partition as _partition, reuse_at as _reuse_at
from .parallel_check import keeps_parallel_loops
from .reduce_tree import reduce_tree as _reduce_tree
from .streams import to as _to
from .structure_transforms import config_op as _config_op, inline as _inline, reshape as _reshape, unfold as _unfold

# The rewrites that move or create accesses re-check the loops already marked parallel
# (parallel_check.py). Attributes, partition and reshape (a one-to-one relayout of one array)
# cannot make two iterations touch the same element.
_split, _reorder, _fuse, _unfold, _buffer_at, _reuse_at, _compute_at, _to = (keeps_parallel_loops(f.__name__, f) for f in (
    _split, _reorder, _fuse, _unfold, _buffer_at, _reuse_at, _compute_at, _to))


def _callers(module, func_name):
    """The functions calling `func_name`: reshape may not change the signature of a called function."""
    callers = sorted({f.name for f in module.funcs if f.name != func_name and any(
        isinstance(st, CallStmt) and st.callee == func_name for st in walk_stmts(f.body))})
    return tuple(callers) or OMIT


PRIMITIVES = Table(
    Primitive("split", _split, [Arg("axis", LOOP), Arg("factor", POSITIVE)], """
        Split loop `axis` into `axis.outer` and `axis.inner` (inner extent `factor`).

        Before: `for i in range(N)`; after: `for i.outer: for i.inner in range(factor)` (guarded
        when factor does not divide N).
        Example: `s.split("i", 4)`."""),
    Primitive("reorder", _reorder, [Arg("axes", LOOPS, variadic=True)], """
        Permute loops of one perfect nest; `axes` are listed outermost first.

        Example: `s.reorder("k", "j")` on `for i: for j: for k` gives `for i: for k: for j`."""),
    Primitive("fuse", _fuse, [Arg("axes", LOOPS, variadic=True)], """
        Fuse perfectly nested loops into one loop named `i_j_fused`.

        Example: `s.fuse("i", "j")`."""),
    Primitive("unroll", _unroll, [Arg("axis", LOOP), Arg("factor", NON_NEGATIVE, 0)], """
        Unroll loop `axis` by `factor` (0 = fully).

        Example: `s.unroll("j", 4)`."""),
    Primitive("pipeline", _pipeline, [Arg("axis", LOOP), Arg("initiation_interval", POSITIVE, 1),
                                      Arg("rewind", FLAG, False, keyword=True)], """
        Pipeline loop `axis` with the given initiation interval (HLS `pipeline II=n`);
        `rewind=True` adds `rewind` (successive runs of the loop overlap).

        Example: `s.pipeline("j", initiation_interval=2)`."""),
    Primitive("parallel", _parallel, [Arg("axis", LOOP)], """
        Run loop `axis` in parallel (OpenMP on LLVM, unroll-free hint for HLS).

        Example: `s.parallel("i")`."""),
    Primitive("partition", _partition, [Arg("target", BUFFER), Arg("partition_type", Choice(PARTITION_KINDS),
                                                                   Partition.Complete),
                                        Arg("dim", NON_NEGATIVE, 0), Arg("factor", NON_NEGATIVE, 0)], """
        Partition array `target` (HLS `array_partition`); dim is 1-based, 0 = all dims.

        Example: `s.partition(s.A, allo.Partition.Cyclic, dim=2, factor=4)`."""),
    Primitive("reshape", _reshape, [Arg("target", BUFFER), Arg("shape", Ints("a tuple of positive integers")),
                                    Arg("callers", Derived("the functions calling the target's function", _callers),
                                        keyword=True)], """
        Give array `target` a new shape with the same elements in row-major order; every access is
        rewritten (`B[i, j]` of B[10, 10] reshaped to (2, 5, 2, 5) reads `B[i // 5, i % 5, j // 5, j % 5]`).
        Reshaping an argument or a returned array changes the function's signature (top function only).

        Example: `s.reshape(s.B, (8, 2, 4))`."""),
    Primitive("unfold", _unfold, [Arg("band_name", BAND), Arg("axes", Ints("a loop position or a list of them"))], """
        Copy the loops at positions `axes` (consecutive, 0 = outermost) of band `band_name` out into
        one body per iteration (processing elements built side by side in HLS).

        A call directly in an unfolded loop gets its own copy of the callee per iteration
        (`kernel_0`, `kernel_1`, ...).

        Returns the sorted axes (as upstream Allo does), which `to` takes as the space dimensions of
        an array of FIFOs: `pe = s.unfold("PE", [0, 1]); s.to(s.A_fifo, pe, axis=1)`.

        Example: `s.unfold("PE", [0, 1])` on `for i, j in allo.grid(2, 2, name="PE")` gives 4 bodies.""",
              scope="module", returns="axes"),
    Primitive("inline", _inline, [Arg("func_name", FUNCTION, None)], """
        Inline function `func_name` (default: the top function) into its callers in HLS
        (`#pragma HLS inline`).

        Example: `s.inline("helper")`."""),
    Primitive("buffer_at", _buffer_at, [Arg("target", BUFFER), Arg("axis", LOOP)], """
        Accumulate `target` in a local buffer inside loop `axis` (init / compute / write-back loops);
        returns the new buffer's handle. A plain loop name is a loop of the buffer's function.

        Example: `s.buffer_at(s.C, "i")`.""", returns="buffer"),
    Primitive("reuse_at", _reuse_at, [Arg("target", BUFFER), Arg("axis", LOOP)], """
        Create a reuse (line/window) buffer of `target` along loop `axis`; returns its handle.

        Example: `s.reuse_at(s.reuse_at(s.A, "y"), "x")` (a line buffer, then a window).""", returns="buffer"),
    Primitive("compute_at", _compute_at, [Arg("from_loop", LOOP), Arg("target_loop", LOOP)], """
        Move the producer band containing `from_loop` into the consumer band at `target_loop`.

        Example: `s.compute_at("j", "jj")`."""),
    Primitive("to", _to, [Arg("target", BUFFER), Arg("dst", STREAM_DST),
                          Arg("axis", OptionalInt(0), None, keyword=True),
                          Arg("depth", Int(-1), -1, keyword=True)], """
        Stream array `target` from the kernel that writes it to kernel `dst` (an HLS FIFO).

        Space-time form (upstream Allo's systolic arrays): `dst` is what `unfold` returned; the
        unfolded axes name the dimensions of `target` that index FIFOs, the others are the elements
        each FIFO carries (`s.to(s.A_fifo, pe, axis=1, depth=M + 1)`; `axis`, as upstream, has no
        effect). Every FIFO must have one writer and one reader, each visiting its elements once in
        row-major order (checked by tracing the accesses).

        Upstream Allo's form: `target` is a local array of the calling function passed to two
        kernel calls; both kernels' parameters become `hls::stream` FIFOs of `depth` elements
        (-1 = all elements) and the caller becomes a dataflow region. Both kernels must access the
        array once per element in row-major order (a consumer load nested in loops that do not
        index it is hoisted out of them first).

        Example::

            s.to(s.out_AB, "mm2")            # mm1 -> mm2 through a FIFO
            s.to("top:tmp", "stage_N", depth=390)""", scope="module"),
    Primitive("reduce_tree", _reduce_tree, [Arg("axis", LOOP)], """
        Sum reduction loop `axis` (`for j: acc[i] += term`) as partial sums and a balanced adder tree:
        `part[j] = term`, then `acc[i] += ((part[0] + part[1]) + ...)`, so the loop-carried path of
        `acc` is one adder when `axis` is unrolled. Floating-point sums are reassociated (results may
        differ in the last bits); integer sums are exact. When `axis`'s body is one loop (a 2-D block
        of lanes), each accumulation is summed along the lane loops its index does not use
        (bicg: `q[i]` over the j lanes, `s[j]` over the i lanes).

        Example: `s.split("j", 8); s.reduce_tree("j.inner"); s.unroll("j.inner")`."""),
    Primitive("dataflow", _dataflow, [Arg("func_or_axis", FUNCTION_OR_LOOP, None)], """
        Mark a function (by name; default: the top function) or a loop for HLS dataflow.

        Example: `s.dataflow()`, `s.dataflow("i")`."""),
    Primitive("config_op", _config_op, [Arg("op", Choice(CONFIG_OPS)), Arg("impl", Choice(CONFIG_IMPLS), "auto"),
                                        Arg("latency", Int(-1), -1, keyword=True)], """
        Bind every integer `op` ("mul", "add", "sub") of the design to `impl`: "dsp" (DSP48
        slices, also for narrow operands), "fabric" (LUTs) or "auto" (Vitis's width rule: a
        multiplier with an operand of at most 10 bits in LUTs, wider in DSPs). Vitis's `config_op
        <op> -impl <impl> [-latency n]` in run.tcl; `allo.report` counts DSP / LUT the same way.

        Example: `s.config_op("mul", "fabric")` keeps int16 multipliers out of DSPs.""",
              scope="module"),
)

split = PRIMITIVES["split"].function
reorder = PRIMITIVES["reorder"].function
fuse = PRIMITIVES["fuse"].function
unroll = PRIMITIVES["unroll"].function
pipeline = PRIMITIVES["pipeline"].function
parallel = PRIMITIVES["parallel"].function
partition = PRIMITIVES["partition"].function
reshape = PRIMITIVES["reshape"].function
unfold = PRIMITIVES["unfold"].function
inline = PRIMITIVES["inline"].function
buffer_at = PRIMITIVES["buffer_at"].function
reuse_at = PRIMITIVES["reuse_at"].function
compute_at = PRIMITIVES["compute_at"].function
to = PRIMITIVES["to"].function
dataflow = PRIMITIVES["dataflow"].function
reduce_tree = PRIMITIVES["reduce_tree"].function
config_op = PRIMITIVES["config_op"].function

__all__ = ["PRIMITIVES", "Partition", "PARTITION_KINDS", "split", "reorder", "fuse", "unroll", "pipeline", "parallel",
           "partition", "reshape", "unfold", "inline", "buffer_at", "reuse_at", "compute_at", "to", "dataflow", "reduce_tree",
           "config_op"]
