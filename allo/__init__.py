"""allo: a Python-embedded accelerator design language.

Example::

    import allo
    from allo.ir.types import float32

    def gemm(A: float32[32, 32], B: float32[32, 32]) -> float32[32, 32]:
        C: float32[32, 32] = 0.0
        for i, j in allo.grid(32, 32):
            for k in allo.reduction(32):
                C[i, j] += A[i, k] * B[k, j]
        return C

    s = allo.customize(gemm)
    mod = s.build()
"""
__version__ = "0.1.0"

from .errors import (AlloError, AlloSyntaxError, AlloTypeError, AlloNameError, ScheduleError, BackendError,
                     FrontendError, AlloWarning, BoundsError, DataflowError)
from .ir.types import (AlloType, Int, UInt, Float, Index, Fixed, UFixed, ArrayType, int1, int8, int16, int32, int64,
                       uint1, uint8, uint16, uint32, uint64, bool, index, float16, float32, float64, bfloat16,
                       ConstExpr, Stateful)
from .ir.types import (int2, int3, int4, int5, int6, int7, int9, int10, int11, int12, int13, int14, int15, int128,
                       int256, int512, uint2, uint3, uint4, uint5, uint6, uint7, uint9, uint10, uint11, uint12,
                       uint13, uint14, uint15, uint128, uint256, uint512, INT_NAMES as _INT_NAMES,
                       UINT_NAMES as _UINT_NAMES)
from .dsl import (grid, reduction, meta_if, meta_elif, meta_else, meta_for, exp, log, log2, sqrt, rsqrt, tanh,
                  sin, cos, erf, abs, pow, floor, ceil, min, max, matmul, transpose, log10, tan, power, add,
                  sub, mul, div, copy, bmm, linear, relu, gelu, softmax, layernorm, conv2d, maxpool, sumpool,
                  view, tril, concat, ones, zeros, get_pid)
from .dsl.kernel import KernelInstance
from .ir.attrs import Partition
from .schedule.customize import AlloKernel, customize, kernel
from .schedule.schedule import Schedule
from . import library, frontend, dsl, passes, memory  # noqa: E402
from .verify import verify  # noqa: E402
from . import qor  # noqa: E402
from .qor.api import report  # noqa: E402
from . import dse  # noqa: E402
from .modules import HLSModule, LLVMModule  # noqa: E402

__all__ = [
    "AlloError", "AlloWarning", "AlloSyntaxError", "AlloTypeError", "AlloNameError", "ScheduleError", "BackendError", "FrontendError", "BoundsError", "DataflowError",
    "AlloType", "Int", "UInt", "Float", "Index", "Fixed", "UFixed", "ArrayType",
    *_INT_NAMES, *_UINT_NAMES, "bool", "index",
    "float16", "float32", "float64", "bfloat16",
    "grid", "reduction", "meta_if", "meta_elif", "meta_else", "meta_for", "ConstExpr", "exp", "log", "log2", "sqrt", "rsqrt", "tanh", "sin", "cos", "erf", "abs", "pow",
    "floor", "ceil", "min", "max", "matmul", "transpose", "log10", "tan", "power", "add", "sub", "mul", "div",
    "copy", "bmm", "linear", "relu", "gelu", "softmax", "layernorm", "conv2d", "maxpool", "sumpool", "view", "tril",
    "concat", "ones", "zeros", "get_pid",
    "verify", "kernel", "AlloKernel", "KernelInstance", "customize", "Schedule", "Partition", "library", "frontend",
    "qor", "report", "dse", "Stateful", "LLVMModule", "HLSModule",
]
