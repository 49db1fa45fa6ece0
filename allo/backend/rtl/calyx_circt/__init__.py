"""The Calyx route's CIRCT side: runs only in the CIRCT child process (allo/backend/rtl/circt_worker.py)
and imports nothing from allo, only `circt` and the standard library.

- `standins`: IR rewrites standing in for the Calyx passes the pip wheel lacks;
- `flow`: the pass sequence from the calyx dialect to SystemVerilog (with `hwfix`, the fixes of
  CIRCT 1.62 bugs on the hw/sv IR);
- `futil`: the component in Calyx's native language, for the Calyx compiler (`fud2`).
"""
