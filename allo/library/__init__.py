"""allo's kernel library (`from allo.library import nn`)."""
from . import nn, registry  # noqa: F401

__all__ = ["nn", "registry"]
