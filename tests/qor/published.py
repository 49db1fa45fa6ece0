"""Published Vitis HLS 2022.1 C-synthesis latencies (worst case, cycles) of 8 PolyBench kernels,
medium sizes, float32, part xcu280-fsvh2892-2L-e, 3.33 ns clock: the design Allo's schedule
produced (PLDI'24, Fig. 10) and the plain C with interface pragmas only (Vitis's own automatic
pipelining). Source: cornell-zhang/allo-pldi24-artifact (Apache-2.0),
polybench/plot/dataset_paper.json. These are measured facts, kept here so tests need no data files.
"""
CLOCK_NS = 3.33
PART = "xcu280-fsvh2892-2L-e"

SIZES = {
    "2mm": {"P": 180, "R": 190, "Q": 210, "S": 220},
    "atax": {"M": 390, "N": 410},
    "correlation": {"M": 240, "N": 260},
    "gemm": {"P": 200, "R": 220, "Q": 240},
    "jacobi-2d": {"TSTEPS": 100, "N": 250},
    "symm": {"M": 200, "N": 240},
    "syr2k": {"M": 200, "N": 240},
    "trmm": {"M": 200, "N": 240},
}

# kernel -> (allo_scheduled cycles, vitis_baseline cycles)
CYCLES = {
    "2mm": (194006, 111708029),
    "atax": (3224, 1460191),
    "correlation": (498690, 106643521),
    "gemm": (239025, 31734201),
    "jacobi-2d": (58801, 64629101),
    "symm": (508005, 71472005),
    "syr2k": (296183, 242996641),
    "trmm": (486011, 412800006),
}

# Per-loop facts of a Vitis HLS 2022.1 csynth report of the Allo atax design at a 2.5 ns clock
# (same artifact): loop -> (trip count, iteration latency, achieved II, latency).
ATAX_2P5NS_LOOPS = {
    "VITIS_LOOP_25_1": (390, 2, 1, 390),
    "l_S_m_0_r_l_m": (4100, 22, 1, 4120),
    "VITIS_LOOP_42_2": (390, 3, 1, 391),
    "VITIS_LOOP_57_1": (390, 3, 1, 391),
    "l_S_n_0_k_l_n": (3900, 20, 1, 3918),
}
ATAX_2P5NS_TOP = {"latency": 4912, "interval": 4913, "stage_M": 4912, "stage_N": 4316,
                  "BRAM_18K": 2, "DSP": 243, "FF": 56087, "LUT": 42717}
