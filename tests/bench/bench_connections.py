"""Figures: the sandbox under thousands of idle and slow-header connections (a script, not a test).

Before the connection guard, about 20,000 such connections exhausted the sandbox's file
descriptors, normal requests timed out, and 259k "Too many open files" tracebacks filled 128 MB
of log in 25 s. This starts ``pos-terminal sandbox`` in its own process, allowed SERVER_FILES
open files (a common limit, below the connections that come), opens CONNECTIONS connections to
it (half send nothing, half an unfinished request line), and meanwhile times normal requests;
then it prints the latencies, the failures, and what the sandbox logged.

    .venv/bin/python -m tests.bench.bench_connections [CONNECTIONS [SERVER_FILES]]
"""

from __future__ import annotations

import resource
import socket
import statistics
import subprocess
import sys
import time

import httpx

CONNECTIONS = int(sys.argv[1]) if len(sys.argv) > 1 else 19_000
SERVER_FILES = int(sys.argv[2]) if len(sys.argv) > 2 else 4_096
PROBES = 50


def main() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    server = subprocess.Popen(
        [sys.executable, "-m", "pos_terminal", "sandbox", "--memory", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (SERVER_FILES, hard)),
    )
    assert server.stdout is not None and server.stderr is not None
    url = server.stdout.readline().split()[-1]
    port = int(url.rsplit(":", 1)[1])
    held: list[socket.socket] = []
    refused = 0
    latencies: list[float] = []
    failures = 0
    started = time.monotonic()
    try:
        for index in range(CONNECTIONS):
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=5)
                if index % 2:
                    conn.sendall(b"GET /v4/customers HTTP/1.1\r\nHost: slow")
                held.append(conn)
            except OSError:
                refused += 1
            if index % (CONNECTIONS // PROBES) == 0:
                sent = time.monotonic()
                try:
                    with httpx.Client(timeout=10) as client:  # a new connection each time, as a new client
                        ok = client.get(f"{url}/sandbox/clock").status_code == 200
                except httpx.HTTPError:
                    ok = False
                latencies.append(time.monotonic() - sent)
                failures += not ok
        opened = time.monotonic() - started
    finally:
        for conn in held:
            conn.close()
        server.terminate()
        _, log = server.communicate(timeout=30)
    quantiles = statistics.quantiles(latencies, n=20)
    print(f"{CONNECTIONS} connections opened in {opened:.1f} s ({refused} refused by the system)")
    print(
        f"{len(latencies)} normal requests meanwhile: {failures} failed, latency median "
        f"{statistics.median(latencies) * 1000:.1f} ms, p95 {quantiles[18] * 1000:.1f} ms, "
        f"max {max(latencies) * 1000:.1f} ms"
    )
    lines = [line for line in log.splitlines() if line.strip()]
    print(f"the sandbox logged {len(lines)} lines, {len(log.encode())} bytes:")
    for line in lines[:10]:
        print(f"    {line}")
    print(f"(the sandbox could open {SERVER_FILES} files; this process {hard})")


if __name__ == "__main__":
    main()
