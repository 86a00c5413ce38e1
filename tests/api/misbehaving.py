"""A loopback HTTP server that misbehaves on purpose: it trickles its answer or never ends it.

Real networks and broken proxies do both. The server speaks just enough HTTP/1.1 for a
real client to accept the status and headers, then either sends one byte at a time with
pauses (``trickle``) or streams a JSON array that never closes (``endless``). Each
connection stops when the client goes away, when the server stops, or after a minute.
"""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

LONGEST_CONNECTION_SECONDS = 60.0
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


class _Handler(socketserver.BaseRequestHandler):
    server: MisbehavingServer

    def handle(self) -> None:
        connection: socket.socket = self.request
        connection.settimeout(5)
        try:
            connection.recv(65536)  # the request; its content does not matter
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
        except OSError:
            return  # the client went away: that is what the test wanted


class MisbehavingServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, mode: str, interval: float = 0.2) -> None:
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
