"""Loop addressing: find loops, bands and buffers of a `Func` by name; name-holding handles.
A query on IR attributes (`For.name`, `attrs["op_name"]`), shared by schedules, `allo.ir.transform`
and design-space exploration.

A loop is named by `For.name` (its induction variable, "i", "i.outer", "j_init").
A band is a loop carrying `attrs["op_name"]` (e.g. "S_i_j_0", the outermost loop of one
`for` statement / `allo.grid`); it contains every loop in its subtree.

Accepted loop addresses (all resolve at once to a `For`, or raise ScheduleError):

- "j"              the unique loop named j in the function;
- "S_i_j_0/j"      loop j inside band S_i_j_0 ("S_i_j_0:j" works too), needed when two loops
                   share a name;
- "S_i_j_0"        a band name alone means the band's outermost loop;
- LoopHandle / BandHandle values (from `get_loops(func)`), or a `For` of the function.

Example::

    loops = get_loops(func)            # LoopNest
    h = loops["S_i_j_0"]["j"]          # LoopHandle(func_name='gemm', band='S_i_j_0', name='j')
    find_loop(func, h) is find_loop(func, "S_i_j_0/j")

May import: `allo.errors`, `allo.ir` (nodes, visit).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ScheduleError
from . import nodes as N
from .attrs import OP_NAME
from .visit import blocks, iter_buffers, iter_loops, loop_path


# ----------------------------------------------------------------------------- loops
def all_loops(func: N.Func) -> list:
    return [lp for lp, _ in iter_loops(func.body)]


def loop_names(func: N.Func) -> list:
    """Distinct loop names of `func` in program order."""
    return list(dict.fromkeys(lp.name for lp in all_loops(func)))


# ----------------------------------------------------------------------------- bands
def get_bands(func: N.Func) -> dict:
    """{op_name: outermost For} for every band of `func`, in program order.

    Example: gemm's `for i, j in allo.grid(..)` + `for k in allo.reduction(..)` gives
    {"S_i_j_0": <For i>, "S_k_1": <For k>}."""
    out = {}
    for lp in all_loops(func):
        name = lp.attrs.get(OP_NAME)
        if name is not None:
            out.setdefault(name, lp)
    return out


def band_of(func: N.Func, loop: N.For) -> str | None:
    """op_name of the innermost band containing `loop` (None if it is in no band)."""
    for lp in reversed(loop_path(func, loop)):
        if OP_NAME in lp.attrs:
            return lp.attrs[OP_NAME]
    return None


# ----------------------------------------------------------------------------- handles
class _NoSuchLoop(ScheduleError, AttributeError):
    """A loop or band name that does not exist: an AlloError (and an AttributeError, for hasattr)."""


class LoopNames(tuple):
    """The loop names of a band in program order; `.keys()` lists them like upstream Allo's
    ordered mapping of loops (`list(loops.C.loops.keys())`)."""

    def keys(self):
        return list(self)


@dataclass(frozen=True)
class LoopHandle:
    """Names one loop: `band` (op_name, or None for a function-wide name) and `name`.
    Holds no IR objects, so it stays valid across rewrites that keep those names."""

    func_name: str
    band: str | None
    name: str

    def __str__(self):
        return f"{self.band}/{self.name}" if self.band else self.name


@dataclass(frozen=True)
class BandHandle:
    """Names one band; `band["j"]` or `band.j` gives the LoopHandle of loop j inside it.
    As a loop argument a BandHandle means the band's outermost loop."""

    func_name: str
    band: str
    loops: tuple = field(default=(), compare=False)

    def __getitem__(self, name) -> LoopHandle:
        if not isinstance(name, str):
            raise ScheduleError(f"loop names are strings, got {name!r}")
        if self.loops and name not in self.loops:
            raise _NoSuchLoop(f"band {self.band!r} of function {self.func_name!r} has no loop {name!r}; "
                              f"loops: {', '.join(self.loops)}")
        return LoopHandle(self.func_name, self.band, name)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]

    def __iter__(self):
        return (LoopHandle(self.func_name, self.band, n) for n in self.loops)

    def __str__(self):
        return self.band


class LoopNest:
    """The bands of one function: `nest["S_i_j_0"]`, `nest.S_i_j_0`, iteration over band names."""

    def __init__(self, func_name: str, bands: dict):
        self.func_name = func_name
        self._bands = dict(bands)

    def __getitem__(self, band) -> BandHandle:
        if band not in self._bands:
            raise _NoSuchLoop(f"function {self.func_name!r} has no band {band!r}; "
                              f"bands: {', '.join(self._bands) or '(none)'}")
        return self._bands[band]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]

    def __iter__(self):
        return iter(self._bands)

    def __len__(self):
        return len(self._bands)

    def __contains__(self, band):
        return band in self._bands

    def keys(self):
        return self._bands.keys()

    def items(self):
        return self._bands.items()

    def __repr__(self):
        inner = ", ".join(f"{b}: [{', '.join(h.loops)}]" for b, h in self._bands.items())
        return f"LoopNest({self.func_name}: {inner})"


def get_loops(func: N.Func) -> LoopNest:
    """Handles for every band of `func`; each lists the loop names in its subtree.

    Example::

        get_loops(gemm)["S_i_j_0"]["k"]   # LoopHandle('gemm', 'S_i_j_0', 'k')
    """
    bands = {}
    for name, top in get_bands(func).items():
        names = LoopNames(dict.fromkeys(lp.name for lp, _ in iter_loops([top])))
        bands[name] = BandHandle(func.name, name, names)
    return LoopNest(func.name, bands)


# ----------------------------------------------------------------------------- resolution
def _err(prim: str, arg: str, msg: str) -> ScheduleError:
    return ScheduleError(f"{prim}: argument '{arg}': {msg}")


def _split_qualified(func: N.Func, name: str):
    for sep in ("/", ":"):
        if sep in name:
            band, _, rest = name.partition(sep)
            if sep == "/" or band in get_bands(func):
                return band, rest
    return None, name


def find_loop(func: N.Func, loop, prim: str = "find_loop", arg: str = "loop") -> N.For:
    """Resolve a loop address (see module doc) to the `For` of `func`.

    Raises ScheduleError naming `prim` and `arg`, listing existing loops on a miss and the
    band-qualified forms when the name is ambiguous.

    Example::

        find_loop(gemm, "k").name    # 'k'
        find_loop(gemm, "S_i_j_0/j")
    """
    if isinstance(loop, N.For):
        if not any(lp is loop for lp in all_loops(func)):
            raise _err(prim, arg, f"loop {loop.name!r} is not in function {func.name!r}")
        return loop
    if isinstance(loop, BandHandle):
        return _band_top(func, loop.band, prim, arg)
    if isinstance(loop, LoopHandle):
        band, name = loop.band, loop.name
    elif isinstance(loop, str):
        band, name = _split_qualified(func, loop)
    else:
        raise _err(prim, arg, f"expected a loop name or handle, got {type(loop).__name__} {loop!r}")
    if band is not None:
        top = _band_top(func, band, prim, arg)
        hits = [lp for lp, _ in iter_loops([top]) if lp.name == name]
        if len(hits) == 1:
            return hits[0]
        inside = ", ".join(dict.fromkeys(lp.name for lp, _ in iter_loops([top])))
        what = "several loops" if hits else "no loop"
        raise _err(prim, arg, f"band {band!r} of function {func.name!r} has {what} named {name!r}; "
                              f"its loops: {inside}")
    hits = [lp for lp in all_loops(func) if lp.name == name]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        bands = get_bands(func)
        if name in bands:
            return bands[name]
        raise _err(prim, arg, f"no loop named {name!r} in function {func.name!r}; "
                              f"loops: {', '.join(loop_names(func)) or '(none)'}")
    forms = [f"'{band_of(func, lp)}/{name}'" for lp in hits]
    raise _err(prim, arg, f"loop name {name!r} is ambiguous in function {func.name!r} ({len(hits)} loops); "
                          f"use a band-qualified form: {', '.join(forms)} "
                          f"(or handles: get_loops(...)[band][{name!r}])")


def _band_top(func, band, prim, arg) -> N.For:
    bands = get_bands(func)
    if band not in bands:
        raise _err(prim, arg, f"function {func.name!r} has no band {band!r}; bands: {', '.join(bands) or '(none)'}")
    return bands[band]


def find_buffer(func: N.Func, buf, prim: str = "find_buffer", arg: str = "target") -> N.Buffer:
    """Resolve a buffer name (argument, named local, reuse buffer...) or Buffer of `func`.

    Example: `find_buffer(gemm, "C")`."""
    bufs = iter_buffers(func)
    if isinstance(buf, N.Buffer):
        if any(b is buf for b in bufs):
            return buf
        name = buf.name  # a buffer of another copy of the function: resolve by name
    elif isinstance(buf, str):
        name = buf
    elif isinstance(getattr(buf, "name", None), str):
        name = buf.name
    else:
        raise _err(prim, arg, f"expected a buffer name, got {type(buf).__name__} {buf!r}")
    hits = [b for b in bufs if b.name == name]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        names = ", ".join(dict.fromkeys(b.name for b in bufs))
        raise _err(prim, arg, f"no buffer named {name!r} in function {func.name!r}; buffers: {names or '(none)'}")
    raise _err(prim, arg, f"buffer name {name!r} is ambiguous in function {func.name!r} ({len(hits)} buffers)")


def loop_tree(func_or_body) -> list:
    """The loop structure as nested (name, children) pairs; handy in tests and messages.

    Example: gemm after buffer_at/reorder -> [("i", [("j_init", []), ("k", [("j", [])]), ("j_back", [])])]"""
    body = func_or_body.body if isinstance(func_or_body, N.Func) else func_or_body
    out = []
    for s in body:
        if isinstance(s, N.For):
            out.append((s.name, loop_tree(s.body)))
        else:
            for sub in blocks(s):
                out.extend(loop_tree(sub))
    return out
