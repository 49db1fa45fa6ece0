"""Stage 3 of the import: lower a normalised graph through the op table into a Program.

One pass over the nodes in order: model inputs (and mutated buffers, see normalize.py) become
`forward` arguments, each node's handler (ops/) turns its operands (Views of DSL arrays, Consts,
Python values) into library calls and generated loops, and the model's outputs, the buffers' new
values and any in-kernel id checks become `forward`'s results.

Example::

    prog = lower(normalize(capture(model, [x]), has_handler), TypePlan())
    print(prog.render())
"""
from __future__ import annotations

from torch.fx.node import map_arg

from ..errors import AlloError, FrontendError
from .codegen import Layer, Program
from .context import Lowering
from .graph import Captured, Const
from .layout import View
from .ops import OPS, bind, closest_ops
from .precision import TypePlan


def has_handler(key: str) -> bool:
    """Whether the op table imports op `key` (normalize maps `add_` onto `add` with this)."""
    return key in OPS


def lower(graph: Captured, types: TypePlan, weights_as_args=None) -> Program:
    """The Program computing `graph` (see the module docstring)."""
    prog = Program(weights_as_args=weights_as_args)
    ctx = Lowering(prog, types)
    env = {}
    for fx_node, name, shape, dtype in graph.inputs:
        env[fx_node] = View.whole(prog.add_input(name, shape, types.input_type(name, dtype)), shape)
        types.bind_value(fx_node.name, env[fx_node])
    prog.n_user_inputs = len(prog.inputs)
    for var in graph.state:
        shape = tuple(var.tensor.shape)
        buf = prog.add_input(var.name, shape, types.weight_type(Const(var.tensor, var.name, var.state)))
        env[var.fx] = View.whole(buf, shape)
    env.update({n: c if _is_tensor_const(c) else c.tensor for n, c in graph.consts.items()})
    for tn in graph.nodes:
        value = _lower_node(ctx, prog, tn, env)
        env[tn.fx] = value
        types.bind_value(tn.name, value)
        for node in tn.updates:  # in-place op: later readers of the mutated tensor see the new value
            env[node] = value
    types.finish(ctx, env)
    _outputs(ctx, prog, graph, env)
    return prog


def _lower_node(ctx, prog, tn, env):
    handler = OPS.get(tn.op)
    if handler is None:
        raise unsupported(tn)
    args = map_arg(tn.args, lambda n: _lookup(env, n, tn))
    kwargs = map_arg(tn.kwargs, lambda n: _lookup(env, n, tn))
    ctx.node, ctx.hint = tn, tn.var or tn.name
    in_shapes = [tuple(ctx.sizes(x)) for x in _tensors(args)]
    layer = Layer(tn.name, tn.key, "", in_shapes, tn.shape, var=ctx.hint)
    prog.current = layer
    try:
        value = ctx.types.lower_node(ctx, tn, bind(tn.target, args, kwargs), handler)
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
    return value


def _outputs(ctx, prog, graph, env):
    ctx.node, ctx.hint = None, "out"
    for out in graph.outputs:
        value = env.get(out, out) if _is_node(out) else out
        value = ctx.types.output_value(ctx, value)
        if isinstance(value, (View, Const)):
            v = ctx.view(value)
            ctx.hint = getattr(out, "name", "out")
            prog.model_outputs.append(("array", prog.add_output(ctx.output_buf(v)), v.sizes))
        else:
            prog.model_outputs.append(("value", value))
    if not prog.outputs:
        raise FrontendError("the model returns no tensors; nothing to compute")
    for k, var in enumerate(graph.state):
        ctx.hint = f"{var.name}_next"
        buf = ctx.output_buf(ctx.view(env[var.fx]))  # a copy when the buffer was not updated
        prog.state.append((var, prog.inputs[prog.n_user_inputs + k], prog.add_output(buf)))


def unsupported(tn) -> FrontendError:
    """The error for an op the table does not have: the op, node, model source line and the five
    closest supported names."""
    torch_name = getattr(tn.target, "__name__", None) or str(tn.target)
    close = ", ".join(closest_ops(tn.key))
    return FrontendError(f"unsupported operator {tn.key} ({torch_name}) at {tn.where()}. Closest supported "
                         f"operators: {close} (`allo ops` lists all)")


def _is_tensor_const(c):
    import torch

    t = c.tensor
    return isinstance(t, torch.Tensor) or (isinstance(t, (tuple, list)) and t
                                           and all(isinstance(x, torch.Tensor) for x in t))


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
