"""float32 on the handshake route (`scheduling="dynamic"`): allo's float32 units as external
functions of the dataflow circuit.

- `render.py`: casts float32 <-> int / fixed rendered as calls of conversion units;
- `rewrite.py` (allo's MLIR, before the cf pipeline): float32 values as i32 bits, float
  operators as calls of external functions `allo_hsf_<kind>`;
- CIRCT 1.62 (circt_worker.py) turns each call into a `handshake.instance` and an extern hw module
  instance with valid/ready ports;
- `units.py` + `elastic.sv`: the SV module of each extern, an elastic join with a registered output
  around allo's combinational float32 function units (allo/backend/rtl/static/float/).

Example::

    names = floats_to_units(module)       # (lower.py) in place, before the cf pipeline
    verilog += unit_modules(names)        # (module.py) after CIRCT's Verilog
"""
from .render import FloatCastMixin, unit_declarations
from .rewrite import floats_to_units
from .units import unit_modules, unit_signature

__all__ = ["FloatCastMixin", "unit_declarations", "floats_to_units", "unit_modules", "unit_signature"]
