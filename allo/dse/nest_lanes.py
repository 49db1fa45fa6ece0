"""`nest_lanes_space`: parallel lanes for kernels made of one or more loop nests, each with one
reduction loop and output loops that index the accumulators (matrix-vector kernels: atax, bicg,
gesummv, mvt; chained products: 2mm, 3mm).

Per nest: the loops are put in `order` (reduction outermost, so consecutive iterations update
different accumulators: no recurrence at II 1), each loop in `split` is split by its factor and its
inner part unrolled (the lanes); a nest may name its reduction loop (`"reduce": loop`, one of
`split`): then the choice "tree" (False/True) sums that loop's lanes as an adder tree
(`reduce_tree`: the recurrence through the accumulator is one adder, not a chain of them, so the
reduction can have many lanes; float sums are reassociated), the outer parts keep `order` and the innermost outer part is
pipelined (Vitis flattens the perfect outer nest into that pipeline). Each `(buffer, dim, loop)` in
`partitions` is partitioned cyclically along `dim` by the factor chosen for `loop`, so every lane has
its own bank (nests that partition the same dimension with different factors get their lcm). A
factor is one parameter; nests that name the same parameter share it (their extents' common
divisors are the options). The factors are divisors of the extents (no guards) unless `tails`.

Example (mvt, two nests sharing the factor "u")::

    space = allo.dse.nest_lanes_space([
        {"order": ("j", "i"), "split": {"i": ("u", 400)}, "partitions": [("x1", 1, "i"), ("A", 1, "i")]},
        {"order": ("l", "k"), "split": {"k": ("u", 400)}, "partitions": [("x2", 1, "k"), ("A", 2, "k")]},
    ], max_factor=64)
    r = allo.dse.explore(mvt, space=space, budget={"DSP": 220}, strategy="grid", trials=space.size)
"""
from __future__ import annotations

import math

from ..errors import DSEError
from .space import Space


TAIL_WASTE = 0.05  # `tails=True`: a factor may leave at most this share of its lanes' slots idle


def _tail_ok(n: int, f: int) -> bool:
    """A factor that does not divide extent `n` but is worth a guarded tail: it leaves at most
    TAIL_WASTE of the f * ceil(n / f) slots idle, and no smaller factor gives as few outer
    iterations (the smallest factor for its trip count)."""
    t = -(-n // f)
    return f > 1 and f * t - n <= TAIL_WASTE * n and -(-n // (f - 1)) > t


def _factor_options(exts: list, cap: int, tails: bool) -> list:
    """The factors of a parameter shared by loops of extents `exts`: common divisors, and with
    `tails` also factors each extent takes with a guarded tail (or divides)."""
    return [d for d in range(1, min(exts) + 1) if d <= cap and all(
        e % d == 0 or (tails and _tail_ok(e, d)) for e in exts)]


def _orders(nest) -> list:
    """A nest's alternative (order, reduce loop) pairs: its "orders", else its one "order"."""
    return [tuple(o) for o in nest["orders"]] if "orders" in nest else [(nest["order"], nest.get("reduce"))]


def _check(nest, k):
    if not isinstance(nest, dict) or not ("order" in nest or "orders" in nest) or "split" not in nest:
        raise DSEError(f"nest {k}: expected a dict with 'order' (or 'orders') and 'split' (and optional "
                       f"'partitions'), got {nest!r}")
    for order, red in _orders(nest):
        _check_order(nest, k, tuple(order), red)
    for part in nest.get("partitions", ()):
        if len(part) != 3 or part[2] not in nest["split"]:
            raise DSEError(f"nest {k}: partition {part!r} must be (buffer, dim, split loop)")


def _check_order(nest, k, order, red):
    for loop in list(nest["split"]) + list(nest.get("block", {})):
        if loop not in order:
            raise DSEError(f"nest {k}: split loop {loop!r} is not in its order {order}")
    if red is not None and red not in nest["split"]:
        raise DSEError(f"nest {k}: reduce loop {red!r} must be one of its split loops {tuple(nest['split'])}")


def nest_lanes_space(nests, max_factor: int = 64, caps=None, dataflow: bool = False, fuse=(),
                     fuse_options=(False, True), merge=(), tails: bool = False) -> Space:
    """Space over the lane factors of `nests` (see the module docstring for a nest's keys).
    `max_factor` caps every factor; `caps` ({parameter: cap}) overrides it per parameter.
    `dataflow=True` adds a choice "dataflow" (False/True): make the top function a dataflow
    region, so nests that do not depend on each other run at the same time (their DSPs still add).
    `fuse`: pairs (producer loop, consumer loop) of outermost split loops (same factor parameter):
    adds a choice "fuse" (False/True) that moves each producer's row blocks into its consumer's
    (`compute_at` on the ".outer" loops, in the order given) and makes the last consumer's block
    loop a dataflow region, so a consumer works on block b while its producer makes block b + 1
    (`fuse_options`: the values the choice may take).
    A nest's `"block": {loop: (parameter, extent)}` splits that loop into blocks without lanes: its
    outer part goes outermost (the loop `fuse` merges), its inner part stays in `order`'s place.
    A nest's `"orders": [(order, reduce loop), ...]` instead of "order"/"reduce" adds a choice
    "order<k>" (k: the nest's position) between those orders. `"two_way": True` (a nest with two
    split loops and accumulators indexed by either, e.g. bicg's `s[j]` and `q[i]`): under "tree",
    the block of both lane loops is summed as trees (each accumulator along the lanes it does not
    index), not only the reduce loop's.
    `merge`: pairs (source loops, destination loops) of two perfect nests to fuse before anything
    else: the destination nest is put in that order, then each source loop is merged into its
    destination loop (`compute_at`, outermost first), so one nest reads each input element once
    (mvt: `merge=[(("i", "j"), ("l", "k"))]` runs `x1 = A y1` and `x2 = A^T y2` in one nest; the
    caller vouches that the nests only accumulate into different arrays).
    `tails=True` also offers factors that do not divide an extent (the split adds a guarded tail,
    `reduce_tree` sums the missing lanes as 0): 22 lanes where the divisors of 390 and 410 stop at
    20; only factors that waste at most 5% of their slots and beat every smaller factor's trip
    count. A tail the other primitives cannot take (a guard between two loops to reorder) makes
    that candidate illegal; the search skips it."""
    caps = dict(caps or {})
    extents: dict = {}
    for k, nest in enumerate(nests):
        _check(nest, k)
        for _loop, (param, extent) in list(nest["split"].items()) + list(nest.get("block", {}).items()):
            extents.setdefault(param, []).append(extent)
    space = Space()
    for param, exts in extents.items():
        cap = caps.get(param, max_factor)
        opts = _factor_options(exts, cap, tails)
        space.choice(param, opts, group="lanes")
    if dataflow:
        space.choice("dataflow", [False, True], group="lanes")
    if fuse:
        space.choice("fuse", list(fuse_options), group="lanes")
    for k, nest in enumerate(nests):
        if "orders" in nest:
            space.choice(f"order{k}", list(range(len(nest["orders"]))), group="lanes")
    if any(red is not None for nest in nests for _o, red in _orders(nest)):
        space.choice("tree", [False, True], group="lanes")
    space.rule(lambda s, cfg: _record(s, cfg, nests, fuse, merge), name="lanes")
    return space


def _record(s, cfg, nests, fuse, merge):
    """Record one config's steps: merged nests; per nest split, order, trees, unroll, pipeline; then
    fusion and partitions."""
    for src, dst in merge:
        s.reorder(*dst)
        for a, b in zip(src, dst):
            s.compute_at(a, b)
    banks: dict = {}  # (buffer, dim) -> the lcm of the factors of the loops that index it
    for k, nest in enumerate(nests):
        order, reduce = _orders(nest)[cfg.get(f"order{k}", 0)]
        order, split = tuple(order), nest["split"]
        factor = {loop: cfg[param] for loop, (param, _e) in split.items()}
        blocks = {loop: cfg[param] for loop, (param, _e) in nest.get("block", {}).items()}
        for loop, f in list(factor.items()) + list(blocks.items()):
            s.split(loop, f)
        outer = [f"{lp}.outer" if lp in split else f"{lp}.inner" if lp in blocks else lp for lp in order]
        outer = [f"{lp}.outer" for lp in blocks] + outer
        red = reduce if cfg.get("tree") and factor.get(reduce, 1) > 1 else None
        inner = [f"{lp}.inner" for lp in order if lp in split and lp != red] + ([f"{red}.inner"] if red else [])
        s.reorder(*outer, *inner)
        if red and nest.get("two_way") and len(inner) == 2 and min(factor.values()) > 1:
            s.reduce_tree(inner[0])  # the lane block: each sum a tree along the lanes it does not index
        elif red:
            s.reduce_tree(f"{red}.inner")
        for lp in inner:
            s.unroll(lp)
        s.pipeline(outer[-1])
        for buf, dim, loop in nest.get("partitions", ()):
            banks[(buf, dim)] = math.lcm(banks.get((buf, dim), 1), factor[loop])
    if cfg.get("fuse"):
        for src, dst in fuse:
            s.compute_at(f"{src}.outer", f"{dst}.outer")
        s.dataflow(f"{fuse[-1][1]}.outer")
    # cyclic by a multiple of u still gives u consecutive indices u different banks
    for (buf, dim), f in banks.items():
        if f > 1:
            s.partition(buf, "cyclic", dim=dim, factor=f)
    if cfg.get("dataflow"):
        s.dataflow(s.top_func_name)


__all__ = ["nest_lanes_space"]
