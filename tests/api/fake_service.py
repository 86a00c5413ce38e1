"""A tiny real HTTP service on loopback that answers what a test scripts, for shapes the sandbox never sends.

Real deployments and the proxies in front of them answer with HTML pages, plain
text, empty bodies or other JSON error shapes. The sandbox always speaks
problem details, so these tests serve such answers from a
:class:`http.server.ThreadingHTTPServer` on ``127.0.0.1:0`` and point the real
client at it: the whole HTTP stack runs, nothing of ours is replaced.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, value: Any, content_type: str = "application/json", **headers: str) -> Answer:
        return cls(status, json.dumps(value).encode(), {"Content-Type": content_type, **headers})

    @classmethod
    def text(cls, status: int, text: str, content_type: str = "text/plain; charset=utf-8", **headers: str) -> Answer:
        return cls(status, text.encode(), {"Content-Type": content_type, **headers})


@dataclass(frozen=True)
class Seen:
    """One request as it arrived."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Route = Callable[[Seen], Answer]


class FakeService:
    """Answers each request from ``routes`` (``"METHOD /path"`` → answer or function); 404 otherwise."""

    def __init__(self) -> None:
        self.routes: dict[str, Answer | Route] = {}
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                seen = Seen(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length) if length else b"",
                )
                with service._lock:
                    service.seen.append(seen)
                    route = service.routes.get(f"{self.command} {self.path.split('?')[0]}")
                answer = Answer(404) if route is None else route if isinstance(route, Answer) else route(seen)
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        host, port = self.server.server_address[:2]
        self.url = f"http://{host!s}:{port}"
        self._thread = threading.Thread(
            target=self.server.serve_forever, args=(0.02,), name="fake-service", daemon=True
        )

    def requests(self, method: str, path: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.method == method and s.path.split("?")[0] == path]

    @contextmanager
    def running(self) -> Iterator[FakeService]:
        self._thread.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()
            self._thread.join(timeout=5)


def signs_in_without_refresh(service: FakeService, access_token: str = "at", lifetime: int = 900) -> None:  # noqa: S107
    """``service`` answers the published device sign-in paths, approved at once, with a token of ``lifetime``
    seconds and no refresh token (a server that renews only with offline_access, asked without it)."""
    service.routes["POST /v1/device_authorization"] = Answer.json(
        200,
        {"device_code": "dc", "user_code": "BCDF-GHJK", "verification_uri": f"{service.url}/device", "interval": 1},
    )
    service.routes["POST /v1/token"] = Answer.json(
        200, {"access_token": access_token, "token_type": "Bearer", "expires_in": lifetime, "scope": "posapi"}
    )
