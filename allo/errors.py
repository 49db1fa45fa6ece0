"""User-facing errors.

Every error that reaches a user is an `AlloError`. Errors about kernel code carry the
kernel's file and line and quote the offending source line with a caret under it.

Example::

    try:
        allo.customize(bad_kernel)
    except allo.AlloError as e:
        print(e)   # "kernel.py:12: unknown name 'Q' ..."
"""
from __future__ import annotations

import linecache


class AlloError(Exception):
    """Base class of every user-facing allo error."""


class AlloSyntaxError(AlloError):
    """Python syntax that the kernel language does not support."""


class AlloTypeError(AlloError):
    """A type or shape mismatch in kernel code or at a call boundary."""


class AlloNameError(AlloError):
    """An unknown name in kernel code."""


class ScheduleError(AlloError):
    """A schedule primitive that cannot be applied (the schedule is left unchanged)."""


class BackendError(AlloError):
    """A failure while lowering, compiling or running a built module."""


class FrontendError(AlloError):
    """A PyTorch model that cannot be imported."""


class BoundsError(AlloError, IndexError):
    """An array index outside the array: found at build time (constant or loop-bounded affine
    indices) or at run time with `s.build(..., bounds_check=True)`."""


def format_location(filename: str, lineno: int, col: int | None = None, source_line: str | None = None) -> str:
    """Render `file:line` plus the quoted source line and a caret (when known)."""
    if source_line is None and filename and lineno:
        source_line = linecache.getline(filename, lineno).rstrip("\n")
    text = f"{filename}:{lineno}"
    if source_line:
        stripped = source_line.lstrip()
        text += f"\n    {stripped}"
        if col is not None:
            caret_col = max(0, col - (len(source_line) - len(stripped)))
            text += "\n    " + " " * caret_col + "^"
    return text


def located(kind: type[AlloError], message: str, loc) -> AlloError:
    """Build an error of `kind` whose text starts with the kernel location `loc`.

    `loc` is any object with `filename`, `lineno`, `col` and optional `source_line`
    attributes (see `allo.ir.source.Loc`), or None.
    """
    if loc is None:
        return kind(message)
    where = format_location(loc.filename, loc.lineno, loc.col, getattr(loc, "source_line", None))
    head, _, tail = where.partition("\n")
    err = kind(f"{head}: {message}" + ("\n" + tail if tail else ""))
    err.filename, err.lineno = loc.filename, loc.lineno
    return err
