#!/usr/bin/env bash
# Python 3.12+/3.13 check: for each interpreter found, a venv with allo's core only (no torch) runs
# the PEP 695 template tests (tests/test_compat_pep695.py) and the interactive-session tests
# (tests/test_repl.py: the 3.13 REPL keeps a kernel's source, 3.12's does not). Used by .ci/run.
# PYTHON312 / PYTHON313 name interpreters explicitly; ALLO_PY312_NO_APT=1 skips the apt step. Where neither is on the machine, Debian's
# python3.12/python3.13 packages are installed when apt knows them; failing that the check is
# skipped with a message (exit 0): it is optional, the 3.11 suite covers everything else.
set -euo pipefail
cd "$(dirname "$0")/.."

find_python() {  # $1 = 3.12 or 3.13; prints a working interpreter or nothing
    local v=$1 var="PYTHON${1/./}" cand
    for cand in "${!var:-}" "python$v" /usr/bin/python$v "${PYENV_ROOT:-$HOME/.pyenv}"/versions/$v*/bin/python$v; do
        [ -n "$cand" ] && "$cand" -c "import venv, ensurepip" >/dev/null 2>&1 && { echo "$cand"; return 0; }
    done
    return 0
}

try_apt() {  # install python3.12/3.13 from Debian's packages where the distribution has them
    [ -z "${ALLO_PY312_NO_APT:-}" ] || return 0
    command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ] || return 0
    apt-get update -qq >/dev/null 2>&1 || return 0
    local v
    for v in 3.12 3.13; do
        if apt-cache show "python$v-venv" >/dev/null 2>&1; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "python$v" "python$v-venv" >/dev/null 2>&1 || true
        fi
    done
}

run_check() {  # $1 = interpreter, $2 = version label
    local venv=".venv${2/./}"
    [ -x "$venv/bin/python" ] || "$1" -m venv "$venv"
    "$venv/bin/python" -m pip install -q -c constraints/ci.txt -e . pytest hypothesis 2>&1 | sed "/is ignored: it is neither/d"
    "$venv/bin/python" -c "import sys, allo; assert 'torch' not in sys.modules; print('allo core on', sys.version.split()[0])"
    "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/test_compat_pep695.py tests/test_repl.py
}

[ -n "$(find_python 3.12)$(find_python 3.13)" ] || try_apt
ran=0
for v in 3.12 3.13; do
    py=$(find_python "$v")
    if [ -z "$py" ]; then
        echo "PEP 695 check: no Python $v here (set PYTHON${v/./}); skipping it" >&2
        continue
    fi
    run_check "$py" "$v"
    ran=$((ran + 1))
done
if [ "$ran" -eq 0 ]; then
    echo "PEP 695 check SKIPPED: no Python 3.12/3.13 interpreter and none installable from this machine's packages" >&2
fi
