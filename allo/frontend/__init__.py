"""Model importers (`allo.frontend.from_pytorch`)."""


def from_pytorch(*args, **kwargs):
    """Import a PyTorch model; see allo.frontend.pytorch.from_pytorch."""
    from .pytorch import from_pytorch as _impl

    return _impl(*args, **kwargs)


def import_model(*args, **kwargs):
    """Capture a PyTorch model and generate its allo source without building; see
    allo.frontend.pytorch.import_model."""
    from .pytorch import import_model as _impl

    return _impl(*args, **kwargs)
