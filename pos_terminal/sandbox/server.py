"""Running the sandbox: in a background thread (embedded, tests) or in the foreground (CLI)."""

from __future__ import annotations

import asyncio
import threading
import time

import uvicorn

from pos_terminal.sandbox.app import create_app
from pos_terminal.sandbox.limits import ConnectionGuard, GuardedH11Protocol, quiet_repeated_warnings
from pos_terminal.sandbox.state import Sandbox, SandboxSettings


class SandboxServer:
    """A uvicorn server for one sandbox; ``start()`` returns once it accepts connections."""

    def __init__(self, settings: SandboxSettings | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.sandbox = Sandbox(settings)
        self.host = host
        self.guard = ConnectionGuard(
            max_connections=self.sandbox.settings.max_connections,
            request_seconds=self.sandbox.settings.request_seconds,
        )
        quiet_repeated_warnings()
        config = uvicorn.Config(
            create_app(self.sandbox),
            host=host,
            port=port,
            http=GuardedH11Protocol.guarded_by(self.guard),
            timeout_keep_alive=5,  # an idle connection between requests; the guard times the requests themselves
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=2,
        )
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        servers = getattr(self._server, "servers", [])
        if not servers:
            raise RuntimeError("the sandbox is not listening")
        return int(servers[0].sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self, timeout: float = 15.0) -> str:
        """Serve on a daemon thread; returns the base URL."""
        self._thread = threading.Thread(target=self._server.run, name="sandbox", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the sandbox did not start")
            time.sleep(0.01)
        return self.url

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.sandbox.close()

    def run(self) -> None:
        """Serve in the foreground until interrupted; prints the ready line of contract section 8."""

        async def serve() -> None:
            task = asyncio.create_task(self._server.serve())
            while not self._server.started:
                if task.done():
                    await task
                    return
                await asyncio.sleep(0.01)
            print(f"sandbox ready: {self.url}", flush=True)
            await task

        try:
            asyncio.run(serve())
        finally:
            self.sandbox.close()

    def __enter__(self) -> SandboxServer:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
