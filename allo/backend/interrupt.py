"""Ctrl-C for long JIT calls, at the cost of two stores per call.

While a thread runs JIT code, Python cannot act on SIGINT: its C handler only sets a flag that
the interpreter looks at after the call returns. Kernels that may run long
(allo.transforms.guards.may_run_long: `while` loops, loops with run-time bounds) test an abort
flag in those loops (allo.transforms.guards). `install()` puts in place a tiny JIT-compiled
C-level SIGINT handler that sets the abort flag of the running call and then calls the handler it
replaced (Python's), so Python raises KeyboardInterrupt as soon as the kernel has stopped; outside
calls the flag it sets is a spare one: Ctrl-C behaves exactly as before. allo.backend.host decides
when to install (and to `uninstall()` at exit). If the handler is not installed (SIGINT ignored or
at its default action, or ALLO_PROCESS_EFFECTS=0), or someone installs another handler later,
calls are simply not interruptible.

Imports: numpy; mlir when installing.

Example::

    install()                                            # True once the handler is in place
    interrupt.call(fn, packed_address, abort_address, status, ABORT)   # KeyboardInterrupt after Ctrl-C
"""
from __future__ import annotations

import ctypes
import functools
import signal
import threading

import numpy as np

_SIG_DFL, _SIG_IGN = 0, 1
_SLOT = (ctypes.c_uint64 * 2)()  # [address of the int64 abort flag to set, handler to chain to]
_SLOT_ADDRESS = ctypes.addressof(_SLOT)  # (a ctypes array: cheaper to store into per call than numpy)
_SPARE = np.zeros(1, np.int64)  # the flag the slot points to between calls
_SPARE_ADDRESS = _SPARE.ctypes.data
_SLOT[0] = _SPARE_ADDRESS
_state = {}
_lock = threading.Lock()
_MAIN_THREAD = threading.main_thread().ident  # signals are handled in the main thread only


class _SigAction(ctypes.Structure):
    """glibc's `struct sigaction` on Linux (handler, 1024-bit mask, flags, restorer)."""

    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16), ("flags", ctypes.c_int),
                ("restorer", ctypes.c_void_p)]


_HANDLER = """\
llvm.func @allo_sigint(%sig: i32) {{
  %slot = llvm.mlir.constant({slot} : i64) : i64
  %pp = llvm.inttoptr %slot : i64 to !llvm.ptr
  %flag = llvm.load volatile %pp : !llvm.ptr -> !llvm.ptr
  %one = llvm.mlir.constant(1 : i64) : i64
  llvm.store volatile %one, %flag : i64, !llvm.ptr
  %next = llvm.mlir.constant({chain} : i64) : i64
  %np = llvm.inttoptr %next : i64 to !llvm.ptr
  %prev = llvm.load volatile %np : !llvm.ptr -> !llvm.ptr
  llvm.call %prev(%sig) : !llvm.ptr, (i32) -> ()
  llvm.return
}}
llvm.func @allo_sigint_address() -> i64 {{
  %f = llvm.mlir.addressof @allo_sigint : !llvm.ptr
  %a = llvm.ptrtoint %f : !llvm.ptr to i64
  llvm.return %a : i64
}}
"""


def _handler_of(engine) -> int:
    """The raw address of @allo_sigint (raw_lookup only finds the packed `_mlir_` wrappers, so
    ask the JIT'd @allo_sigint_address through its packed wrapper)."""
    out = ctypes.c_int64()
    args = (ctypes.c_void_p * 1)(ctypes.addressof(out))
    ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.raw_lookup("allo_sigint_address"))(ctypes.addressof(args))
    return out.value


@functools.lru_cache(maxsize=None)
def _sigaction():
    libc = ctypes.CDLL(None, use_errno=True)
    sigaction = libc.sigaction
    sigaction.argtypes = [ctypes.c_int, ctypes.POINTER(_SigAction), ctypes.POINTER(_SigAction)]
    return sigaction


def current_sigint() -> _SigAction | None:
    """The C-level SIGINT action in force (`.handler`: None or 0 default, 1 ignore, else an address)."""
    current = _SigAction()
    return current if _sigaction()(signal.SIGINT, None, ctypes.byref(current)) == 0 else None


def install() -> bool:
    """Install the chaining handler (once). False when it cannot or should not."""
    installed = _state.get("installed")
    if installed is not None:  # (a handler installed later replaces ours: calls then just run)
        return installed
    with _lock:
        if "installed" not in _state:
            _state["installed"] = _chain()
        return _state["installed"]


def _chain() -> bool:
    try:
        current = current_sigint()
        if current is None or current.handler in (None, _SIG_DFL, _SIG_IGN):
            return False
        from mlir import ir
        from mlir.execution_engine import ExecutionEngine

        ctx = ir.Context()
        text = _HANDLER.format(slot=_SLOT_ADDRESS, chain=_SLOT_ADDRESS + 8)
        engine = ExecutionEngine(ir.Module.parse(text, ctx), opt_level=2)
        _SLOT[1] = current.handler
        ours = _SigAction()
        ctypes.memmove(ctypes.byref(ours), ctypes.byref(current), ctypes.sizeof(_SigAction))
        ours.handler = _handler_of(engine)
        if _sigaction()(signal.SIGINT, ctypes.byref(ours), None) != 0:
            return False
        _state.update(keep=(ctx, engine), previous=current)
        return True
    except Exception:  # pragma: no cover - no libc sigaction or no JIT: not interruptible
        return False


def uninstall():
    """Give SIGINT back to the handler we chained to, if ours is still the one in force."""
    if not _state.get("installed"):
        return
    ours = current_sigint()
    if ours is not None and ours.handler == _handler_of(_state["keep"][1]):
        _sigaction()(signal.SIGINT, ctypes.byref(_state["previous"]), None)


def call(fn, packed_address: int, abort_address: int, status: np.ndarray, abort_slot: int) -> None:
    """`fn(packed_address)`; Ctrl-C sets the int64 at `abort_address` (== status[abort_slot])
    so the kernel stops, then KeyboardInterrupt is raised."""
    if threading.get_ident() != _MAIN_THREAD or not _state.get("installed"):
        fn(packed_address)
        return
    _SLOT[0] = abort_address
    try:
        fn(packed_address)
    finally:
        _SLOT[0] = _SPARE_ADDRESS
    if status[abort_slot]:  # Python's own handler normally raised already
        raise KeyboardInterrupt


__all__ = ["call", "install", "uninstall", "current_sigint"]
