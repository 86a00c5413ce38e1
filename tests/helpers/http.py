"""httpx clients for the tests, verifying TLS with the one context of the process, as the terminal does
(:func:`pos_terminal.api.trust.trust`).

httpx otherwise loads the certificate authorities again for every client it makes: 55 ms of processor time
each here, for a fixture's client in most tests and a shop's two; a run of the suite spent 50 core-seconds on it.
Verification is as httpx's default; most of these clients speak plain HTTP to the sandbox on loopback anyway.
"""

from __future__ import annotations

from typing import Any

import httpx

from pos_terminal.api.trust import trust


def http_client(**options: Any) -> httpx.Client:
    return httpx.Client(verify=trust(), **options)


def async_http_client(**options: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(verify=trust(), **options)
