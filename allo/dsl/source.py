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
    """Parse the source of Python function `fn`: from its file, or from the text Python keeps in
    linecache (IPython/Jupyter cells, the Python 3.13+ REPL, allo's generated sources)."""
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (OSError, TypeError) as e:
        raise AlloError(_no_source_message(fn, e)) from None
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


def _no_source_message(fn, err) -> str:
    """Why the source of `fn` cannot be read, and where a kernel has to live instead."""
    name = getattr(fn, "__name__", fn)
    where = getattr(getattr(fn, "__code__", None), "co_filename", None)
    head = f"cannot read the source of kernel {name!r}"
    if where == "<stdin>":
        why = (f"{head}: it was typed into an interactive Python session, which keeps no source before "
               "Python 3.13.")
    elif where is not None:
        why = f"{head} (defined in {where}): {err}."
    else:
        why = f"{head}: {err}."
    return (why + " allo parses a kernel's source, so a kernel must live in a file (python my_kernels.py, or "
            "import it), or in a place that keeps its source: an IPython/Jupyter cell or the Python 3.13+ REPL "
            "(text run with exec() works once it is registered in linecache).")
