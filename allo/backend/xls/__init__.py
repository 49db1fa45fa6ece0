"""XLS[cc] backend: `s.build(target="xls", mode=, project=, use_memory=)`.

XLS[cc] C++ from the same IR and emitter as the Vitis HLS backend: integers (`ac_int<W, S>` for odd
widths) and fixed point (`Fixed<W, F>`), `#pragma hls_pipeline_init_interval` / `#pragma hls_unroll`,
a combinational `#pragma hls_top` function for scalar kernels, else `class TestBlock` with
`__xls_channel` ports or (use_memory=True) `__xls_memory` members plus XLS's RAM rewrites
(`rewrites_textproto`). mode="sw_emu" compiles the design with g++ against allo's own stand-ins for
XLS's headers and runs it on numpy inputs. Floats are refused (VendorError, a RuntimeError).

Files: `dialect.py` (types and pragmas), `wrap.py` (checks, TestBlock, RAM rewrites), `swemu.py`
(header stand-ins, harness), `module.py` (XLSModule).

Example::

    mod = s.build(target="xls", mode="sw_emu", project="vvadd.xls")
    print(mod.final_cpp)      # '... class TestBlock { ... __xls_channel<int32_t, __xls_channel_dir_In> a_in; ...'
    C = mod(A, B)             # g++ software emulation
"""
import shutil

from ..toolchain import cxx_name
from .dialect import XLS, XLSDialect
from .module import XLSModule, build_xls


def is_available() -> bool:
    """Can mode="sw_emu" run here (a C++ compiler: g++, or $CXX)? Upstream Allo's name."""
    return shutil.which(cxx_name()) is not None


__all__ = ["build_xls", "XLSModule", "XLSDialect", "XLS", "is_available"]
