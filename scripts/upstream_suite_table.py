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

# Tests of backends for vendor tools allo does not target, or that run the vendor tool itself
# (skipped without it); reported apart so the rest of the suite can be read on its own.
_CATAPULT_RUNS = ("csim", "csim_multiply", "csynth_vvadd", "csynth_2d_array", "csynth_with_pipeline",
                  "csynth_with_unroll")
VENDOR = {
    **{f"test_catapult_hls.py::test_catapult_{t}": "runs Siemens Catapult (skipped without MGC_HOME)"
       for t in _CATAPULT_RUNS},
    "test_pynq.py": "PYNQ board backend (target='pynq')",
    "test_vhls.py::test_ihls": "Intel HLS / oneAPI backend (target='ihls')",
}


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


def _vendor(fname, test=None) -> bool:
    return fname in VENDOR or (test is not None and f"{fname}::{test}" in VENDOR)


def tally(junit, tests_dir):
    """{file: Counter(passed=, failed=, skipped=, vendor_*=)} from the junit XML."""
    rows = collections.defaultdict(collections.Counter)
    for case in ET.parse(junit).iter("testcase"):
        cls = case.get("classname", "")
        name = case.get("name", "")
        if not cls:  # a collection error: classname empty, name is the module path
            fname = name.split(".")[-1] + ".py"
            n = count_tests(pathlib.Path(tests_dir) / fname)
            rows[fname]["failed"] += n
            rows[fname]["collection_error"] = 1
            if _vendor(fname):
                rows[fname]["vendor"] += n
            continue
        fname = cls.split(".")[1] + ".py"
        kinds = {child.tag for child in case}
        outcome = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
        rows[fname][outcome] += 1
        if _vendor(fname, name.split("[")[0]):
            rows[fname]["vendor"] += 1
            rows[fname][f"vendor_{outcome}"] += 1
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
        tot.update(passed=r["passed"], failed=r["failed"], skipped=r["skipped"], vendor=r["vendor"],
                   vendor_passed=r["vendor_passed"])
    total = tot["passed"] + tot["failed"] + tot["skipped"]
    pct = 100.0 * tot["passed"] / total if total else 0.0
    print(f"passed {tot['passed']} / failed {tot['failed']} / skipped {tot['skipped']} / "
          f"total {total}: {pct:.1f}% passed")
    rest, rest_passed = total - tot["vendor"], tot["passed"] - tot["vendor_passed"]
    groups = {}
    for key, what in VENDOR.items():
        groups.setdefault(what, []).append(key)
    names = {what: keys[0] if len(keys) == 1 else f"{len(keys)} tests of {keys[0].split('::')[0]}"
             for what, keys in groups.items()}
    print(f"vendor-backend tests ({tot['vendor']}): " + "; ".join(f"{names[w]}: {w}" for w in groups))
    if rest:
        print(f"without them: {rest_passed} / {rest}: {100.0 * rest_passed / rest:.1f}% passed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
