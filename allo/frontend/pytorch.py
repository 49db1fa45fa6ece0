"""The PyTorch importer's public names in one place (the pipeline lives in api.py and the stage
modules it lists).

Example::

    from allo.frontend.pytorch import from_pytorch, import_model
    mod = from_pytorch(model, [torch.rand(8, 16)])
"""
from .api import from_pytorch, import_model
from .model import TARGETS, ImportedModel
from .runtime import TorchModule

__all__ = ["from_pytorch", "import_model", "ImportedModel", "TorchModule", "TARGETS"]
