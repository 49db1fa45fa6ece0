"""PolyBench kernels: build each for LLVM and compare with its numpy reference."""
import numpy as np
import pytest

import allo

from .kernels import KERNELS


@pytest.mark.parametrize("case", KERNELS, ids=[c.name for c in KERNELS])
def test_polybench_llvm_matches_numpy(case):
    rng = np.random.default_rng(0)
    args = case.make_inputs(rng)
    mod = allo.customize(case.kernel).build()
    got = case.run(mod, args)
    case.check(got, args)


def test_at_least_13_kernels():
    names = {c.name for c in KERNELS}
    required = {"gemm", "2mm", "3mm", "atax", "bicg", "gesummv", "mvt", "syrk", "syr2k", "trmm", "symm",
                "jacobi-2d", "correlation"}
    assert required <= names


# kernels without array locals also run as plain Python on numpy arrays
PLAIN = [c for c in KERNELS if c.name in ("gemm", "mvt", "syrk", "syr2k", "trmm", "symm", "jacobi-2d",
                                          "floyd-warshall")]


@pytest.mark.parametrize("case", PLAIN, ids=[c.name for c in PLAIN])
def test_references_agree_with_plain_python_execution(case):
    """Running a kernel as ordinary Python must match its reference (guards the references)."""
    rng = np.random.default_rng(1)
    args = case.make_inputs(rng)
    py_args = [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype == np.float32 else a for a in args]
    py_args = [a.copy() if isinstance(a, np.ndarray) else a for a in py_args]
    fn = getattr(case.kernel, "fn", case.kernel)
    out = fn(*py_args)
    got = tuple(py_args[i] for i in case.outputs) if case.outputs else out
    case.check(got, args)
