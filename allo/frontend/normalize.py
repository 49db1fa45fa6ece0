"""Stage 2 of the import: normalise a captured graph for lowering.

- drops no-op nodes (assertions),
- finds buffers the model mutates in forward (`self.count.add_(1)`): they become `state`, an extra
  kernel input and output that the built module carries from call to call (torch semantics),
- evaluates nodes whose inputs are all constants with torch (causal masks, rotary tables,
  `w.t()`), so kernel code sees them as ready-made weights,
- resolves in-place ops (`add_`) to their functional form (`node.op`) and refuses the ones whose
  effect the functional form would lose (a model input or a view's shared storage),
- names each node's result (`linear1` when a module produced a single node).

Storage aliasing follows torch's own op schemas (`Tensor(a) self -> Tensor(a)` marks a view).

Example::

    graph = normalize(capture(model, [x]))
    [(n.op, n.var) for n in graph.nodes]      # [('aten.linear', 'linear1'), ...]
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import FrontendError
from .graph import Captured, Const, TNode

NOOP_KEYS = {"aten._assert_tensor_metadata", "aten._assert_scalar", "aten.sym_constrain_range_for_size",
             "aten._assert_async", "aten.sym_constrain_range", "aten._functional_assert_async"}


@dataclass
class StateVar:
    """A buffer or parameter the model updates in place: its placeholder, name and initial value."""

    fx: object
    name: str  # variable name in the generated source
    state: str  # state-dict name ("count", "bn.num_batches_tracked")
    tensor: object  # value before the first call


def normalize(cap: Captured, supported=None) -> Captured:
    """Normalise `cap` in place (see the module docstring) and return it. `supported(key)` tells
    whether the op table has a handler (to map `add_` onto `add`)."""
    cap.nodes = [tn for tn in cap.nodes if tn.key not in NOOP_KEYS]
    _find_state(cap)
    _fold_constants(cap)
    _resolve_inplace(cap, supported or (lambda key: False))
    _name_nodes(cap)
    return cap


# ---------------------------------------------------------------------------- aliasing
def is_inplace(tn: TNode) -> bool:
    """An op that writes its first argument (`add_`, `copy_`, `fill_`)."""
    schema = getattr(tn.target, "_schema", None)
    if schema is not None and schema.arguments:
        info = schema.arguments[0].alias_info
        if info is not None and info.is_write and not schema.arguments[0].kwarg_only:
            return True
    name = tn.key.split(".", 1)[-1]
    return name.endswith("_") and not name.startswith("_")


def _returns_view(tn: TNode) -> bool:
    if tn.key in ("fx.index",):
        return True
    schema = getattr(tn.target, "_schema", None)
    if schema is None:
        return False
    return any(r.alias_info is not None for r in schema.returns)


def _alias_roots(cap: Captured) -> dict:
    """fx node -> the fx node owning its storage (itself unless it is a view or an in-place result)."""
    roots = {}
    for n in cap.consts:
        roots[n] = n
    for n, *_ in cap.inputs:
        roots[n] = n
    for var in cap.state:
        roots[var.fx] = var.fx
    for tn in cap.nodes:
        root = tn.fx
        first = tn.args[0] if tn.args else None
        if tn.key == "getitem" and _is_node(first):  # an item of split/unbind is a view, of max_pool's not
            producer_root = roots.get(first, first)
            root = producer_root if producer_root is not first else tn.fx
        elif (is_inplace(tn) or _returns_view(tn)) and _is_node(first):
            root = roots.get(first, first)
        roots[tn.fx] = root
    return roots


def _is_node(x):
    return hasattr(x, "op") and hasattr(x, "target")


# ---------------------------------------------------------------------------- mutated buffers
def _find_state(cap: Captured):
    """Buffers/parameters written by an in-place op become state (no longer constants)."""
    roots = _alias_roots(cap)
    found, whole = {}, set(cap.consts)  # whole: nodes naming a whole buffer (not a view of it)
    for tn in cap.nodes:
        if not is_inplace(tn) or not tn.args or not _is_node(tn.args[0]):
            continue
        target = tn.args[0]
        root = roots.get(target, target)
        const = cap.consts.get(root)
        if const is None or const.state is None or root.op != "placeholder":
            continue
        if target not in whole:
            raise FrontendError(f"{tn.key} at {tn.where()}: the model updates a view of buffer {const.state!r} in "
                                "place, which allo cannot import; update the whole buffer (e.g. "
                                "`self.buf = torch.cat(...)` or `self.buf.copy_(new_value)`)")
        whole.add(tn.fx)
        found.setdefault(root, StateVar(root, const.name, const.state, const.tensor.clone()))
    for root, var in found.items():
        del cap.consts[root]
        cap.state.append(var)


# ---------------------------------------------------------------------------- constant folding
def _fold_constants(cap: Captured):
    """Evaluate nodes whose inputs are all constants; they become Consts named after the node."""
    import torch
    from torch.fx.node import map_arg

    keep = []
    for tn in cap.nodes:
        deps = []
        map_arg((tn.args, tn.kwargs), deps.append)
        if all(d in cap.consts for d in deps):
            args = map_arg(tn.args, lambda d: cap.consts[d].tensor)
            kwargs = map_arg(tn.kwargs, lambda d: cap.consts[d].tensor)
            if is_inplace(tn) and args and isinstance(args[0], torch.Tensor):
                args = (args[0].clone(),) + tuple(args[1:])  # earlier readers keep the old constant
            try:
                with torch.no_grad():
                    value = tn.target(*args, **kwargs)
            except Exception as e:  # noqa: BLE001
                raise FrontendError(f"cannot evaluate constant {tn.where()} ({tn.key}): {e}") from None
            if isinstance(value, torch.Tensor):
                cap.consts[tn.fx] = Const(value.detach(), tn.name)
                if is_inplace(tn) and _is_node(tn.args[0]):  # later readers of the operand see the update
                    cap.consts[tn.args[0]] = cap.consts[tn.fx]
                continue
            if isinstance(value, (tuple, list)) and all(isinstance(v, torch.Tensor) for v in value):
                cap.consts[tn.fx] = Const(tuple(v.detach() for v in value), tn.name)
                continue
        keep.append(tn)
    cap.nodes = keep


# ---------------------------------------------------------------------------- in-place ops
def _resolve_inplace(cap: Captured, supported):
    """Set `tn.op` (the handler key) and `tn.updates`: the nodes naming the whole tensor an in-place
    op overwrites (its storage root and earlier in-place results on it; live views are refused)."""
    roots = _alias_roots(cap)
    order = {tn.fx: k for k, tn in enumerate(cap.nodes)}
    inputs = {i[0] for i in cap.inputs}
    state = {s.fx for s in cap.state}
    names = {}  # storage root -> nodes naming that whole tensor so far
    for tn in cap.nodes:
        tn.op, tn.updates = tn.key, ()
        if supported(tn.key) or not is_inplace(tn):
            continue
        functional = tn.key[:-1] if tn.key.endswith("_") else tn.key
        if not supported(functional):
            continue
        _check_inplace(tn, roots, order, inputs, state, cap)
        root = roots[tn.args[0]]
        same = names.setdefault(root, [root])
        if tn.args[0] not in same:
            same.append(tn.args[0])
        tn.op, tn.updates = functional, tuple(same)
        same.append(tn.fx)


def _check_inplace(tn, roots, order, inputs, state, cap):
    """The functional form is right only if the mutated tensor is not a model input (or constant)
    and no other live tensor shares its storage (a torch view)."""
    target = tn.args[0] if tn.args else None
    if not _is_node(target) or target not in roots:
        raise FrontendError(f"{tn.key} at {tn.where()}: in-place op without a tensor to update")
    root = roots[target]
    if root in inputs:
        raise FrontendError(f"{tn.key} at {tn.where()}: the model mutates its input in place ({root.name!r}), which "
                            "allo cannot import; use the out-of-place op")
    if root in cap.consts and root.op in ("placeholder", "get_attr") and root not in state:
        raise FrontendError(f"{tn.key} at {tn.where()}: the model mutates a parameter or constant in place "
                            f"({root.name!r}), which allo cannot import; use the out-of-place op")
    here = order[tn.fx]
    for node, r in roots.items():
        defined_before = order.get(node, -1) < here
        if node is not target and r is root and defined_before and any(order.get(u, -1) > here for u in node.users):
            raise FrontendError(f"{tn.key} at {tn.where()}: in-place update of a tensor that shares memory with "
                                f"{node.name!r} (a view) is not supported; use the out-of-place op")


# ---------------------------------------------------------------------------- names
def _name_nodes(cap: Captured):
    """Name a node after its module (`linear1`) when it is the only node of that module."""
    by_module = {}
    for tn in cap.nodes:
        by_module.setdefault(tn.module, []).append(tn)
    for tn in cap.nodes:
        tn.var = tn.name
    for module, tns in by_module.items():
        if module and len(tns) == 1:
            tns[0].var = module.replace(".", "_")
