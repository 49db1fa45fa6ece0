"""The statically scheduled RTL backend (issue 27): ap_ctrl_hs + ap_memory circuits and their Verilator testbench."""
