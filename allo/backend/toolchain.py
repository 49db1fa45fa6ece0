"""What the backends share to drive outside tools: child processes, the C++ compiler, the cache folder.

Child processes (g++, C simulation binaries, Verilator, Yosys, the CIRCT worker) never outlive
their caller. Every child runs in its own process group. It is killed, with its whole group, when
- the call exceeds `timeout` seconds (then `ChildTimeout`, an allo BackendError, is raised),
- the waiting thread is interrupted (Ctrl-C: the KeyboardInterrupt propagates after the kill),
- Python exits normally (an exit hook registered through allo.backend.host) or dies abruptly (the
  kernel delivers SIGKILL to the child when the thread that started it ends: Linux `PR_SET_PDEATHSIG`).

`cxx()` is the C++ compiler ($CXX, default g++); `cache_dir(kind)` the folder where compiled
artefacts of one backend are kept ($ALLO_CACHE_DIR/<kind>, else a per-user temp folder);
`build_lock(path)` + `private_tmp(path)` build a cached artefact once across threads and processes.

Imports: allo.errors, allo.backend.host.

Example::

    r = run_child(["./csim", "data"], cwd=project, timeout=60, what="C simulation of 'gemm'")
    r.returncode, r.stdout, r.stderr
    exe = cache_dir("hls") / "csim_gemm_1234"
"""
from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import uuid
from pathlib import Path

from ..errors import BackendError
from .host import at_exit

ENV_CACHE = "ALLO_CACHE_DIR"


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


def _start(cmd, what: str, cwd=None, env=None, big_stack=False, stdin=False) -> subprocess.Popen:
    try:
        proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdin=subprocess.PIPE if stdin else None,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                                start_new_session=True, preexec_fn=_child_setup(os.getpid(), big_stack))
    except OSError as e:
        raise BackendError(f"could not start the {what} ({cmd[0]}): {e}") from None
    at_exit(_kill_all)
    with _live_lock:
        _live[proc.pid] = proc
    return proc


def _finish(proc: subprocess.Popen, what: str, timeout=None, input=None) -> subprocess.CompletedProcess:
    """Wait for `proc` (feeding it `input`); kill its group on a timeout or any interruption."""
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        raise ChildTimeout(f"the {what} did not finish within {timeout:g} s and was killed; "
                           "raise timeout= if it needs longer, or look for an infinite loop") from None
    except BaseException:  # KeyboardInterrupt or anything else: never leave the child running
        kill_group(proc)
        raise
    finally:
        _forget(proc)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _check_timeout(timeout) -> None:
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        raise BackendError(f"timeout must be a positive number of seconds or None, got {timeout!r}")


def run_child(cmd, cwd=None, timeout: float | None = None, what: str = "child process", big_stack: bool = False,
              env: dict | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    """Run `cmd` to completion (text output captured, `input` written to its stdin); see the
    module docstring for how the child is cleaned up. Raises ChildTimeout after `timeout`
    seconds, BackendError when `cmd` cannot be started.

    Example::

        r = run_child(["g++", "--version"], timeout=30, what="g++")
    """
    _check_timeout(timeout)
    proc = _start(cmd, what, cwd=cwd, env=env, big_stack=big_stack, stdin=input is not None)
    return _finish(proc, what, timeout, input)


def run_children(cmds, what: str, cwd=None, jobs: int = 2, timeout: float | None = None) -> list:
    """Run `cmds` at most `jobs` at a time (each as `run_child` runs one); their
    CompletedProcess in order. A failure kills the children still running.

    Example::

        for r in run_children([["g++", "-c", "a.cpp"], ["g++", "-c", "b.cpp"]], "compiling"):
            r.returncode
    """
    _check_timeout(timeout)
    results, running, todo = [None] * len(cmds), [], list(enumerate(cmds))
    try:
        while todo or running:
            while todo and len(running) < jobs:
                k, cmd = todo.pop(0)
                running.append((k, _start(cmd, what, cwd=cwd)))
            k, proc = running.pop(0)
            results[k] = _finish(proc, what, timeout)
    finally:
        for _, proc in running:
            kill_group(proc)
            _forget(proc)
    return results


def _forget(proc: subprocess.Popen) -> None:
    with _live_lock:
        _live.pop(proc.pid, None)


def live_children() -> list:
    """pids of children started by run_child that are still running (for tests)."""
    with _live_lock:
        return list(_live)


def _kill_all():
    with _live_lock:
        procs = list(_live.values())
    for p in procs:
        kill_group(p)


def cxx_name() -> str:
    """The C++ compiler the backends run: $CXX, else g++ (not checked)."""
    return os.environ.get("CXX", "g++")


def cxx(needed_by: str) -> str:
    """`cxx_name()`, checked to be on the PATH (BackendError saying what `needed_by` it).

    Example::

        cmd = [cxx("HLS C simulation"), "-O2", "host.cpp"]
    """
    c = cxx_name()
    if shutil.which(c) is None:
        raise BackendError(f"C++ compiler {c!r} not found: {needed_by} needs g++ (set CXX to use another)")
    return c


def cache_dir(kind: str) -> Path:
    """The folder (created, writable) where compiled artefacts of `kind` ("hls", "rtl") are kept:
    $ALLO_CACHE_DIR/<kind>, else a per-user temp folder. BackendError when it cannot be used.

    Example::

        exe = cache_dir("hls") / f"csim_{top}_{key}"
    """
    root = os.environ.get(ENV_CACHE)
    d = _absolute(root) / kind if root else Path(tempfile.gettempdir()) / f"allo-{kind}-cache-{os.getuid()}"
    try:
        d.mkdir(parents=True, exist_ok=True)
        if not os.access(d, os.W_OK | os.X_OK):
            raise PermissionError(f"no write permission on {d}")
    except OSError as e:
        raise BackendError(f"cannot use {d} to cache compiled {kind} artefacts ({type(e).__name__}: {e}); "
                           f"set {ENV_CACHE} to a writable folder") from None
    return d


@contextlib.contextmanager
def build_lock(target: Path):
    """Hold an exclusive lock for building `target` (a file or folder in a cache directory):
    threads and processes building the same artefact wait for each other, so it is built once.
    Callers check again under the lock whether the artefact exists, build into `private_tmp`
    names and rename into place (a killed builder leaves nothing half-written).

    Example::

        with build_lock(exe):
            if not exe.exists():
                compile_to(tmp := private_tmp(exe)); os.replace(tmp, exe)
    """
    lock = Path(f"{target}.lock")
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # (flock locks conflict between threads' descriptors too)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def private_tmp(target: Path) -> Path:
    """A temporary name next to `target`, unique to this process, thread and call."""
    return target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.{uuid.uuid4().hex[:12]}.tmp")


@functools.lru_cache(maxsize=None)
def _absolute(root: str) -> Path:
    """A relative ALLO_CACHE_DIR is taken from the working folder of its first use, so that a later
    chdir does not move the cache and children run in other folders find its files."""
    return Path(os.path.abspath(root))


__all__ = ["run_child", "run_children", "kill_group", "ChildTimeout", "live_children", "cxx", "cxx_name",
           "cache_dir", "build_lock", "private_tmp", "ENV_CACHE"]
