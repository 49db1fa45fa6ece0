"""`allo.customize`: build a kernel into a Schedule.

Example::

    s = allo.customize(gemm)
    s.split("i", 4)
    mod = s.build()             # LLVM JIT
    C = mod(A, B)
"""
from __future__ import annotations

from .errors import AlloError, caller_location, in_library, relocate
from .ir.bounds import check_static_bounds
from .ir.builder import ModuleBuilder


def _as_kernel(fn):
    from .kernel import AlloKernel, KernelInstance

    if isinstance(fn, AlloKernel):
        return fn, ()
    if isinstance(fn, KernelInstance):
        return fn.kernel, fn.targs
    if callable(fn) and hasattr(fn, "__code__"):
        from .ir.calls import _plain_kernel

        return _plain_kernel(fn), ()
    raise AlloError(f"customize() needs a kernel function, got {type(fn).__name__}")


def build_ir(fn, instantiate=None):
    """Build the IR module for a kernel (template args from `instantiate`)."""
    kernel, targs = _as_kernel(fn)
    if instantiate is not None:
        targs = tuple(instantiate) if isinstance(instantiate, (list, tuple)) else (instantiate,)
        if targs and isinstance(targs[-1], str) and len(targs) == len(kernel.template_params) + 1:
            targs = targs[:-1]
    if kernel.template_params:
        if not targs:
            raise AlloError(f"template kernel {kernel.name!r} needs instantiate=[{', '.join(kernel.template_params)}]")
        kernel.check_template_args(targs)
    elif targs:
        raise AlloError(f"kernel {kernel.name!r} is not a template; drop instantiate=")
    mb = ModuleBuilder()
    func = mb.instantiate(kernel, targs, None)
    module = mb.module(func.name)
    check_static_bounds(module)
    return module, kernel, targs


def customize(fn, instantiate=None, **kwargs):
    """Build kernel `fn` (a function, `@allo.kernel`, or template with `instantiate=[...]`) into a Schedule.

    Example::

        s = allo.customize(gemm)
        s = allo.customize(nn.linear, instantiate=[float32, 8, 32, 16])
    """
    from .schedule.schedule import Schedule

    if kwargs:
        raise AlloError(f"customize(): unknown keyword(s) {', '.join(kwargs)}; it takes the kernel and instantiate=")
    try:
        module, kernel, targs = build_ir(fn, instantiate)
    except AlloError as e:
        where = caller_location() if in_library(e) else None
        if where is not None:  # a library template instantiated with bad arguments: point at the caller
            e = relocate(e, where, f"customize({getattr(fn, 'name', fn)!s}, instantiate={instantiate!r})")
        raise _clean(e) from None
    return Schedule(module, kernel, targs)


def _clean(e: AlloError) -> AlloError:
    """Drop compiler-internal frames from a user-facing error."""
    e.__traceback__ = None
    e.__context__ = None
    e.__suppress_context__ = True
    return e
