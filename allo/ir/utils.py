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


__all__ = ["get_all_funcs_except_top", "get_func_by_name"]
