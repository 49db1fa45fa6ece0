"""Vitis (v++) link configuration under upstream Allo's names (`allo.backend.vitis`).

`generate_hbm_config(top, mapping)` is the `[connectivity]` section of a v++ `--config` file that
places each kernel argument in a memory bank (`sp=<kernel>_1.<arg>:HBM[0]`); pass it to
`v++ --link --config <top>.cfg` for the compute unit `<top>_1`.

Example::

    text = generate_hbm_config("gemm", {"A": 0, "B": "HBM[1]", "out0": "DDR[0]"})
    # [connectivity]\\n\\nsp=gemm_1.A:HBM[0]\\nsp=gemm_1.B:HBM[1]\\nsp=gemm_1.out0:DDR[0]\\n
"""
from __future__ import annotations

import re

from ..errors import BackendError

_BANK = re.compile(r"^(HBM|DDR|PLRAM|HOST)\[\d+(:\d+)?\]$")


def generate_hbm_config(top_func_name: str, hbm_mapping: dict, arg_name_mapping: dict | None = None) -> str:
    """The v++ connectivity config mapping arguments to banks: an int is an HBM channel
    (`0` -> `HBM[0]`), a string a bank as v++ spells it (`"HBM[1]"`, `"DDR[0]"`, `"HBM[0:3]"`).
    `arg_name_mapping` renames arguments (kernel names -> the HLS code's port names)."""
    if not isinstance(top_func_name, str) or not top_func_name.isidentifier():
        raise BackendError(f"generate_hbm_config: the kernel name must be an identifier, got {top_func_name!r}")
    if not isinstance(hbm_mapping, dict):
        raise BackendError(f"generate_hbm_config: hbm_mapping must be a dict {{argument: bank}}, got {hbm_mapping!r}")
    lines = ["[connectivity]", ""]
    for arg, bank in hbm_mapping.items():
        if isinstance(bank, bool) or not isinstance(bank, (int, str)):
            raise BackendError(f"generate_hbm_config: bank of {arg!r} must be an HBM channel number or a bank such "
                               f"as 'HBM[0]' / 'DDR[1]', got {bank!r}")
        if isinstance(bank, int):
            if bank < 0:
                raise BackendError(f"generate_hbm_config: HBM channel of {arg!r} must be >= 0, got {bank}")
            bank = f"HBM[{bank}]"
        if not _BANK.match(bank):
            raise BackendError(f"generate_hbm_config: bank {bank!r} of {arg!r} is not a v++ memory bank "
                               "(HBM[n], DDR[n], PLRAM[n], HOST[n] or a range such as HBM[0:3])")
        port = (arg_name_mapping or {}).get(arg, arg)
        lines.append(f"sp={top_func_name}_1.{port}:{bank}")
    lines.append("")
    return "\n".join(lines)


__all__ = ["generate_hbm_config"]
