"""The statically scheduled RTL backend (issue 27): allo's loop IR scheduled by allo and printed
directly as SystemVerilog. `exprs` prints scalar expressions; `svfuncs` holds the SV helper
functions they call."""
