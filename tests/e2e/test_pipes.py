"""The command line's output read by another program that stops early (``| head``): it ends quietly."""

from __future__ import annotations

import signal
import sys
from typing import Any

import pytest

from tests.conftest import check_body, create_transaction, mint_token, new_checked_in_customer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGPIPE is POSIX")


def test_a_listing_read_by_head_ends_without_a_traceback(lane: Any) -> None:
    terminal, http, _ = lane()
    token = mint_token(http)
    pos = type(http)(base_url=f"{terminal.server.url}/v4", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    who = new_checked_in_customer(http, balance=1_000_000)
    with pos:
        items = [{"id": f"line-{i}", "name": f"Item {i}", "quantity": 1, "amount": 100, "tax": 9} for i in range(30)]
        for n in range(40):  # about 250 KB of JSON: more than a pipe holds, so writing must meet the closed end
            body = check_body(who, amount=3000, refId=f"pipe-{n}", terminalId="LANE-9", items=items, itemTax=270)
            create_transaction(pos, {**body, "tax": 270})
    process = terminal.start("tx", "list")
    assert process.stdout is not None and process.stderr is not None
    head = process.stdout.read(600)  # pos-terminal tx list --json | head -c 600
    process.stdout.close()
    process.wait(timeout=60)
    err = process.stderr.read()
    assert head.startswith("[")
    assert "Traceback" not in err and "Exception ignored" not in err and "BrokenPipe" not in err, err
    assert process.returncode == 128 + signal.SIGPIPE, (process.returncode, err)
