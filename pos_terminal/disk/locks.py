"""A lock between the processes of one profile: the window and a ``report`` from cron, say.

An exclusive ``flock`` (``msvcrt.locking`` on Windows) on a file in the profile; the lock goes
with the open file, so a process that dies, however it dies, lets go. Taking it waits in a worker
thread, so the event loop goes on; a caller that stops waiting (cancelled, or out of time)
leaves the thread to take the lock and let go of it at once.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from pos_terminal.errors import UserError


class ProfileBusy(UserError):
    sentence = "Another pos-terminal on this computer is renewing the sign-in and has not finished."
    hint = "Try again in a moment; if it keeps happening, close the other pos-terminal windows and commands."


def _lock(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # gives up after about 10 s: then wait again
                return
            except OSError:
                continue
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Exclusive, between processes and threads (each call opens the file anew), on ``path``; waits for it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock(fd)
        yield
    finally:
        os.close(fd)  # closing the file lets go of the lock


class ProfileLock:
    """Exclusive, between processes, on ``path``; ``hold()`` gives up with :class:`ProfileBusy` after ``timeout``."""

    def __init__(self, path: Path, *, timeout: float) -> None:
        self.path = path
        self.timeout = timeout

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        taking = asyncio.ensure_future(asyncio.to_thread(_lock, fd))
        try:
            async with asyncio.timeout(self.timeout):
                await asyncio.shield(taking)
        except BaseException as exc:
            # The thread may take the lock later: closing the file then is letting go of it.
            taking.add_done_callback(lambda _: os.close(fd))
            if isinstance(exc, TimeoutError):
                raise ProfileBusy() from None
            raise
        try:
            yield
        finally:
            os.close(fd)  # closing the file lets go of the lock
