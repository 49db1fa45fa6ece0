"""The MLIR text renderer behind `allo.ir.render_mlir` (import the public API from there).

Layout, one job per module:
- `module`: module level (global constants, functions, the JIT entry wrapper).
- `func`: `_FuncRenderer` (SSA plumbing, function head, allocation, memory access), built from the
  mixins `stmts` (statements and loops), `exprs` (expressions), `arith` (operators) and `casts`.
- `scalars` (type categories, storage/ABI types, literals), `attrs` (attribute dictionaries),
  `affine` (affine index analysis), `refs` (buffer references, for hoisting), `unroll`
  (loop unrolling in "llvm" mode).
"""
