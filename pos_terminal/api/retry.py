"""When a request may be sent again, and how long to wait first.

Safe to repeat: anything when the connection failed before the request left
(connect errors), anything answered 429 (not processed; wait ``Retry-After``),
and idempotent calls (reads, state changes) after a 5xx or a lost answer. A
create is never re-sent after it may have reached the service: that outcome is
unknown and the caller reconciles by ``refId``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3
    base_delay: float = 0.25
    max_delay: float = 4.0
    max_retry_after: float = 10.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before try ``attempt + 1`` (``attempt`` counts from 1): capped, with full jitter."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)

    def may_retry(self, attempt: int) -> bool:
        return attempt < self.attempts


NO_RETRY = RetryPolicy(attempts=1)
