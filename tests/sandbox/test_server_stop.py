"""Stopping a sandbox: what a test's teardown and the window's exit do. The server waits for its exit to be asked
rather than polling for it, so the stop is prompt; it still ends the way uvicorn's does: no new connection,
the kept-alive ones closed, the application's lifespan ended, the thread gone."""

from __future__ import annotations

import socket
from pathlib import Path

from pos_terminal.sandbox import SandboxServer, SandboxSettings
from tests.helpers.http import http_client


def answer(raw: socket.socket) -> bytes:
    """One whole HTTP answer (its headers and its body may come in two segments)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += raw.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    while len(body) < length:
        body += raw.recv(65536)
    return data


def test_a_stop_closes_kept_alive_connections_and_ends_the_thread(tmp_path: Path) -> None:
    server = SandboxServer(SandboxSettings(db_path=str(tmp_path / "sandbox.sqlite3")))
    server.start()
    raw = socket.create_connection((server.host, server.port), timeout=10)
    raw.sendall(b"GET /v4/customers HTTP/1.1\r\nHost: sandbox\r\n\r\n")
    assert answer(raw).startswith(b"HTTP/1.1 401"), "answered, and the connection kept alive"
    with http_client(base_url=server.url, timeout=10) as client:
        assert client.get("/v4/customers").status_code == 401
        server.stop()
        assert raw.recv(65536) == b"", "the server closed the idle kept-alive connection"
        assert server._thread is not None and not server._thread.is_alive()
        try:
            socket.create_connection((server.host, server.port), timeout=2).close()
        except OSError:
            pass
        else:
            raise AssertionError("a stopped sandbox still accepts connections")
    raw.close()
    server.stop()  # twice is harmless: the window and a test's teardown may both stop it


def test_a_stop_right_after_the_start_ends_the_server(tmp_path: Path) -> None:
    server = SandboxServer(SandboxSettings(db_path=str(tmp_path / "sandbox.sqlite3")))
    server.start()
    server.stop()
    assert server._thread is not None and not server._thread.is_alive()
