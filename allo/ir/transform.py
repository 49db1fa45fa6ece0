"""Loop-lookup helpers under upstream Allo's names (`allo.ir.transform`).

Example::

    band, axis = find_loop_in_bands(s.top_func, "j")    # ("S_i_0", "j")
"""
from __future__ import annotations

from ..errors import ScheduleError
from . import nodes as N
from .attrs import OP_NAME
from .loops import find_loop
from .visit import loop_path


def find_loop_in_bands(func: N.Func, axis: str) -> tuple:
    """(name of the outermost band containing loop `axis`, the loop's name) in `func`
    (`s.top_func`, or any function of `s.ir`).

    Example: for `for i in range(32): ... for j in range(32):` nested in one statement,
    `find_loop_in_bands(f, "j")` is `("S_i_0", "j")`.
    """
    if not isinstance(func, N.Func):
        raise ScheduleError(f"find_loop_in_bands: expected a function (e.g. s.top_func), got {type(func).__name__}")
    loop = find_loop(func, axis, "find_loop_in_bands", "axis")
    for lp in loop_path(func, loop):
        if OP_NAME in lp.attrs:
            return lp.attrs[OP_NAME], loop.name
    raise ScheduleError(f"find_loop_in_bands: loop {axis!r} of {func.name!r} is in no band")


__all__ = ["find_loop_in_bands"]
