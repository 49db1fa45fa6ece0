"""Bad kernels raise AlloError subclasses that name file:line, quote the line, and hide compiler frames."""
import inspect
import traceback

import numpy as np
import pytest

import allo
from allo.ir.types import float32

from . import kernels_bad as kb

CASES = [
    (kb.unknown_name, allo.AlloNameError, "unknown name 'Q'", "B[i] = A[i] + Q"),
    (kb.uses_lambda, allo.AlloSyntaxError, "lambdas are not supported", "f = lambda x: x + 1"),
    (kb.uses_try, allo.AlloSyntaxError, "exceptions are not supported", "try:"),
    (kb.uses_break, allo.AlloSyntaxError, "break is not supported", "break"),
    (kb.uses_comprehension, allo.AlloSyntaxError, "comprehensions are not supported", "B = [A[i] for i in range(4)]"),
    (kb.wrong_rank, allo.AlloTypeError, "has 2 dimension(s)", "B[i] = A[i, i]"),
    (kb.shape_mismatch, allo.AlloTypeError, "do not broadcast", "C = A + B"),
    (kb.return_shape, allo.AlloTypeError, "returned array has shape [4, 4]", "return A"),
    (kb.no_annotation, allo.AlloTypeError, "needs a type annotation", "def no_annotation(A) -> float32[4]:"),
    (kb.wrong_arity, allo.AlloError, "takes 2 template argument(s)", "return tmpl[float32](A)"),
    (kb.wrong_call_shape, allo.AlloTypeError, "expects shape [4]", "return callee(A)"),
    (kb.float_index, allo.AlloTypeError, "array index must be an integer", "return A[1.5]"),
    (kb.assign_loop_var, allo.AlloSyntaxError, "loop variable", "i = 2"),
]


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return next(first + i for i, line in enumerate(lines) if line.strip().startswith(text.strip()))


@pytest.mark.parametrize("fn,kind,message,line", CASES, ids=[c[0].__name__ for c in CASES])
def test_error_message_names_file_line_and_quotes_source(fn, kind, message, line):
    with pytest.raises(kind) as info:
        allo.customize(fn)
    text = str(info.value)
    assert message in text
    assert f"kernels_bad.py:{_line_of(fn, line)}" in text
    assert line.strip() in text
    assert isinstance(info.value, allo.AlloError)


def test_no_compiler_internal_frames_in_traceback():
    with pytest.raises(allo.AlloError) as info:
        allo.customize(kb.unknown_name)
    frames = "".join(traceback.format_exception(info.type, info.value, info.value.__traceback__))
    for internal in ("builder.py", "calls.py", "emit.py", "arrays.py"):
        assert internal not in frames


def test_template_kernel_without_arguments():
    with pytest.raises(allo.AlloError, match="needs template arguments"):
        kb.tmpl(np.zeros(4, np.float32))
    with pytest.raises(allo.AlloError, match="instantiate"):
        allo.customize(kb.tmpl)


def test_bad_type_widths():
    with pytest.raises(allo.AlloError, match="1..1024"):
        allo.Int(0)
    with pytest.raises(allo.AlloError, match="1..1024"):
        allo.UInt(1025)
    with pytest.raises(allo.AlloError, match="positive integer"):
        float32[0, 3]
