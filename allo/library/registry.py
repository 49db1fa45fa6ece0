"""Predefined schedules for library kernels, registered next to each kernel.

`@schedule_for(kernel)` stores a schedule function `fn(s)` on the kernel as `kernel.schedule_fn`
(what `s.compose(kernel, ...)` applies) and lists the kernel in `KERNELS` for the reference table
in docs/library.md (`allo.library.reference`; regenerate with `python -m allo.library > docs/library.md`).

Example::

    @allo.kernel(template="T, M, N")
    def relu(X: "T[M, N]") -> "T[M, N]":
        ...

    @schedule_for(relu)
    def schedule_relu(s):
        s.pipeline("j")
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dsl.kernel import KernelDef
from ..errors import AlloError


@dataclass(frozen=True)
class Entry:
    """One library kernel: the kernel object, its schedule function and its group (file)."""

    kernel: object
    schedule: object
    group: str

    @property
    def name(self) -> str:
        return self.kernel.name


KERNELS: dict = {}  # kernel name -> Entry, in definition order


def schedule_for(*kernels):
    """Register the decorated `fn(s)` as the predefined schedule of each of `kernels`."""
    if not kernels:
        raise AlloError("schedule_for needs at least one kernel")
    for k in kernels:
        if not isinstance(k, KernelDef):
            raise AlloError(f"schedule_for needs @allo.kernel objects, got {type(k).__name__}")

    def deco(fn):
        for kernel in kernels:
            if kernel.name in KERNELS and KERNELS[kernel.name].kernel is not kernel:
                raise AlloError(f"library kernel name {kernel.name!r} is registered twice")
            kernel.schedule_fn = fn
            KERNELS[kernel.name] = Entry(kernel, fn, fn.__module__.rsplit(".", 1)[-1])
        return fn

    return deco
