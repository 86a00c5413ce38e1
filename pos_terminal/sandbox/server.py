"""Running the sandbox: in a background thread (embedded, tests) or in the foreground (CLI)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from types import FrameType

import uvicorn

from pos_terminal.sandbox.app import create_app
from pos_terminal.sandbox.limits import ConnectionGuard, GuardedH11Protocol, quiet_repeated_warnings
from pos_terminal.sandbox.state import Sandbox, SandboxSettings


class CannotListen(Exception):
    """The address cannot be had (a port in use, an address not of this machine); the message is one sentence."""


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (0: a free port), so a refusal is one sentence instead of uvicorn's exit."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and without it a
    # response written in two parts waited for the client's delayed ACK: 40 ms on every kept-alive request
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: a restart may follow a crash
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        raise CannotListen(
            f"The sandbox cannot listen on {shown}:{port} ({exc.strerror or exc}). "
            "Choose another --port, or --port 0 for a free one."
        ) from None
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server, which on SIGINT or SIGTERM (the command line's sandbox) first ends the delays of
    injected faults, as :meth:`SandboxServer.stop` does."""

    def __init__(self, config: uvicorn.Config, sandbox: Sandbox) -> None:
        super().__init__(config)
        self.sandbox = sandbox

    exit_asked: asyncio.Event | None = None
    loop: asyncio.AbstractEventLoop | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """SIGTERM or SIGINT (``pos-terminal sandbox`` in the foreground). The handler runs while the loop waits in
        its selector, which a plain ``Event.set`` does not wake: the stop waited for the next tick, up to a second."""
        self.sandbox.faults.stop_waiting()
        super().handle_exit(sig, frame)
        if self.loop is not None and self.exit_asked is not None:
            with contextlib.suppress(RuntimeError):  # its loop has ended: there is nothing left to stop
                self.loop.call_soon_threadsafe(self.exit_asked.set)

    def ask_exit(self) -> None:
        """From any thread: stop serving now (uvicorn would notice ``should_exit`` at its next 0.1 s poll)."""
        self.should_exit = True
        if self.loop is not None and self.exit_asked is not None:
            with contextlib.suppress(RuntimeError):  # its loop has ended: there is nothing left to stop
                self.loop.call_soon_threadsafe(self.exit_asked.set)

    async def main_loop(self) -> None:
        """uvicorn's loop of ticks, waiting for :meth:`ask_exit` between them rather than polling every 0.1 s.

        Every stop of a sandbox (each test's, the window's own at exit) waited for that poll, and then for a
        fixed 0.1 s pause in :meth:`shutdown`: about 0.2 s per stop, a known cost of uvicorn's loop (its
        pull request 1497). The ticks keep their second-long rhythm (``on_tick`` counts tenths).
        """
        self.loop = asyncio.get_running_loop()
        self.exit_asked = asyncio.Event()
        if self.should_exit:
            self.exit_asked.set()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 10) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.exit_asked.wait(), timeout=1.0)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's shutdown (0.54) without its fixed 0.1 s pause before waiting for the connections asked to
        close: an idle kept-alive connection is gone on the next pass of the loop, a request under way finishes
        its answer (within ``timeout_graceful_shutdown``), and then the application's lifespan ends."""
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        await asyncio.sleep(0)  # a closed transport's connection_lost runs on this pass of the loop
        try:
            await asyncio.wait_for(self._wait_tasks_to_complete(), timeout=self.config.timeout_graceful_shutdown)
        except TimeoutError:
            for task in self.server_state.tasks:
                task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
        if not self.force_exit:
            await self.lifespan.shutdown()


class SandboxServer:
    """A uvicorn server for one sandbox; ``start()`` returns once it accepts connections.

    The socket is bound here, when the server is made: :class:`CannotListen` says why it cannot be.
    """

    def __init__(self, settings: SandboxSettings | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self._socket = listening_socket(host, port)
        try:
            self.sandbox = Sandbox(settings)
        except BaseException:
            self._socket.close()
            raise
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
            date_header=False,  # the application dates every answer by the sandbox's clock (app.ServiceDate)
        )
        self._server = _Server(config, self.sandbox)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._socket.getsockname()[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self, timeout: float = 15.0) -> str:
        """Serve on a daemon thread; returns the base URL."""
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name="sandbox", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the sandbox did not start")
            time.sleep(0.01)
        return self.url

    def stop(self) -> None:
        """Stop serving: requests held by a delay fault are answered at once rather than canceled after the
        graceful timeout (uvicorn printed a traceback for each one canceled)."""
        self.sandbox.faults.stop_waiting()
        self._server.ask_exit()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._socket.close()
        self.sandbox.close()

    def run(self) -> None:
        """Serve in the foreground until interrupted; prints the ready line of contract section 8."""

        async def serve() -> None:
            task = asyncio.create_task(self._server.serve(sockets=[self._socket]))
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
            self._socket.close()
            self.sandbox.close()

    def __enter__(self) -> SandboxServer:
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
