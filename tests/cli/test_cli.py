"""The command line, in-process, against a sandbox over loopback: a cashier's whole shift, and every refusal.

Each command runs ``pos_terminal.cli.main`` with ``--profile`` (a directory of
the test's own) and ``--service`` (the sandbox's address); the sign-in goes to
an in-memory keyring backend. Failures must exit non-zero with one sentence on
stderr, never a traceback.
"""

from __future__ import annotations

import io
import json
import socket
from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from pos_terminal.domain.check_json import check_from_file
from pos_terminal.sandbox import SandboxServer
from pos_terminal.sandbox.db import secret_digest
from tests.api.fake_service import Answer, FakeService
from tests.cli.conftest import CLI, Run, write_config
from tests.conftest import check_body, create_transaction, mint_token, new_checked_in_customer
from tests.helpers.cli import CHECK, write_check
from tests.helpers.http import http_client
from tests.keyrings import MemoryKeyring


def assert_refused(run: Run, *, says: str) -> str:
    """Exit non-zero, nothing on stdout, and the last line of stderr is the one sentence (no traceback)."""
    assert run.code != 0, run
    assert run.out == "", run.out
    assert "Traceback" not in run.err and "Error:" not in run.err, run.err
    last = run.err_lines[-1]
    assert says in last, run.err
    assert last.rstrip().endswith("."), last
    return last


def test_a_shift_from_sign_in_to_sign_out(
    cli: CLI, tmp_path: Path, client: httpx.Client, memory_keyring: MemoryKeyring
) -> None:
    # login --demo polls at the sandbox's device interval (1 s here), the only real wait: the CLI has no clock to inject
    login = cli("login", "--demo")
    assert login.code == 0, login.err
    assert login.out.strip() == "Signed in."
    assert "enter the code" in login.err
    assert memory_keyring.secrets, "the sign-in went to the keychain"

    status = cli("status", json=True)
    assert status.code == 0
    assert status.data["session"] == "connected"
    assert status.data["terminalId"] == "LANE-CLI"
    assert status.data["production"] is False
    assert status.data["insecureTokenStore"] is False
    assert (status.data["unfinishedCharges"], status.data["pendingStateChanges"]) == (0, 0)
    assert "[SANDBOX]" in cli("status").out

    customer = new_checked_in_customer(client, firstName="Zoë", lastName="Łukasiewicz")
    listed = cli("customers", json=True)
    assert listed.code == 0
    mine = [c for c in listed.data if c["customerId"] == customer["customerId"]]
    assert mine and mine[0]["checkInId"] == customer["checkInId"]
    assert "Zoë Łukasiewicz" in cli("customers").out

    before = cli("summary", "--merge", json=True).data
    check = write_check(tmp_path)
    charged = cli("charge", "--customer", customer["checkInId"], "--check", str(check), json=True)
    assert charged.code == 0, charged.err
    record = charged.data
    expected = check_from_file(CHECK).totals()
    assert record["status"] == "authorized"
    assert record["state"] == "authorized"
    assert record["chargeAmount"] == expected.charge_amount
    assert record["total"] == expected.total
    assert record["terminalId"] == "LANE-CLI"
    assert record["refId"].startswith("pos-")
    transaction_id = record["transactionId"]

    got = cli("tx", "get", transaction_id, json=True)
    assert (got.code, got.data["transactionId"], got.data["state"]) == (0, transaction_id, "authorized")

    completed = cli("tx", "complete", transaction_id, json=True)
    assert completed.code == 0, completed.err
    assert (completed.data["state"], completed.data["status"]) == ("complete", "done")
    after_complete = cli("summary", "--merge", json=True).data
    assert after_complete["count"] == before["count"] + 1
    assert after_complete["total"] == before["total"] + expected.total

    refunded = cli("tx", "refund", transaction_id, "--yes", json=True)
    assert refunded.code == 0, refunded.err
    assert refunded.data["state"] == "refunded"
    after_refund = cli("summary", "--merge", json=True).data
    assert (after_refund["count"], after_refund["total"]) == (before["count"], before["total"])

    history = cli("tx", "list", json=True)
    assert history.code == 0
    assert [(t["transactionId"], t["state"]) for t in history.data] == [(transaction_id, "refunded")]
    assert transaction_id in cli("tx", "list").out

    out = cli("logout")
    assert out.code == 0 and "Disconnected" in out.out
    assert memory_keyring.secrets == {}
    assert cli("status", json=True).data["session"] == "signed out"
    assert_refused(cli("customers"), says="This terminal is not signed in to the service.")


def test_a_token_made_by_hand_signs_in_and_can_be_sent_as_x_api_token(
    cli: CLI, client: httpx.Client, memory_keyring: MemoryKeyring
) -> None:
    signed = cli("login", "--token", mint_token(client, expiresIn=0), "--legacy", json=True)
    assert signed.code == 0
    assert signed.data == {"state": "connected"}
    stored = json.loads(next(iter(memory_keyring.secrets.values())))
    assert stored["legacy"] is True
    listed = cli("customers", json=True)
    assert listed.code == 0 and listed.data


@pytest.mark.parametrize("form", ["separate", "joined"])
def test_a_token_that_starts_with_a_dash_is_taken_as_the_token(
    cli: CLI, client: httpx.Client, memory_keyring: MemoryKeyring, sandbox: SandboxServer, form: str
) -> None:
    """URL-safe tokens start with "-" one time in 64; argparse would read one as an option."""
    minted = mint_token(client, expiresIn=0)
    token = "-" + minted[1:]
    with sandbox.sandbox.db.tx() as conn:  # the same token, but beginning with a dash (the sandbox keeps digests)
        conn.execute(
            "UPDATE access_tokens SET access_token = ? WHERE access_token = ?",
            (secret_digest(token), secret_digest(minted)),
        )
    argv = ("login", "--token", token) if form == "separate" else ("login", f"--token={token}")
    signed = cli(*argv, "--legacy")
    assert signed.code == 0, signed.err
    stored = json.loads(next(iter(memory_keyring.secrets.values())))
    assert stored["accessToken"] == token
    assert cli("customers", json=True).code == 0, "the service accepts the token as stored"


def test_login_token_without_a_value_is_still_a_usage_error(cli: CLI) -> None:
    with pytest.raises(SystemExit) as usage:
        cli("login", "--token")
    assert usage.value.code == 2


def test_a_profile_with_method_override_charges_and_completes(
    cli: CLI, tmp_path: Path, client: httpx.Client, memory_keyring: MemoryKeyring, profile: Path
) -> None:
    write_config(profile, terminal_id="LANE-CLI", method_override=True, routes={"summary": "/summary"})
    assert cli("login", "--token", mint_token(client, expiresIn=0)).code == 0
    customer = new_checked_in_customer(client)
    charged = cli("charge", "--customer", customer["customerId"], "--check", str(write_check(tmp_path)), json=True)
    assert charged.code == 0, charged.err
    done = cli("tx", "cancel", charged.data["transactionId"], json=True)
    assert (done.code, done.data["state"]) == (0, "canceled")
    balance = client.get(f"/sandbox/customers/{customer['customerId']}").json()
    assert (balance["balance"], balance["held"]) == (customer["balance"], 0), "the cancel gave the funds back"


# --- refusals ---------------------------------------------------------------------------------------------------


@pytest.fixture
def signed_in(cli: CLI, client: httpx.Client, memory_keyring: MemoryKeyring) -> CLI:
    assert cli("login", "--token", mint_token(client, expiresIn=0)).code == 0
    return cli


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "does not exist"),
        ("{not json", "is not valid JSON (line 1"),
        ("[1, 2]", "must hold one JSON object with items"),
        ({"items": [{"name": "Tea", "quantity": 1}]}, "unitPrice"),
        ({"items": []}, "item"),
        (
            {
                "items": [{"name": "Tea", "quantity": 1, "unitPrice": 300}],
                "payments": [{"method": "cash", "amount": 400}],
            },
            "more than the check's total",
        ),
        ({"items": [{"name": "Tea", "quantity": 1, "unitPrice": 300}], "tips": 5}, "tips"),
    ],
    ids=["missing", "not-json", "not-an-object", "no-price", "no-items", "overpaid", "unknown-field"],
)
def test_a_bad_check_file_is_refused_with_one_sentence_before_anything_is_sent(
    signed_in: CLI, tmp_path: Path, client: httpx.Client, content: Any, says: str
) -> None:
    customer = new_checked_in_customer(client)
    path = tmp_path / "missing.json" if content is None else write_check(tmp_path, content)

    refused = signed_in("charge", "--customer", customer["customerId"], "--check", str(path))

    assert_refused(refused, says=says)
    assert len(refused.err_lines) <= 2, refused.err
    ledger = client.get(f"/sandbox/customers/{customer['customerId']}/ledger").json()
    assert [e["kind"] for e in ledger if e["kind"] != "topup"] == [], "nothing reached the service"


def test_an_unknown_customer_is_one_sentence(signed_in: CLI, tmp_path: Path) -> None:
    refused = signed_in("charge", "--customer", "nobody", "--check", str(write_check(tmp_path)))
    line = assert_refused(refused, says="No checked-in customer matches “nobody”.")
    assert refused.err_lines == [line]


def test_a_declined_card_is_one_sentence_and_nothing_is_charged(
    signed_in: CLI, tmp_path: Path, client: httpx.Client
) -> None:
    customer = new_checked_in_customer(client, card="declined")
    refused = signed_in("charge", "--customer", customer["customerId"], "--check", str(write_check(tmp_path)))
    assert_refused(refused, says="declined")
    assert signed_in("status", json=True).data["unfinishedCharges"] == 0


def test_an_unknown_transaction_is_one_sentence(signed_in: CLI) -> None:
    refused = signed_in("tx", "get", "no-such-transaction")
    assert refused.err_lines == [assert_refused(refused, says="The service does not know that transaction.")]


def test_a_check_file_with_a_lone_surrogate_is_one_sentence(
    signed_in: CLI, tmp_path: Path, client: httpx.Client
) -> None:
    """It used to crash the terminal with a traceback while writing its journal."""
    customer = new_checked_in_customer(client)
    text = json.dumps(CHECK).replace("Banana bread", "Banana \\ud800bread")
    refused = signed_in("charge", "--customer", customer["customerId"], "--check", str(write_check(tmp_path, text)))
    assert_refused(refused, says="holds a character that is not valid text")
    assert signed_in("status", json=True).data["unfinishedCharges"] == 0


def test_login_reads_the_token_from_standard_input(
    cli: CLI, client: httpx.Client, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token given in the arguments is readable by anyone on the machine (/proc/PID/cmdline)."""
    token = mint_token(client)
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{token}\n"))
    signed = cli("login", "--token", "-")
    assert signed.code == 0, signed.err
    assert any(token in secret for secret in memory_keyring.secrets.values())
    assert cli("customers").code == 0

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    refused = cli("login", "--token", "-")
    assert_refused(refused, says="No token came on standard input.")


def test_login_takes_an_authorization_servers_answer_as_it_came(
    cli: CLI, client: httpx.Client, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``curl …/v1/token | pos-terminal login --token -`` stored the whole JSON as the token: every request was
    refused after "Signed in with the token given"."""
    token = mint_token(client, expiresIn=0)
    answer = {"access_token": token, "token_type": "bearer", "expires_in": 3600, "refresh_token": "r-1"}
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(answer, indent=2)))  # over several lines
    signed = cli("login", "--token", "-")
    assert signed.code == 0, signed.err
    stored = json.loads(next(iter(memory_keyring.secrets.values())))
    assert (stored["accessToken"], stored["refreshToken"], stored["scope"]) == (token, "r-1", "posapi")
    assert stored["expiresAt"] is not None
    assert cli("customers").code == 0


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("not-a-token-of-this-service", "did not accept this token"),
        ('{"token_type": "bearer", "expires_in": 3600}', "is not a token"),
        ('{"access_token": "two words"}', "is not a token"),
        ("Bearer abc", "is not a token"),
    ],
    ids=["refused", "json-without-a-token", "json-token-with-a-space", "two-words"],
)
def test_a_token_that_cannot_work_is_refused_and_the_sign_in_before_stays(
    signed_in: CLI, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch, given: str, says: str
) -> None:
    before = dict(memory_keyring.secrets)
    monkeypatch.setattr("sys.stdin", io.StringIO(given + "\n"))
    refused = signed_in("login", "--token", "-")
    assert refused.err_lines == [assert_refused(refused, says=says)]
    assert memory_keyring.secrets == before
    assert signed_in("customers").code == 0


def test_tx_complete_is_kept_when_the_transaction_cannot_be_read(
    signed_in: CLI, tmp_path: Path, client: httpx.Client
) -> None:
    """A complete read the transaction first; when that read failed, nothing was journaled and the
    service canceled the sale automatically five minutes later."""
    customer = new_checked_in_customer(client)
    charged = signed_in(
        "charge", "--customer", customer["customerId"], "--check", str(write_check(tmp_path)), json=True
    )
    transaction_id = charged.data["transactionId"]
    for method in ("GET", "PATCH"):
        fault = {"method": method, "path": f"/v4/transactions/{transaction_id}", "mode": "error_before", "times": 5}
        client.post("/sandbox/faults", json=fault).raise_for_status()
    unsettled = signed_in("tx", "complete", transaction_id)
    assert unsettled.code == 3, unsettled
    assert "kept and will be sent again" in unsettled.err
    assert signed_in("status", json=True).data["pendingStateChanges"] == 1

    client.delete("/sandbox/faults").raise_for_status()
    assert signed_in("tx", "list").code == 0  # every command first sends what is waiting
    assert signed_in("status", json=True).data["pendingStateChanges"] == 0
    assert client.get(f"/sandbox/transactions/{transaction_id}").json()["state"] == "complete"


def test_a_charge_whose_read_fails_after_the_create_is_reported_authorized_and_never_charged_twice(
    signed_in: CLI, tmp_path: Path, client: httpx.Client
) -> None:
    """The create answered 201 with the transaction's address and the read that followed failed: that failure was
    reported as the charge's ("Try again in a moment"), and the charge made as told held the money a second time."""
    customer = new_checked_in_customer(client)
    check = str(write_check(tmp_path))
    fault = {"method": "GET", "path": "/v4/transactions/*", "mode": "error_before", "times": 20}
    client.post("/sandbox/faults", json=fault).raise_for_status()
    first = signed_in("charge", "--customer", customer["customerId"], "--check", check, json=True)
    assert first.code == 0, first
    assert "try again" not in first.err.lower()
    assert "its details could not be read now" in first.err
    record = first.data
    assert (record["status"], record["chargeAmount"]) == ("authorized", check_from_file(CHECK).totals().charge_amount)
    listed = signed_in("tx", "list", json=True).data
    [held] = [t for t in listed if t["customer"]["customerId"] == customer["customerId"]]
    assert held["transactionId"] == record["transactionId"]
    client.delete("/sandbox/faults").raise_for_status()

    again = signed_in("charge", "--customer", customer["customerId"], "--check", check, json=True)
    assert_refused(again, says=f"This check was charged already: transaction {record['transactionId']}")
    assert "--again" in again.err
    listed = signed_in("tx", "list", json=True).data
    assert [t["transactionId"] for t in listed if t["customer"]["customerId"] == customer["customerId"]] == [
        record["transactionId"]
    ]


def test_refund_without_yes_needs_a_confirmation_when_nobody_can_answer(
    signed_in: CLI, tmp_path: Path, client: httpx.Client
) -> None:
    customer = new_checked_in_customer(client)
    charged = signed_in(
        "charge", "--customer", customer["customerId"], "--check", str(write_check(tmp_path)), json=True
    )
    transaction_id = charged.data["transactionId"]
    assert signed_in("tx", "complete", transaction_id).code == 0
    refused = signed_in("tx", "refund", transaction_id)
    assert_refused(refused, says="needs a confirmation")
    assert "--yes" in refused.err
    assert signed_in("tx", "get", transaction_id, json=True).data["state"] == "complete"


@pytest.mark.parametrize("command", [("customers",), ("tx", "list"), ("summary",), ("tx", "complete", "tx-1")])
def test_not_signed_in_is_one_sentence(cli: CLI, memory_keyring: MemoryKeyring, command: tuple[str, ...]) -> None:
    refused = cli(*command)
    assert refused.err_lines == [assert_refused(refused, says="This terminal is not signed in to the service.")]


def test_an_unreachable_service_is_one_sentence(signed_in: CLI) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    refused = signed_in("customers", service=f"http://127.0.0.1:{port}")
    assert_refused(refused, says="not signed in")  # another service address is another sign-in
    kept = signed_in("login", "--token", "t", service=f"http://127.0.0.1:{port}")
    assert kept.code == 0
    assert kept.err_lines == ["The service could not be asked whether it accepts the token now; it is kept as given."]
    refused = signed_in("customers", service=f"http://127.0.0.1:{port}")
    assert refused.err_lines == [assert_refused(refused, says="The service cannot be reached.")]


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (
            Answer.text(403, "<html><head><title>Access denied</title></head><body>WAF</body></html>", "text/html"),
            "does not allow that",
        ),
        (Answer.text(200, '[{"customerId": ', "application/json"), "cannot read"),
        (Answer.json(409, {"error": {"code": "CUSTOMER_NOT_CHECKED_IN", "message": "x"}}), "no longer checked in"),
    ],
    ids=["html-403", "broken-json-200", "error-object"],
)
def test_what_a_real_deployment_may_answer_is_one_sentence(
    cli: CLI, memory_keyring: MemoryKeyring, fake_service: FakeService, answer: Answer, says: str
) -> None:
    assert cli("login", "--token", "t", service=fake_service.url).code == 0
    fake_service.routes["GET /v4/customers"] = answer
    refused = cli("customers", service=fake_service.url)
    assert refused.err_lines == [assert_refused(refused, says=says)]


def test_a_bad_settings_file_is_one_sentence(cli: CLI, profile: Path) -> None:
    write_config(profile, terminal_id="LANE-CLI", routes={"refunds": "/refunds"})
    refused = cli("status")
    assert refused.err_lines == [assert_refused(refused, says="unknown routes: refunds")]


def test_the_sandbox_on_a_port_in_use_says_so_in_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    from pos_terminal.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["sandbox", "--memory", "--port", str(port)])
    captured = capsys.readouterr()
    assert code == 1 and captured.out == ""
    assert captured.err.strip() == (
        f"The sandbox cannot listen on 127.0.0.1:{port} (Address already in use). "
        "Choose another --port, or --port 0 for a free one."
    )


@pytest.mark.parametrize(
    ("service", "says"),
    [
        ("http://127.0.0.1:99999", "The service address “http://127.0.0.1:99999” given with --service is not a valid"),
        ("http://[::1", "The service address “http://[::1” given with --service is not a valid web address."),
        ("ftp://host", "does not start with http:// or https://"),
    ],
)
def test_a_service_address_that_cannot_be_one_gets_one_sentence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, memory_keyring: MemoryKeyring, service: str, says: str
) -> None:
    from pos_terminal.cli import main

    write_config(tmp_path / "lane", terminal_id="LANE-CLI")
    code = main(["status", "--profile", str(tmp_path / "lane"), "--service", service])
    run = Run(code, *capsys.readouterr())
    assert_refused(run, says=says)


def test_a_profile_that_cannot_be_made_gets_one_sentence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    from pos_terminal.cli import main

    (tmp_path / "a-file").write_text("not a folder")
    for command in (["status"], ["customers"], ["report"]):
        code = main([*command, "--profile", str(tmp_path / "a-file" / "lane")])
        run = Run(code, *capsys.readouterr())
        assert_refused(run, says="cannot be created (Not a directory). Choose a profile folder")


def test_tx_list_finds_what_a_service_with_its_clock_hours_ahead_made_just_now(
    cli: CLI, client: httpx.Client, sandbox: SandboxServer
) -> None:
    token = mint_token(client, expiresIn=0)
    assert cli("login", f"--token={token}").code == 0
    # ahead past the terminal's midnight, whatever the time of the run: the sale is stamped tomorrow by the
    # service's clock, and is still today's (three hours ahead failed only when run after nine in the evening)
    now = datetime.now().astimezone()
    midnight = datetime.combine(now.date() + timedelta(days=1), time(), tzinfo=now.tzinfo)
    ahead = int((midnight - now).total_seconds()) + 3600
    client.post("/sandbox/clock", json={"advanceSeconds": ahead}).raise_for_status()
    who = new_checked_in_customer(client)
    with http_client(base_url=f"{sandbox.url}/v4", headers={"Authorization": f"Bearer {token}"}) as pos:
        made = create_transaction(pos, check_body(who, terminalId="LANE-CLI", refId="ahead-1"))
    listed = cli("tx", "list", json=True)
    assert listed.code == 0, listed.err
    assert made in [t["transactionId"] for t in listed.data]


def test_the_command_line_shows_odd_text(cli: CLI, fake_service: FakeService, tmp_path: Path) -> None:
    from tests.helpers.text import ODD

    assert cli("login", "--token=t", service=fake_service.url).code == 0
    fake_service.routes["GET /v4/customers"] = Answer(200, ODD, {"Content-Type": "application/json"})
    listed = cli("customers", service=fake_service.url)
    assert listed.code == 0 and "Traceback" not in listed.err, listed.err
    assert "\ufffd Bell\ufffd" in listed.out
