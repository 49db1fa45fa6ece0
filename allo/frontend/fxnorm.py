"""torch.fx fallback capture: symbolic_trace + ShapeProp, normalised to the aten-style nodes the
op table handles (modules and functions mapped to their aten ops)."""
from __future__ import annotations

from ..errors import FrontendError


def normalize_fx(gm, inputs):
    raise FrontendError("torch.export could not capture the model and the torch.fx fallback is not available")
