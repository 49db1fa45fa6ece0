"""Model importers: `allo.frontend.from_pytorch` (see api.py for the pipeline).

Importing this package does not import torch; torch is loaded on the first import call.
"""
from .api import from_pytorch, import_model

__all__ = ["from_pytorch", "import_model"]
