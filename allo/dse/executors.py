"""Where candidates are scored: in this process, a local pool of worker processes, or Ray.

Every executor maps `[(index, steps)]` to `[(index, result)]` with `evaluate.evaluate_chunk`, so
the results (and hence the search, which consumes them in index order) do not depend on the
executor: same seed, same trials on "local" and "ray".

- `InlineExecutor`: this process (`executor="inline"`, or a pool of one).
- `LocalExecutor(workers=None)`: `workers` processes (default: the machine's cores) started as
  `python -m allo.dse.worker`, kept for later searches; no dependency beyond the standard
  library, and no fork of this process (its MLIR/LLVM state stays here).
- `RayExecutor(address=None)`: Ray tasks, each scoring a chunk of candidates (per-task overhead
  stays small); the base kernel goes to the object store once. `address=None` starts a local
  instance on 127.0.0.1 if none is running (`ray.init` kwargs: `num_cpus=`), "auto" joins the
  running cluster, "ray://host:port" connects through Ray Client.

Example::

    ex = make_executor("local", workers=2)
    results = ex.map(base, Settings(), [(0, steps0), (1, steps1)])
"""
from __future__ import annotations

import math
import os
import queue
import subprocess
import sys
import threading

from ..backend.host import at_exit
from ..errors import DSEError
from .evaluate import cached_base, evaluate_chunk
from .wire import read_message, write_message


def chunks(items: list, n_chunks: int) -> list:
    """`items` in about `n_chunks` contiguous chunks."""
    if not items:
        return []
    size = max(1, math.ceil(len(items) / max(1, n_chunks)))
    return [items[k:k + size] for k in range(0, len(items), size)]


class InlineExecutor:
    name = "inline"
    workers = 1

    def map(self, base, settings, items) -> list:
        return evaluate_chunk(base.key, base.blob, settings, items)

    def close(self):
        pass


# ----------------------------------------------------------------------------- local processes
class _WorkerProcess:
    def __init__(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        self.proc = subprocess.Popen([sys.executable, "-m", "allo.dse.worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)
        self.key = None

    def call(self, key, blob, settings, chunk):
        for _ in range(2):
            write_message(self.proc.stdin, ("eval", key, blob if self.key != key else None, settings, chunk))
            reply = read_message(self.proc.stdout)
            if reply is None:
                raise _WorkerDied(self.proc.wait())
            if reply[0] == "ok":
                self.key = key
                return reply[1]
            self.key = None  # the worker lost the base: send it again
        raise _WorkerDied(None)

    def close(self):
        try:
            write_message(self.proc.stdin, ("stop",))
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            self.proc.kill()


class _WorkerDied(Exception):
    def __init__(self, code):
        super().__init__(f"a DSE worker process died (exit code {code})")


class LocalExecutor:
    """A pool of `workers` local worker processes (see module docstring)."""

    name = "local"

    def __init__(self, workers: int | None = None):
        n = workers if workers is not None else (os.cpu_count() or 1)
        if not isinstance(n, int) or n < 1:
            raise DSEError(f"explore: workers must be a positive integer, got {workers!r}")
        self.workers = n
        self._procs = [_WorkerProcess() for _ in range(n)]
        self._lock = threading.Lock()

    def map(self, base, settings, items) -> list:
        todo = queue.Queue()
        for c in chunks(items, 2 * self.workers):
            todo.put(c)
        out, errors = [], []

        def serve(k):
            while True:
                try:
                    chunk = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    res = self._procs[k].call(base.key, base.blob, settings, chunk)
                except (_WorkerDied, OSError) as e:
                    self._procs[k] = _WorkerProcess()  # later chunks get a fresh process
                    res = [(i, {"status": "error", "error": str(e), "seconds": 0.0}) for i, _ in chunk]
                    errors.append(e)
                with self._lock:
                    out.extend(res)

        threads = [threading.Thread(target=serve, args=(k,), daemon=True) for k in range(self.workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return out

    def close(self):
        for p in self._procs:
            p.close()
        self._procs = []


POOLS = {}


def local_pool(workers: int | None) -> LocalExecutor:
    """A pool kept across searches (starting processes that import allo takes seconds)."""
    n = workers if workers is not None else (os.cpu_count() or 1)
    pool = POOLS.get(n)
    if pool is None or any(p.proc.poll() is not None for p in pool._procs):
        at_exit(shutdown_pools)
        pool = POOLS[n] = LocalExecutor(n)
    return pool


def shutdown_pools():
    """Stop the kept local worker processes (also runs at interpreter exit, through allo.backend.host;
    with ALLO_PROCESS_EFFECTS=0 the workers end when they see this process's end of their input)."""
    for pool in POOLS.values():
        pool.close()
    POOLS.clear()


# ----------------------------------------------------------------------------- ray
def import_ray():
    try:
        import ray
    except ImportError:
        raise DSEError("explore(executor='ray') needs Ray: pip install 'allo[dse]' (or pip install ray)") from None
    return ray


def _ray_chunk(key, blob_ref, settings, chunk):
    """A Ray task: score one chunk; the base is fetched from the object store once per worker."""
    try:
        cached_base(key, None)
    except KeyError:
        import ray

        cached_base(key, ray.get(blob_ref[0]))
    return evaluate_chunk(key, None, settings, chunk)


class RayExecutor:
    """Ray tasks over a cluster (see module docstring)."""

    name = "ray"

    def __init__(self, address: str | None = None, chunk_size: int | None = None, **init_kwargs):
        ray = import_ray()
        self.ray = ray
        if not ray.is_initialized():
            if address is None:
                init_kwargs.setdefault("_node_ip_address", "127.0.0.1")
                init_kwargs.setdefault("include_dashboard", False)
            init_kwargs.setdefault("log_to_driver", False)
            try:
                ray.init(address=address, **init_kwargs)
            except Exception as e:  # noqa: BLE001 - Ray raises many kinds; the user needs the address and cause
                raise DSEError(f"explore(executor='ray'): cannot start or join a Ray cluster at "
                               f"{address or 'a new local instance'}: {type(e).__name__}: {e}") from None
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.chunk_size = chunk_size
        self._remote = ray.remote(num_cpus=1, max_retries=1)(_ray_chunk)
        self._refs = {}

    def map(self, base, settings, items) -> list:
        ref = self._refs.get(base.key)
        if ref is None:
            ref = self._refs[base.key] = self.ray.put(base.blob)
        parts = ([items[k:k + self.chunk_size] for k in range(0, len(items), self.chunk_size)]
                 if self.chunk_size else chunks(items, 2 * self.workers))
        futures = [self._remote.remote(base.key, [ref], settings, part) for part in parts]
        out = []
        for part, fut in zip(parts, futures):
            try:
                out.extend(self.ray.get(fut))
            except Exception as e:  # noqa: BLE001 - a lost worker fails its chunk, not the search
                out.extend((i, {"status": "error", "error": f"ray task failed: {type(e).__name__}: {e}",
                                "seconds": 0.0}) for i, _ in part)
        return out

    def close(self):
        self._refs.clear()


def make_executor(executor, workers: int | None = None, address: str | None = None, **ray_kwargs):
    """An executor from its name ("local", "ray", "inline") or an executor object."""
    if not isinstance(executor, str):
        if not callable(getattr(executor, "map", None)):
            raise DSEError(f"explore: executor must be 'local', 'ray', 'inline' or an object with map(), got {executor!r}")
        return executor
    if executor == "local":
        return InlineExecutor() if workers == 1 else local_pool(workers)
    if executor == "inline":
        return InlineExecutor()
    if executor == "ray":
        return RayExecutor(address=address, **ray_kwargs)
    raise DSEError(f"explore: unknown executor {executor!r}; use 'local' (default), 'ray' or 'inline'")
