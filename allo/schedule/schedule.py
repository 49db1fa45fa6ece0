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

from dataclasses import dataclass, field

from ..errors import AlloError, ScheduleError


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

    # ------------------------------------------------------------------ views
    @property
    def module(self):
        """The MLIR module (re-rendered after each primitive)."""
        if self._mlir_cache is None:
            from ..ir.render_mlir import to_mlir_module

            self._mlir_cache = to_mlir_module(self.ir, mode="view")
        return self._mlir_cache

    def __str__(self):
        lines = [f"Schedule of {self.top_func_name} ({len(self.steps)} step(s))"]
        lines += [f"  {i}: {s}" for i, s in enumerate(self.steps)]
        return "\n".join(lines)

    def __repr__(self):
        return f"<allo.Schedule {self.top_func_name}: {len(self.steps)} step(s)>"

    def __getattr__(self, name):
        # s.C -> buffer handle of the top function
        if name.startswith("_") or name in ("ir", "kernel", "targs", "steps", "top_func_name"):
            raise AttributeError(name)
        from .loops import BufferHandle

        func = self.ir.func(self.top_func_name)
        from ..ir.nodes import iter_buffers

        for b in iter_buffers(func):
            if b.name == name:
                return BufferHandle(func.name, name)
        raise AttributeError(f"{self.top_func_name} has no argument or local named {name!r}")

    # ------------------------------------------------------------------ build
    def build(self, target: str = "llvm", mode: str | None = None, project: str | None = None, threads: int | None = None, **kw):
        """Build for `target` ("llvm", "vhls", "vitis_hls", "mlir"); see SPEC section 4."""
        try:
            if target == "llvm":
                from ..backend.llvm import build_llvm

                return build_llvm(self.ir.clone(), threads=threads, **kw)
            if target in ("vhls", "vitis_hls"):
                from ..backend.hls import build_hls

                return build_hls(self.ir.clone(), mode=mode, project=project, target=target)
            if target == "mlir":
                return self
        except AlloError as e:
            from ..customize import _clean

            raise _clean(e) from None
        raise AlloError(f"unknown build target {target!r}; use 'llvm', 'vhls', 'vitis_hls' or 'mlir'")

    # ------------------------------------------------------------------ primitive plumbing
    def _apply(self, primitive, func_name, args, kwargs, fn):
        """Run `fn()` atomically and record the step."""
        snapshot = self.ir.clone()
        try:
            result = fn()
            self._verify()
        except AlloError as e:
            self.ir = snapshot
            self._mlir_cache = None
            from ..customize import _clean

            if not isinstance(e, ScheduleError):
                e = ScheduleError(f"{primitive}: {e}")
            raise _clean(e) from None
        except Exception as e:  # an internal failure must not leave a half-done module
            self.ir = snapshot
            self._mlir_cache = None
            raise ScheduleError(f"{primitive}{tuple(args)}: cannot apply ({type(e).__name__}: {e})") from None
        self._mlir_cache = None
        self.steps.append(Step(primitive, func_name, tuple(args), tuple(sorted(kwargs.items()))))
        return result

    def _verify(self):
        """Render the module and let MLIR verify it (catches broken rewrites)."""
        from ..ir.render_mlir import to_mlir_module

        to_mlir_module(self.ir, mode="view")
