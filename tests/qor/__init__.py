"""The PolyBench designs of the Allo PLDI'24 artifact, rebuilt with allo, and their published
Vitis HLS 2022.1 latencies (tests/qor/published.py), for validating allo.qor."""
