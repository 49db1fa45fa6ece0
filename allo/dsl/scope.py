"""Name resolution for kernel bodies, done once per kernel instance.

Order (docs/language.md, "Names"): locals, template parameters, closure variables, the locals
of the function the kernel is defined in (as upstream Allo: `M = 32` or `T = Fixed(16, 8)` set in
a test function and used by a kernel defined there), module globals, then Python builtins.

The defining function's locals are read from its live frame (found on the call stack by the
kernel's code object) or, for `@allo.kernel` functions, from the frame captured when the
decorator ran; a kernel whose defining function has returned keeps its closure and globals.

Example::

    env = Environment.for_function(fn, template_bindings={"T": float32, "M": 4})
    env.lookup("M")   # 4
"""
from __future__ import annotations

import builtins
import inspect
import sys
import types
from dataclasses import dataclass, field

_MISSING = object()


@dataclass
class Environment:
    """Compile-time names visible to a kernel (everything except its locals)."""

    template: dict = field(default_factory=dict)
    closure: dict = field(default_factory=dict)
    globals: dict = field(default_factory=dict)
    enclosing: dict = field(default_factory=dict)

    @classmethod
    def for_function(cls, fn, template_bindings: dict | None = None, frame=None) -> "Environment":
        closure = {}
        if getattr(fn, "__closure__", None):
            try:
                closure = dict(inspect.getclosurevars(fn).nonlocals)
            except (ValueError, TypeError):  # pragma: no cover - empty cells
                closure = {}
        frame = frame if frame is not None else defining_frame(fn)
        enclosing = dict(frame.f_locals) if frame is not None else {}
        return cls(dict(template_bindings or {}), closure, getattr(fn, "__globals__", {}), enclosing)

    def lookup(self, name: str, default=_MISSING):
        for table in (self.template, self.closure, self.enclosing, self.globals):
            if name in table:
                return table[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        if default is _MISSING:
            raise KeyError(name)
        return default

    def namespace(self) -> dict:
        """A dict for evaluating annotations (template names shadow everything else)."""
        ns = dict(self.globals)
        ns.update(self.enclosing)
        ns.update(self.closure)
        ns.update(self.template)
        return ns

    def known_names(self) -> list:
        names = set(self.template) | set(self.closure) | set(self.enclosing)
        return sorted(names | {k for k in self.globals if not k.startswith("__")})


def _defines(code: types.CodeType, target: types.CodeType, depth: int = 2) -> bool:
    """Does `code` create a function with code object `target` (directly, or through the
    annotation scope of a PEP 695 generic function)?"""
    for const in code.co_consts:
        if const is target:
            return True
        if depth and isinstance(const, types.CodeType) and const.co_name.startswith("<generic parameters"):
            if _defines(const, target, depth - 1):
                return True
    return False


def defining_frame(fn, start=None):
    """The live frame of the function whose body defines `fn` (None for module-level kernels
    or when that function is no longer running)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    frame = start if start is not None else sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name != "<module>" and _defines(frame.f_code, code):
            return frame
        frame = frame.f_back
    return None
