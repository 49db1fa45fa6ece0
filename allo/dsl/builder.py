"""The AST visitor: Python kernel source -> allo loop IR (`nodes.Func`), one visit_<Node> per construct.

Every failure inside a visit becomes an AlloError that names the kernel file:line and quotes
the line (one choke point: `FunctionBuilder.visit`).

Example::

    mb = ModuleBuilder()
    func = mb.instantiate(kernel, targs=(), inst_id=None)
    module = mb.module(top=func.name)
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import AlloError, AlloSyntaxError, AlloTypeError, in_library, located, relocate
from ..ir import emit
from ..ir.attrs import (BOUNDS_CHECK, DEFAULTS, INSTANCES, KERNEL, NAMED, OP_NAME, PIPELINE_II, RANGE_STEP, REDUCTION,
                        RUN_TIME_STEP, UNROLL, USER_BANDS)
from ..ir.nodes import (Alloc, Buffer, Expr, For, Func, If, IterVar, Load, Module, Return, While, describe,
                        user_words)
from ..ir.ops import BinOpKind
from ..ir.types import AlloType, ArrayType, Float, Int, StatefulType, StreamType, Struct, UInt, float32, float64, index
from ..ir.visit import child_exprs
from .arrays import ArrayOps
from .build_assign import AssignmentVisitors
from .build_exprs import ExpressionVisitors
from .calls import CallDispatcher
from .forms import InstanceNames, LanguageForms, bind_storage
from .meta import ConstType
from .regions import check_stale_regions
from .scope import Environment, defining_frame
from .source import kernel_source
from .unsupported import UNSUPPORTED_HINTS


class ModuleBuilder(InstanceNames):
    """Builds every kernel instance reachable from the top kernel into one Module."""

    def __init__(self, extra_names=None):
        self.extra_names = dict(extra_names or {})  # customize(global_vars=...)
        self.auto_names = set()  # instance names allo chose (`k_1` for a second instance of k)
        self.calls_to = {}  # callee name -> the CallStmts calling it (renamed with it)
        self.funcs = []
        self.instances = {}  # (id(kernel), targs key, inst_id) -> Func
        self.names = {}  # func name -> instance key
        self.globals = {}  # (id(numpy array), element type or None) -> Buffer (shared memref.global)
        self.global_names = set()
        self.building = []
        self.instance_info = {}  # func name -> (kernel name, template args key)
        self.keep_alive = []  # kernel objects made while building (instances are keyed by their id)

    @staticmethod
    def _targs_key(targs):
        return tuple((type(t).__name__, repr(t)) for t in targs)

    def caller_id(self):
        """The instance id of the kernel instance being built (None for one without an id): a kernel it
        calls without an id of its own takes this one, so `add_const[5, "c5"]` calling `add` gets its
        own copy `add_c5`, as upstream Allo names nested callees (and `compose(..., id="c5")` reaches it)."""
        return self.building[-1][2] if self.building else None

    def instantiate(self, kernel, targs=(), inst_id=None, loc=None, inherited=False) -> Func:
        """The Func for `kernel[targs, inst_id]`, building it on first use (`inherited`: the id is the
        caller's, see `caller_id`; a clash with another instance then takes a free name)."""
        key = (id(kernel), self._targs_key(targs), inst_id)
        if key in self.instances:
            return self.instances[key]
        base = kernel.name
        if inherited:  # an explicit id claiming this name later wins (rename_auto)
            name = f"{base}_{inst_id}"
            name = self.free_auto_name(name) if name in self.names else name
            self.auto_names.add(name)
        elif inst_id is not None:
            name = f"{base}_{inst_id}"
            if name in self.auto_names:
                self.rename_auto(name, loc)  # an explicit id wins over a name allo chose
            if name in self.names:
                raise located(AlloError, f"instance id {inst_id!r} of kernel {base!r} is used twice with different "
                              f"template arguments; give each instance its own id", loc)
        elif base not in self.names:
            name = base
        else:  # further instances without ids: base_1, base_2, ... as upstream Allo names them
            name = self.free_auto_name(base)
            self.auto_names.add(name)
        if key in [k for k in self.building]:
            raise located(AlloError, f"recursive call of kernel {base!r} is not supported", loc)
        self.names[name] = key
        self.building.append(key)
        try:
            func = getattr(kernel, "builder_class", FunctionBuilder)(self, kernel, targs, name).build()
        except AlloError as e:
            if loc is None or not in_library(e):
                raise
            raise relocate(e, loc, f"{kernel.name}[{', '.join(map(repr, targs))}]") from None
        finally:
            self.building.pop()
        self.instances[key] = func
        self.instance_info[name] = (kernel.name, key[1])
        self.funcs.append(func)
        return func

    def global_buffer(self, array: np.ndarray, name_hint: str, dtype: AlloType | None = None) -> Buffer:
        """A memref.global for a numpy constant (one per array object)."""
        key = (id(array), repr(dtype) if dtype is not None else None)  # one array may be declared as several types
        if key in self.globals:
            return self.globals[key]
        if dtype is None:
            kind = array.dtype.kind
            if kind == "f":
                dtype = float64 if array.dtype.itemsize == 8 else float32 if array.dtype.itemsize == 4 else Float(16)
            elif kind == "i":
                dtype = Int(array.dtype.itemsize * 8)
            elif kind == "u":
                dtype = UInt(array.dtype.itemsize * 8)
            elif kind == "b":
                dtype = UInt(1)
            else:
                raise AlloTypeError(f"numpy array {name_hint!r} of dtype {array.dtype} cannot be a kernel constant")
        shape = array.shape if array.shape else ()
        name = name_hint
        n = 0
        while name in self.global_names:
            n += 1
            name = f"{name_hint}_{n}"
        self.global_names.add(name)
        buf = Buffer(name, ArrayType(dtype, tuple(shape)), "global", data=array, global_name=name)
        self.globals[key] = buf
        return buf

    def adopt_global_name(self, buf: Buffer, name: str):
        """Name a constant after the first local bound to it (`w: T[..] = g_w` -> @w), as the seed does."""
        if buf.attrs.get(NAMED) or name in self.global_names:
            return
        self.global_names.discard(buf.global_name)
        self.global_names.add(name)
        buf.name = buf.global_name = name
        buf.attrs[NAMED] = True

    def module(self, top: str) -> Module:
        fnames = {f.name for f in self.funcs}
        for buf in self.globals.values():  # globals and functions share one symbol table
            if buf.global_name in fnames:
                name = buf.global_name + "_const"
                while name in self.global_names or name in fnames:
                    name += "_"
                self.global_names.discard(buf.global_name)
                self.global_names.add(name)
                buf.name = buf.global_name = name
        funcs = [f for f in self.funcs if f.name != top] + [f for f in self.funcs if f.name == top]
        return Module(funcs, top, {INSTANCES: dict(self.instance_info)})


class FunctionBuilder(AssignmentVisitors, ExpressionVisitors, LanguageForms):
    """Builds one kernel instance. Statements are appended to `self.block` (a list)."""

    def __init__(self, mb: ModuleBuilder, kernel, targs, name):
        self.mb, self.kernel, self.name = mb, kernel, name
        self.src = getattr(kernel, "source", None) or kernel_source(kernel)
        self.env = getattr(kernel, "env", None) or Environment.for_function(
            kernel.fn, kernel.bindings(targs) if targs else {},
            frame=defining_frame(kernel.fn) or getattr(kernel, "def_frame", None))
        self.env.enclosing.update(mb.extra_names)
        self.meta_chain = None  # state of the allo.meta_if chain of the statement list being built
        self.locals = {}
        self.block = []
        self.in_condition = False  # evaluating a while condition: no statements may be emitted
        self.loop_names = set()
        self.buffer_names = set()
        self.band_count = 0
        self.user_bands = set()
        self.current = None  # the AST node being visited (for locations)
        self.arrays = ArrayOps(self)
        self.calls = CallDispatcher(self)
        self.result_calls = {}  # id(result Buffer) -> the CallStmt producing it
        self.views = {}  # id(region copy) -> (source Buffer, region spec), see regions.py
        self.view_writebacks = set()  # ids of the statements copying a region back after a call
        self.scope = ()  # tokens of the blocks being visited (outermost first)
        self.decl_scope = {}  # id(local Buffer declared by an annotation) -> self.scope at the declaration

    # ---------------------------------------------------------------- naming helpers
    def fresh_loop_name(self, hint):
        name, n = hint, 0
        while name in self.loop_names:
            n += 1
            name = f"{hint}_{n}"
        self.loop_names.add(name)
        return name

    def fresh_buffer_name(self, hint):
        name, n = hint, 0
        while name in self.buffer_names or name in self.locals:
            n += 1
            name = f"{hint}_{n}"
        self.buffer_names.add(name)
        return name

    def band_name(self, ivs):
        name = f"S_{'_'.join(ivs)}_{self.band_count}"
        self.band_count += 1
        return name

    def emit(self, stmt):
        self.block.append(stmt)

    def converted(self, e, t, loc):
        """`emit.cast(e, t)`; the operand of a rounding / saturating cast (fixed_modes.py reads it
        several times) is first stored in a scalar local when it is a large expression, e.g. another
        such cast: chained mode casts would otherwise grow exponentially as expression trees."""
        if (isinstance(e, Expr) and emit.needs_expansion(e.type, t) and not self.in_condition
                and _tree_size(e, SPILL_NODES) >= SPILL_NODES):
            tmp = Buffer(self.fresh_buffer_name("mode_cast"), ArrayType(e.type, ()), "local", loc=loc)
            self.emit(Alloc(tmp, e, loc))
            e = Load(tmp, [], loc=loc)
        return emit.cast(e, t, loc)

    def loc(self, node=None):
        return self.src.loc(node if node is not None else self.current)

    def error(self, kind, message, node=None):
        return located(kind, message, self.loc(node))

    # ---------------------------------------------------------------- entry
    def build(self) -> Func:
        tree = self.src.tree
        self.current = tree
        self.assigned = _assigned_names(tree)
        self.mutated = _mutated_names(tree)
        params = [self.visit_param(a) for a in tree.args.args]
        self.defaults = self.param_defaults(tree.args, params)
        for extra in (tree.args.vararg, tree.args.kwarg):
            if extra is not None:
                raise self.error(AlloSyntaxError, f"*{extra.arg} parameters are not supported; list every argument", tree)
        self.result_types = self.parse_returns(tree.returns)
        body = tree.body
        if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        self.visit_body(body)
        if self.result_types and not (self.block and isinstance(self.block[-1], Return)):
            raise self.error(AlloSyntaxError, f"kernel {self.kernel.name!r} declares a result but does not end with a return", tree)
        check_stale_regions(self, self.block)
        attrs = {KERNEL: self.kernel.name}
        if self.defaults:
            attrs[DEFAULTS] = self.defaults
        if self.user_bands:
            attrs[USER_BANDS] = sorted(self.user_bands)
        if self.kernel.bounds_check:
            attrs[BOUNDS_CHECK] = True
        func = Func(self.name, params, list(self.result_types), self.block, attrs, self.loc(tree))
        return func

    def visit_param(self, arg):
        if arg.annotation is None:
            raise self.error(AlloTypeError, f"parameter {arg.arg!r} needs a type annotation, e.g. {arg.arg}: float32[8, 16]", arg)
        t = self.eval_type(arg.annotation, fallback=self.evaluated_annotation(arg.arg))
        loc = self.loc(arg)
        if isinstance(t, ArrayType):
            if t.dynamic and len(self.mb.building) > 1:
                raise self.error(AlloTypeError, f"parameter {arg.arg!r}: only the top kernel may take an array of "
                                 f"run-time length ({t!r}); give the called kernel a static shape (a template "
                                 "parameter: def k[N](A: float32[N]))", arg)
            buf = bind_storage(Buffer(arg.arg, ArrayType(t.dtype, t.shape), "arg", loc=loc), t)
            self.locals[arg.arg] = buf
            return buf
        buf = Buffer(arg.arg, ArrayType(t, ()), "scalar_arg", loc=loc)
        if arg.arg in self.assigned:  # a mutated scalar parameter works on a local copy
            local = Buffer(arg.arg, ArrayType(t, ()), "local", loc=loc)
            self.emit(Alloc(local, Load(buf, []), loc))
            self.locals[arg.arg] = local
        else:
            self.locals[arg.arg] = buf
        self.buffer_names.add(arg.arg)
        return buf

    def parse_returns(self, node):
        if node is None or (isinstance(node, ast.Constant) and node.value is None):
            return []
        types = self._parse_returns(node)
        if any(isinstance(t, ArrayType) and t.dynamic for t in types):
            raise self.error(AlloTypeError, "a result needs a static shape, not T[...]: write into a parameter of "
                             "run-time length instead", node)
        return types

    def _parse_returns(self, node):
        if isinstance(node, ast.Tuple):
            try:
                return [self.eval_type(e) for e in node.elts]
            except AlloTypeError:
                fallback = self.evaluated_annotation("return")
                if not isinstance(fallback, tuple):
                    raise
                return list(fallback)
        t = self.eval_type(node, fallback=self.evaluated_annotation("return"))
        if isinstance(t, tuple):
            return list(t)
        return [t]

    def eval_type(self, node, fallback=None, local=False):
        """Evaluate an annotation (possibly a string) to an AlloType/ArrayType.

        Names resolve in the kernel's environment (template parameters, closure, the defining
        function's live locals, globals); when that fails, `fallback` (the annotation Python
        evaluated when the function was defined) is used as it is. `local`: the annotation of a
        local, which may also be `T @ Stateful`."""
        try:
            return self._eval_type(node, local)
        except AlloTypeError:
            if fallback is not None:
                return fallback
            raise

    def _eval_type(self, node, local=False):
        self.current = node
        expr = node
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                expr = ast.parse(node.value.strip(), mode="eval").body
            except SyntaxError:
                raise self.error(AlloTypeError, f"cannot parse the type annotation {node.value!r}", node) from None
        try:
            value = eval(compile(ast.Expression(expr), "<annotation>", "eval"), self.env.namespace())  # noqa: S307
        except AlloError as e:
            raise self.error(AlloTypeError, str(e), node) from None
        except NameError as e:  # upstream Allo's wording, which its traceback tests look for
            raise self.error(AlloTypeError, f"Unsupported type `{e.name}` in the annotation {ast.unparse(expr)!r}: "
                             f"{e}", node) from None
        except Exception as e:
            raise self.error(AlloTypeError, f"invalid type annotation {ast.unparse(expr)!r}: {e}", node) from None
        if isinstance(value, tuple) and all(isinstance(v, (AlloType, ArrayType)) for v in value):
            return value
        if isinstance(value, StatefulType) and not local:
            raise self.error(AlloTypeError, f"{ast.unparse(expr)!r}: `@ Stateful` marks a local variable that keeps its "
                             "value across calls; parameters and results cannot be Stateful", node)
        if isinstance(value, Struct) and not local:
            raise self.error(AlloTypeError, f"{ast.unparse(expr)!r} is a struct: structs are kernel locals only (each "
                             "field a scalar); pass one array per field instead", node)
        if not isinstance(value, (AlloType, ArrayType, ConstType, StreamType, StatefulType, Struct)):
            raise self.error(AlloTypeError, f"annotation {ast.unparse(expr)!r} is not an allo type "
                             "(use e.g. float32, int8, float32[8, 16], Fixed(16, 8))", node)
        return value

    # ---------------------------------------------------------------- visiting
    def visit(self, node):
        """The one choke point: dispatch to visit_<Node>, turn failures into located errors."""
        prev, self.current = self.current, node
        try:
            method = getattr(self, f"visit_{type(node).__name__}", None)
            if method is None:
                name = type(node).__name__
                hint = UNSUPPORTED_HINTS.get(name, f"Python construct '{name}' is not supported in kernels")
                raise self.error(AlloSyntaxError, hint, node)
            return method(node)
        except AlloError as e:
            if getattr(e, "filename", None) is None:
                raise self.error(type(e), str(e), node) from None
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError, OverflowError) as e:
            dynamic = [b.name for b in self.locals.values() if isinstance(b, Buffer) and b.type.dynamic]
            hint = (f"; {', '.join(map(repr, dynamic))} (of run-time length, T[...]) take only element accesses A[i] "
                    "with i from 0 to the length passed as a scalar" if dynamic else "")
            raise self.error(AlloError, f"cannot compile this line ({type(e).__name__}: {user_words(str(e))}){hint}",
                             node) from None
        finally:
            self.current = prev

    def visit_body(self, stmts):
        saved, self.meta_chain = self.meta_chain, None
        try:
            for s in stmts:
                if self.block and isinstance(self.block[-1], Return) and not (isinstance(s, ast.With) and self.meta_chain):
                    raise self.error(AlloSyntaxError, "code after return is not supported", s)
                if not isinstance(s, ast.With):
                    self.meta_chain = None
                self.visit(s)
        finally:
            self.meta_chain = saved

    def nested(self, stmts):
        """Visit statements into a fresh list (a new block scope) and return it."""
        saved, self.block = self.block, []
        saved_scope, self.scope = self.scope, self.scope + (object(),)
        try:
            self.visit_body(stmts)
            if any(isinstance(s, Return) for s in self.block):
                raise self.error(AlloSyntaxError, "return is only supported as the last statement of a kernel", stmts[-1])
            return self.block
        finally:
            self.block = saved
            self.scope = saved_scope

    # ---------------------------------------------------------------- statements
    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant):
            return  # docstring or bare constant
        if not isinstance(node.value, ast.Call):
            raise self.error(AlloSyntaxError, "this expression has no effect; assign its value or remove it", node)
        self.visit(node.value)

    def visit_Pass(self, node):
        return

    def visit_For(self, node):
        if node.orelse:
            raise self.error(AlloSyntaxError, "for-else is not supported in kernels", node)
        loc = self.loc(node)
        kind, ranges, band, hints = self.calls.loop_ranges(node.iter)
        targets = node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]
        if not all(isinstance(t, ast.Name) for t in targets):
            raise self.error(AlloSyntaxError, "loop variables must be plain names", node)
        index_tuple = None
        starred = isinstance(node.iter, ast.Call) and any(isinstance(a, ast.Starred) for a in node.iter.args)
        if len(targets) == 1 and (len(ranges) > 1 or starred) and kind != "range":
            # `for idx in allo.grid(*SHAPE)`: one name for the whole band, a tuple of loop variables
            # idx0, idx1, ... (rank-generic kernels index with it: X[idx])
            index_tuple = targets[0].id
            targets = [ast.Name(f"{index_tuple}{d}", ast.Store()) for d in range(len(ranges))]
        if len(targets) != len(ranges):
            raise self.error(AlloSyntaxError, f"{len(targets)} loop variable(s) for {len(ranges)} loop extent(s)", node)
        names = [t.id for t in targets]
        saved = {n: self.locals.get(n) for n in names + ([index_tuple] if index_tuple else [])}
        ivs, loops = [], []
        for name, (lb, ub, step) in zip(names, ranges):
            lname = name  # a repeated name stays: band-qualified addressing disambiguates
            self.loop_names.add(lname)
            iv = IterVar(name, loc=loc)
            if isinstance(step, Expr):
                loops.append(self.run_time_step(iv, lb, ub, step, lname, loc))
            elif step > 0:
                loops.append(For(iv, lb, ub, step, [], lname, {}, loc))
                self.locals[name] = iv
            else:  # range(a, b, -s): iterate t over 0..ceil((a-b)/s), i = a - s*t
                if not (isinstance(lb, emit.Const) and isinstance(ub, emit.Const)):
                    raise self.error(AlloSyntaxError, "a negative range step needs constant bounds", node)
                trips = max(0, -(-(lb.value - ub.value) // -step))
                loops.append(For(iv, emit.Const(0, index), emit.Const(trips, index), 1, [], lname, {}, loc))
                offset = emit.binary(BinOpKind.MUL, emit.Const(-step, index), iv, loc)
                self.locals[name] = emit.binary(BinOpKind.SUB, lb, offset, loc)
            ivs.append(name)
        if index_tuple:
            self.locals[index_tuple] = tuple(self.locals[n] for n in names)
        if kind == "reduction":
            for f in loops:
                f.attrs[REDUCTION] = True
        loops[0].attrs[OP_NAME] = self.user_band(band, node) if band else self.band_name([f.name for f in loops])
        for f, ii, factor in zip(loops, hints.get("pipeline", [None] * len(loops)),
                                 hints.get("unroll", [None] * len(loops))):  # allo.grid(..., pipeline=, unroll=)
            if ii is not None:
                f.attrs[PIPELINE_II] = ii
            if factor is not None:
                f.attrs[UNROLL] = factor
        body = self.nested(node.body)
        for outer, inner in zip(loops, loops[1:]):
            outer.body = [inner]
        loops[-1].body = body
        self.emit(loops[0])
        for n, v in saved.items():
            if v is not None:
                self.locals[n] = v

    def run_time_step(self, iv, lb, ub, step, lname, loc) -> For:
        """`for j in range(lb, ub, step)` with a step known only at run time, as Python runs it: the
        three values are read once at entry into scalar locals, the loop counts `trips` =
        len(range(lb, ub, step)) iterations (a negative step counts down; a zero step, a ValueError
        in Python, runs no iteration, and instrumented builds raise AlloValueError) and `j` reads as
        `lb + step * t`. The loop keeps its name
        (`s.pipeline("j")`); its trip count is a run-time value, as for `range(n)`."""
        lo, hi, st = (self.scalar_local(f"{lname}_{what}", e, loc) for what, e in
                      (("lo", lb), ("hi", ub), ("step", step)))
        st().buf.attrs[RANGE_STEP] = lname  # a zero step: AlloValueError in instrumented builds (guards)
        zero = emit.binary(BinOpKind.EQ, st(), emit.Const(0, index), loc)
        divisor = emit.select(zero, emit.Const(1, index), st(), loc)  # no division by zero
        down = emit.binary(BinOpKind.FLOORDIV, emit.binary(BinOpKind.SUB, lo(), hi(), loc), divisor, loc)
        count = emit.binary(BinOpKind.MAX, emit.Const(0, index), emit.binary(BinOpKind.SUB, emit.Const(0, index),
                                                                            down, loc), loc)
        trips = self.scalar_local(f"{lname}_trips", emit.select(zero, emit.Const(0, index), count, loc), loc)
        self.locals[iv.name] = emit.binary(BinOpKind.ADD, lo(), emit.binary(BinOpKind.MUL, st(), iv, loc), loc)
        return For(iv, emit.Const(0, index), trips(), 1, [], lname, {RUN_TIME_STEP: True}, loc)

    def scalar_local(self, hint, value, loc):
        """A hidden index local set to `value` here; returns a function making a fresh load of it."""
        buf = Buffer(self.fresh_buffer_name(hint), ArrayType(index, ()), "local", loc=loc)
        self.emit(Alloc(buf, emit.cast(value, index, loc), loc))
        return lambda: Load(buf, [], index, loc=loc)

    def visit_If(self, node):
        loc = self.loc(node)
        cond = self.visit(node.test)
        if emit.is_number(cond):  # compile-time condition (template parameters)
            for s in self.nested(node.body if cond else node.orelse):
                self.emit(s)
            return
        cond = emit.to_bool(self.scalar(cond), loc)
        self.hoist_branch_declarations(node)
        then = self.nested(node.body)
        orelse = self.nested(node.orelse)
        self.emit(If(cond, then, orelse, loc))

    def visit_While(self, node):
        if node.orelse:
            raise self.error(AlloSyntaxError, "while-else is not supported in kernels", node)
        loc = self.loc(node)
        saved, self.block, self.in_condition = self.block, [], True
        try:
            cond = emit.to_bool(self.scalar(self.visit(node.test)), loc)
        finally:
            self.in_condition = False
        pre = self.block
        self.block = saved
        if pre:
            raise self.error(AlloSyntaxError, "while conditions must be simple expressions (no calls)", node)
        self.emit(While(cond, self.nested(node.body), loc))

    def visit_Return(self, node):
        loc = self.loc(node)
        if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
            values = []
        else:
            v = self.visit(node.value)
            values = list(v) if isinstance(v, (tuple, list)) else [v]
        if len(values) != len(self.result_types):
            raise self.error(AlloTypeError, f"kernel returns {len(values)} value(s) but its annotation declares "
                             f"{len(self.result_types)}", node)
        out = []
        for v, t in zip(values, self.result_types):
            if isinstance(t, ArrayType):
                if not isinstance(v, Buffer) or not v.shape:
                    if emit.is_number(v) or isinstance(v, Expr):
                        buf = self.arrays.new_temp(t.dtype, t.shape, loc, "ret")
                        self.arrays.copy_into(buf, self.scalar(v), loc)
                        v = buf
                    else:
                        raise self.error(AlloTypeError, f"expected an array {t!r} to return, got {describe(v)}", node)
                if tuple(v.shape) != tuple(t.shape):
                    raise self.error(AlloTypeError, f"returned array has shape {list(v.shape)} but the kernel declares {t!r}", node)
                if v.dtype != t.dtype:
                    conv = self.arrays.new_temp(t.dtype, t.shape, loc, "ret")
                    self.arrays.copy_into(conv, v, loc)
                    v = conv
                out.append(v)
            else:
                if isinstance(v, Buffer) and v.shape:
                    raise self.error(AlloTypeError, f"kernel declares a scalar {t!r} result but returns an array", node)
                out.append(emit.cast(emit.to_expr(self.scalar(v), t, loc), t, loc))
        self.emit(Return(out, loc))

    # ---------------------------------------------------------------- expressions
    def scalar(self, v):
        """A compile-time number or Expr for use as a scalar (rank-0 buffers are loaded)."""
        if isinstance(v, Buffer):
            if v.shape:
                raise self.error(AlloTypeError, f"array {v.name!r} used where a scalar is expected; index it, e.g. {v.name}[i]")
            return Load(v, [], loc=self.loc())
        if isinstance(v, (Expr,)) or emit.is_number(v):
            return v
        raise self.error(AlloTypeError, f"{v!r} cannot be used as a kernel value")

    def value(self, v):
        """Like scalar(), but arrays pass through."""
        if isinstance(v, Buffer) and v.shape:
            return v
        return self.scalar(v)

def _assigned_names(tree) -> set:
    names = set()
    for n in ast.walk(tree):
        targets = []
        if isinstance(n, ast.Assign):
            targets = n.targets
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = [n.target]
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Name):
                    names.add(sub.id)
    return names


def _mutated_names(tree) -> set:
    """Names written after their declaration: stored through a subscript, updated with an
    augmented assignment, or assigned more than once."""
    counts, mutated = {}, set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
                        mutated.add(sub.value.id)
                    elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                        counts[sub.id] = counts.get(sub.id, 0) + 1
                        if isinstance(n, ast.AugAssign):
                            mutated.add(sub.id)
    return mutated | {k for k, c in counts.items() if c > 1}


SPILL_NODES = 24  # operand size (nodes, shared ones counted each time) above which a mode cast spills it


def _tree_size(e, limit) -> int:
    """Nodes of e as a tree (a shared node counted at each use), counting stops at `limit`."""
    stack, n = [e], 0
    while stack and n < limit:
        x = stack.pop()
        n += 1
        stack.extend(child_exprs(x))
    return n
