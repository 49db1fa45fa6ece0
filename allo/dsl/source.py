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


def kernel_source(kernel) -> KernelSource:
    """`capture(kernel.fn)`, once per kernel object: later builds of the kernel in this process
    parse the text its first build read, even if the file is edited meanwhile."""
    src = getattr(kernel, "_captured_source", None)
    if src is None:
        src = capture(kernel.fn)
        try:
            kernel._captured_source = src
        except AttributeError:  # pragma: no cover - a kernel object without a __dict__
            pass
    return src


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
    _check_same_function(fn, tree, filename, first)
    return KernelSource(fn.__name__, filename, first - 1, indent, tree, text)


def _check_same_function(fn, tree: ast.FunctionDef, filename: str, first: int) -> None:
    """The text read at `fn`'s first line must still be `fn`: Python keeps no source, so a file
    edited after it was imported (lines inserted above a kernel) gives the text of whatever is
    there now (another kernel: it would be built under `fn`'s name with that kernel's parameters).
    Checked: the def's name, its parameter names and that the code's last line lies within the def."""
    code = inspect.unwrap(fn).__code__  # inspect reads the source of the function a decorator wraps
    args = tree.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    want = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount
                                 + bool(code.co_flags & inspect.CO_VARARGS)
                                 + bool(code.co_flags & inspect.CO_VARKEYWORDS)])
    lines = [ln for _, _, ln in code.co_lines() if ln is not None]
    last = max(lines, default=first)
    body_last = first + (tree.end_lineno or tree.lineno) - 1
    if tree.name == fn.__name__ and names == want and first <= last <= body_last:
        return
    found = f"'def {tree.name}({', '.join(names)})' at lines {first}-{body_last}"
    raise AlloError(f"{filename}:{first}: the source of kernel {fn.__name__!r} no longer matches the function Python "
                    f"loaded ({fn.__name__}({', '.join(want)}), last line {last}); the file now has {found}: it was "
                    "edited after it was imported. Restart Python (or reload the module) so that the kernel and its "
                    "source agree")


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
