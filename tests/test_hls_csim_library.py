"""allo.library.nn and the PyTorch frontend through the HLS C simulation.

Every registered library kernel (allo.library.registry.KERNELS), instantiated with the small
template arguments of tests/test_nn_registry.py and scheduled by its predefined schedule, runs
under g++ csim and must match the LLVM build of the same schedule (1e-5 relative for float32;
a few integer and fixed-point instances bit for bit). The seed MLP imported with
`allo.frontend.from_pytorch(..., target="vhls")` runs in csim and matches LLVM and torch.
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest

import allo
from allo.ir.types import Fixed, Int, int8
from allo.library.registry import KERNELS
from tests.test_hls_csim_polybench import assert_same_results
from tests.test_nn_registry import sample_targs

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for HLS C simulation")

SCALARS = {"eps": 1e-5, "slope": 0.1, "p": 1.5, "lo": -0.5, "hi": 0.5, "s": 1.25}  # scalar args by name
POSITIVE = {"log", "sqrt", "rsqrt", "pow_scalar"}  # kernels defined on positive inputs only
# Non-float instances: results must be bit-identical (odd widths and int8 wrap, fixed point floors).
NON_FLOAT = [("linear", Fixed(12, 5)), ("conv2d", Fixed(12, 5)), ("avg_pool2d", Fixed(16, 8)),
             ("matmul", int8), ("max_pool2d", int8), ("linear", Int(5))]


def make_inputs(name: str, s, rng) -> list:
    """Arguments for the top function of `s`, read off its parameters: |x| in [0.5, 2] with
    random signs (no division by ~0), positive where the kernel needs it, valid ids for
    embedding, small integers, named scalars from SCALARS. (Only input generation looks at
    the IR; building and calling go through the public API.)"""
    args = []
    for p in s.ir.func(s.top_func_name).params:
        if p.shape == ():
            args.append(np.float32(SCALARS[p.name]))
        elif p.dtype.np_dtype == np.int64:  # embedding ids
            args.append(rng.integers(0, 10, p.shape).astype(np.int64))
        elif p.dtype.np_dtype.kind in "iu" and not hasattr(p.dtype, "frac"):
            args.append(rng.integers(-8, 8, p.shape).astype(p.dtype.np_dtype))
        else:
            mag = rng.uniform(0.5, 2.0, p.shape)
            sign = 1.0 if name in POSITIVE or p.name == "var" else rng.choice([-1.0, 1.0], p.shape)
            args.append((mag * sign).astype(np.float32))
    return args


def scheduled(name: str, targs):
    kernel = KERNELS[name].kernel
    s = allo.customize(kernel, instantiate=list(targs))
    kernel.schedule_fn(s)
    return s


def check_csim(name, s, project, exact=False):
    args = make_inputs(name, s, np.random.default_rng(0))
    want = s.build()(*args)
    hls = s.build(target="vhls", mode="csim", project=str(project))
    assert "#pragma HLS pipeline II=1" in hls.hls_code, f"schedule of {name} emits no pipeline pragma"
    assert_same_results(hls(*args), want, exact=exact, what=name)


@pytest.mark.parametrize("name", list(KERNELS))
def test_library_kernel_with_its_schedule_csim_matches_llvm(name, tmp_path):
    check_csim(name, scheduled(name, sample_targs(name)), tmp_path / "prj")


@pytest.mark.parametrize("name, dtype", NON_FLOAT, ids=[f"{n}-{t!r}" for n, t in NON_FLOAT])
def test_integer_and_fixed_instances_are_bit_identical(name, dtype, tmp_path):
    s = scheduled(name, [dtype] + list(sample_targs(name)[1:]))
    check_csim(name, s, tmp_path / "prj", exact=True)


# ----------------------------------------------------------------------------- seed MLP
def test_seed_mlp_from_pytorch_vhls_csim_matches_llvm_and_torch(tmp_path):
    """tests/test_frontend_targets.py checks the vhls target's text only; this runs it."""
    torch = pytest.importorskip("torch")
    from tests.test_frontend_models import MLP

    torch.manual_seed(0)
    model, x = MLP().eval(), torch.rand(8, 16)
    hls = allo.frontend.from_pytorch(model, example_inputs=[x], target="vhls")
    s = allo.frontend.from_pytorch(model, example_inputs=[x], target="mlir")
    csim = s.build(target="vhls", mode="csim", project=str(tmp_path / "mlp"))
    assert csim.hls_code == hls.hls_code  # the same design as target="vhls"
    for f in ("kernel.cpp", "kernel.h", "host.cpp", "run.tcl"):
        assert (tmp_path / "mlp" / f).is_file()
    data = x.numpy()
    got = csim(data)
    assert_same_results(got, s.build()(data), what="mlp")
    np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-5, atol=1e-5)
