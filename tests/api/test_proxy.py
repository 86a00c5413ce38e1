"""A till behind a company proxy reaches the service through it: the terminal's HTTP client honours the
environment's proxy settings (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY), as httpx does by default.

A connection pool passed in as a transport of our own once turned them off (httpx mounts the environment's
proxies only when no transport is given).
"""

from __future__ import annotations

import asyncio

import pytest

from pos_terminal.api.client import make_http_client


async def test_requests_go_through_the_proxy_the_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[bytes] = []

    async def proxy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        asked.append(await reader.readline())
        writer.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(proxy, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    try:
        async with make_http_client(timeout=5.0) as http:
            answer = await http.get("http://pos.example.invalid/v4/customers")
    finally:
        server.close()
        await server.wait_closed()

    assert answer.status_code == 204
    assert asked == [b"GET http://pos.example.invalid/v4/customers HTTP/1.1\r\n"]
