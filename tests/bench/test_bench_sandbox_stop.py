"""Stopping a sandbox against stopping plain uvicorn serving a one-route app on a thread, in the same run.

Every test with a sandbox stops one, and so does the window at exit. uvicorn notices ``should_exit`` at its next
0.1 s poll and then pauses 0.1 s more before closing its connections: about 0.2 s per stop, a fifth of the whole
suite's time in sandboxes alone. The sandbox's server waits for its exit to be asked instead
(``sandbox/server.py``): the target is a tenth of plain uvicorn's stop.

``pos-terminal sandbox`` in the foreground is stopped by a signal, whose handler runs while the loop waits in its
selector: it must wake the loop, or the stop waits for the next tick (up to a second; 10 to 885 ms measured before
that was mended). Against plain uvicorn serving the same way in a process of its own, stopped by the same SIGTERM.
"""

from __future__ import annotations

import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from pos_terminal.sandbox import SandboxServer, SandboxSettings
from tests.bench.conftest import Bench

TARGET = 0.1
CI_BOUND = 0.5
SIGNAL_TARGET = 0.5
SIGNAL_CI_BOUND = 2.0

# plain uvicorn serving a one-route app in the foreground, as SandboxServer.run serves
PLAIN_FOREGROUND = """
import asyncio, socket, uvicorn
async def app(scope, receive, send):
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})
sock = socket.socket()
sock.bind(("127.0.0.1", 0))
server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
async def main():
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    print("sandbox ready", flush=True)
    await task
asyncio.run(main())
"""


async def one_route(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def plain_stop_ms() -> float:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(one_route, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.001)
    started = time.perf_counter()
    server.should_exit = True
    thread.join(10)
    sock.close()
    return (time.perf_counter() - started) * 1000


def sandbox_stop_ms(folder: Path) -> float:
    server = SandboxServer(SandboxSettings(db_path=str(folder / "sandbox.sqlite3")))
    server.start()
    started = time.perf_counter()
    server.stop()
    return (time.perf_counter() - started) * 1000


def test_a_sandbox_stops_at_once(bench: Bench, tmp_path: Path) -> None:
    rounds = bench.rounds(measuring=10, smoke=3)
    ours, plain = [], []
    for n in range(rounds):
        folder = tmp_path / f"round-{n}"
        folder.mkdir()
        plain.append(plain_stop_ms())
        ours.append(sandbox_stop_ms(folder))
    bench.hold(
        "stop a running server",
        measured=("SandboxServer.stop", statistics.median(ours)),
        baseline=("plain uvicorn, should_exit", statistics.median(plain)),
        target=TARGET,
        ci_bound=CI_BOUND,
        rounds=rounds,
    )


def signalled_stop_ms(command: list[str]) -> float:
    """From SIGTERM to the exit of ``command``, once it has said it is ready."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("sandbox ready"):
            break
    time.sleep(0.2)  # its ticks under way, as in a sandbox left running
    started = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    process.wait(30)
    return (time.perf_counter() - started) * 1000


def test_a_sandbox_in_the_foreground_stops_at_once_on_a_signal(bench: Bench) -> None:
    rounds = bench.rounds(measuring=7, smoke=3)
    ours, plain = [], []
    for _ in range(rounds):
        plain.append(signalled_stop_ms([sys.executable, "-c", PLAIN_FOREGROUND]))
        ours.append(signalled_stop_ms([sys.executable, "-m", "pos_terminal", "sandbox", "--port", "0", "--memory"]))
    bench.hold(
        "stop pos-terminal sandbox with SIGTERM",
        measured=("pos-terminal sandbox", statistics.median(ours)),
        baseline=("plain uvicorn in the foreground", statistics.median(plain)),
        target=SIGNAL_TARGET,
        ci_bound=SIGNAL_CI_BOUND,
        rounds=rounds,
    )
