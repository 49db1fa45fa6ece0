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
import os
import sys
import warnings

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_LIBRARY_DIR = os.path.join(_PACKAGE_DIR, "library")


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


class BackendError(AlloError, RuntimeError):
    """A failure while lowering, compiling or running a built module (also a RuntimeError, which
    upstream Allo raises for these)."""


class VendorError(BackendError, RuntimeError):
    """A kernel or option another vendor's HLS backend (Catapult, XLS[cc]) cannot take: floats on
    XLS, a storage type XLS memories do not have. Also a RuntimeError, which upstream Allo raises
    there."""


class FrontendError(AlloError):
    """A PyTorch model that cannot be imported."""


class DataflowError(AlloError):
    """An `allo.dataflow` region that cannot run: a stream with several producers or none, put/get
    counts that differ, a deadlock in the simulator (the message names the kernel instances and
    the streams)."""


class DataflowArgsError(DataflowError, SystemExit):
    """A `@df.kernel(args=[...])` binding a scalar region argument: kernel instances share arrays
    only. Also a `SystemExit`, as upstream Allo exits on this error (its tests expect that)."""


class AlloWarning(UserWarning):
    """Something allo did on the user's behalf that changes what was asked for (an input array
    converted to the kernel's dtype, an option that has no effect here)."""


class BoundsError(AlloError, IndexError):
    """An array index outside the array: found at build time (constant or loop-bounded affine
    indices) or at run time with `s.build(..., bounds_check=True)`."""


class AlloValueError(AlloError, ValueError):
    """A bad value passed to a Python-level allo API (`Memory(resource="DRAM")`); also a ValueError,
    which is what upstream Allo raises there."""


class DSEError(AlloError):
    """A design-space exploration that cannot run: a bad space, budget, objective or executor."""


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
    attributes (see `allo.ir.loc.Loc`), or None.
    """
    if loc is None:
        return kind(message)
    where = format_location(loc.filename, loc.lineno, loc.col, getattr(loc, "source_line", None))
    head, _, tail = where.partition("\n")
    err = kind(f"{head}: {message}" + ("\n" + tail if tail else ""))
    err.filename, err.lineno = loc.filename, loc.lineno
    if loc.lineno and hasattr(err, "add_note"):  # Python >= 3.11: printed under an uncaught error, not in str(err)
        err.add_note(f"Line: {loc.lineno} of {os.path.basename(loc.filename)}")
    return err


class CallerLoc:
    """A location in user code outside kernels (a Python frame): `filename`, `lineno`."""

    col = None

    def __init__(self, filename, lineno):
        self.filename, self.lineno = filename, lineno
        self.source_line = linecache.getline(filename, lineno).rstrip("\n") or None


def _inside_allo(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE_DIR + os.sep)


def caller_location():
    """The innermost Python frame outside the allo package, if its source can be read: a file, or
    text Python keeps in linecache (IPython/Jupyter cells, the Python 3.13 REPL). None when allo
    itself is evaluating user text, e.g. an annotation string: that caller adds its own."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not _inside_allo(name):
            readable = os.path.isfile(os.path.abspath(name)) or name in linecache.cache
            return CallerLoc(name, frame.f_lineno) if readable else None
        frame = frame.f_back
    return None


def warn(message: str, category: type[Warning] = AlloWarning) -> None:
    """`warnings.warn(message, category)` attributed to the user's line: the innermost frame outside
    the allo package (a fixed stacklevel points inside allo as soon as the call path changes).

    Example::

        warn("converted the float64 input to float32 ...")    # "script.py:12: AlloWarning: ..."
    """
    frame, level = sys._getframe(1), 2
    while frame is not None and _inside_allo(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def in_library(err: AlloError) -> bool:
    """Does `err` point into allo's own library sources (allo/library)?"""
    name = getattr(err, "filename", None)
    return bool(name) and os.path.abspath(name).startswith(_LIBRARY_DIR + os.sep)


def relocate(err: AlloError, loc, what: str) -> AlloError:
    """`err`, raised inside allo's library, re-pointed at the user's line `loc` (a kernel call or
    a Python call); the library line is kept as a note."""
    first, _, _ = str(err).partition("\n")
    prefix = f"{err.filename}:{err.lineno}: "
    message = first[len(prefix):] if first.startswith(prefix) else first
    lib = f"{os.path.relpath(err.filename, os.path.dirname(_PACKAGE_DIR))}:{err.lineno}"
    new = located(type(err), f"{what}: {message} (raised in {lib})", loc)
    new.library_filename, new.library_lineno = err.filename, err.lineno
    return new


def clean(err: AlloError) -> AlloError:
    """`err` without compiler-internal frames and chained exceptions (raise it `from None`)."""
    err.__traceback__ = None
    err.__context__ = None
    err.__suppress_context__ = True
    return err
