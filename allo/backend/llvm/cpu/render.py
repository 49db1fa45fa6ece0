"""The LLVM-mode MLIR renderer extended for the CPU: vector micro-kernels for recognised
contractions, `affine.parallel` for loops marked parallel (OpenMP later), private storage for
locals declared inside parallel loops.

It subclasses the renderer of `allo.ir.render_mlir` (mode "llvm") and only overrides loops and
allocation, so every scalar semantic (casts, fixed point, integer widths) stays in one place.

Example::

    text, big = render_cpu(ir_module, CpuConfig(parallel=True))
"""
from __future__ import annotations

from dataclasses import dataclass

from .... import render as R
from ....ir import effects as E, nodes as N, visit as V
from ....ir.attrs import LOOP_NAME, NAME, PARALLEL, STATEFUL, UNROLL
from ....ir.types import Float
from .contraction import recognise, recognise_reduction
from .emit import ContractionEmitter, ReductionEmitter
from .fastmath import EMITTERS
from .nests import perfect_nest
from .outputs import direct_outputs, entry_wrapper


@dataclass(frozen=True)
class Arch:
    """What the tile sizes depend on."""

    vector_bytes: int = 64  # 64: AVX-512, 32: AVX2
    acc_budget: int = 16  # accumulator vectors in the register tile
    max_row_vectors: int = 4  # vectors per tile row
    kc: int = 256  # cache block of the reduction (packed case)
    mc_rows: int = 128
    nc_cols: int = 512


@dataclass(frozen=True)
class CpuConfig:
    contractions: bool = True  # emit vector micro-kernels
    parallel: bool = False  # loops marked parallel become affine.parallel (-> OpenMP)
    fast_math: bool = False  # polynomial exp (vectorisable); flags are set on the parsed module
    threads: int = 1
    arch: Arch = Arch()


class CpuModuleRenderer(R.ModuleRenderer):
    def __init__(self, mod, big_limit, config: CpuConfig):
        super().__init__(mod, "llvm", big_limit)
        self.config = config
        self.report = []  # what was done, for `LLVMModule.cpu_report`
        self.outlined = []  # text of functions holding parallel loop bodies
        self.output_plan = None  # set by render_cpu when the top function writes outputs in place

    def render(self) -> str:
        if not self.mod.funcs:
            raise R.BackendError("module has no functions")
        bodies = [CpuFuncRenderer(self, f).render() for f in self.mod.funcs]
        bodies += self.outlined
        if self.output_plan is not None:
            n_params, results, plan = self.output_plan
            bodies.append(entry_wrapper(self, self.funcs[self.mod.top], n_params, results, plan))
        else:
            bodies.append(self.entry_wrapper())
        return "module {\n" + "".join(line + "\n" for line in self.global_lines) + "".join(bodies) + "}\n"


def _find_contractions(body, out):
    for s in body:
        if isinstance(s, N.For):
            c = recognise(perfect_nest(s))
            if c is not None:
                out[id(s)] = c
                continue
        for child in V.blocks(s):
            _find_contractions(child, out)
    return out


def _free_vars(s: N.For):
    """IterVars used inside loop `s` but bound outside it."""
    bound = {id(x.var) for x in V.walk_stmts([s]) if isinstance(x, N.For)}
    out = {}
    for y in V.body_exprs([s]):
        if isinstance(y, N.IterVar) and id(y) not in bound:
            out.setdefault(id(y), y)
    return list(out.values())


def _private_allocs(body):
    """ids of buffers declared inside a loop marked parallel (locals and call results): one copy
    per iteration."""
    return {id(b) for s in V.walk_stmts(body) if isinstance(s, N.For) and s.attrs.get(PARALLEL)
            for b in E.declared(s.body) if STATEFUL not in b.attrs}


def _scratch_buffers(f: N.Func):
    """{id(buffer): id(loop)} for locals declared (without initial value) outside a parallel loop
    but used only inside it: scratch space each iteration overwrites, made private to the loop
    (sharing it between threads would race)."""
    total = E.ref_counts(f.body)
    declared = {id(s.buf): s for s in V.walk_stmts(f.body) if isinstance(s, N.Alloc)}
    out = {}

    def visit(body):
        for s in body:
            if isinstance(s, N.For) and s.attrs.get(PARALLEL):
                inside = E.ref_counts(s.body)
                for b in E.mentioned(s.body):
                    a = declared.get(id(b))
                    if (b.kind == "local" and STATEFUL not in b.attrs and a is not None and a.init is None
                            and id(b) not in inside_decl(s)
                            and total[id(b)] == inside[id(b)] + 1):
                        out[id(b)] = id(s)
                continue
            for child in V.blocks(s):
                visit(child)

    def inside_decl(loop):
        return {id(b) for b in E.declared(loop.body)}

    visit(f.body)
    return out


class CpuFuncRenderer(R.FuncRenderer):
    def __init__(self, mr: CpuModuleRenderer, f: N.Func, contractions=None, private=None):
        super().__init__(mr, f)
        self.config = mr.config
        self.scratch = {}
        if contractions is None:
            contractions = _find_contractions(f.body, {}) if self.config.contractions else {}
        if private is None:
            private = set()
            self.scratch = {}
            if self.config.parallel:
                private = _private_allocs(f.body)
                self.scratch = _scratch_buffers(f)
                private |= set(self.scratch)
        self.contractions, self.private = contractions, private
        self.par_depth = 0

    # ------------------------------------------------------------------ allocation
    def hoist_list(self, bufs):
        return [b for b in super().hoist_list(bufs) if id(b) not in self.private or id(b) in self.returned]

    def private_allocs(self, body, extra=()):
        """Allocate the locals declared inside a parallel loop body, and `extra` scratch buffers
        (at the entry of the function that holds the body, so LLVM can keep scalars in
        registers)."""
        out = []
        stmts = [N.Alloc(b) for b in extra] + list(V.walk_stmts(body))
        for s in stmts:
            bufs = [s.buf] if isinstance(s, N.Alloc) else (list(s.results) if isinstance(s, N.CallStmt) else [])
            for b in bufs:
                if id(b) not in self.private or id(b) in self.hoisted:
                    continue
                small = b.type.rank == 0 or b.type.size * R.elem_bytes(b.dtype) <= R.STACK_BYTES
                kind = "memref.alloca" if small else "memref.alloc"
                m = self.op(f"{kind}() {R.attr_dict([(NAME, b.name)])} : {b.type.mlir}", b.loc or self.loc)
                self.mem[id(b)] = m
                self.hoisted.add(id(b))
                if not small:
                    out.append((m, b.type.mlir))
        return out

    # ------------------------------------------------------------------ loops
    def s_for(self, s: N.For):
        scratch = [b for b in E.mentioned(s.body) if self.scratch.get(id(b)) == id(s)]
        if self.config.parallel and s.attrs.get(PARALLEL) and self.par_depth == 0 and UNROLL not in s.attrs:
            if id(s) not in self.contractions and self._parallel_for(s):
                return
        big = self.private_allocs([], scratch) if scratch else []  # not outlined: allocate here
        self._render_for(s)
        for m, ty in big:
            self.emit(f"memref.dealloc {m} : {ty}")

    def _render_for(self, s: N.For):
        c = self.contractions.get(id(s))
        if c is not None:
            par = (self.config.parallel and self.par_depth == 0
                   and any(f.attrs.get(PARALLEL) for f in c.nest.loops))
            self.mr.report.append(f"{self.f.name}: vector micro-kernel for loop nest "
                                  f"{'/'.join(f.name for f in c.nest.loops)}")
            ContractionEmitter(self, c, self.config.arch, parallel=par, threads=self.config.threads).emit()
            return
        if self.config.contractions and not s.attrs.get(PARALLEL):
            red = recognise_reduction(s, self.config.fast_math, self.config.arch.vector_bytes // 4)
            if red is not None:
                self.mr.report.append(f"{self.f.name}: reduction into {red.acc.name!r} over loop {s.name!r} vectorised")
                ReductionEmitter(self, red, self.config.arch).emit()
                return
        super().s_for(s)

    def _parallel_for(self, s: N.For) -> bool:
        """`affine.parallel` over the loop, each iteration calling an outlined function that
        holds the body (its locals are allocated at that function's entry)."""
        lb, ub = R.affine_form(s.lb, self._is_dim), R.affine_form(s.ub, self._is_dim)
        if lb is None or ub is None or not isinstance(s.step, int) or s.step <= 0:
            return False
        name = lambda v: self.env[v][0]  # noqa: E731
        scratch = [b for b in E.mentioned(s.body) if self.scratch.get(id(b)) == id(s)]
        inner_private = {id(b) for b in E.declared(s.body)} | {id(b) for b in scratch}
        caps, args, types = [], [], []  # captured: (kind, object), SSA in this function, MLIR type
        for b in E.mentioned(s.body):
            if id(b) in inner_private:
                continue
            ssa = self.mem.get(id(b))
            if ssa is None:
                return False
            ty = b.dtype.mlir if b.kind == "scalar_arg" else b.type.mlir
            caps.append(("buf", b))
            args.append(ssa)
            types.append(ty)
        for v in _free_vars(s):
            if v not in self.env:
                return False
            caps.append(("var", v))
            args.append(self.env[v][0])
            types.append("index")
        fname = f"{self.f.name}__par{len(self.mr.outlined)}"
        self.mr.outlined.append("")  # reserve the name
        slot = len(self.mr.outlined) - 1
        self.mr.outlined[slot] = self._outline(fname, s, caps, types, scratch)
        iv = f"%i{self.n + 1}"
        self.n += 1
        self.emit(f"affine.parallel ({iv}) = ({R.aff_str(lb, name)}) to ({R.aff_str(ub, name)}) step ({int(s.step)}) {{")
        self.ind += 1
        self.emit(f"func.call @{fname}({', '.join([iv] + args)}) : ({', '.join(['index'] + types)}) -> ()")
        self.ind -= 1
        self.emit(f"}} {R.attr_dict([(LOOP_NAME, s.name)])}", self.loc)
        self.mr.report.append(f"{self.f.name}: loop {s.name!r} runs in parallel")
        return True

    def _outline(self, fname, s, caps, types, scratch) -> str:
        sub = CpuFuncRenderer(self.mr, self.f, contractions=self.contractions, private=self.private)
        sub.scratch = {}
        sub.par_depth = 1
        sub.returned = set()
        params = ["%iv: index"]
        sub.env[s.var] = ("%iv", True)
        for k, ((kind, obj), ty) in enumerate(zip(caps, types)):
            params.append(f"%c{k}: {ty}")
            if kind == "buf":
                sub.mem[id(obj)] = f"%c{k}"
                sub.hoisted.add(id(obj))
            else:
                sub.env[obj] = (f"%c{k}", True)
        big = sub.private_allocs(s.body, scratch)
        sub.block(s.body)
        for m, ty in big:
            sub.emit(f"memref.dealloc {m} : {ty}")
        sub.emit("return")
        head = f"  func.func private @{fname}({', '.join(params)}) {{"
        return head + "\n" + "\n".join(sub.lines) + "\n  }\n"

    # ------------------------------------------------------------------ fast math
    def e_math(self, e: N.MathCall):
        t = e.type
        if self.config.fast_math and e.fn in EMITTERS and isinstance(t, Float) and t.bits == 32 and not t.brain:
            return EMITTERS[e.fn](self, self.expr_as(e.args[0], t))
        return super().e_math(e)

    _STMTS = {**R.FuncRenderer._STMTS, N.For: s_for}
    _EXPRS = {**R.FuncRenderer._EXPRS, N.MathCall: e_math}


def render_cpu(mod: N.Module, config: CpuConfig) -> tuple[str, dict, list]:
    """(MLIR text, big global data, report lines) of `mod` (a clone: the top function may be
    rewritten to write its returned arrays in place) rendered for the CPU."""
    top = mod.func(mod.top)
    n_params, results = len(top.params), list(top.result_types)
    plan = direct_outputs(mod)
    r = CpuModuleRenderer(mod, R.BIG_GLOBAL, config)
    if plan is not None:
        r.output_plan = (n_params, results, plan)
        r.report.append(f"{mod.top}: returned arrays written in place")
    return r.render(), r.big, r.report
