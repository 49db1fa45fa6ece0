"""CPU optimisation of allo's loop IR for the LLVM backend (see `allo.backend.llvm.cpu_opt`).

Files, one job each:
- `linear.py`: affine index expressions as {IterVar: coefficient} maps.
- `nests.py`: perfect loop nests, access summaries and the legality facts the rewrites rely on.
- `rewrite.py`: IR rewrites on a clone (accumulator splitting, loop distribution, permutation,
  scalar replacement of reductions).
- `contraction.py`: recognition of `X[...] op= f(loads)` nests that map onto a vector micro-kernel.
- `emit.py`: MLIR text of a recognised contraction (vector dialect, register and cache tiles).
- `fastmath.py`: vectorisable f32 exp/sigmoid/tanh/erf used only with `fast_math=True`.
- `outputs.py`: destination passing for the arrays the top function returns.
- `render.py`: the LLVM-mode renderer extended with contractions, parallel loops and fast math.
"""
