"""allo.dataflow checks: deadlocks, streams with several producers, put/get counts (messages name
the kernel instances and the streams)."""
import numpy as np
import pytest

import allo.dataflow as df
from allo import AlloError, DataflowError
from allo.ir.types import Stream, int32


def test_deadlock_names_blocked_instances_streams_and_state():
    @df.region()
    def top(A: int32[4], B: int32[4]):
        first: Stream[int32, 2]
        second: Stream[int32, 2]

        @df.kernel(mapping=[1], args=[A])
        def producer(a: int32[4]):
            for i in range(4):
                first.put(a[i])
            for i in range(4):
                second.put(a[i])

        @df.kernel(mapping=[1], args=[B])
        def consumer(b: int32[4]):
            for i in range(4):
                b[i] = second.get()
            for i in range(4):
                b[i] += first.get()

    A, B = np.arange(4, dtype=np.int32), np.zeros(4, np.int32)
    with pytest.raises(DataflowError) as e:
        df.build(top, target="simulator")(A, B)
    msg = str(e.value)
    assert "deadlock in dataflow region 'top'" in msg
    assert "producer_0: put() on stream 'first' (full, 2 of 2 item(s))" in msg
    assert "consumer_0: get() on stream 'second' (empty, 0 of 2 item(s))" in msg
    # the same program with deeper FIFOs runs, and the sequential build always did
    B2 = np.zeros(4, np.int32)
    df.build(top, target="llvm")(A, B2)
    np.testing.assert_array_equal(B2, 2 * A)


def test_two_producers_on_one_stream():
    @df.region()
    def top(A: int32[4], B: int32[4]):
        pipe: Stream[int32, 4]

        @df.kernel(mapping=[2], args=[A])
        def producer(a: int32[4]):
            p = df.get_pid()
            for i in range(2):
                pipe.put(a[p * 2 + i])

        @df.kernel(mapping=[1], args=[B])
        def consumer(b: int32[4]):
            for i in range(4):
                b[i] = pipe.get()

    with pytest.raises(DataflowError, match=r"stream 'pipe' has 2 producers \(producer_0, producer_1\)") as e:
        df.build(top, target="simulator")
    assert "test_dataflow_errors.py" in str(e.value)  # points at the stream's declaration


def test_put_get_count_mismatch_names_stream_and_instances():
    @df.region()
    def top(A: int32[8], B: int32[8]):
        pipe: Stream[int32, 2][2]

        @df.kernel(mapping=[2], args=[A])
        def producer(a: int32[8]):
            p = df.get_pid()
            for i in range(4):
                pipe[p].put(a[p * 4 + i])

        @df.kernel(mapping=[2], args=[B])
        def consumer(b: int32[8]):
            q = df.get_pid()
            for i in range(3):
                b[q * 4 + i] = pipe[q].get()

    with pytest.raises(DataflowError, match=r"stream 'pipe\[0\]': producer producer_0 puts 4 item\(s\) but "
                                            r"consumer consumer_0 gets 3"):
        df.customize(top)


def test_missing_consumer_and_bad_stream_index():
    @df.region()
    def lonely(A: int32[4]):
        pipe: Stream[int32, 4]

        @df.kernel(mapping=[1], args=[A])
        def producer(a: int32[4]):
            for i in range(4):
                pipe.put(a[i])

    with pytest.raises(DataflowError, match=r"producer_0 put\(\)s into it but no kernel instance reads it"):
        df.customize(lonely)

    @df.region()
    def outside(A: int32[4]):
        pipe: Stream[int32, 4][2]

        @df.kernel(mapping=[2], args=[A])
        def k(a: int32[4]):
            p = df.get_pid()
            pipe[p + 1].put(a[p])
            a[p] = pipe[p].get()

    with pytest.raises(AlloError, match=r"stream pipe\[2\] is outside the grid \[2\]"):
        df.customize(outside)


def test_bad_targets_and_get_pid_outside_a_kernel():
    @df.region()
    def top(A: int32[4]):
        @df.kernel(mapping=[1], args=[A])
        def k(a: int32[4]):
            a[0] = 1

    with pytest.raises(AlloError, match="AI Engine"):
        df.build(top, target="aie")
    with pytest.raises(AlloError, match="only has a meaning inside a kernel"):
        df.get_pid()
