"""Kernel objects as the front end sees them: a typed Python function, its template parameters and
variants, and template instances (`kernel[T, N, "id"]`).

Customizing or calling a kernel needs the layers above the front end: `KernelDef` describes and
instantiates a kernel; `allo.schedule.customize.AlloKernel` (what `@allo.kernel` makes) adds
`customize()` and the cached direct call.

Example::

    k = KernelDef(scale, template="T, N")
    inst = k[float32, 8, "1"]          # KernelInstance: the builder makes @scale_1 of it
"""
from __future__ import annotations

import dataclasses
import functools

from ..errors import AlloError
from ..ir.types import AlloType
from .scope import defining_frame


def _split_template(template) -> tuple:
    if template is None:
        return ()
    if isinstance(template, str):
        names = [t.strip() for t in template.split(",") if t.strip()]
    else:
        names = [str(t) for t in template]
    for n in names:
        if not n.isidentifier():
            raise AlloError(f"template parameter {n!r} is not a valid Python name")
    return tuple(names)


class KernelDef:
    """A kernel: a typed Python function, optionally a template over `template` names.
    `bounds_check=True`: its indices are checked at run time in every build (see
    `allo.transforms.guards.require_bounds_check`), e.g. a lookup whose indices come from the caller."""

    bounds_check = False

    def __init__(self, fn, template=None, bounds_check=False):
        self.fn = fn
        self.bounds_check = bool(bounds_check)
        self.name = fn.__name__
        self.template_params = _split_template(template)
        type_params = getattr(fn, "__type_params__", ())  # PEP 695 `def k[T, M](...)` on 3.12+
        if not self.template_params and type_params:
            self.template_params = tuple(p.__name__ for p in type_params)
        self.schedule_fn = None  # predefined schedule, registered by @schedule_for
        self.def_frame = defining_frame(fn)  # names of the defining function stay visible
        self.variants = {}  # number of template args -> KernelDef (see add_variant)
        functools.update_wrapper(self, fn)

    # -- templates -----------------------------------------------------------------------
    def __getitem__(self, args) -> "KernelInstance":
        if not isinstance(args, tuple):
            args = (args,)
        kernel, args, inst_id = self.resolve(tuple(args))
        return KernelInstance(kernel, args, inst_id)

    def add_variant(self, other: "KernelDef"):
        """Let `self[...]` with `other`'s number of template arguments instantiate `other`
        (upstream Allo's library spells some kernels with other template lists, e.g. softmax[T, D])."""
        self.variants[len(other.template_params)] = other
        return other

    def resolve(self, args: tuple):
        """(kernel, template args, instance id) for `kernel[args]`: a trailing string is the id,
        and an argument count that only a variant takes selects that variant."""
        for kernel in [self] + [v for v in self.variants.values()]:
            n = len(kernel.template_params)
            if len(args) == n + 1 and isinstance(args[-1], str) and n:
                return kernel, args[:-1], args[-1]
            if len(args) == n and n:
                kernel.check_template_args(args)
                return kernel, args, None
        self.check_template_args(args)
        return self, args, None

    def check_template_args(self, args):
        if not self.template_params:
            raise AlloError(f"kernel {self.name!r} is not a template; call it directly instead of {self.name}[...]")
        if len(args) != len(self.template_params):
            raise AlloError(
                f"template kernel {self.name!r} takes {len(self.template_params)} template argument(s) "
                f"({', '.join(self.template_params)}), got {len(args)}: {list(args)!r}")
        self.check_type_params(args)

    def check_type_params(self, args):
        """PEP 695 bounds and constraints: `T: (float32, int32)` takes one of those types,
        `T1: Int` an Int type; a bound that is an allo type (`M: int32`) marks a value parameter."""
        for tv, arg in zip(getattr(self.fn, "__type_params__", ()), args):
            try:
                constraints, bound = tuple(getattr(tv, "__constraints__", ()) or ()), getattr(tv, "__bound__", None)
            except NameError:  # a bound naming something undefined: nothing to check
                continue
            allowed = constraints or ((bound,) if bound is not None else ())
            if not allowed or any(isinstance(c, AlloType) and not isinstance(arg, AlloType) for c in allowed):
                continue
            if not any(arg == c or (isinstance(c, type) and isinstance(arg, c)) for c in allowed):
                names = ", ".join(getattr(c, "__name__", repr(c)) for c in allowed)
                raise AlloError(f"template parameter {tv.__name__} of {self.name!r} must be one of ({names}), "
                                f"got {arg!r}")

    def bindings(self, args) -> dict:
        return dict(zip(self.template_params, args))

    # -- direct use: allo.schedule.customize.AlloKernel implements both ---------------------
    def customize(self, instantiate=None):
        raise AlloError(f"{self.name!r} is a plain function: use allo.customize({self.name}) or mark it @allo.kernel")

    def run(self, targs: tuple, args):
        """Build for LLVM (once per template arguments) and run on `args` (numpy arrays/scalars)."""
        raise AlloError(f"{self.name!r} is a plain function used as a kernel: build it with "
                        f"allo.customize({self.name}).build() or mark it @allo.kernel")

    def __call__(self, *args):
        if self.template_params:
            raise AlloError(f"template kernel {self.name!r} needs template arguments: "
                            f"{self.name}[{', '.join(self.template_params)}](...)")
        return self.run((), args)

    def __repr__(self):
        tp = f"[{', '.join(self.template_params)}]" if self.template_params else ""
        return f"<allo.kernel {self.name}{tp}>"


class NestedKernel(KernelDef):
    """A helper function defined inside a kernel body (`def foo(x: int32) -> int32:` between the
    kernel's statements), built as its own function. It sees the compile-time names of the kernel
    that defines it (template parameters, constants, globals), not the kernel's run-time values."""

    def __init__(self, node, source, env):  # noqa: super().__init__ needs a Python function
        self.fn = None
        self.name = node.name
        self.template_params = ()
        self.schedule_fn = None
        self.def_frame = None
        self.variants = {}
        self.source = dataclasses.replace(source, fn_name=node.name, tree=node)
        self.env = env

    def run(self, targs, args):
        raise AlloError(f"{self.name!r} is defined inside a kernel; call it from that kernel")


class KernelInstance:
    """`kernel[targs..., "id"]`: a template instance, callable from kernels or from Python."""

    def __init__(self, kernel: KernelDef, targs: tuple, inst_id=None):
        self.kernel, self.targs, self.inst_id = kernel, targs, inst_id

    @property
    def name(self):
        return self.kernel.name

    def customize(self):
        return self.kernel.customize(instantiate=list(self.targs))

    def __call__(self, *args):
        return self.kernel.run(self.targs, args)

    def __repr__(self):
        extra = f", {self.inst_id!r}" if self.inst_id else ""
        return f"<allo.kernel {self.kernel.name}[{', '.join(map(repr, self.targs))}{extra}]>"
