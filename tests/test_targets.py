"""The build target registry (allo/schedule/targets.py): `Schedule.build`, the frontend and the
`allo compile` CLI know the same targets; each target's declared options are its builder's; the
known-but-unsupported names and unknown options give their messages; the CLI builds rtl and calyx."""
import inspect
import re

import numpy as np
import pytest

import allo
from allo.cli import BUILDS, build_parser, main
from allo.frontend.model import TARGETS as FRONTEND_TARGETS
from allo.ir.types import int32
from allo.schedule import targets
from tests.rtl_util import needs_rtl


def scale(A: int32[4]) -> int32[4]:
    B: int32[4] = 0
    for i in range(4):
        B[i] = A[i] * 3
    return B


def _cli_targets():
    compile_parser = build_parser()._subparsers._group_actions[0].choices["compile"]
    return tuple(next(a for a in compile_parser._actions if a.dest == "target").choices)


def test_cli_frontend_and_schedule_list_the_same_targets():
    assert targets.names() == ("llvm", "vhls", "vitis_hls", "rtl", "calyx", "catapult", "xls", "mlir")
    assert _cli_targets() == targets.names() == FRONTEND_TARGETS
    assert {t.kind for t in targets.TARGETS} <= set(BUILDS)
    with pytest.raises(allo.AlloError) as info:
        allo.customize(scale).build(target="fpga9000")
    assert str(info.value) == ("unknown build target 'fpga9000'; use 'llvm', 'vhls', 'vitis_hls', 'rtl', 'calyx', "
                               "'catapult', 'xls' or 'mlir'")


def test_declared_options_are_the_builders_parameters():
    for t in targets.TARGETS:
        if t.impl is None:
            continue
        params = inspect.signature(t.builder()).parameters.values()
        named = tuple(p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD)[1:]
        assert tuple(n for n in named if n != "target") == t.options, t.name
        assert any(p.kind is p.VAR_KEYWORD for p in params) == t.self_checking, t.name


def test_unsupported_targets_and_unknown_options_keep_their_messages():
    s = allo.customize(scale)
    for name, what in targets.UNSUPPORTED.items():
        with pytest.raises(allo.AlloError, match=re.escape(f"build target '{name}': {what} code generation is not "
                                                                "supported by allo")):
            s.build(target=name)
    with pytest.raises(allo.AlloError) as info:
        s.build(project="x")
    assert str(info.value) == ("build(target='llvm'): unknown option(s) project; options for this target: threads, "
                               "opt_level, optimize, fast_math, bounds_check")
    with pytest.raises(allo.AlloError, match=r"build\(target='mlir'\): unknown option\(s\) bogus; options for this "
                                             "target: none"):
        s.build(target="mlir", bogus=1)
    assert s.build(target="mlir") is s
    assert "void scale(" in s.build(target="vhls", threads=4).hls_code  # HLS builds drop `threads`, as declared


def test_registry_build_is_schedule_build():
    s = allo.customize(scale)
    A = np.arange(4, dtype=np.int32)
    np.testing.assert_array_equal(targets.build(s, "llvm")(A), s.build()(A))


INT_MODEL = '''
import torch


class Affine(torch.nn.Module):
    def forward(self, x):
        return x * 3 + x.sum()
'''


@needs_rtl
@pytest.mark.parametrize("target, design", [("rtl", "forward.sv"), ("calyx", "forward.calyx.mlir")])
def test_cli_builds_rtl_and_calyx(target, design, tmp_path, capsys):
    pytest.importorskip("torch")
    models = tmp_path / "intmodels.py"
    models.write_text(INT_MODEL)
    out = tmp_path / "out"
    assert main(["compile", f"{models}:Affine", "--input-shape", "4:int32", "--target", target, "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert (out / design).exists() and design in printed
    if target == "rtl":
        assert "rtl: max |allo - torch| on random inputs = 0 (" in printed and "module forward(" in \
            (out / design).read_text()


@pytest.mark.parametrize("target, design, text", [("catapult", "kernel.cpp", "#pragma hls_design top"),
                                                  ("xls", "test_block.cpp", "#pragma hls_top")])
def test_cli_writes_vendor_projects(target, design, text, tmp_path, capsys):
    pytest.importorskip("torch")
    models = tmp_path / "intmodels.py"
    models.write_text(INT_MODEL)
    out = tmp_path / "out"
    assert main(["compile", f"{models}:Affine", "--input-shape", "4:int32", "--target", target, "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert text in (out / design).read_text() and design in printed
