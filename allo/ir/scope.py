"""Name resolution for kernel bodies, done once per kernel instance.

Order (docs/language.md, "Names"): locals, template parameters, closure variables, module
globals, then Python builtins. Never the caller's locals.

Example::

    env = Environment.for_function(fn, template_bindings={"T": float32, "M": 4})
    env.lookup("M")   # 4
"""
from __future__ import annotations

import builtins
import inspect
from dataclasses import dataclass, field

_MISSING = object()


@dataclass
class Environment:
    """Compile-time names visible to a kernel (everything except its locals)."""

    template: dict = field(default_factory=dict)
    closure: dict = field(default_factory=dict)
    globals: dict = field(default_factory=dict)

    @classmethod
    def for_function(cls, fn, template_bindings: dict | None = None) -> "Environment":
        closure = {}
        if getattr(fn, "__closure__", None):
            try:
                closure = dict(inspect.getclosurevars(fn).nonlocals)
            except (ValueError, TypeError):  # pragma: no cover - empty cells
                closure = {}
        return cls(dict(template_bindings or {}), closure, getattr(fn, "__globals__", {}))

    def lookup(self, name: str, default=_MISSING):
        for table in (self.template, self.closure, self.globals):
            if name in table:
                return table[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        if default is _MISSING:
            raise KeyError(name)
        return default

    def namespace(self) -> dict:
        """A dict for evaluating annotations (template names shadow globals)."""
        ns = dict(self.globals)
        ns.update(self.closure)
        ns.update(self.template)
        return ns

    def known_names(self) -> list:
        return sorted(set(self.template) | set(self.closure) | {k for k in self.globals if not k.startswith("__")})
