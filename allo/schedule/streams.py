"""`s.to(buffer, "consumer", depth=...)`: turn an array passed between two kernels into a FIFO.

Upstream Allo's form: `s.to(s.out_AB, "mm2")` where `out_AB` is a local array of the calling
function, written by one called kernel (the producer) and read by the kernel `mm2` (the
consumer). Afterwards the array, and the producer's and consumer's parameters bound to it, carry
`Buffer.attrs["stream"] = depth`; the HLS backend emits `hls::stream<T>` with `.write()` /
`.read()` and marks the caller as a dataflow region; the LLVM backend gives them FIFO semantics
(allo.transforms.streams). A FIFO delivers elements in the order they were written, so the primitive
checks that both kernels touch every element exactly once in row-major order:

    producer: for i: for j: ... out[i, j] = v        (one store, loops in dimension order)
    consumer: for i: for k: x = out[i, k] ...        (one load, loops in dimension order)

A consumer load nested in further loops that do not index it (`for k: for j: ... out[i, k]`,
common after reorder/buffer_at) is hoisted out of them into a scalar first, as an HLS engineer
would write it (one `.read()` per element).

A local the caller initialises (`y_init: float32[N] = 0.0`) and passes only to the consumer is
streamed too: the caller's initialisation loop is the producer (`y_init.write(0.0)` per element).
"""
from __future__ import annotations

from ..errors import ScheduleError
from ..ir import effects as E, nodes as N, visit as V
from ..ir.attrs import DATAFLOW, OP_NAME, PARTITION, STREAM
from ..ir.loops import find_buffer
from ..ir.types import ArrayType
from . import rewrite as R
from .space_time import to_space_time


def _err(arg, msg):
    return ScheduleError(f"to: argument '{arg}': {msg}")


def to(module: N.Module, func_name: str, target, dst, axis=None, depth: int = -1) -> N.Buffer:
    """Stream `target` (a local array of `func_name`) from its producer call to kernel `dst`; `dst`
    a tuple of dimensions (the axes `unfold` returned) makes it an array of FIFOs (space_time.py;
    `axis` is accepted there, as upstream Allo spells it, and changes nothing).

    Example: `to(mod, "kernel_2mm", "out_AB", "mm2", depth=-1)` (depth -1 = number of elements).
    Returns the streamed buffer of `func_name`."""
    if isinstance(dst, tuple):
        return to_space_time(module, func_name, target, dst, depth)
    if axis is not None:
        raise _err("axis", "axis= belongs to the space-time form, whose dst is what unfold returned "
                           "(pe = s.unfold('PE', [0, 1]); s.to(s.A_fifo, pe, axis=1)); got a kernel or band name")
    func = module.func(func_name)
    buf = find_buffer(func, target, "to", "target")
    if buf.kind != "local" or not buf.shape:
        raise _err("target", f"{buf.name!r} must be a local array of {func_name!r} passed between two kernels "
                             f"(it is {'a scalar' if not buf.shape else 'an argument' if buf.kind == 'arg' else buf.kind})")
    if buf.attrs.get(PARTITION):
        raise _err("target", f"{buf.name!r} is partitioned; a stream cannot be partitioned")
    names = [f.name for f in module.funcs]
    bands = _bands(func)
    if dst not in names and dst not in bands:
        raise _err("dst", f"no kernel named {dst!r} and no loop band of that name; kernels: {', '.join(names)}; bands of "
                          f"{func_name!r}: {', '.join(bands) or 'none'} (name a band with allo.grid(..., name=))")
    depth = _check_depth(depth, buf)
    init = next((st.init for st in V.walk_stmts(func.body) if isinstance(st, N.Alloc) and st.buf is buf), None)
    if init is not None and (dst not in names or not isinstance(init, N.Expr)):
        raise _err("target", f"{buf.name!r} has an initial value; a FIFO between two bands starts empty (declare "
                             f"it without one, e.g. `{buf.name}: T[...]`)")
    if dst not in names:
        return _to_band(func, buf, bands[dst], depth)
    producer, consumer = _producer_consumer(module, func, buf, dst, initialised=init is not None)
    c_param = _param_for(module, consumer, buf)
    c_func = module.func(consumer.callee)
    _check_called_once(module, c_func.name)
    p_param = None
    if producer is not None:
        p_param = _param_for(module, producer, buf)
        p_func = module.func(producer.callee)
        _check_called_once(module, p_func.name)
        reason = _order_error(p_func, p_param, "write")
        if reason:
            raise _err("target", f"producer {p_func.name!r} cannot write {p_param.name!r} as a FIFO: {reason}")
    hoists = _plan_hoists(c_func, c_param)
    reason = _order_error(c_func, c_param, "read", hoists)
    if reason:
        raise _err("dst", f"consumer {c_func.name!r} cannot read {c_param.name!r} as a FIFO: {reason}")
    for plan in hoists:  # every check passed: rewrite
        _hoist(c_func, c_param, plan)
    for b in (buf, p_param, c_param):
        if b is not None:
            b.attrs[STREAM] = depth
    func.attrs[DATAFLOW] = True
    return buf


def _bands(func) -> dict:
    """{band name: top-level loop} of `func` (`allo.grid(..., name=)` or the default band names)."""
    return {st.attrs[OP_NAME]: st for st in func.body if isinstance(st, N.For) and st.attrs.get(OP_NAME)}


class _Region:
    """One statement seen as a function body, for the access-order checks."""

    def __init__(self, func, stmt):
        self.func, self.name, self.params, self.body = func, func.name, func.params, [stmt]


def _to_band(func, buf, consumer, depth) -> N.Buffer:
    """Stream a local array from the band that writes it to the band `consumer` of the same function
    (upstream Allo: `s.to(s.B, "C")` with `for ... in allo.grid(..., name="C")`)."""
    users = [st for st in func.body if any(E.accesses([st], buf))]
    writers = [st for st in users if E.accesses([st], buf)[1]]
    if len(writers) != 1 or writers[0] is consumer:
        raise _err("target", f"{buf.name!r} must be written by exactly one loop band before band "
                             f"{consumer.attrs[OP_NAME]!r} (found {len(writers)} writing statement(s))")
    producer = writers[0]
    others = [st for st in users if st is not producer and st is not consumer]
    if others and all(func.body.index(st) > func.body.index(producer) and not E.accesses([st], buf)[1]
                      for st in others + [consumer]):
        return _to_band(func, _fork(func, buf, producer, consumer), consumer, depth)
    if others:
        raise _err("target", f"{buf.name!r} is used outside the producer band and band {consumer.attrs[OP_NAME]!r}; "
                             "a FIFO connects exactly two bands")
    if func.body.index(producer) > func.body.index(consumer):
        raise _err("dst", f"band {consumer.attrs[OP_NAME]!r} runs before the band that writes {buf.name!r}")
    prod, cons = _Region(func, producer), _Region(func, consumer)
    reason = _order_error(prod, buf, "write")
    if reason:
        raise _err("target", f"the band writing {buf.name!r} cannot write it as a FIFO: {reason}")
    hoists = _plan_hoists(cons, buf)
    reason = _order_error(cons, buf, "read", hoists)
    if reason:
        raise _err("dst", f"band {consumer.attrs[OP_NAME]!r} cannot read {buf.name!r} as a FIFO: {reason}")
    for plan in hoists:
        _hoist(cons, buf, plan)
    buf.attrs[STREAM] = depth
    func.attrs[DATAFLOW] = True
    return buf


def _fork(func, buf, producer, consumer) -> N.Buffer:
    """A fork (upstream Allo's `s.to(s.C, "D"); s.to(s.C, "E")` with bands D and E both reading C):
    band `consumer` gets its own copy `<buf>_<band>` of the array, written by the producer next to
    `buf` (one value, two stores), so each FIFO keeps one writer and one reader. Returns the copy."""
    stores = [st for st in V.walk_stmts([producer]) if isinstance(st, N.Store) and st.buf is buf]
    if len(stores) != 1:
        raise _err("target", f"the band writing {buf.name!r} writes it at {len(stores)} places; a FIFO needs exactly one")
    st = stores[0]
    names = {b.name for b in V.iter_buffers(func)}
    copy_buf = N.Buffer(R.fresh_name(names, f"{buf.name}_{consumer.attrs[OP_NAME]}"), buf.type, "local", loc=buf.loc)
    tmp = N.Buffer(R.fresh_name(names | {copy_buf.name}, f"{buf.name}_val"), ArrayType(buf.dtype, ()), "local",
                   loc=st.loc)
    body, pos = V.parent_list(func, st)
    idx = [V.copy_expr(e) for e in st.indices]
    body[pos:pos + 1] = [N.Alloc(tmp, st.value, st.loc), N.Store(buf, st.indices, N.Load(tmp, [], buf.dtype, st.loc), st.loc),
                         N.Store(copy_buf, idx, N.Load(tmp, [], buf.dtype, st.loc), st.loc)]
    func.body.insert(func.body.index(producer), N.Alloc(copy_buf, None, buf.loc))
    for s in V.walk_stmts([consumer]):
        for e in V.stmt_exprs(s):
            for x in V.walk_expr(e):
                if isinstance(x, N.Load) and x.buf is buf:
                    x.buf = copy_buf
    return copy_buf


def _check_depth(depth, buf) -> int:
    n = 1
    for d in buf.shape:
        n *= int(d)
    if depth == 0:  # the declared kind admits integers >= -1
        raise _err("depth", f"expected a positive FIFO depth or -1 (= {n}, the number of elements), got {depth!r}")
    return n if depth == -1 else depth


def _producer_consumer(module, func, buf, dst, initialised=False):
    """(producer call, consumer call) passing `buf`. A buffer the caller initialises has no producer
    kernel (None): the caller's initialisation loop writes the FIFO, one element per write in
    row-major order (upstream Allo's gesummv streams its zeroed `y_init` this way)."""
    loads, stores, calls = E.accesses(func.body, buf)
    if loads or stores:
        raise _err("target", f"{func.name!r} reads or writes {buf.name!r} itself; only the kernels it is passed to "
                             "may use a stream")
    consumers = [c for c in calls if isinstance(c, N.CallStmt) and c.callee == dst]
    if len(consumers) != 1:
        raise _err("dst", f"{func.name!r} passes {buf.name!r} to {dst!r} {len(consumers)} times; expected exactly once")
    others = [c for c in calls if c is not consumers[0]]
    producers = [c for c in others if isinstance(c, N.CallStmt)]
    if initialised:
        if others:
            users = ", ".join(getattr(c, "callee", "return") for c in others)
            raise _err("target", f"{buf.name!r} has an initial value, which writes the FIFO, and is also passed to "
                                 f"{users}; a FIFO has one writer (drop the initial value or the other use)")
        return None, consumers[0]
    if len(others) != 1 or len(producers) != 1:
        users = ", ".join(getattr(c, "callee", "return") for c in others) or "nothing"
        raise _err("target", f"{buf.name!r} must be written by exactly one other kernel call before {dst!r} "
                             f"(it is used by: {users})")
    body_order = [s for s in V.walk_stmts(func.body) if isinstance(s, N.CallStmt)]
    if body_order.index(producers[0]) > body_order.index(consumers[0]):
        raise _err("dst", f"{dst!r} is called before the producer {producers[0].callee!r}")
    return producers[0], consumers[0]


def _param_for(module, call, buf) -> N.Buffer:
    callee = module.func(call.callee)
    hits = [k for k, a in enumerate(call.args) if a is buf]
    if len(hits) != 1:
        raise _err("target", f"{buf.name!r} is passed {len(hits)} times to {call.callee!r}")
    return callee.params[hits[0]]


def _check_called_once(module, name):
    n = sum(1 for f in module.funcs for s in V.walk_stmts(f.body) if isinstance(s, N.CallStmt) and s.callee == name)
    if n != 1:
        raise _err("dst", f"kernel {name!r} is called {n} times; a stream parameter needs a kernel called once "
                          "(instantiate a separate copy with a template id)")


# ----------------------------------------------------------------------------- access order
class _Sites(V.Walker):
    """[(kind, access node, enclosing statements outermost first)] of `param`, in `out`."""

    def __init__(self, param):
        super().__init__()
        self.param, self.out = param, []

    def visit_Load(self, e):
        if e.buf is self.param:
            self.out.append(("read", e, list(self.path)))
        self.generic(e)

    def visit_Store(self, s):
        self.generic(s)
        if s.buf is self.param:
            self.out.append(("write", s, list(self.path)))

    def visit_CallStmt(self, s):
        self.generic(s)
        if any(a is self.param for a in s.args):
            self.out.append(("call", s, list(self.path)))


def _sites(func, param):
    return _Sites(param).walk(func.body).out


def _order_error(func, param, mode, hoists=()):
    """Why `param` is not accessed once per element in row-major order (None if it is)."""
    sites = _sites(func, param)
    other = "write" if mode == "read" else "read"
    if any(k == "call" for k, _, _ in sites):
        return "it is passed on to another kernel"
    if any(k == other for k, _, _ in sites):
        return f"it is also {'written' if other == 'write' else 'read'} there"
    if len(sites) != 1:
        return f"it is {'written' if mode == 'write' else 'read'} at {len(sites)} places; a FIFO needs exactly one"
    _, node, path = sites[0]
    dropped = {id(lp) for plan in hoists for lp in plan[1]}
    loops = [s for s in path if isinstance(s, N.For) and id(s) not in dropped]
    if any(isinstance(s, (N.If, N.While)) for s in path):
        return "the access is conditional (inside an if/while)"
    idx = node.indices
    if len(idx) != len(loops):
        return (f"{len(loops)} loop(s) enclose the access but it has {len(idx)} indices: every enclosing loop must "
                "index exactly one dimension, outermost loop first")
    for d, (e, lp) in enumerate(zip(idx, loops)):
        if not (isinstance(e, N.IterVar) and e is lp.var):
            return f"index {d} is not the variable of the enclosing loop {lp.name!r} (row-major order required)"
        if R.as_int(lp.lb) != 0 or lp.step != 1 or R.as_int(lp.ub) != int(param.shape[d]):
            return f"loop {lp.name!r} must run 0..{param.shape[d]} with step 1 to visit dimension {d} in order"
    return None


def _plan_hoists(func, param):
    """For the single load of `param`: the loops inside its last indexing loop that do not index
    it. Returns [(load, [those loops, outermost first])] (empty when nothing to hoist)."""
    sites = _sites(func, param)
    if len(sites) != 1 or sites[0][0] != "read":
        return []
    _, load, path = sites[0]
    used = {id(v) for e in load.indices for v in [e] if isinstance(e, N.IterVar)}
    loops = [s for s in path if isinstance(s, N.For)]
    last = max((k for k, lp in enumerate(loops) if id(lp.var) in used), default=-1)
    inner = loops[last + 1:]
    if not inner or any(id(lp.var) in used for lp in inner):
        return []
    if any(isinstance(s, (N.If, N.While)) for s in path):
        return []
    for lp in inner:  # hoisting needs the load to run at least once per element
        n = R.trip_count(lp)
        if n is None or n < 1:
            return []
    if not all(isinstance(e, N.IterVar) for e in load.indices):
        return []
    return [(load, inner)]


def _hoist(func, param, plan):
    """Read the element once into a scalar just before the outermost non-indexing loop."""
    load, inner = plan
    body, pos = V.parent_list(func, inner[0])
    names = {b.name for b in V.iter_buffers(getattr(func, "func", func))}
    tmp = N.Buffer(R.fresh_name(names, f"{param.name}_rd"), ArrayType(param.dtype, ()), "local", loc=load.loc)
    read = N.Load(param, list(load.indices), param.dtype, load.loc)
    body[pos:pos] = [N.Alloc(tmp, None, load.loc), N.Store(tmp, [], read, load.loc)]
    load.buf, load.indices = tmp, []


__all__ = ["to"]
