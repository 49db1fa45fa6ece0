"""The package layering of docs/architecture.md holds: import contracts, the package map, lazy imports.

- `lint-imports` (import-linter, a test dependency; contracts in pyproject.toml) keeps the layers,
  forbids importing the `allo` package from inside it and forbids import circles.
- Every package and top-level module of allo has a row in the package map of docs/architecture.md.
- Imports inside functions are of optional or heavy dependencies only (so `import allo` stays light
  and the layering is visible at the top of each file).
"""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "allo"

# What may be imported inside a function, and why.
LAZY_OK = {
    "torch": "optional dependency (extra `torch`); only the PyTorch frontend needs it",
    "mlir": "loaded at the first build, so `import allo` does not load MLIR",
    "circt": "runs in a child process only (it corrupts the heap next to allo's MLIR)",
    "ray": "optional dependency (extra `dse`)",
    "matplotlib": "optional dependency (extra `dse`), for DSEResult.plot",
    "ml_dtypes": "optional, not a dependency: numpy's bfloat16 dtype, only for bfloat16 at the kernel boundary",
}
# allo modules that import torch at module level: importing them lazily keeps `import allo` torch-free
TORCH_STAGES = {"allo.frontend.lower"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = (module if is_pkg else module.rsplit(".", 1)[0]).split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def test_import_contracts_hold():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    assert Path(exe).exists(), "lint-imports not found: pip install import-linter (the `test` extra has it)"
    proc = subprocess.run([exe, "--no-cache", "--no-logo"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_every_package_has_a_row_in_the_package_map():
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("## Package map", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("|")]
    named = " ".join(rows)
    missing = []
    for init in sorted(PACKAGE.rglob("__init__.py")):
        pkg = init.parent.relative_to(ROOT).as_posix()
        depth = pkg.count("/")
        if depth == 1 and f"`{pkg}/`" not in named:
            missing.append(pkg + "/")
        elif depth >= 2 and f"`{init.parent.name}/`" not in named:  # subpackages: named in their parent's row
            missing.append(pkg + "/")
    for mod in sorted(PACKAGE.glob("*.py")):
        if f"`allo/{mod.name}`" not in named:
            missing.append(f"allo/{mod.name}")
    assert not missing, f"docs/architecture.md's package map has no row for: {', '.join(missing)}"


def test_imports_inside_functions_are_optional_dependencies_only():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    targets = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = _resolve(module, path.name == "__init__.py", node)
                    targets = [base]
                else:
                    continue
                for t in targets:
                    top = t.split(".")[0]
                    if top in LAZY_OK or t in TORCH_STAGES:
                        continue
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert not bad, "imports inside functions (move them to module level):\n" + "\n".join(sorted(set(bad)))


def test_import_allo_loads_neither_torch_nor_mlir():
    code = "import sys, allo; print('torch' in sys.modules, 'mlir' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.split() == ["False", "False"], out.stdout + out.stderr
