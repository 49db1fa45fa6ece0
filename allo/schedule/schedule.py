"""The Schedule: a kernel's IR module plus the log of applied primitives.

Each primitive resolves its string/handle arguments first, snapshots the module, applies the
rewrite, and on any failure restores the snapshot and raises ScheduleError (atomic). Applied
steps are recorded as `Step`s; `compose` replays another schedule's steps on an instance.

Example::

    s = allo.customize(gemm)
    s.reorder("k", "j")
    s.pipeline("j")
    print(s)              # the recipe
    print(s.module)       # MLIR (affine dialect)
    mod = s.build()
"""
from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass, field

from ..dsl.kernel import KernelDef, KernelInstance
from ..errors import AlloError, ScheduleError, clean
from ..ir.check import verify_func
from ..ir.loops import BandHandle, LoopHandle, get_loops
from ..ir.nodes import Buffer, CallStmt, Module
from ..ir.visit import iter_buffers, walk_stmts
from ..render import BIG_GLOBAL, _render, parse_with_globals
from . import primitives as P
from .kernel_ir import build_ir_for_user
from .streams import to
from .usedef import UseDefChain


def _check_options(builder, target, kw, **not_applicable):
    """Reject build options the target does not take (instead of a raw TypeError or silence)."""
    valid = [p for p in inspect.signature(builder).parameters if p not in ("mod", "target")]
    bad = sorted(k for k in kw if k not in valid) + sorted(k for k, v in not_applicable.items() if v is not None)
    if bad:
        raise AlloError(f"build(target={target!r}): unknown option(s) {', '.join(bad)}; options for this target: "
                        f"{', '.join(valid)}")


@dataclass(frozen=True)
class Step:
    """One applied primitive: name, target function, and resolved (string) arguments."""

    primitive: str
    func: str
    args: tuple
    kwargs: tuple = field(default_factory=tuple)

    def __str__(self):
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return f"{self.primitive}({', '.join(parts)})  @{self.func}"


@dataclass(frozen=True)
class BufferHandle:
    """Names a buffer of a function: `s.C`, or the result of `s.reuse_at(...)`."""

    func_name: str
    name: str

    def __str__(self):
        return f"{self.func_name}:{self.name}"


class _NoSuchBuffer(ScheduleError, AttributeError):
    """`s.X` for a buffer that does not exist: an AlloError (and an AttributeError, for hasattr)."""


_VERIFY_CONTEXT = None


def _verify_context():
    """One MLIR context reused for verification (creating a context costs milliseconds)."""
    global _VERIFY_CONTEXT
    if _VERIFY_CONTEXT is None:
        from mlir import ir

        _VERIFY_CONTEXT = ir.Context()
    return _VERIFY_CONTEXT


def _stream_to(module, func_name, target, dst, depth=-1):
    return to(module, func_name, target, dst, depth)


MODULE_PRIMITIVES = {"to": _stream_to}  # primitives that rewrite several functions at once


class Partition:
    """Partition kinds for `s.partition(..., partition_type=...)`."""

    Complete = "complete"
    Block = "block"
    Cyclic = "cyclic"


class Schedule:
    """See module docstring. Public attributes: `module` (mlir.ir.Module), `top_func_name`, `steps`."""

    def __init__(self, ir_module, kernel=None, targs=()):
        self.ir = ir_module
        self.kernel = kernel
        self.targs = tuple(targs)
        self.top_func_name = ir_module.top
        self.steps = []
        self._mlir_cache = None
        self._unchecked = False  # set only while `replay(..., checked=False)` runs

    # ------------------------------------------------------------------ views
    @property
    def module(self):
        """The MLIR module (re-rendered after each primitive)."""
        if self._mlir_cache is None:
            from ..render import to_mlir_module

            self._mlir_cache = to_mlir_module(self.ir, mode="view")
            from ..passes import register_module

            register_module(self._mlir_cache, self)
        return self._mlir_cache

    @property
    def use_def_chain(self):
        """Which tensors are computed from which (`s.use_def_chain["kernel.A"].users`); see usedef.py."""
        return UseDefChain(self.ir)

    @property
    def top_func(self):
        """The top function of the schedule's loop IR (`allo.ir.nodes.Func`)."""
        return self.ir.func(self.top_func_name)

    def __str__(self):
        lines = [f"Schedule of {self.top_func_name} ({len(self.steps)} step(s))"]
        lines += [f"  {i}: {s}" for i, s in enumerate(self.steps)]
        return "\n".join(lines)

    def __repr__(self):
        return f"<allo.Schedule {self.top_func_name}: {len(self.steps)} step(s)>"

    def __getattr__(self, name):
        # s.C -> buffer handle of the top function
        if name.startswith("_") or name in ("ir", "kernel", "targs", "steps", "top_func_name", "use_def_chain"):
            raise AttributeError(name)
        func = self.ir.func(self.top_func_name)

        bufs = iter_buffers(func)
        for b in bufs:
            if b.name == name:
                return BufferHandle(func.name, name)
        names = ", ".join(dict.fromkeys(b.name for b in bufs)) or "(none)"
        raise _NoSuchBuffer(f"function {self.top_func_name!r} has no argument or local named {name!r}; "
                            f"buffers: {names} (use 'func:name' for other functions)")

    # ------------------------------------------------------------------ build
    def build(self, target: str = "llvm", mode: str | None = None, project: str | None = None, threads: int | None = None, **kw):
        """Build for `target` ("llvm", "vhls", "vitis_hls", "rtl", "calyx", "mlir"); see README.md
        ("Builds") and docs/rtl.md (`rtl`: SystemVerilog through CIRCT, simulated with Verilator).

        LLVM options: `threads`, `opt_level`, `optimize`, `fast_math`, `bounds_check`; HLS options:
        `mode` ("csim" runs under g++), `project`, `timeout` (seconds per C simulation run),
        `bounds_check`, `bundle`, `part`, `clock_ns`.
        An unknown option is an AlloError listing the valid ones.

        Example::

            mod = s.build(bounds_check=True)       # every data-dependent index checked at run time
            hls = s.build(target="vhls", mode="csim", project="gemm.prj", timeout=60)
        """
        try:
            if target == "llvm":
                from ..backend.llvm.module import build_llvm
                from ..transforms.streams import lower_streams

                _check_options(build_llvm, target, kw, mode=mode, project=project)
                return build_llvm(lower_streams(self.ir.clone()), threads=threads, **kw)
            if target in ("vhls", "vitis_hls"):
                from ..backend.hls import build_hls

                _check_options(build_hls, target, kw)
                return build_hls(self.ir.clone(), mode=mode, project=project, target=target, **kw)
            if target == "mlir":
                return self
            if target in ("rtl", "calyx"):  # options of other targets are refused, not ignored
                from ..transforms.streams import lower_streams

                given = {k: v for k, v in (("mode", mode), ("project", project), ("threads", threads)) if v is not None}
                if target == "rtl":
                    from ..backend.rtl import build_rtl

                    return build_rtl(lower_streams(self.ir.clone()), **given, **kw)
                from ..backend.rtl.calyx import build_calyx

                return build_calyx(lower_streams(self.ir.clone()), **given, **kw)
        except AlloError as e:
            raise clean(e) from None
        absent = {"ihls": "Intel HLS (ihls)", "tapa": "TAPA", "catapult": "Catapult HLS", "aie": "AMD AI Engine (aie)",
                  "xls": "Google XLS", "spmw": "the SPMW dataflow backend", "simulator": "the dataflow simulator"}
        if target in absent:
            raise AlloError(f"build target {target!r}: {absent[target]} code generation is not supported by allo; "
                            f"supported targets: 'llvm', 'vhls', 'vitis_hls', 'rtl', 'calyx', 'mlir'")
        raise AlloError(f"unknown build target {target!r}; use 'llvm', 'vhls', 'vitis_hls', 'rtl', 'calyx' or 'mlir'")

    # ------------------------------------------------------------------ primitive plumbing
    def _apply(self, primitive, func_name, args, kwargs, fn, whole_module=False):
        """Run `fn()` atomically and record the step.

        Most primitives only rewrite their target function, so the snapshot is that function alone
        (cheap even for models with many instances and large weights); `whole_module` primitives
        (streams between kernels) snapshot the module."""
        if getattr(self, "_unchecked", False):
            return self._apply_unchecked(primitive, func_name, args, kwargs, fn)
        names = self._func_names()
        pos = names.index(func_name) if func_name in names and not whole_module else None
        snapshot = self.ir.funcs[pos].clone() if pos is not None else self.ir.clone()

        def restore():
            if pos is not None:
                self.ir.funcs[pos] = snapshot
            else:
                self.ir = snapshot
            self._mlir_cache = None

        try:
            result = fn()
            self._verify(func_name)
        except AlloError as e:
            restore()
            if not isinstance(e, ScheduleError):
                e = ScheduleError(f"{primitive}: {e}")
            raise clean(e) from None
        except Exception as e:  # an internal failure must not leave a half-done module
            restore()
            raise ScheduleError(f"{primitive}{tuple(args)}: cannot apply ({type(e).__name__}: {e})") from None
        self._mlir_cache = None
        self.steps.append(Step(primitive, func_name, tuple(args), tuple(sorted(kwargs.items()))))
        return result

    def _apply_unchecked(self, primitive, func_name, args, kwargs, fn):
        """`_apply` without the snapshot and the MLIR verifier (the Python structure check stays)."""
        result = fn()
        if func_name in self._func_names():
            verify_func(self.ir.func(func_name))
        self._mlir_cache = None
        self.steps.append(Step(primitive, func_name, tuple(args), tuple(sorted(kwargs.items()))))
        return result

    def replay(self, steps, checked: bool = True) -> list:
        """Apply recorded steps in order: `Step`s (`other.steps`) or `(primitive, func, args, kwargs)`
        tuples, kwargs a dict or (name, value) pairs. Returns each step's result (buffer handles
        for buffer_at/reuse_at, else None). An argument `"$k"` stands for the name of the buffer
        step k returned (recipes recorded before the buffer existed).

        `checked=False` skips the per-step snapshot and MLIR verification (a failing step then
        leaves the schedule half-changed): for throw-away schedules, e.g. allo.dse scoring
        thousands of candidates, which replays its best ones again with checks before use.

        Example::

            s2 = allo.customize(gemm)
            s2.replay(s.steps)        # same as s2.compose(s) for a schedule of the same kernel
        """
        results = []
        self._unchecked = not checked
        try:
            for step in steps:
                if isinstance(step, Step):
                    prim, func, args, kwargs = step.primitive, step.func, step.args, step.kwargs
                else:
                    prim, func, args, kwargs = step
                args = tuple(self._deref(a, results) for a in args)
                out = self._run(prim, func, args, dict(kwargs))
                results.append(BufferHandle(func, out.name) if isinstance(out, Buffer) else None)
        finally:
            self._unchecked = False
        return results

    @staticmethod
    def _deref(arg, results):
        if isinstance(arg, str) and arg.startswith("$") and arg[1:].isdigit():
            k = int(arg[1:])
            if k >= len(results) or results[k] is None:
                raise ScheduleError(f"replay: argument {arg!r} refers to step {k}, which returned no buffer")
            return results[k].name
        return arg

    def _verify(self, func_name):
        """Check the rewritten function: structure in Python, then MLIR's verifier on the function
        with its callees (weights are not attached: verification needs only their types)."""
        if func_name not in self._func_names():
            return
        func = self.ir.func(func_name)
        verify_func(func)
        callees, todo = set(), [func]
        while todo:  # the callees rendered with it need their own callees
            for st in walk_stmts(todo.pop().body):
                if isinstance(st, CallStmt) and st.callee not in callees and st.callee in self._func_names():
                    callees.add(st.callee)
                    todo.append(self.ir.func(st.callee))
        part = Module([f for f in self.ir.funcs if f.name in callees and f is not func] + [func], func.name, self.ir.meta)
        text, _ = _render(part, "view", big_limit=BIG_GLOBAL)
        parse_with_globals(text, {}, _verify_context())

    # ------------------------------------------------------------------ addressing
    def _func_names(self):
        return [f.name for f in self.ir.funcs]

    def _split_func(self, target):
        """(func name, local address) for a loop/buffer address of any accepted form."""
        if isinstance(target, (LoopHandle, BandHandle, BufferHandle)):
            return target.func_name, target
        if isinstance(target, str):
            head, sep, rest = target.partition(":")
            if sep and head in self._func_names():
                return head, rest
            return self.top_func_name, target
        name = getattr(target, "name", None)  # an allo.ir.nodes Buffer or For
        if isinstance(name, str):
            return self.top_func_name, name
        raise ScheduleError(f"cannot address {target!r}: use a name like 'j', 'func:j' or a handle from get_loops()")

    def _func(self, name, primitive):
        try:
            return self.ir.func(name)
        except KeyError:
            raise ScheduleError(f"{primitive}: no function named {name!r}; functions: {', '.join(self._func_names())}") from None

    @staticmethod
    def _addr(x):
        """The replayable string form of a resolved address."""
        if isinstance(x, LoopHandle):
            return f"{x.band}/{x.name}" if x.band else x.name
        if isinstance(x, BandHandle):
            return x.band
        if isinstance(x, BufferHandle):
            return x.name
        return x

    def get_loops(self, func: str | None = None):
        """Handles for the bands of `func` (default: the top function): `loops["S_i_0"]["j"]`."""
        return get_loops(self._func(func or self.top_func_name, "get_loops"))

    # ------------------------------------------------------------------ primitives
    def _run(self, primitive, func_name, args, kwargs=None):
        """Apply primitive `primitive` with resolved string args on `func_name` (used by replay too)."""
        kwargs = dict(kwargs or {})
        if primitive in MODULE_PRIMITIVES:
            impl = MODULE_PRIMITIVES[primitive]
            self._func(func_name, primitive)
            return self._apply(primitive, func_name, args, kwargs,
                               lambda: impl(self.ir, func_name, *args, **kwargs), whole_module=True)
        impl = getattr(P, primitive)

        def do():
            return impl(self._func(func_name, primitive), *args, **kwargs)

        return self._apply(primitive, func_name, args, kwargs, do)

    def _loop_prim(self, primitive, axis, *extra, **kwargs):
        func_name, addr = self._split_func(axis)
        return self._run(primitive, func_name, (self._addr(addr),) + extra, kwargs)

    def split(self, axis, factor):
        """Split loop `axis` into `axis.outer` and `axis.inner` (inner extent `factor`).

        Before: `for i in range(N)`; after: `for i.outer: for i.inner in range(factor)` (guarded
        when factor does not divide N)."""
        self._loop_prim("split", axis, factor)
        return self

    def reorder(self, *axes):
        """Permute loops of one perfect nest; `axes` are listed outermost first."""
        if not axes:
            raise ScheduleError("reorder: needs at least one loop")
        funcs = {self._split_func(a)[0] for a in axes}
        if len(funcs) != 1:
            raise ScheduleError(f"reorder: loops must belong to one function, got {sorted(funcs)}")
        func_name = funcs.pop()
        self._run("reorder", func_name, tuple(self._addr(self._split_func(a)[1]) for a in axes))
        return self

    def fuse(self, *axes):
        """Fuse perfectly nested loops into one loop named `i_j_fused`."""
        funcs = {self._split_func(a)[0] for a in axes}
        if len(funcs) != 1:
            raise ScheduleError(f"fuse: loops must belong to one function, got {sorted(funcs)}")
        func_name = funcs.pop()
        self._run("fuse", func_name, tuple(self._addr(self._split_func(a)[1]) for a in axes))
        return self

    def unroll(self, axis, factor=0):
        """Unroll loop `axis` by `factor` (0 = fully)."""
        self._loop_prim("unroll", axis, factor)
        return self

    def pipeline(self, axis, initiation_interval=1, rewind=False):
        """Pipeline loop `axis` with the given initiation interval (HLS `pipeline II=n`);
        `rewind=True` adds `rewind` (successive runs of the loop overlap)."""
        if rewind:
            self._loop_prim("pipeline", axis, initiation_interval, rewind=True)
        else:
            self._loop_prim("pipeline", axis, initiation_interval)
        return self

    def parallel(self, axis):
        """Run loop `axis` in parallel (OpenMP on LLVM, unroll-free hint for HLS)."""
        self._loop_prim("parallel", axis)
        return self

    def partition(self, target, partition_type=Partition.Complete, dim=0, factor=0):
        """Partition array `target` (HLS `array_partition`); dim is 1-based, 0 = all dims."""
        func_name, addr = self._split_func(target)
        kind = getattr(partition_type, "value", partition_type)
        if isinstance(kind, int) and not isinstance(kind, bool) and 0 <= kind <= 2:
            kind = ("complete", "block", "cyclic")[kind]  # upstream Allo's Partition enum values
        kind = str(kind).lower()
        self._run("partition", func_name, (self._addr(addr), kind, dim, factor))
        return self

    def reshape(self, target, shape):
        """Give array `target` a new shape with the same elements in row-major order; every access is
        rewritten (`B[i, j]` of B[10, 10] reshaped to (2, 5, 2, 5) reads `B[i // 5, i % 5, j // 5, j % 5]`).
        Reshaping an argument or a returned array changes the function's signature (top function only).

        Example: `s.reshape(s.B, (8, 2, 4))`."""
        func_name, addr = self._split_func(target)
        shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
        callers = sorted({f.name for f in self.ir.funcs if f.name != func_name and self._calls(f, func_name)})
        self._run("reshape", func_name, (self._addr(addr), shape), {"callers": tuple(callers)} if callers else {})
        return self

    @staticmethod
    def _calls(func, callee):
        return any(isinstance(st, CallStmt) and st.callee == callee for st in walk_stmts(func.body))

    def unfold(self, band_name, axes):
        """Copy the loops at positions `axes` (consecutive, 0 = outermost) of band `band_name` out into
        one body per iteration (processing elements built side by side in HLS).

        Example: `s.unfold("PE", [0, 1])` on `for i, j in allo.grid(2, 2, name="PE")` gives 4 bodies."""
        func_name, band = (band_name.split(":", 1) if isinstance(band_name, str) and ":" in band_name
                           else (self.top_func_name, getattr(band_name, "band", band_name)))
        axes = [axes] if isinstance(axes, int) else list(axes)
        self._run("unfold", func_name, (band, tuple(axes)))
        return self

    def inline(self, func_name=None):
        """Inline function `func_name` (default: the top function) into its callers in HLS
        (`#pragma HLS inline`)."""
        name = func_name or self.top_func_name
        self._func(name, "inline")
        self._run("inline", name, ())
        return self

    def buffer_at(self, target, axis):
        """Accumulate `target` in a local buffer inside loop `axis` (init / compute / write-back loops)."""
        func_name, addr = self._split_func(target)
        loop = self._axis_in(func_name, axis, "buffer_at")
        result = self._run("buffer_at", func_name, (self._addr(addr), self._addr(loop)))
        return BufferHandle(func_name, result.name) if hasattr(result, "name") else result

    def reuse_at(self, target, axis):
        """Create a reuse (line/window) buffer of `target` along loop `axis`; returns its handle."""
        func_name, addr = self._split_func(target)
        loop = self._axis_in(func_name, axis, "reuse_at")
        result = self._run("reuse_at", func_name, (self._addr(addr), self._addr(loop)))
        return BufferHandle(func_name, result.name) if hasattr(result, "name") else result

    def _axis_in(self, func_name, axis, primitive):
        """The local address of loop `axis` of the target's function; a loop explicitly in
        another function ("func:i" or a handle) is an error, not silently re-homed."""
        f, loop = self._split_func(axis)
        explicit = hasattr(axis, "func_name") or (isinstance(axis, str) and axis.partition(":")[0] in self._func_names())
        if explicit and f != func_name:
            raise ScheduleError(f"{primitive}: argument 'axis': loop {axis} is in function {f!r}, but the target "
                                f"buffer is in function {func_name!r}")
        return loop

    def compute_at(self, from_loop, target_loop):
        """Move the producer band containing `from_loop` into the consumer band at `target_loop`."""
        f1, a1 = self._split_func(from_loop)
        f2, a2 = self._split_func(target_loop)
        if f1 != f2:
            raise ScheduleError(f"compute_at: loops must belong to one function, got {f1!r} and {f2!r}")
        self._run("compute_at", f1, (self._addr(a1), self._addr(a2)))
        return self

    def to(self, target, dst, axis=None, depth=-1):
        """Stream array `target` from the kernel that writes it to kernel `dst` (an HLS FIFO).

        Upstream Allo's form: `target` is a local array of the calling function passed to two
        kernel calls; both kernels' parameters become `hls::stream` FIFOs of `depth` elements
        (-1 = all elements) and the caller becomes a dataflow region. Both kernels must access the
        array once per element in row-major order (a consumer load nested in loops that do not
        index it is hoisted out of them first).

        Example::

            s.to(s.out_AB, "mm2")            # mm1 -> mm2 through a FIFO
            s.to("top:tmp", "stage_N", depth=390)
        """
        if axis is not None:
            raise ScheduleError("to: argument 'axis': space-time streams (axis=) are not supported; "
                                "stream a whole array between two kernels")
        dst_name = dst if isinstance(dst, str) else getattr(dst, "__name__", None)
        if not isinstance(dst_name, str):
            raise ScheduleError(f"to: argument 'dst': expected the name of the consumer kernel, got {dst!r}")
        func_name, addr = self._split_func(target)
        self._run("to", func_name, (self._addr(addr), dst_name), {"depth": depth})
        return self

    def dataflow(self, func_or_axis=None):
        """Mark a function (by name) or a loop for HLS dataflow."""
        if func_or_axis is None or (isinstance(func_or_axis, str) and func_or_axis in self._func_names()):
            self._run("dataflow", func_or_axis or self.top_func_name, ())
            return self
        func_name, addr = self._split_func(func_or_axis)
        self._run("dataflow", func_name, (self._addr(addr),))
        return self

    # ------------------------------------------------------------------ composition
    def compose(self, sched_or_kernel, id=None, instantiate=None):  # noqa: A002 - upstream Allo's keyword
        """Replay another schedule's steps on the matching instance of this schedule.

        `sched_or_kernel` is a Schedule, or a kernel (its predefined schedule, if registered,
        is applied to a fresh instance built with `instantiate`). `id=None` targets the function
        with the kernel's bare name; `id="1"` targets `<kernel>_1`.

        Example::

            s.compose(nn.linear, id="1", instantiate=[float32, 8, 32, 16])   # schedules @linear_1
        """
        sub = self._sub_schedule(sched_or_kernel, instantiate)
        base = sub.top_func_name
        target = f"{base}_{id}" if id is not None else base
        if target not in self._func_names():
            raise ScheduleError(f"compose: no function {target!r} to apply the schedule of {base!r} to; "
                                f"functions: {', '.join(self._func_names())}")
        self._check_same_instance(sub, target)
        restore = self._snapshot({target if step.func == base else step.func for step in sub.steps})
        steps = list(self.steps)  # compose is atomic as a whole
        for k, step in enumerate(sub.steps):
            func = target if step.func == base else step.func
            try:
                self._run(step.primitive, func, step.args, dict(step.kwargs))
            except AlloError as e:
                restore()
                self.steps[:] = steps
                raise clean(ScheduleError(f"compose: step {k} of the schedule of {base!r} ({step}) does not "
                                           f"apply to {func!r}: {e}")) from None
        return self

    def _snapshot(self, touched):
        """A function restoring the module as it is now, given the functions about to change (only
        those are copied: cloning a whole imported model per compose was quadratic)."""
        funcs, meta, top = list(self.ir.funcs), copy.deepcopy(self.ir.meta), self.ir.top
        clones = {f.name: f.clone() for f in funcs if f.name in touched}

        def restore():
            self.ir.funcs[:] = [clones.get(f.name, f) for f in funcs]
            self.ir.meta, self.ir.top, self._mlir_cache = meta, top, None

        return restore

    def _sub_schedule(self, sched_or_kernel, instantiate):
        if isinstance(sched_or_kernel, Schedule):
            return sched_or_kernel
        if isinstance(sched_or_kernel, (KernelDef, KernelInstance)) or callable(sched_or_kernel):
            kernel = sched_or_kernel.kernel if isinstance(sched_or_kernel, KernelInstance) else sched_or_kernel
            if instantiate is None and isinstance(sched_or_kernel, KernelInstance):
                instantiate = list(sched_or_kernel.targs)
            sub = Schedule(*build_ir_for_user(kernel, instantiate))
            fn = getattr(kernel, "schedule_fn", None)
            if fn is not None:
                fn(sub)
            return sub
        raise ScheduleError(f"compose: expected a Schedule or a kernel, got {type(sched_or_kernel).__name__}")

    def _check_same_instance(self, sub, target):
        mine = self.ir.meta.get("instances", {}).get(target)
        theirs = sub.ir.meta.get("instances", {}).get(sub.top_func_name)
        if mine and theirs and mine != theirs:
            raise ScheduleError(f"compose: function {target!r} is an instance of {mine[0]} with template arguments "
                                f"{[a[1] for a in mine[1]]}, but the schedule was built for {[a[1] for a in theirs[1]]}")
