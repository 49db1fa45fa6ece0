"""The real Vitis HLS flow: run.tcl per mode/part/clock, a clear error without vitis_hls, and the
csynth report parsers (on an XML written from the artifact's published per-loop atax report, and
on that report's text table) producing the same QoRReport as the estimator."""
import os

import numpy as np
import pytest

import allo
from allo import qor
from allo.backend.hls.vitis import FLOW
from allo.ir.types import float32
from allo.qor.vitis import parse_csynth_rpt, parse_csynth_xml
from tests.qor import published


def vadd(A: float32[256], B: float32[256]) -> float32[256]:
    C: float32[256] = 0.0
    for i in range(256):
        C[i] = A[i] + B[i]
    return C


@pytest.mark.parametrize("mode", ["csim", "csyn", "cosim", "impl", None])
def test_run_tcl_honours_mode_part_and_clock(mode, tmp_path):
    s = allo.customize(vadd)
    hls = s.build(target="vhls", mode=mode, project=str(tmp_path / "p"), part="xcu250", clock_ns=4.0)
    tcl = hls.tcl
    assert "set_part {xcu250-figd2104-2L-e}" in tcl and "create_clock -period 4 -name default" in tcl
    steps = [ln.split()[0] for ln in tcl.splitlines() if ln.split() and ln.split()[0].endswith("_design")]
    assert steps == [step.split()[0] for step in FLOW[mode]]
    if mode is not None:
        assert (tmp_path / "p" / "run.tcl").read_text() == tcl
    defaults = s.build(target="vitis_hls").tcl
    assert "set_part {xcu280-fsvh2892-2L-e}" in defaults and "-period 3.33" in defaults
    assert "-flow_target vitis" in defaults


def test_bad_part_or_clock_is_an_error():
    s = allo.customize(vadd)
    with pytest.raises(allo.AlloError, match="clock_ns"):
        s.build(target="vhls", clock_ns=-1)
    with pytest.raises(allo.AlloError, match="part"):
        s.build(target="vhls", part="")


def test_synthesis_modes_need_vitis(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no vitis_hls here
    s = allo.customize(vadd)
    for mode in ("csyn", "impl", "cosim"):
        hls = s.build(target="vhls", mode=mode, project=str(tmp_path / mode))
        args = () if mode != "cosim" else (np.ones(256, np.float32), np.ones(256, np.float32))
        with pytest.raises(allo.AlloError, match="vitis_hls is not on PATH") as e:
            hls(*args)
        assert str(tmp_path / mode) in str(e.value)
    with pytest.raises(allo.AlloError, match="without arguments"):
        s.build(target="vhls", mode="csyn", project=str(tmp_path / "x"))(np.ones(256, np.float32))


def test_synthesis_runs_a_fake_vitis_and_reads_its_report(tmp_path, monkeypatch):
    """With a `vitis_hls` on PATH, calling a csyn module runs it in the project and returns the
    report it wrote (here a stand-in script writing a csynth.xml)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "vitis_hls"
    fake.write_text("#!/bin/sh\nmkdir -p out.prj/solution1/syn/report\n"
                    f"cat > out.prj/solution1/syn/report/vadd_csynth.xml <<'EOF'\n{_xml('vadd', 300, 301)}\nEOF\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    hls = allo.customize(vadd).build(target="vhls", mode="csyn", project=str(tmp_path / "p"))
    est = hls.report()
    assert est.source == "estimate"
    r = hls()
    assert r.source == "vitis" and r.latency_cycles == 300 and r.ii == 301
    assert hls.report().source == "vitis" and hls.report(source="estimate").source == "estimate"
    assert allo.report(hls).source == "vitis"


def _loop(name, trip, lat, ii=None, depth=None, it=None, inner=""):
    pipe = f"<PipelineII>{ii}</PipelineII><PipelineDepth>{depth}</PipelineDepth>" if ii else \
        f"<IterationLatency>{it}</IterationLatency>"
    return (f"<{name}><Name>{name}</Name><TripCount>{trip}</TripCount><Latency>{lat}</Latency>"
            f"<AbsoluteTimeLatency>{lat * 2.5} ns</AbsoluteTimeLatency>{pipe}{inner}</{name}>")


def _xml(top, latency, interval, loops="", res=(2, 243, 56087, 42717, 0), clock=2.5):
    b, d, ff, lut, u = res
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<profile>
  <ReportVersion><Version>2022.1.2</Version></ReportVersion>
  <UserAssignments><unit>ns</unit><ProductFamily>virtexuplus</ProductFamily>
    <Part>xcu280-fsvh2892-2L-e</Part><TopModelName>{top}</TopModelName>
    <TargetClockPeriod>{clock}</TargetClockPeriod><ClockUncertainty>0.68</ClockUncertainty></UserAssignments>
  <PerformanceEstimates>
    <SummaryOfTimingAnalysis><unit>ns</unit><EstimatedClockPeriod>2.231</EstimatedClockPeriod></SummaryOfTimingAnalysis>
    <SummaryOfOverallLatency><unit>clock cycles</unit><Best-caseLatency>{latency}</Best-caseLatency>
      <Average-caseLatency>{latency}</Average-caseLatency><Worst-caseLatency>{latency}</Worst-caseLatency>
      <Interval-min>{interval}</Interval-min><Interval-max>{interval}</Interval-max></SummaryOfOverallLatency>
    <SummaryOfLoopLatency>{loops}</SummaryOfLoopLatency>
  </PerformanceEstimates>
  <AreaEstimates>
    <Resources><BRAM_18K>{b}</BRAM_18K><DSP>{d}</DSP><FF>{ff}</FF><LUT>{lut}</LUT><URAM>{u}</URAM></Resources>
    <AvailableResources><BRAM_18K>4032</BRAM_18K><DSP>9024</DSP><FF>2607360</FF><LUT>1303680</LUT>
      <URAM>960</URAM></AvailableResources>
  </AreaEstimates>
</profile>"""


def test_parse_csynth_xml_with_submodules(tmp_path):
    """The atax report's numbers (2.5 ns run of the artifact) as Vitis writes them: one XML per
    module; the top's rows gain the stage modules and their pipelined loops."""
    rep = tmp_path / "report"
    rep.mkdir()
    (rep / "kernel_atax_csynth.xml").write_text(_xml("kernel_atax", 4912, 4913))
    loops_m = _loop("l_S_m_0_r_l_m", 4100, 4120, 1, 22)
    (rep / "stage_M_csynth.xml").write_text(_xml("stage_M", 4912, 4912, loops_m, (0, 119, 27962, 23171, 0)))
    loops_n = _loop("l_S_n_0_k_l_n", 3900, 3918, 1, 20) + _loop("seq", 4, 40, it=10)
    (rep / "stage_N_csynth.xml").write_text(_xml("stage_N", 4316, 4316, loops_n, (1, 124, 28028, 19438, 0)))
    r = parse_csynth_xml(rep / "kernel_atax_csynth.xml")
    assert (r.source, r.top, r.latency_cycles, r.ii, r.clock_ns) == ("vitis", "kernel_atax", 4912, 4913, 2.5)
    assert r.resources == {"BRAM_18K": 2, "DSP": 243, "FF": 56087, "LUT": 42717, "URAM": 0}
    assert r.available["DSP"] == 9024 and r.utilization["DSP"] == pytest.approx(100 * 243 / 9024)
    assert r.estimated_clock_ns == pytest.approx(2.231)
    m = r.loop("l_S_m_0_r_l_m")
    trip, it, ii, lat = published.ATAX_2P5NS_LOOPS["l_S_m_0_r_l_m"]
    assert (m.trip_count, m.iteration_latency, m.ii, m.latency, m.pipelined) == (trip, it, ii, lat, True)
    seq = r.loop("seq")
    assert not seq.pipelined and seq.iteration_latency == 10
    assert [x.name for x in r.loops] == ["stage_M", "stage_N"] and r.loop("stage_N").latency == 4316
    assert "kernel_atax" in str(r)
    with pytest.raises(allo.AlloError, match="not a Vitis HLS csynth.xml"):
        parse_csynth_xml("<profile></profile>")


ATAX_RPT = """\
+ Performance & Resource Estimates:
    +--------------------------------------+--------+-------+---------+-----------+----------+---------+------+----------+---------+----------+------------+------------+-----+
    |                Modules               |  Issue |       | Latency |  Latency  | Iteration|         | Trip |          |         |          |            |            |     |
    |                & Loops               |  Type  | Slack | (cycles)|    (ns)   |  Latency | Interval| Count| Pipelined|  BRAM   |    DSP   |     FF     |     LUT    | URAM|
    +--------------------------------------+--------+-------+---------+-----------+----------+---------+------+----------+---------+----------+------------+------------+-----+
    |+ kernel_atax*                        |  Timing|  -0.41|     4912|  1.228e+04|         -|     4913|     -|  dataflow|  2 (~0%)|  243 (2%)|  56087 (2%)|  42717 (3%)|    -|
    | + stage_M                            |  Timing|  -0.41|     4912|  1.228e+04|         -|     4912|     -|        no|        -|  119 (1%)|  27962 (1%)|  23171 (1%)|    -|
    |  + stage_M_Pipeline_l_S_m_0_r_l_m    |  Timing|  -0.41|     4122|  1.030e+04|         -|     4122|     -|        no|        -|  119 (1%)|  26570 (1%)|  18318 (1%)|    -|
    |   o l_S_m_0_r_l_m                    |       -|   1.82|     4120|  1.030e+04|        22|        1|  4100|       yes|        -|         -|           -|           -|    -|
    | + stage_N                            |  Timing|  -0.41|     4316|  1.079e+04|         -|     4316|     -|        no|  1 (~0%)|  124 (1%)|  28028 (1%)|  19438 (1%)|    -|
    |  + stage_N_Pipeline_l_S_n_0_k_l_n    |  Timing|  -0.41|     3920|  9.800e+03|         -|     3920|     -|        no|        -|  124 (1%)|  27957 (1%)|  19279 (1%)|    -|
    |   o l_S_n_0_k_l_n                    |       -|   1.82|     3918|  9.795e+03|        20|        1|  3900|       yes|        -|         -|           -|           -|    -|
    +--------------------------------------+--------+-------+---------+-----------+----------+---------+------+----------+---------+----------+------------+------------+-----+
"""


def test_parse_csynth_rpt_table():
    r = parse_csynth_rpt(ATAX_RPT, clock_ns=2.5, part="xcu280-fsvh2892-2L-e")
    assert (r.top, r.latency_cycles, r.ii, r.source) == ("kernel_atax", 4912, 4913, "vitis")
    assert r.resources["DSP"] == 243 and r.resources["FF"] == 56087 and r.resources["BRAM_18K"] == 2
    assert [x.name for x in r.loops] == ["stage_M", "stage_N"]
    n = r.loop("l_S_n_0_k_l_n")
    assert (n.trip_count, n.iteration_latency, n.ii, n.latency, n.pipelined) == (3900, 20, 1, 3918, True)
    assert r.loop("stage_M_Pipeline_l_S_m_0_r_l_m").children[0].name == "l_S_m_0_r_l_m"


def test_estimate_and_vitis_reports_compare_side_by_side():
    """The same report type from both sources: the atax estimate at 2.5 ns next to Vitis's."""
    from tests.qor import designs

    d = designs.DESIGNS["atax"](**published.SIZES["atax"])
    est = qor.estimate(d.schedule, clock_ns=2.5)
    tool = parse_csynth_rpt(ATAX_RPT, clock_ns=2.5)
    assert type(est) is type(tool)
    assert abs(est.latency_cycles - tool.latency_cycles) <= 0.01 * tool.latency_cycles
    assert est.loop("l_k_l_n").trip_count == tool.loop("l_S_n_0_k_l_n").trip_count
