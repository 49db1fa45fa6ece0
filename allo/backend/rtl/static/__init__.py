<<<<<<< HEAD
"""The statically scheduled RTL backend (issue 27): ap_ctrl_hs + ap_memory circuits and their Verilator testbench."""
=======
"""The statically scheduled RTL backend (issue 27): allo's loop IR scheduled by allo and printed
directly as SystemVerilog. `exprs` prints scalar expressions; `svfuncs` holds the SV helper
functions they call."""
>>>>>>> hexpr
