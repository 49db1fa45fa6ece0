"""allo's loop IR: a small typed tree that every stage shares.

The frontend (builder.py) turns a Python kernel into these nodes; schedule primitives rewrite
them; backends render them (MLIR text for the LLVM JIT and `s.module`, C++ for HLS).

Conventions
- Every mutable variable is a `Buffer` (arrays and scalar locals alike; a scalar local is a
  rank-0 buffer). Expressions read buffers with `Load` and statements write with `Store`.
- Loop induction variables are `IterVar`s (type index). A `For` has `name` (the `loop_name`
  attribute) and `attrs` (e.g. `op_name`, `pipeline_ii`, `unroll`, `parallel`); every attribute
  key of every node is declared in `allo.ir.attrs`, the op kinds in `allo.ir.ops`.
- Buffers are referenced by identity; `Func.clone()` deep-copies a function and remaps them.
- Which fields hold statements, expressions and buffers is known to `allo.ir.visit`, which walks
  and rewrites the tree; `allo.ir.effects` says what statements read and write.
- Every node may carry `loc` (allo.ir.loc.Loc) pointing at the kernel source line.

Example (what `for i in range(4): C[i] = A[i] + 1.0` becomes)::

    i = IterVar("i")
    For(i, Const(0, index), Const(4, index), 1, [
        Store(C, [i], BinOp(BinOpKind.ADD, Load(A, [i], float32), Const(1.0, float32), float32))
    ], name="i", attrs={OP_NAME: "S_i_0"})
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, fields
from typing import Any, Optional

from .ops import BinOpKind, MathFn, UnaryOpKind
from .types import AlloType, ArrayType, Index

index_t = Index()


# ----------------------------------------------------------------------------- expressions
class Expr:
    type: AlloType
    loc: Any = None


@dataclass(eq=False)
class Const(Expr):
    """A literal. `value` is a Python int/float/bool in the *value domain* (a Fixed constant
    holds its real value, e.g. 1.25, not the scaled integer)."""

    value: Any
    type: AlloType
    loc: Any = None


@dataclass(eq=False)
class IterVar(Expr):
    """A loop induction variable (type index). Identity (`is`) matters, not the name."""

    name: str
    type: AlloType = field(default_factory=lambda: index_t)
    loc: Any = None


@dataclass(eq=False)
class Load(Expr):
    """Read `buf[indices]` (indices are index-typed exprs; empty for rank-0 buffers)."""

    buf: "Buffer"
    indices: list
    type: AlloType = None
    loc: Any = None

    def __post_init__(self):
        if self.type is None:
            self.type = self.buf.dtype


@dataclass(eq=False)
class BinOp(Expr):
    """`lhs <op> rhs` (op: a `BinOpKind`; its string is accepted). Operands already have the same
    type (the builder inserts Casts), except shifts whose rhs may differ; `type` is the result
    type (bool for comparisons)."""

    op: BinOpKind
    lhs: Expr
    rhs: Expr
    type: AlloType
    loc: Any = None

    def __post_init__(self):
        self.op = BinOpKind(self.op)


@dataclass(eq=False)
class UnaryOp(Expr):
    """op: a `UnaryOpKind` (or its string): neg, not (logical, bool), invert (bitwise)."""

    op: UnaryOpKind
    operand: Expr
    type: AlloType
    loc: Any = None

    def __post_init__(self):
        self.op = UnaryOpKind(self.op)


@dataclass(eq=False)
class Cast(Expr):
    """Convert `value` to `type` following allo's cast rules (see builder/promote)."""

    value: Expr
    type: AlloType
    loc: Any = None


@dataclass(eq=False)
class MathCall(Expr):
    """A math function (fn: a `MathFn` or its string) on float operands (abs also on ints), or a
    bit-level operation of allo.ir.bits on integers."""

    fn: MathFn
    args: list
    type: AlloType
    loc: Any = None

    def __post_init__(self):
        self.fn = MathFn(self.fn)


@dataclass(eq=False)
class Select(Expr):
    """`a if cond else b` (cond is bool; a and b have `type`)."""

    cond: Expr
    a: Expr
    b: Expr
    type: AlloType
    loc: Any = None


# ----------------------------------------------------------------------------- buffers
@dataclass(eq=False)
class Buffer:
    """A named memory: function argument, local, global constant or call result.

    kind: "arg" (array argument), "scalar_arg" (read-only scalar parameter, rank 0),
          "local" (declared by an `Alloc`), "global" (numpy constant, `data` set),
          "result" (produced by a `CallStmt`).
    For rank-0 buffers `type.shape == ()`.
    """

    name: str
    type: ArrayType
    kind: str = "local"
    data: Any = None  # numpy array for kind == "global"
    global_name: Optional[str] = None  # symbol of the memref.global
    loc: Any = None
    attrs: dict = field(default_factory=dict)  # e.g. {PARTITION: [(Partition.Cyclic, dim, factor)]}

    def __deepcopy__(self, memo):
        """A copy sharing `data`: the IR never writes into a constant's contents."""
        new = copy.copy(self)
        memo[id(self)] = new
        for f in fields(self):
            if f.name != "data":
                setattr(new, f.name, copy.deepcopy(getattr(self, f.name), memo))
        return new

    @property
    def dtype(self) -> AlloType:
        return self.type.dtype

    @property
    def shape(self) -> tuple:
        return self.type.shape


# ----------------------------------------------------------------------------- statements
class Stmt:
    loc: Any = None


@dataclass(eq=False)
class For(Stmt):
    """`for var in range(lb, ub, step)`; lb/ub are index exprs (constants or affine in outer
    loop vars for affine loops), step a positive int."""

    var: IterVar
    lb: Expr
    ub: Expr
    step: int
    body: list
    name: str
    attrs: dict = field(default_factory=dict)
    loc: Any = None


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: list
    orelse: list = field(default_factory=list)
    loc: Any = None


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: list
    loc: Any = None


@dataclass(eq=False)
class Alloc(Stmt):
    """Declare local `buf`. `init` is None, a scalar Expr broadcast to every element, or a
    global `Buffer` whose contents are copied in."""

    buf: Buffer
    init: Any = None
    loc: Any = None


@dataclass(eq=False)
class Store(Stmt):
    buf: Buffer
    indices: list
    value: Expr
    loc: Any = None


@dataclass(eq=False)
class CallStmt(Stmt):
    """Call function `callee` of the module. `args` are Buffers (arrays, passed by reference)
    or Exprs (scalars). `results` are fresh Buffers of kind "result" (arrays) or rank-0
    locals receiving scalar results."""

    callee: str
    args: list
    results: list
    attrs: dict = field(default_factory=dict)  # e.g. {"name": "linear1"}
    loc: Any = None


@dataclass(eq=False)
class Return(Stmt):
    """Return Buffers (arrays) or Exprs (scalars). Only as the last statement of a Func."""

    values: list
    loc: Any = None


# ----------------------------------------------------------------------------- functions
@dataclass(eq=False)
class Func:
    """A kernel instance. `params` are Buffers of kind arg/scalar_arg in signature order;
    `result_types` are ArrayType (arrays) or AlloType (scalars)."""

    name: str
    params: list
    result_types: list
    body: list
    attrs: dict = field(default_factory=dict)  # e.g. {"dataflow": True, "kernel": "linear"}
    loc: Any = None

    def clone(self, name: Optional[str] = None) -> "Func":
        """Deep copy with fresh Buffers/IterVars (numpy global data is shared, not copied)."""
        f = copy.deepcopy(self)
        if name is not None:
            f.name = name
        return f


@dataclass(eq=False)
class Module:
    """All functions of one customize() call; `top` is the name of the top function (last)."""

    funcs: list
    top: str
    meta: dict = field(default_factory=dict)  # {"instances": {func name: (kernel name, targs repr)}}

    def func(self, name: str) -> Func:
        for f in self.funcs:
            if f.name == name:
                return f
        raise KeyError(name)

    def clone(self) -> "Module":
        return Module([f.clone() for f in self.funcs], self.top, copy.deepcopy(self.meta))


# ----------------------------------------------------------------------------- messages
_USER_WORDS = {"IterVar": "loop variable", "Load": "scalar value", "BinOp": "scalar expression",
               "UnaryOp": "scalar expression", "Cast": "scalar expression", "Select": "scalar expression",
               "MathCall": "scalar expression", "Const": "constant", "Buffer": "array", "ArrayType": "array type"}
_USER_WORDS_RE = None


def describe(v) -> str:
    """How a user would call kernel value `v` in an error message (never an internal class name)."""
    if isinstance(v, IterVar):
        return f"loop variable {v.name!r}"
    if isinstance(v, Buffer):
        return f"array {v.name!r} ({v.type!r})" if v.shape else f"scalar {v.name!r} ({v.dtype!r})"
    if isinstance(v, Expr):
        return f"scalar value of type {v.type!r}"
    return f"Python {type(v).__name__} {v!r}" if isinstance(v, (int, float, str, bool)) else type(v).__name__


def user_words(message: str) -> str:
    """`message` with the IR's class names ('IterVar', 'Load', ...) replaced by user words."""
    global _USER_WORDS_RE
    if _USER_WORDS_RE is None:
        _USER_WORDS_RE = re.compile(r"\b(" + "|".join(_USER_WORDS) + r")\b")
    return _USER_WORDS_RE.sub(lambda m: _USER_WORDS[m.group(1)], message)
