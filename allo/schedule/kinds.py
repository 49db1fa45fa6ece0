"""Argument kinds of the schedule primitives: how each argument is checked and addressed.

A kind does two jobs, both raising ScheduleError("<primitive>: argument '<arg>': ...") with one
wording per kind:

- `check(prim, arg, value)`: validate and normalize a value (an integer in range, one of an
  enum's values, a tuple of integers). It runs on every application, on a Schedule and on the
  function-level API (`allo.schedule.split(func, "i", 4)`), and in `replay`.
- `resolve(at, prim, arg, value)`: on a Schedule, turn what the user wrote into the replayable
  value a `Step` records (loop/buffer addresses become local names) and say which function it
  names explicitly (`"func:j"`, a handle). Addresses are looked up in the IR later, by the
  primitive itself (`loops.find_loop`), which lists what exists on a miss.

Imports: errors, ir, and loops (the handles). Example::

    POSITIVE.check("split", "factor", 0)     # ScheduleError: split: argument 'factor': expected a positive integer, got 0
    LOOP.resolve(At(("gemm",), "gemm"), "split", "axis", "gemm:i")   # Resolved('i', (("'gemm:i'", 'gemm'),))
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass

import numpy as np

from ..errors import ScheduleError
from ..ir.loops import BandHandle, LoopHandle

OMIT = object()  # a resolved argument that is not part of the step (its function is the step's function)
MAX_INT_ARG = 2**31 - 1  # factors and intervals are 32-bit attributes (MLIR, HLS pragmas)


def arg_error(prim: str, arg: str, msg: str) -> ScheduleError:
    return ScheduleError(f"{prim}: argument '{arg}': {msg}")


@dataclass(frozen=True)
class BufferHandle:
    """Names a buffer of a function: `s.C`, or the result of `s.reuse_at(...)`."""

    func_name: str
    name: str

    def __str__(self):
        return f"{self.func_name}:{self.name}"


@dataclass(frozen=True)
class At:
    """What addresses resolve against: the module's function names and the top function."""

    names: tuple
    top: str


@dataclass(frozen=True)
class Resolved:
    """A resolved argument: the value a Step records (or OMIT) and the functions it names
    explicitly, as (what the user wrote, function name) pairs."""

    value: object
    homes: tuple = ()


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (builtins.bool, np.bool_))


def locate(at: At, prim: str, arg: str, target):
    """(explicit function or None, local address text) of a loop/buffer/band address."""
    if isinstance(target, (LoopHandle, BandHandle, BufferHandle)):
        return target.func_name, _text(target)
    if isinstance(target, str):
        head, sep, rest = target.partition(":")
        if sep and head in at.names:
            return head, rest
        return None, target
    name = getattr(target, "name", None)  # an allo.ir.nodes Buffer or For
    func = getattr(target, "func", None)  # upstream's MockBuffer("linear1_0", "buf")
    if isinstance(func, str) and isinstance(name, str) and func in at.names:
        return func, name
    if isinstance(name, str):
        return None, name
    raise arg_error(prim, arg, f"cannot address {target!r}: use a name like 'j', 'func:j' or a handle from get_loops()")


def _text(handle) -> str:
    """The replayable string form of a handle."""
    if isinstance(handle, LoopHandle):
        return f"{handle.band}/{handle.name}" if handle.band else handle.name
    if isinstance(handle, BandHandle):
        return handle.band
    return handle.name


class Kind:
    """A value passed through unchanged (the primitive checks it against the IR)."""

    what = "a value"
    in_signature = True  # False: derived from the module, not written by the user
    passed = True  # False: decides the step's function (or must be absent); the primitive never sees it

    def check(self, prim: str, arg: str, value):
        return value

    def resolve(self, at: At, prim: str, arg: str, value) -> Resolved:
        return Resolved(value)

    def __repr__(self):
        return f"<{type(self).__name__}: {self.what}>"


class Address(Kind):
    """A loop or buffer of a function: "j", "func:j", a handle; its text is what the step records."""

    def __init__(self, what: str):
        self.what = what

    def resolve(self, at, prim, arg, value):
        func, text = locate(at, prim, arg, value)
        return Resolved(text, ((repr(value), func),) if func else ())


class Addresses(Address):
    """Several loop addresses (`*axes`), all in the step's function."""

    def resolve(self, at, prim, arg, value):
        parts = [Address.resolve(self, at, prim, arg, v) for v in value]
        return Resolved(tuple(p.value for p in parts), tuple(h for p in parts for h in p.homes))


class Band(Address):
    """A band name ("PE", "func:PE", or a handle's band)."""

    def resolve(self, at, prim, arg, value):
        if isinstance(value, (LoopHandle, BandHandle)):
            return Resolved(value.band, ((repr(value), value.func_name),))
        return super().resolve(at, prim, arg, value)


class Function(Kind):
    """The function a step works on (None: the top function)."""

    what = "a function name"
    passed = False

    def resolve(self, at, prim, arg, value):
        if value is None:
            return Resolved(OMIT)
        if not isinstance(value, str) or value not in at.names:
            raise arg_error(prim, arg, f"no function named {value!r}; functions: {', '.join(at.names)}")
        return Resolved(OMIT, ((repr(value), value),))


class FunctionOrLoop(Address):
    """A function name (None: the top function), or a loop address of a function."""

    def resolve(self, at, prim, arg, value):
        if value is None or (isinstance(value, str) and value in at.names):
            return Function().resolve(at, prim, arg, value)
        return super().resolve(at, prim, arg, value)


class Int(Kind):
    """An integer in [minimum, 2**31 - 1] (bools refused)."""

    def __init__(self, minimum: int):
        self.minimum = minimum
        self.what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"

    def check(self, prim, arg, value):
        if not _is_int(value) or value < self.minimum:
            raise arg_error(prim, arg, f"expected {self.what}, got {value!r}")
        if value > MAX_INT_ARG:
            raise arg_error(prim, arg, f"{value} is too large (at most 2**31 - 1 = {MAX_INT_ARG})")
        return int(value)


class Flag(Kind):
    what = "True or False"

    def check(self, prim, arg, value):
        if not isinstance(value, (builtins.bool, np.bool_)):
            raise arg_error(prim, arg, f"expected True or False, got {value!r}")
        return bool(value)


class Choice(Kind):
    """One of `values`, given as a string (any case), an enum member (its `name`), or, as
    upstream Allo's enums number them, the position in `values`."""

    def __init__(self, values: tuple):
        self.values = tuple(values)
        self.what = f"one of {', '.join(self.values)}"

    def _name(self, value):
        if isinstance(value, str):
            return value.lower()
        name = getattr(value, "name", None)
        if isinstance(name, str):
            return name.lower()
        value = getattr(value, "value", value)
        if _is_int(value) and 0 <= value < len(self.values):
            return self.values[value]
        return str(value).lower()

    def check(self, prim, arg, value):
        name = self._name(value)
        if name not in self.values:
            raise arg_error(prim, arg, f"expected {self.what}, got {value!r}")
        return name

    def resolve(self, at, prim, arg, value):
        return Resolved(self._name(value))


class Ints(Kind):
    """A tuple of integers; a single integer means a tuple of one."""

    def __init__(self, what: str):
        self.what = what

    def check(self, prim, arg, value):
        items = (value,) if _is_int(value) else value
        if not isinstance(items, (tuple, list)) or not all(_is_int(d) for d in items):
            raise arg_error(prim, arg, f"expected {self.what}, got {value!r}")
        return tuple(int(d) for d in items)

    def resolve(self, at, prim, arg, value):
        return Resolved(tuple(value) if isinstance(value, (tuple, list)) else (value,) if _is_int(value) else value)


class KernelName(Kind):
    """A kernel (function) given by name or as the kernel object itself."""

    what = "the name of a kernel"

    def check(self, prim, arg, value):
        name = value if isinstance(value, str) else getattr(value, "__name__", None)
        if not isinstance(name, str):
            raise arg_error(prim, arg, f"expected the name of the consumer kernel, got {value!r}")
        return name

    def resolve(self, at, prim, arg, value):
        return Resolved(self.check(prim, arg, value))


class StreamDestination(KernelName):
    """Where `to` streams an array: a consumer kernel or band (a name or the kernel), or the axes
    `unfold` returned (upstream Allo's space-time form: those dimensions index the FIFOs)."""

    what = "the name of the consumer kernel or band, or the axes returned by unfold"

    def check(self, prim, arg, value):
        if isinstance(value, (list, tuple)) and value and all(_is_int(d) for d in value):
            return tuple(int(d) for d in value)
        name = value if isinstance(value, str) else getattr(value, "__name__", None)
        if not isinstance(name, str):
            raise arg_error(prim, arg, f"expected {self.what}, got {value!r}")
        return name


class OptionalInt(Int):
    """None or an integer in [minimum, 2**31 - 1]."""

    def check(self, prim, arg, value):
        return None if value is None else super().check(prim, arg, value)


class Unsupported(Kind):
    """An upstream argument allo does not implement: only its default (None) is accepted."""

    passed = False

    def __init__(self, reason: str):
        self.what = "None"
        self.reason = reason

    def resolve(self, at, prim, arg, value):
        if value is not None:
            raise arg_error(prim, arg, self.reason)
        return Resolved(OMIT)


class Derived(Kind):
    """Not written by the user: computed from the module when the Schedule method runs
    (`derive(module, func_name)`, OMIT when there is nothing to record)."""

    in_signature = False

    def __init__(self, what: str, derive):
        self.what = what
        self.derive = derive


LOOP = Address("a loop: 'j', 'func:j', 'band/j' or a handle from get_loops()")
LOOPS = Addresses("loops of one function, outermost first")
BUFFER = Address("a buffer: 'C', 'func:C' or s.C")
BAND = Band("a band name: 'S_i_j_0', 'func:PE' or a band handle")
FUNCTION = Function()
FUNCTION_OR_LOOP = FunctionOrLoop("a function name or a loop")
POSITIVE = Int(1)
NON_NEGATIVE = Int(0)
FLAG = Flag()
KERNEL = KernelName()
STREAM_DST = StreamDestination()
