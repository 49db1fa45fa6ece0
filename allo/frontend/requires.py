"""The frontend's one outside dependency: torch, with an install hint when it is missing.

allo's core (kernels, schedules, every backend) runs without torch; the PyTorch frontend and the
`allo compile` command need it. torch is an extra (`allo[torch]`), and pip would resolve it to a
multi-GB CUDA build, so the hint names the CPU index, as the README does.

Example::

    torch = require_torch("from_pytorch")   # FrontendError "from_pytorch needs PyTorch ..." without it
"""
from __future__ import annotations

from ..errors import FrontendError

TORCH_INSTALL = "pip install torch --index-url https://download.pytorch.org/whl/cpu"


def require_torch(what: str):
    """The `torch` module; a FrontendError saying how to install it when it is not installed
    (a torch that is installed but fails to import raises its own error)."""
    try:
        import torch
    except ModuleNotFoundError as e:
        if e.name != "torch":
            raise
        raise FrontendError(f"{what} needs PyTorch (allo's [torch] extra), which is not installed here: "
                            f"{TORCH_INSTALL} (the CPU build; plain `pip install torch` may pull a CUDA "
                            "build of several GB)") from None
    return torch
