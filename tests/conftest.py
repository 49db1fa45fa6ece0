"""Fixtures shared by several test files."""
import subprocess
import sys
import zipfile

import pytest


@pytest.fixture(scope="session")
def xilinx_ap_types(tmp_path_factory):
    """hls4ml ships the open-source Xilinx ap_types headers; fetch the wheel if the network allows
    (once per session). Tests comparing allo_ap.h with the real headers use this include dir."""
    d = tmp_path_factory.mktemp("hls4ml")
    try:
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "hls4ml", "-d", str(d)],
                           capture_output=True, text=True, timeout=90)
    except (OSError, subprocess.TimeoutExpired):
        pytest.skip("pip download hls4ml timed out")
    wheels = list(d.glob("hls4ml-*.whl"))
    if r.returncode != 0 or not wheels:
        pytest.skip("hls4ml could not be downloaded (offline?)")
    with zipfile.ZipFile(wheels[0]) as z:
        z.extractall(d / "x", [n for n in z.namelist() if "/ap_types/" in n])
    inc = d / "x" / "hls4ml" / "templates" / "vivado" / "ap_types"
    if not (inc / "ap_fixed.h").exists():
        pytest.skip("hls4ml wheel has no ap_types headers")
    return inc
