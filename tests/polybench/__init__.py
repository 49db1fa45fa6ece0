"""PolyBench/C kernels written in the allo DSL, with numpy references (see kernels.py)."""
