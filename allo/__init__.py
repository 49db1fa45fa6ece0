"""allo: a Python-embedded accelerator design language."""
from .errors import AlloError
from .ir.types import *  # noqa: F401,F403
