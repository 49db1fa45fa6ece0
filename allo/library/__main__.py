"""`python -m allo.library > docs/library.md` prints the generated kernel reference table."""
from allo.library.reference import reference_table

print(reference_table(), end="")
