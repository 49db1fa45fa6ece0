"""HLS C++ backend: Vitis HLS code generation and g++ C simulation.

Example::

    from allo.backend.hls import build_hls
    hls = build_hls(module, mode="csim")   # module: allo.ir.nodes.Module
    print(hls.hls_code)
    C = hls(A, B)                          # same calling convention as the LLVM module

Files: `types.py` (allo type -> C++ type), `exprs.py` (expressions, casts), `helpers.py` (helper functions),
`emit.py` (functions, statements, pragmas), `interface.py` (the Vitis kernel's ports), `dialect.py` (what
each HLS tool spells its own way: Vitis here, Catapult in allo/backend/catapult, XLS[cc] in
allo/backend/xls), `csim.py` (project writer, g++ driver, numpy I/O),
`include/allo_ap.h` (ap_int/ap_fixed for csim when the Xilinx headers are absent).

Targets: "vhls" emits no interface pragmas (Vitis HLS then infers ap_memory ports for arrays
and ap_none for scalars); "vitis_hls" makes the top a Vitis kernel (`interface.py`): `extern "C"`,
void, ports v0, v1, ..., `m_axi` pointers for arrays and scalar results (one shared bundle `gmem` by
default, as Vitis does; build option `bundle="separate"` gives one per array, a name or an
{argument: bundle} dict choose), `s_axilite` for scalars and the return, and with `wrap_io=True`
(default) copies between the pointers and on-chip arrays of the kernel's names.
"""
import shutil

from ...errors import AlloError
from ..toolchain import cxx_name
from .csim import HLSModule, build_hls
from .emit import emit_module
from .types import cpp_type

__all__ = ["build_hls", "HLSModule", "emit_module", "cpp_type", "is_available"]


def is_available(backend: str = "vitis_hls") -> bool:
    """Is the tool for `backend` installed here? Upstream Allo's spelling.

    "vitis_hls", "vivado_hls", "v++" and "vitis" look for the Xilinx executables on PATH;
    "csim" (allo's own C simulation) looks for a C++ compiler (g++, or $CXX).

    Example::

        if allo.backend.hls.is_available("vitis_hls"):
            mod = s.build(target="vitis_hls", mode="csyn", project="gemm.prj")
    """

    tools = {"vitis_hls": "vitis_hls", "vivado_hls": "vivado_hls", "v++": "v++", "vitis": "v++",
             "csim": cxx_name()}
    if backend not in tools:
        raise AlloError(f"is_available({backend!r}): unknown HLS backend; known: {', '.join(tools)}")
    return shutil.which(tools[backend]) is not None
