"""MLIR text (vector dialect) for a recognised contraction, emitted through the LLVM renderer.

Shape of the generated code (GEMM names: v=j lanes, u=i rows, k reduction)::

    for others...:                         # parallel loops that are neither u nor v
      for jc in 0..V step NC:              # packed case only: cache block of v
        for kc in 0..K step KC:            #   and of the reduction
          pack B[kc:kc+KC, jc:jc+NC] into panels Bp[NC/NR][KC][NR]
          for ic in 0..U step MC:
            for jr in jc..jc+NC step NR:
              for ir in ic..ic+MC step MR:
                acc[MR][NR/VL] = X[ir.., jr..]        # vector loads (masked at the right edge)
                for k...: acc[r][c] = acc[r][c] op rhs(u=ir+r, v=jr+c*VL..)   (same order as source)
                X[ir.., jr..] = acc
Every X element receives the same updates in the same order as in the source loop nest, each
operation rounded the same way, so the result is bit-identical (fast math only adds flags).

Example::

    ContractionEmitter(renderer, contraction, arch).emit()
"""
from __future__ import annotations

from ....ir import nodes as N
from ....ir.ops import BinOpKind
from ....ir.types import Float, UInt
from .contraction import unit_stride
from .linear import access_forms
from .nests import depends

_VFLOAT = {BinOpKind.ADD: "arith.addf", BinOpKind.SUB: "arith.subf", BinOpKind.MUL: "arith.mulf",
           BinOpKind.DIV: "arith.divf", BinOpKind.MIN: "arith.minimumf", BinOpKind.MAX: "arith.maximumf"}
_VINT = {BinOpKind.ADD: "arith.addi", BinOpKind.SUB: "arith.subi", BinOpKind.MUL: "arith.muli"}
_VSINT = {BinOpKind.MIN: "arith.minsi", BinOpKind.MAX: "arith.maxsi"}
_VUINT = {BinOpKind.MIN: "arith.minui", BinOpKind.MAX: "arith.maxui"}


def vector_op(op, t) -> str:
    if isinstance(t, Float):
        return _VFLOAT[op]
    if op in _VINT:
        return _VINT[op]
    return (_VUINT if isinstance(t, UInt) else _VSINT)[op]


class Tiles:
    """Register/cache tile sizes for one contraction (chosen from the element size and the ISA)."""

    def __init__(self, c, arch):
        ebytes = c.dtype.bits // 8
        self.VL = max(1, arch.vector_bytes // ebytes)
        lanes_needed = -(-c.V // self.VL)
        self.NV = max(1, min(arch.max_row_vectors, lanes_needed))
        self.NR = self.NV * self.VL
        self.MR = 1 if c.u is None else max(1, min(c.U, arch.acc_budget // self.NV))
        self.KC = arch.kc
        self.MC = self.MR * max(1, -(-arch.mc_rows // self.MR))
        self.NC = self.NR * max(1, arch.nc_cols // self.NR)


def balanced_rows(U: int, MR: int, n: int) -> int:
    """Rows of the register tile when the U rows are split between n threads: the largest MR' in
    [ceil(MR/2), MR] with U a multiple of n * MR' (every thread gets the same number of full
    tiles and no leftover rows run serially after the parallel loop), else MR. Only the tiling
    changes: every element still gets its updates in source order.

    Example::

        balanced_rows(128, 6, 2)       # 4: 16 tiles of 4 rows per thread instead of 66 + 60 + 2
    """
    for mr in range(MR, (MR + 1) // 2 - 1, -1):
        if mr >= 1 and U % (mr * n) == 0:
            return mr
    return MR


class ContractionEmitter:
    def __init__(self, r, c, arch, parallel=False, threads=1):
        self.r, self.c, self.arch = r, c, arch
        self.t = Tiles(c, arch)
        self.mode, self.parallel = self.parallel_mode(parallel, max(1, threads))
        self.T = c.dtype
        self.pack_bufs = {}  # id(Load) -> (ssa, memref type, element type)

    def parallel_mode(self, wanted, n):
        """Which generated loop runs in parallel: ("others", id(var)), ("jc",), ("ic",), ("jr",)
        or (None,). Every parallel dimension of a contraction is independent, so the choice is
        free: one fork per call where possible (an outer loop, else whole cache blocks)."""
        c, t = self.c, self.t
        if not wanted or n < 2:
            return (None,), None
        for f, ext in c.others:
            if ext >= n:
                return ("others",), id(f.var)
        panels = c.V // t.NR
        if c.u is not None and c.U // t.MR >= n:  # BLIS-style: shared packed panels, rows split
            t.MR = balanced_rows(c.U, t.MR, n)
            t.MC = t.MR * -(-(c.U // t.MR) // n)  # one block of row tiles per thread
            return ("ic",), id(c.u)
        if c.packs and panels >= n:
            t.NC = t.NR * -(-panels // n)  # one cache block of lanes per thread
            return ("jc",), None
        if panels >= n:
            return ("jr",), id(c.v)
        return (None,), None

    # ------------------------------------------------------------------ small helpers
    def uid(self) -> int:
        """Fresh number from the renderer's counter (names must not depend on history: the
        rendered text is the JIT cache key)."""
        self.r.n += 1
        return self.r.n

    def vt(self, t) -> str:
        return f"vector<{self.t.VL}x{t.mlir}>"

    def apply(self, expr, operands) -> str:
        dims = ", ".join(f"d{k}" for k in range(len(operands)))
        return self.r.op(f"affine.apply affine_map<({dims}) -> ({expr})>({', '.join(operands)})")

    def open_for(self, lb, ub, step=1, iter_args=None, parallel=False, name="x"):
        """Open an affine loop; lb/ub are ints or (ssa, offset[, cap]) meaning ssa + offset
        (capped by min with cap). Returns (iv, results_ssa)."""
        r = self.r
        iv = f"%{name}{self.uid()}"
        if parallel and not iter_args:
            r.emit(f"affine.parallel ({iv}) = ({self._pbound(lb)}) to ({self._pbound(ub)}) step ({step}) {{")
            r.ind += 1
            return iv, None
        res = None
        head = f"affine.for {iv} = {self._bound(lb, 'max')} to {self._bound(ub, 'min')} step {step}"
        if iter_args:
            res = f"%res{self.uid()}"
            args = ", ".join(f"{a} = {b}" for a, b in iter_args[0])
            types = ", ".join(iter_args[1])
            n = len(iter_args[0])
            head = f"{res}{':' + str(n) if n > 1 else ''} = {head} iter_args({args}) -> ({types})"
        r.emit(head + " {")
        r.ind += 1
        return iv, res

    def close_for(self, yields=None, types=None):
        r = self.r
        if yields:
            r.emit(f"affine.yield {', '.join(yields)} : {', '.join(types)}")
        r.ind -= 1
        r.emit("}")

    @staticmethod
    def _bound(b, kind):
        if isinstance(b, int):
            return str(b)
        ssa, off = b[0], b[1]
        cap = b[2] if len(b) > 2 else None
        expr = f"d0 + {off}" if off else "d0"
        if cap is None:
            return f"affine_map<(d0) -> ({expr})>({ssa})"
        return f"{kind} affine_map<(d0) -> ({expr}, {cap})>({ssa})"

    @staticmethod
    def _pbound(b):
        if isinstance(b, int):
            return str(b)
        ssa, off = b[0], b[1]
        cap = b[2] if len(b) > 2 else None
        expr = f"{ssa} + {off}" if off else ssa
        return expr if cap is None else f"min({expr}, {cap})"

    def bind(self, var, ssa):
        self.r.env[var] = (ssa, True)

    # ------------------------------------------------------------------ driver
    def emit(self):
        c, r, t = self.c, self.r, self.t
        saved = dict(r.env)
        try:
            depth = 0
            for f, n in c.others:
                iv, _ = self.open_for(0, n, parallel=self.mode[0] == "others" and self.parallel == id(f.var), name="o")
                self.bind(f.var, iv)
                depth += 1
            V_full = c.V // t.NR * t.NR
            if c.packs:
                jc_par = self.mode[0] == "jc"
                if V_full:
                    jc, _ = self.open_for(0, V_full, t.NC, parallel=jc_par, name="jc")
                    self.with_packs(lambda: self.block(jc, V_full, t.NR))
                    self.close_for()
                if c.V > V_full:
                    self.with_packs(lambda: self.block(None, c.V, c.V - V_full))
            else:
                if V_full:
                    self.compute(None, 0, V_full, t.NR, None)
                if c.V > V_full:
                    self.compute(None, V_full, c.V, c.V - V_full, None)
            for _ in range(depth):
                self.close_for()
        finally:
            r.env.clear()
            r.env.update(saved)

    def with_packs(self, body):
        """Allocate the pack buffers (private to the enclosing parallel iteration), run body, free."""
        t, r = self.t, self.r
        for ld in self.c.packs:
            ty = f"memref<{t.NC // t.NR}x{t.KC}x{t.NR}x{ld.buf.dtype.mlir}>"
            m = r.op(f"memref.alloc() {{alignment = 64 : i64, name = \"{ld.buf.name}_packed\"}} : {ty}")
            self.pack_bufs[id(ld)] = (m, ty, ld.buf.dtype)
        body()
        for m, ty, _ in self.pack_bufs.values():
            r.emit(f"memref.dealloc {m} : {ty}")
        self.pack_bufs = {}

    def block(self, jc, vend, width):
        """Packed case: one cache block of v starting at loop value `jc` (None: the tail panel
        starting at vend - width)."""
        c, t = self.c, self.t
        (kf, K), = c.reds
        kc, _ = self.open_for(0, K, t.KC, name="kc")
        self.pack(jc, kc, vend, width, K)
        self.compute(jc, vend - width if jc is None else None, vend, width, (kc, K))
        self.close_for()

    # ------------------------------------------------------------------ packing
    def pack(self, jc, kc, vend, width, K):
        """Copy the v-operands of cache block (jc, kc) into panels Bp[panel][k - kc][lane]
        (jc None: the single tail panel of `width` lanes ending at vend)."""
        c, t, r = self.c, self.t, self.r
        kf = c.reds[0][0]
        if jc is not None:  # panels are disjoint: split between threads in the "ic" mode
            pj, _ = self.open_for((jc, 0), (jc, t.NC, vend), t.NR, parallel=self.mode[0] == "ic", name="pj")
            p = self.apply(f"(d0 - d1) floordiv {t.NR}", [pj, jc])
            v0 = pj
        else:
            v0 = self.index_const(vend - width)
            p = self.index_const(0)
        for ld in c.packs:
            m, ty, et = self.pack_bufs[id(ld)]
            if self._contig(ld):
                pk, _ = self.open_for((kc, 0), (kc, t.KC, K), name="pk")
                self.bind(kf.var, pk)
                kk = self.apply("d0 - d1", [pk, kc])
                for off, w in self.chunks(width):
                    self.bind(c.v, self.apply(f"d0 + {off}", [v0]) if off else v0)
                    idx = [r.index_value(i) for i in ld.indices]
                    vec = self.vload(r.memref(ld.buf), idx, ld.buf.type.mlir, et, w)
                    o = self.index_const(off)
                    r.emit(f"vector.store {vec}, {m}[{p}, {kk}, {o}] : {ty}, {self.vt(et)}")
                self.close_for()
            elif self._transpose_ok(ld, width, K):
                self.pack_transposed(ld, m, ty, et, kc, K, p, v0, width)
            else:  # transposing copy: per k, the panel's lanes come from `width` rows read in turn
                pk, _ = self.open_for((kc, 0), (kc, t.KC, K), name="pk")
                self.bind(kf.var, pk)
                kk = self.apply("d0 - d1", [pk, kc])
                for jj in range(width):
                    self.bind(c.v, self.apply(f"d0 + {jj}", [v0]) if jj else v0)
                    idx, affine = r.indices(ld.indices)
                    kind = "affine.load" if affine else "memref.load"
                    x = r.op(f"{kind} {r.memref(ld.buf)}[{idx}] : {ld.buf.type.mlir}")
                    r.emit(f"memref.store {x}, {m}[{p}, {kk}, {self.index_const(jj)}] : {ty}")
                self.close_for()
        if jc is not None:
            self.close_for()

    def _transpose_ok(self, ld, width, K):
        """Can the transposing copy of `ld` move VL x VL blocks (vector loads along the reduction,
        an in-register transpose, vector stores along the lanes)? Needs ld contiguous in the
        reduction variable and whole blocks: width, KC and K multiples of VL."""
        VL, kf = self.t.VL, self.c.reds[0][0]
        forms = access_forms(ld.indices)
        if forms is None or width % VL or self.t.KC % VL or K % VL or VL > 16:
            return False
        return forms[-1].coef(kf.var) == 1 and not any(f.depends(kf.var) for f in forms[:-1])

    def pack_transposed(self, ld, m, ty, et, kc, K, p, v0, width):
        """Pack `ld` (contiguous along k) into lanes-contiguous panels VL x VL elements at a time:
        VL vector loads W[v0+jj, k:k+VL], vector.transpose, VL vector stores Bp[p, k-kc+r, jj..].
        Pure data movement: the packed values are the same as the scalar copy's."""
        c, t, r = self.c, self.t, self.r
        VL, kf = t.VL, c.reds[0][0]
        vt, mt = self.vt(et), f"vector<{VL}x{VL}x{et.mlir}>"
        pk, _ = self.open_for((kc, 0), (kc, t.KC, K), VL, name="pk")
        self.bind(kf.var, pk)
        kk = self.apply("d0 - d1", [pk, kc])
        zero = "0.0" if isinstance(et, Float) else "0"
        for off in range(0, width, VL):
            blk = r.op(f"arith.constant dense<{zero}> : {mt}")
            for jj in range(VL):
                self.bind(c.v, self.apply(f"d0 + {off + jj}", [v0]) if off + jj else v0)
                idx = [r.index_value(i) for i in ld.indices]
                row = r.op(f"vector.load {r.memref(ld.buf)}[{', '.join(idx)}] : {ld.buf.type.mlir}, {vt}")
                blk = r.op(f"vector.insert {row}, {blk} [{jj}] : {vt} into {mt}")
            tr = r.op(f"vector.transpose {blk}, [1, 0] : {mt} to {mt}")
            o = self.index_const(off)
            for kr in range(VL):
                col = r.op(f"vector.extract {tr}[{kr}] : {vt} from {mt}")
                kq = self.apply(f"d0 + {kr}", [kk]) if kr else kk
                r.emit(f"vector.store {col}, {m}[{p}, {kq}, {o}] : {ty}, {vt}")
        self.close_for()

    def _contig(self, ld):
        return unit_stride(ld, self.c.v)

    def index_const(self, n) -> str:
        return self.r.op(f"arith.constant {int(n)} : index")

    def chunks(self, width):
        VL = self.t.VL
        return [(o, min(VL, width - o)) for o in range(0, width, VL)]

    # ------------------------------------------------------------------ compute
    def compute(self, jc, vstart, vend, width, kblock):
        """Loop over register tiles: row blocks (ic) outermost, then lane panels (jr), then row
        tiles (ir). jc: ssa of the cache block start (packed, full panels) or None with `vstart`
        the constant start of a single panel (the tail) or of the whole range."""
        c, t = self.c, self.t
        single = width < t.NR or (jc is None and kblock is not None)
        par_v = self.mode[0] == "jr"

        def panels(body):
            if jc is not None:
                jr, _ = self.open_for((jc, 0), (jc, t.NC, vend), t.NR, parallel=par_v, name="jr")
                body(jr, self.apply(f"(d0 - d1) floordiv {t.NR}", [jr, jc]))
                self.close_for()
            elif single:
                body(self.index_const(vstart), self.index_const(0))
            else:
                jr, _ = self.open_for(vstart, vend, t.NR, parallel=par_v, name="jr")
                body(jr, None)
                self.close_for()

        if c.u is None:
            panels(lambda jr, panel: self.micro([None], jr, width, kblock, panel))
            return
        MR, U = t.MR, c.U
        U_full = U // MR * MR
        if U_full:
            ic, _ = self.open_for(0, U_full, t.MC, parallel=self.mode[0] == "ic", name="ic")

            def rows(jr, panel):
                ir, _ = self.open_for((ic, 0), (ic, t.MC, U_full), MR, name="ir")
                self.micro([(ir, k) for k in range(MR)], jr, width, kblock, panel)
                self.close_for()

            panels(rows)
            self.close_for()
        if U > U_full:
            base = self.index_const(U_full)
            panels(lambda jr, panel: self.micro([(base, k) for k in range(U - U_full)], jr, width, kblock, panel))

    def micro(self, rows, v0, width, kblock, panel):
        """One register tile: rows = [(ssa, offset)] values of u (or [None]); lanes v0..v0+width."""
        c, r = self.c, self.r
        T = self.T
        vt = self.vt(T)
        X = c.store.buf
        xm = r.memref(X)
        chunks = self.chunks(width)
        useq = []
        for row in rows:
            if row is None:
                useq.append(None)
            else:
                useq.append(self.apply(f"d0 + {row[1]}", [row[0]]) if row[1] else row[0])
        vstarts = [self.apply(f"d0 + {off}", [v0]) if off else v0 for off, _ in chunks]
        # accumulator addresses and initial values
        addr, init = {}, []
        for ri, us in enumerate(useq):
            if us is not None:
                self.bind(c.u, us)
            for ci, (off, w) in enumerate(chunks):
                self.bind(c.v, vstarts[ci])
                idx = [r.index_value(i) for i in c.store.indices]
                addr[ri, ci] = idx
                init.append(self.vload(xm, idx, X.type.mlir, T, w))
        keys = [(ri, ci) for ri in range(len(useq)) for ci in range(len(chunks))]
        types = [vt] * len(keys)
        cur = list(init)
        results = []
        for li, (f, n) in enumerate(c.reds):
            names = [f"%a{self.uid()}" for _ in keys]
            if li == 0 and kblock is not None:
                kc, K = kblock
                lb, ub = (kc, 0), (kc, self.t.KC, K)
            else:
                lb, ub = 0, n
            iv, res = self.open_for(lb, ub, iter_args=(list(zip(names, cur)), types), name="k")
            self.bind(f.var, iv)
            results.append(res)
            cur = names
        # innermost: one update per accumulator, rhs evaluated lane-wise
        memo = {}
        new = []
        for ri, us in enumerate(useq):
            for ci, (off, w) in enumerate(chunks):
                a = cur[keys.index((ri, ci))]
                for op, acc_left, rhs_e in c.updates:
                    val = self.value(rhs_e, ri, ci, us, vstarts[ci], w, memo, kblock, panel, off)
                    lhs, rhs = (a, val) if acc_left else (val, a)
                    a = r.op(f"{vector_op(op, T)} {lhs}, {rhs} : {vt}")
                new.append(a)
        for li in reversed(range(len(c.reds))):
            self.close_for(new, types)
            res = results[li]
            new = [res] if len(keys) == 1 else [f"{res}#{k}" for k in range(len(keys))]
        for k, (ri, ci) in enumerate(keys):
            self.vstore(new[k], xm, addr[ri, ci], X.type.mlir, T, chunks[ci][1])

    # ------------------------------------------------------------------ lane-wise values
    def value(self, e, ri, ci, us, vstart, w, memo, kblock, panel, off):
        """SSA of `e` for row ri (u value `us`) and chunk ci: a vector if e depends on v, else a
        broadcast of the scalar."""
        c, r = self.c, self.r
        dep_u = c.u is not None and depends(e, c.u)
        if not depends(e, c.v):
            key = ("s", id(e), ri if dep_u else None)
            if key not in memo:
                if dep_u:
                    self.bind(c.u, us)
                s = r.expr(e)
                memo[key] = r.op(f"vector.broadcast {s} : {e.type.mlir} to {self.vt(e.type)}")
            return memo[key]
        key = ("v", id(e), ci, ri if dep_u else None)
        if key in memo:
            return memo[key]
        if dep_u:
            self.bind(c.u, us)
        self.bind(c.v, vstart)
        t = e.type
        if isinstance(e, N.Load):
            et = e.buf.dtype
            if id(e) in self.pack_bufs:
                m, ty, _ = self.pack_bufs[id(e)]
                kc, _ = kblock
                kv = r.env[c.reds[0][0].var][0]
                kk = self.apply("d0 - d1", [kv, kc])
                o = self.index_const(off)
                out = r.op(f"vector.load {m}[{panel}, {kk}, {o}] : {ty}, {self.vt(et)}")
            else:
                idx = [r.index_value(i) for i in e.indices]
                out = self.vload(r.memref(e.buf), idx, e.buf.type.mlir, et, w)
            if et != t:
                out = self.vcast(out, et, t)
        elif isinstance(e, N.BinOp):
            a = self.value(e.lhs, ri, ci, us, vstart, w, memo, kblock, panel, off)
            b = self.value(e.rhs, ri, ci, us, vstart, w, memo, kblock, panel, off)
            out = r.op(f"{vector_op(e.op, t)} {a}, {b} : {self.vt(t)}")
        elif isinstance(e, N.Cast):
            a = self.value(e.value, ri, ci, us, vstart, w, memo, kblock, panel, off)
            out = self.vcast(a, e.value.type, t)
        elif isinstance(e, N.UnaryOp):  # neg on floats
            a = self.value(e.operand, ri, ci, us, vstart, w, memo, kblock, panel, off)
            out = r.op(f"arith.negf {a} : {self.vt(t)}")
        else:  # recognise() only accepts the forms above
            raise NotImplementedError(type(e).__name__)
        memo[key] = out
        return out

    def vcast(self, x, s, d) -> str:
        if s == d:
            return x
        a, b = self.vt(s), self.vt(d)
        if isinstance(s, Float) and isinstance(d, Float):
            kind = "extf" if d.bits > s.bits else "truncf"
        elif isinstance(d, Float):
            kind = "uitofp" if isinstance(s, UInt) else "sitofp"
        elif d.bits > s.bits:
            kind = "extui" if isinstance(s, UInt) else "extsi"
        elif d.bits < s.bits:
            kind = "trunci"
        else:
            return x
        return self.r.op(f"arith.{kind} {x} : {a} to {b}")

    def vload(self, m, idx, mty, et, w) -> str:
        vt = self.vt(et)
        if w == self.t.VL:
            return self.r.op(f"vector.load {m}[{', '.join(idx)}] : {mty}, {vt}")
        mask = self.r.op(f"vector.constant_mask [{w}] : vector<{self.t.VL}xi1>")
        zero = "0.0" if isinstance(et, Float) else "0"
        pt = self.r.op(f"arith.constant dense<{zero}> : {vt}")
        return self.r.op(f"vector.maskedload {m}[{', '.join(idx)}], {mask}, {pt} : {mty}, vector<{self.t.VL}xi1>, {vt} into {vt}")

    def vstore(self, x, m, idx, mty, et, w):
        vt = self.vt(et)
        if w == self.t.VL:
            self.r.emit(f"vector.store {x}, {m}[{', '.join(idx)}] : {mty}, {vt}")
            return
        mask = self.r.op(f"vector.constant_mask [{w}] : vector<{self.t.VL}xi1>")
        self.r.emit(f"vector.maskedstore {m}[{', '.join(idx)}], {mask}, {x} : {mty}, vector<{self.t.VL}xi1>, {vt}")


_IDENTITY = {BinOpKind.ADD: 0, BinOpKind.MAX: "-inf", BinOpKind.MIN: "inf"}
_REDUCTION_KIND = {("f", BinOpKind.MAX): "maximumf", ("f", BinOpKind.MIN): "minimumf", ("f", BinOpKind.ADD): "add",
                   ("s", BinOpKind.ADD): "add", ("s", BinOpKind.MAX): "maxsi", ("s", BinOpKind.MIN): "minsi",
                   ("u", BinOpKind.ADD): "add", ("u", BinOpKind.MAX): "maxui", ("u", BinOpKind.MIN): "minui"}


class ReductionEmitter(ContractionEmitter):
    """`acc = acc op rhs(v)` over a loop: lane-wise partial results, then one vector.reduction.
    Only for ops exact in any order (or float add under fast math)."""

    def __init__(self, r, red, arch):
        self.r, self.c, self.arch = r, red, arch
        self.T = red.dtype
        self.t = Tiles(red, arch)
        self.parallel, self.mode = None, (None,)
        self.pack_bufs = {}

    def emit(self):
        c, r, T = self.c, self.r, self.T
        VL = self.t.VL
        vt = self.vt(T)
        kind = "f" if isinstance(T, Float) else ("u" if isinstance(T, UInt) else "s")
        ident = _IDENTITY[c.op]
        if kind != "f" and ident != 0:
            bits = T.bits
            signed = kind == "s"
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
            ident = lo if c.op == BinOpKind.MAX else hi
            if not signed and ident >= 1 << (bits - 1):
                ident -= 1 << bits
        if kind == "f":
            lit = {0: "0.0", "-inf": "0xFF800000" if T.bits == 32 else "0xFFF0000000000000",
                   "inf": "0x7F800000" if T.bits == 32 else "0x7FF0000000000000"}[ident]
        else:
            lit = str(ident)
        vinit = r.op(f"arith.constant dense<{lit}> : {vt}")
        saved = dict(r.env)
        try:
            acc_m = r.memref(c.acc)
            full = c.n // VL * VL
            names = [f"%a{self.uid()}"]
            iv, res = self.open_for(0, full, VL, iter_args=([(names[0], vinit)], [vt]), name="rv")
            self.bind(c.v, iv)
            val = self.value(c.rhs, 0, 0, None, iv, VL, {}, None, None, 0)
            lhs, rhs = (names[0], val) if c.acc_left else (val, names[0])
            nxt = r.op(f"{vector_op(c.op, T)} {lhs}, {rhs} : {vt}")
            self.close_for([nxt], [vt])
            part = res
            if c.n > full:
                start = self.index_const(full)
                self.bind(c.v, start)
                w = c.n - full
                val = self.value(c.rhs, 0, 0, None, start, w, {}, None, None, 0)
                mask = r.op(f"vector.constant_mask [{w}] : vector<{VL}xi1>")
                val = r.op(f"arith.select {mask}, {val}, {vinit} : vector<{VL}xi1>, {vt}")
                lhs, rhs = (part, val) if c.acc_left else (val, part)
                part = r.op(f"{vector_op(c.op, T)} {lhs}, {rhs} : {vt}")
            red = r.op(f"vector.reduction <{_REDUCTION_KIND[kind, c.op]}>, {part} : {vt} into {T.mlir}")
            old = r.op(f"affine.load {acc_m}[] : {c.acc.type.mlir}")
            lhs, rhs = (old, red) if c.acc_left else (red, old)
            new = r.op(f"{vector_op(c.op, T)} {lhs}, {rhs} : {T.mlir}")
            r.emit(f"affine.store {new}, {acc_m}[] : {c.acc.type.mlir}")
        finally:
            r.env.clear()
            r.env.update(saved)
