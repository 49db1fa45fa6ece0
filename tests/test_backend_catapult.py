"""target="catapult" (allo/backend/catapult): Catapult HLS C++ from the HLS emitter's IR in the
Catapult dialect, the project files, and the runs that need Catapult. The C simulation is checked
against numpy with stand-in Algorithmic C headers (empty files: the kernels here use native C types
only), which exercises the real g++ flow of kernel.cpp + host.cpp."""
import re

import numpy as np
import pytest

import allo
from allo.errors import VendorError
from allo.ir.types import Fixed, Int, float32, int32


def gemm(A: int32[8, 8], B: int32[8, 8]) -> int32[8, 8]:
    C: int32[8, 8] = 0
    for i, j, k in allo.grid(8, 8, 8, name="C"):
        C[i, j] += A[i, k] * B[k, j]
    return C


def scaled(a: Int(5)[4], b: Fixed(12, 4)) -> Fixed(16, 6)[4]:
    c: Fixed(16, 6)[4]
    for i in range(4):
        c[i] = a[i] * b
    return c


def saxpy(x: float32[16], y: float32[16], alpha: float32) -> float32[16]:
    z: float32[16]
    for i in range(16):
        z[i] = alpha * x[i] + y[i]
    return z


@pytest.fixture
def fake_mgc_home(tmp_path, monkeypatch):
    inc = tmp_path / "mgc" / "shared" / "include"
    inc.mkdir(parents=True)
    for name in ("ac_int.h", "ac_fixed.h", "ac_channel.h"):
        (inc / name).write_text("// stand-in: the kernels of this test use native C types only\n")
    monkeypatch.setenv("MGC_HOME", str(tmp_path / "mgc"))
    return tmp_path / "mgc"


def test_pragmas_types_and_no_vitis_spelling():
    s = allo.customize(gemm)
    s.pipeline("j")
    s.unroll("k", factor=4)
    s.partition(s.A, dim=1)
    code = s.build(target="catapult").hls_code
    assert "#include <ac_int.h>" in code and "#include <ac_fixed.h>" in code and "#include <ac_channel.h>" in code
    assert "#pragma hls_design top\nvoid gemm(int32_t A[8][8], int32_t B[8][8], int32_t C[8][8]) {" in code
    assert re.search(r"\n\s+#pragma hls_pipeline_init_interval 1\n\s+l_j: for \(int j = 0; j < 8; j\+\+\) \{\n", code)
    assert "#pragma hls_unroll 4" in code
    assert "#pragma HLS" not in code and "ap_int" not in code and "allo_ap.h" not in code

    s2 = allo.customize(gemm)
    s2.unroll("k")
    assert "#pragma hls_unroll yes" in s2.build(target="catapult").hls_code
    code = allo.customize(scaled).build(target="catapult").hls_code
    assert "void scaled(ac_int<5, true> a[4], ac_fixed<12, 8, true> b, ac_fixed<16, 10, true> c[4])" in code


def test_project_files(tmp_path):
    s = allo.customize(gemm)
    mod = s.build(target="catapult", mode="csyn", project=str(tmp_path), clock_ns=5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["host.cpp", "kernel.cpp", "kernel.h", "run.tcl"]
    assert (tmp_path / "kernel.cpp").read_text() == mod.hls_code
    assert "void gemm(int32_t A[8][8], int32_t B[8][8], int32_t C[8][8]);" in (tmp_path / "kernel.h").read_text()
    tcl = (tmp_path / "run.tcl").read_text()
    steps = ["go analyze", "directive set -DESIGN_HIERARCHY gemm", "go compile", "go libraries",
             "directive set -CLOCKS {clk {-CLOCK_PERIOD 5.0}}", "go assembly", "go extract"]
    assert [tcl.index(x) for x in steps] == sorted(tcl.index(x) for x in steps)
    assert "host.cpp" not in tcl  # synthesis only


def test_tools_absent_are_clear_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("MGC_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `catapult` on PATH
    s = allo.customize(gemm)
    with pytest.raises(allo.BackendError, match="catapult csyn needs Siemens Catapult HLS: set MGC_HOME"):
        s.build(target="catapult", mode="csyn", project=str(tmp_path / "p"))()
    mod = s.build(target="catapult", mode="csim", project=str(tmp_path / "q"))
    A = np.ones((8, 8), np.int32)
    with pytest.raises(allo.BackendError, match="catapult csim needs Siemens Catapult HLS: set MGC_HOME"):
        mod(A, A)
    with pytest.raises(allo.BackendError, match="build with mode='csim'"):
        s.build(target="catapult")(A, A)
    with pytest.raises(allo.BackendError, match="unknown mode 'hw'"):
        s.build(target="catapult", mode="hw")
    monkeypatch.setenv("MGC_HOME", str(tmp_path / "nowhere"))
    with pytest.raises(allo.BackendError, match=r"Algorithmic C headers are not in .*nowhere"):
        mod(A, A)


def test_csim_matches_numpy(fake_mgc_home, tmp_path):
    rng = np.random.default_rng(7)
    A, B = (rng.integers(-50, 50, (8, 8)).astype(np.int32) for _ in range(2))
    s = allo.customize(gemm)
    s.pipeline("j")
    mod = s.build(target="catapult", mode="csim", project=str(tmp_path / "gemm"))
    np.testing.assert_array_equal(mod(A, B), A @ B)
    C = np.zeros((8, 8), np.int32)  # upstream's convention: the result written into a trailing buffer
    mod(A, B, C)
    np.testing.assert_array_equal(C, A @ B)

    x, y = rng.standard_normal(16).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    z = allo.customize(saxpy).build(target="catapult", mode="csim")(x, y, np.float32(0.5))
    np.testing.assert_allclose(z, np.float32(0.5) * x + y, rtol=1e-6)


def test_refused_constructs_name_the_kernel():
    def bits(A: int32[4]) -> int32[4]:
        B: int32[4] = 0
        for i in range(4):
            B[i] = A[i][0:4]
        return B

    with pytest.raises(VendorError) as info:
        allo.customize(bits).build(target="catapult")
    assert "test_backend_catapult.py:" in str(info.value) and "needs `ap_uint`" in str(info.value)
    assert "build it for target='vhls'" in str(info.value)


def test_vitis_text_is_unchanged_by_the_dialect():
    s = allo.customize(gemm)
    s.pipeline("j")
    s.partition(s.A, dim=1)
    code = s.build(target="vhls").hls_code
    assert "#pragma HLS pipeline II=1" in code and "#pragma HLS array_partition variable=A complete dim=1" in code
    assert "hls_pipeline_init_interval" not in code and "ac_int" not in code
