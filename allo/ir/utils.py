"""Helpers under upstream Allo's names (`allo.ir.utils`).

Example::

    for f in get_all_funcs_except_top(s):
        print(f.name)
"""
from __future__ import annotations


def get_all_funcs_except_top(s) -> list:
    """The functions of schedule `s` other than its top function (allo IR `Func`s, callees first)."""
    return [f for f in s.ir.funcs if f.name != s.top_func_name]


def get_func_by_name(s, name: str):
    """The function `name` of schedule `s` (an allo IR `Func`)."""
    return s.ir.func(name)


class MockBuffer:
    """Upstream Allo's handle of a local array of a function, for schedule primitives:
    `s.partition(MockBuffer("linear1_0", "buf"), dim=0)` is `s.partition("linear1_0:buf", dim=0)`."""

    def __init__(self, func: str, name: str, idx=None):
        self.func, self.name, self.idx = func, name, idx

    def __str__(self):
        return f"{self.func}:{self.name}"

    def __repr__(self):
        return f"MockBuffer({self.func!r}, {self.name!r})"


__all__ = ["get_all_funcs_except_top", "get_func_by_name", "MockBuffer"]
