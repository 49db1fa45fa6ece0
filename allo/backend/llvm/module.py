"""The LLVM CPU backend: render (mode "llvm") -> CPU optimisation -> lower -> JIT -> call from numpy.

Stages:
1. `guards.instrument` (allo.transforms.guards) on a clone: zero-initialised locals, bounds checks
   with `bounds_check=True`, the interrupt flag polled by `while` loops and loops with run-time
   bounds, and those loops' entry checks (allo.transforms.runloops).
2. `cpu_opt.prepare`: the CPU optimiser's IR rewrites and renderer (cpu/; vector micro-kernels,
   OpenMP loops, fast math) or, with `optimize=False` or on any failure of the optimiser, the plain
   "llvm"-mode rendering of allo.render; either gives MLIR text, big global data and a pipeline.
3. `parse_with_globals`: an `mlir.ir.Module` in its own Context; `cpu_opt.optimize_mlir` sets
   fast-math flags; the pass pipeline (allo.render.pipelines), then the `ExecutionEngine`.
4. `marshal.CallPlan`: numpy <-> memref descriptors for each call.
Compiled engines are cached process-wide by (rendered text, global data, options) while a module
uses them, plus the last few builds (dropped modules release their engine, threads and memory);
a module with `@ Stateful` locals gets an engine of its own (its state is that build's).

Example::

    m = build_llvm(ir_module)
    C = m(A, B)            # numpy in, numpy out
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import os
import threading
import uuid
import weakref
from collections import OrderedDict

from ...dsl.calls import fill_defaults
from ...errors import AlloError, AlloTypeError, BackendError
from ...ir import nodes as N, visit as V
from ...ir.attrs import DEFAULTS, STATEFUL
from ...ir.effects import params_maybe_written
from ...render import ENTRY_PREFIX, parse_with_globals
from ...render.pipelines import LLVM_PIPELINE, run_pipeline
from ...render.process import check_mlir_process
from ...transforms.guards import ABORT, SITE, instrument, may_run_long
from .. import interrupt
from ..host import configure
from ..limits import check_allocation_sizes
from ..marshal import CallPlan
from .cpu_opt import Prepared, fallback_warning, optimize_mlir, prepare

DEFAULT_OPT_LEVEL = 2
CACHE_SIZE = 8  # engines kept alive after their modules are gone (see _remember)
_live: "weakref.WeakValueDictionary[str, _Compiled]" = weakref.WeakValueDictionary()
_recent: "OrderedDict[str, _Compiled]" = OrderedDict()
_cache_lock = threading.Lock()
_PACKED = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@functools.lru_cache(maxsize=None)
def runtime_libraries() -> tuple:
    """Shared libraries handed to the ExecutionEngine (MLIR's C runner utils, when installed)."""
    import mlir.ir

    root = os.path.dirname(os.path.abspath(mlir.ir.__file__))
    names = ["libmlir_c_runner_utils.so"]
    out = []
    for d in (os.path.join(root, "_mlir_libs"), os.path.join(root, "lib")):
        for n in names:
            p = os.path.join(d, n)
            if os.path.exists(p) and p not in out:
                out.append(p)
    gcc_s = _libgcc_path()
    if gcc_s:  # 128-bit division and int <-> float conversions are compiler-rt calls (__divti3, ...)
        out.append(gcc_s)
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _libgcc_path() -> str | None:
    """Full path of libgcc_s (loaded with libstdc++ by the MLIR libraries), or None."""
    try:
        ctypes.CDLL(ctypes.util.find_library("gcc_s") or "libgcc_s.so.1")
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if os.path.basename(path).startswith("libgcc_s.so") and os.path.exists(path):
                    return path
    except OSError:
        pass
    return None


class _Compiled:
    """A JIT'd module: keeps the MLIR context/module and the engine alive."""

    def __init__(self, module, engine, fn, mlir_text):
        self.module, self.engine, self.fn, self.mlir_text = module, engine, fn, mlir_text


def _cache_key(text: str, big: dict, opts: tuple) -> str:
    h = hashlib.sha256()
    h.update(text.encode())
    for name in sorted(big):
        arr = big[name]
        h.update(f"|{name}|{arr.dtype.str}|{arr.shape}|".encode())
        h.update(arr.tobytes())
    h.update(repr(opts).encode())
    return h.hexdigest()


def _skip_llvm_opt(module, top: str):
    """Mark the top function and its entry wrappers `optnone`: a top that only calls kernels (an
    imported model's forward: hundreds of calls, no loops) gains nothing from LLVM's -O2, whose
    cost grows faster than linearly with such a function (12-layer BERT: 19 s -> 6 s to JIT)."""
    from mlir import ir

    names = {top, f"{ENTRY_PREFIX}{top}"}
    names |= {f"_mlir_ciface_{n}" for n in list(names)} | {f"_mlir_{n}" for n in list(names)}
    flags = ir.ArrayAttr.get([ir.StringAttr.get("optnone"), ir.StringAttr.get("noinline")])
    for op in module.body.operations:
        if op.operation.name == "llvm.func" and ir.StringAttr(op.attributes["sym_name"]).value in names \
                and len(op.regions[0].blocks):
            op.attributes["passthrough"] = flags


def _internal_linkage(module):
    """Every function but the entry gets internal linkage: the ExecutionEngine then does not wrap
    each one in an `_mlir_<name>` interface that LLVM would compile a second copy of the kernel
    into (about 10-20% of the JIT time of an imported model)."""
    from mlir import ir

    internal = ir.Attribute.parse("#llvm.linkage<internal>")
    for op in module.body.operations:
        if op.operation.name == "llvm.func" and len(op.regions[0].blocks) \
                and ENTRY_PREFIX not in ir.StringAttr(op.attributes["sym_name"]).value:
            op.attributes["linkage"] = internal


# float32 -> bfloat16 as LLVM's x86 code generator calls it for every bf16 value it rounds; libgcc
# has it only from GCC 13 (Debian 12's GCC 12 lacks it), so the JIT gets its own copy, integer-only
# (arith-expand's round-to-nearest-even with a quiet NaN).
_BF16_RUNTIME = """
func.func @__truncsfbf2(%a: f32) -> bf16 {
  %r = arith.truncf %a : f32 to bf16
  return %r : bf16
}"""


def _add_bf16_runtime(module, ctx):
    """Define __truncsfbf2 in a lowered module that uses bfloat16 (see _BF16_RUNTIME)."""
    from mlir import ir

    support = ir.Module.parse(_BF16_RUNTIME, ctx)
    run_pipeline(support, "bf16 runtime", "arith-expand{include-bf16=true}, convert-func-to-llvm, "
                 "convert-arith-to-llvm, reconcile-unrealized-casts")
    first = module.body.operations[0]
    for op in list(support.body.operations):
        op.move_before(first)


def is_glue(func: N.Func) -> bool:
    """A function without loops (it only sequences calls and small scalar code)."""
    return not any(isinstance(s, (N.For, N.While)) for s in V.walk_stmts(func.body))


def _cached(key: str):
    with _cache_lock:
        compiled = _live.get(key)
        if compiled is None:
            compiled = _recent.get(key)
        if compiled is not None:
            _remember(key, compiled)
        return compiled


def clear_engine_cache() -> None:
    """Forget every compiled engine, so the next build compiles again (benchmarks time compilation
    with it; modules built before keep their engines)."""
    with _cache_lock:
        _live.clear()
        _recent.clear()


def _remember(key: str, compiled: _Compiled) -> None:
    """Call with _cache_lock held. Engines stay cached while a module uses them (weakly) and the
    last few builds stay alive (strongly): each engine owns LLVM worker threads and megabytes,
    so dropped modules must not be kept (a DSE builds thousands)."""
    _live[key] = compiled
    _recent[key] = compiled
    _recent.move_to_end(key)
    while len(_recent) > CACHE_SIZE:
        _recent.popitem(last=False)


def _compile(text: str, big: dict, top: str, opt_level: int, threads, prep=None, glue_top=False) -> _Compiled:
    check_mlir_process()  # before configure(), which JIT-compiles the SIGINT handler
    from mlir import ir
    from mlir.execution_engine import ExecutionEngine

    configure()  # the process-wide effects compiled code relies on, before the first engine exists
    ctx = ir.Context()
    module = parse_with_globals(text, big, ctx)
    with ctx:
        try:
            module.operation.verify()
        except Exception as e:
            raise BackendError(f"internal error: the rendered module does not verify: {e}") from None
        if prep is not None:
            optimize_mlir(module, prep)
        mlir_text = module.operation.get_asm(large_elements_limit=16)
        run_pipeline(module, "llvm-lowering", prep.pipeline if prep is not None else LLVM_PIPELINE)
        _internal_linkage(module)
        if "bf16" in mlir_text:
            _add_bf16_runtime(module, ctx)
        if glue_top:
            _skip_llvm_opt(module, top)
        libs = list(runtime_libraries()) + (list(prep.shared_libs) if prep is not None else [])
        try:
            engine = ExecutionEngine(module, opt_level=opt_level, shared_libs=libs)
        except Exception as e:
            raise BackendError(f"LLVM JIT compilation failed: {e}") from e
        addr = engine.raw_lookup(f"_mlir_ciface_{ENTRY_PREFIX}{top}")  # the packed (void**) wrapper
        if not addr:
            raise BackendError(f"JIT entry for {top!r} not found")
    return _Compiled(module, engine, _PACKED(addr), mlir_text)


class LLVMModule:
    """A kernel compiled for the CPU. `mod(*args)` checks the arguments, runs, returns numpy.

    Attributes: `top_func_name`, `mlir_text` (the module before lowering to the LLVM dialect),
    `opt_level`, `threads`, `cpu_report` (what allo.backend.llvm.cpu_opt optimised), `bounds_check`,
    `interruptible` (Ctrl-C stops a call: chosen for kernels with `while` loops or loops with
    run-time bounds, see allo.backend.interrupt; not with ALLO_PROCESS_EFFECTS=0).
    Options: `optimize=False` compiles the loops as written (serial, scalar); `fast_math=True`
    allows FMA contraction and reassociation of float reductions (results may change slightly);
    `bounds_check=True` checks every index not proven in range at run time (allo.transforms.guards).
    Modules pickle (the MLIR text is JIT-compiled again when unpickled).
    `mod` is compiled as given and rewritten on the way (pass a clone).

    Example::

        m = build_llvm(ir_module)
        out = m(np.ones((32, 32), np.float32), np.ones((32, 32), np.float32))
    """

    def __init__(self, mod: N.Module, threads: int | None = None, opt_level: int = DEFAULT_OPT_LEVEL,
                 optimize: bool = True, fast_math: bool = False, bounds_check: bool = False):
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise BackendError(f"threads must be a positive integer or None, got {threads!r}")
        self.top_func_name = mod.top
        self.threads, self.opt_level, self.bounds_check = threads, opt_level, bool(bounds_check)
        try:
            mod.func(mod.top)
        except KeyError:
            raise BackendError(f"top function {mod.top!r} not found in the module") from None
        check_allocation_sizes(mod)
        self.interruptible = may_run_long(mod)
        self._guard = instrument(mod, bounds_check=bool(bounds_check), aborts=self.interruptible, entry_checks=True)
        top = mod.func(mod.top)

        prep = prepare(mod, optimize=optimize, fast_math=fast_math, threads=threads)
        self.cpu_report = prep.report
        # a module with Stateful locals owns its engine: its globals are the state of this build only
        own = uuid.uuid4().hex if any(STATEFUL in b.attrs for f in mod.funcs for b in V.iter_buffers(f)) else None
        self.key = _cache_key(prep.text, prep.big, (opt_level, threads, prep.options, own))
        compiled = _cached(self.key)
        if compiled is None:
            try:
                compiled = _compile(prep.text, prep.big, mod.top, opt_level, threads, prep, is_glue(top))
            except BackendError as e:  # never let the CPU optimiser break a build: retry plain
                if not optimize:
                    raise
                fallback_warning(e)
                prep = prepare(mod, optimize=False, fast_math=fast_math, threads=threads)
                self.cpu_report = prep.report
                self.key = _cache_key(prep.text, prep.big, (opt_level, threads, prep.options, own))
                compiled = _compile(prep.text, prep.big, mod.top, opt_level, threads, prep, is_glue(top))
            with _cache_lock:
                _remember(self.key, compiled)
        self._prep = prep
        self._signature = _signature_of(top)
        self._attach(compiled)

    def _attach(self, compiled: _Compiled):
        self._status = self._guard.new_status()
        self._abort_address = self._status.ctypes.data + ABORT * self._status.itemsize
        self._compiled = compiled
        self._fn = compiled.fn
        self.mlir_text = compiled.mlir_text
        self._plan = self._new_plan()
        self._top = self._signature[0]

    def _new_plan(self) -> CallPlan:
        func, written = self._signature
        return CallPlan(func, hidden=1 if self._guard.status else 0, written=written)

    def __call__(self, *args, **kwargs):
        plan = self._plan
        if kwargs:
            raise AlloTypeError(f"{self.top_func_name}: pass the arguments by position "
                                f"({', '.join(p.name for p in plan.params[:plan.n_visible])}), "
                                f"not by keyword ({', '.join(kwargs)})")
        if self._top.attrs.get(DEFAULTS):
            args = tuple(fill_defaults(self._top, args))
        plan.check(args)
        if not self._guard.status:
            with plan.lock:
                keep, writebacks, outs = plan.pack(args)
                self._fn(ctypes.addressof(plan.packed))
            del keep
        else:
            with plan.lock:  # the status array is reused: calls are serialised anyway
                status = self._status
                status.fill(0)
                keep, writebacks, outs = plan.pack(args + (status,))
                if self.interruptible:
                    interrupt.call(self._fn, ctypes.addressof(plan.packed), self._abort_address, status, ABORT)
                else:
                    self._fn(ctypes.addressof(plan.packed))
                failed = status.copy() if status[SITE] else None
            del keep
            if failed is not None:
                self._guard.raise_if_failed(failed)
        for wb in writebacks:
            wb()
        return plan.unpack(outs, args)

    # --- pickling: the MLIR text is JIT-compiled again in the receiving process
    def __reduce__(self):
        p = self._prep
        state = {"prep": (p.text, p.big, p.pipeline, list(p.shared_libs), p.fast_math, p.threads, p.report),
                 "key": self.key, "top": self.top_func_name, "threads": self.threads, "opt_level": self.opt_level,
                 "bounds_check": self.bounds_check, "interruptible": self.interruptible, "guard": self._guard,
                 "signature": self._signature}
        return (_unpickle_llvm, (state,))

    def __repr__(self):
        return f"<allo LLVMModule {self.top_func_name} opt_level={self.opt_level}>"


def _signature_of(top: N.Func):
    """(a body-less copy of the top function, indices of the parameters it writes): what a
    CallPlan needs, small enough to pickle (no loop tree, no weights)."""
    written = params_maybe_written(top)
    idx = {k for k, p in enumerate(top.params) if id(p) in written}
    attrs = {DEFAULTS: top.attrs[DEFAULTS]} if top.attrs.get(DEFAULTS) else {}  # scalar defaults
    ret = top.body[-1] if top.body and isinstance(top.body[-1], N.Return) else None
    params = {id(p) for p in top.params}
    body = [N.Return([v if id(v) in params else None for v in ret.values], ret.loc)] if ret is not None else []
    return N.Func(top.name, list(top.params), list(top.result_types), body, attrs, top.loc), idx


def _unpickle_llvm(state) -> LLVMModule:
    for lib in state["prep"][3]:
        if not os.path.exists(lib):
            raise BackendError(f"cannot load the pickled LLVM module here: runtime library {lib} is missing")
    self = LLVMModule.__new__(LLVMModule)
    self.top_func_name, self.threads, self.opt_level = state["top"], state["threads"], state["opt_level"]
    self.bounds_check, self.interruptible, self._guard = state["bounds_check"], state["interruptible"], state["guard"]
    text, big, pipeline, libs, fast_math, threads, report = state["prep"]
    self._prep = Prepared(text, big, pipeline, libs, fast_math, threads, report)
    self.cpu_report, self.key, self._signature = report, state["key"], state["signature"]
    compiled = _cached(self.key)
    if compiled is None:
        compiled = _compile(text, big, self.top_func_name, self.opt_level, self.threads, self._prep)
        with _cache_lock:
            _remember(self.key, compiled)
    self._attach(compiled)
    return self


def build_llvm(mod: N.Module, threads: int | None = None, opt_level: int = DEFAULT_OPT_LEVEL,
               optimize: bool = True, fast_math: bool = False, bounds_check: bool = False) -> LLVMModule:
    """Compile an allo IR module for the CPU (cached process-wide by module text and options).

    Example::

        f = build_llvm(ir_module)
        C = f(A, B)
    """
    try:
        return LLVMModule(mod, threads=threads, opt_level=opt_level, optimize=optimize, fast_math=fast_math,
                          bounds_check=bounds_check)
    except AlloError:
        raise
    except Exception as e:  # keep internal failures user-facing but informative
        raise BackendError(f"LLVM build of {mod.top!r} failed: {type(e).__name__}: {e}") from e


__all__ = ["build_llvm", "LLVMModule", "clear_engine_cache", "runtime_libraries",
           "LLVM_PIPELINE"]
