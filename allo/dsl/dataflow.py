"""`allo.dataflow` regions -> loop IR: one function per kernel instance, the region a function
that declares the streams and calls every instance.

A region body holds stream declarations (`fifo: Stream[T, depth][P0, P1]`), `ConstExpr`
constants and `@df.kernel(mapping=[...], args=[...])` definitions. Each kernel is built once per
point of its mapping grid as `<kernel>_<i>_<j>` (`gemm_1_2`), with `df.get_pid()` the point's
numbers, so `meta_if` and stream indices resolve per instance. An instance with nothing to do
(an empty corner of a systolic array) is dropped. The region function then holds one stream
buffer per FIFO in use and calls the instances in an order where every producer runs before its
consumers (what the sequential CPU build needs; a cycle is recorded in `DF_REGION`).

Checks made here, before any build: every FIFO has one producer and one consumer instance, and
when both counts are known at compile time the producer puts as many items as the consumer gets.

Example::

    @df.region()
    def top(A: float32[4], B: float32[4]):
        pipe: Stream[float32, 2]
        @df.kernel(mapping=[1], args=[A])
        def producer(a: float32[4]):
            for i in range(4):
                pipe.put(a[i])
        @df.kernel(mapping=[1], args=[B])
        def consumer(b: float32[4]):
            for i in range(4):
                b[i] = pipe.get() + 1
    # module: @producer_0(a, pipe), @consumer_0(b, pipe), @top(A, B) { pipe = stream; calls }
"""
from __future__ import annotations

import ast
import dataclasses
import itertools

from ..errors import AlloSyntaxError, AlloTypeError, DataflowArgsError, DataflowError, located
from ..ir.attrs import DATAFLOW, DF_REGION, DF_STREAM, KERNEL
from ..ir.nodes import Alloc, Buffer, CallStmt, For, Func, Load
from ..ir.types import ConstType, StreamType
from . import names
from .builder import FunctionBuilder
from .calls import builtin
from .kernel import KernelDef, NestedKernel
from .meta import bind_const
from .scope import Environment
from .streams import StreamGrid, count_accesses, new_stream_buffer, set_bound


def kernel(mapping=None, args=None):
    """`@df.kernel(mapping=[P0, P1], args=[A, B])` inside a `@df.region()`: a kernel built once per
    point of the `mapping` grid, its parameters bound to the region's arguments `args`.

    Example::

        @df.kernel(mapping=[2, 2], args=[A, C])
        def tile(a: float32[8, 8], c: float32[8, 8]):
            pi, pj = df.get_pid()
    """
    def mark(fn):
        fn.__df_mapping__ = mapping
        return fn

    return mark


class RegionDef(KernelDef):
    """A `@df.region()` function (what `df.region` returns): customize or build it with
    `df.customize(top)` / `df.build(top, target=...)`; called from a kernel, it runs as a nested
    region (upstream Allo's hierarchical regions)."""

    @property
    def builder_class(self):
        return RegionBuilder

    def __repr__(self):
        tp = f"[{', '.join(self.template_params)}]" if self.template_params else ""
        return f"<allo.dataflow region {self.name}{tp}>"


class _Instance(NestedKernel):
    """One point of a kernel's mapping grid."""

    builder_class = property(lambda self: InstanceBuilder)

    def __init__(self, node, source, env, name, pid):
        super().__init__(node, source, env)
        self.name, self.pid = name, pid


class InstanceBuilder(FunctionBuilder):
    """Builds one kernel instance; the FIFOs it uses become trailing parameters."""

    def __init__(self, mb, kernel, targs, name):
        super().__init__(mb, kernel, targs, name)
        self.pid = kernel.pid
        self.streams = {}  # FIFO key -> (StreamRef, parameter Buffer, {"put", "get"})

    def stream_param(self, ref, mode, node):
        entry = self.streams.get(ref.key)
        if entry is None:
            entry = (ref, new_stream_buffer(ref, "arg", self.loc(node)), set())
            self.streams[ref.key] = entry
        entry[2].add(mode)
        return entry[1]

    def build(self) -> Func:
        func = super().build()
        func.params = list(func.params) + [buf for _, buf, _ in self.streams.values()]
        self.kernel.stream_uses = list(self.streams.values())
        return func


@builtin(names.get_pid)
def _get_pid(d, args, kwargs, node):
    fb = d.fb
    if args or kwargs:
        raise fb.error(AlloTypeError, "df.get_pid() takes no arguments", node)
    pid = getattr(fb, "pid", None)
    if pid is None:
        raise fb.error(AlloSyntaxError, "df.get_pid() only has a meaning in the body of a df.kernel "
                       "(it is the instance's position in the kernel's mapping grid)", node)
    return pid[0] if len(pid) == 1 else tuple(pid)


class _KernelDecl:
    def __init__(self, node, mapping, args):
        self.node, self.mapping, self.args = node, mapping, args


class RegionBuilder(FunctionBuilder):
    """Builds a region: its instances (through the ModuleBuilder) and the function calling them."""

    def build(self) -> Func:
        tree = self.src.tree
        self.current = tree
        self.assigned, self.mutated = set(), set()
        params = [self.visit_param(a) for a in tree.args.args]
        self.defaults = {}
        if tree.returns is not None and not (isinstance(tree.returns, ast.Constant) and tree.returns.value is None):
            raise self.error(AlloSyntaxError, f"region {self.kernel.name!r} cannot return a value; kernels write "
                             "their results into the region's arguments", tree)
        self.grids, kernels = {}, []
        for st in tree.body:
            self.current = st
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) or isinstance(st, ast.Pass):
                continue
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                self.declare(st)
            elif isinstance(st, ast.FunctionDef):
                kernels.append(self.kernel_decl(st))
            else:
                raise self.error(AlloSyntaxError, "a df.region body holds stream declarations (name: Stream[T, depth]), "
                                 "ConstExpr constants and @df.kernel functions only", st)
        instances = []
        for decl in kernels:
            instances += self.instances(decl)
        body = self.connect(instances, params)
        attrs = {KERNEL: self.kernel.name, DATAFLOW: True,
                 DF_REGION: {"instances": [f.name for f, _, _ in self.order], "cyclic": self.cyclic}}
        return Func(self.name, params, [], body, attrs, self.loc(tree))

    # ------------------------------------------------------------------ the region body
    def declare(self, st):
        t = self.eval_type(st.annotation)
        name = st.target.id
        if isinstance(t, ConstType):
            bind_const(self, st, t)
            # later declarations of the region spell it too (`fifo: Stream[T, 4][P0 - 1]`)
            self.env = dataclasses.replace(self.env, template=dict(self.env.template, **{name: self.locals[name]}))
            return
        if not isinstance(t, StreamType):
            raise self.error(AlloSyntaxError, f"{name!r}: a region declares streams (Stream[T, depth]) and ConstExpr "
                             f"constants; other variables belong in a kernel", st)
        if st.value is not None:
            raise self.error(AlloSyntaxError, f"stream {name!r} takes no value; it starts empty", st)
        self.grids[name] = StreamGrid(name, t, self.loc(st))
        self.locals[name] = self.grids[name]

    def kernel_decl(self, st):
        decos = [d for d in st.decorator_list if isinstance(d, ast.Call) and self.visit(d.func) is kernel]
        if len(decos) != 1 or len(st.decorator_list) != 1:
            raise self.error(AlloSyntaxError, f"function {st.name!r} in a region must be decorated with "
                             "@df.kernel(mapping=[...], args=[...])", st)
        deco = decos[0]
        if deco.args:
            raise self.error(AlloSyntaxError, "write @df.kernel(mapping=[...], args=[...]) with keywords", deco)
        mapping, args = [1], ()
        for kw in deco.keywords:
            if kw.arg == "mapping":
                mapping = self.visit(kw.value)
            elif kw.arg == "args":
                args = self.visit(kw.value)
            else:
                raise self.error(AlloSyntaxError, f"df.kernel takes mapping= and args=, not {kw.arg!r}", deco)
        mapping = tuple(mapping) if isinstance(mapping, (tuple, list)) else (mapping,)
        if not mapping or not all(isinstance(m, int) and not isinstance(m, bool) and m >= 1 for m in mapping):
            raise self.error(AlloTypeError, f"kernel {st.name!r}: mapping must list positive integers known at compile "
                             f"time, got {list(mapping)!r}", deco)
        args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
        for a in args:
            if not (isinstance(a, Buffer) and a.kind in ("arg", "scalar_arg")):
                raise self.error(AlloTypeError, f"kernel {st.name!r}: args= must list arguments of region "
                                 f"{self.kernel.name!r}", deco)
            if a.kind == "scalar_arg":  # upstream refuses these; instances exchange arrays and streams
                raise self.error(DataflowArgsError, f"kernel {st.name!r}: args= binds scalar {a.name!r} of region "
                                 f"{self.kernel.name!r}; kernels take the region's arrays (pass a one-element "
                                 f"array such as {a.type!r}[1] instead)", deco)
        if len(args) != len(st.args.args):
            raise self.error(AlloTypeError, f"kernel {st.name!r} has {len(st.args.args)} parameter(s) but args= binds "
                             f"{len(args)}", deco)
        return _KernelDecl(st, mapping, args)

    def instances(self, decl):
        """[(Func, bound region arguments, stream uses)] of one kernel, dropping empty instances."""
        consts = {k: v for k, v in self.locals.items() if not isinstance(v, (Buffer, Load)) and v is not None}
        out = []
        for pid in itertools.product(*(range(m) for m in decl.mapping)):
            env = Environment(dict(self.env.template, **consts), dict(self.env.closure), self.env.globals,
                              dict(self.env.enclosing))
            name = "_".join([decl.node.name, *map(str, pid)])
            inst = _Instance(decl.node, self.src, env, name, pid)
            self.mb.keep_alive.append(inst)  # the builder caches instances by id(kernel)
            func = self.mb.instantiate(inst, (), None, self.loc(decl.node))
            uses = inst.stream_uses
            self.check_params(func, decl)
            func.body[:] = _prune(func.body)
            if not func.body and not uses:
                self.mb.funcs.remove(func)
                continue
            out.append((func, decl.args, uses))
        return out

    def check_params(self, func, decl):
        for p, a in zip(func.params, decl.args):
            if (p.kind == "arg") != (a.kind == "arg") or p.type != a.type:
                raise self.error(AlloTypeError, f"kernel {decl.node.name!r}: parameter {p.name!r} is {p.type!r} but "
                                 f"args= binds region argument {a.name!r} of type {a.type!r}", decl.node)

    # ------------------------------------------------------------------ streams and calls
    def connect(self, instances, params):
        ends = {}  # FIFO key -> {"ref", "put": [(func, buf)], "get": [(func, buf)]}
        for func, _, uses in instances:
            for ref, buf, modes in uses:
                e = ends.setdefault(ref.key, {"ref": ref, "put": [], "get": []})
                for m in sorted(modes):
                    e[m].append((func, buf))
        body, locals_ = [], {}
        for key, e in ends.items():
            self.check_ends(e)
            bound = 0
            for m in ("put", "get"):
                for func, buf in e[m]:
                    puts, gets = count_accesses(func.body, buf)
                    up = (puts if m == "put" else gets)[1]
                    bound = None if bound is None or up is None else max(bound, up)
            self.check_counts(e)
            local = new_stream_buffer(e["ref"], "local", e["ref"].grid.loc)
            set_bound(local, bound)
            for m in ("put", "get"):
                for _, buf in e[m]:
                    set_bound(buf, bound)
            locals_[key] = local
            body.append(Alloc(local, None, local.loc))
        self.order, self.cyclic = _topological(instances, ends)
        for func, args, uses in self.order:
            call_args = [a if a.kind == "arg" else Load(a, []) for a in args]
            call_args += [locals_[ref.key] for ref, _, _ in uses]
            body.append(CallStmt(func.name, call_args, [], {}, func.loc))
        return body

    def check_ends(self, e):
        ref = e["ref"]
        for m, other, word in (("put", "get", "producer"), ("get", "put", "consumer")):
            who = [f.name for f, _ in e[m]]
            if len(who) > 1:
                raise self.stream_error(ref, f"stream {ref.display!r} has {len(who)} {word}s ({', '.join(who)}); "
                                        f"a stream connects exactly one producer instance to one consumer instance")
            if not who and e[other]:
                side = "put()s into" if other == "put" else "get()s from"
                raise self.stream_error(ref, f"stream {ref.display!r}: {e[other][0][0].name} {side} it but no kernel "
                                        f"instance {'reads' if m == 'get' else 'writes'} it (a {word} is missing)")

    def check_counts(self, e):
        ref = e["ref"]
        (pf, pb), (cf, cb) = e["put"][0], e["get"][0]
        puts = count_accesses(pf.body, pb)[0][0]
        gets = count_accesses(cf.body, cb)[1][0]
        if puts is None or gets is None or puts == gets:
            return
        item = ref.grid.type.item_elems
        what = "item(s)" if item == 1 else f"block(s) of {item} elements"
        raise self.stream_error(ref, f"stream {ref.display!r}: producer {pf.name} puts {_items(puts, item)} {what} "
                                f"but consumer {cf.name} gets {_items(gets, item)}; the counts must match (the extra "
                                f"{'items stay in' if puts > gets else 'get()s wait on'} the FIFO forever)")

    def stream_error(self, ref, message):
        return located(DataflowError, f"region {self.kernel.name!r}: {message}", ref.grid.loc)


def _prune(body):
    """`body` without loops left empty by meta_if (a corner PE inside `for m: for n:` tiles)."""
    out = []
    for st in body:
        if isinstance(st, For):
            st.body[:] = _prune(st.body)
            if not st.body:
                continue
        out.append(st)
    return out


def _items(n, item):
    return n // item if n % item == 0 else f"{n / item:g}"


def _topological(instances, ends):
    """Instances with every producer before its consumers (Kahn, stable); the instances left on
    a cycle keep their source order and are named in the second result."""
    index = {id(f): k for k, (f, _, _) in enumerate(instances)}
    succ = {k: set() for k in range(len(instances))}
    indeg = dict.fromkeys(succ, 0)
    for e in ends.values():
        for pf, _ in e["put"]:
            for cf, _ in e["get"]:
                a, b = index[id(pf)], index[id(cf)]
                if a != b and b not in succ[a]:
                    succ[a].add(b)
                    indeg[b] += 1
    ready = sorted(k for k, d in indeg.items() if d == 0)
    order = []
    while ready:
        k = ready.pop(0)
        order.append(k)
        for s in sorted(succ[k]):
            indeg[s] -= 1
            if indeg[s] == 0:
                ready.append(s)
                ready.sort()
    left = [k for k in range(len(instances)) if k not in set(order)]
    return [instances[k] for k in order + left], [instances[k][0].name for k in left]


__all__ = ["kernel", "RegionDef", "RegionBuilder", "InstanceBuilder", "DF_STREAM"]
