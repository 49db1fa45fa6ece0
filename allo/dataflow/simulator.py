"""`df.build(top, target="simulator")`: the region's kernel instances run as concurrent tasks
connected by bounded FIFOs, on allo's reference interpreter (allo.interp, exact in numpy scalar
types, so results are bit-identical to the sequential semantics of the loops).

Each instance is a Python generator (allo.interp in dataflow mode): `put` on a full FIFO and
`get` on an empty one yield to the scheduler, which resumes a task only once its FIFO has room
or data. When no live task can be resumed the region is deadlocked: the run stops with a
`DataflowError` that names every blocked instance, the stream it waits on and whether that stream
is full or empty. A nested region (a kernel calling another region) spawns its instances as
tasks of the same scheduler and waits for them.

Why a scheduler of generators rather than threads: one Python thread is deterministic (the same
deadlock report every run), needs no locks, and a deadlock is simply "nothing can run".

Example::

    mod = df.build(top, target="simulator")
    mod(A, B)                     # updates B in place, like the LLVM module
"""
from __future__ import annotations

from collections import deque

import numpy as np

from .. import interp
from ..errors import AlloError, DataflowError
from ..ir import nodes as N


class Fifo:
    """A bounded FIFO of scalars: `depth` items of `item` scalars each."""

    def __init__(self, info: dict):
        self.name, self.depth, self.item = info["name"], int(info["depth"]), int(info["item"])
        self.capacity = self.depth * self.item
        self.q = deque()

    def state(self) -> str:
        items = len(self.q) / self.item
        return f"{items:g} of {self.depth} item(s)"


class Task:
    def __init__(self, gen, name: str, parent=None):
        self.gen, self.name, self.parent = gen, name, parent
        self.wait = None  # ("full"|"empty", Fifo) or ("join", [Task])
        self.done = False

    def path(self) -> str:
        return f"{self.parent.path()}/{self.name}" if self.parent is not None and self.parent.parent is not None \
            else self.name

    def ready(self) -> bool:
        if self.wait is None:
            return True
        kind, what = self.wait
        if kind == "full":
            return len(what.q) < what.capacity
        if kind == "empty":
            return bool(what.q)
        return all(t.done for t in what)


class Scheduler:
    """Runs tasks round-robin until the root finishes; reports deadlocks."""

    def __init__(self, region: str):
        self.region = region
        self.tasks = []
        self.current = None
        self.steps = 0

    # the helpers the interpreter's generated code calls
    def helpers(self) -> dict:
        return {"_df_fifo": Fifo, "_df_put": self.put, "_df_get": self.get, "_df_spawn": self.spawn,
                "_df_join": self.join}

    @staticmethod
    def put(fifo, value):
        while len(fifo.q) >= fifo.capacity:
            yield ("full", fifo)
        fifo.q.append(value)

    @staticmethod
    def get(fifo):
        while not fifo.q:
            yield ("empty", fifo)
        return fifo.q.popleft()

    def spawn(self, gen, name):
        task = Task(gen, name, self.current)
        if not hasattr(gen, "send"):  # an instance without streams already ran when it was called
            task.done = True
        else:
            self.tasks.append(task)
        return task

    @staticmethod
    def join(tasks):
        while not all(t.done for t in tasks):
            yield ("join", tasks)

    def run(self, root_gen):
        root = Task(root_gen, self.region)
        self.tasks = [root]
        while not root.done:
            progressed = False
            for task in list(self.tasks):
                if task.done or not task.ready():
                    continue
                progressed = True
                self.current = task
                try:
                    task.wait = next(task.gen)
                except StopIteration:
                    task.done = True
                    task.wait = None
                self.steps += 1
            self.tasks = [t for t in self.tasks if not t.done]
            if not progressed:
                raise self.deadlock()

    def deadlock(self) -> DataflowError:
        lines = []
        for t in self.tasks:
            kind, what = t.wait
            if kind == "join":
                continue
            op = "put() on" if kind == "full" else "get() on"
            lines.append(f"  {t.path()}: {op} stream '{what.name}' ({kind}, {what.state()})")
        return DataflowError(f"deadlock in dataflow region '{self.region}': every live kernel instance is blocked\n"
                             + "\n".join(lines) + "\n(a FIFO too shallow for the order in which the kernels put and "
                             "get, or a get() that no put() feeds)")


class SimulatorModule:
    """A region built for the simulator; call it like the LLVM module (arrays updated in place)."""

    def __init__(self, module: N.Module):
        self.ir = module
        self.top = module.func(module.top)
        self._sched = None
        self._fns = None

    def __call__(self, *args):
        f = self.top
        if len(args) != len(f.params):
            raise AlloError(f"{f.name} takes {len(f.params)} argument(s) ({', '.join(p.name for p in f.params)}), "
                            f"got {len(args)}")
        if self._fns is None:  # compiled once; the scheduler is reset by each run
            self._sched = Scheduler(f.name)
            self._fns = interp.compile_module(self.ir, dataflow=self._sched.helpers())
        sched, fns = self._sched, self._fns
        sched.steps = 0
        inputs = [interp.to_storage(a, p.dtype) for a, p in zip(args, f.params)]
        with np.errstate(all="ignore"):
            sched.run(fns[f.name](*inputs))
        self.steps = sched.steps
        for a, p, x in zip(args, f.params, inputs):
            if isinstance(a, np.ndarray) and p.kind == "arg":
                interp.write_back(a, x, p.dtype)
        return None

    @property
    def module(self):
        """The region's IR (instances and the region function)."""
        return self.ir


__all__ = ["SimulatorModule", "Scheduler", "Fifo"]
