"""``shift`` and ``people`` on the command line: a manager's PIN for each, read from a file descriptor or the
terminal without echo, never from the arguments; ``--json`` on every command."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from pos_terminal.cli import main
from tests.cli.conftest import CLI, Run, write_config
from tests.conftest import new_checked_in_customer
from tests.helpers.cli import MANAGER, MANAGER_PIN, pin_fd
from tests.helpers.http import http_client

CASHIER, CASHIER_PIN = "Ana Cashier", "551029384756"


def signed_in(cli: CLI) -> None:
    from tests.conftest import mint_token

    with http_client(base_url=cli("status", json=True).data["authUrl"]) as http:
        token = mint_token(http, expiresIn=0)
    assert cli("login", "--token", token).code == 0


def staffed(cli: CLI, pins: list[int]) -> None:
    first = cli("people", "add", MANAGER, "--role", "manager", "--new-pin-fd", pin_fd(pins, MANAGER_PIN), json=True)
    assert first.code == 0, first.err
    assert first.data == {
        "name": MANAGER,
        "role": "manager",
        "active": True,
        "locked": False,
        "lockedUntil": None,
        "pinToSet": False,
    }
    fd = pin_fd(pins, MANAGER_PIN, CASHIER_PIN)  # the manager's PIN, then the new one, on one descriptor
    added = cli("people", "add", CASHIER, "--as", MANAGER, "--pin-fd", fd, "--new-pin-fd", fd, json=True)
    assert added.code == 0, added.err


def test_a_shift_opened_reported_and_closed_by_denomination(
    cli: CLI, client: httpx.Client, pins: list[int], tmp_path: Path, profile: Path
) -> None:
    signed_in(cli)
    staffed(cli, pins)
    opened = cli("shift", "open", "--float", "150", "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True)
    assert opened.code == 0, opened.err
    assert opened.data["openingFloat"] == 15_000 and opened.data["openedBy"] == MANAGER and opened.data["open"]

    who = new_checked_in_customer(client)
    check = tmp_path / "check.json"
    check.write_text(
        json.dumps(
            {
                "items": [{"name": "Tea", "quantity": 1, "unitPrice": 1200}],
                "payments": [{"method": "cash", "amount": 500}],
            }
        )
    )
    charged = cli(
        "charge", "--customer", who["customerId"], "--check", str(check), "--as", CASHIER,
        "--pin-fd", pin_fd(pins, CASHIER_PIN), json=True,
    )  # fmt: skip
    assert charged.code == 0, charged.err
    completed = cli(
        "tx", "complete", charged.data["transactionId"], "--as", CASHIER, "--pin-fd", pin_fd(pins, CASHIER_PIN)
    )
    assert completed.code == 0, completed.err
    with sqlite3.connect(profile / "data" / "journal.sqlite3") as db:  # the person who completed it, not root
        [(actor,)] = db.execute("SELECT actor FROM outbox WHERE target_state = 'complete'").fetchall()
    assert actor == CASHIER

    x = cli("shift", "x", "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True)
    assert x.code == 0, x.err
    assert x.data["title"] == f"X report — shift {opened.data['id']} so far"
    assert x.data["shift"]["drawer"] == {
        "openingFloat": 15_000,
        "cashSales": 500,
        "cashRefunds": 0,
        "expectedCash": 15_500,
        "countedCash": None,
        "overShort": None,
    }
    assert x.data["shift"]["people"][0]["person"] == CASHIER

    pdf = tmp_path / "z.pdf"
    closed = cli(
        "shift", "close", "--count", "50=3", "--count", "2=2", "--count", "0.50=1", "--pdf", str(pdf),
        "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True,
    )  # fmt: skip
    assert closed.code == 0, closed.err
    drawer = closed.data["shift"]["drawer"]
    assert (drawer["countedCash"], drawer["expectedCash"], drawer["overShort"]) == (15_450, 15_500, -50)
    assert closed.data["shift"]["shift"]["counted"] == [
        {"value": 5000, "count": 3},
        {"value": 200, "count": 2},
        {"value": 50, "count": 1},
    ]
    assert closed.data["reconciled"] and pdf.read_bytes().startswith(b"%PDF")

    listed = cli("shift", "list", "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True)
    assert [(s["open"], s["overShort"]) for s in listed.data] == [(False, -50)]
    said = cli("shift", "list", "--pin-fd", pin_fd(pins, MANAGER_PIN))
    assert "expected $155.00, short by $0.50" in said.out, said.out
    again = cli("report", "--shift", "last", json=True)
    assert again.code == 0, again.err
    assert again.data["shift"]["drawer"] == drawer and again.data["title"].startswith("Z report")
    text = cli("report", "--shift", str(opened.data["id"]))
    assert "Counted $154.50: SHORT by $0.50" in text.out


def test_each_command_needs_a_managers_pin_and_never_takes_one_from_the_arguments(
    cli: CLI, pins: list[int], profile: Path
) -> None:
    signed_in(cli)
    assert cli("shift", "list").code == 1  # nobody works this terminal yet
    staffed(cli, pins)
    refused = cli("shift", "open", "--float", "100", "--pin", MANAGER_PIN)
    assert refused.code == 1 and refused.err_lines[0].startswith("A PIN is never taken from the command's arguments")
    assert MANAGER_PIN not in refused.err
    no_tty = cli("shift", "open", "--float", "100")  # stdin is not a terminal here: nowhere to type it
    assert no_tty.code == 1 and no_tty.err_lines == [
        "A PIN is needed. Type it at a terminal, or give --pin-fd N and write it to fd N."
    ]
    wrong = cli("shift", "open", "--float", "100", "--pin-fd", pin_fd(pins, "000000"))
    assert wrong.code == 1 and "That is not Maria Manager's PIN; 4 more wrong tries lock them." in wrong.err
    cashier = cli("people", "list", "--as", CASHIER, "--pin-fd", pin_fd(pins, CASHIER_PIN))
    assert cashier.code == 1 and "Ana Cashier is not a manager." in cashier.err
    listed = cli("people", "list", "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True)
    assert listed.code == 0
    assert [(p["name"], p["role"]) for p in listed.data] == [(CASHIER, "cashier"), (MANAGER, "manager")]
    for pin in (MANAGER_PIN, CASHIER_PIN):
        assert pin not in listed.out + listed.err
    with sqlite3.connect(profile / "data" / "journal.sqlite3") as journal:
        hashes = [h for (h,) in journal.execute("SELECT pin_hash FROM person")]
    log = (profile / "logs" / "pos-terminal.log").read_text()
    for secret in (MANAGER_PIN, CASHIER_PIN, *hashes):
        assert secret not in log and secret not in listed.out


def test_a_locked_person_is_unlocked_by_a_manager(cli: CLI, pins: list[int]) -> None:
    signed_in(cli)
    staffed(cli, pins)
    for _ in range(5):
        cli("people", "list", "--as", CASHIER, "--pin-fd", pin_fd(pins, "1234"))
    locked = cli("people", "list", "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True)
    assert next(p for p in locked.data if p["name"] == CASHIER)["locked"]
    still: Run = cli("people", "list", "--as", CASHIER, "--pin-fd", pin_fd(pins, CASHIER_PIN))
    assert "locked after too many wrong PINs" in still.err
    unlocked = cli("people", "unlock", CASHIER, "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True)
    assert unlocked.code == 0 and not unlocked.data["locked"]
    disabled = cli("people", "disable", MANAGER, "--pin-fd", pin_fd(pins, MANAGER_PIN))
    assert disabled.code == 1 and "the only manager left" in disabled.err


def test_a_reset_pin_is_chosen_at_the_till_and_no_pin_opens_until_then(
    cli: CLI, pins: list[int], profile: Path
) -> None:
    signed_in(cli)
    staffed(cli, pins)
    reset = cli("people", "reset-pin", CASHIER, "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True)
    assert reset.code == 0, reset.err
    assert reset.data["pinToSet"] is True and reset.data["active"] is True
    said = cli("people", "list", "--pin-fd", pin_fd(pins, MANAGER_PIN))
    assert f"{CASHIER:<24} cashier  new PIN to set at the till" in said.out

    # --as her: one sentence, before any PIN is read (the descriptor is left as it was), and nothing counted
    fd = pin_fd(pins, CASHIER_PIN)
    refused = cli("people", "list", "--as", CASHIER, "--pin-fd", fd)
    assert refused.code == 1
    assert refused.err_lines == [
        f"{CASHIER} must choose a new PIN at the till before signing in, as a manager reset it."
    ]
    assert os.read(int(fd), 100) == f"{CASHIER_PIN}\n".encode()

    # the old way stays for scripts: a manager gives the new PIN with --new-pin-fd
    fd = pin_fd(pins, MANAGER_PIN, "135792468")
    given = cli("people", "reset-pin", CASHIER, "--pin-fd", fd, "--new-pin-fd", fd, json=True)
    assert given.code == 0, given.err
    assert given.data["pinToSet"] is False
    signs_in = cli("people", "list", "--as", CASHIER, "--pin-fd", pin_fd(pins, "135792468"))
    assert signs_in.code == 1 and "is not a manager" in signs_in.err  # her PIN opened; a cashier may not list
    with sqlite3.connect(profile / "data" / "journal.sqlite3") as db:
        resets = [
            json.loads(d) for a, d in db.execute("SELECT action, detail FROM audit ORDER BY id") if a == "PIN reset"
        ]
        wrong = db.execute("SELECT count(*) FROM audit WHERE action = 'wrong PIN'").fetchone()[0]
    assert resets == [{"person": CASHIER, "newPin": "at the till"}, {"person": CASHIER, "newPin": "given"}]
    assert wrong == 0


def test_a_person_is_renamed_made_a_manager_disabled_and_enabled_again(
    cli: CLI, pins: list[int], profile: Path
) -> None:
    signed_in(cli)
    staffed(cli, pins)
    renamed = cli("people", "rename", CASHIER, "Ana Lee", "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True)
    assert renamed.code == 0, renamed.err
    assert renamed.data["name"] == "Ana Lee"
    taken = cli("people", "rename", "Ana Lee", MANAGER.upper(), "--pin-fd", pin_fd(pins, MANAGER_PIN))
    assert taken.code == 1 and "already on this terminal" in taken.err
    # her PIN is hers whatever she is called
    assert cli("people", "list", "--as", "ana lee", "--pin-fd", pin_fd(pins, CASHIER_PIN)).code == 1  # a cashier

    promoted = cli("people", "role", "Ana Lee", "manager", "--as", MANAGER, "--pin-fd", pin_fd(pins, MANAGER_PIN))
    assert promoted.code == 0, promoted.err
    listed = cli("people", "list", "--as", "Ana Lee", "--pin-fd", pin_fd(pins, CASHIER_PIN), json=True)
    assert listed.code == 0, listed.err  # now a manager: she may list the people
    assert {p["name"]: p["role"] for p in listed.data} == {"Ana Lee": "manager", MANAGER: "manager"}

    as_ana = ("--as", "Ana Lee", "--pin-fd")
    assert cli("people", "disable", MANAGER, *as_ana, pin_fd(pins, CASHIER_PIN)).code == 0
    demoted = cli("people", "role", "Ana Lee", "cashier", *as_ana, pin_fd(pins, CASHIER_PIN))
    assert demoted.code == 1 and "the only manager left" in demoted.err
    enabled = cli("people", "enable", MANAGER, *as_ana, pin_fd(pins, CASHIER_PIN), json=True)
    assert enabled.code == 0 and enabled.data["active"] is True

    with sqlite3.connect(profile / "data" / "journal.sqlite3") as db:
        actions = [
            json.loads(d)
            for a, d in db.execute("SELECT action, detail FROM audit ORDER BY id")
            if a in ("person renamed", "role changed", "person enabled")
        ]
    assert actions[0]["name"] == [CASHIER, "Ana Lee"]
    assert actions[1]["role"] == ["cashier", "manager"]


def test_the_profile_given_before_the_command_is_the_one_used(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sandbox: Any, memory_keyring: Any, pins: list[int]
) -> None:
    from pos_terminal.cli import main
    from tests.cli.conftest import write_config

    till = tmp_path / "till-1"
    write_config(till, terminal_id="LANE-1")
    argv = ["people", "add", MANAGER, "--role", "manager", "--new-pin-fd", pin_fd(pins, MANAGER_PIN)]
    assert main(["--profile", str(till), "--service", sandbox.url, *argv]) == 0
    with sqlite3.connect(till / "data" / "journal.sqlite3") as db:
        assert [name for (name,) in db.execute("SELECT name FROM person")] == [MANAGER]
    capsys.readouterr()

    assert main(["--profile", str(till), *argv[:3], "--profile", str(tmp_path / "other")]) == 1
    assert "--profile is given twice" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()
    assert main(["--profile", str(till), "sandbox"]) == 1
    assert "pos-terminal sandbox takes no --profile" in capsys.readouterr().err

    # between the command and its action: argparse read the profile's directory as the action's name
    assert main(["config", "--profile", str(till), "--json", "get", "terminal_id"]) == 0
    assert json.loads(capsys.readouterr().out) == "LANE-1"
    assert main(["config", "--profile", str(till), "get", "terminal_id", "--profile", str(tmp_path / "other")]) == 1
    assert "--profile is given twice" in capsys.readouterr().err


def test_a_shift_is_not_closed_while_a_charge_of_it_is_authorized(
    cli: CLI, client: httpx.Client, pins: list[int], tmp_path: Path
) -> None:
    """`shift close` once closed the shift over an authorized charge (its Z report then listed it as never
    completed): refused with what to do, until the charge is completed, or canceled by the service on its own."""
    signed_in(cli)
    staffed(cli, pins)
    assert cli("shift", "open", "--float", "100", "--pin-fd", pin_fd(pins, MANAGER_PIN)).code == 0
    check = tmp_path / "check.json"
    check.write_text(json.dumps({"items": [{"name": "Tea", "quantity": 1, "unitPrice": 450}]}))

    def charge() -> str:
        who = new_checked_in_customer(client)
        charged = cli(
            "charge", "--customer", who["customerId"], "--check", str(check), "--as", CASHIER,
            "--pin-fd", pin_fd(pins, CASHIER_PIN), json=True,
        )  # fmt: skip
        assert charged.code == 0, charged.err
        return str(charged.data["transactionId"])

    def close() -> Run:
        return cli("shift", "close", "--counted", "100", "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True)

    held = charge()
    refused = close()
    assert refused.code == 1
    assert refused.err_lines == [
        f"The charge {held} is still authorized, neither completed nor canceled. "
        "Complete or cancel it first, then close the shift."
    ]
    assert cli("shift", "list", "--pin-fd", pin_fd(pins, MANAGER_PIN), json=True).data[0]["open"]
    assert client.get(f"/sandbox/transactions/{held}").json()["state"] == "authorized", "nothing was changed"

    assert cli("tx", "complete", held).code == 0
    expired = charge()  # the service cancels this one on its own once its time is up: it holds nothing up
    client.post("/sandbox/clock", json={"advanceSeconds": 3600}).raise_for_status()
    assert client.get(f"/sandbox/transactions/{expired}").json()["state"] == "canceled"
    closed = close()
    assert closed.code == 0, closed.err
    assert closed.data["shift"]["drawer"]["expectedCash"] == 10_000
    assert closed.data["openAuthorized"] == []


def test_shift_x_and_close_on_the_receipt_printer_carry_the_shift(
    cli: CLI, client: httpx.Client, pins: list[int], tmp_path: Path, profile: Path
) -> None:
    """`shift x --escpos` and `shift close --escpos` once printed the service's figures without the shift: the
    float, expected, counted, over or short and the sales per person are on the printer's paper, as on the PDF."""
    from tests.devices.fake_printer import FakePrinter, text_of

    fake = FakePrinter()
    try:
        write_config(
            profile, terminal_id="LANE-CLI", request_timeout_seconds=5, devices={"receipt_printer": fake.address}
        )
        signed_in(cli)
        staffed(cli, pins)
        assert cli("shift", "open", "--float", "150", "--pin-fd", pin_fd(pins, MANAGER_PIN)).code == 0
        who = new_checked_in_customer(client)
        check = tmp_path / "check.json"
        check.write_text(
            json.dumps(
                {
                    "items": [{"name": "Tea", "quantity": 1, "unitPrice": 1200}],
                    "payments": [{"method": "cash", "amount": 500}],
                }
            )
        )
        charged = cli(
            "charge", "--customer", who["customerId"], "--check", str(check), "--as", CASHIER,
            "--pin-fd", pin_fd(pins, CASHIER_PIN), json=True,
        )  # fmt: skip
        assert charged.code == 0, charged.err
        assert cli("tx", "complete", charged.data["transactionId"]).code == 0

        x = cli("shift", "x", "--escpos", "--pin-fd", pin_fd(pins, MANAGER_PIN))
        assert x.code == 0, x.err
        fake.wait_for(fake.jobs)
        printed = text_of(fake.jobs()[0]).splitlines()

        def said(*words: str) -> None:
            """One printed line holds ``words``, in order (a label at the left, its figure at the right)."""
            assert any(line.split() == " ".join(words).split() for line in printed), (words, printed)

        said("X report — shift 1 so far")
        said("Opening float", "$150.00")
        said("+ Cash on checks completed", "$5.00")
        said("- Cash given back on refunds", "$0.00")
        said("= Expected in the drawer", "$155.00")
        said("Sales per person (1)")
        said(CASHIER, "1 check")
        said("cash", "$5.00")
        said("charged", "$7.00")

        closed = cli("shift", "close", "--counted", "154.50", "--escpos", "--pin-fd", pin_fd(pins, MANAGER_PIN))
        assert closed.code == 0, closed.err
        fake.wait_for(lambda: len(fake.jobs()) == 2)
        printed = text_of(fake.jobs()[1]).splitlines()
        if folder := os.environ.get("POS_TERMINAL_SCREENSHOTS"):  # the roll as printed, to be looked at
            from tests.devices.paper import render

            render(fake.jobs()[1], Path(folder) / "z-report-escpos.png")
        said("Z report — shift 1")
        said("= Expected in the drawer", "$155.00")
        said("Counted", "$154.50")
        said("Counted $154.50: SHORT by $0.50.")
        said(CASHIER, "1 check")
    finally:
        fake.close()


def test_the_currency_does_not_change_while_a_shift_is_open(
    cli: CLI, pins: list[int], profile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``config set currency GBP`` relabelled an open shift's float of $150.00 as £150.00."""

    def local(*command: str) -> Run:  # config and setup take no --service
        capsys.readouterr()
        code = main([*command, "--profile", str(profile)])
        said = capsys.readouterr()
        return Run(code, said.out, said.err)

    signed_in(cli)
    staffed(cli, pins)
    assert cli("shift", "open", "--float", "150", "--pin-fd", pin_fd(pins, MANAGER_PIN)).code == 0
    for refused in (
        local("config", "set", "currency", "GBP"),
        local("setup", "--region", "sandbox", "--terminal", "LANE-CLI", "--currency", "GBP"),
    ):
        assert refused.code == 1
        assert refused.err_lines == [
            "The currency cannot change while shift 1 is open: its float and its sales are in AUD. "
            "Close the shift first, then change the currency."
        ]
    assert local("config", "get", "currency").out.strip() == "AUD"
    assert local("config", "set", "locale", "en_GB").code == 0, "the locale only writes the same money differently"
    closed = cli("shift", "close", "--count", "50=3", "--pin-fd", pin_fd(pins, MANAGER_PIN))
    assert closed.code == 0, closed.err
    assert local("config", "set", "currency", "GBP").code == 0
