"""Per-file table of a pytest junit XML run of upstream Allo's top-level tests.

Used by scripts/run_upstream_suite.sh. A file that fails to import counts all its tests as failed:
their number is read from the file's AST (test functions and methods of Test* classes, times the
length of a literal ``pytest.mark.parametrize`` list).

Example: ``python scripts/upstream_suite_table.py junit.xml tests/``
"""

import ast
import collections
import pathlib
import sys
import xml.etree.ElementTree as ET


def _param_count(fn):
    n = 1
    for deco in fn.decorator_list:
        if isinstance(deco, ast.Call) and getattr(deco.func, "attr", "") == "parametrize":
            if len(deco.args) >= 2 and isinstance(deco.args[1], (ast.List, ast.Tuple)):
                n *= len(deco.args[1].elts)
    return n


def count_tests(path):
    """Number of tests pytest would collect from ``path`` (static estimate)."""
    tree = ast.parse(pathlib.Path(path).read_text())
    total = 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            total += _param_count(node)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            total += sum(_param_count(m) for m in node.body
                         if isinstance(m, ast.FunctionDef) and m.name.startswith("test"))
    return total


def tally(junit, tests_dir):
    """{file: Counter(passed=, failed=, skipped=)} from the junit XML."""
    rows = collections.defaultdict(collections.Counter)
    for case in ET.parse(junit).iter("testcase"):
        cls = case.get("classname", "")
        name = case.get("name", "")
        if not cls:  # a collection error: classname empty, name is the module path
            fname = name.split(".")[-1] + ".py"
            rows[fname]["failed"] += count_tests(pathlib.Path(tests_dir) / fname)
            rows[fname]["collection_error"] = 1
            continue
        fname = cls.split(".")[1] + ".py"
        kinds = {child.tag for child in case}
        if kinds & {"failure", "error"}:
            rows[fname]["failed"] += 1
        elif "skipped" in kinds:
            rows[fname]["skipped"] += 1
        else:
            rows[fname]["passed"] += 1
    return rows


def main(junit, tests_dir):
    rows = tally(junit, tests_dir)
    print(f"{'file':32} {'passed':>6} {'failed':>6} {'skipped':>7} {'total':>5}")
    tot = collections.Counter()
    for fname in sorted(rows):
        r = rows[fname]
        total = r["passed"] + r["failed"] + r["skipped"]
        note = "  (collection error)" if r["collection_error"] else ""
        print(f"{fname:32} {r['passed']:6} {r['failed']:6} {r['skipped']:7} {total:5}{note}")
        tot.update(passed=r["passed"], failed=r["failed"], skipped=r["skipped"])
    total = tot["passed"] + tot["failed"] + tot["skipped"]
    pct = 100.0 * tot["passed"] / total if total else 0.0
    print(f"passed {tot['passed']} / failed {tot['failed']} / skipped {tot['skipped']} / "
          f"total {total}: {pct:.1f}% passed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
