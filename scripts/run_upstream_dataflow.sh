#!/usr/bin/env bash
# Runs upstream Allo's tests/dataflow (all but the AIE ones) unchanged against this checkout's allo
# and prints per file passed/failed/skipped/errors and the totals. Fetches and installs nothing:
# the upstream checkout is given (a work tree or a bare git dir, whose HEAD is read), and each
# interpreter must already have allo's core dependencies (numpy, the MLIR wheels, pytest).
#   scripts/run_upstream_dataflow.sh /path/to/allo-checkout        (or ALLO_UPSTREAM=/path ...)
#   PYTHONS="/work/main/.venv/bin/python /tmp/py312/bin/python" scripts/run_upstream_dataflow.sh ...
# PYTHONS lists interpreters (default: python3); two upstream files use PEP 695 generics and
# need Python 3.12+ (on 3.11 they are collection errors). Not part of CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-${ALLO_UPSTREAM:-}}
[ -n "$src" ] || { echo "usage: $0 UPSTREAM_CHECKOUT (or ALLO_UPSTREAM=...)" >&2; exit 2; }
work=$(mktemp -d /tmp/allo-upstream-dataflow.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -d "$src/tests/dataflow" ]; then
    cp -r "$src/tests/dataflow" "$work/dataflow"
else  # a bare repository (the mirror): export its HEAD's tests/dataflow
    git --git-dir="$src" archive HEAD tests/dataflow | tar -x -C "$work"
    mv "$work/tests/dataflow" "$work/dataflow"
fi
rm -rf "$work/dataflow/aie"  # AMD AI Engine tests: target="aie" is not available in allo
status=0
for py in ${PYTHONS:-python3}; do
    ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    xml="$work/junit-$ver.xml"
    # from inside the copy (tests write files such as top.prj next to them), allo from this checkout
    (cd "$work/dataflow" && PYTHONPATH="$root" "$py" -m pytest -p no:cacheprovider -q \
        --continue-on-collection-errors --junitxml="$xml" . >"$work/log-$ver.txt" 2>&1) || status=1
    cp "$work/log-$ver.txt" "/tmp/allo-upstream-dataflow-$ver.log"
    "$py" - "$xml" "$ver" <<'EOF'
import collections, sys, xml.etree.ElementTree as ET
xml, ver = sys.argv[1:]
rows = collections.defaultdict(collections.Counter)
for case in ET.parse(xml).iter("testcase"):
    # classname "sparse.test_x" (module of a test), or "" with name "sparse.test_x" (collection error)
    name = (case.get("classname") or case.get("name") or "?").replace(".", "/") + ".py"
    kinds = {child.tag for child in case}
    kind = ("failed" if "failure" in kinds else "errors" if "error" in kinds else
            "skipped" if "skipped" in kinds else "passed")
    rows[name][kind] += 1
print(f"upstream tests/dataflow on Python {ver}")
print(f"{'file':48} passed failed skipped errors")
total = collections.Counter()
for name in sorted(rows):
    c = rows[name]
    total += c
    print(f"{name:48} {c['passed']:6} {c['failed']:6} {c['skipped']:7} {c['errors']:6}")
print(f"{'total':48} {total['passed']:6} {total['failed']:6} {total['skipped']:7} {total['errors']:6}")
EOF
    echo "full pytest log: /tmp/allo-upstream-dataflow-$ver.log"
done
exit $status
