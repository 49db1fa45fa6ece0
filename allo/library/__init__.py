"""allo's kernel library (`from allo.library import nn`)."""
