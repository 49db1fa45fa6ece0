"""Backends: `llvm` (CPU JIT through MLIR's ExecutionEngine)."""
