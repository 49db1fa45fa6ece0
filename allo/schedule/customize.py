"""`allo.customize`: build a kernel into a Schedule; `@allo.kernel` (kernels that customize and run).

Example::

    s = allo.customize(gemm)
    s.split("i", 4)
    mod = s.build()             # LLVM JIT
    C = mod(A, B)

    @allo.kernel
    def add1(A: float32[4]) -> float32[4]:
        return A + 1.0

    add1(np.ones(4, np.float32))                  # builds for LLVM once, then runs

    @allo.kernel(template="T, N")
    def scale(A: "T[N]") -> "T[N]":
        return A * 2

    scale[float32, 8](np.ones(8, np.float32))     # instance, built once per template args
    scale[int32, 4, "1"]                          # an instance named @scale_1 inside other kernels
"""
from __future__ import annotations

from ..dsl.kernel import KernelDef
from ..errors import AlloError, warn
from .kernel_ir import build_ir_for_user
from .schedule import Schedule


class AlloKernel(KernelDef):
    """`@allo.kernel`: a kernel that can be customized (`k.customize()`) and called with numpy
    arrays (built for LLVM once per template arguments, then run)."""

    def __init__(self, fn, template=None, bounds_check=False):
        super().__init__(fn, template, bounds_check)
        self._built = {}

    def customize(self, instantiate=None):
        """Same as `allo.customize(kernel, instantiate=...)`."""
        return customize(self, instantiate=instantiate)

    def run(self, targs: tuple, args):
        key = tuple((type(t).__name__, repr(t)) for t in targs)
        mod = self._built.get(key)
        if mod is None:
            mod = customize(self, instantiate=list(targs) if targs else None).build()
            self._built[key] = mod
        return mod(*args)


def kernel(fn=None, *, template=None, bounds_check=False):
    """Decorator marking a kernel; `@allo.kernel(template="T, M, N")` makes a template.
    `bounds_check=True` checks the kernel's data-dependent indices at run time in every build, as
    `s.build(bounds_check=True)` does (a bad index is an `allo.BoundsError`, never a stray access).

    Example::

        @allo.kernel(template="V, L", bounds_check=True)
        def gather(ids: "int64[L]", table: "float32[V]") -> "float32[L]": ...
    """
    if fn is None:
        return lambda f: AlloKernel(f, template=template, bounds_check=bounds_check)
    if isinstance(fn, str):  # @allo.kernel("T, M") shorthand
        return lambda f: AlloKernel(f, template=fn, bounds_check=bounds_check)
    return AlloKernel(fn, template=template, bounds_check=bounds_check)


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
    if kwargs:
        raise AlloError(f"customize(): unknown keyword(s) {', '.join(kwargs)}; it takes the kernel, instantiate=, "
                        f"verbose=, global_vars=, enable_tensor=, lower_linalg=, typing_rule_set= and context=")
    _check_options(global_vars, enable_tensor, typing_rule_set, context)
    s = Schedule(*build_ir_for_user(fn, instantiate, global_vars))
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
        warn("customize(enable_tensor=True): allo builds memref-based IR only (the tensor dialect form is "
             "not supported); the kernel computes the same results")
