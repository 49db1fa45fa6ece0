"""The LLVM CPU backend: render (mode "llvm") -> CPU optimisation -> lower -> JIT -> call from numpy.

Files: `module` (build_llvm, LLVMModule, the engine cache), `cpu_opt` + `cpu/` (the CPU
optimiser of the loop IR), `openmp` (runtime and threads), `allocator` (malloc tuning),
`interrupt` (Ctrl-C during long calls).

Example::

    from allo.backend.llvm import build_llvm
    mod = build_llvm(s.ir.clone())
    C = mod(A, B)
"""
from .module import LLVMModule, build_llvm

__all__ = ["LLVMModule", "build_llvm"]
