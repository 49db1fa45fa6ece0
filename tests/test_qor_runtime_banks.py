"""Port pressure of accesses whose bank in one partitioned dimension is known only at run time
(Vitis reads every bank of that dimension and multiplexes, as the static RTL circuit does): accesses
that differ in a dimension whose bank is known use different banks; ones that agree there collide,
whatever their offsets in the run-time dimension."""
import allo
from allo import qor
from allo.ir.types import float32


def lanes_over_rows(T: float32[8, 8], out: float32[8, 8]):
    for i, k in allo.grid(8, 8):
        out[k, i] = T[i, k] * 2.0


def three_in_a_row(T: float32[4, 14], out: float32[4, 10]):
    for i, k in allo.grid(4, 10):
        out[i, k] = T[i, k] + T[i, k + 2] + T[i, k + 4]


def three_apart(T: float32[4, 14], out: float32[4, 10]):
    for i, k in allo.grid(4, 10):
        out[i, k] = T[i, k] + T[i, k + 1] + T[i, k + 2]


def _ii(s):
    return qor.estimate(s).loops[0].ii


def test_lanes_in_a_known_bank_dimension_do_not_collide():
    s = allo.customize(lanes_over_rows)
    s.split("i", 4)
    s.reorder("i.outer", "k", "i.inner")
    s.unroll("i.inner")
    s.pipeline("k")
    s.partition("T", allo.Partition.Cyclic, dim=1, factor=4)
    s.partition("T", allo.Partition.Cyclic, dim=2, factor=2)  # k % 2: a run-time bank
    s.partition("out", allo.Partition.Cyclic, dim=2, factor=4)
    assert _ii(s) == 1


def test_run_time_banks_collide_whatever_their_offsets():
    s = allo.customize(three_in_a_row)
    s.pipeline("k")
    s.partition("T", allo.Partition.Cyclic, dim=2, factor=2)
    assert _ii(s) == 2  # k, k + 2, k + 4: each read occupies a port of both banks, two ports
    s = allo.customize(three_apart)
    s.pipeline("k")
    s.partition("T", allo.Partition.Cyclic, dim=2, factor=2)
    assert _ii(s) == 2  # k, k + 1, k + 2: also every bank (the circuit runs this at II 2 too)
