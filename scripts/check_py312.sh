#!/usr/bin/env bash
# Python 3.12 check: a venv with allo's core only (no torch) runs the PEP 695 template tests.
# Used by .ci/run; PYTHON312 overrides the interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
PY312=${PYTHON312:-}
for cand in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12; do
    [ -n "$PY312" ] && break
    "$cand" --version >/dev/null 2>&1 && PY312=$cand
done
if [ -z "$PY312" ]; then
    echo "no working python3.12 found (set PYTHON312); the PEP 695 tests need Python 3.12+" >&2
    exit 1
fi
[ -x .venv312/bin/python ] || "$PY312" -m venv .venv312
.venv312/bin/python -m pip install -q -c constraints/ci.txt -e . pytest hypothesis 2>&1 | sed "/is ignored: it is neither/d"
.venv312/bin/python -c "import sys, allo; assert 'torch' not in sys.modules; print('allo core on', sys.version.split()[0])"
.venv312/bin/python -m pytest -q -p no:cacheprovider tests/test_compat_pep695.py
