"""Element types of the QoR designs (tests/qor/designs.py, baselines.py): float32, as published, or
int32, their integer form for backends without floats (the static RTL). These helpers give each form
its constants, inputs and exact reference arithmetic.

Example::

    alpha = constant(int32, 1.5)  # 3: the integer stand-in of the float constant 1.5
    A = inputs(int32, rng, 4, 4)  # small integers; floats in [-1, 1) for float32
"""
import numpy as np

from allo.ir.types import Float


def f32(rng, *shape):
    return rng.uniform(-1, 1, size=shape).astype(np.float32)


# The integer stand-ins of the float constants (operations keep their kind: a multiply stays one).
INT_CONSTANTS = {0.1: 3, 0.2: 3, 0.5: 2, 1.2: 2, 1.5: 3}


def int_form(T) -> bool:
    """T is float32 (the published designs) or int32 (their integer form)."""
    return not isinstance(T, Float)


def constant(T, value):
    """The constant `value` of the float design, or its integer stand-in."""
    return INT_CONSTANTS[value] if int_form(T) else value


def zero_one(T):
    return (0, 1) if int_form(T) else (0.0, 1.0)


def inputs(T, rng, *shape, lo=-8, hi=8):
    """Inputs: floats in [-1, 1), or integers in [lo, hi]."""
    if int_form(T):
        return rng.integers(lo, hi + 1, size=shape).astype(np.int32)
    return f32(rng, *shape)


def exact(T, *arrays):
    """The arrays as the reference computes with them: int64 (exact, wrapped at the end) or float64."""
    return [np.asarray(a).astype(np.int64 if int_form(T) else np.float64) for a in arrays]


def stored(T, x):
    """A reference value as the design stores it: integers wrap to int32."""
    return np.asarray(x).astype(np.int64).astype(np.int32) if int_form(T) else x


def trunc_div(a, b):
    """Integer division truncating toward zero, as allo's `/` on ints (C semantics)."""
    a, b = np.asarray(a), np.asarray(b)
    return np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))


def zeros(T, *shape):
    return np.zeros(shape, np.int32 if int_form(T) else np.float32)
