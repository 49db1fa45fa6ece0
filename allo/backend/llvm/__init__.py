"""The LLVM CPU backend: render (mode "llvm") -> CPU optimisation -> lower -> JIT -> call from numpy.

Files: `module` (build_llvm, LLVMModule, the engine cache), `cpu_opt` + `cpu/` (the CPU
optimiser of the loop IR), `openmp` (runtime and threads). The process-wide effects the JIT relies
on (malloc tuning, the OpenMP environment, the Ctrl-C handler of allo.backend.interrupt) are
applied by allo.backend.host.configure.

Example::

    from allo.backend.llvm import build_llvm
    mod = build_llvm(s.ir.clone())
    C = mod(A, B)
"""
from .module import LLVMModule, build_llvm

__all__ = ["LLVMModule", "build_llvm"]
