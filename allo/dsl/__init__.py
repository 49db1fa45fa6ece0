"""The kernel language's front end: Python kernel source -> allo loop IR (`allo.ir.nodes`).

`names` holds what kernel bodies call (`allo.grid`, `allo.exp`, ...; re-exported here, so
`allo.dsl.grid` is `allo.grid`); `kernel` the kernel objects (`@allo.kernel`, templates);
`source` -> `scope` -> `builder` (+ `build_exprs`, `calls`, `forms`, `meta`, `builtins`,
`arrays`, `regions`) turn one kernel instance into a `Func`.

May import: `allo.errors`, `allo.ir`.

Example::

    from allo.dsl.builder import ModuleBuilder
    mb = ModuleBuilder()
    func = mb.instantiate(kernel, (), None)
"""
from .names import *  # noqa: F401,F403  (the names kernel bodies use)
from .names import __all__  # noqa: F401
from . import dataflow as _dataflow  # noqa: E402,F401  (registers df.get_pid for region kernels)
