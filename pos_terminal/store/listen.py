"""Waiting for the store database's next change: LISTEN/NOTIFY on PostgreSQL, polling on SQLite."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any

import psycopg

CHANNEL = "pos_store_changes"


class ChangeListener(ABC):
    """Waits until the store database has a change after a given ``seq``. Blocking: run it on a worker thread
    (``await asyncio.to_thread(listener.wait, seq, 5)``) with short timeouts, and close it from that thread."""

    @abstractmethod
    def wait(self, after_seq: int, timeout: float) -> int | None:
        """The newest ``seq`` once it is greater than ``after_seq``, or None when ``timeout`` seconds pass first.

        Returns at once when such a change is there already, so nothing written
        between the last pull and this call is missed.
        """

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> ChangeListener:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class NotifyListener(ChangeListener):
    """LISTEN pos_store_changes on a connection of its own (autocommit); each NOTIFY carries the new ``seq``."""

    def __init__(self, connect_args: Mapping[str, Any], errors: Callable[[], AbstractContextManager[None]]) -> None:
        """``connect_args``: libpq's, as the store database's pool has them; ``errors``: the store database's
        translation of the driver's expected failures into sentences."""
        self._errors = errors
        with errors():
            self._conn = psycopg.connect(**connect_args, autocommit=True)
            self._conn.execute(f"LISTEN {CHANNEL}")
        self._caught_up = False

    def wait(self, after_seq: int, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        with self._errors():
            latest = 0
            if not self._caught_up:
                # once, right after LISTEN: a change committed before it sent no notification this connection saw;
                # from then on every one is queued on the connection, even while nobody waits
                cursor = self._conn.execute("SELECT coalesce(max(seq), 0) FROM change_log")
                row = cursor.fetchone()
                latest = int(row[0]) if row is not None else 0
                self._caught_up = True
            while latest <= after_seq:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                for notify in self._conn.notifies(timeout=left, stop_after=1):
                    if notify.channel == CHANNEL and notify.payload.isdigit():
                        latest = max(latest, int(notify.payload))
        return latest

    def close(self) -> None:
        self._conn.close()


class PollingListener(ChangeListener):
    """Asks for the newest ``seq`` every ``interval`` seconds (SQLite has no notifications between processes)."""

    def __init__(self, latest_seq: Callable[[], int], interval: float) -> None:
        self._latest_seq = latest_seq
        self._interval = interval

    def wait(self, after_seq: int, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while True:
            latest = self._latest_seq()
            if latest > after_seq:
                return latest
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            time.sleep(min(self._interval, left))

    def close(self) -> None:
        pass
