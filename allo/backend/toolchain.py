"""Child processes (g++, C simulation binaries) that never outlive their caller.

Every child runs in its own process group. It is killed, with its whole group, when
- the call exceeds `timeout` seconds (then `ChildTimeout`, an allo BackendError, is raised),
- the waiting thread is interrupted (Ctrl-C: the KeyboardInterrupt propagates after the kill),
- Python exits normally (atexit) or dies abruptly (the kernel delivers SIGKILL to the child
  when the thread that started it ends: Linux `PR_SET_PDEATHSIG`).

Example::

    r = run_child(["./csim", "data"], cwd=project, timeout=60, what="C simulation of 'gemm'")
    r.returncode, r.stdout, r.stderr
"""
from __future__ import annotations

import atexit
import ctypes
import os
import resource
import signal
import subprocess
import threading

from ..errors import BackendError


class ChildTimeout(BackendError, TimeoutError):
    """A child process ran longer than its `timeout` and was killed."""


_PR_SET_PDEATHSIG = 1
_live: dict = {}  # pid -> Popen of children still running
_live_lock = threading.Lock()
try:  # loaded before any fork: the child only makes the syscall
    _libc = ctypes.CDLL(None, use_errno=True)
    _prctl = _libc.prctl
except (OSError, AttributeError):  # pragma: no cover - not Linux/glibc
    _prctl = None


def _child_setup(parent_pid: int, big_stack: bool):
    """Runs in the child between fork and exec: die with the parent; optionally raise the stack
    limit (large local arrays of HLS C++ live on the stack)."""
    def setup():
        if _prctl is not None:
            _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent_pid:  # the parent died before prctl took effect
                os._exit(1)
        if big_stack:
            try:
                _, hard = resource.getrlimit(resource.RLIMIT_STACK)
                resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))
            except (ValueError, OSError):
                pass
    return setup


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's process group (the child and everything it started) and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover - a zombie that will not die
        pass


def run_child(cmd, cwd=None, timeout: float | None = None, what: str = "child process",
              big_stack: bool = False) -> subprocess.CompletedProcess:
    """Run `cmd` to completion (text output captured); see the module docstring for how the
    child is cleaned up. Raises ChildTimeout after `timeout` seconds, BackendError when `cmd`
    cannot be started.

    Example::

        r = run_child(["g++", "--version"], timeout=30, what="g++")
    """
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        raise BackendError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    try:
        proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, errors="replace", start_new_session=True,
                                preexec_fn=_child_setup(os.getpid(), big_stack))
    except OSError as e:
        raise BackendError(f"could not start the {what} ({cmd[0]}): {e}") from None
    with _live_lock:
        _live[proc.pid] = proc
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise ChildTimeout(f"the {what} did not finish within {timeout:g} s and was killed; "
                           "raise timeout= if it needs longer, or look for an infinite loop") from None
    except BaseException:  # KeyboardInterrupt or anything else: never leave the child running
        kill_group(proc)
        raise
    finally:
        with _live_lock:
            _live.pop(proc.pid, None)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def live_children() -> list:
    """pids of children started by run_child that are still running (for tests)."""
    with _live_lock:
        return list(_live)


@atexit.register
def _kill_all():
    with _live_lock:
        procs = list(_live.values())
    for p in procs:
        kill_group(p)


__all__ = ["run_child", "kill_group", "ChildTimeout", "live_children"]
