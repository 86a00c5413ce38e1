"""The certificate authorities TLS trusts: loaded once per process, and by the window on a thread of its own.

httpx loads them for each client it makes (about 150 certificates, 25–30 ms); the terminal makes its one
connection pool with this context instead. Loading is C code that lets go of the interpreter, so the window
starts it on a thread as soon as its first screen is painted (:func:`prepare`), and the terminal's services,
which load meanwhile, find it done. The trust is httpx's own default: ``SSL_CERT_FILE``, else
``SSL_CERT_DIR``, else certifi's bundle; verification is always on.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

_loading: Future[ssl.SSLContext] | None = None
_lock = threading.Lock()


def _load() -> ssl.SSLContext:
    import ssl

    if cafile := os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=cafile)
    if capath := os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=capath)
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def _run(loading: Future[ssl.SSLContext]) -> None:
    try:
        loading.set_result(_load())
    except BaseException as exc:  # said where the context is asked for, on the thread that asks
        loading.set_exception(exc)


def prepare() -> None:
    """Start loading on a thread now, unless it is under way or done."""
    global _loading
    with _lock:
        if _loading is None:
            _loading = Future()
            # not a daemon: an exit waits its few milliseconds rather than killing it mid-load
            threading.Thread(target=_run, args=(_loading,), name="TLS trust").start()


def trust() -> ssl.SSLContext:
    """The context every connection of this process verifies with; loaded here when :func:`prepare` was not called."""
    global _loading
    with _lock:
        if _loading is None:
            _loading = Future()
            _run(_loading)
        loading = _loading
    return loading.result()
