"""Upstream Allo's `allo.primitives`: module-level combinators of kernels (`unify`)."""
from .unify import unify

__all__ = ["unify"]
