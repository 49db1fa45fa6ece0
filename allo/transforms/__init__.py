"""Rewrites of the loop IR that every backend applies to the clone it compiles.

- `bounds`: index ranges known from loop bounds and guards (static checks, BoundsError at the line).
- `guards`: zero-initialisation, run-time bounds checks, the interrupt flag.
- `streams`: FIFO semantics of stream parameters on the CPU.

May import: `allo.errors`, `allo.ir`.
"""
