"""The sandbox's listening socket: a response is never held back waiting for the client's ACK.

Every kept-alive request to the sandbox took about 44 ms: its socket was made with protocol 0, asyncio sets
TCP_NODELAY only on sockets that say they are TCP, and a response written in two parts (headers, then body)
waited under Nagle's algorithm for the client's delayed ACK (``docs/sandbox-latency.md``).
"""

from __future__ import annotations

import asyncio
import socket

from pos_terminal.sandbox.server import listening_socket


async def test_a_connection_accepted_by_the_sandbox_s_socket_sends_without_delay() -> None:
    sock = listening_socket("127.0.0.1", 0)
    seen: list[int] = []
    done = asyncio.Event()

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()
        done.set()

    server = await asyncio.start_server(accepted, sock=sock)
    async with server:
        _, writer = await asyncio.open_connection(*sock.getsockname())
        await asyncio.wait_for(done.wait(), 10)
        writer.close()
    assert sock.proto == socket.IPPROTO_TCP
    assert seen == [1], "asyncio sets TCP_NODELAY on an accepted TCP socket"
