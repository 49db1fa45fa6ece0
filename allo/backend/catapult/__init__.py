"""Catapult HLS backend: `s.build(target="catapult", mode=, project=)`.

Catapult HLS C++ (ac_int/ac_fixed types, `#pragma hls_pipeline_init_interval`, `#pragma hls_unroll`,
`#pragma hls_design top`) from the same IR and emitter as the Vitis HLS backend, plus a project
folder (kernel.cpp, kernel.h, host.cpp testbench, run.tcl). Running it (mode="csim": g++ against
Catapult's headers; mode="csyn": Catapult synthesis) needs Catapult (MGC_HOME).

Files: `dialect.py` (types and pragmas), `project.py` (kernel.h, host.cpp, run.tcl), `module.py`
(CatapultModule, the runs).

Example::

    mod = s.build(target="catapult", mode="csyn", project="gemm.prj")
    print(mod.hls_code)    # '#include <ac_int.h> ... #pragma hls_pipeline_init_interval 1 ...'
    mod()                  # runs Catapult (needs MGC_HOME)
"""
import os
import shutil

from .dialect import CATAPULT, CatapultDialect
from .module import CatapultModule, build_catapult


def is_available() -> bool:
    """Is Catapult installed here ($MGC_HOME/bin/catapult, or `catapult` on PATH)?"""
    home = os.environ.get("MGC_HOME")
    return bool(home and os.path.isfile(os.path.join(home, "bin", "catapult"))) or shutil.which("catapult") is not None


__all__ = ["build_catapult", "CatapultModule", "CatapultDialect", "CATAPULT", "is_available"]
