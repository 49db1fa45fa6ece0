#!/usr/bin/env bash
# Runs upstream Allo's top-level tests (tests/test_*.py of a cornell-zhang/allo checkout) unchanged
# against this allo on Python 3.12 and prints a per-file table and passed/failed/total with the
# percentage. Not part of CI: docs/migrating-from-allo.md cites its numbers.
#   scripts/run_upstream_suite.sh /path/to/allo-checkout      (or ALLO_UPSTREAM=/path ...)
# The checkout may be a work tree or a bare git dir (its HEAD is read). PYTHON312 names the
# interpreter; UPSTREAM_VENV the venv (default /tmp/allo-upstream-py312). The venv holds allo's core
# (no torch) pinned by constraints/ci.txt, pytest, hypothesis and ml_dtypes (imported by upstream's
# tests/test_types.py for bfloat16 inputs; not an allo dependency).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-${ALLO_UPSTREAM:-}}
[ -n "$src" ] || { echo "usage: $0 UPSTREAM_CHECKOUT (or ALLO_UPSTREAM=...)" >&2; exit 2; }
py=${PYTHON312:-}
if [ -z "$py" ]; then
    for cand in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12; do
        "$cand" -c "import venv" >/dev/null 2>&1 && { py=$cand; break; }
    done
fi
[ -n "$py" ] || { echo "no Python 3.12 found (set PYTHON312)" >&2; exit 2; }
venv=${UPSTREAM_VENV:-/tmp/allo-upstream-py312}
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
"$venv/bin/python" -m pip install -q -c "$root/constraints/ci.txt" -e "$root" pytest hypothesis \
    ml_dtypes==0.5.4 2>&1 | sed "/is ignored: it is neither/d"

work=$(mktemp -d /tmp/allo-upstream-tests.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -d "$src/tests" ]; then
    cp -r "$src/tests" "$work/tests"
else  # a bare repository (the mirror): export its HEAD's tests/
    git --git-dir="$src" archive HEAD tests | tar -x -C "$work"
fi
cd "$work"
# Each test in the tree's own directory, as upstream runs them; -p no:cacheprovider keeps it clean.
"$venv/bin/python" -m pytest -p no:cacheprovider -q --continue-on-collection-errors \
    --junitxml="$work/junit.xml" tests/test_*.py >"$work/pytest.log" 2>&1 || true
cp "$work/pytest.log" /tmp/allo-upstream-suite.log
"$venv/bin/python" "$root/scripts/upstream_suite_table.py" "$work/junit.xml" "$work/tests"
echo "full pytest log: /tmp/allo-upstream-suite.log"
