"""Collection rules shared by the test suite."""
import sys

# PEP 695 syntax (def k[T](...)) does not parse before Python 3.12; scripts/check_py312.sh runs it.
collect_ignore = ["test_compat_pep695.py"] if sys.version_info < (3, 12) else []
