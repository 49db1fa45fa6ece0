"""HLS C++ backend: Vitis HLS code generation and g++ C simulation.

Example::

    from allo.backend.hls import build_hls
    hls = build_hls(module, mode="csim")   # module: allo.ir.nodes.Module
    print(hls.hls_code)
    C = hls(A, B)
"""
from .csim import HLSModule, build_hls
from .emit import emit_module
from .types import cpp_type

__all__ = ["build_hls", "HLSModule", "emit_module", "cpp_type"]
