"""Calling a built imported model like the torch model: numpy arrays (or tensors) in, the model's
output structure out.

`TorchModule` wraps the built module (LLVM, or an HLS module in C simulation) and passes what the
kernel needs besides the model inputs: the weights that are `forward` arguments, and the current
value of every buffer the model mutates (state, carried from call to call as torch does). It checks
index inputs (embedding ids, gather/index tensors) against their range before running, and raises
on out-of-range ids the kernel counted itself. For a quantized import it quantizes the inputs and
dequantizes the outputs on the host (`imported.boundary`); `mod.core` is the built integer module. Attributes it does not have are the built module's
(`mod.cpu_report`, `mod.report()`, `mod.hls_code`).

Example::

    mod = from_pytorch(model, [torch.rand(8, 16)])
    out = mod(x.numpy())            # == model(x)
    mod.cpu_report                  # the LLVM module's optimisation report
"""
from __future__ import annotations

import numpy as np

from ..backend.llvm.openmp import resolve_threads
from ..errors import AlloError
from .layout import view_window
from .quant.boundary import write_readme


class TorchModule:
    """A built imported model; see the module docstring. `state` maps each mutated buffer's name to
    its current value; `reset_state()` restores the values the model had when it was imported."""

    def __init__(self, built, imported, pass_weights=True, rebuild=None):
        prog = imported.program
        self.built = built
        self._rebuild = rebuild  # threads -> a new built module (LLVM builds)
        self.imported = imported
        self.input_bufs = prog.inputs[:prog.n_user_inputs]
        self.input_sizes = imported.input_sizes()
        self.weights = [arr for _, arr in prog.arg_weights()] if pass_weights else []
        self.out_spec = imported.captured.out_spec
        self.state = {}
        self.reset_state()

    def reset_state(self):
        """Buffers the model mutates get back the values they had at import."""
        self.state = {var.state: var.tensor.detach().cpu().numpy().copy() for var, _, _ in self.imported.program.state}

    @property
    def core(self):
        """The built module itself: for a quantized import it takes and returns the quantized values
        (`mod.imported.boundary` has their types and scales), model inputs first, then the state
        buffers and the weights passed as arguments."""
        return self.built

    def write(self, path):
        """The built module's `write(path)` (RTL: the SystemVerilog project); a quantized import's
        README.md there also describes the quantized interface (types, scales, zero points)."""
        result = getattr(self.built, "write")(path)
        if self.imported.boundary is not None:
            write_readme(path, self.imported.boundary)
        return result

    @property
    def source(self):
        return self.imported.source

    @property
    def llvm(self):  # the name older code used for the built module
        return self.built

    @property
    def threads(self):
        """CPU threads of the parallel loops (LLVM builds). Setting it rebuilds the module (builds
        are cached, so switching back is free)."""
        return resolve_threads(getattr(self.built, "threads", None)) if self._rebuild else None

    @threads.setter
    def threads(self, n):
        if self._rebuild is None:
            raise AlloError("threads can only be changed on an LLVM build (target='llvm')")
        if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
            raise AlloError(f"threads must be a positive integer (or None for all cores), got {n!r}")
        self.built = self._rebuild(n)

    def __getattr__(self, name):
        if name.startswith("__") or name in ("built", "imported", "_rebuild"):
            raise AttributeError(name)
        return getattr(self.built, name)

    def __call__(self, *inputs):
        prog = self.imported.program
        arrays = self._inputs(inputs)
        for k, view, low, high, message in prog.id_checks:
            _check_ids(arrays[k], view, low, high, message)
        boundary = self.imported.boundary
        if boundary is not None:
            arrays = boundary.to_core(arrays)
        states = [self.state[var.state].reshape(buf.shape) for var, buf, _ in prog.state]
        res = self.built(*arrays, *states, *self.weights)
        res = list(res) if isinstance(res, tuple) else [res]
        for index, message in prog.check_outputs:
            bad = int(np.asarray(res[index]).reshape(-1)[0])
            if bad:
                raise AlloError(f"{message}: {bad} id(s) of this call are outside the valid range")
        for var, _, index in prog.state:
            self.state[var.state] = np.asarray(res[index]).reshape(tuple(var.tensor.shape)).copy()
        flat = [info[0] if kind == "value" else np.asarray(res[info[0]]).reshape(info[1])
                for kind, *info in prog.model_outputs]
        if boundary is not None:
            flat = boundary.from_core(flat)
        if self.out_spec is not None:
            from torch.utils._pytree import tree_unflatten

            return tree_unflatten(flat, self.out_spec)
        return flat[0] if len(flat) == 1 else tuple(flat)

    def _inputs(self, inputs):
        if len(inputs) != len(self.input_bufs):
            raise AlloError(f"the model takes {len(self.input_bufs)} input(s), got {len(inputs)}")
        arrays = []
        for i, (x, buf, sizes) in enumerate(zip(inputs, self.input_bufs, self.input_sizes)):
            if hasattr(x, "detach") and hasattr(x, "numpy"):
                x = x.detach().cpu().numpy()
            x = np.asarray(x)
            if tuple(x.shape) != tuple(sizes):
                raise AlloError(f"input {i} ({buf.name}) must have shape {list(sizes)}, got {list(x.shape)}")
            arrays.append(np.ascontiguousarray(x).reshape(buf.shape))
        return arrays

    def __repr__(self):
        return f"<allo imported model {type(self.built).__name__}: {self.imported.filename}>"


def _check_ids(array: np.ndarray, view, low, high, message):
    """Raise if an element of `view` (a strided window of the input array) is outside [low, high)."""
    window = np.asarray(view_window(array, view))
    if window.size and (window.min() < low or window.max() >= high):
        bad = window[(window < low) | (window >= high)].reshape(-1)[0]
        raise AlloError(f"{message}: got {int(bad)}")
