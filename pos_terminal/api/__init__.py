"""The service's HTTP interfaces: wire models, routes, error mapping, retries, auth flows, the POS client.

The only package of the terminal that imports httpx.
"""

import sys

if "httpx" not in sys.modules:
    # ``import httpx`` also imports httpx's command-line client, and with it click, rich and pygments wherever they
    # are installed (encode/httpx#3547, open): twice httpx's own import time on every start of the window, for a
    # program the terminal never runs. A module set to None in ``sys.modules`` is one Python will not import, which
    # is the case httpx already handles (its ``httpx.main`` then says the CLI's packages are missing).
    # ``tests/e2e/test_startup_imports.py`` checks that a start loads none of the three.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
