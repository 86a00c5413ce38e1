"""A loopback HTTP server that misbehaves on purpose, the way real networks, proxies and broken deployments do.

It answers every request, whatever its method and path, in one of these ways (``MODES``):

- ``trickle``: a 200 whose body comes one byte at a time with pauses;
- ``endless``: a 200 streaming a JSON array that never closes;
- ``garbage``: a 200 "JSON" answer of random bytes;
- ``reset``: the connection reset (RST) as soon as the request has arrived;
- ``html``: a proxy's 502 error page in HTML;
- ``shape``: a 200 with well-formed JSON of the wrong shape for any route.

Each connection stops when the client goes away, when the server stops, or after a minute.
"""

from __future__ import annotations

import random
import socket
import socketserver
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

LONGEST_CONNECTION_SECONDS = 60.0
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
MODES = ("trickle", "endless", "garbage", "reset", "html", "shape")
_PROXY_PAGE = (
    b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center>"
    b"<hr><center>nginx</center></body></html>"
)


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def _answer(status: str, content_type: str, body: bytes) -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


class _Handler(socketserver.BaseRequestHandler):
    server: MisbehavingServer

    def handle(self) -> None:
        connection: socket.socket = self.request
        connection.settimeout(5)
        try:
            connection.recv(65536)  # the request; its content does not matter
            mode = self.server.mode
            if mode == "reset":
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                connection.close()  # with a zero linger: RST, not FIN
            elif mode == "garbage":
                noise = random.Random(7).randbytes(2048)
                connection.sendall(_answer("200 OK", "application/json", noise))
            elif mode == "html":
                connection.sendall(_answer("502 Bad Gateway", "text/html", _PROXY_PAGE))
            elif mode == "shape":
                connection.sendall(_answer("200 OK", "application/json", b'{"unexpected": [1, 2, 3], "ok": true}'))
            else:
                self._stream(connection)
        except OSError:
            return  # the client went away: that is what the test wanted

    def _stream(self, connection: socket.socket) -> None:
        connection.sendall(HEAD)
        started = time.monotonic()
        body = b'[{"customerId":"c","checkInId":"k"},' * 2000
        sent_first = False
        while not self.server.stopping.is_set() and time.monotonic() - started < LONGEST_CONNECTION_SECONDS:
            if self.server.mode == "trickle":
                connection.sendall(_chunk(b"[" if not sent_first else b" "))
                sent_first = True
                self.server.stopping.wait(self.server.interval)
            else:
                connection.sendall(_chunk(body if sent_first else b"[" + body))
                sent_first = True
            self.server.bytes_sent += 1


class MisbehavingServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, mode: str, interval: float = 0.2) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = mode
        self.interval = interval
        self.stopping = threading.Event()
        self.bytes_sent = 0

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


@contextmanager
def misbehaving(mode: str, interval: float = 0.2) -> Iterator[MisbehavingServer]:
    server = MisbehavingServer(mode, interval)
    thread = threading.Thread(target=server.serve_forever, name=f"misbehaving-{mode}", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
