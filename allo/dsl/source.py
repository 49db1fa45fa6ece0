"""Source capture: a kernel's AST with the file/line offsets of the original source.

Example::

    src = capture(my_kernel)
    src.loc(node)        # Loc("my_file.py", 12, 4, "    C[i] = A[i]")
"""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass

from ..errors import AlloError, AlloSyntaxError
from ..ir.loc import Loc


@dataclass
class KernelSource:
    """The parsed kernel: `tree` is the FunctionDef; node line numbers are relative to the
    dedented source, `line_offset` maps them to file lines."""

    fn_name: str
    filename: str
    line_offset: int
    col_offset: int
    tree: ast.FunctionDef
    text: str

    def loc(self, node) -> Loc | None:
        if node is None or not hasattr(node, "lineno"):
            return None
        lineno = node.lineno + self.line_offset
        line = linecache.getline(self.filename, lineno).rstrip("\n") or None
        return Loc(self.filename, lineno, node.col_offset + self.col_offset, line)


def capture(fn) -> KernelSource:
    """Parse the source of Python function `fn` (works for files and linecache-registered text)."""
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (OSError, TypeError) as e:
        raise AlloError(f"cannot read the source of kernel {getattr(fn, '__name__', fn)!r}: {e}. "
                        "Kernels must be defined in a file (or registered in linecache).") from None
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    try:
        module = ast.parse(text)
    except SyntaxError as e:  # pragma: no cover - Python already parsed it once
        raise AlloSyntaxError(f"{filename}:{first + (e.lineno or 1) - 1}: {e.msg}") from None
    tree = next((n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if tree is None:
        raise AlloError(f"{filename}:{first}: {fn!r} is not a function definition")
    if isinstance(tree, ast.AsyncFunctionDef):
        raise AlloSyntaxError(f"{filename}:{first}: async kernels are not supported; use a plain def")
    return KernelSource(fn.__name__, filename, first - 1, indent, tree, text)
