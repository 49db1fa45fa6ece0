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


def build_ir(fn, instantiate=None, global_vars=None):
    """Build the IR module for a kernel (template args from `instantiate`)."""
    kernel, targs = _as_kernel(fn)
    if instantiate is not None:
        targs = tuple(instantiate) if isinstance(instantiate, (list, tuple)) else (instantiate,)
        if targs and (kernel.template_params or kernel.variants):
            kernel, targs, _ = kernel.resolve(targs)
    if kernel.template_params:
        if not targs:
            raise AlloError(f"template kernel {kernel.name!r} needs instantiate=[{', '.join(kernel.template_params)}]")
        kernel.check_template_args(targs)
    elif targs:  # upstream Allo ignores it; say so instead of failing
        import warnings

        from .errors import AlloWarning

        warnings.warn(f"kernel {kernel.name!r} is not a template: instantiate={list(targs)!r} has no effect "
                      "(drop it)", AlloWarning, stacklevel=4)
        targs = ()
    mb = ModuleBuilder(extra_names=global_vars)
    func = mb.instantiate(kernel, targs, None)
    module = mb.module(func.name)
    check_static_bounds(module)
    return module, kernel, targs


def customize(fn, instantiate=None, verbose=False, global_vars=None, enable_tensor=False, lower_linalg=False,
              typing_rule_set="default", context=None, **kwargs):
    """Build kernel `fn` (a function, `@allo.kernel`, or template with `instantiate=[...]`) into a Schedule.

    Upstream Allo's keywords are accepted where they mean something here: `verbose=True` prints
    the kernel's MLIR; `global_vars={"N": 8}` adds compile-time names to the kernel's scope;
    `lower_linalg` is how allo always builds (whole-array operations become affine loops);
    `enable_tensor=True` (tensor-dialect IR) is not available and warns that memref IR is built.

    Example::

        s = allo.customize(gemm, verbose=True)
        s = allo.customize(add, instantiate=[float32, 4, 8])
    """
    from .schedule.schedule import Schedule

    if kwargs:
        raise AlloError(f"customize(): unknown keyword(s) {', '.join(kwargs)}; it takes the kernel, instantiate=, "
                        f"verbose=, global_vars=, enable_tensor=, lower_linalg=, typing_rule_set= and context=")
    _check_options(global_vars, enable_tensor, typing_rule_set, context)
    try:
        module, kernel, targs = build_ir(fn, instantiate, global_vars)
    except AlloError as e:
        where = caller_location() if in_library(e) else None
        if where is not None:  # a library template instantiated with bad arguments: point at the caller
            e = relocate(e, where, f"customize({getattr(fn, 'name', fn)!s}, instantiate={instantiate!r})")
        raise _clean(e) from None
    s = Schedule(module, kernel, targs)
    if verbose:
        print(s.module)
    return s


def _check_options(global_vars, enable_tensor, typing_rule_set, context):
    if global_vars is not None and not isinstance(global_vars, dict):
        raise AlloError(f"customize(global_vars=...) takes a dict of names, got {type(global_vars).__name__}")
    if typing_rule_set not in ("default", None):
        raise AlloError(f"customize(typing_rule_set={typing_rule_set!r}): allo has one set of typing rules "
                        "('default', see docs/language.md); other rule sets are not supported")
    if context is not None:
        raise AlloError("customize(context=...): allo manages its own MLIR context; an external context "
                        "is not supported (drop the argument)")
    if enable_tensor:
        import warnings

        from .errors import AlloWarning

        warnings.warn("customize(enable_tensor=True): allo builds memref-based IR only (the tensor dialect form is "
                      "not supported); the kernel computes the same results", AlloWarning, stacklevel=3)


def _clean(e: AlloError) -> AlloError:
    """Drop compiler-internal frames from a user-facing error."""
    e.__traceback__ = None
    e.__context__ = None
    e.__suppress_context__ = True
    return e
