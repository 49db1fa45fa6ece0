"""`allo.frontend.from_pytorch`: import a PyTorch model as an allo program.

Pipeline: capture (torch.export) -> one pass over the graph with the op table (ops.py) -> readable
DSL source (library calls like `nn.linear[float32, 8, 32, 16, "1"]`) -> `allo.customize` -> compose
each library instance's predefined schedule -> build. The frontend never builds MLIR itself.

Example::

    mod = allo.frontend.from_pytorch(model, example_inputs=[torch.rand(8, 16)])
    out = mod(x.numpy())                      # numpy in, numpy out, matches model(x)
    hls = allo.frontend.from_pytorch(model, [torch.rand(8, 16)], target="vhls")
    print(hls.hls_code)
"""
from __future__ import annotations

import itertools

import numpy as np

from ..errors import AlloError, FrontendError
from .capture import Const, capture
from .codegen import HelperCall, Layer, NnCall, Program, torch_dtype_to_allo
from .layout import View
from .lower import Lowering
from .ops import OPS, bind, supported_ops

TARGETS = ("llvm", "vhls", "vitis_hls", "mlir", "rtl", "calyx")
_counter = itertools.count()


def from_pytorch(model, example_inputs, verbose=False, target="llvm", weights_as_args=False):
    """Import `model` traced on `example_inputs` and build it for `target`.

    Returns, by target: "llvm" -> a callable taking the model inputs as numpy arrays (or tensors)
    and returning numpy arrays shaped like the model's outputs; "vhls" -> the HLS module
    (`.hls_code`); "mlir" -> the composed `allo.Schedule`; "rtl" -> like "llvm" but simulated in
    Verilog (integer/fixed models; also `.cycles`, `.verilog`, `.synth()`); "calyx" -> the Calyx
    module. `verbose=True` prints the captured
    graph, the generated DSL source and the MLIR module. With `weights_as_args=True` the weights
    are kernel arguments instead of memref.global constants (the callable still takes only the
    model inputs). Unsupported operators raise `allo.FrontendError` naming the op and node.

    Example::

        mod = from_pytorch(MLP().eval(), [torch.rand(8, 16)], verbose=True)
        res = mod(np.random.rand(8, 16).astype(np.float32))
    """
    if target not in TARGETS:
        raise FrontendError(f"unknown target {target!r}; use one of {', '.join(TARGETS)}")
    imported = import_model(model, example_inputs, weights_as_args=weights_as_args)
    if verbose:
        print(imported.graph)
        print()
        print(imported.source)
    s = imported.schedule(pipeline_helpers=target != "llvm")
    if verbose:
        print(_module_text(s))
    return imported.build(target)


class ImportedModel:
    """A model turned into DSL source; `schedule()` customizes and composes, `build()` builds."""

    def __init__(self, captured, program: Program, source: str, filename: str, out_info):
        self.captured = captured
        self.program = program
        self.source = source
        self.filename = filename
        self.out_info = out_info  # [(kind, value)] per flat model output: ("array", (idx, sizes)) or ("value", v)
        self.forward = program.load(source, filename)
        self._schedule = None
        self._helpers_pipelined = False

    @property
    def graph(self):
        return self.captured.graph

    @property
    def layers(self):
        return self.program.layers

    def schedule(self, pipeline_helpers=True):
        """`allo.customize(forward)` with every library instance's schedule composed (cached).
        `pipeline_helpers` also pipelines the innermost loops of the generated helper kernels
        (HLS pragmas; the LLVM build ignores them, so from_pytorch skips it for target="llvm")."""
        if self._schedule is None:
            self._schedule = self._compose()
        if pipeline_helpers and not self._helpers_pipelined:
            self._pipeline_helpers(self._schedule)
        return self._schedule

    def _compose(self):
        import allo
        from allo.library import nn

        try:
            s = allo.customize(self.forward)
        except AlloError as e:
            raise FrontendError(f"the generated program does not compile (a frontend bug; source in "
                                f"{self.filename}):\n{e}") from None
        for layer in self.program.layers:
            applied = []
            for c in layer.calls:
                if not isinstance(c, NnCall):
                    continue
                kernel = getattr(nn, c.kernel)
                if getattr(kernel, "schedule_fn", None) is None or not hasattr(s, "compose"):
                    continue
                s.compose(kernel, id=c.inst_id, instantiate=list(c.targs))
                applied.append(f"{c.kernel}{'_' + c.inst_id if c.inst_id else ''} (library)")
            layer.schedule = ", ".join(applied)
        return s

    def _pipeline_helpers(self, s):
        done = set()
        for layer in self.program.layers:
            helpers = []
            for c in layer.calls:
                if isinstance(c, HelperCall) and c.helper not in helpers:
                    helpers.append(c.helper)
                    if c.helper not in done:
                        for loop in self.program.inner_loops.get(c.helper, []):
                            s.pipeline(f"{c.helper}:{loop}")
                        done.add(c.helper)
            extra = [f"{h} (pipelined)" for h in helpers]
            layer.schedule = ", ".join([p for p in [layer.schedule] if p] + extra)
        self._helpers_pipelined = True

    def build(self, target="llvm", mode=None, project=None):
        """Build for "llvm" (a TorchModule), "vhls"/"vitis_hls" (the HLS module; with mode="csim" and
        project=dir a TorchModule running the C++ simulation) or "mlir" (the Schedule)."""
        s = self.schedule(pipeline_helpers=target != "llvm")
        if target == "mlir":
            return s
        if target in ("vhls", "vitis_hls"):
            if mode is None:
                return s.build(target=target)
            return self._wrap(s.build(target=target, mode=mode, project=project))
        if target == "calyx":
            return s.build(target="calyx")
        if target == "rtl":  # Verilog through CIRCT; the wrapper exposes `cycles`, `verilog`, `synth`
            return self._wrap(s.build(target="rtl"))
        if target != "llvm":
            raise FrontendError(f"unknown target {target!r}; use one of {', '.join(TARGETS)}")
        return self._wrap(s.build(target="llvm"))

    def _wrap(self, built):
        weights = [arr for _, arr in self.program.weights.values()] if self.program.weights_as_args else []
        return TorchModule(built, self.program.inputs, self.input_sizes(), weights, self.out_info,
                           self.captured.out_spec, self)

    def input_sizes(self):
        return [shape for _, _, shape, _ in self.captured.inputs]

    def summary(self) -> str:
        """A per-layer table: torch node, op, kernel instance(s), shapes, schedule applied."""
        rows = [("node", "op", "kernel instance", "input shapes", "output", "schedule")]
        for layer in self.program.layers:
            layer.kernel = ", ".join(c.instance() for c in layer.calls) or "view (no code)"
            ins = " ".join("x".join(map(str, s)) or "()" for s in layer.in_shapes)
            out = "x".join(map(str, layer.out_shape)) if layer.out_shape is not None else "-"
            rows.append((layer.var, layer.op, layer.kernel, ins, out, layer.schedule))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)


class TorchModule:
    """The LLVM build of an imported model: call it with the model's inputs (numpy or torch)."""

    def __init__(self, llvm_mod, input_bufs, input_sizes, weights, out_info, out_spec, imported):
        self.llvm = llvm_mod
        self.input_bufs = input_bufs
        self.input_sizes = input_sizes
        self.weights = weights
        self.out_info = out_info
        self.out_spec = out_spec
        self.imported = imported

    @property
    def source(self):
        return self.imported.source

    def __getattr__(self, name):
        """Attributes of the built module (e.g. `cycles`, `verilog`, `synth` of an RTL build)."""
        if name.startswith("_") or name == "llvm":
            raise AttributeError(name)
        return getattr(self.llvm, name)

    def __call__(self, *inputs):
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
        res = self.llvm(*arrays, *self.weights)
        res = list(res) if isinstance(res, tuple) else [res]
        flat = []
        for kind, info in self.out_info:
            if kind == "value":
                flat.append(info)
            else:
                idx, sizes = info
                flat.append(np.asarray(res[idx]).reshape(sizes))
        if self.out_spec is not None:
            from torch.utils._pytree import tree_unflatten

            return tree_unflatten(flat, self.out_spec)
        return flat[0] if len(flat) == 1 else tuple(flat)


# ---------------------------------------------------------------------------- import
def import_model(model, example_inputs, weights_as_args=False) -> ImportedModel:
    """Capture `model` and generate its DSL program without building it (see `from_pytorch`).

    Example::

        imported = import_model(model, [torch.rand(8, 16)])
        print(imported.source)          # the generated allo program
        print(imported.summary())       # op -> kernel instance table
        s = imported.schedule()         # customize + composed library schedules
        mod = imported.build("llvm")
    """
    cap = capture(model, example_inputs)
    prog = Program(weights_as_args=weights_as_args)
    ctx = Lowering(prog)
    env = {}
    for fx_node, name, shape, dtype in cap.inputs:
        buf = prog.add_input(name, shape, torch_dtype_to_allo(dtype))
        env[fx_node] = View.whole(buf, shape)
    env.update({n: c if _is_tensor_const(c) else c.tensor for n, c in cap.consts.items()})
    names = _preferred_names(cap)
    from torch.fx.node import map_arg

    order = {tn.fx: k for k, tn in enumerate(cap.nodes)}
    roots = {n: n for n in env}  # torch aliasing: node -> the node whose storage it views
    for tn in cap.nodes:
        handler = OPS.get(tn.key)
        inplace = handler is None and _is_inplace(tn.key) and tn.key[:-1] in OPS
        if inplace:
            handler = OPS[tn.key[:-1]]
            _check_inplace(tn, roots, order, {i[0] for i in cap.inputs})
        if handler is None:
            raise _unsupported(tn)
        args = map_arg(tn.args, lambda n: _lookup(env, n, tn))
        kwargs = map_arg(tn.kwargs, lambda n: _lookup(env, n, tn))
        ctx.node, ctx.hint = tn, names.get(tn.fx, tn.name)
        in_shapes = [tuple(ctx.sizes(x)) for x in _tensors(args)]
        layer = Layer(tn.name, tn.key, "", in_shapes, tn.shape, var=ctx.hint)
        prog.current = layer
        try:
            value = handler(ctx, tn, bind(tn.target, args, kwargs))
        except FrontendError as e:
            if tn.name in str(e):
                raise
            raise FrontendError(f"{tn.key} at {tn.where()}: {e}") from None
        except AlloError:
            raise
        except Exception as e:  # a handler bug must still name the node
            raise FrontendError(f"internal error importing {tn.key} at {tn.where()}: {type(e).__name__}: {e}") from e
        prog.current = None
        prog.layers.append(layer)
        env[tn.fx] = value
        roots[tn.fx] = _alias_root(tn, value, env, roots)
        if inplace:  # later readers of the mutated tensor see the new value
            env[tn.args[0]] = value
            roots[tn.fx] = roots[tn.args[0]]
    out_info = []
    ctx.node, ctx.hint = None, "out"
    for out in cap.outputs:
        value = env.get(out, out) if _is_node(out) else out
        if isinstance(value, (View, Const)):
            v = ctx.view(value)
            ctx.hint = getattr(out, "name", "out")
            buf = ctx.output_buf(v)
            prog.use(buf)
            prog.outputs.append(buf)
            out_info.append(("array", (len(prog.outputs) - 1, v.sizes)))
        else:
            out_info.append(("value", value))
    if not prog.outputs:
        raise FrontendError("the model returns no tensors; nothing to compute")
    source = prog.render()
    filename = f"<allo.frontend {type(model).__name__} #{next(_counter)}>"
    return ImportedModel(cap, prog, source, filename, out_info)


def _is_inplace(key: str) -> bool:
    name = key.split(".", 1)[-1]
    return name.endswith("_") and not name.startswith("_")


def _check_inplace(tn, roots, order, inputs):
    """An in-place op is imported as its functional form; that is only right if the mutated tensor
    is not a model input/weight and no other live tensor shares its storage (a torch view)."""
    target = tn.args[0] if tn.args else None
    if not _is_node(target) or target not in roots:
        raise FrontendError(f"{tn.key} at {tn.where()}: in-place op without a tensor to update")
    root = roots[target]
    if root.op == "placeholder" or root.op == "get_attr":
        what = "its input" if root in inputs else "a parameter or buffer"
        raise FrontendError(f"{tn.key} at {tn.where()}: the model mutates {what} in place ({root.name!r}), which "
                            "allo cannot import; use the out-of-place op")
    here = order[tn.fx]
    for node, r in roots.items():
        if node is not target and r is root and any(order.get(u, -1) > here for u in node.users):
            raise FrontendError(f"{tn.key} at {tn.where()}: in-place update of a tensor that shares memory with "
                                f"{node.name!r} (a view) is not supported; use the out-of-place op")


def _alias_root(tn, value, env, roots):
    """The storage root of a node's value: its input's root when torch would return a view of it."""
    if tn.key == "aten.clone":
        return tn.fx
    bufs = {id(v.buf) for v in (value if isinstance(value, tuple) else (value,)) if isinstance(v, View)}
    for arg in tn.args:
        if _is_node(arg) and isinstance(env.get(arg), View) and id(env[arg].buf) in bufs:
            return roots.get(arg, arg)
    return tn.fx


def _module_text(s) -> str:
    """print(s.module), with weight constants elided (`dense_resource<__elided__>`) for readability."""
    try:
        return s.module.operation.get_asm(large_elements_limit=16)
    except (AttributeError, TypeError):
        return str(s.module)


def _is_tensor_const(c):
    import torch

    t = c.tensor
    return isinstance(t, torch.Tensor) or (isinstance(t, (tuple, list)) and t and all(isinstance(x, torch.Tensor) for x in t))


def _is_node(x):
    return hasattr(x, "op") and hasattr(x, "target")


def _lookup(env, n, tn):
    if n not in env:
        raise FrontendError(f"{tn.key} at {tn.where()}: uses {n.name!r}, which has no value (its op produced none)")
    return env[n]


def _tensors(args):
    for a in args:
        if isinstance(a, (View, Const)):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (x for x in a if isinstance(x, (View, Const)))


def _preferred_names(cap) -> dict:
    """Name a node after its module (`linear1`) when it is the only node of that module."""
    by_module = {}
    for tn in cap.nodes:
        by_module.setdefault(tn.module, []).append(tn)
    names = {}
    for module, tns in by_module.items():
        if module and len(tns) == 1:
            names[tns[0].fx] = module.replace(".", "_")
    return names


def _unsupported(tn) -> FrontendError:
    target = tn.target
    torch_name = getattr(target, "__name__", None) or str(target)
    known = sorted({k.split(".", 1)[-1] for k in supported_ops()})
    return FrontendError(
        f"unsupported operator {tn.key} ({torch_name}) at {tn.where()}. Supported operators: {', '.join(known)}")
