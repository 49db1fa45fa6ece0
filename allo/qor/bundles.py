"""Which m_axi bundle an array port of a `target="vitis_hls"` top goes to.

Vitis HLS groups m_axi ports that name no bundle into one adapter, `gmem`, and that is what the
PolyBench baselines allo's estimator is validated against do; allo's default is the same.

Example::

    bundle_name(None, "A", 0)          # "gmem"   (one shared bundle, the default)
    bundle_name("separate", "A", 2)    # "gmem2"  (one bundle per array)
    bundle_name({"A": "hbm0"}, "B", 1) # "gmem"   (unnamed arrays share the default bundle)
"""
from __future__ import annotations

from ..errors import BackendError

DEFAULT_BUNDLE = "gmem"


def bundle_name(bundle, arg_name: str, k: int) -> str:
    """The bundle of array port number `k` (named `arg_name`) under the `bundle=` build option."""
    if bundle is None:
        return DEFAULT_BUNDLE
    if bundle == "separate":
        return f"gmem{k}"
    if isinstance(bundle, dict):
        return str(bundle.get(arg_name, DEFAULT_BUNDLE))
    if isinstance(bundle, str):
        return bundle
    raise BackendError(f"bundle= must be None, a name, 'separate' or a dict, not {type(bundle).__name__}")
