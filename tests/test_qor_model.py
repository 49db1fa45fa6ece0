"""Unit tests of the QoR model (allo.qor): II from recurrences, memory ports and partitions,
dependence distances, loop flattening and trip counts, dataflow, calls, resource counting, the
report object and its entry points."""
import json
import pickle

import numpy as np
import pytest

import allo
from allo import Partition, qor
from allo.ir import nodes as N
from allo.ir import visit as V
from allo.ir.types import float32, int32
from allo.qor.affine import MAY, Aff, dependence_distance
from allo.qor.tables import Tables, bram_18k

L = 128  # >= 64: Vitis pipelines innermost loops of this trip count on its own


def acc_f(A: float32[L]) -> float32[1]:
    out: float32[1] = 0.0
    s: float32 = 0.0
    for i in range(L):
        s += A[i]
    out[0] = s
    return out


def acc_i(A: int32[L]) -> int32[1]:
    out: int32[1] = 0
    s: int32 = 0
    for i in range(L):
        s += A[i]
    out[0] = s
    return out


def scale(A: float32[16, 8]) -> float32[16, 8]:
    B: float32[16, 8] = 0.0
    for i in range(16):
        for j in range(8):
            B[i, j] = A[i, j] * 2.0
    return B


# ----------------------------------------------------------------------------- II: recurrences
def test_float_accumulation_recurrence_auto_vs_explicit():
    auto = qor.estimate(allo.customize(acc_f)).loop("i")
    assert auto.pipelined and auto.ii == 7 and auto.target_ii == 1  # default fadd: 6 cycles + write
    assert "loop-carried dependence on 's'" in auto.reason and "automatically" in auto.reason
    s = allo.customize(acc_f)
    s.pipeline("i")
    explicit = qor.estimate(s).loop("i")
    assert explicit.ii == 4  # a pipeline pragma makes Vitis bind the 3-cycle adder on the recurrence
    assert qor.estimate(allo.customize(acc_i)).loop("i").ii == 1  # integer add: one cycle


def test_latency_formula_of_a_pipelined_loop():
    r = qor.estimate(allo.customize(acc_f))
    row = r.loop("i")
    assert row.latency == (row.trip_count - 1) * row.ii + row.iteration_latency + 1
    assert r.latency_cycles > row.latency


# ----------------------------------------------------------------------------- II: ports, partitions
@pytest.mark.parametrize("part, ii", [(None, 4), ((Partition.Complete, 2, 0), 1), ((Partition.Cyclic, 2, 2), 2),
                                      ((Partition.Cyclic, 2, 4), 1), ((Partition.Block, 2, 2), 2),
                                      ((Partition.Cyclic, 1, 4), 4)])
def test_port_limited_ii_follows_partitioning(part, ii):
    s = allo.customize(scale)
    s.pipeline("i")  # j (8 lanes) unrolled: 8 reads of A, 8 writes of B per iteration
    if part is not None:
        kind, dim, factor = part
        s.partition(s.A, kind, dim=dim, factor=factor)
        s.partition(s.B, kind, dim=dim, factor=factor)
    row = qor.estimate(s).loop("i")
    assert row.ii == ii
    if ii > 1:
        assert "memory ports" in row.reason and "one bank of" in row.reason


def test_throughput_driven_partition_of_a_local_array():
    def k(A: float32[16, 8]) -> float32[16, 8]:
        T: float32[16, 8] = 0.0
        B: float32[16, 8] = 0.0
        for i in range(16):
            for j in range(8):
                T[i, j] = A[i, j] + 1.0
            for j2 in range(8):
                B[i, j2] = T[i, j2]
        return B

    s = allo.customize(k)
    s.partition(s.A, Partition.Complete, dim=2)
    s.partition(s.B, Partition.Complete, dim=2)
    s.pipeline("i")
    row = qor.estimate(s).loop("i")
    assert row.ii == 1 and "auto-partitioned 'T' dim 2" in row.reason


def test_m_axi_bundle_serializes_reads():
    def k(A: float32[L], B: float32[L], C: float32[L]):
        for i in range(L):
            C[i] = A[i] + B[i]

    s = allo.customize(k)
    shared = qor.estimate(s, target="vitis_hls", bundle="gmem").loop("i")
    assert shared.ii == 2 and "m_axi bundle 'gmem'" in shared.reason
    assert qor.estimate(s, target="vitis_hls").loop("i").ii == 2  # Vitis's default: one shared bundle
    assert qor.estimate(s, target="vitis_hls", bundle="separate").loop("i").ii == 1
    assert qor.estimate(s, target="vitis_hls", bundle={"A": "x", "B": "x", "C": "y"}).loop("i").ii == 2
    assert qor.estimate(s).loop("i").ii == 1  # vhls: separate memories


# ----------------------------------------------------------------------------- dependences
def _a(*terms, const=0):
    return Aff(dict(terms), const)


@pytest.mark.parametrize("store, load, loops, want", [
    ((_a(),), (_a(),), [(1, 10)], 1),                                  # same element every iteration
    ((_a((1, 1)),), (_a((1, 1), const=-1),), [(1, 10)], 1),            # A[i] = f(A[i-1])
    ((_a((1, 1)),), (_a((1, 1), const=-2),), [(1, 10)], 2),            # A[i] = f(A[i-2])
    ((_a((1, 1)),), (_a((1, 1), const=1),), [(1, 10)], None),          # reads ahead: no RAW
    ((_a((1, 1)),), (_a((1, 1)),), [(1, 10)], None),                  # own element only
    ((_a((1, 1)),), (_a((2, 1)),), [(1, 10), (2, 5)], MAY),            # B[i] vs B[k]: cannot tell
    ((_a((1, 1)),), (_a((1, 1)),), [(1, 8), (2, 200)], 8),             # inner loop only: back after 8
    ((_a((2, 1)),), (_a((2, 1)),), [(1, 8), (2, 200)], 1),             # outer-only address: next iteration
    ((_a((1, 1)), _a(const=3)), (_a((1, 1)), _a(const=4)), [(1, 8)], None),  # different columns
])
def test_dependence_distance(store, load, loops, want):
    assert dependence_distance(store, load, loops) == want


def test_flattened_recurrence_distance_is_the_inner_trip():
    """symm's row buffer: v4[j] updated for every k: the same element returns after 8 iterations
    of the flattened (k, j/30) loop, so an adder recurrence does not limit II=1."""
    assert dependence_distance((_a((1, 30), const=5),), (_a((1, 30), const=5),), [(1, 8), (2, 200)]) == 8
    assert dependence_distance((_a((1, 30), const=5),), (_a((1, 30), const=5),), [(2, 200), (1, 8)]) == 1


# ----------------------------------------------------------------------------- loops
def test_perfect_nest_flattens_and_triangular_does_not():
    def rect(A: float32[20, 100]) -> float32[20, 100]:
        B: float32[20, 100] = 0.0
        for i in range(20):
            for j in range(100):
                B[i, j] = A[i, j] * 3.0
        return B

    def tri(A: float32[100, 100]) -> float32[100, 100]:
        B: float32[100, 100] = 0.0
        for i in range(100):
            for j in range(i + 1):
                B[i, j] = A[i, j] * 3.0
        return B

    r = qor.estimate(allo.customize(rect)).loop("l_i_l_j")
    assert r.trip_count == 2000 and r.ii == 1 and "flattened" in r.reason
    t = qor.estimate(allo.customize(tri))
    assert t.loop("i").trip_count == 100 and not t.loop("i").pipelined
    assert t.loop("j").trip_count == 100  # worst case of range(i + 1), as Vitis reports


def test_small_innermost_loop_is_not_pipelined_automatically():
    def k(A: float32[40, 8]) -> float32[40, 8]:
        B: float32[40, 8] = 0.0
        for i in range(40):
            for j in range(8):
                B[i, j] = A[i, j] + 1.0
        return B

    r = qor.estimate(allo.customize(k))
    assert not r.loop("j").pipelined and r.loop("i").children[0].name == "l_j"


def test_full_unroll_outside_a_pipeline():
    def k(A: float32[8]) -> float32[8]:
        B: float32[8] = 0.0
        for i in range(8):
            B[i] = A[i] * 2.0
        return B

    s = allo.customize(k)
    s.partition(s.A)
    s.partition(s.B)
    s.unroll("i")
    r = qor.estimate(s)
    assert not any(row.name == "l_i" for row in r.rows())
    assert r.latency_cycles < 20


# ----------------------------------------------------------------------------- functions, dataflow
def _two_stage(stream, reverse=True):
    N_ = 256

    @allo.kernel(template="T")
    def produce(A: "T[N_]", out: "T[N_]"):
        for i in range(N_):
            out[i] = A[i] * 2.0

    @allo.kernel(template="T")
    def consume(X: "T[N_]", Y: "T[N_]"):
        for i in range(N_):
            Y[i] = X[i] + 1.0

    @allo.kernel(template="T")
    def consume_rev(X: "T[N_]", Y: "T[N_]"):
        for i in range(N_):
            Y[i] = X[N_ - 1 - i] + 1.0

    @allo.kernel(template="T")
    def top(A: "T[N_]") -> "T[N_]":
        mid: T[N_]
        y: T[N_]
        produce[T](A, mid)
        consume[T](mid, y)
        return y

    @allo.kernel(template="T")
    def top_rev(A: "T[N_]") -> "T[N_]":
        mid: T[N_]
        y: T[N_]
        produce[T](A, mid)
        consume_rev[T](mid, y)
        return y

    f = top_rev if reverse and not stream else top
    s = allo.customize(f, instantiate=[float32])
    s.dataflow(f.__name__ if hasattr(f, "__name__") else "top")
    if stream:
        s.to(s.mid, "consume")
    return s


def test_dataflow_pipo_vs_fifo():
    pipo = qor.estimate(_two_stage(False))
    fifo = qor.estimate(_two_stage(True))
    stages = [r for r in pipo.loops if r.kind == "call"]
    assert [r.name for r in stages] == ["produce", "consume_rev"]
    assert pipo.latency_cycles >= sum(r.latency for r in stages)  # a ping-pong buffer: one after the other
    assert fifo.latency_cycles < 0.6 * pipo.latency_cycles  # a FIFO: side by side
    assert fifo.ii <= max(r.latency for r in stages) + 1


def test_dataflow_channel_accessed_in_order_is_a_fifo():
    """UG1399: an array channel written and read once in sequential order becomes a FIFO without
    `s.to` (the consumer overlaps the producer); read in another order it stays a ping-pong."""
    auto = qor.estimate(_two_stage(False, reverse=False))
    fifo = qor.estimate(_two_stage(True))
    pipo = qor.estimate(_two_stage(False, reverse=True))
    assert abs(auto.latency_cycles - fifo.latency_cycles) <= 2
    assert auto.latency_cycles < 0.6 * pipo.latency_cycles


def test_small_loop_free_function_is_inlined():
    def add1(x: float32) -> float32:
        return x + 1.0

    def k(A: float32[L]) -> float32[L]:
        B: float32[L] = 0.0
        for i in range(L):
            B[i] = add1(A[i])
        return B

    r = qor.estimate(allo.customize(k))
    assert r.loop("i").pipelined and not any(row.kind == "call" for row in r.rows())


# ----------------------------------------------------------------------------- resources
def test_operator_resources_and_sharing():
    t = Tables(3.33)
    fmul, fadd = t.float_op("fmul", 32), t.float_op("fadd", 32)
    assert (fmul.latency, fmul.dsp, fadd.latency, fadd.fast, fadd.dsp) == (3, 3, 6, 3, 2)
    assert Tables(10.0).float_op("fadd", 32).latency == 3 and Tables(2.5).float_op("fadd", 32).dsp == 0
    assert t.int_op("mul", 32, 32, 32).dsp == 4 and t.int_op("mul", 16, 16, 16).dsp == 1
    assert t.int_op("mul", 128, 128, 128).dsp > 16  # wider than 64 bits: more DSP tiles, no error
    s = allo.customize(scale)
    s.pipeline("i")
    s.partition(s.A, Partition.Complete, dim=2)
    s.partition(s.B, Partition.Complete, dim=2)
    assert qor.estimate(s).resources["DSP"] == 8 * 3  # 8 lanes of fmul at II=1
    s2 = allo.customize(scale)
    s2.pipeline("i", initiation_interval=2)
    s2.partition(s2.A, Partition.Complete, dim=2)
    s2.partition(s2.B, Partition.Complete, dim=2)
    assert qor.estimate(s2).resources["DSP"] == 4 * 3  # II=2: each multiplier serves two lanes


def test_memory_resources():
    assert bram_18k(1024, 32) == 2 and bram_18k(512, 32) == 1 and bram_18k(16384, 1) == 1

    def k(A: float32[4096]) -> float32[4096]:
        T: float32[4096] = 0.0
        for i in range(4096):
            T[i] = A[i] + 1.0
        return T

    def res(**attrs):
        s = allo.customize(k)
        for key, v in attrs.items():
            [b for b in V.iter_buffers(s.ir.func("k")) if b.name == "T"][0].attrs[key] = v
        return qor.estimate(s).resources

    base = res()
    assert base["BRAM_18K"] == 0  # T is the output argument: an interface, not a local memory
    s = allo.customize(acc_f)
    assert qor.estimate(s).resources["BRAM_18K"] == 0


def test_local_array_resources_by_storage():
    def k(A: float32[2048]) -> float32[1]:
        T: float32[2048] = 0.0
        out: float32[1] = 0.0
        for i in range(2048):
            T[i] = A[i] * 2.0
        for j in range(2048):
            out[0] += T[j]
        return out

    def res(binding=None, part=None):
        s = allo.customize(k)
        t = [b for b in V.iter_buffers(s.ir.func("k")) if b.name == "T"][0]
        if binding:
            t.attrs["bind_storage"] = {"resource": binding}
        if part:
            s.partition(s.T, Partition.Cyclic, dim=1, factor=part)
        return qor.estimate(s).resources

    assert res()["BRAM_18K"] == bram_18k(2048, 32) == 4
    assert res("URAM")["URAM"] == 1 and res("URAM")["BRAM_18K"] == 0
    assert res("LUTRAM")["BRAM_18K"] == 0 and res("LUTRAM")["LUT"] > res()["LUT"]
    assert res(part=4)["BRAM_18K"] == 4 * bram_18k(512, 32)


def test_bind_storage_single_port_and_no_auto_partition():
    def k(A: float32[L]) -> float32[64]:
        T: float32[L] = 0.0
        B: float32[64] = 0.0
        for i in range(L):
            T[i] = A[i]
        for j in range(64):
            B[j] = T[2 * j] + T[2 * j + 1]
        return B

    def j_row(storage=None):
        s = allo.customize(k)
        if storage:
            [b for b in V.iter_buffers(s.ir.func("k")) if b.name == "T"][0].attrs["bind_storage"] = storage
        return qor.estimate(s).loop("j")

    assert j_row().ii == 1  # two reads of a dual-port BRAM
    one = j_row({"resource": "BRAM", "storage_type": "ram_1p"})
    assert one.ii == 2 and "1 port" in one.reason
    assert j_row({"resource": "URAM", "storage_type": "ram_2p"}).ii == 1


# ----------------------------------------------------------------------------- robustness
class Mystery(N.Expr):
    """An expression node kind the estimator has never seen (e.g. from another branch)."""

    def __init__(self, operand):
        self.operand, self.type, self.loc = operand, operand.type, None


def test_unknown_expression_nodes_are_tolerated():
    s = allo.customize(scale)
    st = [x for x in V.walk_stmts(s.ir.func("scale").body) if isinstance(x, N.Store) and x.buf.name == "B"][0]
    st.value = Mystery(st.value)
    r = qor.estimate(s)
    assert r.latency_cycles > 16 * 8


def test_wide_integer_types_are_estimated():
    class Wide:
        bits = 128

    t = Tables(3.33)
    from allo.qor.body import op_cost

    e = N.BinOp("mul", N.Const(3, Wide()), N.Const(5, Wide()), Wide())
    assert op_cost(e, t).dsp >= 20


# ----------------------------------------------------------------------------- report and API
def test_report_object_round_trips():
    s = allo.customize(scale)
    s.pipeline("i")
    r = qor.estimate(s, clock_ns=4.0, part="xcu250")
    assert r.part.startswith("xcu250") and r.clock_ns == 4.0 and r.source == "estimate"
    assert r.latency_ms == pytest.approx(r.latency_cycles * 4.0e-6)
    assert set(r.resources) == {"BRAM_18K", "DSP", "FF", "LUT", "URAM"}
    assert 0 < r.utilization["DSP"] < 100
    text = str(r)
    assert "Latency:" in text and "l_i" in text and "Resources:" in text
    d = json.loads(r.to_json())
    assert d["latency_cycles"] == r.latency_cycles and d["loops"][-1]["name"] == "l_i"
    assert qor.QoRReport.from_dict(d).to_dict() == r.to_dict()
    assert pickle.loads(pickle.dumps(r)).to_dict() == r.to_dict()
    with pytest.raises(KeyError, match="loops: .*l_i"):
        r.loop("nope")


def test_entry_points_agree_and_ir_is_picklable():
    s = allo.customize(scale)
    s.pipeline("i")
    want = qor.estimate(s).to_dict()
    assert allo.report(s).to_dict() == want
    assert s.build(target="vhls").report().to_dict() == want
    ir = pickle.loads(pickle.dumps(s.ir))  # what a design-space explorer sends to workers
    assert qor.estimate(ir).to_dict() == want
    assert qor.estimate(acc_f).loop("i").ii == 7  # a plain kernel: customized first
    m = s.build(target="vitis_hls")
    assert m.report().target == "vitis_hls"


def test_bad_options_are_clear_errors():
    s = allo.customize(scale)
    with pytest.raises(allo.AlloError, match="unknown part 'xc9999'"):
        qor.estimate(s, part="xc9999")
    with pytest.raises(allo.AlloError, match="clock_ns"):
        qor.estimate(s, clock_ns=0)
    with pytest.raises(allo.AlloError, match="unknown target"):
        qor.estimate(s, target="rtl")
    with pytest.raises(allo.AlloError, match="cannot estimate"):
        qor.estimate(42)


def test_faster_clock_needs_more_cycles():
    slow = qor.estimate(allo.customize(acc_f), clock_ns=10.0).loop("i")
    fast = qor.estimate(allo.customize(acc_f), clock_ns=2.5).loop("i")
    assert slow.ii < fast.ii
    assert np.isclose(qor.estimate(acc_f, clock_ns=10.0).latency_ms,
                      qor.estimate(acc_f, clock_ns=10.0).latency_cycles * 1e-5)


# ----------------------------------------------------------------------------- properties
from hypothesis import given, settings
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=int(__import__("os").environ.get("ALLO_FUZZ_EXAMPLES", "3")), deadline=None)
@given(rows=st.integers(2, 40), cols=st.integers(1, 24), factor=st.integers(1, 8), ii=st.integers(1, 3))
def test_port_model_and_latency_formula_property(rows, cols, factor, ii):
    """Pipelined rows of `cols` lanes over arrays split cyclically by `factor`: each bank serves
    ceil(cols / factor) reads (and as many writes) per iteration through 2 ports, so
    II = max(target, ceil(ceil(cols / factor) / 2)), and latency = (rows - 1) * II + depth + 1."""

    def k(A: float32[rows, cols]) -> float32[rows, cols]:
        B: float32[rows, cols] = 0.0
        for i in range(rows):
            for j in range(cols):
                B[i, j] = A[i, j] * 2.0
        return B

    s = allo.customize(k)
    s.pipeline("i", initiation_interval=ii)
    s.partition(s.A, Partition.Cyclic, dim=2, factor=factor)
    s.partition(s.B, Partition.Cyclic, dim=2, factor=factor)
    row = qor.estimate(s).loop("i")
    per_bank = -(-cols // factor) if factor < cols else 1
    assert row.ii == max(ii, -(-per_bank // 2))
    assert row.latency == (rows - 1) * row.ii + row.iteration_latency + 1
    assert row.trip_count == rows
