"""Model importers (`allo.frontend.from_pytorch`)."""


def from_pytorch(*args, **kwargs):
    """Import a PyTorch model; see allo.frontend.pytorch.from_pytorch."""
    from .pytorch import from_pytorch as _impl

    return _impl(*args, **kwargs)
