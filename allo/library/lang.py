"""The public names library kernels spell `allo.<name>` (`allo.kernel`, `allo.grid`, `allo.exp`,
`allo.Partition`, ...), gathered without importing the `allo` package itself.

Library kernels are ordinary allo code, written as users write theirs; each library module binds
this module to the name `allo`, so kernel bodies resolve `allo.grid` to the same object users
reach through the package.

Example::

    from .. import lang as allo

    @allo.kernel(template="T, M, N")
    def relu(X: "T[M, N]") -> "T[M, N]": ...
"""
from ..dsl.names import *  # noqa: F401,F403
from ..ir.attrs import Partition  # noqa: F401
from ..schedule.customize import customize, kernel  # noqa: F401
