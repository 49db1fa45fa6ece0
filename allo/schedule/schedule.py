"""The Schedule: a kernel's IR module, the log of applied steps, apply/verify, replay and compose.

The primitive methods (`s.split(axis, factor)`, `s.partition(...)`, ...) come from the declared
table (primitives.py, declare.py): each resolves its arguments to one function and a `Step` and
calls `apply`, which checks the values, snapshots what the primitive rewrites, applies it, verifies
the result and on any failure restores the snapshot and raises ScheduleError (atomic). Applied
steps are logged in `steps`; `replay` applies recorded steps, `compose` another schedule's steps
on an instance. A recording schedule (`record_only=True`, what allo.dse expands search spaces
with) resolves and logs steps without applying them. Builds go through the target registry
(targets.py).

Example::

    s = allo.customize(gemm)
    s.reorder("k", "j")
    s.pipeline("j")
    print(s)              # the recipe
    print(s.module)       # MLIR (affine dialect)
    mod = s.build()

Imports: errors, ir, render, dsl.kernel, and the schedule package.
"""
from __future__ import annotations

import copy
import weakref
from dataclasses import dataclass

from ..dsl.kernel import KernelDef, KernelInstance
from ..errors import AlloError, ScheduleError, clean
from ..ir.attrs import INSTANCES, PIPELINE_II
from ..ir.check import verify_func
from ..ir.loops import get_loops
from ..ir.nodes import Buffer, CallStmt, For, Module
from ..ir.visit import iter_buffers, walk_stmts
from ..render import BIG_GLOBAL, parse_with_globals, render_text, to_mlir_module
from . import targets
from .declare import Step
from .kernel_ir import build_ir_for_user
from .kinds import BufferHandle
from .primitives import PRIMITIVES
from .usedef import UseDefChain

_VERIFY_CONTEXT = None
_RENDERED = {}  # id(mlir module) -> (weakref to it, weakref to the Schedule whose `module` it is)


def _verify_context():
    """One MLIR context reused for verification (creating a context costs milliseconds)."""
    global _VERIFY_CONTEXT
    if _VERIFY_CONTEXT is None:
        from mlir import ir

        _VERIFY_CONTEXT = ir.Context()
    return _VERIFY_CONTEXT


def rendered_by(module):
    """The live Schedule whose `s.module` is `module`, else None (allo.passes takes either)."""
    entry = _RENDERED.get(id(module))
    if entry is not None and entry[0]() is module:
        return entry[1]()
    return None


class _NoSuchBuffer(ScheduleError, AttributeError):
    """`s.X` for a buffer that does not exist: an AlloError (and an AttributeError, for hasattr)."""


@dataclass(frozen=True)
class Placeholder:
    """The buffer a recorded buffer_at/reuse_at step will make: `"$k"` (k = the step's index),
    which `replay` resolves to the buffer's name."""

    name: str


def _loop_ids(ir, func_name) -> set:
    return {id(lp) for lp in get_loops_flat(ir, func_name)}


def get_loops_flat(ir, func_name) -> list:
    names = [f.name for f in ir.funcs]
    return [s for s in walk_stmts(ir.func(func_name).body) if isinstance(s, For)] if func_name in names else []


def _new_loops(ir, func_name, before) -> str:
    """"a, b (pipelined II=1)": the loops of `func_name` not in `before`, with their pipeline."""
    out = []
    for lp in get_loops_flat(ir, func_name):
        if id(lp) not in before:
            ii = lp.attrs.get(PIPELINE_II)
            out.append(lp.name + (f" (pipelined II={ii})" if ii is not None else ""))
    return ", ".join(out)


@PRIMITIVES.install
class Schedule:
    """See module docstring. Public attributes: `module` (mlir.ir.Module), `top_func_name`, `steps`,
    `record_only`."""

    def __init__(self, ir_module, kernel=None, targs=(), record_only: bool = False):
        self.ir = ir_module
        self.kernel = kernel
        self.targs = tuple(targs)
        self.top_func_name = ir_module.top
        self.steps = []
        self.created = {}  # step index -> the loops a buffer_at/reuse_at step made (names users can address)
        self.record_only = record_only
        self._mlir_cache = None
        self._unchecked = False  # set only while `replay(..., checked=False)` runs

    # ------------------------------------------------------------------ views
    @property
    def module(self):
        """The MLIR module (re-rendered after each primitive)."""
        if self._mlir_cache is None:
            self._mlir_cache = to_mlir_module(self.ir, mode="view")
            _RENDERED[id(self._mlir_cache)] = (weakref.ref(self._mlir_cache), weakref.ref(self))
        return self._mlir_cache

    @property
    def use_def_chain(self):
        """Which tensors are computed from which (`s.use_def_chain["kernel.A"].users`); see usedef.py."""
        return UseDefChain(self.ir)

    def get_equivalent_variables(self, name: str) -> set:
        """Upstream Allo's form: the variables that are the same data as `name` ("func:name" or
        "func:<argument index>") through argument passing; see `UseDefChain.get_equivalent_variables`.

        Example: ``s.get_equivalent_variables("kernel:0")  # {"kernel:0", "gemm:0"}``"""
        return UseDefChain(self.ir).get_equivalent_variables(name)

    @property
    def top_func(self):
        """The top function of the schedule's loop IR (`allo.ir.nodes.Func`)."""
        return self.ir.func(self.top_func_name)

    def __str__(self):
        lines = [f"Schedule of {self.top_func_name} ({len(self.steps)} step(s))"]
        lines += [f"  {i}: {s}" + (f"  -> new loops: {self.created[i]}" if i in self.created else "")
                  for i, s in enumerate(self.steps)]
        return "\n".join(lines)

    def __repr__(self):
        return f"<allo.Schedule {self.top_func_name}: {len(self.steps)} step(s)>"

    def __getattr__(self, name):
        # s.C -> buffer handle of the top function
        if name.startswith("_") or name in ("ir", "kernel", "targs", "steps", "top_func_name", "use_def_chain",
                                            "record_only"):
            raise AttributeError(name)
        func = self.ir.func(self.top_func_name)

        bufs = iter_buffers(func)
        for b in bufs:
            if b.name == name:
                return BufferHandle(func.name, name)
        names = ", ".join(dict.fromkeys(b.name for b in bufs)) or "(none)"
        raise _NoSuchBuffer(f"function {self.top_func_name!r} has no argument or local named {name!r}; "
                            f"buffers: {names} (use 'func:name' for other functions)")

    def get_loops(self, func: str | None = None):
        """Handles for the bands of `func` (default: the top function): `loops["S_i_0"]["j"]`."""
        return get_loops(self._func(func or self.top_func_name, "get_loops"))

    # ------------------------------------------------------------------ build
    def build(self, target: str = "llvm", mode: str | None = None, project: str | None = None,
              threads: int | None = None, **kw):
        """Build for `target` ("llvm", "vhls", "vitis_hls", "rtl", "calyx", "catapult", "xls", "mlir"; see
        `allo.schedule.targets`), README.md ("Builds") and docs/rtl.md (`rtl`: SystemVerilog
        through CIRCT, simulated with Verilator).

        LLVM options: `threads`, `opt_level`, `optimize`, `fast_math`, `bounds_check`; HLS options:
        `mode` ("csim" runs under g++), `project`, `timeout` (seconds per C simulation run),
        `bounds_check`, `bundle`, `part`, `clock_ns`.
        An unknown option is an AlloError listing the valid ones.

        Example::

            mod = s.build(bounds_check=True)       # every data-dependent index checked at run time
            hls = s.build(target="vhls", mode="csim", project="gemm.prj", timeout=60)
        """
        return targets.build(self, target, mode=mode, project=project, threads=threads, **kw)

    # ------------------------------------------------------------------ apply, verify, replay
    def apply(self, step: Step):
        """Apply one resolved step (what every primitive method and `replay` call) and log it.

        The step's values are checked against the primitive's declaration; the rewrite is atomic
        (a failure restores the module and raises ScheduleError). Returns the primitive's result
        (the new Buffer of buffer_at/reuse_at, else None). On a recording schedule the step is only
        logged, and buffer results are `Placeholder("$k")`.

        Example: `s.apply(Step("split", "gemm", ("i", 4)))` is `s.split("gemm:i", 4)`."""
        if self.record_only:
            self.steps.append(step)
            return Placeholder(f"${len(self.steps) - 1}")
        prim = PRIMITIVES.get_primitive(step.primitive)
        self._func(step.func, prim.name)
        try:
            args, kwargs = prim.check(step.args, step.kwargs)
        except TypeError as e:
            raise ScheduleError(f"{prim.name}: {e}") from None
        head = (self.ir, step.func) if prim.scope == "module" else (self.ir.func(step.func),)
        checked = Step(step.primitive, step.func, args, tuple(sorted(kwargs.items())))
        before = _loop_ids(self.ir, step.func) if prim.returns == "buffer" else None
        if self._unchecked:
            result = prim.impl(*head, *args, **kwargs)
            if step.func in self._func_names():
                verify_func(self.ir.func(step.func))
        else:
            result = self._atomically(checked, lambda: prim.impl(*head, *args, **kwargs),
                                      whole_module=prim.scope == "module")
        self._mlir_cache = None
        if before is not None:
            made = _new_loops(self.ir, step.func, before)
            if made:
                self.created[len(self.steps)] = made
        self.steps.append(checked)
        return result

    def _atomically(self, step, fn, whole_module):
        """`fn()` then `_verify`, restoring the snapshot on any failure. Most primitives only
        rewrite their target function, so the snapshot is that function alone (cheap even for
        models with many instances and large weights); `whole_module` ones snapshot the module."""
        names = self._func_names()
        pos = names.index(step.func) if step.func in names and not whole_module else None
        snapshot = self.ir.funcs[pos].clone() if pos is not None else self.ir.clone()

        def restore():
            if pos is not None:
                self.ir.funcs[pos] = snapshot
            else:
                self.ir = snapshot
            self._mlir_cache = None

        try:
            result = fn()
            self._verify(step.func)
        except AlloError as e:
            restore()
            if not isinstance(e, ScheduleError):
                e = ScheduleError(f"{step.primitive}: {e}")
            raise clean(e) from None
        except Exception as e:  # an internal failure must not leave a half-done module
            restore()
            raise ScheduleError(f"{step.primitive}{tuple(step.args)}: cannot apply ({type(e).__name__}: {e})") from None
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
                if not isinstance(step, Step):
                    prim, func, args, kwargs = step
                    step = Step(prim, func, tuple(args), tuple(dict(kwargs).items()))
                args = tuple(self._deref(a, results) for a in step.args)
                out = self.apply(Step(step.primitive, step.func, args, step.kwargs))
                results.append(BufferHandle(step.func, out.name) if isinstance(out, Buffer) else None)
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
        text, _ = render_text(part, "view", big_limit=BIG_GLOBAL)
        parse_with_globals(text, {}, _verify_context())

    def _func_names(self):
        return [f.name for f in self.ir.funcs]

    def _func(self, name, primitive):
        try:
            return self.ir.func(name)
        except KeyError:
            raise ScheduleError(f"{primitive}: no function named {name!r}; functions: {', '.join(self._func_names())}") from None

    # ------------------------------------------------------------------ composition
    def compose(self, sched_or_kernel, id=None, instantiate=None):  # noqa: A002 - upstream Allo's keyword
        """Replay another schedule's steps on the matching instance of this schedule.

        `sched_or_kernel` is a Schedule, or a kernel (its predefined schedule, if registered,
        is applied to a fresh instance built with `instantiate`). `id=None` targets the function
        with the kernel's bare name; `id="1"` targets `<kernel>_1`.

        Example::

            s.compose(nn.linear, id="1", instantiate=[float32, 8, 32, 16])   # schedules @linear_1
            s.compose([s_blur_a, s_blur_b])        # a list: each in turn, all or nothing
        """
        if isinstance(sched_or_kernel, (list, tuple)):
            restore, steps = self._snapshot(set(self._func_names())), list(self.steps)
            try:
                for one in sched_or_kernel:
                    self.compose(one, id=id, instantiate=instantiate)
            except AlloError:
                restore()
                self.steps[:] = steps
                raise
            return self
        sub = self._sub_schedule(sched_or_kernel, instantiate)
        base = sub.top_func_name
        target = f"{base}_{id}" if id is not None else base
        if target not in self._func_names():
            raise ScheduleError(f"compose: no function {target!r} to apply the schedule of {base!r} to; "
                                f"functions: {', '.join(self._func_names())}")
        self._check_same_instance(sub, target)
        names = set(self._func_names())
        # a callee of the instance named after its id (`add` in `add_const_c7` is `add_c7`, see
        # dsl.builder's caller_id) takes the steps the schedule made on the callee
        where = {step.func: target if step.func == base else
                 f"{step.func}_{id}" if id is not None and f"{step.func}_{id}" in names else step.func
                 for step in sub.steps}
        restore = self._snapshot(set(where.values()))
        steps = list(self.steps)  # compose is atomic as a whole
        for k, step in enumerate(sub.steps):
            func = where[step.func]
            try:
                self.apply(Step(step.primitive, func, step.args, step.kwargs))
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

    @staticmethod
    def _signature(func):
        return [repr(p.type) for p in func.params], [repr(t) for t in func.result_types]

    def _check_same_instance(self, sub, target):
        mine = self.ir.meta.get(INSTANCES, {}).get(target)
        theirs = sub.ir.meta.get(INSTANCES, {}).get(sub.top_func_name)
        if mine and theirs and mine != theirs and self._signature(self.ir.func(target)) != \
                self._signature(sub.ir.func(sub.top_func_name)):
            # template arguments that only change values (add_const[5] vs [7]) leave the loops and
            # arrays the steps address alike; each step is still checked as it applies
            raise ScheduleError(f"compose: function {target!r} is an instance of {mine[0]} with template arguments "
                                f"{[a[1] for a in mine[1]]}, but the schedule was built for {[a[1] for a in theirs[1]]}")
