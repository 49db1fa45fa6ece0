"""Read Vitis HLS synthesis reports into a `QoRReport` (source "vitis").

Two formats: the XML Vitis writes per module (`<project>/solution1/syn/report/<top>_csynth.xml`,
`parse_csynth_xml`) and the text summary table of csynth.rpt ("Performance & Resource Estimates",
`parse_csynth_rpt`). `find_csynth_xml(project, top)` locates the XML after `vitis_hls -f run.tcl`.

Example::

    r = parse_csynth_xml("gemm.prj/out.prj/solution1/syn/report/gemm_csynth.xml")
    r.latency_cycles, r.loops[0].ii, r.resources["DSP"], r.source     # ..., "vitis"
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from ..errors import AlloError
from .report import RESOURCE_KEYS, LoopRow, QoRReport


def find_csynth_xml(project, top: str):
    """Path of the top function's csynth.xml under `project`, or None."""
    if project is None:
        return None
    root = Path(project)
    hits = sorted(root.glob(f"**/syn/report/{top}_csynth.xml")) or sorted(root.glob("**/syn/report/csynth.xml"))
    return hits[0] if hits else None


def _int(text, default=None):
    if text is None:
        return default
    text = text.strip()
    try:
        return int(float(text))
    except ValueError:
        return default


def _text(node, path, default=None):
    x = node.find(path)
    return x.text if x is not None and x.text is not None else default


def parse_csynth_xml(source) -> QoRReport:
    """A QoRReport from csynth.xml (a path, or the XML text). Sub-module reports next to it
    (`<module>_csynth.xml`) are attached as rows of the modules the top instantiates."""
    path = None
    if isinstance(source, (str, Path)) and not str(source).lstrip().startswith("<"):
        path = Path(source)
        try:
            text = path.read_text()
        except OSError as e:
            raise AlloError(f"cannot read the Vitis HLS report {path}: {e}") from None
    else:
        text = str(source)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise AlloError(f"not a Vitis HLS csynth.xml report ({e})") from None
    ua = root.find("UserAssignments")
    pe = root.find("PerformanceEstimates")
    if ua is None or pe is None:
        raise AlloError("not a Vitis HLS csynth.xml report: no UserAssignments/PerformanceEstimates")
    top = _text(ua, "TopModelName", "top")
    clock = float(_text(ua, "TargetClockPeriod", "0") or 0)
    part = _text(ua, "Part", "")
    lat = pe.find("SummaryOfOverallLatency")
    worst = _int(_text(lat, "Worst-caseLatency") if lat is not None else None, 0)
    interval = _int(_text(lat, "Interval-max") if lat is not None else None, worst + 1)
    est_clock = _text(pe, "SummaryOfTimingAnalysis/EstimatedClockPeriod")
    loops = [_loop_row(x) for x in list(pe.find("SummaryOfLoopLatency") or [])]
    if path is not None:
        loops += _submodules(path, top, root)
    area = root.find("AreaEstimates")
    res = {k: _int(_text(area, f"Resources/{k}"), 0) for k in RESOURCE_KEYS} if area is not None else {}
    avail = {k: _int(_text(area, f"AvailableResources/{k}"), 0) for k in RESOURCE_KEYS} if area is not None else {}
    return QoRReport(top, worst, interval, clock, part, loops, res, avail, "vitis", "vhls", [],
                     float(est_clock) if est_clock else None)


def _loop_row(node) -> LoopRow:
    name = _text(node, "Name", node.tag)
    ii = _int(_text(node, "PipelineII"))
    depth = _int(_text(node, "PipelineDepth"))
    it = _int(_text(node, "IterationLatency"))
    row = LoopRow(name, "loop", _int(_text(node, "TripCount")), ii is not None, ii, None,
                  depth if depth is not None else it, _int(_text(node, "Latency"), 0) or
                  _int(_text(node, "WorstCaseLatency"), 0) or 0)
    known = {"Name", "TripCount", "Latency", "AbsoluteTimeLatency", "PipelineII", "PipelineDepth",
             "IterationLatency", "WorstCaseLatency", "BestCaseLatency", "AvgCaseLatency", "InstanceList",
             "PipelineType", "Slack"}
    row.children = [_loop_row(x) for x in node if x.tag not in known and x.find("Name") is not None]
    return row


def _submodules(path: Path, top: str, root) -> list:
    rows = []
    for xml in sorted(path.parent.glob("*_csynth.xml")):
        name = xml.name[: -len("_csynth.xml")]
        if name == top:
            continue
        try:
            sub = ET.parse(xml).getroot()
        except ET.ParseError:
            continue
        pe = sub.find("PerformanceEstimates")
        if pe is None:
            continue
        lat = _int(_text(pe, "SummaryOfOverallLatency/Worst-caseLatency"), 0)
        interval = _int(_text(pe, "SummaryOfOverallLatency/Interval-max"))
        loops = [_loop_row(x) for x in list(pe.find("SummaryOfLoopLatency") or [])]
        rows.append(LoopRow(name, "call", None, False, interval, None, lat, lat, "", loops))
    return rows


# ----------------------------------------------------------------------------- csynth.rpt
_ROW = re.compile(r"^\|(?P<name>[^|]+)\|(?P<cols>.*)\|\s*$")


def parse_csynth_rpt(text: str, clock_ns: float | None = None, part: str = "") -> QoRReport:
    """A QoRReport from the hierarchical "Performance & Resource Estimates" table of csynth.rpt
    ('+' module, 'o' loop, '*' dataflow; columns Latency (cycles), Iteration Latency, Interval,
    Trip Count, Pipelined, BRAM, DSP, FF, LUT, URAM)."""
    m = re.search(r"Target device:\s*(\S+)", text)
    part = part or (m.group(1) if m else "")
    header, rows = None, []
    for line in text.splitlines():
        mm = _ROW.match(line.strip())
        if not mm:
            continue
        raw = line.strip().strip("|").split("|")
        cells = [c.strip() for c in raw]
        if header is None:
            if cells and cells[0].startswith("Modules"):
                header = cells
            continue
        if not cells[0] or cells[0].startswith("& Loops"):
            continue
        rows.append([raw[0]] + cells[1:])
    if not rows:
        raise AlloError("no 'Modules & Loops' table in the Vitis HLS report text")
    parsed = [_rpt_cells(c) for c in rows]
    if clock_ns is None:
        cm = re.search(r"\|ap_clk\s*\|\s*([\d.]+)\s*ns", text)
        clock_ns = float(cm.group(1)) if cm else 0.0
    top_depth, top = parsed[0][0], parsed[0][1]
    stack = [(top_depth, top)]
    for depth, row in parsed[1:]:
        while stack and stack[-1][0] >= depth:
            stack.pop()
        (stack[-1][1].children if stack else []).append(row)
        stack.append((depth, row))
    res = dict(getattr(top, "_res", {}))
    r = QoRReport(top.name, top.latency, top.ii or top.latency + 1, clock_ns, part, top.children, res, {}, "vitis")
    return r


def _rpt_cells(c):
    raw = c[0]
    depth = len(raw) - len(raw.lstrip(" "))
    m = re.match(r"\s*([+o*]*)\s*(\S+)(\*?)", raw)
    marker, name = (m.group(1), m.group(2)) if m else ("", raw.strip())
    name = name.rstrip("*")
    # columns: Issue, Slack, Latency(cycles), Latency(ns), IterationLatency, Interval, Trip, Pipelined, BRAM, DSP, FF, LUT, URAM
    get = lambda k: c[k] if k < len(c) else "-"  # noqa: E731
    lat = _int(get(3), 0) or 0
    it = _int(get(5))
    interval = _int(get(6))
    trip = _int(get(7))
    pipelined = get(8).strip()
    kind = "loop" if marker.startswith("o") else ("dataflow" if pipelined == "dataflow" else "call")
    row = LoopRow(name, kind, trip, pipelined == "yes", interval if pipelined in ("yes", "dataflow") else None,
                  None, it, lat)
    row._res = {k: _int(re.sub(r"\(.*\)", "", get(9 + n)), 0) or 0 for n, k in enumerate(RESOURCE_KEYS)}
    return depth, row


__all__ = ["parse_csynth_xml", "parse_csynth_rpt", "find_csynth_xml"]
