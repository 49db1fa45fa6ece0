#!/usr/bin/env bash
# One-time setup on a fresh machine: a venv in .venv with the pinned CPU torch first
# (so nothing pulls a CUDA build), then allo with its torch, test and dse (Ray, matplotlib) extras.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q "torch==2.13.0" 2>&1 | sed "/is ignored: it is neither/d"
python -m pip install -q -e ".[torch,test,dse]" 2>&1 | sed "/is ignored: it is neither/d"
python -c "import mlir.ir, torch, ray, allo; print('allo setup ok: torch', torch.__version__, 'ray', ray.__version__)"
