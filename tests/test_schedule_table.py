"""The declared primitives (allo/schedule/primitives.py): every Schedule primitive method comes from
the table, every declared argument kind is checked with the uniform message
`<primitive>: argument '<arg>': ...` and changes nothing, and a step replayed (from the log, or
recorded by a recording schedule as allo.dse does) reproduces the primitive."""
import inspect

import pytest

import allo
from allo.ir.types import int32
from allo.schedule import kinds as K
from allo.schedule.declare import Step
from allo.schedule.primitives import PRIMITIVES
from tests.test_schedule_api import caller, conv_i, gemm_i, pc_i


def pe(A: int32[2, 2]) -> int32[2, 2]:
    B: int32[2, 2] = 0
    for i, j in allo.grid(2, 2, name="PE"):
        B[i, j] = A[i, j] * 2
    return B


def producer(A: int32[4, 4], out: int32[4, 4]):
    for i, j in allo.grid(4, 4):
        out[i, j] = A[i, j] + 1


def consumer(X: int32[4, 4], E: int32[4, 4]):
    for i, j in allo.grid(4, 4):
        E[i, j] = X[i, j] * 2


def pipe(A: int32[4, 4]) -> int32[4, 4]:
    tmp: int32[4, 4]
    out: int32[4, 4] = 0
    producer(A, tmp)
    consumer(tmp, out)
    return out


# one call of every primitive that applies: (kernel, args, kwargs)
SAMPLES = {
    "split": (gemm_i, ("i", 4), {}),
    "reorder": (gemm_i, ("k", "j"), {}),
    "fuse": (gemm_i, ("i", "j"), {}),
    "unroll": (gemm_i, ("k", 2), {}),
    "pipeline": (gemm_i, ("j", 2), {"rewind": True}),
    "parallel": (gemm_i, ("i",), {}),
    "partition": (gemm_i, ("A", allo.Partition.Cyclic), {"dim": 2, "factor": 4}),
    "reshape": (gemm_i, ("A", (8, 32)), {}),
    "unfold": (pe, ("PE", [0, 1]), {}),
    "inline": (caller, ("scale",), {}),
    "buffer_at": (gemm_i, ("C", "i"), {}),
    "reuse_at": (conv_i, ("A", "y"), {}),
    "compute_at": (pc_i, ("j", "jj"), {}),
    "to": (pipe, ("tmp", "consumer"), {"depth": 4}),
    "dataflow": (caller, ("scale",), {}),
    "reduce_tree": (gemm_i, ("k",), {}),
    "config_op": (gemm_i, ("mul", "fabric"), {"latency": 2}),
}


def bad_value(kind):
    """A value each declared kind must refuse (a new kind without one fails the test)."""
    if isinstance(kind, K.Int):
        return kind.minimum - 1
    if isinstance(kind, K.Addresses):
        return ("zz", "j")
    for cls, value in ((K.Choice, "diagonal"), (K.Ints, "abc"), (K.Flag, "yes"), (K.KernelName, 42),
                       (K.Unsupported, "i"), (K.Function, "nope"), (K.Address, "zz")):
        if isinstance(kind, cls):
            return value
    raise AssertionError(f"no bad value for the kind {kind!r}: add one here")


def apply_sample(s, name):
    _, args, kwargs = SAMPLES[name]
    return getattr(s, name)(*args, **kwargs)


def test_every_primitive_has_a_sample():
    assert set(SAMPLES) == set(PRIMITIVES)


def test_every_schedule_primitive_method_comes_from_the_table():
    not_primitives = {"build", "apply", "replay", "compose", "get_loops", "get_equivalent_variables"}
    public = {n for n, v in vars(allo.Schedule).items() if callable(v) and not n.startswith("_")}
    assert public - not_primitives == set(PRIMITIVES)
    for name, prim in PRIMITIVES.items():
        method = getattr(allo.Schedule, name)
        assert inspect.signature(method) == prim.signature()
        assert method.__doc__.startswith(prim.doc) and method.__module__ == "allo.schedule.schedule"
        assert getattr(allo.schedule.primitives, name) is prim.function


def test_upstream_signatures():
    s = allo.customize(gemm_i)
    expected = {"split": "(axis, factor)", "reorder": "(*axes)", "fuse": "(*axes)", "unroll": "(axis, factor=0)",
                "pipeline": "(axis, initiation_interval=1, rewind=False)", "parallel": "(axis)",
                "partition": "(target, partition_type='complete', dim=0, factor=0)",
                "reshape": "(target, shape)", "unfold": "(band_name, axes)", "inline": "(func_name=None)",
                "buffer_at": "(target, axis)", "reuse_at": "(target, axis)",
                "compute_at": "(from_loop, target_loop)", "to": "(target, dst, axis=None, depth=-1)",
                "dataflow": "(func_or_axis=None)", "reduce_tree": "(axis)",
                "config_op": "(op, impl='auto', latency=-1)"}  # not upstream: Vitis's config_op
    assert {name: str(inspect.signature(getattr(s, name))) for name in PRIMITIVES} == expected
    assert str(inspect.signature(s.compose)) == "(sched_or_kernel, id=None, instantiate=None)"
    assert "Arguments:" in s.split.__doc__ and "positive integer" in s.split.__doc__


@pytest.mark.parametrize("name, arg", [(n, a.name) for n, p in PRIMITIVES.items() for a in p.args
                                       if a.kind.in_signature])
def test_every_declared_argument_is_checked(name, arg):
    kernel, args, kwargs = SAMPLES[name]
    s = allo.customize(kernel)
    method = getattr(s, name)
    bound = inspect.signature(method).bind(*args, **kwargs)
    decl = next(a for a in PRIMITIVES[name].args if a.name == arg)
    bound.arguments[arg] = bad_value(decl.kind)
    text = str(s.module)
    with pytest.raises(allo.ScheduleError) as info:
        method(*bound.args, **bound.kwargs)
    assert str(info.value).startswith(f"{name}: argument '{arg}': "), str(info.value)
    assert str(s.module) == text and s.steps == []


@pytest.mark.parametrize("name", list(SAMPLES))
def test_replaying_a_step_reproduces_the_primitive(name):
    kernel = SAMPLES[name][0]
    s = allo.customize(kernel)
    apply_sample(s, name)
    assert [st.primitive for st in s.steps] == [name]
    again = allo.customize(kernel)
    again.replay(s.steps)
    assert str(again.module) == str(s.module) and again.steps == s.steps

    base = allo.customize(kernel)
    before = str(base.module)
    recording = allo.Schedule(base.ir, record_only=True)
    apply_sample(recording, name)
    assert str(base.module) == before, "a recording schedule changed the module"
    recipe = [(st.primitive, st.func, st.args, st.kwargs) for st in recording.steps]
    replayed = allo.customize(kernel)
    replayed.replay(recipe)
    assert str(replayed.module) == str(s.module)


def test_recorded_buffers_are_placeholders_for_replay():
    base = allo.customize(conv_i)
    rec = allo.Schedule(base.ir, record_only=True)
    window = rec.reuse_at(rec.reuse_at(rec.A, "y"), "x")
    assert window == K.BufferHandle("conv_i", "$1")
    s = allo.customize(conv_i)
    handles = s.replay(rec.steps)
    direct = allo.customize(conv_i)
    assert handles[1] == direct.reuse_at(direct.reuse_at(direct.A, "y"), "x")
    assert str(s.module) == str(direct.module)


def test_steps_record_checked_values_and_keywords_only_when_set():
    import numpy as np

    s = allo.customize(gemm_i)
    s.split("i", np.int64(4)).pipeline("j").pipeline("k", 1, rewind=True)
    s.partition(s.A, "CYCLIC", np.int32(2), 4)
    assert [str(st) for st in s.steps] == ["split('i', 4)  @gemm_i", "pipeline('j', 1)  @gemm_i",
                                           "pipeline('k', 1, rewind=True)  @gemm_i",
                                           "partition('A', 'cyclic', 2, 4)  @gemm_i"]
    assert type(s.steps[0].args[1]) is int


def test_function_level_api_checks_values_like_the_schedule():
    s = allo.customize(gemm_i)
    with pytest.raises(allo.ScheduleError) as on_schedule:
        s.unroll("k", -1)
    with pytest.raises(allo.ScheduleError) as on_func:
        allo.schedule.unroll(s.ir.func("gemm_i"), "k", -1)
    assert str(on_func.value) == str(on_schedule.value) == "unroll: argument 'factor': expected an integer >= 0, got -1"


def test_one_function_per_step():
    s = allo.customize(caller)
    s.reorder("scale:j", "i")  # a plain name is a loop of the function another argument names
    assert (s.steps[-1].func, s.steps[-1].args) == ("scale", ("j", "i"))
    with pytest.raises(allo.ScheduleError, match=r"reorder: argument 'axes': 'caller:j' is in function 'caller', "
                                                 r"but argument 'axes' \('scale:i'\) is in function 'scale'"):
        s.reorder("scale:i", "caller:j")
    with pytest.raises(allo.ScheduleError, match="reshape: argument 'target': 'C' is part of the signature of "
                                                 "'scale', which caller call"):
        s.reshape("scale:C", (64,))  # `callers` is derived from the module


def test_apply_and_replay_refuse_unknown_primitives_and_functions():
    s = allo.customize(gemm_i)
    with pytest.raises(allo.ScheduleError, match="unknown primitive 'tile'; primitives: split, reorder"):
        s.apply(Step("tile", "gemm_i", ("i",)))
    with pytest.raises(allo.ScheduleError, match="split: no function named 'nope'; functions: gemm_i"):
        s.replay([("split", "nope", ("i", 2), ())])
    with pytest.raises(allo.ScheduleError, match="split: "):
        s.replay([("split", "gemm_i", ("i",), ())])  # a step of the wrong arity
    assert s.steps == []
