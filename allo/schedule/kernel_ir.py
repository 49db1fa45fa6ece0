"""A kernel (function, `@allo.kernel`, template instance) -> its checked loop-IR module.

Shared by `allo.customize` and `Schedule.compose` (which customizes library kernels).

Example::

    module, kernel, targs = build_ir_for_user(add, instantiate=[float32, 4, 8])
"""
from __future__ import annotations

from ..dsl.builder import ModuleBuilder
from ..dsl.calls import plain_kernel
from ..dsl.kernel import KernelDef, KernelInstance
from ..errors import AlloError, caller_location, clean, in_library, relocate, warn
from ..transforms.bounds import check_static_bounds


def as_kernel(fn):
    if isinstance(fn, KernelDef):
        return fn, ()
    if isinstance(fn, KernelInstance):
        return fn.kernel, fn.targs
    if callable(fn) and hasattr(fn, "__code__"):
        return plain_kernel(fn), ()
    raise AlloError(f"customize() needs a kernel function, got {type(fn).__name__}")


def build_ir(fn, instantiate=None, global_vars=None):
    """Build the IR module for a kernel (template args from `instantiate`)."""
    kernel, targs = as_kernel(fn)
    if instantiate is not None:
        targs = tuple(instantiate) if isinstance(instantiate, (list, tuple)) else (instantiate,)
        if targs and (kernel.template_params or kernel.variants):
            kernel, targs, _ = kernel.resolve(targs)
    if kernel.template_params:
        if not targs:
            raise AlloError(f"template kernel {kernel.name!r} needs instantiate=[{', '.join(kernel.template_params)}]")
        kernel.check_template_args(targs)
    elif targs:  # upstream Allo ignores it; say so instead of failing
        warn(f"kernel {kernel.name!r} is not a template: instantiate={list(targs)!r} has no effect (drop it)")
        targs = ()
    mb = ModuleBuilder(extra_names=global_vars)
    func = mb.instantiate(kernel, targs, None)
    module = mb.module(func.name)
    check_static_bounds(module)
    return module, kernel, targs


def build_ir_for_user(fn, instantiate=None, global_vars=None):
    """`build_ir`, with errors raised inside allo's library re-pointed at the user's call."""
    try:
        return build_ir(fn, instantiate, global_vars)
    except AlloError as e:
        where = caller_location() if in_library(e) else None
        if where is not None:  # a library template instantiated with bad arguments: point at the caller
            e = relocate(e, where, f"customize({getattr(fn, 'name', fn)!s}, instantiate={instantiate!r})")
        raise clean(e) from None
