"""Pure domain logic, no I/O: money, the check and its totals, the transaction lifecycle, summary arithmetic.

Nothing here imports Qt, httpx, sqlite3, keyring or reportlab; only :mod:`pos_terminal.errors`
from the rest of the package.
"""
