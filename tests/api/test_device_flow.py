"""The device flow (RFC 8628) of :class:`AuthClient` against the sandbox's authorization service.

No test waits for real time: the client's ``sleep`` and ``now`` are injected
(:class:`SimulatedTime`), and each simulated wait moves the sandbox's clock by
the same amount through ``/sandbox/clock``. The person's side is the control
surface (``/sandbox/device/approve`` and ``/deny``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from pos_terminal.api.auth import AuthClient, DevicePhase, DeviceStatus, StaticCredentials
from pos_terminal.api.client import PosClient
from pos_terminal.api.errors import AccessDenied, ExpiredToken, InvalidGrant
from pos_terminal.api.models import DeviceAuthorization
from pos_terminal.sandbox import SandboxServer
from pos_terminal.sandbox.db import secret_digest
from tests.api.conftest import advance, arm, set_sandbox

CLIENT_ID = "pos-terminal"


class SimulatedTime:
    """The client's clock and the sandbox's, moved together when the client sleeps.

    ``early`` sleeps return at once without moving any clock, as a client that polls
    too soon would; ``before_poll`` runs after the n-th sleep (counting from 1), i.e.
    just before the poll that follows it.
    """

    def __init__(self, control: httpx.AsyncClient) -> None:
        self.control = control
        self.start = datetime.now(UTC)
        self.offset = timedelta()
        self.slept: list[float] = []
        self.early = 0
        self.before_poll: dict[int, Callable[[], Awaitable[None]]] = {}

    def now(self) -> datetime:
        return self.start + self.offset

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        if self.early:
            self.early -= 1
        else:
            self.offset += timedelta(seconds=seconds)
            await advance(self.control, seconds)
        action = self.before_poll.get(len(self.slept))
        if action is not None:
            await action()


@pytest.fixture
def time(control: httpx.AsyncClient) -> SimulatedTime:
    return SimulatedTime(control)


@pytest.fixture
def auth(sandbox: SandboxServer, http: httpx.AsyncClient, time: SimulatedTime) -> AuthClient:
    return AuthClient(http, sandbox.url, CLIENT_ID, now=time.now, sleep=time.sleep)


async def start(
    auth: AuthClient, control: httpx.AsyncClient, *, interval: int = 2, **settings: int
) -> DeviceAuthorization:
    """A device code, with the sandbox's polling interval lowered through its settings first."""
    await set_sandbox(control, deviceInterval=interval, **settings)
    authorization = await auth.start_device_authorization()
    assert authorization.interval == interval
    return authorization


def approve(control: httpx.AsyncClient, user_code: str) -> Callable[[], Awaitable[None]]:
    async def act() -> None:
        response = await control.post("/sandbox/device/approve", json={"userCode": user_code})
        assert response.status_code == 204, response.text

    return act


def deny(control: httpx.AsyncClient, user_code: str) -> Callable[[], Awaitable[None]]:
    async def act() -> None:
        response = await control.post("/sandbox/device/deny", json={"userCode": user_code})
        assert response.status_code == 204, response.text

    return act


async def test_approved_after_some_polls_gives_tokens_that_work_on_the_pos_api(
    sandbox: SandboxServer, auth: AuthClient, control: httpx.AsyncClient, time: SimulatedTime, http: httpx.AsyncClient
) -> None:
    authorization = await start(auth, control)
    assert len(authorization.user_code.replace("-", "")) == 8
    assert authorization.verification_uri.endswith("/device")
    time.before_poll[3] = approve(control, authorization.user_code)
    statuses: list[DeviceStatus] = []

    tokens = await auth.poll_device_token(authorization, statuses.append)

    assert time.slept == [2, 2, 2], "waits the interval before every poll, and stops once approved"
    assert [s.phase for s in statuses] == [DevicePhase.PENDING] * 3
    assert [s.seconds_left for s in statuses] == [600, 598, 596]
    assert tokens.access_token and tokens.refresh_token
    assert tokens.scope == "posapi"
    assert tokens.owner_type == "merchant"
    assert tokens.expires_at == time.now() + timedelta(seconds=3600)
    customers = await PosClient(http, f"{sandbox.url}/v4", StaticCredentials(tokens.access_token)).list_customers()
    assert customers, "the demo merchant has checked-in customers"


async def test_denied_stops_polling_with_access_denied(
    auth: AuthClient, control: httpx.AsyncClient, time: SimulatedTime
) -> None:
    authorization = await start(auth, control)
    time.before_poll[2] = deny(control, authorization.user_code)

    with pytest.raises(AccessDenied) as denied:
        await auth.poll_device_token(authorization)

    assert time.slept == [2, 2], "no poll after the denial"
    assert denied.value.code == "access_denied"
    assert denied.value.sentence == "The sign-in request was denied."


async def test_a_code_the_service_says_has_expired_stops_polling_with_expired_token(
    sandbox: SandboxServer, http: httpx.AsyncClient, control: httpx.AsyncClient
) -> None:
    """The sandbox's clock passes ``expires_in`` while the client's clock does not: the service's answer decides."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        await advance(control, 601)

    auth = AuthClient(http, sandbox.url, CLIENT_ID, sleep=sleep)
    authorization = await start(auth, control)

    with pytest.raises(ExpiredToken) as expired:
        await auth.poll_device_token(authorization)

    assert slept == [2]
    assert expired.value.code == "expired_token", "the service said so (the client's own stop has no code)"
    assert "expired" in expired.value.text()


async def test_the_client_stops_by_itself_at_expires_in_without_another_poll(
    auth: AuthClient, control: httpx.AsyncClient, time: SimulatedTime, sandbox: SandboxServer
) -> None:
    authorization = await start(auth, control, deviceExpiresIn=5)
    assert authorization.expires_in == 5
    statuses: list[DeviceStatus] = []

    with pytest.raises(ExpiredToken) as expired:
        await auth.poll_device_token(authorization, statuses.append)

    assert time.slept == [2, 2, 1], "the last wait is cut to the time left"
    assert [s.seconds_left for s in statuses] == [5, 3, 1]
    assert expired.value.code is None, "stopped by the client, not refused by the service"
    with sandbox.sandbox.db.tx() as conn:
        row = conn.execute(
            "SELECT status, last_poll_at, expires_at FROM device_codes WHERE device_code = ?",
            (secret_digest(authorization.device_code),),
        ).fetchone()
    assert row["status"] == "pending"
    assert row["last_poll_at"] < row["expires_at"], "no poll reached the service after the code expired"


async def test_slow_down_adds_five_seconds_for_good_and_polling_goes_on(
    auth: AuthClient, control: httpx.AsyncClient, time: SimulatedTime, sandbox: SandboxServer
) -> None:
    authorization = await start(auth, control)
    time.early = 2  # the first two waits return at once: the second poll comes too soon
    time.before_poll[5] = approve(control, authorization.user_code)
    statuses: list[DeviceStatus] = []

    tokens = await auth.poll_device_token(authorization, statuses.append)

    assert tokens.access_token
    assert time.slept == [2, 2, 7, 7, 7], "after slow_down every wait is 5 s longer, not only the next"
    assert [(s.phase, s.interval) for s in statuses] == [
        (DevicePhase.PENDING, 2),
        (DevicePhase.PENDING, 2),
        (DevicePhase.SLOWED_DOWN, 7),
        (DevicePhase.PENDING, 7),
        (DevicePhase.PENDING, 7),
    ]
    assert "7 s" in statuses[2].message
    with sandbox.sandbox.db.tx() as conn:
        interval = conn.execute(
            "SELECT interval_s FROM device_codes WHERE device_code = ?", (secret_digest(authorization.device_code),)
        ).fetchone()[0]
    assert interval == 7, "one slow_down only: the longer waits were long enough for the service"


async def test_no_poll_comes_sooner_than_the_interval_even_as_the_code_runs_out(
    auth: AuthClient, control: httpx.AsyncClient, time: SimulatedTime
) -> None:
    """Each poll took a quarter second: 1.5 s were left when a wait of 2 s was due; the wait was cut to the whole
    second left and a poll went out 1 s after the one before it, against the interval."""
    authorization = await start(auth, control, deviceExpiresIn=6)
    polls: list[datetime] = []  # when each wait ended (a poll follows every one but the last)

    async def answered_late() -> None:
        polls.append(time.now())
        time.offset += timedelta(seconds=0.25)

    time.before_poll.update({n: answered_late for n in range(1, 6)})
    with pytest.raises(ExpiredToken):
        await auth.poll_device_token(authorization)
    assert time.slept == [2, 2, 1.5], "the last wait runs to the end of the code, and no poll follows it"
    assert (polls[1] - polls[0]).total_seconds() >= 2


@pytest.mark.parametrize("mode", ["error_before", "drop_before"])
async def test_network_trouble_backs_off_then_polling_resumes_at_the_interval(
    mode: str, auth: AuthClient, control: httpx.AsyncClient, time: SimulatedTime
) -> None:
    authorization = await start(auth, control)
    await arm(control, "POST", "/v1/token", mode)
    time.before_poll[3] = approve(control, authorization.user_code)
    statuses: list[DeviceStatus] = []

    tokens = await auth.poll_device_token(authorization, statuses.append)

    assert tokens.access_token
    assert time.slept == [2, 4, 2], "the wait doubles after a failed poll and returns to the interval after"
    assert statuses[1].phase is DevicePhase.NETWORK_TROUBLE
    assert "4 s" in statuses[1].message


async def test_any_other_error_stops_polling_at_once(
    auth: AuthClient, control: httpx.AsyncClient, time: SimulatedTime
) -> None:
    authorization = await start(auth, control)
    unknown = authorization.model_copy(update={"device_code": "not-a-code"})

    with pytest.raises(InvalidGrant):
        await auth.poll_device_token(unknown)

    assert time.slept == [2]


async def test_a_used_device_code_cannot_sign_in_twice(
    auth: AuthClient, control: httpx.AsyncClient, time: SimulatedTime
) -> None:
    authorization = await start(auth, control)
    await approve(control, authorization.user_code)()
    assert (await auth.poll_device_token(authorization)).access_token

    with pytest.raises(InvalidGrant):
        await auth.poll_device_token(authorization)
